// Tests of pypto/kernel/serialize.hpp: exact bytes of a small spec, round trips of samples and
// random specs, and each corruption rejected with its byte offset.
#include <doctest/doctest.h>

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

}  // namespace

TEST_CASE("kernel serialize: the byte layout is little-endian and field by field") {
  const std::vector<k::Spec> specs = {tiny()};
  const std::vector<std::uint8_t> expected = {
      'P', 'P',  'K',  'X',  1,    0, 0, 0, 1, 0, 0, 0,  // magic, version, count
      1,                                                 // num_regs
      1,   8,    0,    2,    0,    3, 0, 0, 0,           // one instr: Add r0 = Input 0, Const 0
      1,   3,    4,    3,    2,    1,                    // one view: RowMod, param
      1,   0,    0,    0,    0x80,                       // consts: -0.0
      1,   0x23, 0x01, 0xc0, 0x7f};                      // runtime scalars: NaN payload
  CHECK(k::write_specs(specs) == expected);
  CHECK(k::read_specs(expected) == specs);
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
  CHECK(with(4, 2) == "PPKX byte offset 4: unsupported version 2 (this reader reads 1)");
  CHECK(with(12, 33) == "PPKX byte offset 12: num_regs 33 exceeds the limit of 32");
  CHECK(with(13, 65) == "PPKX byte offset 13: instruction count 65 exceeds the limit of 64");
  CHECK(with(14, 25) == "PPKX byte offset 14: invalid op code 25");
  CHECK(with(16, 7) == "PPKX byte offset 16: invalid operand kind 7");
  CHECK(with(23, 9) == "PPKX byte offset 23: invalid view kind 9");
  CHECK(with(22, 17) == "PPKX byte offset 22: view count 17 exceeds the limit of 16");
  CHECK(with(28, 17) == "PPKX byte offset 28: constant count 17 exceeds the limit of 16");
  CHECK(with(33, 17) == "PPKX byte offset 33: runtime scalar count 17 exceeds the limit of 16");
  CHECK(with(19, 3) ==
        "PPKX byte offset 12: spec 0 is invalid: instrs[0].b: constant 3 is out of range (1 "
        "available)");
  CHECK(with(8, 2) == "PPKX byte offset 38: truncated: num_regs needs 1 byte(s), 0 left");

  auto longer = good;
  longer.push_back(0);
  CHECK(read_error(longer) == "PPKX byte offset 38: 1 trailing byte(s) after 1 spec(s)");
  for (std::size_t n = 0; n < good.size(); ++n) {
    const std::vector<std::uint8_t> cut(good.begin(), good.begin() + static_cast<long>(n));
    CHECK_MESSAGE(read_error(cut).find("truncated") != std::string::npos, "cut at ", n);
  }
  // A huge count with no data behind it fails fast instead of allocating.
  CHECK(with(11, 0xff) == "PPKX byte offset 38: truncated: num_regs needs 1 byte(s), 0 left");
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
