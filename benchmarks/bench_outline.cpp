// Outline pass throughput (issue 5's performance target: both outline passes are O(N log N)).
//
//   BM_OutlineIncoreSequential/N   an Opaque `main` of N sequential InCore scopes; each loads
//       from an input tensor, computes and stores through the one `pl.Out` parameter `out`
//       (`pl.tile.store(t, [0, 0], out)`), every other one also loading `out` (the previous
//       scope's result). The store-target rename threads through all N calls.
//   BM_OutlineIncoreSsaChain/N   the same with the store results bound in SSA form
//       (`out_k = pl.tile.store(t, [0, 0], out_{k-1})`), as ConvertToSSA writes them: each
//       scope's post-write alias is an output used by the next scope.
//   BM_OutlineIncoreLongLoopBody/S   one InCore scope whose body is a `for` of S statements
//       (loads, adds, stores into `out`). Counters ns_per_scope (the whole pass: one scope) and
//       ns_per_stmt.
//   BM_OutlineIncoreLoopCarry/N   a top-level `for` whose body holds N scopes writing the outer
//       `pl.Out` tensor: the pass threads the rename out of the loop as a new carry (iter_arg,
//       yield, return var) through all N calls.
//   BM_OutlineCluster/N   OutlineClusterScopes on an Orchestration `main` of N cluster scopes,
//       each calling an InCore function (an Out kernel and an InOut kernel alternately).
//
// Programs are built with the IR builders, in SSA form, outside the timed region; each timed
// call is the Pass's operator() (no verification). The counters are the CPU time of the pass
// call alone (not the release of its result), in nanoseconds per scope (per statement); the
// Time / CPU columns are per iteration and include the release.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <pypto/ir.hpp>
#include <pypto/ir/op_registry.hpp>
#include <pypto/text/call_types.hpp>
#include <pypto/transforms/outline_cluster_scopes.hpp>
#include <pypto/transforms/outline_incore_scopes.hpp>
#include <pypto/transforms/pass.hpp>
#include <string>
#include <utility>
#include <vector>

#include "pass_cpu_time.hpp"

namespace {

using namespace pypto::ir;
using pypto::core::DataType;

/// The ops and constant pieces every program here uses: 64x64 FP32 tensors, one whole-tensor
/// tile per load and store.
struct Kit {
  const OpRegistry& ops = pypto::text::default_op_registry();
  const TypeRef tensor = TensorType::make(DataType::FP32, {ConstInt::make(64), ConstInt::make(64)});
  const TypeRef index = ScalarType::make(DataType::INDEX);
  const ExprRef origin = MakeTuple::make({ConstInt::make(0), ConstInt::make(0)});
  const ExprRef shape = MakeTuple::make({ConstInt::make(64), ConstInt::make(64)});
  const Attrs vec{{"target_memory", MemorySpace::Vec}};

  /// `v = pl.tile.load(src, [0, 0], [64, 64])`, appended to `out`; returns v.
  VarRef load(const ExprRef& src, std::vector<StmtRef>& out) const {
    auto call = ops.make_call("tile.load", {src, origin, shape}, vec);
    auto v = Var::make("t", call->type);
    out.push_back(AssignStmt::make(v, call));
    return v;
  }
  /// `v = pl.tile.add(a, b)`, appended to `out`; returns v.
  VarRef add(const ExprRef& a, const ExprRef& b, std::vector<StmtRef>& out) const {
    auto call = ops.make_call("tile.add", {a, b});
    auto v = Var::make("s", call->type);
    out.push_back(AssignStmt::make(v, call));
    return v;
  }
  Ref<const Call> store(const ExprRef& tile, const ExprRef& dst) const {
    return ops.make_call("tile.store", {tile, origin, dst});
  }

  /// The statements of scope k before its store: a load of `a`, and for odd k a load of `prev`
  /// (the previous result) added to it, for even k a load of `b` added to it. Returns the tile
  /// to store.
  VarRef compute(std::int64_t k, const ExprRef& a, const ExprRef& b, const ExprRef& prev,
                 std::vector<StmtRef>& out) const {
    VarRef ta = load(a, out);
    VarRef other = load(k % 2 ? prev : b, out);
    return add(ta, other, out);
  }
};

/// main(a, b, out: Out) of N InCore scopes, each ending in `pl.tile.store(t, [0, 0], out)`.
ProgramRef sequential_program(std::int64_t scopes) {
  const Kit kit;
  auto a = Var::make("a", kit.tensor), b = Var::make("b", kit.tensor);
  auto out = Var::make("out", kit.tensor);
  std::vector<StmtRef> body;
  for (std::int64_t k = 0; k < scopes; ++k) {
    std::vector<StmtRef> scope;
    VarRef t = kit.compute(k, a, b, out, scope);
    scope.push_back(EvalStmt::make(kit.store(t, out)));
    body.push_back(InCoreScopeStmt::make(SeqStmts::make(std::move(scope))));
  }
  body.push_back(ReturnStmt::make({out}));
  auto main = Function::make("main", {{a}, {b}, {out, ParamDirection::Out}}, {kit.tensor},
                             SeqStmts::make(std::move(body)));
  return Program::make("Sequential", {main});
}

/// The same in SSA form: `out_k = pl.tile.store(t, [0, 0], out_{k-1})` inside scope k.
ProgramRef ssa_chain_program(std::int64_t scopes) {
  const Kit kit;
  auto a = Var::make("a", kit.tensor), b = Var::make("b", kit.tensor);
  auto out = Var::make("out", kit.tensor);
  std::vector<StmtRef> body;
  VarRef current = out;
  for (std::int64_t k = 0; k < scopes; ++k) {
    std::vector<StmtRef> scope;
    VarRef t = kit.compute(k, a, b, current, scope);
    auto stored = kit.store(t, current);
    auto next = Var::make("out", stored->type);
    scope.push_back(AssignStmt::make(next, stored));
    body.push_back(InCoreScopeStmt::make(SeqStmts::make(std::move(scope))));
    current = next;
  }
  body.push_back(ReturnStmt::make({current}));
  auto main = Function::make("main", {{a}, {b}, {out, ParamDirection::Out}}, {kit.tensor},
                             SeqStmts::make(std::move(body)));
  return Program::make("SsaChain", {main});
}

/// main(a, out: Out, n) holding one InCore scope around `for i in pl.range(n)` whose body is
/// `statements` statements: groups of load a, load out, add, store into out.
ProgramRef long_loop_body_program(std::int64_t statements) {
  const Kit kit;
  auto a = Var::make("a", kit.tensor), out = Var::make("out", kit.tensor);
  auto n = Var::make("n", kit.index);
  std::vector<StmtRef> loop_body;
  while (static_cast<std::int64_t>(loop_body.size()) + 4 <= statements) {
    VarRef ta = kit.load(a, loop_body);
    VarRef to = kit.load(out, loop_body);
    VarRef t = kit.add(ta, to, loop_body);
    loop_body.push_back(EvalStmt::make(kit.store(t, out)));
  }
  while (static_cast<std::int64_t>(loop_body.size()) < statements) kit.load(a, loop_body);
  auto loop = ForStmt::make(Var::make("i", kit.index), ConstInt::make(0), n, ConstInt::make(1), {},
                            SeqStmts::make(std::move(loop_body)), {});
  auto body =
      SeqStmts::make({InCoreScopeStmt::make(SeqStmts::make({loop})), ReturnStmt::make({out})});
  auto main = Function::make("main", {{a}, {out, ParamDirection::Out}, {n}}, {kit.tensor}, body);
  return Program::make("LongLoopBody", {main});
}

/// main(a, b, out: Out, n) with `for i in pl.range(n)` around N InCore scopes that store into
/// `out` (defined before the loop): outlining turns the writes into a loop carry.
ProgramRef loop_carry_program(std::int64_t scopes) {
  const Kit kit;
  auto a = Var::make("a", kit.tensor), b = Var::make("b", kit.tensor);
  auto out = Var::make("out", kit.tensor);
  auto n = Var::make("n", kit.index);
  std::vector<StmtRef> loop_body;
  for (std::int64_t k = 0; k < scopes; ++k) {
    std::vector<StmtRef> scope;
    VarRef t = kit.compute(k, a, b, out, scope);
    scope.push_back(EvalStmt::make(kit.store(t, out)));
    loop_body.push_back(InCoreScopeStmt::make(SeqStmts::make(std::move(scope))));
  }
  auto loop = ForStmt::make(Var::make("i", kit.index), ConstInt::make(0), n, ConstInt::make(1), {},
                            SeqStmts::make(std::move(loop_body)), {});
  auto body = SeqStmts::make({loop, ReturnStmt::make({out})});
  auto main =
      Function::make("main", {{a}, {b}, {out, ParamDirection::Out}, {n}}, {kit.tensor}, body);
  return Program::make("LoopCarry", {main});
}

/// An InCore kernel `name(a, out)` storing a (+ out when `accumulate`) into out and returning it.
FunctionRef kernel(const Kit& kit, const std::string& name, bool accumulate) {
  auto a = Var::make("a", kit.tensor), out = Var::make("out", kit.tensor);
  std::vector<StmtRef> body;
  VarRef ta = kit.load(a, body);
  VarRef other = accumulate ? kit.load(out, body) : ta;
  VarRef t = kit.add(ta, other, body);
  auto stored = kit.store(t, out);
  auto result = Var::make("out", stored->type);
  body.push_back(AssignStmt::make(result, stored));
  body.push_back(ReturnStmt::make({result}));
  return Function::make(name,
                        {{a}, {out, accumulate ? ParamDirection::InOut : ParamDirection::Out}},
                        {kit.tensor}, SeqStmts::make(std::move(body)), FunctionType::InCore);
}

/// An Orchestration main(a, out: Out) of N cluster scopes, scope k holding
/// `out_k = self.kernel_{set,acc}(a, out_{k-1})`.
ProgramRef cluster_program(std::int64_t scopes) {
  const Kit kit;
  auto a = Var::make("a", kit.tensor), out = Var::make("out", kit.tensor);
  std::vector<StmtRef> body;
  VarRef current = out;
  for (std::int64_t k = 0; k < scopes; ++k) {
    auto call =
        Call::make(GlobalVar::make(k % 2 ? "kernel_acc" : "kernel_set"), {a, current}, kit.tensor);
    auto next = Var::make("out", kit.tensor);
    body.push_back(ClusterScopeStmt::make(SeqStmts::make({AssignStmt::make(next, call)})));
    current = next;
  }
  body.push_back(ReturnStmt::make({current}));
  auto main = Function::make("main", {{a}, {out, ParamDirection::Out}}, {kit.tensor},
                             SeqStmts::make(std::move(body)), FunctionType::Orchestration);
  return Program::make("Cluster",
                       {main, kernel(kit, "kernel_set", false), kernel(kit, "kernel_acc", true)});
}

/// Times `pass(program)` alone (the result is released outside the timed interval) and reports
/// ns_per_scope (and ns_per_stmt when `statements` is non-zero). Before timing, one run checks
/// that the pass added `scopes` functions.
void run_pass(benchmark::State& state, const pypto::transforms::Pass& pass,
              const ProgramRef& program, double scopes, double statements = 0) {
  const std::size_t expected = program->functions.size() + static_cast<std::size_t>(scopes);
  if (pass(*program)->functions.size() != expected) {
    state.SkipWithError("the pass did not outline every scope");
    return;
  }
  const double ns = pypto_bench::pass_cpu_ns(state, pass, *program);
  state.counters["ns_per_scope"] = ns / scopes;
  if (statements > 0) state.counters["ns_per_stmt"] = ns / statements;
}

void BM_OutlineIncoreSequential(benchmark::State& state) {
  run_pass(state, pypto::transforms::OutlineIncoreScopes(), sequential_program(state.range(0)),
           static_cast<double>(state.range(0)));
}
BENCHMARK(BM_OutlineIncoreSequential)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_OutlineIncoreSsaChain(benchmark::State& state) {
  run_pass(state, pypto::transforms::OutlineIncoreScopes(), ssa_chain_program(state.range(0)),
           static_cast<double>(state.range(0)));
}
BENCHMARK(BM_OutlineIncoreSsaChain)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_OutlineIncoreLongLoopBody(benchmark::State& state) {
  run_pass(state, pypto::transforms::OutlineIncoreScopes(), long_loop_body_program(state.range(0)),
           1, static_cast<double>(state.range(0)));
}
BENCHMARK(BM_OutlineIncoreLongLoopBody)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_OutlineIncoreLoopCarry(benchmark::State& state) {
  run_pass(state, pypto::transforms::OutlineIncoreScopes(), loop_carry_program(state.range(0)),
           static_cast<double>(state.range(0)));
}
BENCHMARK(BM_OutlineIncoreLoopCarry)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_OutlineCluster(benchmark::State& state) {
  run_pass(state, pypto::transforms::OutlineClusterScopes(), cluster_program(state.range(0)),
           static_cast<double>(state.range(0)));
}
BENCHMARK(BM_OutlineCluster)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
