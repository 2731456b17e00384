// A seeded generator of random valid kernel Specs and of input buffers full of IEEE corner
// cases, for the kernel_* fuzz tests (not a test file itself). Same seed, same output on every
// platform: our own splitmix64, no std distributions.
//
// Specs are non-SSA on purpose (registers are reused as after allocation), put reduction
// registers at random numbers among the elementwise ones, duplicate earlier instructions (CSE
// food) and draw constants from a pool of ±0, ±1, ±Inf, NaNs with payloads, denormals and
// duplicates (folding and pooling food). Some have a matmul segment (random slots, transposes,
// k and a batch that divides the rows); its result is read where an Input operand would have
// read one of its slots. The matmul is decided by a stream of its own, so a seed that draws no
// matmul gives the same spec as before the segment existed.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "pypto/kernel/interpreter.hpp"
#include "pypto/kernel/spec.hpp"
#include "test_rng.hpp"

namespace pypto::test::kernel {

namespace k = pypto::kernel;

using pypto::test::SplitMix64;

inline constexpr std::array<std::uint32_t, 16> kSpecialBits = {
    0x00000000u,  // +0
    0x80000000u,  // -0
    0x3f800000u,  // 1
    0xbf800000u,  // -1
    0x40000000u,  // 2
    0x3f000000u,  // 0.5
    0x7f800000u,  // +Inf
    0xff800000u,  // -Inf
    0x7fc00000u,  // quiet NaN
    0x7fc00123u,  // NaN with a payload
    0x00000001u,  // smallest denormal
    0x80400000u,  // negative denormal
    0x7f7fffffu,  // FLT_MAX
    0x40400000u,  // 3
    0xc2c80000u,  // -100
    0x3f800000u,  // 1 again (a duplicate)
};

inline float random_value(SplitMix64& rng) {
  if (rng.chance(50)) return k::bits_float(kSpecialBits[rng.below(kSpecialBits.size())]);
  // small integers and halves collide often (Eq/Ne, max/min ties)
  if (rng.chance(50)) return static_cast<float>(static_cast<int>(rng.below(9)) - 4) * 0.5f;
  return k::bits_float(static_cast<std::uint32_t>(rng.next()));
}

struct RandomSpecOptions {
  std::uint32_t max_instrs = 48;
  std::uint32_t rows = 3, cols = 4;   // the grid the buffers are made for (RotateHalf p | cols/2)
  std::uint32_t matmul_percent = 30;  // the chance of a matmul segment
};

inline k::Operand random_operand(SplitMix64& rng, const k::Spec& s, bool reduction,
                                 const std::vector<std::uint8_t>& elem_written,
                                 const std::vector<std::uint8_t>& red_written) {
  for (;;) {
    const std::uint32_t pick = rng.below(100);
    if (pick < 40) {
      if (!reduction && !elem_written.empty()) {
        return k::reg(elem_written[rng.below(static_cast<std::uint32_t>(elem_written.size()))]);
      }
    } else if (pick < 62) {
      if (!s.views.empty()) {
        const auto i = static_cast<std::uint8_t>(rng.below(s.views.size()));
        return k::is_matmul_operand(s.matmul, i) ? k::matmul_result() : k::input(i);
      }
    } else if (pick < 82) {
      if (!s.consts.empty()) {
        return k::constant(static_cast<std::uint8_t>(rng.below(s.consts.size())));
      }
    } else if (pick < 87) {
      if (!s.runtime_scalars.empty()) {
        return k::runtime_scalar(static_cast<std::uint8_t>(rng.below(s.runtime_scalars.size())));
      }
    } else if (pick < 95) {
      if (!red_written.empty()) {
        return k::reduce_result(
            red_written[rng.below(static_cast<std::uint32_t>(red_written.size()))]);
      }
    } else {
      return k::grid(static_cast<k::GridAxis>(rng.below(3)));
    }
  }
}

/// Adds a matmul segment to `s` (over a rows x cols grid): its slots get Linear views, and a
/// slot is both A and B only when one buffer can be both (m == cols).
inline void add_random_matmul(SplitMix64& rng, k::Spec& s, const RandomSpecOptions& opt) {
  k::Matmul m;
  std::vector<std::uint32_t> divisors;
  for (std::uint32_t d = 1; d <= opt.rows; ++d) {
    if (opt.rows % d == 0) divisors.push_back(d);
  }
  m.batch = divisors[rng.below(static_cast<std::uint32_t>(divisors.size()))];
  m.k = 1 + rng.below(4);
  m.trans_a = rng.chance(50);
  m.trans_b = rng.chance(50);
  m.a_input = static_cast<std::uint8_t>(rng.below(s.views.size()));
  m.b_input = static_cast<std::uint8_t>(rng.below(s.views.size()));
  if (m.a_input == m.b_input && opt.rows / m.batch != opt.cols) {
    if (s.views.size() == 1) s.views.push_back({});
    m.b_input = static_cast<std::uint8_t>((m.a_input + 1) % s.views.size());
  }
  s.views[m.a_input] = s.views[m.b_input] = k::View{};
  s.matmul = m;
}

/// A random spec that validate() accepts.
inline k::Spec random_spec(std::uint64_t seed, RandomSpecOptions opt = {}) {
  SplitMix64 rng(seed);
  k::Spec s;
  const std::uint32_t nviews = 1 + rng.below(4);
  for (std::uint32_t v = 0; v < nviews; ++v) {
    const auto kind = static_cast<k::ViewKind>(rng.below(k::kViewKindCount));
    std::uint32_t param = 0;
    if (kind == k::ViewKind::RowMod) param = 1 + rng.below(3);
    if (kind == k::ViewKind::RotateHalf) param = 1 + rng.below(opt.cols / 2);
    s.views.push_back({kind, param});
  }
  SplitMix64 matmul_rng(seed ^ 0x6d61746d756cULL);
  if (matmul_rng.chance(opt.matmul_percent)) add_random_matmul(matmul_rng, s, opt);
  const std::uint32_t nconsts = rng.below(8);
  for (std::uint32_t c = 0; c < nconsts; ++c) {
    s.consts.push_back(kSpecialBits[rng.below(kSpecialBits.size())]);
  }
  const std::uint32_t nscalars = rng.below(3);
  for (std::uint32_t c = 0; c < nscalars; ++c)
    s.runtime_scalars.push_back(k::float_bits(random_value(rng)));

  // Register numbers: E elementwise and R reduction registers, shuffled together.
  const std::uint32_t e = 1 + rng.below(12), r = rng.below(5);
  std::vector<std::uint8_t> numbers;
  for (std::uint32_t i = 0; i < e + r; ++i) numbers.push_back(static_cast<std::uint8_t>(i));
  for (std::size_t i = numbers.size(); i > 1; --i) {
    std::swap(numbers[i - 1], numbers[rng.below(static_cast<std::uint32_t>(i))]);
  }
  const std::vector<std::uint8_t> elem_regs(numbers.begin(), numbers.begin() + e);
  std::vector<std::uint8_t> free_red(numbers.begin() + e, numbers.end());
  s.num_regs = static_cast<std::uint8_t>(e + r);

  std::vector<std::uint8_t> elem_written, red_written;
  const std::uint32_t n = 1 + rng.below(opt.max_instrs);
  for (std::uint32_t i = 0; i < n; ++i) {
    const bool last = i + 1 == n;
    k::Instr in;
    if (!last && !s.instrs.empty() && rng.chance(12)) {
      // a duplicate of an earlier elementwise instruction, when its operands are still readable
      const k::Instr& old = s.instrs[rng.below(static_cast<std::uint32_t>(s.instrs.size()))];
      if (!k::is_reduction(old.op)) in = old;
    }
    if (in.a.kind == k::OperandKind::None) {
      if (!last && !free_red.empty() && rng.chance(12)) {
        constexpr std::array<k::Op, 4> reductions = {k::Op::RowSum, k::Op::RowMax, k::Op::ColSum,
                                                     k::Op::ColMax};
        in.op = reductions[rng.below(4)];
      } else {
        in.op = static_cast<k::Op>(rng.below(21));  // Mov .. Select
      }
      const bool red = k::is_reduction(in.op);
      for (std::size_t slot = 0; slot < k::arity(in.op); ++slot) {
        in.slot(slot) = random_operand(rng, s, red, elem_written, red_written);
      }
    }
    if (k::is_reduction(in.op)) {
      in.dst = free_red.back();
      free_red.pop_back();
      red_written.push_back(in.dst);
    } else {
      in.dst = elem_regs[rng.below(e)];
      if (std::find(elem_written.begin(), elem_written.end(), in.dst) == elem_written.end()) {
        elem_written.push_back(in.dst);
      }
    }
    s.instrs.push_back(in);
  }
  return s;
}

/// One buffer per input of `s`, sized for `grid`, full of corner cases.
inline std::vector<std::vector<float>> random_inputs(std::uint64_t seed, const k::Spec& s,
                                                     k::Grid grid) {
  SplitMix64 rng(seed ^ 0x5eedULL);
  std::vector<std::vector<float>> out;
  for (std::size_t v = 0; v < s.views.size(); ++v) {
    std::vector<float> buf(k::input_size(s, v, grid));
    for (float& x : buf) x = random_value(rng);
    out.push_back(std::move(buf));
  }
  return out;
}

inline std::vector<float> run_on(const k::Spec& s, const std::vector<std::vector<float>>& bufs,
                                 k::Grid grid) {
  std::vector<std::span<const float>> spans(bufs.begin(), bufs.end());
  return k::evaluate(s, spans, grid);
}

}  // namespace pypto::test::kernel
