// Kernel expression IR throughput (issue 7's performance target).
//
//   BM_Canonicalize64   canonicalize + structural key of a 64-instruction spec (4 inputs, 3
//       constants, duplicated subexpressions, foldable x*1 / x+(-0), register reuse). Target
//       <= 2 us on the development machine. For comparison, issue 7 quotes mlir-opt
//       --canonicalize --cse at ~57 us per 64-op arith function on this machine class.
//   BM_KernelKey64      the key alone of the already-canonical spec.
//   BM_Interpret64      the reference interpreter on a 64x64 grid (for scale, not a target).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <pypto/kernel/canonicalize.hpp>
#include <pypto/kernel/interpreter.hpp>
#include <pypto/kernel/key.hpp>
#include <span>
#include <vector>

namespace {

namespace k = pypto::kernel;
using k::Op;

k::Spec spec64() {
  k::Spec s;
  s.views = {{}, {k::ViewKind::RowBroadcast, 0}, {k::ViewKind::ColBroadcast, 0}, {}};
  s.consts = {k::float_bits(1.0f), k::float_bits(2.0f), k::float_bits(-0.0f)};
  s.num_regs = 32;
  constexpr Op ops[] = {Op::Add, Op::Mul, Op::Sub, Op::Max, Op::Mul, Op::Add, Op::Min, Op::Div};
  s.instrs.push_back(k::binary(Op::Add, 0, k::input(0), k::input(1)));
  for (std::uint8_t i = 1; i < 64; ++i) {
    const auto dst = static_cast<std::uint8_t>(i % 24);
    const auto prev = k::reg(static_cast<std::uint8_t>((i - 1) % 24));
    k::Operand other = k::input(static_cast<std::uint8_t>(i % 4));
    if (i % 5 == 0) other = k::constant(static_cast<std::uint8_t>(i % 3));  // x*1, x+(-0), ...
    if (i % 7 == 0 && i > 8) other = k::reg(static_cast<std::uint8_t>((i - 8) % 24));
    if (i % 11 == 0) {  // a duplicate of the previous instruction's computation
      s.instrs.push_back(s.instrs.back());
      s.instrs.back().dst = dst;
      continue;
    }
    s.instrs.push_back(k::binary(ops[i % 8], dst, prev, other));
  }
  return s;
}

void BM_Canonicalize64(benchmark::State& state) {
  const k::Spec s = spec64();
  for (auto _ : state) {
    k::Spec c = k::canonicalize(s);
    k::Key key = k::structural_key(c, k::FoldFlags::None);
    benchmark::DoNotOptimize(c);
    benchmark::DoNotOptimize(key);
  }
  state.counters["instrs_in"] = static_cast<double>(s.instrs.size());
  state.counters["instrs_out"] = static_cast<double>(k::canonicalize(s).instrs.size());
}
BENCHMARK(BM_Canonicalize64);

void BM_KernelKey64(benchmark::State& state) {
  const k::Spec c = k::canonicalize(spec64());
  for (auto _ : state) benchmark::DoNotOptimize(k::structural_key(c, k::FoldFlags::None));
}
BENCHMARK(BM_KernelKey64);

void BM_Interpret64(benchmark::State& state) {
  const k::Spec s = spec64();
  const std::size_t n = 64;
  const std::vector<float> full(n * n, 1.5f), row(n, 0.25f);
  const std::vector<std::span<const float>> in = {full, row, row, full};
  for (auto _ : state) benchmark::DoNotOptimize(k::evaluate(s, in, {n, n}));
}
BENCHMARK(BM_Interpret64);

}  // namespace
