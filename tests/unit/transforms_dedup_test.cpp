// Tests of pypto/transforms/deduplicate_outlined_kernels.hpp: seed 001
// (DeduplicateOutlinedKernels). Each case is a program in the text format run through the pass
// manager with verify-each and the pass's required properties as the initial ones; the result is
// compared with the expected program (callee names matter: enable_auto_mapping=false) and the
// diagnostics log is checked. Refusals: every pair that differs in one significant detail keeps
// both definitions.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dedup_test_support.hpp"
#include "pypto/transforms/pass_registry.hpp"

using namespace dedup_test;  // NOLINT: the shared runners, checks and program fragments

// ---- seed 001's example --------------------------------------------------------------------

TEST_CASE("dedup: two equal outlined kernels become one definition, both calls kept (seed 001)") {
  tf::DedupLog log;
  ProgramRef after =
      dedup(program(std::string(kMainTwo) + kernel("step") + kernel("step_copy")), log);
  check_equal(after, program(std::string(kMainMerged) + kernel("step")));
  REQUIRE(log.count(Kind::Merged) == 1);
  CHECK(has_line(log, "merged step <- step_copy"));
}

TEST_CASE("dedup: a call in a loop-carried variable's initial value is re-pointed too") {
  // The call sits inside the IterArg `s` (its init value), so the IterArg is rebuilt and its use
  // in the body follows it; a rename that skipped variables left `step_copy` dangling.
  constexpr std::string_view kMainLoop = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1: pl.Tensor[[64], pl.FP32] = self.step(x0, o1)
        for i, (s,) in pl.range(2, init_values=(self.CALLEE(x1, o2),)):
            y: pl.Tensor[[64], pl.FP32] = pl.yield_(s)
        return y
)";
  auto main_calling = [&](std::string_view callee) {
    std::string text(kMainLoop);
    text.replace(text.find("CALLEE"), 6, callee);
    return text;
  };
  tf::DedupLog log;
  ProgramRef after =
      dedup(program(main_calling("step_copy") + kernel("step") + kernel("step_copy")), log);
  check_equal(after, program(main_calling("step") + kernel("step")));
  CHECK(has_line(log, "merged step <- step_copy"));
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
  check_twins_kept(kernel("step", "u = pl.add(t, 0.0)"), kernel("step_copy", "u = pl.add(t, -0.0)"),
                   0);
}

TEST_CASE("dedup: kernels differing only in an INDEX vs INT64 constant are not merged") {
  check_twins_kept(
      kernel("step"),
      kernel("step_copy", kAddOne, {.load = "t = pl.load(x, [pl.const(0, pl.INT64)], [64])"}), 0);
}

TEST_CASE("dedup: kernels differing only in a parameter direction are not merged") {
  check_twins_kept(kernel("step"),
                   kernel("step_copy", kAddOne, {.o_type = "pl.InOut[pl.Tensor[[64], pl.FP32]]"}),
                   0);
}

TEST_CASE("dedup: kernels differing only in a valid_shape are not merged") {
  check_twins_kept(kernel("step", kAddOne,
                          {.x_type = "pl.Tensor[[64], pl.FP32, pl.TensorView(valid_shape=[60])]"}),
                   kernel("step_copy", kAddOne,
                          {.x_type = "pl.Tensor[[64], pl.FP32, pl.TensorView(valid_shape=[62])]"}),
                   0);
}

TEST_CASE("dedup: kernels with explicit storage (MemRef) are not candidates") {
  const KernelParts memref{
      .load = R"(t: pl.Tile[[64], pl.FP32, pl.MemRef("buf", 0, 256)] = pl.load(x, [0], [64]))"};
  const tf::DedupLog log =
      check_twins_kept(kernel("step", kAddOne, memref), kernel("step_copy", kAddOne, memref), 2);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Skipped, DedupSkip::NotClosed) == 2);
  CHECK(has_line(log, "storage"));
}

// ---- eligibility ---------------------------------------------------------------------------

TEST_CASE("dedup: equal kernels that nothing references are both kept as potential entries") {
  const std::string text = program(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x0
)" + kernel("step") + kernel("step_copy"));
  tf::DedupLog log;
  ProgramRef after = dedup(text, log);
  check_equal(after, text);
  CHECK(log.count(Kind::Merged) == 0);
  CHECK(log.count(Kind::Skipped, DedupSkip::Unreferenced) == 2);
}

TEST_CASE("dedup: Orchestration and Spmd functions keep their identity, their callee is shared") {
  const std::string text = program(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.rows_a(x0, o1)
        x2 = self.rows_b(x1, o2)
        return x2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main_copy(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.rows_a(x0, o1)
        x2 = self.rows_b(x1, o2)
        return x2

    @pl.function(type=pl.FunctionType.Spmd)
    def rows_a(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        o1 = self.step(x, o)
        return o

    @pl.function(type=pl.FunctionType.Spmd)
    def rows_b(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        o1 = self.step(x, o)
        return o
)" + kernel("step"));
  tf::DedupLog log;
  ProgramRef after = dedup(text, log);
  check_equal(after, text);
  CHECK(log.count(Kind::Merged) == 0);
}

TEST_CASE("dedup: calls inside Spmd wrappers are re-pointed at the survivor") {
  tf::DedupLog log;
  ProgramRef after = dedup(program(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o1: pl.Out[pl.Tensor[[64], pl.FP32]], o2: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        x1 = self.rows(x0, o1, attrs={"core_num": pl.const(4, pl.INDEX)})
        x2 = self.step_copy(x1, o2)
        return x2

    @pl.function(type=pl.FunctionType.Spmd)
    def rows(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        o1 = self.step_copy(x, o)
        return o
)" + kernel("a_step") + kernel("step_copy")),
                           log);
  // a_step is unreferenced: kept, not a survivor; step_copy stays alone.
  CHECK(log.count(Kind::Merged) == 0);
  CHECK(after->functions.size() == 4);
}

TEST_CASE("dedup: a Submit is re-pointed keeping deps, core_num, sync and attrs, no task removed") {
  tf::DedupLog log;
  ProgramRef after = dedup(program(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], kv: pl.Out[pl.Tensor[[64], pl.FP32]], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        r0 = pl.submit(self.step, a, kv)
        kv1 = r0[0]
        t0 = r0[1]
        r1 = pl.submit(self.step_copy, kv1, o, deps=[t0], core_num=pl.const(4, pl.INDEX), sync_start=True, allow_early_resolve=True, attrs={"arg_direction_overrides": [0, 1]})
        o1 = r1[0]
        t1 = r1[1]
        return o1
)" + kernel("step") + kernel("step_copy")),
                           log);
  check_equal(after, program(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], kv: pl.Out[pl.Tensor[[64], pl.FP32]], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        r0 = pl.submit(self.step, a, kv)
        kv1 = r0[0]
        t0 = r0[1]
        r1 = pl.submit(self.step, kv1, o, deps=[t0], core_num=pl.const(4, pl.INDEX), sync_start=True, allow_early_resolve=True, attrs={"arg_direction_overrides": [0, 1]})
        o1 = r1[0]
        t1 = r1[1]
        return o1
)" + kernel("step")));
  CHECK(log.count(Kind::Merged) == 1);
}

TEST_CASE("dedup: UnknownType is admitted only as a statement-only call's EvalStmt result") {
  const std::string sync =
      "u = pl.add(t, 1.0)\n        pl.system.sync_set(pipe=pl.PipeType.V, event_id=0)";
  tf::DedupLog log;
  ProgramRef after =
      dedup(program(std::string(kMainTwo) + kernel("step", sync) + kernel("step_copy", sync)), log);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Merged) == 1);
  CHECK(after->functions.size() == 2);
}

// ---- Group bundles --------------------------------------------------------------------------

TEST_CASE("dedup: two exclusive Group bundles with equal members merge atomically") {
  tf::DedupLog log;
  ProgramRef after =
      dedup(program(std::string(kMainGroups) + group("g_a", "pa", "ca") + group("g_b", "pb", "cb") +
                    producer("pa") + consumer("ca") + producer("pb") + consumer("cb")),
            log);
  check_equal(after, program(std::string(kMainGroupsMerged) + group("g_a", "pa", "ca") +
                             producer("pa") + consumer("ca")));
  REQUIRE(log.count(Kind::Merged) == 1);
  CHECK(has_line(log, "merged g_a <- g_b pb=>pa cb=>ca"));
}

TEST_CASE("dedup: bundles whose members differ, in order or content, stay apart") {
  tf::DedupLog log;
  const std::string text =
      program(std::string(kMainGroups) + group("g_a", "pa", "ca") + group("g_b", "pb", "cb") +
              producer("pa") + consumer("ca") + producer("pb", {.scale = "2.0"}) + consumer("cb"));
  check_equal(dedup(text, log), text);
  CHECK(log.count(Kind::Merged) == 0);
}

TEST_CASE("dedup: a member shared by two Groups blocks both bundles and their members") {
  tf::DedupLog log;
  const std::string text =
      program(std::string(kMainGroups) + group("g_a", "pa", "ca") + group("g_b", "pa", "cb") +
              producer("pa") + consumer("ca") + consumer("cb"));
  check_equal(dedup(text, log), text);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Merged) == 0);  // ca and cb are equal, but blocked with their bundle
  CHECK(log.count(Kind::Skipped, DedupSkip::BlockedBundle) >= 4);
  CHECK(has_line(log, "shared between Groups"));
}

TEST_CASE("dedup: a member also called from outside its Group blocks the bundle") {
  tf::DedupLog log;
  const std::string text = program(R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        o1 = self.g_a(a, o)
        o2 = self.g_b(a, o1)
        o3 = self.cb(o2)
        return o3
)" + group("g_a", "pa", "ca") + group("g_b", "pb", "cb") +
                                   producer("pa") + consumer("ca") + producer("pb") +
                                   consumer("cb"));
  check_equal(dedup(text, log), text);
  CHECK(log.count(Kind::Merged) == 0);
  CHECK(has_line(log, "called from outside"));
}

// ---- budgets, buckets, determinism ----------------------------------------------------------

namespace {
/// Kernels k0..k{n-1} adding constant `values[i]`, each called once from main.
std::string numbered_kernels(const std::vector<int>& values) {
  std::string main = R"(
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x0: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
)";
  std::string kernels;
  std::string prev = "x0";
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string k = "k" + std::to_string(i);
    main += "        y" + std::to_string(i) + " = self." + k + "(" + prev + ", o)\n";
    prev = "y" + std::to_string(i);
    kernels += kernel(k, "u = pl.add(t, " + std::to_string(values[i]) + ".0)");
  }
  main += "        return " + prev + "\n";
  return program(main + kernels);
}
std::uint64_t one_bucket(const tf::DedupUnit&) { return 42; }
}  // namespace

TEST_CASE("dedup: a full bucket (injected one-bucket hash) refuses a ninth representative") {
  tf::DedupOptions options;
  options.unit_hash = one_bucket;
  options.budget_factor = 100;  // the bucket, not the budget, is the limit here
  // k9 equals k8 (not a representative: missed, as allowed); k10 equals k0 (still merged).
  const std::string text = numbered_kernels({1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 1});
  tf::DedupLog log;
  ProgramRef after = dedup(text, log, options);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Skipped, DedupSkip::BucketFull) == 2);
  CHECK(has_line(log, "skipped k8: bucket full"));
  CHECK(has_line(log, "skipped k9: bucket full"));
  CHECK(has_line(log, "merged k0 <- k10"));
  CHECK(after->functions.size() == 11);  // main + k0..k9
}

TEST_CASE("dedup: an exhausted comparison budget keeps the original definition") {
  tf::DedupOptions options;
  options.unit_hash = one_bucket;
  // Equal weights: each comparison costs 2w of the 8w budget, so k5 reaches k0..k3 only and
  // misses its twin k4.
  const std::string text = numbered_kernels({1, 2, 3, 4, 5, 5});
  tf::DedupLog log;
  ProgramRef after = dedup(text, log, options);
  INFO(all_lines(log));
  CHECK(log.count(Kind::Merged) == 0);
  CHECK(log.count(Kind::Skipped, DedupSkip::BudgetExhausted) == 1);  // k4 spends exactly 8w
  CHECK(has_line(log, "skipped k5: budget exhausted: compared with 4 of 5"));
  check_equal(after, text);
  // With the structural hash, the twins share a bucket of their own and merge.
  tf::DedupLog plain;
  CHECK(dedup(text, plain)->functions.size() == 6);
  CHECK(has_line(plain, "merged k4 <- k5"));
}

TEST_CASE("dedup: the output does not depend on the order functions are defined in") {
  const std::string a = program(std::string(kMainTwo) + kernel("step") + kernel("step_copy"));
  const std::string b = program(kernel("step_copy") + kernel("step") + std::string(kMainTwo));
  tf::DedupLog la, lb;
  const std::string pa = pypto::text::print(*dedup(a, la));
  CHECK(pa == pypto::text::print(*dedup(b, lb)));
  CHECK(la.lines() == lb.lines());
  // The survivor is the first in name order, whichever is defined first.
  CHECK(pa.find("def step(") != std::string::npos);
  CHECK(pa.find("step_copy") == std::string::npos);
}

TEST_CASE("dedup: registered in standard_passes and idempotent") {
  const auto passes = tf::standard_passes().pipeline("deduplicate-outlined-kernels");
  REQUIRE(passes.size() == 1);
  tf::DedupLog log;
  ProgramRef once =
      dedup(program(std::string(kMainTwo) + kernel("step") + kernel("step_copy")), log);
  ProgramRef twice = passes[0](*once);
  pypto::structural::assert_structural_equal(once, twice, false);
}
