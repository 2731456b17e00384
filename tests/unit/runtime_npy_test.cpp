// NumPy .npy array files as runtime values (runtime/npy.hpp): the bytes NumPy writes, exact
// reading of every dtype with a NumPy form, a typed error for each malformed or unfitting file,
// and seeded_inputs taking given values (what `pypto-opt --run --input` feeds a program).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "pypto/runtime/interpreter.hpp"
#include "pypto/runtime/npy.hpp"
#include "pypto/runtime/seeded_inputs.hpp"
#include "pypto/text/parser.hpp"
#include "test_rng.hpp"

namespace rt = pypto::runtime;
using pypto::core::DataType;

namespace {

/// NumPy's header for `dict`: magic, version 1.0, length, the dictionary padded with spaces and
/// a newline to 128 bytes (every header below is that short).
std::string numpy_header(const std::string& dict) {
  std::string h = dict + std::string(117 - dict.size(), ' ') + "\n";
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(h.size()) + '\0' + h;
}

rt::Value tensor(DataType t, std::vector<std::int64_t> shape, std::vector<std::int64_t> ints) {
  rt::Value v = rt::Value::zeros(t, std::move(shape));
  v.buffer->ints = std::move(ints);
  return v;
}

rt::Value floats(DataType t, std::vector<std::int64_t> shape, std::vector<float> f) {
  rt::Value v = rt::Value::zeros(t, std::move(shape));
  v.buffer->f32 = std::move(f);
  return v;
}

std::string read_error(const std::string& bytes, DataType t) {
  try {
    rt::read_npy(bytes, t, false, "x.npy");
  } catch (const rt::RuntimeError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("npy: a tensor is written as NumPy writes it: header, padding, little-endian elements") {
  // np.save(f, np.array([[1, -2], [3, 4]], dtype=np.int32)), byte for byte.
  const std::string int32 =
      numpy_header("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }") +
      std::string("\x01\0\0\0\xfe\xff\xff\xff\x03\0\0\0\x04\0\0\0", 16);
  CHECK(rt::write_npy(tensor(DataType::INT32, {2, 2}, {1, -2, 3, 4})) == int32);
  // A 1-d shape keeps Python's trailing comma; BOOL is |b1; a scalar is a 0-d array.
  CHECK(rt::write_npy(tensor(DataType::BOOL, {2}, {1, 0})) ==
        numpy_header("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }") +
            std::string("\x01\x00", 2));
  CHECK(rt::write_npy(rt::Value::scalar_float(2.5f, DataType::FP16)) ==
        numpy_header("{'descr': '<f2', 'fortran_order': False, 'shape': (), }") +
            std::string("\x00\x41", 2));
}

TEST_CASE("npy: every dtype with a NumPy form reads back bit for bit") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<rt::Value> values = {
      tensor(DataType::INT8, {3}, {-128, 0, 127}),
      tensor(DataType::INT16, {2}, {-32768, 32767}),
      tensor(DataType::INT64, {2}, {std::numeric_limits<std::int64_t>::min(), 7}),
      tensor(DataType::INDEX, {1}, {-1}),
      tensor(DataType::UINT8, {2}, {0, 255}),
      tensor(DataType::UINT32, {1}, {4294967295}),
      tensor(DataType::UINT64, {1}, {-1}),  // the bits of 2^64 - 1
      floats(DataType::FP32, {2, 2}, {-0.0f, inf, 1e-45f, 3.25f}),
      floats(DataType::FP16, {3}, {65504.0f, -0.0f, 5.960464477539063e-08f}),
      floats(DataType::BF16, {2}, {-inf, 1.0078125f}),
      rt::Value::scalar_int(-5, DataType::INT32),
      rt::Value::scalar_bool(true),
  };
  for (const rt::Value& v : values) {
    CAPTURE(pypto::core::dtype_name(v.dtype));
    const rt::Value back = rt::read_npy(rt::write_npy(v), v.dtype, false, "x.npy");
    CHECK(rt::bit_identical(back, v));
  }
  // A NaN keeps its sign: FP32 bit for bit, FP16 through its 16-bit pattern.
  const rt::Value nans = floats(DataType::FP32, {1}, {-nan});
  CHECK(std::signbit(
      rt::read_npy(rt::write_npy(nans), DataType::FP32, false, "x.npy").buffer->f32[0]));
  // A tile parameter reads a tile.
  CHECK(rt::read_npy(rt::write_npy(nans), DataType::FP32, true, "x.npy").kind ==
        rt::ValueKind::Tile);
}

TEST_CASE("npy: the 16-bit floats read exact float32 values and uint16 bit patterns") {
  // BF16 is written as float32 (NumPy has no bfloat16) and reads back from it.
  const std::string bf16 = rt::write_npy(floats(DataType::BF16, {2}, {1.5f, -2.0f}));
  CHECK(bf16.find("'<f4'") != std::string::npos);
  // uint16 patterns: 0x3fc0 is BF16 1.5, FP16 1.9375.
  const std::string bits =
      numpy_header("{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }") +
      std::string("\xc0\x3f", 2);
  CHECK(rt::read_npy(bits, DataType::BF16, false, "x.npy").buffer->f32[0] == 1.5f);
  CHECK(rt::read_npy(bits, DataType::FP16, false, "x.npy").buffer->f32[0] == 1.9375f);
  // A float32 that is not a BF16 value is refused at its index, not rounded.
  const std::string inexact = rt::write_npy(floats(DataType::FP32, {2, 2}, {1, 2, 3, 1.001f}));
  CHECK(read_error(inexact, DataType::BF16) ==
        "array file 'x.npy': element [1, 1] (1.001000) is not a BF16 value");
}

TEST_CASE("npy: the MX floats read exact float32 values and uint8 codes") {
  // 0x3c is E4M3FN 1.5 (exponent 7, mantissa 4 of 8), E5M2 1.0, E8M0 2^-67; 0x7 is FP4's 6.
  const std::string codes =
      numpy_header("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }") +
      std::string("<", 2);
  const auto read = [&](const std::string& bytes, DataType t) {
    return rt::read_npy(bytes, t, false, "x.npy").buffer->f32;
  };
  CHECK(read(codes, DataType::FP8E4M3FN) == std::vector<float>{1.5f, 0.013671875f});
  CHECK(read(codes, DataType::FP8E5M2) == std::vector<float>{1.0f, 0.0001068115234375f});
  CHECK(read(codes, DataType::FP8E8M0)[0] == std::ldexp(1.0f, -67));
  CHECK(read(codes, DataType::FP4)[1] == 6.0f);
  // Float32 values of the dtype are taken; others are refused at their index.
  const std::string exact = rt::write_npy(floats(DataType::FP32, {3}, {448.0f, -0.5f, 0.25f}));
  CHECK(read(exact, DataType::FP8E4M3FN) == std::vector<float>{448.0f, -0.5f, 0.25f});
  CHECK(read_error(exact, DataType::FP4) ==
        "array file 'x.npy': element [0] (448.000000) is not a FP4 value");
}

TEST_CASE("npy: headers as other writers spell them are read") {
  // Version 2.0 (a 4-byte length), double quotes, another key order, no trailing comma.
  const std::string dict = "{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"<i2\"}\n";
  std::string v2 = std::string("\x93NUMPY\x02\x00", 8);
  v2 += static_cast<char>(dict.size());
  v2.append(3, '\0');
  v2.append(dict);
  v2.append("\x01\x00\x02\x00\xff\xff", 6);
  const rt::Value v = rt::read_npy(v2, DataType::INT16, false, "x.npy");
  CHECK(v.buffer->shape == std::vector<std::int64_t>{3});
  CHECK(v.buffer->ints == std::vector<std::int64_t>{1, 2, -1});
  // A Fortran-order flag on a 1-d array changes nothing.
  const std::string fortran_1d =
      numpy_header("{'descr': '|u1', 'fortran_order': True, 'shape': (2,), }") + "\x07\x08";
  CHECK(rt::read_npy(fortran_1d, DataType::UINT8, false, "x.npy").buffer->ints ==
        std::vector<std::int64_t>{7, 8});
}

TEST_CASE("npy: a file that is not an array of the parameter's dtype is a typed error") {
  const std::string ok_dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  const std::string elements("\x01\0\0\0\x02\0\0\0", 8);
  CHECK(read_error("PK\x03\x04 a zip file", DataType::INT32) ==
        "array file 'x.npy': not a .npy file (no \\x93NUMPY magic)");
  CHECK(read_error(std::string("\x93NUMPY\x07\x00\x00\x00", 10), DataType::INT32) ==
        "array file 'x.npy': format version 7 is unknown");
  CHECK(read_error(numpy_header(ok_dict).substr(0, 60), DataType::INT32) ==
        "array file 'x.npy': truncated header");
  CHECK(read_error(numpy_header(ok_dict) + elements, DataType::INT64) ==
        "array file 'x.npy': dtype '<i4' does not hold INT64 elements (expected '<i8')");
  CHECK(read_error(numpy_header(ok_dict) + elements, DataType::FP8E4M3FN) ==
        "array file 'x.npy': dtype '<i4' does not hold FP8E4M3FN elements (expected '<f4')");
  CHECK(read_error(numpy_header(ok_dict) + elements, DataType::HF8) ==
        "array file 'x.npy': dtype '<i4' does not hold HF8 elements");
  CHECK(read_error(
            numpy_header("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }") + elements,
            DataType::INT32) ==
        "array file 'x.npy': dtype '>i4' is big-endian; write it little-endian ('<')");
  CHECK(read_error(
            numpy_header("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }") + elements,
            DataType::INT32) ==
        "array file 'x.npy': dtype '<c8' is not a bool, integer or float type of 1, 2, 4 or 8 "
        "bytes");
  CHECK(read_error(numpy_header("{'descr': '<f99999999999999999999', 'fortran_order': False, "
                                "'shape': (1,), }"),
                   DataType::FP32) ==
        "array file 'x.npy': dtype '<f99999999999999999999' is not a bool, integer or float type "
        "of 1, 2, 4 or 8 bytes");
  CHECK(read_error(
            numpy_header("{'descr': '<i4', 'fortran_order': True, 'shape': (1, 2), }") + elements,
            DataType::INT32) ==
        "array file 'x.npy': the array is in Fortran order; write it C-contiguous "
        "(numpy.ascontiguousarray)");
  CHECK(read_error(numpy_header(ok_dict) + elements.substr(0, 6), DataType::INT32) ==
        "array file 'x.npy': holds 6 bytes of elements, its shape [2] of '<i4' needs 8");
  CHECK(read_error(numpy_header(ok_dict) + elements + "x", DataType::INT32) ==
        "array file 'x.npy': holds 9 bytes of elements, its shape [2] of '<i4' needs 8");
  CHECK(read_error(
            numpy_header("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }") + "\x01\x02",
            DataType::BOOL) == "array file 'x.npy': element [1] is the byte 2, not a bool");
  // The header's dictionary: the column of what is wrong.
  CHECK(read_error(numpy_header("{'descr': '<i4', 'order': False, 'shape': (2,), }"),
                   DataType::INT32) == "array file 'x.npy': header column 18: unknown key 'order'");
  CHECK(read_error(numpy_header("{'descr': '<i4', 'shape': (2,), }"), DataType::INT32) ==
        "array file 'x.npy': header column 119: no key 'fortran_order'");
  CHECK(read_error(numpy_header("{'descr': '<i4', 'fortran_order': 0, 'shape': (2,), }"),
                   DataType::INT32) ==
        "array file 'x.npy': header column 35: expected True or False");
  CHECK(read_error(numpy_header("{'descr': '<i4', 'fortran_order': False, 'shape': (-2,), }"),
                   DataType::INT32) ==
        "array file 'x.npy': header column 52: expected a nonnegative dimension");
  CHECK_THROWS_WITH_AS(rt::write_npy(rt::Value::zeros(DataType::INT4, {2})),
                       "write_npy: no NumPy dtype holds INT4 elements exactly", rt::RuntimeError);
}

TEST_CASE("npy: a corrupted file is a value or a RuntimeError, never anything else") {
  const std::string valid = rt::write_npy(floats(DataType::FP32, {2, 3}, {1, 2, 3, 4, 5, 6}));
  pypto::test::SplitMix64 rng(5);
  for (int round = 0; round < 4000; ++round) {
    std::string bytes = valid;
    const int edits = static_cast<int>(rng.range(1, 4));
    for (int e = 0; e < edits && !bytes.empty(); ++e) {
      const auto at = rng.below<std::size_t>(bytes.size());
      switch (rng.below<int>(3)) {
        case 0: bytes[at] = static_cast<char>(rng.below<int>(256)); break;
        case 1: bytes.erase(at, 1); break;
        default: bytes.resize(at); break;
      }
    }
    for (DataType t : {DataType::FP32, DataType::BF16, DataType::INT32, DataType::BOOL}) {
      try {
        rt::read_npy(bytes, t, false, "x.npy");
      } catch (const rt::RuntimeError&) {
      }
    }
  }
}

TEST_CASE("seeded inputs: given values are taken as they are and bind the shape symbols") {
  const auto program = pypto::text::parse_program(R"(import pypto.language as pl

M = pl.dynamic('M')

@pl.program
class Given:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, 4], pl.FP32], b: pl.Tensor[[M, n], pl.INT32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[M, 4], pl.FP32]:
        return a
)");
  const pypto::ir::Function& main = *program->find("main");
  const rt::Value a = floats(DataType::FP32, {3, 4}, std::vector<float>(12, 0.5f));
  const auto args = rt::seeded_inputs(main, 1, {}, {}, {{"a", a}, {"n", rt::Value::scalar_int(2)}});
  CHECK(rt::bit_identical(args[0], a));
  // b is drawn, with M = 3 from a and n = 2 as given.
  CHECK(args[1].buffer->shape == std::vector<std::int64_t>{3, 2});
  CHECK(args[2].i == 2);
  // A given value must be of the parameter's type.
  CHECK_THROWS_WITH_AS(
      rt::seeded_inputs(main, 1, {}, {}, {{"a", floats(DataType::FP32, {3, 5}, {})}}),
      "the value given for parameter 'a' of main has shape [3, 5], its type says 4 at dimension 1",
      rt::RuntimeError);
  CHECK_THROWS_WITH_AS(
      rt::seeded_inputs(main, 1, {}, {}, {{"a", tensor(DataType::INT32, {3, 4}, {})}}),
      "the value given for parameter 'a' of main is not a FP32 array of 2 dimensions",
      rt::RuntimeError);
  CHECK_THROWS_WITH_AS(rt::seeded_inputs(main, 1, {}, {}, {{"n", rt::Value::scalar_float(2.0f)}}),
                       "the value given for parameter 'n' of main is not a Scalar[INDEX]",
                       rt::RuntimeError);
}
