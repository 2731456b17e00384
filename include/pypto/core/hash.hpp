// pypto/core/hash.hpp — a stable 64-bit mixer.
//
// Values are the same on every platform, compiler and Boost version (std::hash and
// boost::hash_combine are not: boost changed its mixer in 1.81), so hashes can appear in
// golden tests and in keys that outlive a process. The finaliser is splitmix64's; strings use
// 64-bit FNV-1a followed by the finaliser. All functions are constexpr and O(length).
#pragma once

#include <cstdint>
#include <string_view>

namespace pypto::core {

/// splitmix64 finaliser: a bijection on 64-bit values with full avalanche.
constexpr std::uint64_t hash_mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

/// Order-sensitive combination of a running seed with one more value.
constexpr std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t value) {
  return hash_mix(seed + 0x9e3779b97f4a7c15ULL + hash_mix(value) + (seed << 6) + (seed >> 2));
}

constexpr std::uint64_t hash_string(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return hash_mix(h ^ s.size());
}

}  // namespace pypto::core
