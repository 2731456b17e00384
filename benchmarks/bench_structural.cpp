// Structural hash and equality throughput (issue 3's performance targets).
//
//   BM_StructuralHash/N, BM_StructuralEqual/N   a wide function of ~N distinct nodes (a long
//       SeqStmts of scalar arithmetic over parameters and earlier results); Equal compares two
//       independently built copies (the expensive, equal case). Counter ns_per_node.
//   BM_StructuralHashSharedDag/D, BM_StructuralEqualSharedDag/D   d(k+1) = d(k) + d(k), depth D,
//       two independently built copies: linear in D, not 2^D.
//   BM_StructuralUnsupportedDeepNesting/D   a D-deep expression chain: the clean
//       StructuralComparisonUnsupported, timed.
//   BM_StructuralEqualMemory/N   peak bytes per node of structural_equal's tables (counter
//       bytes_per_node), of structural_hash's (hash_bytes_per_node) and of the canonical
//       projection's (canonical_bytes_per_node).
#include <benchmark/benchmark.h>

#include <chrono>
#include <pypto/ir.hpp>
#include <pypto/structural.hpp>
#include <pypto/structural/projection.hpp>

namespace {

using namespace pypto::ir;

/// Wall time per node of the timed calls, reported as the plain counter `ns_per_node`.
class PerNodeTimer {
 public:
  void start() { begin_ = std::chrono::steady_clock::now(); }
  void stop() {
    total_ +=
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - begin_).count();
    ++calls_;
  }
  void report(benchmark::State& state, double nodes) const {
    state.counters["nodes"] = nodes;
    state.counters["ns_per_node"] = calls_ ? total_ / (static_cast<double>(calls_) * nodes) : 0;
  }

 private:
  std::chrono::steady_clock::time_point begin_;
  double total_ = 0;
  std::size_t calls_ = 0;
};

std::size_t count_nodes(const NodeRef& root) {
  std::size_t n = 0;
  for_each_node(root, [&](const Node&) { ++n; });
  return n;
}

/// A function whose body is a sequence of `t_i = t_{i-1} * c_i + t_{i-2}` over INDEX scalars,
/// grown until it has at least `target` distinct nodes.
FunctionRef wide_function(std::size_t target) {
  const TypeRef index = ScalarType::make(DataType::INDEX);
  auto a = Var::make("a", index), b = Var::make("b", index);
  std::vector<StmtRef> stmts;
  VarRef prev2 = a, prev1 = b;
  // Each statement adds 5 distinct nodes: AssignStmt, its Var, Add, Mul, ConstInt.
  const std::size_t statements = target / 5 + 1;
  stmts.reserve(statements + 1);
  for (std::size_t i = 0; i < statements; ++i) {
    auto t = Var::make("t", index);
    auto value =
        Add::make(Mul::make(prev1, ConstInt::make(static_cast<std::int64_t>(i % 1000))), prev2);
    stmts.push_back(AssignStmt::make(t, value));
    prev2 = prev1;
    prev1 = t;
  }
  stmts.push_back(ReturnStmt::make({prev1}));
  return Function::make("wide", {{a}, {b}}, {index}, SeqStmts::make(std::move(stmts)));
}

void BM_StructuralHash(benchmark::State& state) {
  const auto f = wide_function(static_cast<std::size_t>(state.range(0)));
  const double nodes = static_cast<double>(count_nodes(f));
  PerNodeTimer timer;
  for (auto _ : state) {
    timer.start();
    benchmark::DoNotOptimize(structural_hash(f));
    timer.stop();
  }
  timer.report(state, nodes);
}
BENCHMARK(BM_StructuralHash)
    ->Arg(1 << 10)
    ->Arg(1 << 16)
    ->Arg(1 << 20)
    ->Unit(benchmark::kMillisecond);

void BM_StructuralEqual(benchmark::State& state) {
  const auto f = wide_function(static_cast<std::size_t>(state.range(0)));
  const auto g = wide_function(static_cast<std::size_t>(state.range(0)));
  const double nodes = static_cast<double>(count_nodes(f));
  PerNodeTimer timer;
  for (auto _ : state) {
    timer.start();
    const bool equal = structural_equal(f, g);
    timer.stop();
    if (!equal) state.SkipWithError("copies compare unequal");
    benchmark::DoNotOptimize(equal);
  }
  timer.report(state, nodes);
}
BENCHMARK(BM_StructuralEqual)
    ->Arg(1 << 10)
    ->Arg(1 << 16)
    ->Arg(1 << 20)
    ->Unit(benchmark::kMillisecond);

ExprRef shared_dag(int depth) {
  ExprRef d = Var::make("x", ScalarType::make(DataType::INDEX));
  for (int k = 0; k < depth; ++k) d = Add::make(d, d);
  return d;
}

void BM_StructuralHashSharedDag(benchmark::State& state) {
  const auto d = shared_dag(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(structural_hash(d, true));
}
BENCHMARK(BM_StructuralHashSharedDag)->Arg(22)->Arg(40)->Unit(benchmark::kMicrosecond);

void BM_StructuralEqualSharedDag(benchmark::State& state) {
  const auto d1 = shared_dag(static_cast<int>(state.range(0)));
  const auto d2 = shared_dag(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const bool equal = structural_equal(d1, d2, true);
    if (!equal) state.SkipWithError("copies compare unequal");
    benchmark::DoNotOptimize(equal);
  }
}
BENCHMARK(BM_StructuralEqualSharedDag)->Arg(22)->Arg(40)->Unit(benchmark::kMicrosecond);

void BM_StructuralUnsupportedDeepNesting(benchmark::State& state) {
  ExprRef e = Var::make("x", ScalarType::make(DataType::INDEX));
  for (std::int64_t i = 0; i < state.range(0); ++i) e = Neg::make(e);
  for (auto _ : state) {
    try {
      benchmark::DoNotOptimize(structural_hash(e));
      state.SkipWithError("no StructuralComparisonUnsupported");
    } catch (const StructuralComparisonUnsupported&) {
    }
  }
}
BENCHMARK(BM_StructuralUnsupportedDeepNesting)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_StructuralEqualMemory(benchmark::State& state) {
  // Peak bytes of the tables of structural_equal on two equal copies (the lockstep walk: both
  // sides' binding and memo tables and the walk's stacks; they only grow, so what they hold at
  // the end is their peak), of structural_hash, and, for comparison, of the canonical
  // projection that decides when the lockstep walk diverges.
  using pypto::structural::detail::Arena;
  using pypto::structural::detail::Hasher;
  using pypto::structural::detail::Lockstep;
  using pypto::structural::detail::Projector;
  const auto f = wide_function(static_cast<std::size_t>(state.range(0)));
  const auto g = wide_function(static_cast<std::size_t>(state.range(0)));
  const double nodes = static_cast<double>(count_nodes(f));
  double equal = 0, hash = 0, canonical = 0;
  for (auto _ : state) {
    Lockstep lockstep;
    if (!lockstep.run(*f, *g, false)) state.SkipWithError("copies diverge");
    equal = static_cast<double>(lockstep.bytes());
    Hasher hasher;
    benchmark::DoNotOptimize(hasher.run(*f, false));
    hash = static_cast<double>(hasher.bytes());
    Arena arena;
    Projector<> pa(&arena, false), pb(&arena, false);
    benchmark::DoNotOptimize(pa.project(*f) == pb.project(*g));
    canonical = static_cast<double>(arena.bytes() + std::max(pa.bytes(), pb.bytes()));
  }
  state.counters["bytes_per_node"] = equal / nodes;
  state.counters["hash_bytes_per_node"] = hash / nodes;
  state.counters["canonical_bytes_per_node"] = canonical / nodes;
}
BENCHMARK(BM_StructuralEqualMemory)->Arg(1 << 20)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
