// IR construction, traversal and teardown throughput.
//
// BM_build_chain / BM_teardown_chain: a chain of Add nodes N deep (the shape that overflows a
// recursive shared_ptr teardown); BM_for_each_node: the iterative walker over the same chain;
// BM_build_program: a small two-scope program through the op registry.
#include <benchmark/benchmark.h>

#include <pypto/ir.hpp>
#include <pypto/ir/op_registry.hpp>

namespace {

using namespace pypto::ir;

ExprRef chain(std::int64_t depth) {
  auto x = Var::make("x", ScalarType::make(DataType::INDEX));
  ExprRef e = x;
  for (std::int64_t i = 0; i < depth; ++i) e = Add::make(e, x);
  return e;
}

void BM_build_chain(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(chain(state.range(0)));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_build_chain)->RangeMultiplier(16)->Range(1 << 8, 1 << 20);

void BM_teardown_chain(benchmark::State& state) {
  for (auto _ : state) {
    state.PauseTiming();
    ExprRef e = chain(state.range(0));
    state.ResumeTiming();
    e = nullptr;  // iterative release of every node
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_teardown_chain)->RangeMultiplier(16)->Range(1 << 8, 1 << 20);

void BM_for_each_node(benchmark::State& state) {
  const ExprRef e = chain(state.range(0));
  for (auto _ : state) {
    std::size_t n = 0;
    for_each_node(e, [&](const Node&) { ++n; });
    benchmark::DoNotOptimize(n);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_for_each_node)->RangeMultiplier(16)->Range(1 << 8, 1 << 16);

void BM_build_program(benchmark::State& state) {
  const OpRegistry ops = standard_op_registry();
  for (auto _ : state) {
    const TypeRef tensor =
        TensorType::make(DataType::FP32, {ConstInt::make(64), ConstInt::make(64)});
    auto a = Var::make("a", tensor);
    auto out = Var::make("out", tensor);
    const ExprRef origin = MakeTuple::make({ConstInt::make(0), ConstInt::make(0)});
    const ExprRef shape = MakeTuple::make({ConstInt::make(64), ConstInt::make(64)});
    auto load = ops.make_call("tile.load", {a, origin, shape});
    auto t = Var::make("t", load->type);
    auto store = ops.make_call("tile.store", {t, origin, out});
    auto body = SeqStmts::make(
        {InCoreScopeStmt::make(SeqStmts::make({AssignStmt::make(t, load), EvalStmt::make(store)})),
         ReturnStmt::make({out})});
    auto fn = Function::make("main", {{a}, {out, ParamDirection::Out}}, {tensor}, body);
    benchmark::DoNotOptimize(Program::make("P", {fn}));
  }
}
BENCHMARK(BM_build_program);

}  // namespace
