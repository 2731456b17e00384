// Tests of pypto/transforms/ctrl_flow_transform.hpp: CtrlFlowTransform. A case is a kernel in
// the natural form, the pass, and the expected kernel, compared structurally.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "ir_samples.hpp"
#include "pypto/ir/loop_exits.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"

using namespace pypto::test;  // NOLINT
namespace tf = pypto::transforms;

namespace {

std::string kernel(std::string_view type, std::string_view body) {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl." +
         std::string(type) +
         ")\n    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> "
         "pl.Tensor[[64], pl.FP32]:\n" +
         std::string(body);
}

ProgramRef run(std::string_view pipeline, const std::string& text) {
  return tf::PassManager(tf::standard_passes().pipeline(pipeline))
      .run(*pypto::text::parse_program(text));
}

void check(std::string_view before, std::string_view expected) {
  pypto::structural::assert_structural_equal(
      run("ctrl-flow-transform", kernel("FunctionType.InCore", before)),
      pypto::text::parse_program(kernel("FunctionType.InCore", expected)),
      /*enable_auto_mapping=*/true);
}

}  // namespace

TEST_CASE("ctrl-flow-transform: what follows a continue moves into the other arm") {
  check(R"(
        for i in pl.range(n):
            x = pl.add(x, x)
            if i < 2:
                continue
            x = pl.mul(x, x)
        return x
)",
        R"(
        for i in pl.range(n):
            x = pl.add(x, x)
            if i < 2:
                pass
            else:
                x = pl.mul(x, x)
        return x
)");
}

TEST_CASE("ctrl-flow-transform: a break becomes a flag, its for loop a while loop") {
  check(R"(
        for i in pl.range(1, n, 2):
            if i > 4:
                break
            x = pl.add(x, x)
        return x
)",
        R"(
        i: pl.Scalar[pl.INDEX] = 1
        f: pl.Scalar[pl.BOOL] = False
        while i < n and not f:
            if i > 4:
                f: pl.Scalar[pl.BOOL] = True
            else:
                x = pl.add(x, x)
            if not f:
                i = i + 2
        return x
)");
  // A while loop keeps its condition and gains the flag; continue and break together.
  check(R"(
        k: pl.Scalar[pl.INDEX] = 0
        while k < n:
            k = k + 1
            if k == 2:
                continue
            if k > 5:
                break
            x = pl.add(x, x)
        return x
)",
        R"(
        k: pl.Scalar[pl.INDEX] = 0
        f: pl.Scalar[pl.BOOL] = False
        while k < n and not f:
            k = k + 1
            if k == 2:
                pass
            else:
                if k > 5:
                    f: pl.Scalar[pl.BOOL] = True
                else:
                    x = pl.add(x, x)
        return x
)");
}

TEST_CASE("ctrl-flow-transform: orchestration code and loops without exits are left alone") {
  const std::string body = R"(
        for i in pl.range(n):
            if i > 4:
                break
            x = pl.add(x, x)
        return x
)";
  const std::string orchestration = kernel("FunctionType.Orchestration", body);
  const ProgramRef p = pypto::text::parse_program(orchestration);
  CHECK(tf::PassManager(tf::standard_passes().pipeline("ctrl-flow-transform")).run(*p) == p);
  const ProgramRef q = pypto::text::parse_program(kernel("FunctionType.InCore", R"(
        for i in pl.range(n):
            x = pl.add(x, x)
        return x
)"));
  CHECK(tf::PassManager(tf::standard_passes().pipeline("ctrl-flow-transform")).run(*q) == q);
}

TEST_CASE("loop_exits: the breaks and continues of a loop body, nested loops aside") {
  // The body of the function's first (outer) loop.
  auto body_of = [](std::string_view loop_body) {
    const ProgramRef p = pypto::text::parse_program(
        kernel("FunctionType.InCore",
               "        for i in pl.range(n):\n" + std::string(loop_body) + "        return x\n"));
    const auto& seq = static_cast<const pypto::ir::SeqStmts&>(*p->find("main")->body);
    return static_cast<const pypto::ir::ForStmt&>(*seq.stmts.at(0)).body;
  };
  const auto structured = pypto::ir::loop_exits(
      *body_of("            if i > 2:\n                break\n            y = pl.add(x, 1.0)\n"));
  CHECK(structured.breaks);
  CHECK_FALSE(structured.continues);
  CHECK(structured.structured);
  // the inner loop's continue is its own; the break in a scope statement is this loop's, but
  // not reachable through ifs alone
  const auto scoped =
      pypto::ir::loop_exits(*body_of("            for j in pl.range(n):\n                continue\n"
                                     "            with pl.incore():\n                break\n"));
  CHECK(scoped.breaks);
  CHECK_FALSE(scoped.continues);
  CHECK_FALSE(scoped.structured);
  const auto none = pypto::ir::loop_exits(*body_of("            y = pl.add(x, 1.0)\n"));
  CHECK_FALSE(none.any());
  CHECK(none.structured);
}
