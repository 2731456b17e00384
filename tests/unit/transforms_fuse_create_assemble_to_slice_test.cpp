// Tests of pypto/transforms/fuse_create_assemble_to_slice.hpp. Each case is an outlined program
// in SSA form, the pass (run by the pass manager with verify-each) and the expected program,
// compared structurally; the fused program computes what the input does (interpreted on the
// same inputs), and each condition the header names leaves a program unfused when it fails.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/ir/program.hpp"
#include "pypto/runtime/interpreter.hpp"
#include "pypto/runtime/seeded_inputs.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/transforms/pass_instruments.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/pass_registry.hpp"

namespace tf = pypto::transforms;
namespace ir = pypto::ir;
namespace rt = pypto::runtime;

namespace {

ir::ProgramRef parse(std::string_view text) { return pypto::text::parse_program(text); }

ir::ProgramRef run(const ir::ProgramRef& before) {
  tf::PassManagerOptions options;
  options.instruments.push_back(tf::verify_each_instrument());
  options.initial_properties = {tf::Property::SSAForm, tf::Property::SplitIncoreOrch};
  return tf::PassManager(tf::standard_passes().pipeline("fuse-create-assemble-to-slice"),
                         std::move(options))
      .run(*before);
}

/// Deep copies: the interpreter writes Out arguments' buffers in place.
std::vector<rt::Value> copies(const std::vector<rt::Value>& values) {
  std::vector<rt::Value> out;
  for (const rt::Value& v : values) out.push_back(v.deep_copy());
  return out;
}

/// The pass turns `before` into `expected`, and both compute the same on seeded inputs.
void check_fuse(std::string_view before, std::string_view expected) {
  const ir::ProgramRef in = parse(before);
  const ir::ProgramRef after = run(in);
  INFO(pypto::text::print(*after));
  pypto::structural::assert_structural_equal(after, parse(expected), true);
  const std::vector<rt::Value> inputs = rt::seeded_inputs(*in->find("main"), 1);
  std::vector<rt::Value> want = copies(inputs), got = copies(inputs);
  const std::vector<rt::Value> want_results = rt::run(*in, "main", want);
  const std::vector<rt::Value> got_results = rt::run(*after, "main", got);
  REQUIRE(want_results.size() == got_results.size());
  for (std::size_t k = 0; k < want_results.size(); ++k)
    CHECK(rt::bit_identical(want_results[k], got_results[k]));
  for (std::size_t k = 0; k < want.size(); ++k) {  // the arguments, written in place
    CAPTURE(k);
    CHECK(rt::bit_identical(want[k], got[k]));
  }
}

/// The pass leaves `before` as it is.
void check_unfused(std::string_view before) {
  const ir::ProgramRef in = parse(before);
  const ir::ProgramRef after = run(in);
  INFO(pypto::text::print(*after));
  pypto::structural::assert_structural_equal(after, in, true);
}

constexpr std::string_view kFillRow = R"(
import pypto.language as pl

@pl.program
class Rows:
    @pl.function(type=pl.FunctionType.InCore)
    def fill_row(self, x: pl.Tensor[[4, 8], pl.FP32], r: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        t = pl.load(x, [r, 0], [1, 8])
        out1 = pl.store(t, [0, 0], out)
        return out1

    @pl.function(type=pl.FunctionType.InCore)
    def bump_row(self, row: pl.InOut[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        t = pl.load(row, [0, 0], [1, 8])
        u = pl.add(t, t)
        row1 = pl.store(u, [0, 0], row)
        return row1

    @pl.function(type=pl.FunctionType.InCore)
    def touch(self, x: pl.Tensor[[4, 8], pl.FP32], out: pl.InOut[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [4, 8])
        out1 = pl.store(t, [0, 0], out)
        return out1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        for r, (acc,) in pl.range(4, init_values=(out,)):
            row = pl.create_tensor([1, 8], dtype=pl.FP32)
            row1 = self.fill_row(x, r, row)
            acc1 = pl.assemble(acc, row1, [r, 0])
            res = pl.yield_(acc1)
        return res
)";

std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return text;
}

}  // namespace

TEST_CASE("fuse-create-assemble-to-slice: a staged row becomes a view of its place in the target") {
  check_fuse(kFillRow, replaced(replaced(std::string(kFillRow),
                                         "row = pl.create_tensor([1, 8], dtype=pl.FP32)",
                                         "row = pl.slice(acc, [1, 8], [r, 0])"),
                                "            acc1 = pl.assemble(acc, row1, [r, 0])\n"
                                "            res = pl.yield_(acc1)",
                                "            res = pl.yield_(acc)"));
}

TEST_CASE(
    "fuse-create-assemble-to-slice: a kernel writing the staging buffer twice writes the view") {
  const std::string base(kFillRow);
  const std::string twice = replaced(base, "            acc1 = pl.assemble(acc, row1, [r, 0])\n",
                                     "            row2 = self.fill_row(x, 0, row1)\n"
                                     "            acc1 = pl.assemble(acc, row2, [r, 0])\n");
  check_fuse(twice, replaced(replaced(twice, "row = pl.create_tensor([1, 8], dtype=pl.FP32)",
                                      "row = pl.slice(acc, [1, 8], [r, 0])"),
                             "            acc1 = pl.assemble(acc, row2, [r, 0])\n"
                             "            res = pl.yield_(acc1)",
                             "            res = pl.yield_(acc)"));
}

TEST_CASE("fuse-create-assemble-to-slice: a box of lower rank than the target views its place") {
  // A [4, 8] staging buffer assembled into a [2, 4, 8] target at [b, 0, 0]: the slice keeps the
  // create's shape, its leading extent of 1 dropped.
  const std::string before = R"(
import pypto.language as pl

@pl.program
class Planes:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, x: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        t = pl.load(x, [0, 0], [4, 8])
        out1 = pl.store(t, [0, 0], out)
        return out1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 8], pl.FP32], out: pl.Out[pl.Tensor[[2, 4, 8], pl.FP32]]) -> pl.Tensor[[2, 4, 8], pl.FP32]:
        for b, (acc,) in pl.range(2, init_values=(out,)):
            plane = pl.create_tensor([4, 8], dtype=pl.FP32)
            plane1 = self.fill(x, plane)
            acc1 = pl.assemble(acc, plane1, [b, 0, 0])
            res = pl.yield_(acc1)
        return res
)";
  check_fuse(before, replaced(replaced(before, "plane = pl.create_tensor([4, 8], dtype=pl.FP32)",
                                       "plane = pl.slice(acc, [4, 8], [b, 0, 0])"),
                              "            acc1 = pl.assemble(acc, plane1, [b, 0, 0])\n"
                              "            res = pl.yield_(acc1)",
                              "            res = pl.yield_(acc)"));
}

TEST_CASE("fuse-create-assemble-to-slice: each condition that fails leaves the program unfused") {
  const std::string base(kFillRow);
  // Assembled twice: two places, one buffer.
  check_unfused(replaced(base, "            acc1 = pl.assemble(acc, row1, [r, 0])\n",
                         "            acc0 = pl.assemble(acc, row1, [r, 0])\n"
                         "            acc1 = pl.assemble(acc0, row1, [0, 0])\n"));
  // The staging buffer read by a kernel before the assemble (an InOut argument), or after it.
  check_unfused(replaced(base, "            acc1 = pl.assemble(acc, row1, [r, 0])\n",
                         "            row2 = self.bump_row(row1)\n"
                         "            acc1 = pl.assemble(acc, row2, [r, 0])\n"));
  check_unfused(replaced(base, "            acc1 = pl.assemble(acc, row1, [r, 0])\n",
                         "            acc1 = pl.assemble(acc, row1, [r, 0])\n"
                         "            row2 = self.bump_row(row1)\n"));
  // The target's buffer used between them: the kernel's write and the assemble would reorder.
  check_unfused(replaced(base, "            acc1 = pl.assemble(acc, row1, [r, 0])\n",
                         "            accw = self.touch(x, acc)\n"
                         "            acc1 = pl.assemble(accw, row1, [r, 0])\n"));
  // An offset computed after the create.
  check_unfused(replaced(replaced(base, "            row1 = self.fill_row(x, r, row)\n",
                                  "            row1 = self.fill_row(x, r, row)\n"
                                  "            at = r + 0\n"),
                         "pl.assemble(acc, row1, [r, 0])", "pl.assemble(acc, row1, [at, 0])"));
  // The assemble in another block than the create.
  check_unfused(replaced(base,
                         "        for r, (acc,) in pl.range(4, init_values=(out,)):\n"
                         "            row = pl.create_tensor([1, 8], dtype=pl.FP32)\n"
                         "            row1 = self.fill_row(x, r, row)\n",
                         "        row = pl.create_tensor([1, 8], dtype=pl.FP32)\n"
                         "        row1 = self.fill_row(x, 0, row)\n"
                         "        for r, (acc,) in pl.range(4, init_values=(out,)):\n"));
}
