// pypto/runtime/sha256.hpp — SHA-256 (FIPS 180-4), for compile-cache keys and binary checksums.
//
// Written here (no crypto dependency): the runtime needs a collision-resistant digest of sources,
// headers and binaries, not secrecy. Streaming: update() any number of times, then hex() once.
// O(n) time, O(1) space.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pypto/core/config.hpp"

namespace pypto::runtime {

class Sha256 {
 public:
  PYPTO_DECL Sha256& update(std::string_view bytes);

  /// Feeds a length-prefixed field, so that a sequence of fields has one unambiguous encoding
  /// ("ab" + "c" and "a" + "bc" digest differently).
  PYPTO_DECL Sha256& field(std::string_view bytes);

  /// The digest as 64 lowercase hex digits. Finalizes: call once.
  PYPTO_DECL std::string hex();

 private:
  static constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

  PYPTO_DECL void compress();

  std::array<std::uint32_t, 8> h_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<unsigned char, 64> block_{};
  std::size_t fill_ = 0;
  std::uint64_t length_ = 0;
};

/// The SHA-256 of `bytes` as 64 lowercase hex digits.
PYPTO_DECL std::string sha256_hex(std::string_view bytes);

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/sha256.ipp"
#endif
