// Seeded random-spec fuzzing of the kernel passes: every pass keeps validate() true and the
// interpreter's results bit-identical (NaN-aware) on inputs full of ±0, ±Inf, NaN and
// denormals; canonicalize is idempotent byte for byte, never grows the code, keeps views,
// runtime scalars and the matmul segment; the canonical form round-trips through
// serialization. About a third of the specs have a matmul segment.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernel_random.hpp"
#include "kernel_samples.hpp"
#include "pypto/kernel/canonicalize.hpp"
#include "pypto/kernel/cse.hpp"
#include "pypto/kernel/dce.hpp"
#include "pypto/kernel/fold.hpp"
#include "pypto/kernel/regalloc.hpp"
#include "pypto/kernel/serialize.hpp"

namespace k = pypto::kernel;
namespace tk = pypto::test::kernel;
using k::Op;

namespace {

constexpr std::uint64_t kSeeds = 3000;
constexpr k::Grid kGrid{3, 4, 2};

struct NamedPass {
  const char* name;
  std::function<k::Spec(const k::Spec&)> run;
};

const std::vector<NamedPass>& passes() {
  static const std::vector<NamedPass> all = {
      {"fold_constants", [](const k::Spec& s) { return k::fold_constants(s); }},
      {"eliminate_dead_code", [](const k::Spec& s) { return k::eliminate_dead_code(s); }},
      {"eliminate_common_subexpressions",
       [](const k::Spec& s) { return k::eliminate_common_subexpressions(s); }},
      {"allocate_registers", [](const k::Spec& s) { return k::allocate_registers(s); }},
      {"canonicalize", [](const k::Spec& s) { return k::canonicalize(s); }},
  };
  return all;
}

}  // namespace

TEST_CASE("kernel fuzz: the generator makes valid, varied specs") {
  std::size_t reductions = 0, reused = 0, matmuls = 0, matmul_reads = 0, transposed = 0,
              batched = 0;
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    const k::Spec s = tk::random_spec(seed);
    REQUIRE_MESSAGE(k::is_valid(s), "seed ", seed, k::to_string(s));
    std::vector<bool> written(k::kMaxRegs);
    bool reads_matmul = false;
    for (const k::Instr& in : s.instrs) {
      reductions += k::is_reduction(in.op) ? 1 : 0;
      reused += written[in.dst] ? 1 : 0;
      written[in.dst] = true;
      for (std::size_t i = 0; i < k::arity(in.op); ++i) {
        reads_matmul |= in.slot(i).kind == k::OperandKind::MatmulResult;
      }
    }
    if (s.matmul) {
      ++matmuls;
      matmul_reads += reads_matmul ? 1 : 0;
      transposed += s.matmul->trans_a || s.matmul->trans_b ? 1 : 0;
      batched += s.matmul->batch > 1 ? 1 : 0;
    }
  }
  CHECK(reductions > kSeeds / 2);
  CHECK(reused > kSeeds);
  CHECK(matmuls > kSeeds / 5);
  CHECK(matmul_reads > matmuls / 2);
  CHECK(transposed > matmuls / 2);
  CHECK(batched > matmuls / 4);
}

TEST_CASE("kernel fuzz: every pass keeps the spec valid and its results bit-identical") {
  std::size_t over_limit = 0, shrunk = 0;
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    const k::Spec s = tk::random_spec(seed);
    const auto in1 = tk::random_inputs(seed, s, kGrid);
    const auto in2 = tk::random_inputs(seed + 1000003, s, kGrid);
    const auto want1 = tk::run_on(s, in1, kGrid);
    const auto want2 = tk::run_on(s, in2, kGrid);
    for (const NamedPass& pass : passes()) {
      k::Spec out;
      try {
        out = pass.run(s);
      } catch (const k::SpecError& e) {
        // Only allocation may refuse: folding/CSE can lengthen live ranges past 32 registers.
        REQUIRE_MESSAGE(std::string(e.what()).rfind("num_regs: the code needs", 0) == 0, pass.name,
                        " seed ", seed, ": ", e.what());
        ++over_limit;
        continue;
      }
      INFO(pass.name, " seed ", seed, "\nbefore: ", k::to_string(s), "after: ", k::to_string(out));
      REQUIRE(k::is_valid(out));
      CHECK(out.views == s.views);
      CHECK(out.runtime_scalars == s.runtime_scalars);
      CHECK(out.matmul == s.matmul);
      CHECK(out.instrs.size() <= s.instrs.size());
      CHECK(k::first_mismatch(tk::run_on(out, in1, kGrid), want1) == -1);
      CHECK(k::first_mismatch(tk::run_on(out, in2, kGrid), want2) == -1);
    }
    const k::Spec c = k::canonicalize(s);
    INFO("seed ", seed, "\nbefore: ", k::to_string(s), "canonical: ", k::to_string(c));
    CHECK(k::canonicalize(c) == c);
    CHECK(c.num_regs <= s.num_regs);
    CHECK(k::read_specs(k::write_specs(std::vector<k::Spec>{c})) == std::vector<k::Spec>{c});
    shrunk += c.instrs.size() < s.instrs.size() ? 1 : 0;
  }
  CHECK(over_limit == 0);
  CHECK(shrunk > kSeeds / 2);  // the passes have work to do on these specs
}

TEST_CASE("kernel fuzz: canonicalize with unsafe flags still validates and is idempotent") {
  const k::FoldFlags all = k::FoldFlags::NoNaNs | k::FoldFlags::NoInfs |
                           k::FoldFlags::NoSignedZeros | k::FoldFlags::Reassociate;
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    const k::Spec s = tk::random_spec(seed);
    const k::Spec c = k::canonicalize(s, all);
    INFO("seed ", seed, "\nbefore: ", k::to_string(s), "canonical: ", k::to_string(c));
    REQUIRE(k::is_valid(c));
    CHECK(k::canonicalize(c, all) == c);
  }
}

TEST_CASE("kernel fuzz: the one-sweep canonicalization reaches the fixpoint of the rounds") {
  std::size_t swept = 0;
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    const k::Spec s = tk::random_spec(seed, {64, 3, 4});
    k::SsaForm by_sweep = k::to_ssa(s);
    k::SsaForm by_rounds = by_sweep;
    k::detail::canonicalize_by_rounds(by_rounds, k::FoldFlags::None);
    if (!k::detail::canonicalize_by_sweep(by_sweep, k::FoldFlags::None)) continue;
    ++swept;
    INFO("seed ", seed, "\n", k::to_string(s));
    REQUIRE(by_sweep == by_rounds);
  }
  CHECK(swept > kSeeds * 9 / 10);
}

TEST_CASE(
    "kernel canonicalize: with unsafe flags the rounds decide (their rules are order-sensitive)") {
  // x and x' are equal; d = x' - x is +0 under NoNaNs + NoInfs once CSE has merged them, and
  // out = (+0) + Neg(d). The rounds first fold out to Neg(d) (NoSignedZeros: (+0) + y -> y) and
  // only then d to +0, so out = Neg(+0) = -0; folding d first would give (+0) + (-0) = +0.
  k::Spec s;
  s.views = {{}, {}};
  s.consts = {0x00000000u};
  s.num_regs = 4;
  s.instrs = {k::binary(Op::Lt, 0, k::input(0), k::input(1)),
              k::binary(Op::Lt, 1, k::input(0), k::input(1)),
              k::binary(Op::Sub, 2, k::reg(1), k::reg(0)), k::unary(Op::Neg, 3, k::reg(2)),
              k::binary(Op::Add, 0, k::constant(0), k::reg(3))};
  const k::FoldFlags flags =
      k::FoldFlags::NoNaNs | k::FoldFlags::NoInfs | k::FoldFlags::NoSignedZeros;
  k::SsaForm f = k::to_ssa(s);
  CHECK_FALSE(k::detail::canonicalize_by_sweep(f, flags));
  const k::Spec c = k::canonicalize(s, flags);
  CHECK(c.instrs == std::vector<k::Instr>{k::unary(Op::Mov, 0, k::constant(0))});
  CHECK(c.consts == std::vector<std::uint32_t>{0x80000000u});
  CHECK(k::canonicalize(c, flags) == c);
}

TEST_CASE("kernel canonicalize: the rounds decide when an equal-operand fold needs CSE first") {
  // s = min(a, a') + b with a' a duplicate of a: a distinct value until CSE and min(x, x) -> x
  // make it a + b, and dead; the rounds delete it before the later a' + b is found equal to it,
  // so a' + b keeps its own place (after exp(b)). Merging into s's place would order them the
  // other way round.
  k::Spec s;
  s.views = {{}, {}};
  s.num_regs = 4;
  s.instrs = {k::unary(Op::Neg, 0, k::input(0)),
              k::unary(Op::Neg, 1, k::input(0)),
              k::binary(Op::Min, 2, k::reg(0), k::reg(1)),
              k::binary(Op::Add, 2, k::reg(2), k::input(1)),  // dead
              k::unary(Op::Exp, 3, k::input(1)),
              k::binary(Op::Add, 1, k::reg(1), k::input(1)),
              k::binary(Op::Mul, 0, k::reg(1), k::reg(3))};
  k::SsaForm f = k::to_ssa(s);
  CHECK_FALSE(k::detail::canonicalize_by_sweep(f, k::FoldFlags::None));
  const k::Spec c = k::canonicalize(s);
  CHECK(c.instrs == std::vector<k::Instr>{k::unary(Op::Neg, 0, k::input(0)),
                                          k::unary(Op::Exp, 1, k::input(1)),
                                          k::binary(Op::Add, 0, k::reg(0), k::input(1)),
                                          k::binary(Op::Mul, 0, k::reg(1), k::reg(0))});
  CHECK(k::canonicalize(c) == c);
}

TEST_CASE(
    "kernel canonicalize: a fold that finds the constant pool full falls back to the rounds") {
  // Sixteen constants 2^i, all read, one only by a dead Mov. Add(c0, c1) = 3 needs a
  // seventeenth slot: the sweep refuses; the rounds fold it once DCE has freed that slot, and
  // then the whole Max chain folds to 2^14.
  k::Spec s;
  s.views = {{}};
  s.num_regs = 2;
  for (std::size_t i = 0; i < k::kMaxConsts; ++i) {
    s.consts.push_back(k::float_bits(static_cast<float>(1u << i)));
  }
  s.instrs.push_back(k::binary(Op::Add, 0, k::constant(0), k::constant(1)));
  for (std::uint8_t i = 2; i + 1u < k::kMaxConsts; ++i) {
    s.instrs.push_back(k::binary(Op::Max, 0, k::reg(0), k::constant(i)));
  }
  s.instrs.push_back(k::unary(Op::Mov, 1, k::constant(k::kMaxConsts - 1)));  // dead
  s.instrs.push_back(k::binary(Op::Max, 1, k::reg(0), k::input(0)));
  k::SsaForm f = k::to_ssa(s);
  CHECK_FALSE(k::detail::canonicalize_by_sweep(f, k::FoldFlags::None));
  const k::Spec c = k::canonicalize(s);
  CHECK(c.instrs == std::vector<k::Instr>{k::binary(Op::Max, 0, k::constant(0), k::input(0))});
  CHECK(c.consts == std::vector<std::uint32_t>{k::float_bits(16384.0f)});
  CHECK(k::canonicalize(c) == c);
}

TEST_CASE("kernel fuzz: validate's quick pass accepts exactly what the field checks accept") {
  std::size_t valid = 0, invalid = 0;
  for (std::uint64_t seed = 0; seed < kSeeds; ++seed) {
    k::Spec s = tk::random_spec(seed);
    pypto::test::SplitMix64 rng(seed ^ 0xba5eULL);
    // A few small corruptions: field values near their limits, kinds and ops past their ranges.
    const std::uint32_t edits = rng.below(4u);
    for (std::uint32_t e = 0; e < edits; ++e) {
      k::Instr& in = s.instrs[rng.below(s.instrs.size())];
      k::Operand& o = in.slot(rng.below(3u));
      switch (rng.below(14u)) {
        case 9:  // a matmul slot out of range, or one whose view is not Linear
          if (s.matmul)
            s.matmul->a_input = static_cast<std::uint8_t>(rng.below(s.views.size() + 1));
          break;
        case 10:
          if (s.matmul) (rng.chance(50) ? s.matmul->k : s.matmul->batch) = rng.below(2u);
          break;
        case 11:
          o = {k::OperandKind::MatmulResult, static_cast<std::uint8_t>(rng.below(2u))};
          break;
        case 12:  // an Input read of a matmul slot
          if (s.matmul) o = k::input(rng.chance(50) ? s.matmul->a_input : s.matmul->b_input);
          break;
        case 13:
          if (s.matmul) {
            s.matmul.reset();
          } else {
            s.matmul = k::Matmul{};
          }
          break;
        case 0: in.dst = static_cast<std::uint8_t>(rng.below(k::kMaxRegs + 2u)); break;
        case 1: in.op = static_cast<Op>(rng.below(k::kOpCount + 2u)); break;
        case 2: o.kind = static_cast<k::OperandKind>(rng.below(k::kOperandKindCount + 1u)); break;
        case 3: o.index = static_cast<std::uint8_t>(rng.below(70u)); break;
        case 4: s.num_regs = static_cast<std::uint8_t>(rng.below(k::kMaxRegs + 2u)); break;
        case 5:
          if (!s.views.empty()) s.views[0].param = rng.below(2u);
          break;
        case 6:
          if (!s.views.empty()) s.views[0].kind = static_cast<k::ViewKind>(rng.below(10u));
          break;
        case 7: s.instrs.push_back(s.instrs[rng.below(s.instrs.size())]); break;
        default: o = k::none(); break;
      }
    }
    bool fields_ok = true;
    try {
      k::detail::check_fields(s);
    } catch (const k::SpecError&) {
      fields_ok = false;
    }
    INFO("seed ", seed, "\n", k::to_string(s));
    REQUIRE(k::detail::quick_valid(s) == fields_ok);
    (fields_ok ? valid : invalid) += 1;
  }
  CHECK(valid > kSeeds / 5);
  CHECK(invalid > kSeeds / 5);
}
