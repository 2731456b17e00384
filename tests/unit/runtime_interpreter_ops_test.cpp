// Tests of the reference interpreter's op families beyond the kernel expression IR: element ops
// (relu, recip, fmod, the floored remainder, leaky ReLU, bitwise and shift ops), compares into a
// packed mask and selects through one, reductions of every kind and rank, argmax / argmin,
// expands, three-operand adds, concat / extract / assemble, the triangle mask, fillpad and the
// valid shape, the column sum's tree order, matmul with a bias and gemv, task ids and the block
// count, the sorts, merges and gathers (codegen/irregular_functions.hpp). Each case is a program in
// the text format run on hand-chosen inputs at the edges (NaN, +-0, +-Inf, ties, overflow), checked
// against results computed here by hand.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/runtime/interpreter.hpp"
#include "pypto/text/parser.hpp"

namespace rt = pypto::runtime;
using pypto::core::DataType;
using rt::Value;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// `body` as the one InCore function `f` of a program, whose parameters are `params`.
std::vector<Value> run_incore(std::string_view params, std::string_view body,
                              std::vector<Value> args) {
  std::string text =
      "import pypto.language as pl\n@pl.program\nclass P:\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n    def f(self, " +
      std::string(params) + "):\n";
  std::string line;
  for (char ch : std::string(body) + "\n") {
    if (ch != '\n') {
      line += ch;
      continue;
    }
    if (!line.empty()) text += "        " + line + "\n";
    line.clear();
  }
  return rt::run(*pypto::text::parse_program(text), "f", std::move(args));
}

Value tile_f32(std::vector<std::int64_t> shape, std::vector<float> data,
               DataType t = DataType::FP32) {
  Value v = Value::tensor_f32(std::move(shape), std::move(data));
  v.kind = rt::ValueKind::Tile;
  v.dtype = v.buffer->dtype = t;
  return v;
}

Value tile_int(DataType t, std::vector<std::int64_t> shape, std::vector<std::int64_t> data) {
  Value v = Value::tensor_int(t, std::move(shape), std::move(data));
  v.kind = rt::ValueKind::Tile;
  return v;
}

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

/// Bit equality of two float vectors, NaN equal to NaN.
void check_floats(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    CAPTURE(k);
    CAPTURE(got[k]);
    CAPTURE(want[k]);
    CHECK(rt::comparable_bits(got[k]) == rt::comparable_bits(want[k]));
  }
}

}  // namespace

TEST_CASE("interpret ops: relu, recip, fmod, the floored remainder and leaky ReLU at the edges") {
  const Value a = tile_f32({1, 6}, {kNaN, -0.0f, -1.0f, kInf, 5.5f, -5.5f});
  const Value b = tile_f32({1, 6}, {1.0f, 2.0f, 0.0f, 2.0f, -2.0f, 2.0f});
  const auto r =
      run_incore("a: pl.Tile[[1, 6], pl.FP32], b: pl.Tile[[1, 6], pl.FP32], s: pl.Scalar[pl.FP32]",
                 "r = pl.tile.relu(a)\n"
                 "q = pl.tile.recip(a)\n"
                 "m = pl.tile.fmod(a, b)\n"
                 "n = pl.tile.rem(a, b)\n"
                 "l = pl.tile.lrelu(a, s)\n"
                 "return r, q, m, n, l",
                 {a, b, Value::scalar_float(0.1f)});
  REQUIRE(r.size() == 5);
  check_floats(r[0].buffer->f32, {kNaN, 0.0f, 0.0f, kInf, 5.5f, 0.0f});
  CHECK(bits(r[0].buffer->f32[1]) == 0u);  // relu(-0) is +0
  check_floats(r[1].buffer->f32, {kNaN, -kInf, -1.0f, 0.0f, 1.0f / 5.5f, 1.0f / -5.5f});
  // fmod keeps the dividend's sign; the remainder takes the divisor's (as Python's %).
  check_floats(r[2].buffer->f32, {kNaN, -0.0f, kNaN, kNaN, 1.5f, -1.5f});
  check_floats(r[3].buffer->f32, {kNaN, -0.0f, kNaN, kNaN, -0.5f, 0.5f});
  check_floats(r[4].buffer->f32, {kNaN, -0.0f, -0.1f, kInf, 5.5f, -5.5f * 0.1f});
}

TEST_CASE(
    "interpret ops: bitwise and shift ops wrap to the dtype, an out-of-range shift is an error") {
  const Value a = tile_int(DataType::INT16, {1, 4}, {0x7fff, -1, 1, -8});
  const Value b = tile_int(DataType::INT16, {1, 4}, {0x00ff, 0x0f0f, 15, 1});
  const auto r = run_incore("a: pl.Tile[[1, 4], pl.INT16], b: pl.Tile[[1, 4], pl.INT16]",
                            "n = pl.tile.not_(a)\n"
                            "x = pl.tile.and_(a, b)\n"
                            "o = pl.tile.or_(a, b)\n"
                            "e = pl.tile.xor(a, b)\n"
                            "return n, x, o, e",
                            {a, b});
  REQUIRE(r.size() == 4);
  CHECK(r[0].buffer->ints == std::vector<std::int64_t>{-32768, 0, -2, 7});
  CHECK(r[1].buffer->ints == std::vector<std::int64_t>{0x00ff, 0x0f0f, 1, 0});
  CHECK(r[2].buffer->ints == std::vector<std::int64_t>{0x7fff, -1, 15, -7});
  CHECK(r[3].buffer->ints == std::vector<std::int64_t>{0x7f00, ~0x0f0f, 14, -7});
  const Value c = tile_int(DataType::INT16, {1, 4}, {1, 3, 1, 0});
  const auto s = run_incore("a: pl.Tile[[1, 4], pl.INT16], c: pl.Tile[[1, 4], pl.INT16]",
                            "l = pl.tile.shl(a, c)\nr = pl.tile.shr(a, c)\nreturn l, r", {a, c});
  CHECK(s[0].buffer->ints == std::vector<std::int64_t>{-2, -8, 2, -8});      // 0x7fff << 1 wraps
  CHECK(s[1].buffer->ints == std::vector<std::int64_t>{0x3fff, -1, 0, -8});  // arithmetic
  const Value big = tile_int(DataType::INT16, {1, 4}, {16, 0, 0, 0});
  CHECK_THROWS_WITH_AS(run_incore("a: pl.Tile[[1, 4], pl.INT16], c: pl.Tile[[1, 4], pl.INT16]",
                                  "l = pl.tile.shl(a, c)\nreturn l", {a, big}),
                       doctest::Contains("a shift by 16 is out of range for INT16"),
                       rt::RuntimeError);
}

TEST_CASE("interpret ops: a tile compare packs one bit per column, and a select reads it back") {
  // 2 x 10: each row's mask is 2 bytes of bits, padded to 32 bytes.
  std::vector<float> x(20), y(20, 0.0f);
  for (int k = 0; k < 20; ++k) x[static_cast<std::size_t>(k)] = static_cast<float>(k % 3) - 1.0f;
  x[9] = kNaN;  // a NaN compares false, except with !=
  const Value a = tile_f32({2, 10}, x), b = tile_f32({2, 10}, y);
  const auto r = run_incore("a: pl.Tile[[2, 10], pl.FP32], b: pl.Tile[[2, 10], pl.FP32]",
                            "m = pl.tile.cmp(a, b, cmp_type=4)\n"
                            "n = pl.tile.cmp(a, b, cmp_type=1)\n"
                            "s = pl.tile.sel(m, a, b)\n"
                            "return m, n, s",
                            {a, b});
  REQUIRE(r.size() == 3);
  CHECK(r[0].dtype == DataType::UINT8);
  CHECK(r[0].buffer->shape == std::vector<std::int64_t>{2, 32});
  // Row 0 is -1 0 1 -1 0 1 -1 0 1 NaN: > 0 at columns 2, 5, 8.
  CHECK(r[0].buffer->ints[0] == 0b00100100);
  CHECK(r[0].buffer->ints[1] == 0b00000001);
  // != 0 at every column but 1, 4, 7 (NaN != 0 is true).
  CHECK(r[1].buffer->ints[0] == 0b01101101);
  CHECK(r[1].buffer->ints[1] == 0b00000011);
  // Row 1 is x[10..19] = 0 1 -1 0 1 -1 0 1 -1 0: > 0 at columns 1, 4, 7.
  CHECK(r[0].buffer->ints[32] == 0b10010010);
  CHECK(r[0].buffer->ints[33] == 0);
  for (std::size_t k = 2; k < 32; ++k) CHECK(r[0].buffer->ints[k] == 0);
  std::vector<float> want(20);
  for (std::size_t k = 0; k < 20; ++k) want[k] = x[k] > 0.0f ? x[k] : 0.0f;
  check_floats(r[2].buffer->f32, want);
}

TEST_CASE("interpret ops: reductions of every kind over rank-3 tensors, argmax picks the first") {
  // Two batches of 2 x 3.
  const Value x = Value::tensor_f32({2, 2, 3}, {1, 5, 5, -0.0f, 0.0f, -1,  //
                                                kNaN, 2, 3, 4, 4, kInf});
  const auto r = rt::run(*pypto::text::parse_program(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function
    def f(self, x: pl.Tensor[[2, 2, 3], pl.FP32]):
        s = pl.tensor.row_sum(x)
        m = pl.tensor.col_max(x)
        p = pl.tensor.row_prod(x)
        i = pl.tensor.row_argmax(x)
        j = pl.tensor.col_argmin(x)
        return s, m, p, i, j
)"),
                         "f", {x});
  REQUIRE(r.size() == 5);
  CHECK(r[0].buffer->shape == std::vector<std::int64_t>{2, 2, 1});
  check_floats(r[0].buffer->f32, {11, -1, kNaN, kInf});
  CHECK(r[1].buffer->shape == std::vector<std::int64_t>{2, 1, 3});
  // max is acc < x ? x : acc from the first: a NaN first stays, a NaN later is skipped.
  check_floats(r[1].buffer->f32, {1, 5, 5, kNaN, 4, kInf});
  check_floats(r[2].buffer->f32, {25, 0.0f, kNaN, kInf});
  CHECK(bits(r[2].buffer->f32[1]) == 0u);  // -0 * 0 * -1 = +0
  CHECK(r[3].dtype == DataType::INT32);
  // Ties give the first (-0 and 0 tie); a NaN is the maximum.
  CHECK(r[3].buffer->ints == std::vector<std::int64_t>{1, 0, 0, 2});
  // col argmin: batch 0 columns (1,-0) (5,0) (5,-1); batch 1 (NaN,4) (2,4) (3,inf).
  CHECK(r[4].buffer->ints == std::vector<std::int64_t>{1, 1, 1, 0, 0, 0});
}

TEST_CASE("interpret ops: col_sum with a scratch tile sums in the device's binary tree order") {
  // 5 rows: ((r0 + r1) + r4) + (r2 + r3); 6 rows: ((r0 + r1) + (r2 + r3)) + (r4 + r5). In
  // binary32 1e8 + 1 is 1e8, so the order shows: top to bottom the columns sum to 2 and 3.
  const Value x = tile_f32({5, 1}, {1, 1e8f, -1e8f, 1, 1});
  const Value y = tile_f32({6, 1}, {1e8f, 1, -1e8f, 1, 1, 1});
  const auto r = run_incore(
      "x: pl.Tile[[5, 1], pl.FP32], y: pl.Tile[[6, 1], pl.FP32], s: pl.Tile[[5, 1], pl.FP32], "
      "u: pl.Tile[[6, 1], pl.FP32]",
      "a = pl.tile.col_sum(x, s)\nb = pl.tile.col_sum(y, u)\nc = pl.tile.col_sum(x)\n"
      "d = pl.tile.col_sum(y)\nreturn a, b, c, d",
      {x, y, tile_f32({5, 1}, {0, 0, 0, 0, 0}), tile_f32({6, 1}, {0, 0, 0, 0, 0, 0})});
  REQUIRE(r.size() == 4);
  check_floats(r[0].buffer->f32, {0});
  check_floats(r[1].buffer->f32, {2});
  check_floats(r[2].buffer->f32, {2});
  check_floats(r[3].buffer->f32, {3});
}

TEST_CASE("interpret ops: expands, row / col expands, expdif and the three-operand adds round") {
  const Value t = tile_f32({2, 2}, {1, 2, 3, 4}, DataType::FP16);
  const Value row = tile_f32({2, 1}, {10, 20}, DataType::FP16);
  const Value col = tile_f32({1, 2}, {-1, -2}, DataType::FP16);
  const auto r = run_incore(
      "t: pl.Tile[[2, 2], pl.FP16], row: pl.Tile[[2, 1], pl.FP16], col: pl.Tile[[1, 2], pl.FP16], "
      "s: pl.Scalar[pl.FP16]",
      "e = pl.tile.expands(t, s)\n"
      "r = pl.tile.row_expand(t, row)\n"
      "c = pl.tile.col_expand(t, col)\n"
      "d = pl.tile.col_expand_expdif(t, col)\n"
      "return e, r, c, d",
      {t, row, col, Value::scalar_float(0.1f, DataType::FP16)});
  REQUIRE(r.size() == 4);
  const float tenth = rt::round_to_dtype(DataType::FP16, 0.1f);
  check_floats(r[0].buffer->f32, {tenth, tenth, tenth, tenth});
  check_floats(r[1].buffer->f32, {10, 10, 20, 20});
  check_floats(r[2].buffer->f32, {-1, -2, -1, -2});
  auto h = [](float v) { return rt::round_to_dtype(DataType::FP16, v); };
  check_floats(r[3].buffer->f32,
               {h(std::exp(2.0f)), h(std::exp(4.0f)), h(std::exp(4.0f)), h(std::exp(6.0f))});
  // FP16 2048 + 1 ties to 2048 (even); adding 1 again stays 2048, where one rounding of the
  // exact 2050 would give 2050: each step rounds.
  const Value big = tile_f32({1, 2}, {2048, 2048}, DataType::FP16);
  const Value one = tile_f32({1, 2}, {1, 3}, DataType::FP16);
  const auto s =
      run_incore("a: pl.Tile[[1, 2], pl.FP16], b: pl.Tile[[1, 2], pl.FP16]",
                 "c = pl.tile.addc(a, b, b)\nd = pl.tile.subc(a, b, b)\nreturn c, d", {big, one});
  check_floats(s[0].buffer->f32, {2048, 2056});  // 2048+3 = 2051 -> 2052; + 3 = 2055 -> 2056
  check_floats(s[1].buffer->f32, {2046, 2042});  // 2047 is exact below 2048 (spacing 1)
}

TEST_CASE("interpret ops: concat, extract, assemble and the triangle mask move elements") {
  const Value a = tile_f32({2, 2}, {1, 2, 3, 4});
  const Value b = tile_f32({2, 1}, {5, 6});
  const auto r =
      run_incore("a: pl.Tile[[2, 2], pl.FP32], b: pl.Tile[[2, 1], pl.FP32], i: pl.Scalar[pl.INDEX]",
                 "c = pl.tile.concat(a, b)\n"
                 "e = pl.tile.extract(c, 0, i, [2, 2])\n"
                 "s = pl.tile.assemble(a, b, [0, 1])\n"
                 "t = pl.tile.tri(i, [3, 3])\n"
                 "u = pl.tile.tri(0, [3, 3], upper=True)\n"
                 "return c, e, s, t, u",
                 {a, b, Value::scalar_int(1)});
  REQUIRE(r.size() == 5);
  check_floats(r[0].buffer->f32, {1, 2, 5, 3, 4, 6});
  check_floats(r[1].buffer->f32, {2, 5, 4, 6});
  check_floats(r[2].buffer->f32, {1, 5, 3, 6});
  CHECK(r[3].buffer->ints == std::vector<std::int64_t>{1, 1, 0, 1, 1, 1, 1, 1, 1});
  CHECK(r[4].buffer->ints == std::vector<std::int64_t>{1, 1, 1, 0, 1, 1, 0, 0, 1});
  CHECK_THROWS_WITH_AS(
      run_incore("a: pl.Tile[[2, 2], pl.FP32], i: pl.Scalar[pl.INDEX]",
                 "e = pl.tile.extract(a, i, 0, [2, 2])\nreturn e", {a, Value::scalar_int(1)}),
      doctest::Contains("out of bounds"), rt::RuntimeError);
}

TEST_CASE("interpret ops: fillpad sets what lies outside the valid shape, as the device pads") {
  const Value x = Value::tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Value xi = Value::tensor_int(DataType::INT32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const auto r = rt::run(*pypto::text::parse_program(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, x: pl.Tensor[[2, 3], pl.FP32], xi: pl.Tensor[[2, 3], pl.INT32], n: pl.Scalar[pl.INDEX]):
        t = pl.load(x, [0, 0], [2, 3], valid_shape=[1, n])
        lo = pl.tile.fillpad(t, pad_value=pl.PadValue.min)
        wide = pl.tile.fillpad_expand(t, [2, 4], pad_value=pl.PadValue.max)
        v = pl.tile.set_validshape(pl.load(xi, [0, 0], [2, 3]), 2, n)
        hi = pl.tile.fillpad(v, pad_value=pl.PadValue.max)
        return t, lo, wide, hi
)"),
                         "f", {x, xi, Value::scalar_int(2)});
  REQUIRE(r.size() == 4);
  check_floats(r[0].buffer->f32, {1, 2, 0, 0, 0, 0});  // a load zero-fills
  check_floats(r[1].buffer->f32, {1, 2, -kInf, -kInf, -kInf, -kInf});
  check_floats(r[2].buffer->f32, {1, 2, kInf, kInf, kInf, kInf, kInf, kInf});
  CHECK(r[3].buffer->ints == std::vector<std::int64_t>{1, 2, 2147483647, 4, 5, 2147483647});
}

TEST_CASE("interpret ops: matmul with a bias and gemv, whose result is a 16-row fractal") {
  const Value a = tile_f32({1, 2}, {1, 2}, DataType::BF16);
  const Value b = tile_f32({2, 2}, {3, 4, 5, 6}, DataType::BF16);
  const Value bias = tile_f32({1, 2}, {0.5f, -0.5f});
  const auto r = run_incore(
      "a: pl.Tile[[1, 2], pl.BF16], b: pl.Tile[[2, 2], pl.BF16, pl.Mem.Right], "
      "bias: pl.Tile[[1, 2], pl.FP32]",
      "m = pl.tile.matmul_bias(a, b, bias)\n"
      "g = pl.tile.gemv(a, b)\n"
      "return m, g",
      {a, b, bias});
  REQUIRE(r.size() == 2);
  check_floats(r[0].buffer->f32, {13.5f, 15.5f});
  CHECK(r[1].buffer->shape == std::vector<std::int64_t>{16, 2});
  std::vector<float> want(32, 0.0f);
  want[0] = 13;
  want[1] = 16;
  check_floats(r[1].buffer->f32, want);
}

TEST_CASE("interpret ops: task ids and the block count have a single-process meaning") {
  const auto r = rt::run(*pypto::text::parse_program(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function
    def f(self, t: pl.Scalar[pl.TASK_ID]):
        bad = pl.system.task_invalid()
        ok = pl.system.task_is_valid(t)
        no = pl.system.task_is_valid(bad)
        n = pl.tile.get_block_num()
        return ok, no, n
)"),
                         "f", {Value::scalar_int(3, DataType::TASK_ID)});
  REQUIRE(r.size() == 3);
  CHECK(r[0].i == 1);
  CHECK(r[1].i == 0);
  CHECK(r[2].i == 1);  // outside a dispatch: one block
}

TEST_CASE("interpret ops: sort32 orders NaN first and ties by index, merges keep the earlier run") {
  const float nan = kNaN;
  const Value a = tile_f32({1, 8}, {1, nan, -0.0f, 2, 0.0f, 2, -kInf, 1});
  const Value i = tile_int(DataType::UINT32, {1, 8}, {10, 11, 12, 13, 14, 15, 16, 9});
  const auto r =
      run_incore("a: pl.Tile[[1, 8], pl.FP32], i: pl.Tile[[1, 8], pl.UINT32]",
                 "s = pl.tile.sort32(a, i)\n"
                 "k = pl.tile.gather_mask(s, mask_pattern=2, output_dtype=pl.UINT32)\n"
                 "v = pl.tile.gather_mask(s, mask_pattern=1)\n"
                 "l0 = pl.tile.extract(a, 0, 4, [1, 4])\n"
                 "l1 = pl.tile.extract(a, 0, 0, [1, 4])\n"
                 "w = pl.tile.mrgsort_format2(l0, l1, pl.tile.create([1, 8], dtype=pl.FP32))\n"
                 "return k, v, w",
                 {a, i});
  REQUIRE(r.size() == 3);
  // 2 (13) before 2 (15), 1 (9) before 1 (10), -0 (12) before +0 (14): equal values by index.
  CHECK(r[0].buffer->ints == std::vector<std::int64_t>{11, 13, 15, 9, 10, 12, 14, 16});
  CHECK(r[0].buffer->dtype == DataType::UINT32);
  check_floats(r[1].buffer->f32, {nan, 2, 2, 1, 1, -0.0f, 0.0f, -kInf});
  // lists (+0, 2) (-inf, 1) and (1, NaN) (-0, 2): +0 == -0, the first list's first
  check_floats(r[2].buffer->f32, {1, nan, 0.0f, 2, -0.0f, 2, -kInf, 1});

  // Four runs k of 32 pairs j (block_len 64): value 128 - 4j, payload 100k + j, except run 3's
  // first value (NaN) and every run's last (-0, +0, -0, +0). Equal heads leave in run order.
  std::vector<float> runs(256);
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 32; ++j) {
      runs[static_cast<std::size_t>(64 * k + 2 * j)] = static_cast<float>(128 - 4 * j);
      runs[static_cast<std::size_t>(64 * k + 2 * j + 1)] = static_cast<float>(100 * k + j);
    }
  runs[3 * 64] = nan;
  for (int k = 0; k < 4; ++k) runs[static_cast<std::size_t>(64 * k + 62)] = k % 2 ? 0.0f : -0.0f;
  const auto m =
      run_incore("a: pl.Tile[[1, 256], pl.FP32]", "m = pl.tile.mrgsort_format1(a, 64)\nreturn m",
                 {tile_f32({1, 256}, runs)});
  REQUIRE(m.size() == 1);
  std::vector<float> want = {nan, 300, 128, 0, 128, 100, 128, 200};
  for (int j = 1; j < 31; ++j)
    for (int k = 0; k < 4; ++k) {
      want.push_back(static_cast<float>(128 - 4 * j));
      want.push_back(static_cast<float>(100 * k + j));
    }
  for (int k = 0; k < 4; ++k) {
    want.push_back(k % 2 ? 0.0f : -0.0f);
    want.push_back(static_cast<float>(100 * k + 31));
  }
  check_floats(m[0].buffer->f32, want);
}

TEST_CASE("interpret ops: gathers by flat index, by mask pattern and along a tensor dimension") {
  const Value a = tile_f32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7});
  const Value idx = tile_int(DataType::INT32, {1, 3}, {7, 0, 4});
  const Value tmp = tile_int(DataType::INT32, {1, 3}, {0, 0, 0});
  const auto r = run_incore(
      "a: pl.Tile[[2, 4], pl.FP32], i: pl.Tile[[1, 3], pl.INT32], t: pl.Tile[[1, 3], pl.INT32]",
      "g = pl.tile.gather(a, i, t)\n"
      "p3 = pl.tile.gather_mask(a, mask_pattern=3)\n"
      "p6 = pl.tile.gather_mask(a, mask_pattern=6)\n"
      "p7 = pl.tile.gather_mask(a, mask_pattern=7, output_dtype=pl.INT32)\n"
      "return g, p3, p6, p7",
      {a, idx, tmp});
  REQUIRE(r.size() == 4);
  check_floats(r[0].buffer->f32, {7, 0, 4});
  check_floats(r[1].buffer->f32, {0, 4});  // column 0 of each row
  check_floats(r[2].buffer->f32, {3, 7});  // column 3
  CHECK(r[3].buffer->ints[1] == static_cast<std::int64_t>(bits(1.0f)));
  CHECK(r[3].buffer->ints[6] == static_cast<std::int64_t>(bits(6.0f)));

  const Value bad = tile_int(DataType::INT32, {1, 3}, {7, 8, 0});
  CHECK_THROWS_WITH_AS(
      run_incore("a: pl.Tile[[2, 4], pl.FP32], i: pl.Tile[[1, 3], pl.INT32], "
                 "t: pl.Tile[[1, 3], pl.INT32]",
                 "g = pl.tile.gather(a, i, t)\nreturn g", {a, bad, tmp}),
      doctest::Contains("op 'tile.gather' index 8 is out of bounds of its elements (8)"),
      rt::RuntimeError);
  CHECK_THROWS_WITH_AS(
      run_incore("a: pl.Tile[[2, 4], pl.FP32]", "m = pl.tile.mrgsort_format1(a, 3)\nreturn m", {a}),
      doctest::Contains("positive multiple of 64"), pypto::core::Error);
  CHECK_THROWS_WITH_AS(run_incore("a: pl.Tile[[1, 4], pl.FP16], i: pl.Tile[[1, 4], pl.UINT32]",
                                  "s = pl.tile.sort32(a, i)\nreturn s",
                                  {tile_f32({1, 4}, {1, 2, 3, 4}, DataType::FP16),
                                   tile_int(DataType::UINT32, {1, 4}, {0, 1, 2, 3})}),
                       doctest::Contains("is implemented for FP32 values only"), rt::RuntimeError);

  // torch.gather: out[r][c] = x[index[r][c]][c] along dim 0
  const auto t = rt::run(*pypto::text::parse_program(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function
    def f(self, x: pl.Tensor[[2, 3], pl.INT32], i: pl.Tensor[[1, 3], pl.INT32]):
        g = pl.tensor.gather(x, dim=0, index=i)
        return g
)"),
                         "f",
                         {Value::tensor_int(DataType::INT32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                          Value::tensor_int(DataType::INT32, {1, 3}, {1, 0, 1})});
  REQUIRE(t.size() == 1);
  CHECK(t[0].buffer->ints == std::vector<std::int64_t>{4, 2, 6});
}

TEST_CASE(
    "interpret ops: scatters write by flat index, by mask pattern and by row, the last wins") {
  const auto r = run_incore(
      "d: pl.Tile[[2, 3], pl.FP32], a: pl.Tile[[1, 3], pl.FP32], i: pl.Tile[[1, 3], pl.INT32], "
      "m: pl.Tile[[1, 4], pl.FP32], b: pl.Tile[[1, 2], pl.FP32], "
      "u: pl.Tile[[3, 2], pl.FP32], j: pl.Tile[[1, 2], pl.INT32], s: pl.Tile[[2, 2], pl.FP32]",
      "d2 = pl.tile.scatter(d, a, i)\n"
      "m2 = pl.tile.scatter_mask(m, b, mask_pattern=2)\n"
      "u2 = pl.tile.scatter_update(u, -2, j, s)\n"
      "return d2, m2, u2",
      {tile_f32({2, 3}, {9, 9, 9, 9, 9, 9}), tile_f32({1, 3}, {1, 2, 3}),
       tile_int(DataType::INT32, {1, 3}, {5, 0, 5}), tile_f32({1, 4}, {9, 9, 9, 9}),
       tile_f32({1, 2}, {1, 2}), tile_f32({3, 2}, {0, 1, 2, 3, 4, 5}),
       tile_int(DataType::INT32, {1, 2}, {2, 2}), tile_f32({2, 2}, {10, 11, 12, 13})});
  REQUIRE(r.size() == 3);
  check_floats(r[0].buffer->f32, {2, 9, 9, 9, 9, 3});  // index 5 twice: the later 3
  check_floats(r[1].buffer->f32, {0, 1, 0, 2});        // odd columns; the others zero
  check_floats(r[2].buffer->f32, {0, 1, 2, 3, 12, 13});

  const auto t = rt::run(*pypto::text::parse_program(R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function
    def f(self, x: pl.Tensor[[2, 3], pl.INT32], i: pl.Tensor[[2, 2], pl.INT32], y: pl.Tensor[[2, 2], pl.INT32], b: pl.Tensor[[1, 2], pl.INT32], d: pl.Tensor[[1, 4], pl.INT32]):
        s = pl.tensor.scatter(x, -1, i, y)
        m = pl.tensor.scatter_mask(b, d, mask_pattern=2)
        return s, m
)"),
                         "f",
                         {Value::tensor_int(DataType::INT32, {2, 3}, {0, 0, 0, 0, 0, 0}),
                          Value::tensor_int(DataType::INT32, {2, 2}, {2, 2, 0, 1}),
                          Value::tensor_int(DataType::INT32, {2, 2}, {1, 2, 3, 4}),
                          Value::tensor_int(DataType::INT32, {1, 2}, {1, 2}),
                          Value::tensor_int(DataType::INT32, {1, 4}, {9, 9, 9, 9})});
  REQUIRE(t.size() == 2);
  CHECK(t[0].buffer->ints == std::vector<std::int64_t>{0, 0, 2, 3, 4, 0});
  CHECK(t[1].buffer->ints == std::vector<std::int64_t>{9, 1, 9, 2});  // the rest kept

  CHECK_THROWS_WITH_AS(
      run_incore("d: pl.Tile[[2, 3], pl.FP32], a: pl.Tile[[1, 3], pl.FP32], "
                 "i: pl.Tile[[1, 3], pl.INT32]",
                 "d2 = pl.tile.scatter(d, a, i)\nreturn d2",
                 {tile_f32({2, 3}, {0, 0, 0, 0, 0, 0}), tile_f32({1, 3}, {1, 2, 3}),
                  tile_int(DataType::INT32, {1, 3}, {0, 6, 1})}),
      doctest::Contains("index 6 is out of bounds of its elements (6)"), rt::RuntimeError);
}

TEST_CASE("interpret ops: mgather reads rows of a tensor, out-of-range indices by gather_oob") {
  auto gather = [](std::string_view kwargs) {
    const std::string text = R"(
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, x: pl.Tensor[[3, 2], pl.FP32], i: pl.Tile[[1, 3], pl.INT32]):
        g = pl.tile.mgather(x, i)" +
                             std::string(kwargs) + R"()
        return g
)";
    return rt::run(*pypto::text::parse_program(text), "f",
                   {Value::tensor_f32({3, 2}, {0, 1, 2, 3, 4, 5}),
                    tile_int(DataType::INT32, {1, 3}, {-1, 3, 1})});
  };
  // -1 reads as 2^32 - 1: clamped to row 2, wrapped to (2^32 - 1) % 3 = 0
  check_floats(gather(", gather_oob=1")[0].buffer->f32, {4, 5, 4, 5, 2, 3});
  check_floats(gather(", gather_oob=2")[0].buffer->f32, {0, 1, 0, 1, 2, 3});
  check_floats(gather(", gather_oob=3")[0].buffer->f32, {0, 0, 0, 0, 2, 3});
  CHECK_THROWS_WITH_AS(gather(""), doctest::Contains("index -1 is out of bounds of its rows (3)"),
                       rt::RuntimeError);
}

TEST_CASE("interpret ops: random is Philox4x32-10, four words per counter along a row") {
  const auto r = run_incore("k: pl.Scalar[pl.INT32]",
                            "u = pl.tile.random(k, k, k, k, k, k, [2, 4], dtype=pl.UINT32)\n"
                            "s = pl.tile.random(k, k, k, k, k, k, [2, 4], dtype=pl.INT32)\n"
                            "return u, s",
                            {Value::scalar_int(0, DataType::INT32)});
  REQUIRE(r.size() == 2);
  // Random123's known answer for key 0, counter 0, ten rounds
  const std::vector<std::int64_t> words = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
  CHECK(std::vector<std::int64_t>(r[0].buffer->ints.begin(), r[0].buffer->ints.begin() + 4) ==
        words);
  CHECK(r[1].buffer->ints[3] == static_cast<std::int32_t>(0x9b00dbd8u));
  CHECK(r[0].buffer->ints[4] != r[0].buffer->ints[0]);  // row 1: the counter moved on
}
