// Tests of pypto/kernel/serialize.hpp: exact bytes of small specs (with and without a matmul
// segment), round trips of samples and random specs, version 1 streams, and each corruption
// rejected with its byte offset.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel_random.hpp"
#include "kernel_samples.hpp"
#include "pypto/kernel/serialize.hpp"

namespace k = pypto::kernel;
namespace tk = pypto::test::kernel;
using k::Op;

namespace {

std::string read_error(const std::vector<std::uint8_t>& bytes) {
  try {
    k::read_specs(bytes);
  } catch (const k::FormatError& e) {
    return e.what();
  }
  return "";
}

k::Spec tiny() {
  k::Spec s;
  s.views = {{k::ViewKind::RowMod, 0x01020304u}};
  s.consts = {k::float_bits(-0.0f)};
  s.runtime_scalars = {0x7fc00123u};
  s.num_regs = 1;
  s.instrs = {k::binary(Op::Add, 0, k::input(0), k::constant(0))};
  return s;
}

/// Mov of the matmul result: A (transposed) in input 0, B in input 1.
k::Spec tiny_matmul() {
  k::Spec s;
  s.views = {{}, {}};
  s.num_regs = 1;
  s.matmul = k::Matmul{0, 1, true, false, 0x01020304u, 5};
  s.instrs = {k::unary(Op::Mov, 0, k::matmul_result())};
  return s;
}

}  // namespace

TEST_CASE("kernel serialize: the byte layout is little-endian and field by field") {
  const std::vector<k::Spec> specs = {tiny()};
  const std::vector<std::uint8_t> expected = {
      'P', 'P',  'K',  'X',  2,    0, 0, 0, 1, 0, 0, 0,  // magic, version, count
      1,                                                 // num_regs
      1,   8,    0,    2,    0,    3, 0, 0, 0,           // one instr: Add r0 = Input 0, Const 0
      1,   3,    4,    3,    2,    1,                    // one view: RowMod, param
      1,   0,    0,    0,    0x80,                       // consts: -0.0
      1,   0x23, 0x01, 0xc0, 0x7f,                       // runtime scalars: NaN payload
      0};                                                // no matmul
  CHECK(k::write_specs(specs) == expected);
  CHECK(k::read_specs(expected) == specs);
}

TEST_CASE("kernel serialize: the matmul segment's bytes") {
  const std::vector<k::Spec> specs = {tiny_matmul()};
  const std::vector<std::uint8_t> expected = {
      'P', 'P', 'K', 'X', 2, 0, 0, 0, 1, 0, 0, 0,  // magic, version, count
      1,                                           // num_regs
      1,   0,   0,   7,   0, 0, 0, 0, 0,           // one instr: Mov r0 = MatmulResult 0
      2,   0,   0,   0,   0, 0,                    // two Linear views
      0,   0,   0,   0,   0,                       //
      0,                                           // no consts
      0,                                           // no runtime scalars
      1,   0,   1,   1,                            // matmul: A = input 0, B = input 1, trans_a
      4,   3,   2,   1,                            // k
      5,   0,   0,   0};                           // batch
  CHECK(k::write_specs(specs) == expected);
  CHECK(k::read_specs(expected) == specs);
  k::Spec both = tiny_matmul();
  both.matmul->trans_a = false;
  both.matmul->trans_b = true;
  both.matmul->b_input = 0;
  CHECK(k::write_specs(std::vector<k::Spec>{both})[38] == 2);
  CHECK(k::read_specs(k::write_specs(std::vector<k::Spec>{both})) == std::vector<k::Spec>{both});
}

TEST_CASE("kernel serialize: a corrupted matmul segment is rejected with the byte offset") {
  const std::vector<std::uint8_t> good = k::write_specs(std::vector<k::Spec>{tiny_matmul()});
  REQUIRE(good.size() == 47);
  auto with = [&](std::size_t at, std::uint8_t value) {
    auto b = good;
    b[at] = value;
    return read_error(b);
  };
  CHECK(with(35, 2) == "PPKX byte offset 35: invalid matmul presence byte 2 (0 or 1)");
  CHECK(with(38, 4) ==
        "PPKX byte offset 38: invalid matmul transpose bits 4 (bit 0 trans_a, bit 1 trans_b)");
  CHECK(with(36, 2) ==
        "PPKX byte offset 12: spec 0 is invalid: matmul.a_input: input 2 is out of range (2 "
        "available)");
  CHECK(with(37, 9) ==
        "PPKX byte offset 12: spec 0 is invalid: matmul.b_input: input 9 is out of range (2 "
        "available)");
  CHECK(with(16, 8) == "PPKX byte offset 16: invalid operand kind 8");
  auto zero_k = good;
  std::fill(zero_k.begin() + 39, zero_k.begin() + 43, std::uint8_t{0});
  CHECK(read_error(zero_k) ==
        "PPKX byte offset 12: spec 0 is invalid: matmul.k: the summation length must be >= 1");
  auto zero_batch = good;
  std::fill(zero_batch.begin() + 43, zero_batch.end(), std::uint8_t{0});
  CHECK(read_error(zero_batch) ==
        "PPKX byte offset 12: spec 0 is invalid: matmul.batch: the number of stacked matrices "
        "must be >= 1");
  // Presence 0 leaves the matmul bytes behind as trailing bytes, and the Mov reads a matmul
  // the spec no longer has.
  CHECK(with(35, 0) ==
        "PPKX byte offset 12: spec 0 is invalid: instrs[0].a: MatmulResult, but the spec has no "
        "matmul segment");
  CHECK(read_error(good) == "");
  for (std::size_t n = 0; n < good.size(); ++n) {
    const std::vector<std::uint8_t> cut(good.begin(), good.begin() + static_cast<long>(n));
    const std::string want = n < 35 ? "truncated: " : "truncated: matmul ";
    CHECK_MESSAGE(read_error(cut).find(want) != std::string::npos, "cut at ", n);
  }
}

TEST_CASE("kernel serialize: version 1 streams (no matmul byte) are still read") {
  std::vector<std::uint8_t> v1 = k::write_specs(std::vector<k::Spec>{tiny()});
  v1[4] = 1;
  REQUIRE(v1.back() == 0);
  v1.pop_back();  // version 1 has no matmul presence byte
  CHECK(k::read_specs(v1) == std::vector<k::Spec>{tiny()});
  v1.push_back(0);
  CHECK(read_error(v1) == "PPKX byte offset 38: 1 trailing byte(s) after 1 spec(s)");
}

TEST_CASE("kernel serialize: samples and 2000 random specs round trip exactly") {
  std::vector<k::Spec> specs = tk::samples();
  CHECK(k::read_specs(k::write_specs(specs)) == specs);
  for (std::uint64_t seed = 0; seed < 2000; ++seed) specs.push_back(tk::random_spec(seed));
  const auto bytes = k::write_specs(specs);
  CHECK(k::read_specs(bytes) == specs);
  CHECK(k::read_specs(k::write_specs(std::vector<k::Spec>{})).empty());
}

TEST_CASE("kernel serialize: corrupted input is rejected with the byte offset") {
  const std::vector<std::uint8_t> good = k::write_specs(std::vector<k::Spec>{tiny()});
  auto with = [&](std::size_t at, std::uint8_t value) {
    auto b = good;
    b[at] = value;
    return read_error(b);
  };
  CHECK(with(1, 'Q') == "PPKX byte offset 1: bad magic: expected \"PPKX\"");
  CHECK(with(4, 3) == "PPKX byte offset 4: unsupported version 3 (this reader reads 1 to 2)");
  CHECK(with(4, 0) == "PPKX byte offset 4: unsupported version 0 (this reader reads 1 to 2)");
  CHECK(with(12, 33) == "PPKX byte offset 12: num_regs 33 exceeds the limit of 32");
  CHECK(with(13, 65) == "PPKX byte offset 13: instruction count 65 exceeds the limit of 64");
  CHECK(with(14, 25) == "PPKX byte offset 14: invalid op code 25");
  CHECK(with(16, 8) == "PPKX byte offset 16: invalid operand kind 8");
  CHECK(with(23, 9) == "PPKX byte offset 23: invalid view kind 9");
  CHECK(with(22, 17) == "PPKX byte offset 22: view count 17 exceeds the limit of 16");
  CHECK(with(28, 17) == "PPKX byte offset 28: constant count 17 exceeds the limit of 16");
  CHECK(with(33, 17) == "PPKX byte offset 33: runtime scalar count 17 exceeds the limit of 16");
  CHECK(with(19, 3) ==
        "PPKX byte offset 12: spec 0 is invalid: instrs[0].b: constant 3 is out of range (1 "
        "available)");
  CHECK(with(38, 2) == "PPKX byte offset 38: invalid matmul presence byte 2 (0 or 1)");
  CHECK(with(8, 2) == "PPKX byte offset 39: truncated: num_regs needs 1 byte(s), 0 left");

  auto longer = good;
  longer.push_back(0);
  CHECK(read_error(longer) == "PPKX byte offset 39: 1 trailing byte(s) after 1 spec(s)");
  for (std::size_t n = 0; n < good.size(); ++n) {
    const std::vector<std::uint8_t> cut(good.begin(), good.begin() + static_cast<long>(n));
    CHECK_MESSAGE(read_error(cut).find("truncated") != std::string::npos, "cut at ", n);
  }
  // A huge count with no data behind it fails fast instead of allocating.
  CHECK(with(11, 0xff) == "PPKX byte offset 39: truncated: num_regs needs 1 byte(s), 0 left");
}

TEST_CASE("kernel serialize: writing an invalid spec throws SpecError") {
  k::Spec s = tiny();
  s.num_regs = 0;
  CHECK_THROWS_AS(k::write_specs(std::vector<k::Spec>{s}), k::SpecError);
}

TEST_CASE("kernel serialize: random byte flips never crash and never read back silently wrong") {
  const std::vector<k::Spec> specs = {tk::random_spec(7), tk::random_spec(8)};
  const auto good = k::write_specs(specs);
  tk::SplitMix64 rng(99);
  int rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    auto b = good;
    const std::size_t at = rng.below(static_cast<std::uint32_t>(b.size()));
    b[at] = static_cast<std::uint8_t>(b[at] ^ (1u << rng.below(8)));
    try {
      const auto back = k::read_specs(b);
      // Accepted: the flip hit a value field; the result still differs from the original.
      CHECK(back != specs);
      CHECK(k::write_specs(back) == b);
    } catch (const k::FormatError&) {
      ++rejected;
    }
  }
  CHECK(rejected > 0);
}
