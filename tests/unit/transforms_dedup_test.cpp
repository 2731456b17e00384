// Tests of pypto/transforms/deduplicate_outlined_kernels.hpp: seed 001
// (DeduplicateOutlinedKernels). Each case is a program in the text format run through the pass
// manager with verify-each and the pass's required properties as the initial ones; the result is
// compared with the expected program (callee names matter: enable_auto_mapping=false) and the
// diagnostics log is checked. Refusals: every pair that differs in one significant detail keeps
// both definitions.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "pypto/dedup.hpp"

namespace tf = pypto::transforms;
namespace ir = pypto::ir;
using ir::ProgramRef;
using Kind = tf::DedupEvent::Kind;
using tf::DedupSkip;

namespace {

ProgramRef parse(std::string_view text) { return pypto::text::parse_program(text); }

/// Runs the pass alone with verify-each from its required properties; events go to `log`.
ProgramRef dedup(std::string_view before, tf::DedupLog& log, tf::DedupOptions options = {}) {
  options.on_event = log.sink();
  tf::PassManagerOptions pm;
  pm.verify_each = true;
  pm.initial_properties = {tf::Property::SSAForm, tf::Property::SplitIncoreOrch,
                           tf::Property::ClusterOutlined, tf::Property::NormalizedStmtStructure};
  return tf::PassManager({tf::DeduplicateOutlinedKernels(std::move(options))}, std::move(pm))
      .run(*parse(before));
}

void check_equal(const ProgramRef& after, std::string_view expected) {
  INFO(pypto::text::print(*after));
  pypto::structural::assert_structural_equal(after, parse(expected), false);
}

std::string all_lines(const tf::DedupLog& log) {
  std::string s;
  for (const auto& l : log.lines()) s += l + "\n";
  return s;
}

constexpr std::string_view kHeader = R"(
import pypto.language as pl
@pl.program
class P:
)";

constexpr std::string_view kMainTwo = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.step(x0, o1)
        x2 = self.step_copy(x1, o2)
        return x2
)";

/// A kernel `name` with a `(x, o: Out)` signature; `{sig_x}`, `{sig_o}`, `{body}` vary.
std::string kernel(std::string_view name, std::string_view body = "u = pl.add(t, 1.0)",
                   std::string_view x_type = "pl.Tensor[[64], pl.FP32]",
                   std::string_view o_type = "pl.Out[pl.Tensor[[64], pl.FP32]]",
                   std::string_view load = "t = pl.load(x, [0], [64])") {
  std::string s = "\n    @pl.function(type=pl.FunctionType.InCore)\n    def ";
  s += std::string(name) + "(self, x: " + std::string(x_type) + ", o: " + std::string(o_type) +
       ") -> pl.Tensor[[64], pl.FP32]:\n";
  s += "        " + std::string(load) + "\n";
  s += "        " + std::string(body) + "\n";
  s += "        pl.store(u, [0], o)\n        return o\n";
  return s;
}

std::string program(std::string_view functions) {
  return std::string(kHeader) + std::string(functions);
}

/// step / step_copy differing as given: both definitions stay, nothing merged.
void check_kept(const std::string& step, const std::string& step_copy,
                std::size_t expected_skips = 0) {
  const std::string text = program(std::string(kMainTwo) + step + step_copy);
  tf::DedupLog log;
  ProgramRef after = dedup(text, log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Merged) == 0);
  CHECK(log.count(Kind::Skipped) == expected_skips);  // compared, found different
  CHECK(after->functions.size() == 3);
  check_equal(after, text);
}

}  // namespace

// ---- seed 001's example --------------------------------------------------------------------

TEST_CASE("dedup: two equal outlined kernels become one definition, both calls kept (seed 001)") {
  tf::DedupLog log;
  ProgramRef after =
      dedup(program(std::string(kMainTwo) + kernel("step") + kernel("step_copy")), log);
  check_equal(after, program(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.step(x0, o1)
        x2 = self.step(x1, o2)
        return x2
)" + kernel("step")));
  REQUIRE(log.count(Kind::Merged) == 1);
  CHECK(all_lines(log).find("merged step <- step_copy") != std::string::npos);
}

TEST_CASE("dedup: parameter names and local names do not matter (alpha-renaming)") {
  tf::DedupLog log;
  ProgramRef after =
      dedup(program(std::string(kMainTwo) + kernel("step") +
                    kernel("step_copy", "w = pl.add(t, 1.0)\n        u = w").substr(0, 0) +
                    R"(
    @pl.function(type=pl.FunctionType.InCore)
    def step_copy(self, a: pl.Tensor[[64], pl.FP32], b: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        tt = pl.load(a, [0], [64])
        uu = pl.add(tt, 1.0)
        pl.store(uu, [0], b)
        return b
)"),
            log);
  CHECK(log.count(Kind::Merged) == 1);
  CHECK(after->functions.size() == 2);
}

// ---- refusals: every significant detail keeps the kernels apart ---------------------------

TEST_CASE("dedup: kernels differing only in a -0.0 vs 0.0 constant are not merged") {
  check_kept(kernel("step", "u = pl.add(t, 0.0)"), kernel("step_copy", "u = pl.add(t, -0.0)"));
}

TEST_CASE("dedup: kernels differing only in an INDEX vs INT64 constant are not merged") {
  check_kept(
      kernel("step", "u = pl.add(t, 1.0)", "pl.Tensor[[64], pl.FP32]",
             "pl.Out[pl.Tensor[[64], pl.FP32]]", "t = pl.load(x, [0], [64])"),
      kernel("step_copy", "u = pl.add(t, 1.0)", "pl.Tensor[[64], pl.FP32]",
             "pl.Out[pl.Tensor[[64], pl.FP32]]", "t = pl.load(x, [pl.const(0, pl.INT64)], [64])"));
}

TEST_CASE("dedup: kernels differing only in a parameter direction are not merged") {
  check_kept(kernel("step"), kernel("step_copy", "u = pl.add(t, 1.0)", "pl.Tensor[[64], pl.FP32]",
                                    "pl.InOut[pl.Tensor[[64], pl.FP32]]"));
}

TEST_CASE("dedup: kernels differing only in a valid_shape are not merged") {
  check_kept(kernel("step", "u = pl.add(t, 1.0)",
                    "pl.Tensor[[64], pl.FP32, pl.TensorView(valid_shape=[60])]"),
             kernel("step_copy", "u = pl.add(t, 1.0)",
                    "pl.Tensor[[64], pl.FP32, pl.TensorView(valid_shape=[62])]"));
}

TEST_CASE("dedup: kernels with explicit storage (MemRef) are not candidates") {
  const std::string body = "u = pl.add(t, 1.0)";
  const std::string load_a =
      R"(t: pl.Tile[[64], pl.FP32, pl.MemRef("buf", 0, 256)] = pl.load(x, [0], [64]))";
  check_kept(
      kernel("step", body, "pl.Tensor[[64], pl.FP32]", "pl.Out[pl.Tensor[[64], pl.FP32]]", load_a),
      kernel("step_copy", body, "pl.Tensor[[64], pl.FP32]", "pl.Out[pl.Tensor[[64], pl.FP32]]",
             load_a),
      2);
  tf::DedupLog log;
  dedup(program(std::string(kMainTwo) +
                kernel("step", body, "pl.Tensor[[64], pl.FP32]", "pl.Out[pl.Tensor[[64], pl.FP32]]",
                       load_a) +
                kernel("step_copy", body, "pl.Tensor[[64], pl.FP32]",
                       "pl.Out[pl.Tensor[[64], pl.FP32]]", load_a)),
        log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Skipped, DedupSkip::NotClosed) == 2);
  CHECK(all_lines(log).find("storage") != std::string::npos);
}
