// Tests of the kernel passes (fold.hpp, cse.hpp, dce.hpp, regalloc.hpp, canonicalize.hpp): each
// rule as "a spec, the pass, the expected spec", each unsafe rule off by default and on with its
// flag, seed 004's two pitfalls and its non-idempotence counterexample.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "kernel_random.hpp"
#include "kernel_samples.hpp"
#include "pypto/kernel/canonicalize.hpp"
#include "pypto/kernel/cse.hpp"
#include "pypto/kernel/dce.hpp"
#include "pypto/kernel/interpreter.hpp"
#include "pypto/kernel/regalloc.hpp"

namespace k = pypto::kernel;
namespace tk = pypto::test::kernel;
using k::FoldFlags;
using k::Op;

namespace {

constexpr std::uint32_t kPlus0 = 0x00000000u, kMinus0 = 0x80000000u, kOne = 0x3f800000u,
                        kTwo = 0x40000000u, kThree = 0x40400000u, kNaN = 0x7fc00000u;

/// y = op(x, c) over one Linear input x and the constant c (or c op x when `const_first`).
k::Spec binary_with_const(Op op, std::uint32_t c, bool const_first = false) {
  k::Spec s;
  s.views = {{}};
  s.consts = {c};
  s.num_regs = 1;
  s.instrs = {const_first ? k::binary(op, 0, k::constant(0), k::input(0))
                          : k::binary(op, 0, k::input(0), k::constant(0))};
  return s;
}

/// The spec whose output is simply `Mov x` (what a fold to the input becomes).
k::Spec mov_input() {
  k::Spec s;
  s.views = {{}};
  s.num_regs = 1;
  s.instrs = {k::unary(Op::Mov, 0, k::input(0))};
  return s;
}

k::Spec neg_input() {
  k::Spec s;
  s.views = {{}};
  s.num_regs = 1;
  s.instrs = {k::unary(Op::Neg, 0, k::input(0))};
  return s;
}

k::Spec const_output(std::uint32_t bits) {
  k::Spec s;
  s.views = {{}};
  s.consts = {bits};
  s.num_regs = 1;
  s.instrs = {k::unary(Op::Mov, 0, k::constant(0))};
  return s;
}

}  // namespace

TEST_CASE("kernel fold: exact identities fold by default") {
  CHECK(k::canonicalize(binary_with_const(Op::Mul, kOne)) == mov_input());
  CHECK(k::canonicalize(binary_with_const(Op::Mul, kOne, true)) == mov_input());
  CHECK(k::canonicalize(binary_with_const(Op::Div, kOne)) == mov_input());
  CHECK(k::canonicalize(binary_with_const(Op::Sub, kPlus0)) == mov_input());
  CHECK(k::canonicalize(binary_with_const(Op::Add, kMinus0)) == mov_input());
  CHECK(k::canonicalize(binary_with_const(Op::Add, kMinus0, true)) == mov_input());
  CHECK(k::canonicalize(binary_with_const(Op::Sub, kMinus0, true)) == neg_input());
}

TEST_CASE("kernel fold: neg(neg x), abs(neg x), max(x,x), select(c,x,x), select(const,..)") {
  k::Spec s;
  s.views = {{}, {}};
  s.consts = {kNaN, kPlus0};
  s.num_regs = 8;
  s.instrs = {k::unary(Op::Neg, 0, k::input(0)),
              k::unary(Op::Neg, 1, k::reg(0)),                       // x
              k::unary(Op::Abs, 2, k::reg(0)),                       // abs(x)
              k::binary(Op::Max, 3, k::reg(1), k::input(0)),         // max(x, x) = x
              k::select(4, k::input(1), k::reg(3), k::reg(1)),       // x
              k::select(5, k::constant(0), k::reg(4), k::input(1)),  // NaN cond: x
              k::select(6, k::constant(1), k::input(1), k::reg(2)),  // 0 cond: abs(x)
              k::binary(Op::Add, 7, k::reg(5), k::reg(6))};
  k::Spec expected;
  expected.views = s.views;
  expected.num_regs = 1;
  expected.instrs = {k::unary(Op::Abs, 0, k::input(0)),
                     k::binary(Op::Add, 0, k::reg(0), k::input(0))};  // Reg before Input
  CHECK(k::canonicalize(s) == expected);
}

TEST_CASE("kernel fold: constants fold exactly and pool by bits, transcendentals and div never") {
  k::Spec s;
  s.views = {{}};
  s.consts = {kTwo, kThree, kTwo};
  s.num_regs = 4;
  s.instrs = {k::binary(Op::Mul, 0, k::constant(0), k::constant(1)),  // 6
              k::binary(Op::Lt, 1, k::constant(2), k::constant(1)),   // 1
              k::binary(Op::Add, 2, k::reg(0), k::reg(1)),            // 7
              k::binary(Op::Mul, 3, k::input(0), k::reg(2))};
  k::Spec expected;
  expected.views = s.views;
  expected.consts = {k::float_bits(7.0f)};
  expected.num_regs = 1;
  expected.instrs = {k::binary(Op::Mul, 0, k::input(0), k::constant(0))};
  CHECK(k::canonicalize(s) == expected);

  for (Op op : {Op::Exp, Op::Log, Op::Sqrt, Op::Rsqrt, Op::Tanh}) {
    k::Spec t = const_output(kTwo);
    t.instrs[0].op = op;
    CHECK(k::canonicalize(t) == t);
  }
  k::Spec div;
  div.consts = {kOne, kThree};
  div.num_regs = 1;
  div.instrs = {k::binary(Op::Div, 0, k::constant(0), k::constant(1))};
  CHECK(k::canonicalize(div) == div);
}

TEST_CASE("kernel fold: NaN constants, max of two zeros and runtime scalars are not folded") {
  k::Spec nan_add = const_output(kNaN);
  nan_add.consts = {kOne, kNaN};  // already in canonical operand order (by bits)
  nan_add.instrs = {k::binary(Op::Add, 0, k::constant(0), k::constant(1))};
  CHECK(k::canonicalize(nan_add) == nan_add);
  k::Spec zeros;
  zeros.consts = {kPlus0, kMinus0};
  zeros.num_regs = 1;
  zeros.instrs = {k::binary(Op::Max, 0, k::constant(0), k::constant(1))};
  CHECK(k::canonicalize(zeros) == zeros);
  k::Spec rs;
  rs.views = {{}};
  rs.runtime_scalars = {kOne};
  rs.num_regs = 1;
  rs.instrs = {k::binary(Op::Mul, 0, k::input(0), k::runtime_scalar(0))};
  CHECK(k::canonicalize(rs) == rs);
}

TEST_CASE("kernel fold: each unsafe rule is off by default and on with its flag") {
  const FoldFlags nsz = FoldFlags::NoSignedZeros;
  const FoldFlags all_mul0 = FoldFlags::NoNaNs | FoldFlags::NoInfs | FoldFlags::NoSignedZeros;

  // x + (+0) -> x needs nsz
  CHECK(k::canonicalize(binary_with_const(Op::Add, kPlus0)) == binary_with_const(Op::Add, kPlus0));
  CHECK(k::canonicalize(binary_with_const(Op::Add, kPlus0), nsz) == mov_input());
  // x - (-0) -> x needs nsz
  CHECK(k::canonicalize(binary_with_const(Op::Sub, kMinus0)) ==
        binary_with_const(Op::Sub, kMinus0));
  CHECK(k::canonicalize(binary_with_const(Op::Sub, kMinus0), nsz) == mov_input());
  // (+0) - x -> neg x needs nsz
  CHECK(k::canonicalize(binary_with_const(Op::Sub, kPlus0, true)) ==
        binary_with_const(Op::Sub, kPlus0, true));
  CHECK(k::canonicalize(binary_with_const(Op::Sub, kPlus0, true), nsz) == neg_input());
  // x * 0 -> 0 needs nnan + ninf + nsz, any one missing keeps it
  CHECK(k::canonicalize(binary_with_const(Op::Mul, kMinus0)) ==
        binary_with_const(Op::Mul, kMinus0));
  CHECK(k::canonicalize(binary_with_const(Op::Mul, kMinus0), FoldFlags::NoNaNs | nsz) ==
        binary_with_const(Op::Mul, kMinus0));
  CHECK(k::canonicalize(binary_with_const(Op::Mul, kMinus0), all_mul0) == const_output(kPlus0));
  // x - x -> 0 needs nnan + ninf
  k::Spec xx;
  xx.views = {{}};
  xx.num_regs = 1;
  xx.instrs = {k::binary(Op::Sub, 0, k::input(0), k::input(0))};
  CHECK(k::canonicalize(xx) == xx);
  CHECK(k::canonicalize(xx, FoldFlags::NoNaNs | FoldFlags::NoInfs) == const_output(kPlus0));
  // (x + 2) + 3 -> x + 5 needs reassociation
  k::Spec re;
  re.views = {{}};
  re.consts = {kTwo, kThree};
  re.num_regs = 1;
  re.instrs = {k::binary(Op::Add, 0, k::input(0), k::constant(0)),
               k::binary(Op::Add, 0, k::reg(0), k::constant(1))};
  CHECK(k::canonicalize(re) == re);
  k::Spec re_expected = binary_with_const(Op::Add, k::float_bits(5.0f));
  CHECK(k::canonicalize(re, FoldFlags::Reassociate) == re_expected);
}

TEST_CASE("kernel fold: the unsafe rules really change results on the inputs they exclude") {
  // Why they are flagged: -0 + (+0) is +0, not -0; (-0) * 0 is -0 and Inf * 0 is NaN.
  const std::vector<std::vector<float>> in = {{-0.0f}};
  const auto add = binary_with_const(Op::Add, kPlus0);
  CHECK(k::first_mismatch(tk::run_on(add, in, {1, 1}), tk::run_on(mov_input(), in, {1, 1})) == 0);
  CHECK(k::first_mismatch(tk::run_on(add, in, {1, 1}),
                          tk::run_on(k::canonicalize(add, FoldFlags::NoSignedZeros), in, {1, 1})) ==
        0);
  const std::vector<std::vector<float>> inf = {{std::numeric_limits<float>::infinity()}};
  const auto mul = binary_with_const(Op::Mul, kPlus0);
  const auto folded =
      k::canonicalize(mul, FoldFlags::NoNaNs | FoldFlags::NoInfs | FoldFlags::NoSignedZeros);
  CHECK(k::first_mismatch(tk::run_on(mul, inf, {1, 1}), tk::run_on(folded, inf, {1, 1})) == 0);
}

TEST_CASE("kernel canonicalize: seed 004's counterexample reaches the fixpoint in one call") {
  const k::Spec s = tk::pitfall_counterexample();
  k::Spec expected;
  expected.views = s.views;
  expected.num_regs = 1;
  expected.instrs = {k::binary(Op::Mul, 0, k::input(0), k::input(1)),
                     k::binary(Op::Add, 0, k::reg(0), k::input(2))};
  const k::Spec once = k::canonicalize(s);
  CHECK(once == expected);
  CHECK(k::canonicalize(once) == once);
  // The one-shot order (fold, DCE, CSE, allocate) leaves max(r0, r0): 3 instructions.
  const k::Spec one_shot = k::eliminate_dead_code(
      k::eliminate_common_subexpressions(k::eliminate_dead_code(k::fold_constants(s))));
  CHECK(one_shot.instrs.size() == 3);
  CHECK(k::canonicalize(one_shot) == expected);
}

TEST_CASE("kernel cse: commutative operands are ordered, non-commutative ones are not") {
  k::Spec s;
  s.views = {{}, {}};
  s.num_regs = 5;
  s.instrs = {k::binary(Op::Mul, 0, k::input(0), k::input(1)),
              k::binary(Op::Mul, 1, k::input(1), k::input(0)),  // same as r0
              k::binary(Op::Max, 2, k::input(0), k::input(1)),
              k::binary(Op::Max, 3, k::input(1), k::input(0)),  // differs for NaN and +-0
              k::select(4, k::reg(0), k::reg(1), k::reg(2))};
  const k::Spec c = k::eliminate_dead_code(k::eliminate_common_subexpressions(s));
  k::Spec expected;
  expected.views = s.views;
  expected.num_regs = 2;
  expected.instrs = {k::binary(Op::Mul, 0, k::input(0), k::input(1)),
                     k::binary(Op::Max, 1, k::input(0), k::input(1)),
                     k::select(0, k::reg(0), k::reg(0), k::reg(1))};
  CHECK(c == expected);
  // the dropped Max(b, a) was dead; keep it live and it stays
  s.instrs[4] = k::select(4, k::reg(2), k::reg(3), k::reg(1));
  CHECK(k::canonicalize(s).instrs.size() == 4);
}

TEST_CASE("kernel cse: constants merge by bits: +0 and -0 stay apart, equal NaNs merge") {
  k::Spec s;
  s.views = {{}};
  s.consts = {kPlus0, kMinus0, 0x7fc00123u, 0x7fc00123u};
  s.num_regs = 5;
  s.instrs = {
      k::binary(Op::Max, 0, k::input(0), k::constant(0)),
      k::binary(Op::Max, 1, k::input(0), k::constant(1)),
      k::binary(Op::Min, 2, k::input(0), k::constant(2)),
      k::binary(Op::Min, 3, k::input(0), k::constant(3)),
      k::select(4, k::reg(0), k::reg(1), k::reg(2)),
  };
  s.instrs.push_back(k::binary(Op::Sub, 4, k::reg(4), k::reg(3)));
  s.num_regs = 5;
  const k::Spec c = k::canonicalize(s);
  CHECK(c.consts == std::vector<std::uint32_t>{kPlus0, kMinus0, 0x7fc00123u});
  CHECK(c.instrs.size() == 5);  // the two Min(x, NaN) merged; the two Max did not
}

TEST_CASE("kernel dce: dead instructions and unused constants go, views and scalars stay") {
  k::Spec s;
  s.views = {{}, {k::ViewKind::RowBroadcast, 0}};
  s.consts = {kTwo, kThree};
  s.runtime_scalars = {kOne};
  s.num_regs = 3;
  s.instrs = {k::binary(Op::Mul, 0, k::input(1), k::constant(0)),  // dead
              k::unary(Op::RowSum, 2, k::input(1)),                // dead reduction
              k::binary(Op::Add, 1, k::input(0), k::constant(1))};
  k::Spec expected;
  expected.views = s.views;
  expected.consts = {kThree};
  expected.runtime_scalars = s.runtime_scalars;
  expected.num_regs = 1;
  expected.instrs = {k::binary(Op::Add, 0, k::input(0), k::constant(0))};
  CHECK(k::eliminate_dead_code(s) == expected);
}

TEST_CASE("kernel regalloc: registers are reused, lowest first, reductions get their own range") {
  // Pitfall 1: reduction registers after elementwise ones, never reused; pitfall 2: unused
  // slots are None and never count as a read of register 0.
  k::Spec s;
  s.views = {{}};
  s.num_regs = 8;
  s.instrs = {k::unary(Op::RowSum, 0, k::input(0)),
              k::unary(Op::Neg, 1, k::input(0)),
              k::unary(Op::Exp, 2, k::reg(1)),
              k::unary(Op::ColMax, 3, k::input(0)),
              k::binary(Op::Add, 4, k::reg(2), k::reduce_result(0)),
              k::binary(Op::Sub, 5, k::reg(4), k::reduce_result(3)),
              k::unary(Op::Tanh, 6, k::reg(5))};
  k::Spec expected;
  expected.views = s.views;
  expected.num_regs = 3;
  expected.instrs = {k::unary(Op::RowSum, 1, k::input(0)),
                     k::unary(Op::Neg, 0, k::input(0)),
                     k::unary(Op::Exp, 0, k::reg(0)),
                     k::unary(Op::ColMax, 2, k::input(0)),
                     k::binary(Op::Add, 0, k::reg(0), k::reduce_result(1)),
                     k::binary(Op::Sub, 0, k::reg(0), k::reduce_result(2)),
                     k::unary(Op::Tanh, 0, k::reg(0))};
  CHECK(k::allocate_registers(s) == expected);
}

TEST_CASE("kernel regalloc: a wide spec fits the limit only after allocation") {
  // 40 values, at most 3 live at a time: 40 registers before, 3 after.
  k::Spec s;
  s.views = {{}, {}};
  s.num_regs = 32;
  s.instrs.push_back(k::binary(Op::Add, 0, k::input(0), k::input(1)));
  for (std::uint8_t i = 1; i < 40; ++i) {
    s.instrs.push_back(k::binary(i % 2 ? Op::Mul : Op::Sub, static_cast<std::uint8_t>(i % 32),
                                 k::reg(static_cast<std::uint8_t>((i - 1) % 32)), k::input(i % 2)));
  }
  const k::Spec a = k::allocate_registers(s);
  CHECK(a.num_regs == 1);
  CHECK(k::is_valid(a));
}

TEST_CASE("kernel canonicalize: a value form outside the spec limits is refused, not overrun") {
  k::SsaForm empty;
  CHECK_THROWS_AS(k::canonicalize(empty), k::SpecError);
  k::SsaForm wide = k::to_ssa(tk::pitfall_counterexample());
  wide.consts.assign(k::kMaxConsts + 1, kOne);
  CHECK_THROWS_AS(k::canonicalize(wide), k::SpecError);
  wide.consts.clear();
  wide.nodes.resize(k::kMaxInstrs + 1, wide.nodes.front());
  CHECK_THROWS_AS(k::canonicalize(wide), k::SpecError);
}

namespace {

/// Three inputs: A (transposed, 2 x 2 stored k x m) and B (2 x 2) of a matmul, and x.
k::Spec with_matmul(std::vector<k::Instr> instrs, std::vector<std::uint32_t> consts = {}) {
  k::Spec s;
  s.views = {{}, {}, {}};
  s.consts = std::move(consts);
  s.num_regs = 3;
  s.matmul = k::Matmul{0, 1, true, false, 2, 1};
  s.instrs = std::move(instrs);
  return s;
}

std::vector<float> run_matmul_spec(const k::Spec& s) {
  const std::vector<float> a = {1.5f, -2.0f, 0.25f, 3.0f}, b = {-1.0f, 4.0f, 0.5f, 2.0f},
                           x = {7.0f, -0.0f, 1e30f, -3.0f};
  const std::vector<std::span<const float>> in = {a, b, x};
  return k::evaluate(s, in, {2, 2});
}

}  // namespace

TEST_CASE("kernel canonicalize: the matmul segment and its inputs stay when its result dies") {
  // select(1, x, C) folds to x: no instruction reads the matmul any more, yet the segment,
  // its slots and every view stay (the spec's interface), and the result is unchanged.
  const k::Spec s = with_matmul({k::select(0, k::constant(0), k::input(2), k::matmul_result()),
                                 k::unary(Op::Neg, 1, k::reg(0))},
                                {kOne});
  const k::Spec c = k::canonicalize(s);
  CHECK(c.instrs == std::vector<k::Instr>{k::unary(Op::Neg, 0, k::input(2))});
  CHECK(c.consts.empty());
  CHECK(c.views == s.views);
  CHECK(c.matmul == s.matmul);
  CHECK(k::is_valid(c));
  CHECK(k::first_mismatch(run_matmul_spec(c), run_matmul_spec(s)) == -1);
  CHECK(k::eliminate_dead_code(s).matmul == s.matmul);
  CHECK(k::allocate_registers(s).matmul == s.matmul);
}

TEST_CASE("kernel canonicalize: matmul result reads are values like inputs (CSE, order, DCE)") {
  // C*x and x*C are one value once commutative operands are ordered (Input before
  // MatmulResult); the dead C+C goes; the reduction of C stays in its own register range.
  const k::Spec s = with_matmul({k::binary(Op::Mul, 0, k::matmul_result(), k::input(2)),
                                 k::binary(Op::Add, 1, k::matmul_result(), k::matmul_result()),
                                 k::unary(Op::RowSum, 2, k::matmul_result()),
                                 k::binary(Op::Mul, 1, k::input(2), k::matmul_result()),
                                 k::binary(Op::Add, 0, k::reg(0), k::reg(1)),
                                 k::binary(Op::Sub, 0, k::reg(0), k::reduce_result(2))});
  const k::Spec c = k::canonicalize(s);
  CHECK(c.instrs == std::vector<k::Instr>{k::binary(Op::Mul, 0, k::input(2), k::matmul_result()),
                                          k::unary(Op::RowSum, 1, k::matmul_result()),
                                          k::binary(Op::Add, 0, k::reg(0), k::reg(0)),
                                          k::binary(Op::Sub, 0, k::reg(0), k::reduce_result(1))});
  CHECK(c.num_regs == 2);
  CHECK(c.matmul == s.matmul);
  CHECK(k::canonicalize(c) == c);
  CHECK(k::first_mismatch(run_matmul_spec(c), run_matmul_spec(s)) == -1);
}
