// tests/unit/test_rng.hpp — the one seeded generator of the randomized tests.
//
// splitmix64 (its finaliser is core::hash_mix), so sequences are the same on every standard
// library and compiler; std distributions are not, which would make seeds meaningless.
#pragma once

#include <cstdint>
#include <vector>

#include "pypto/core/hash.hpp"

namespace pypto::test {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return core::hash_mix(state_ += 0x9e3779b97f4a7c15ULL); }
  /// Uniform enough in [0, n) for test generation (modulo bias is irrelevant); 0 when n == 0.
  template <class U>
  U below(U n) {
    return n == 0 ? U{0} : static_cast<U>(next() % static_cast<std::uint64_t>(n));
  }
  std::int64_t range(std::int64_t lo, std::int64_t hi) {  // inclusive
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo + 1)));
  }
  bool chance(unsigned percent) { return below(100u) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

 private:
  std::uint64_t state_;
};

}  // namespace pypto::test
