// pypto/codegen/element_functions.hpp — the float semantics of the element ops outside the
// kernel expression IR, one function each over binary32 values (the caller rounds the result to
// the dtype). The interpreter calls them through element_ops.hpp; the code the CPU target
// generates includes this header and calls them by name, so both compute the same bits with the
// same C library. Standard headers only: every generated kernel compiles it.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pypto::codegen::element {

/// max(x, 0) that keeps a NaN (as torch.relu); -0 gives +0.
inline float relu(float x) { return x != x ? x : (x > 0.0f ? x : 0.0f); }
inline float recip(float x) { return 1.0f / x; }
inline float sin(float x) { return std::sin(x); }
inline float cos(float x) { return std::cos(x); }
/// The remainder with the dividend's sign (C's fmod).
inline float fmod(float a, float b) { return std::fmod(a, b); }
/// The remainder with the divisor's sign (Python's %, torch.remainder).
inline float rem(float a, float b) {
  const float r = std::fmod(a, b);
  return r != 0.0f && ((r < 0.0f) != (b < 0.0f)) ? r + b : r;
}
/// Leaky / parametric ReLU: x where positive, else x times the slope (a NaN stays a NaN).
inline float leaky(float x, float slope) { return x > 0.0f ? x : x * slope; }
/// The compare `mode` (0..5: == != < <= > >=) as 1 or 0.
inline float compare(int mode, float a, float b) {
  const bool r = mode == 0   ? a == b
                 : mode == 1 ? a != b
                 : mode == 2 ? a < b
                 : mode == 3 ? a <= b
                 : mode == 4 ? a > b
                             : a >= b;
  return r ? 1.0f : 0.0f;
}

/// tile.col_sum with a scratch tile: one column's `n` values (`at(r)`) summed in the order of
/// the device's binary tree (PTO-ISA's TCOLSUM, binary form, A2/A3): rows added in pairs
/// (r0 + r1, r2 + r3, ...), an odd last row added into the first pair's sum, and the sums halved
/// again the same way until one is left. `add` is the dtype's rounded addition.
template <class At, class Add>
float col_sum_tree(std::int64_t n, At at, Add add, std::vector<float>& sums) {
  if (n <= 1) return n == 1 ? at(0) : 0.0f;
  sums.assign(static_cast<std::size_t>(n / 2), 0.0f);
  for (std::int64_t i = 0; i < n / 2; ++i)
    sums[static_cast<std::size_t>(i)] = add(at(2 * i), at(2 * i + 1));
  if (n % 2 == 1) sums[0] = add(sums[0], at(n - 1));
  for (std::int64_t count = n / 2; count > 1; count /= 2) {
    for (std::int64_t i = 0; i < count / 2; ++i)
      sums[static_cast<std::size_t>(i)] =
          add(sums[static_cast<std::size_t>(2 * i)], sums[static_cast<std::size_t>(2 * i + 1)]);
    if (count % 2 == 1) sums[0] = add(sums[0], sums[static_cast<std::size_t>(count - 1)]);
  }
  return sums[0];
}

}  // namespace pypto::codegen::element
