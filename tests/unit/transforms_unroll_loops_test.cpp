// Tests of pypto/transforms/unroll_loops.hpp: UnrollLoops. A case is a program in the natural
// form, the pass (then convert-to-ssa where the case says so), and the expected program,
// compared structurally; or the ValueError a loop that cannot be unrolled gives.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "ir_samples.hpp"
#include "pypto/core/error.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"

using namespace pypto::test;  // NOLINT
namespace tf = pypto::transforms;

namespace {

std::string program(std::string_view body) {
  return "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def "
         "main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> "
         "pl.Tensor[[64], pl.FP32]:\n" +
         std::string(body);
}

ProgramRef run(std::string_view pipeline, std::string_view body) {
  return tf::PassManager(tf::standard_passes().pipeline(pipeline))
      .run(*pypto::text::parse_program(program(body)));
}

void check(std::string_view pipeline, std::string_view before, std::string_view expected) {
  pypto::structural::assert_structural_equal(run(pipeline, before),
                                             pypto::text::parse_program(program(expected)),
                                             /*enable_auto_mapping=*/true);
}

std::string error_of(std::string_view body) {
  try {
    run("unroll-loops", body);
  } catch (const pypto::core::ValueError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("unroll-loops: the body once per value, the loop variable a constant") {
  check("unroll-loops", R"(
        for i in pl.unroll(1, 7, 2):
            n = n + i
        return x
)",
        R"(
        n = n + 1
        n = n + 3
        n = n + 5
        return x
)");
  // A negative step counts down; an empty range leaves nothing; nested loops unroll too.
  check("unroll-loops", R"(
        for i in pl.unroll(2, 0, -1):
            for j in pl.unroll(2):
                n = n + i
                n = n * j
        for k in pl.unroll(3, 3):
            x = pl.mul(x, x)
        return x
)",
        R"(
        n = n + 2
        n = n * 0
        n = n + 2
        n = n * 1
        n = n + 1
        n = n * 0
        n = n + 1
        n = n * 1
        return x
)");
}

TEST_CASE("unroll-loops: then convert-to-ssa versions what the body rebinds") {
  check("unroll-loops,convert-to-ssa", R"(
        for i in pl.range(n):
            for j in pl.unroll(2):
                x = pl.add(x, x)
        return x
)",
        R"(
        for i, (x1,) in pl.range(n, init_values=(x,)):
            x2 = pl.add(x1, x1)
            x3 = pl.add(x2, x2)
            x4 = pl.yield_(x3)
        return x4
)");
}

TEST_CASE("unroll-loops: a loop it cannot unroll is a ValueError naming where") {
  const std::string dynamic = error_of(R"(
        for i in pl.unroll(n):
            x = pl.add(x, x)
        return x
)");
  CHECK(dynamic.find("unroll-loops: ") == 0);
  CHECK(dynamic.find("8:9: a pl.unroll loop") != std::string::npos);  // its line:column
  CHECK(dynamic.find("integer constant start, stop and step") != std::string::npos);
  CHECK(error_of(R"(
        for i in pl.unroll(4):
            if i > 1:
                break
            x = pl.add(x, x)
        return x
)")
            .find("cannot break or continue") != std::string::npos);
  CHECK(error_of(R"(
        for i in pl.unroll(0, 100000, 1):
            x = pl.add(x, x)
        return x
)")
            .find("100000 copies") != std::string::npos);
  // A loop that is not pl.unroll is left alone.
  const auto p = pypto::text::parse_program(program(R"(
        for i in pl.range(4):
            x = pl.add(x, x)
        return x
)"));
  CHECK(tf::PassManager(tf::standard_passes().pipeline("unroll-loops")).run(*p) == p);
}
