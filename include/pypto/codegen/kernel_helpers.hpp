// pypto/codegen/kernel_helpers.hpp — the scalar arithmetic helpers every generated kernel
// defines, as source text.
//
// Generated scalar code must compute what runtime/interpreter.hpp computes, bit for bit:
// integers wrap to their dtype's width (the operation runs on 64-bit unsigned values and the
// result is converted back, which C++20 defines as modulo 2^N); `//` and `%` floor like Python;
// FP32 max/min are `a < b ? b : a` / `b < a ? b : a` (order-sensitive for NaN and +-0, as
// kernel/interpreter.hpp's apply_max/apply_min). What the interpreter reports as an error
// (division by zero, a shift out of range, a negative integer exponent, an index outside its
// tensor) goes to `pk::fault(kind, site, dim, offset, extent, size)`, which the target's prologue
// defines before these helpers: the CPU target records it for the runtime and the helper goes on
// with a harmless value (kernel_abi.hpp's KernelFault); the NPU target traps.
// `PK_FN` is the target's function qualifier (`inline` on the host, `__aicore__ inline` on the
// NPU); the text is the same for every kernel, so it does not break byte identity.
#pragma once

#include <string_view>

namespace pypto::codegen {

inline constexpr std::string_view kScalarHelpers = R"(namespace pk {

template <class T>
constexpr bool is_fp = std::is_floating_point_v<T>;

template <class T>
PK_FN T add(T a, T b) {
  if constexpr (is_fp<T>) return a + b;
  else return static_cast<T>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
template <class T>
PK_FN T sub(T a, T b) {
  if constexpr (is_fp<T>) return a - b;
  else return static_cast<T>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
template <class T>
PK_FN T mul(T a, T b) {
  if constexpr (is_fp<T>) return a * b;
  else return static_cast<T>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
template <class T>
PK_FN T fdiv(T a, T b) { return a / b; }
template <class T>
PK_FN T floordiv(T a, T b, std::int64_t site) {
  if constexpr (is_fp<T>) {
    const T q = a / b;
    return std::floor(q);
  } else {
    if (b == 0) {
      fault(2, site, 0, 0, 0, 0);
      return 0;
    }
    if constexpr (std::is_unsigned_v<T>) {
      return static_cast<T>(a / b);
    } else {
      if (b == -1) return static_cast<T>(std::uint64_t{0} - static_cast<std::uint64_t>(a));
      T q = static_cast<T>(a / b);
      const T r = static_cast<T>(a % b);
      if (r != 0 && ((r < 0) != (b < 0))) q = static_cast<T>(q - 1);
      return q;
    }
  }
}
template <class T>
PK_FN T floormod(T a, T b, std::int64_t site) {
  if constexpr (is_fp<T>) {
    T r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r = r + b;
    return r;
  } else {
    if (b == 0) {
      fault(2, site, 0, 0, 0, 0);
      return 0;
    }
    if constexpr (std::is_unsigned_v<T>) {
      return static_cast<T>(a % b);
    } else {
      if (b == -1) return 0;
      T r = static_cast<T>(a % b);
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      return r;
    }
  }
}
template <class T>
PK_FN T max(T a, T b) { return a < b ? b : a; }
template <class T>
PK_FN T min(T a, T b) { return b < a ? b : a; }
template <class T>
PK_FN T pow(T a, T b, std::int64_t site) {
  if constexpr (is_fp<T>) {
    return std::pow(a, b);
  } else {
    if constexpr (std::is_signed_v<T>) {
      if (b < 0) {
        fault(4, site, 0, static_cast<std::int64_t>(b), 0, 0);
        return 0;
      }
    }
    std::uint64_t r = 1, base = static_cast<std::uint64_t>(a);
    for (std::uint64_t e = static_cast<std::uint64_t>(b); e != 0; e >>= 1) {
      if (e & 1) r *= base;
      base *= base;
    }
    return static_cast<T>(r);
  }
}
template <class T>
PK_FN T neg(T a) {
  if constexpr (is_fp<T>) return -a;
  else return static_cast<T>(std::uint64_t{0} - static_cast<std::uint64_t>(a));
}
template <class T>
PK_FN T abs(T a) {
  if constexpr (is_fp<T>) return std::fabs(a);
  else if constexpr (std::is_unsigned_v<T>) return a;
  else return a < 0 ? neg(a) : a;
}
template <class T>
PK_FN bool shift_in_range(T b, std::int64_t site) {
  bool ok = static_cast<std::uint64_t>(b) < sizeof(T) * 8;
  if constexpr (std::is_signed_v<T>) ok = ok && b >= 0;
  if (!ok) fault(3, site, 0, static_cast<std::int64_t>(b), 0, 0);
  return ok;
}
template <class T>
PK_FN T shl(T a, T b, std::int64_t site) {
  if (!shift_in_range(b, site)) return 0;
  return static_cast<T>(static_cast<std::uint64_t>(a) << b);
}
template <class T>
PK_FN T shr(T a, T b, std::int64_t site) {
  if (!shift_in_range(b, site)) return 0;
  return static_cast<T>(a >> b);
}
template <class T>
PK_FN T bitnot(T a) { return static_cast<T>(~static_cast<std::uint64_t>(a)); }
/// The row-major position of `index` in a tensor of `shape`; outside it, a fault of call `site`
/// and position 0 (a runtime gives every tensor at least one element of storage).
PK_FN std::int64_t flat(const std::int64_t* shape, std::initializer_list<std::int64_t> index,
                        std::int64_t site) {
  std::int64_t at = 0, k = 0;
  for (std::int64_t i : index) {
    if (i < 0 || i >= shape[k]) {
      fault(1, site, k, i, 1, shape[k]);
      return 0;
    }
    at = at * shape[k++] + i;
  }
  return at;
}
/// A pl.Array: copied by value, as the IR's arrays are (an update gives a new array).
template <class T, int N>
struct Array {
  T at[N];
};
template <class To, class From>
PK_FN To cast(From a) {
  if constexpr (std::is_same_v<To, bool>) return a != 0;
  else return static_cast<To>(a);
}

}  // namespace pk
)";

}  // namespace pypto::codegen
