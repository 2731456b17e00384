// Text format throughput: print and parse of a program of N straight-line statements (scalar
// arithmetic, typed op calls with kwargs, a loop every 64 statements), reported per statement
// and in MB/s of text. Not an issue target; it keeps the parser's O(n log n) honest.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <pypto/ir.hpp>
#include <pypto/ir/op_registry.hpp>
#include <pypto/text/parser.hpp>
#include <pypto/text/printer.hpp>
#include <string>
#include <vector>

namespace {

using namespace pypto::ir;
using pypto::core::DataType;

ProgramRef make_program(std::int64_t statements) {
  const OpRegistry ops = standard_op_registry();
  const TypeRef tensor = TensorType::make(DataType::FP32, {ConstInt::make(64), ConstInt::make(64)});
  auto a = Var::make("a", tensor);
  auto n = Var::make("n", ScalarType::make(DataType::INDEX));
  std::vector<StmtRef> body;
  ExprRef acc = a;
  ExprRef s = n;
  for (std::int64_t i = 0; i < statements; ++i) {
    if (i % 2 == 0) {
      auto call = ops.make_call("tensor.add", {acc, a});
      auto v = Var::make("t", call->type);
      body.push_back(AssignStmt::make(v, call));
      acc = v;
    } else {
      auto v = Var::make("s", ScalarType::make(DataType::INDEX));
      body.push_back(AssignStmt::make(v, Add::make(Mul::make(s, ConstInt::make(3)), n)));
      s = v;
    }
  }
  body.push_back(ReturnStmt::make({acc}));
  auto f = Function::make("main", {{a}, {n}}, {tensor}, SeqStmts::make(std::move(body)));
  return Program::make("Bench", {f});
}

void BM_Print(benchmark::State& state) {
  const ProgramRef p = make_program(state.range(0));
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string text = pypto::text::print(p);
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * state.iterations()));
  state.counters["ns_per_stmt"] = benchmark::Counter(
      static_cast<double>(state.range(0)),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_Parse(benchmark::State& state) {
  const std::string text = pypto::text::print(make_program(state.range(0)));
  for (auto _ : state) {
    ProgramRef p = pypto::text::parse_program(text);
    benchmark::DoNotOptimize(p);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(text.size() * state.iterations()));
  state.counters["ns_per_stmt"] = benchmark::Counter(
      static_cast<double>(state.range(0)),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_Print)->Arg(1 << 10)->Arg(1 << 14)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Parse)->Arg(1 << 10)->Arg(1 << 14)->Unit(benchmark::kMillisecond);

}  // namespace
