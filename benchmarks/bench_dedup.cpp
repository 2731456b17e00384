// DeduplicateOutlinedKernels throughput (issue 6's performance target: O(N log N)).
//
//   BM_Dedup/N   an Orchestration `main` calling N outlined InCore kernels once each, chained
//       through one Out tensor; each kernel has eight statements (a load, six tile adds, one
//       with a per-kernel constant, a store) and a return. Kernels 2j and 2j+1 are equal (half
//       duplicates, N/2 merges), pairs differ in their constant.
//   BM_DedupAllCollide/N   the same program with an injected hash that puts every unit in one
//       bucket: each unit meets the bucket's representatives until the comparison budget
//       (8x its weight) or the bucket (8) is exhausted, so the work stays linear in N.
//
// Programs are built with the IR builders outside the timed region; each timed call is the
// Pass's operator() (no verification). Counter ns_per_kernel: CPU time of the pass call alone
// (the result is released outside the interval) per input kernel.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <pypto/dedup.hpp>
#include <pypto/ir/op_registry.hpp>
#include <pypto/text/call_types.hpp>
#include <string>
#include <utility>
#include <vector>

#include "pass_cpu_time.hpp"

namespace {

using namespace pypto::ir;
using pypto::core::DataType;

/// main + N kernels `k000000`..; kernel i adds the constant i / 2.
ProgramRef kernels_program(std::int64_t n) {
  const OpRegistry& ops = pypto::text::default_op_registry();
  const TypeRef tensor = TensorType::make(DataType::FP32, {ConstInt::make(64), ConstInt::make(64)});
  const Attrs vec{{"target_memory", MemorySpace::Vec}};
  std::vector<FunctionRef> functions;
  auto ma = Var::make("a", tensor), mo = Var::make("o", tensor);
  std::vector<StmtRef> main_body;
  VarRef current = mo;
  for (std::int64_t i = 0; i < n; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "k%06lld", static_cast<long long>(i));
    auto a = Var::make("a", tensor), o = Var::make("o", tensor);
    const ExprRef origin = MakeTuple::make({ConstInt::make(0), ConstInt::make(0)});
    const ExprRef shape = MakeTuple::make({ConstInt::make(64), ConstInt::make(64)});
    std::vector<StmtRef> body;
    auto bind = [&](const char* hint, Ref<const Call> call) {
      auto v = Var::make(hint, call->type);
      body.push_back(AssignStmt::make(v, call));
      return v;
    };
    VarRef t = bind("t", ops.make_call("tile.load", {a, origin, shape}, vec));
    t = bind("s", ops.make_call("tile.add", {t, ConstFloat::make(static_cast<double>(i / 2))}));
    for (int k = 0; k < 5; ++k) t = bind("s", ops.make_call("tile.add", {t, t}));
    body.push_back(EvalStmt::make(ops.make_call("tile.store", {t, origin, o})));
    body.push_back(ReturnStmt::make({o}));
    functions.push_back(Function::make(name, {{a}, {o, ParamDirection::Out}}, {tensor},
                                       SeqStmts::make(std::move(body)), FunctionType::InCore));
    auto next = Var::make("o", tensor);
    main_body.push_back(
        AssignStmt::make(next, Call::make(GlobalVar::make(name), {ma, current}, tensor)));
    current = next;
  }
  main_body.push_back(ReturnStmt::make({current}));
  functions.push_back(Function::make("main", {{ma}, {mo, ParamDirection::Out}}, {tensor},
                                     SeqStmts::make(std::move(main_body)),
                                     FunctionType::Orchestration));
  return Program::make("Kernels", std::move(functions));
}

/// Times the pass alone and reports ns_per_kernel; one untimed run checks `expected_merges`
/// (or at least one merge when negative).
void run_dedup(benchmark::State& state, pypto::transforms::DedupOptions options,
               std::int64_t expected_merges) {
  const std::int64_t n = state.range(0);
  const ProgramRef program = kernels_program(n);
  const pypto::transforms::Pass pass = pypto::transforms::DeduplicateOutlinedKernels(options);
  const auto merged =
      static_cast<std::int64_t>(program->functions.size() - pass(*program)->functions.size());
  if (expected_merges >= 0 ? merged != expected_merges : merged <= 0) {
    state.SkipWithError("unexpected number of merges");
    return;
  }
  state.counters["ns_per_kernel"] =
      pypto_bench::pass_cpu_ns(state, pass, *program) / static_cast<double>(n);
  state.counters["merged"] = static_cast<double>(merged);
}

void BM_Dedup(benchmark::State& state) { run_dedup(state, {}, state.range(0) / 2); }

void BM_DedupAllCollide(benchmark::State& state) {
  pypto::transforms::DedupOptions options;
  options.unit_hash = [](const pypto::transforms::DedupUnit&) -> std::uint64_t { return 0; };
  run_dedup(state, std::move(options), -1);
}

}  // namespace

BENCHMARK(BM_Dedup)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DedupAllCollide)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
