// Tests of pypto/kernel/interpreter.hpp: each view, op class and the two phases on small grids
// with hand-computed results, the matmul segment (transposes, batches, summation order),
// buffer checks, and the NaN-aware bit-exact comparator.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "kernel_samples.hpp"
#include "pypto/kernel/interpreter.hpp"

namespace k = pypto::kernel;
using k::Op;

namespace {

std::vector<float> run(const k::Spec& s, const std::vector<std::vector<float>>& bufs, k::Grid g) {
  std::vector<std::span<const float>> spans(bufs.begin(), bufs.end());
  return k::evaluate(s, spans, g);
}

k::Spec one_input(k::View v, Op op = Op::Mov) {
  k::Spec s;
  s.views = {v};
  s.num_regs = 1;
  s.instrs = {k::unary(op, 0, k::input(0))};
  return s;
}

}  // namespace

TEST_CASE("kernel interpreter: views map grid elements to input elements") {
  const k::Grid g{2, 4};
  CHECK(run(one_input({k::ViewKind::Linear, 0}), {{0, 1, 2, 3, 4, 5, 6, 7}}, g) ==
        std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(run(one_input({k::ViewKind::RowBroadcast, 0}), {{1, 2, 3, 4}}, g) ==
        std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4});
  CHECK(run(one_input({k::ViewKind::ColBroadcast, 0}), {{5, 6}}, g) ==
        std::vector<float>{5, 5, 5, 5, 6, 6, 6, 6});
  CHECK(run(one_input({k::ViewKind::RowMod, 1}), {{1, 2, 3, 4}}, g) ==
        std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4});
  // rotate_half over blocks of width 4 (p = 2): [x0 x1 x2 x3] -> [-x2 -x3 x0 x1]
  CHECK(run(one_input({k::ViewKind::RotateHalf, 2}), {{0, 1, 2, 3, 4, 5, 6, 7}}, g) ==
        std::vector<float>{-2, -3, 0, 1, -6, -7, 4, 5});
  CHECK(run(one_input({k::ViewKind::RotateHalf, 1}), {{0, 1, 2, 3, 4, 5, 6, 7}}, g) ==
        std::vector<float>{-1, 0, -3, 2, -5, 4, -7, 6});
  CHECK(run(one_input({k::ViewKind::RowReduceSum, 0}), {{0, 1, 2, 3, 4, 5, 6, 7}}, g) ==
        std::vector<float>{6, 6, 6, 6, 22, 22, 22, 22});
  CHECK(run(one_input({k::ViewKind::ColReduceMax, 0}), {{0, 9, 2, 3, 4, 5, 6, 7}}, g) ==
        std::vector<float>{4, 9, 6, 7, 4, 9, 6, 7});
}

TEST_CASE("kernel interpreter: reductions run first and broadcast by row or column") {
  k::Spec s;
  s.views = {{}};
  s.num_regs = 3;
  s.instrs = {k::unary(Op::RowSum, 1, k::input(0)), k::unary(Op::ColMax, 2, k::input(0)),
              k::binary(Op::Sub, 0, k::reduce_result(1), k::reduce_result(2))};
  // rows: [1 2 3] [4 5 6]: row sums 6, 15; column maxima 4 5 6
  CHECK(run(s, {{1, 2, 3, 4, 5, 6}}, {2, 3}) == std::vector<float>{2, 1, 0, 11, 10, 9});
}

TEST_CASE("kernel interpreter: grid indices, compares, select, constants, runtime scalars") {
  k::Spec s;
  s.consts = {k::float_bits(10.0f)};
  s.runtime_scalars = {k::float_bits(-1.0f)};
  s.num_regs = 3;
  s.instrs = {k::binary(Op::Le, 0, k::grid(k::GridAxis::Col), k::grid(k::GridAxis::Row)),
              k::binary(Op::Add, 1, k::grid(k::GridAxis::Batch), k::constant(0)),
              k::select(2, k::reg(0), k::reg(1), k::runtime_scalar(0))};
  CHECK(run(s, {}, {2, 2, 5}) == std::vector<float>{15, -1, 15, 15});
}

TEST_CASE("kernel interpreter: max/min follow std::max/std::min for NaN and signed zero") {
  k::Spec s;
  s.views = {{}, {}};
  s.num_regs = 1;
  s.instrs = {k::binary(Op::Max, 0, k::input(0), k::input(1))};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto out = run(s, {{nan, 1.0f, 0.0f, -0.0f}, {1.0f, nan, -0.0f, 0.0f}}, {1, 4});
  CHECK(std::isnan(out[0]));
  CHECK(out[1] == 1.0f);
  CHECK(k::float_bits(out[2]) == k::float_bits(0.0f));
  CHECK(k::float_bits(out[3]) == k::float_bits(-0.0f));
}

TEST_CASE("kernel interpreter: arithmetic is strict binary32 (no contraction, denormals kept)") {
  k::Spec s;
  s.views = {{}, {}, {}};
  s.num_regs = 2;
  s.instrs = {k::binary(Op::Mul, 0, k::input(0), k::input(1)),
              k::binary(Op::Add, 1, k::reg(0), k::input(2))};
  // a*b rounds to 1 in binary32, so a*b - 1 == 0; an FMA would give 2^-46.
  const float a = 1.0f + 0x1p-23f, b = 1.0f - 0x1p-23f;
  CHECK(run(s, {{a}, {b}, {-1.0f}}, {1, 1}) == std::vector<float>{0.0f});
  const float denorm = std::numeric_limits<float>::denorm_min();
  CHECK(run(s, {{denorm}, {1.0f}, {0.0f}}, {1, 1}) == std::vector<float>{denorm});
}

TEST_CASE("kernel interpreter: the sample specs run") {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(run(pypto::test::kernel::softmax_like(), {x, x}, {2, 4}).size() == 8);
  CHECK(run(pypto::test::kernel::rope_like(), {x, x, x, x}, {2, 4}).size() == 8);
  CHECK(run(pypto::test::kernel::masked_bias(), {x, {1, 2, 3, 4}, {1, 2}}, {2, 4})[0] == 1 + 1 + 6);
}

TEST_CASE("kernel interpreter: buffers that do not fit the views are rejected") {
  const auto s = one_input({k::ViewKind::RowMod, 3});
  CHECK_THROWS_WITH_AS(run(s, {{1, 2}}, {2, 2}), "evaluate: input 0 (RowMod) needs 6 values, got 2",
                       pypto::core::ValueError);
  CHECK_THROWS_WITH_AS(run(s, {}, {2, 2}), "evaluate: the spec has 1 inputs, 0 buffers were given",
                       pypto::core::ValueError);
  CHECK_THROWS_WITH_AS(run(one_input({k::ViewKind::RotateHalf, 2}), {{1, 2, 3, 4, 5, 6}}, {1, 6}),
                       "evaluate: input 0 (RotateHalf 2) needs cols divisible by 4, got 6",
                       pypto::core::ValueError);
  k::Spec bad = s;
  bad.num_regs = 0;
  CHECK_THROWS_AS(run(bad, {{1, 2, 3, 4, 5, 6}}, {2, 2}), k::SpecError);
}

namespace {

/// out = op(A) x op(B), read as MatmulResult.
k::Spec matmul_only(bool trans_a, bool trans_b, std::uint32_t k, std::uint32_t batch = 1) {
  k::Spec s;
  s.views = {{}, {}};
  s.num_regs = 1;
  s.matmul = k::Matmul{0, 1, trans_a, trans_b, k, batch};
  s.instrs = {k::unary(Op::Mov, 0, k::matmul_result())};
  return s;
}

}  // namespace

TEST_CASE("kernel interpreter: a small matmul, in each of the four transpose layouts") {
  // A = [1 2 3; 4 5 6], B = [7 8; 9 10; 11 12]: A x B = [58 64; 139 154].
  const std::vector<float> a = {1, 2, 3, 4, 5, 6}, a_t = {1, 4, 2, 5, 3, 6};
  const std::vector<float> b = {7, 8, 9, 10, 11, 12}, b_t = {7, 9, 11, 8, 10, 12};
  const std::vector<float> want = {58, 64, 139, 154};
  CHECK(run(matmul_only(false, false, 3), {a, b}, {2, 2}) == want);
  CHECK(run(matmul_only(true, false, 3), {a_t, b}, {2, 2}) == want);
  CHECK(run(matmul_only(false, true, 3), {a, b_t}, {2, 2}) == want);
  CHECK(run(matmul_only(true, true, 3), {a_t, b_t}, {2, 2}) == want);
  // The other way round on the same buffers: B x A over a 3 x 3 grid with k = 2.
  CHECK(run(matmul_only(false, false, 2), {b, a}, {3, 3}) ==
        std::vector<float>{39, 54, 69, 49, 68, 87, 59, 82, 105});
  // One slot as both operands: A x A^T.
  k::Spec gram = matmul_only(false, true, 3);
  gram.views.pop_back();
  gram.matmul->b_input = 0;
  CHECK(run(gram, {a}, {2, 2}) == std::vector<float>{14, 32, 32, 77});
}

TEST_CASE("kernel interpreter: the matmul result enters the code as an operand, reductions too") {
  // relu(A x B + bias) with bias = [-60 -60] row-broadcast: [0 4; 79 94].
  const k::Spec s = pypto::test::kernel::matmul_epilogue();
  CHECK(run(s, {{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}, {-60, -60}}, {2, 2}) ==
        std::vector<float>{0, 4, 79, 94});
  // C - rowmax(C): [-6 0; -15 0].
  k::Spec r;
  r.views = {{}, {}};
  r.num_regs = 2;
  r.matmul = k::Matmul{0, 1, false, false, 3, 1};
  r.instrs = {k::unary(Op::RowMax, 1, k::matmul_result()),
              k::binary(Op::Sub, 0, k::matmul_result(), k::reduce_result(1))};
  CHECK(run(r, {{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}}, {2, 2}) ==
        std::vector<float>{-6, 0, -15, 0});
}

TEST_CASE("kernel interpreter: a batched matmul stacks blocks and defines Row and Batch") {
  // Two blocks of A (2 x 1 each) and B (1 x 1 each): C = [1*10 2*10 3*100 4*100]. Row is the row
  // within the block (0 1 0 1), Batch the grid's batch (5) plus the block (5 5 6 6).
  k::Spec s = matmul_only(false, false, 1, 2);
  s.consts = {k::float_bits(10.0f), k::float_bits(100.0f)};
  s.num_regs = 2;
  s.instrs = {k::binary(Op::Mul, 0, k::grid(k::GridAxis::Row), k::constant(0)),
              k::binary(Op::Add, 0, k::reg(0), k::matmul_result()),
              k::binary(Op::Mul, 1, k::grid(k::GridAxis::Batch), k::constant(1)),
              k::binary(Op::Add, 0, k::reg(0), k::reg(1))};
  CHECK(run(s, {{1, 2, 3, 4}, {10, 100}}, {4, 1, 5}) == std::vector<float>{510, 530, 900, 1010});
  // With batch 1 the same code reads Row = r and Batch = the grid's batch, as without a matmul.
  s.matmul->batch = 1;
  CHECK(run(s, {{1, 2, 3, 4}, {10}}, {4, 1, 5}) == std::vector<float>{510, 530, 550, 570});
  // A 2-block matmul with k = 3 and transposes: block 1 of B is [1 0; 0 1; 1 1].
  const k::Spec t = matmul_only(false, false, 3, 2);
  CHECK(run(t, {{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12, 1, 0, 0, 1, 1, 1}}, {2, 2}) ==
        std::vector<float>{58, 64, 10, 11});
  const k::Spec tt = matmul_only(true, true, 3, 2);
  CHECK(run(tt, {{1, 2, 3, 4, 5, 6}, {7, 9, 11, 8, 10, 12, 1, 0, 1, 0, 1, 1}}, {2, 2}) ==
        std::vector<float>{58, 64, 10, 11});
}

TEST_CASE("kernel interpreter: the matmul sums in increasing k, from the first product, rounded") {
  // Left to right, (1e8 + 1) rounds back to 1e8, so the sum is 0; any other order gives 1.
  CHECK(run(matmul_only(false, false, 3), {{1e8f, 1.0f, -1e8f}, {1, 1, 1}}, {1, 1}) ==
        std::vector<float>{0.0f});
  // The sum starts from the first product, not from +0: a single -0 product stays -0.
  const auto neg_zero = run(matmul_only(false, false, 1), {{-0.0f}, {1.0f}}, {1, 1});
  CHECK(k::float_bits(neg_zero[0]) == k::float_bits(-0.0f));
  // Each product is rounded before it is added: (1 + 2^-23)(1 - 2^-23) rounds to 1, so
  // -1 + that is 0; a fused multiply-add would give -2^-46.
  const float up = 1.0f + 0x1p-23f, down = 1.0f - 0x1p-23f;
  CHECK(run(matmul_only(false, false, 2), {{-1.0f, up}, {1.0f, down}}, {1, 1}) ==
        std::vector<float>{0.0f});
  // NaN and infinities propagate as in IEEE arithmetic: inf * 0 is NaN.
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(std::isnan(run(matmul_only(false, false, 2), {{inf, 1.0f}, {0.0f, 1.0f}}, {1, 1})[0]));
}

TEST_CASE("kernel interpreter: buffers and grids that do not fit the matmul are rejected") {
  const std::vector<float> six(6, 1.0f), five(5, 1.0f);
  CHECK_THROWS_WITH_AS(run(matmul_only(false, false, 3), {five, six}, {2, 2}),
                       "evaluate: input 0 (matmul operand A) needs 6 values, got 5",
                       pypto::core::ValueError);
  CHECK_THROWS_WITH_AS(run(matmul_only(true, false, 3), {six, five}, {2, 2}),
                       "evaluate: input 1 (matmul operand B) needs 6 values, got 5",
                       pypto::core::ValueError);
  CHECK_THROWS_WITH_AS(run(matmul_only(false, false, 3, 4), {six, six}, {2, 2}),
                       "evaluate: matmul.batch 4 does not divide the grid's 2 rows",
                       pypto::core::ValueError);
  k::Spec same = matmul_only(false, false, 3);
  same.views.pop_back();
  same.matmul->b_input = 0;
  CHECK_THROWS_WITH_AS(run(same, {six}, {2, 4}),
                       "evaluate: input 0 is both matmul operands, but A needs 6 values (1 x 2 x "
                       "3) and B needs 12 (1 x 3 x 4)",
                       pypto::core::ValueError);
  CHECK(k::input_size(same, 0, {3, 3}) == 9);
}

TEST_CASE("kernel interpreter: the comparator is bit-exact except that NaN equals NaN") {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  const float other_nan = k::bits_float(0xffc00001u);
  CHECK(k::same_float(qnan, other_nan));
  CHECK_FALSE(k::same_float(0.0f, -0.0f));
  CHECK_FALSE(k::same_float(qnan, 1.0f));
  CHECK_FALSE(k::same_float(1.0f, std::nextafter(1.0f, 2.0f)));
  const std::vector<float> a = {1, qnan, 0.0f}, b = {1, other_nan, -0.0f};
  CHECK(k::first_mismatch(a, b) == 2);
  CHECK(k::first_mismatch(a, a) == -1);
  CHECK(k::first_mismatch(a, std::span<const float>(a).first(2)) == 2);
}
