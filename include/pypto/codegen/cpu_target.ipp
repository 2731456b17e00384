// pypto/codegen/cpu_target.ipp — the definitions of codegen/cpu_target.hpp.
#pragma once

#include "pypto/codegen/cpu_target.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/codegen/irregular_functions.hpp"
#include "pypto/codegen/kernel_abi.hpp"
#include "pypto/codegen/kernel_helpers.hpp"
#include "pypto/codegen/target_traits.hpp"
#include "pypto/kernel/spec.hpp"

// Semantics are strict IEEE binary32 and must equal runtime/interpreter.hpp bit for bit: every
// kernel Spec instruction is one statement into a named float (no expression the compiler could
// contract), reductions and matmul accumulate in the interpreter's order from the first element,
// and the file turns contraction off itself (clang honours `#pragma STDC FP_CONTRACT OFF`, GCC
// `#pragma GCC optimize("fp-contract=off")`); the runtime also compiles with -ffp-contract=off,
// which matters for clang, whose -ffp-contract=fast ignores the pragma (its default, `on`, only
// contracts within one statement, and no statement here holds two float ops).
// Tiles are std::vectors (any rank, dims read at run time). The entry is kernel_abi.hpp's fixed
// `pypto_kernel_entry`; nothing in the file depends on the kernel's name.
// FP16 and BF16 are stored as 16-bit patterns (pk::fp16 / pk::bf16, kernel_abi.hpp's encoding)
// in tensors and tiles alike, and computed as the interpreter computes them: each op widens its
// operands to binary32 (exact), computes there with the FP32 instruction table and rounds its
// result to the dtype, to nearest with ties to even (round_to_dtype), one loop per op.

namespace pypto::codegen {

namespace detail::cpu_target {

// The generated kernels report an irregular function's Fault kind as the kernel fault kind.
static_assert(int{irregular::Fault::Index} == static_cast<int>(KernelFaultKind::OutOfBounds) &&
              int{irregular::Fault::Operand} == static_cast<int>(KernelFaultKind::InvalidOperand) &&
              int{irregular::Fault::Shape} == static_cast<int>(KernelFaultKind::ShapeMismatch));

/// FP16 / BF16 elements and their conversions (kernel_abi.hpp's encoding). A cast from a half
/// dtype reads the element as the interpreter does, as a value of its dtype (a NaN becomes
/// the dtype's quiet NaN of its sign). Casts to a half dtype round once: a float's binary32 value
/// (every FP16 / BF16 value is a float), an integer's exact value (its magnitude rounded to odd
/// in 24 bits first, exact in binary32, which then rounds to the dtype's 11 or 8 bits as the
/// exact value does).
inline constexpr std::string_view kHalfHelpers = R"(namespace pk {

struct fp16 {
  std::uint16_t bits;
};
struct bf16 {
  std::uint16_t bits;
};
/// The MX formats, a code a byte (kernel_abi.hpp's MiniFormat).
template <pypto::codegen::MiniFormat F>
struct mini {
  std::uint8_t bits;
};
using fp8e4m3 = mini<pypto::codegen::MiniFormat::E4M3FN>;
using fp8e5m2 = mini<pypto::codegen::MiniFormat::E5M2>;
using fp8e8m0 = mini<pypto::codegen::MiniFormat::E8M0>;
using fp4e2m1 = mini<pypto::codegen::MiniFormat::E2M1>;
template <class T>
constexpr bool is_mini = false;
template <pypto::codegen::MiniFormat F>
constexpr bool is_mini<mini<F>> = true;
template <class T>
struct mini_format_of;
template <pypto::codegen::MiniFormat F>
struct mini_format_of<mini<F>> {
  static constexpr pypto::codegen::MiniFormat value = F;
};
/// A float stored as a pattern of its dtype, computed in binary32 and rounded back.
template <class T>
constexpr bool is_half = std::is_same_v<T, fp16> || std::is_same_v<T, bf16> || is_mini<T>;
template <class H>
constexpr pypto::codegen::HalfFormat format_of =
    std::is_same_v<H, fp16> ? pypto::codegen::HalfFormat::FP16 : pypto::codegen::HalfFormat::BF16;

/// The binary32 value of an element (exact).
template <pypto::codegen::MiniFormat F>
inline float widen(mini<F> x) { return pypto::codegen::mini_to_float(x.bits, F); }
template <class H>
  requires(is_half<H> && !is_mini<H>)
inline float widen(H x) { return pypto::codegen::half_to_float(x.bits, format_of<H>); }
inline float widen(float x) { return x; }
template <class T>
  requires std::is_integral_v<T>
inline T widen(T x) { return x; }
/// A binary32 result rounded to the dtype (the interpreter's round_to_dtype).
template <class H>
inline H round_to(float x) {
  if constexpr (is_mini<H>)
    return H{pypto::codegen::float_to_mini(x, mini_format_of<H>::value)};
  else
    return H{pypto::codegen::float_to_half(x, format_of<H>)};
}
/// A binary32 value of the dtype, stored exactly (a NaN keeps its payload; an MX format has
/// one NaN).
template <class H>
inline H narrow(float x) {
  if constexpr (is_mini<H>)
    return round_to<H>(x);
  else
    return H{pypto::codegen::float_to_half(x, format_of<H>, true)};
}
/// An atomic-add store's sum: in binary32, rounded.
template <class H>
  requires is_half<H>
inline H add(H a, H b) { return round_to<H>(widen(a) + widen(b)); }

template <class To, class From>
  requires(is_half<To> || is_half<From>)
inline To cast(From a) {
  if constexpr (is_half<From>) {  // read as a value of its dtype: a NaN is its quiet NaN
    return cast<To>(widen(round_to<From>(widen(a))));
  } else if constexpr (std::is_floating_point_v<From>) {
    return round_to<To>(static_cast<float>(a));
  } else {
    bool negative = false;
    if constexpr (std::is_signed_v<From>) negative = a < 0;
    const std::uint64_t m = negative ? std::uint64_t{0} - static_cast<std::uint64_t>(a)
                                     : static_cast<std::uint64_t>(a);
    std::uint64_t kept = m;
    int shift = 0;
    for (; kept >= (std::uint64_t{1} << 24); ++shift) kept = (kept >> 1) | (kept & 1);
    const float f = std::ldexp(static_cast<float>(kept), shift);
    return round_to<To>(negative ? -f : f);
  }
}
/// A float element converted to integer dtype To under rounding `mode` (kernel_abi.hpp's
/// float_to_integer, as the interpreter converts it).
template <class To, class From>
inline To cast_rounded(From a, int mode) {
  float x;
  if constexpr (is_half<From>) x = widen(a);
  else x = a;
  if constexpr (std::is_same_v<To, bool>) return x != 0.0f;
  else
    return static_cast<To>(pypto::codegen::float_to_integer(
        x, mode, static_cast<unsigned>(sizeof(To) * 8), std::is_unsigned_v<To>));
}

}  // namespace pk

)";

/// The fault record of kernel_abi.hpp: the first fault of an entry call, for the runtime.
inline constexpr std::string_view kFaultRecord = R"(namespace pk {

static pypto::codegen::KernelFault fault_state;

PK_FN void fault(int kind, std::int64_t site, std::int64_t dim, std::int64_t offset,
                 std::int64_t extent, std::int64_t size) {
  if (fault_state.kind == pypto::codegen::KernelFaultKind::None)
    fault_state = {static_cast<pypto::codegen::KernelFaultKind>(kind), site, dim, offset, extent,
                   size};
}

/// A gather's index outside its source, a sort's invalid operand or operands of shapes that do
/// not fit (irregular_functions.hpp's Fault, whose kinds are KernelFaultKind's).
PK_FN void irregular(pypto::codegen::irregular::Fault f, std::int64_t site) {
  if (f) fault(f.kind, site, 0, f.value, 1, f.size);
}

/// A tensor as irregular_functions.hpp's row-major view (leading dimensions folded into rows).
template <class E>
PK_FN pypto::codegen::irregular::View<E> tensor_view(const pypto::codegen::TensorArg* t, E* data) {
  std::int64_t rows = 1;
  for (std::int64_t k = 0; k + 1 < t->rank; ++k) rows *= t->shape[k];
  return {data, rows, t->rank > 0 ? t->shape[t->rank - 1] : 1};
}

}  // namespace pk

extern "C" __attribute__((visibility("default"))) pypto::codegen::KernelFault* pypto_kernel_fault() {
  return &pk::fault_state;
}

)";

/// Region copies (tile.load / tile.store, runtime/interpreter.hpp's for_box) and matmul
/// (products in increasing k, summed from the first product: kernel/spec.hpp's Matmul).
inline constexpr std::string_view kBoxHelpers = R"(namespace pk {

enum class Box { Load, Store, StoreAdd };

/// Copies the box at `offsets` of `extents`; a box outside the tensor is a fault of call `site`
/// and copies nothing.
/// A tile element as a tensor element of another float dtype, rounded once (an FP32
/// accumulator stored into a BF16 tensor), or as itself; an atomic add's sum likewise.
template <class To, class From>
inline To element_as(From x) {
  if constexpr (std::is_same_v<To, From>) return x;
  else if constexpr (is_half<To>) return round_to<To>(widen(x));
  else return static_cast<To>(widen(x));
}
template <class G, class T>
inline G add_as(G g, T t) {
  if constexpr (std::is_same_v<G, T>) return add(g, t);
  else if constexpr (is_half<G>) return round_to<G>(widen(g) + widen(t));
  else return static_cast<G>(widen(g) + widen(t));
}

template <class T, class G>
inline void copy_box(T* tile, G* gm, const std::int64_t* shape,
                     std::initializer_list<std::int64_t> offsets,
                     std::initializer_list<std::int64_t> extents, Box mode, std::int64_t site) {
  const std::size_t rank = offsets.size();
  const std::int64_t* off = offsets.begin();
  const std::int64_t* ext = extents.begin();
  std::int64_t n = 1;
  for (std::size_t k = 0; k < rank; ++k) {
    if (off[k] < 0 || ext[k] < 0 || off[k] > shape[k] || ext[k] > shape[k] - off[k]) {
      fault(1, site, static_cast<std::int64_t>(k), off[k], ext[k], shape[k]);
      return;
    }
    n *= ext[k];
  }
  std::int64_t pos[pypto::codegen::kKernelAbiMaxRank] = {};
  for (std::int64_t j = 0; j < n; ++j) {
    std::int64_t at = 0;
    for (std::size_t k = 0; k < rank; ++k) at = at * shape[k] + off[k] + pos[k];
    if (mode == Box::Load) tile[j] = element_as<T>(gm[at]);
    else if (mode == Box::Store) gm[at] = element_as<G>(tile[j]);
    else gm[at] = add_as(gm[at], tile[j]);
    for (std::size_t k = rank; k-- > 0;) {
      if (++pos[k] < ext[k]) break;
      pos[k] = 0;
    }
  }
}

/// A load of the leading `valid` box of a tile of `extents` (the rest zero), or a store of that
/// box alone (`mode`); the valid box must lie inside the tensor and inside the tile, else a
/// fault of call `site` copies nothing.
template <class T, class G>
inline void copy_box_valid(T* tile, G* gm, const std::int64_t* shape,
                           std::initializer_list<std::int64_t> offsets,
                           std::initializer_list<std::int64_t> extents,
                           std::initializer_list<std::int64_t> valid, std::int64_t site,
                           Box mode = Box::Load) {
  const std::size_t rank = offsets.size();
  const std::int64_t* off = offsets.begin();
  const std::int64_t* ext = extents.begin();
  const std::int64_t* box = valid.begin();
  std::int64_t size = 1;
  for (std::size_t k = 0; k < rank; ++k) size *= ext[k];
  if (mode == Box::Load) std::fill(tile, tile + size, T{});
  std::int64_t n = 1;
  for (std::size_t k = 0; k < rank; ++k) {
    if (box[k] < 0 || box[k] > ext[k]) {
      fault(1, site, static_cast<std::int64_t>(k), 0, box[k], ext[k]);
      return;
    }
    if (off[k] < 0 || off[k] > shape[k] || box[k] > shape[k] - off[k]) {
      fault(1, site, static_cast<std::int64_t>(k), off[k], box[k], shape[k]);
      return;
    }
    n *= box[k];
  }
  std::int64_t pos[pypto::codegen::kKernelAbiMaxRank] = {};
  for (std::int64_t j = 0; j < n; ++j) {
    std::int64_t at = 0, into = 0;
    for (std::size_t k = 0; k < rank; ++k) {
      at = at * shape[k] + off[k] + pos[k];
      into = into * ext[k] + pos[k];
    }
    if (mode == Box::Load) tile[into] = element_as<T>(gm[at]);
    else if (mode == Box::Store) gm[at] = element_as<G>(tile[into]);
    else gm[at] = add_as(gm[at], tile[into]);
    for (std::size_t k = rank; k-- > 0;) {
      if (++pos[k] < box[k]) break;
      pos[k] = 0;
    }
  }
}

/// c = a x b, or acc + a x b unless `init` (matmul_acc): operands widened to binary32 (exact),
/// each sum then added to the accumulator's element.
template <class E>
inline void matmul(float* c, const float* acc, bool init, const E* a, const E* b, std::int64_t m,
                   std::int64_t k, std::int64_t n) {
  // Row by row, k outermost (each element still sums from its first product in increasing k):
  // b is read along its rows. The sums live apart from c, which may be acc.
  std::vector<float> sums(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t p = 0; p < k; ++p) {
      const float x = widen(a[i * k + p]);
      const E* b_row = b + p * n;
      for (std::int64_t j = 0; j < n; ++j) {
        const float product = x * widen(b_row[j]);
        sums[j] = p == 0 ? product : sums[j] + product;
      }
    }
    for (std::int64_t j = 0; j < n; ++j)
      c[i * n + j] = acc && !init ? acc[i * n + j] + sums[j] : sums[j];
  }
}

/// A reduction of a rows x cols tile along each row (dst[rows]) or each column (dst[cols]), from
/// the first element in order: kind 0 sum, 1 max (acc < x ? x : acc), 2 min (x < acc ? x : acc),
/// 3 product; a half tile's partial sums and products are rounded to its dtype.
template <int Kind, class E>
inline void reduce(E* dst, const E* src, std::int64_t rows, std::int64_t cols, bool by_row) {
  const std::int64_t lines = by_row ? rows : cols, length = by_row ? cols : rows;
  for (std::int64_t l = 0; l < lines; ++l) {
    auto at = [&](std::int64_t k) { return by_row ? l * cols + k : k * cols + l; };
    float acc = widen(src[at(0)]);
    for (std::int64_t k = 1; k < length; ++k) {
      const float x = widen(src[at(k)]);
      if constexpr (Kind == 1) acc = acc < x ? x : acc;
      else if constexpr (Kind == 2) acc = x < acc ? x : acc;
      else {
        const float r = Kind == 0 ? acc + x : acc * x;
        if constexpr (is_half<E>) acc = widen(round_to<E>(r));
        else acc = r;
      }
    }
    if constexpr (is_half<E>) dst[l] = narrow<E>(acc);
    else dst[l] = acc;
  }
}

/// A column sum in the device's binary tree order (element_functions.hpp's col_sum_tree); a half
/// tile's partial sums are rounded to its dtype.
template <class E>
inline void col_sum_tree(E* dst, const E* src, std::int64_t rows, std::int64_t cols) {
  std::vector<float> scratch;
  for (std::int64_t c = 0; c < cols; ++c) {
    const float sum = pypto::codegen::element::col_sum_tree(
        rows, [&](std::int64_t r) { return widen(src[r * cols + c]); },
        [](float a, float b) {
          if constexpr (is_half<E>) return widen(round_to<E>(a + b));
          else return a + b;
        },
        scratch);
    if constexpr (is_half<E>) dst[c] = narrow<E>(sum);
    else dst[c] = sum;
  }
}

/// The INT32 index of each row's (column's) first maximum (Kind 1) or minimum (Kind 2), a NaN
/// counting as the extreme (the interpreter's argmax / argmin).
template <int Kind, class E>
inline void arg_reduce(std::int32_t* dst, const E* src, std::int64_t rows, std::int64_t cols,
                       bool by_row) {
  const std::int64_t lines = by_row ? rows : cols, length = by_row ? cols : rows;
  for (std::int64_t l = 0; l < lines; ++l) {
    auto at = [&](std::int64_t k) { return by_row ? l * cols + k : k * cols + l; };
    float acc = widen(src[at(0)]);
    std::int32_t best = 0;
    for (std::int64_t k = 1; k < length; ++k) {
      const float x = widen(src[at(k)]);
      const bool better = Kind == 1 ? x > acc : x < acc;
      if (acc == acc && (x != x || better)) {
        acc = x;
        best = static_cast<std::int32_t>(k);
      }
    }
    dst[l] = best;
  }
}

/// 1 where column - row <= diagonal (>= when upper), else 0.
template <class E>
inline void triangle(E* dst, std::int64_t rows, std::int64_t cols, std::int64_t diagonal,
                     bool upper) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) {
      const bool one = upper ? j - r >= diagonal : j - r <= diagonal;
      dst[r * cols + j] = cast<E>(std::int64_t{one ? 1 : 0});
    }
}

/// exp(a - v) of a rows x cols tile and a broadcast [rows, 1] / [1, cols] vector, the difference
/// rounded to the dtype before the exponential (two ops, as the interpreter runs them).
template <class E>
inline void expdif(E* dst, const E* a, std::int64_t rows, std::int64_t cols, const E* v,
                   std::int64_t vrows, std::int64_t vcols) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) {
      const float d = widen(a[r * cols + j]) - widen(v[(vrows == 1 ? 0 : r) * vcols + (vcols == 1 ? 0 : j)]);
      if constexpr (is_half<E>) dst[r * cols + j] = round_to<E>(std::exp(widen(round_to<E>(d))));
      else dst[r * cols + j] = std::exp(d);
    }
}

/// dst[j][i] = src[i][j] of a rows x cols tile.
template <class E>
inline void transpose(E* dst, const E* src, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) dst[j * rows + i] = src[i * cols + j];
}

/// A compare (element_functions.hpp's modes 0..5) of two elements of one kind.
template <class X>
inline bool compares(int mode, X a, X b) {
  if constexpr (std::is_floating_point_v<X>) {
    return pypto::codegen::element::compare(mode, a, b) != 0.0f;
  } else {
    return mode == 0 ? a == b : mode == 1 ? a != b : mode == 2 ? a < b
         : mode == 3 ? a <= b : mode == 4 ? a > b : a >= b;
  }
}

/// The packed mask of a rows x cols compare of a with b (or the scalar s when b is null): bit
/// j % 8 of byte j / 8 of a row of `width` bytes, the rest zero.
template <class E, class S>
inline void compare_mask(std::uint8_t* dst, std::int64_t width, const E* a, const E* b, S s,
                         std::int64_t rows, std::int64_t cols, int mode) {
  using X = decltype(widen(a[0]));
  std::fill(dst, dst + rows * width, std::uint8_t{0});
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) {
      const X x = widen(a[r * cols + j]);
      const X y = b ? widen(b[r * cols + j]) : static_cast<X>(s);
      if (compares(mode, x, y)) dst[r * width + j / 8] |= static_cast<std::uint8_t>(1u << (j % 8));
    }
}

/// dst = a where the mask is set, else b (or s when b is null): a packed mask by bit (bit j of
/// a row is bit j % B of its element j / B, B the carrier's bits), a mask of the operands' shape
/// where nonzero.
template <class M, class E>
inline void select(E* dst, const M* mask, std::int64_t width, bool packed, const E* a, const E* b,
                   E s, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) {
      const std::int64_t k = r * cols + j;
      bool set = false;
      if constexpr (std::is_integral_v<M>) {
        constexpr std::int64_t bits = 8 * sizeof(M);
        set = packed ? ((static_cast<std::make_unsigned_t<M>>(mask[r * width + j / bits]) >>
                         (j % bits)) & 1u) != 0
                     : mask[k] != 0;
      } else {
        set = widen(mask[k]) != 0;
      }
      dst[k] = set ? a[k] : b ? b[k] : s;
    }
}

/// dst (rows x cols) = src's valid box (src rows x cols), every other element the pad: 0, the
/// dtype's least (1) / greatest (2) value (-inf / +inf for floats), or 1 (3: a product's identity).
template <class E>
inline void fillpad(E* dst, std::int64_t rows, std::int64_t cols, const E* src,
                    std::int64_t src_rows, std::int64_t src_cols, std::int64_t valid_rows,
                    std::int64_t valid_cols, int mode) {
  E pad{};
  if constexpr (std::is_integral_v<E>) {
    if (mode == 3) pad = 1;
    else if (mode != 0) pad = mode == 1 ? std::numeric_limits<E>::min() : std::numeric_limits<E>::max();
  } else if constexpr (is_half<E>) {
    if (mode != 0) pad = narrow<E>(mode == 3 ? 1.0f : mode == 1 ? -INFINITY : INFINITY);
  } else {
    if (mode != 0) pad = mode == 3 ? 1.0f : mode == 1 ? -INFINITY : INFINITY;
  }
  valid_rows = std::clamp<std::int64_t>(valid_rows, 0, src_rows);
  valid_cols = std::clamp<std::int64_t>(valid_cols, 0, src_cols);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j)
      dst[r * cols + j] = r < valid_rows && j < valid_cols ? src[r * src_cols + j] : pad;
}

/// dst (rows x cols) = the [rows, 1] or [1, cols] vector v repeated.
template <class E>
inline void broadcast(E* dst, std::int64_t rows, std::int64_t cols, const E* v, std::int64_t vrows,
                      std::int64_t vcols) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j)
      dst[r * cols + j] = v[(vrows == 1 ? 0 : r) * vcols + (vcols == 1 ? 0 : j)];
}

/// The first `rows` rows of an FP32 product plus a [1, cols] bias.
template <class E>
inline void add_bias(float* c, const E* bias, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) c[r * cols + j] = c[r * cols + j] + widen(bias[j]);
}

/// tile.matmul_mx (the interpreter's): a (m x k) and b (k x n) each element scaled by the E8M0
/// scale of its group of 32 along k (sa in MX_A_ZZ order, sb in MX_B_NN order: blocks of 16
/// rows or columns x 2 groups), then matmul's product, plus a [1, n] bias when given.
template <class A, class S, class B>
inline void matmul_mx(float* c, const float* acc, const A* a, const S* sa, const B* b,
                      const S* sb, std::int64_t m, std::int64_t k, std::int64_t n,
                      const float* bias) {
  const std::int64_t groups = k / 32;
  auto packed = [&](std::int64_t line, std::int64_t g) {
    return ((line / 16) * (groups / 2) + g / 2) * 32 + (line % 16) * 2 + g % 2;
  };
  std::vector<float> as(static_cast<std::size_t>(m * k)), bs(static_cast<std::size_t>(k * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p)
      as[i * k + p] = widen(a[i * k + p]) * widen(sa[packed(i, p / 32)]);
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t j = 0; j < n; ++j)
      bs[p * n + j] = widen(b[p * n + j]) * widen(sb[packed(j, p / 32)]);
  matmul(c, acc, false, as.data(), bs.data(), m, k, n);
  if (bias) add_bias(c, bias, m, n);
}

/// The block the running instance is, of how many its launch has; the runtime sets both first.
static std::int64_t block_idx = 0;
static std::int64_t block_num = 1;

/// Where tpush / tpop go: the runtime's pipes between the members of a mixed task.
static pypto::codegen::KernelPipe pipe = nullptr;
static void* pipe_context = nullptr;

/// Where the distributed ops a rank cannot do alone go: the runtime's world (null: one rank).
static pypto::codegen::KernelWorld world = nullptr;
static void* world_context = nullptr;

/// This instance's state, put back when a call into the runtime returns: while it waits (a pop
/// from an empty pipe, a barrier, a signal), other instances of this kernel may run.
struct Saved {
  std::int64_t block = block_idx, blocks = block_num;
  pypto::codegen::KernelPipe to = pipe;
  void* context = pipe_context;
  pypto::codegen::KernelWorld in = world;
  void* in_context = world_context;
  pypto::codegen::KernelFault faulted = fault_state;
  ~Saved() {
    block_idx = block;
    block_num = blocks;
    pipe = to;
    pipe_context = context;
    world = in;
    world_context = in_context;
    fault_state = faulted;
  }
};

inline bool call_pipe(pypto::codegen::PipeOp op, std::int64_t id, pypto::codegen::PipeTile* t) {
  const Saved saved;
  return saved.to && saved.to(saved.context, static_cast<std::int64_t>(op), id, t);
}

/// A request to the world about `t`, the op at `site`; a refusal faults (the runtime says why).
inline pypto::codegen::WorldCall world_call(const pypto::codegen::TensorArg* t,
                                            std::int64_t peer, std::int64_t site,
                                            std::initializer_list<std::int64_t> offsets = {},
                                            std::initializer_list<std::int64_t> extents = {}) {
  pypto::codegen::WorldCall w{};
  w.site = site;
  w.tensor = t;
  w.peer = peer;
  w.rank = static_cast<std::int64_t>(offsets.size());
  for (std::size_t k = 0; k < offsets.size() && k < 8; ++k) w.offsets[k] = offsets.begin()[k];
  for (std::size_t k = 0; k < extents.size() && k < 8; ++k) w.extents[k] = extents.begin()[k];
  return w;
}
inline void ask_world(pypto::codegen::WorldOp op, pypto::codegen::WorldCall& w) {
  bool ok = false;
  {
    const Saved saved;
    ok = saved.in(saved.in_context, static_cast<std::int64_t>(op), &w);
  }
  if (!ok) fault(7, w.site, 0, 0, 0, 0);
}

/// True when `peer` of the window `t` is this rank, whose memory the kernel reaches itself. In a
/// world of one rank every peer must be rank 0: another one faults (and the op goes on locally).
inline bool world_local(const pypto::codegen::TensorArg* t, std::int64_t peer, std::int64_t site) {
  if (!world) {
    if (peer != 0) fault(8, site, 0, peer, 0, 0);
    return true;
  }
  pypto::codegen::WorldCall w = world_call(t, peer, site);
  w.value = 1;  // a refusal: done locally, the fault raised after the call
  ask_world(pypto::codegen::WorldOp::IsLocal, w);
  return w.value != 0;
}

/// get_comm_ctx of `t`, or rank / nranks of the context `value`: the world's answer, else
/// (one rank) `alone`.
inline std::int64_t world_query(const pypto::codegen::TensorArg* t, std::int64_t value,
                                std::int64_t alone, std::int64_t site) {
  if (!world) return alone;
  pypto::codegen::WorldCall w = world_call(t, 0, site);
  w.value = value;
  ask_world(pypto::codegen::WorldOp::Query, w);
  return w.value;
}

/// The box (offsets, extents) of `peer`'s window `t` into `tile` (rows of `cols`, the box's
/// leading dimensions folded into rows), or `tile` into the peer's box.
template <class E>
inline void world_box(pypto::codegen::WorldOp op, const pypto::codegen::TensorArg* t,
                      std::int64_t peer, std::initializer_list<std::int64_t> offsets,
                      std::initializer_list<std::int64_t> extents, std::vector<E>& tile,
                      std::int64_t dtype, std::int64_t cols, std::int64_t site) {
  pypto::codegen::WorldCall w = world_call(t, peer, site, offsets, extents);
  const std::int64_t rows = cols > 0 ? static_cast<std::int64_t>(tile.size()) / cols : 0;
  w.tile = {tile.data(), dtype, rows, cols, rows, cols};
  ask_world(op, w);
}

/// The signal element at `offsets` of `peer`'s `t` set to `value` or increased by it.
inline void world_notify(const pypto::codegen::TensorArg* t, std::int64_t peer,
                         std::initializer_list<std::int64_t> offsets, std::int64_t value,
                         std::int64_t site) {
  pypto::codegen::WorldCall w = world_call(t, peer, site, offsets);
  w.value = value;
  ask_world(pypto::codegen::WorldOp::Notify, w);
}

/// Returns once this rank's signal element at `offsets` meets `expected`, the kernel's tensors
/// brought up to date; in a world of one rank no one else could write it: a fault.
inline void world_wait(const pypto::codegen::TensorArg* t,
                       std::initializer_list<std::int64_t> offsets, std::int64_t held,
                       std::int64_t expected, std::int64_t site) {
  if (!world) return fault(9, site, 0, held, expected, 0);
  pypto::codegen::WorldCall w = world_call(t, 0, site, offsets);
  w.value = expected;
  ask_world(pypto::codegen::WorldOp::Wait, w);
}

/// A collective with every rank of its target's domain, its arguments tensors or scalars (the
/// kernel's tensors up to date after); false in a world of one rank, where the kernel's own data
/// is the whole collective.
inline bool world_collective(std::initializer_list<const pypto::codegen::TensorArg*> operands,
                             std::initializer_list<std::int64_t> values, std::int64_t site) {
  if (!world) return false;
  pypto::codegen::WorldCall w = world_call(operands.size() ? *operands.begin() : nullptr, 0, site);
  for (std::size_t k = 0; k < operands.size() && k < values.size() && k < 6; ++k, ++w.count) {
    w.operands[k] = operands.begin()[k];
    w.values[k] = values.begin()[k];
  }
  ask_world(pypto::codegen::WorldOp::Collective, w);
  return true;
}

/// system.syncall: waits until every block of the launch has reached it.
inline void syncall(std::int64_t site) {
  if (!call_pipe(pypto::codegen::PipeOp::SyncAll, 0, nullptr)) fault(7, site, 0, 0, 0, 0);
}

/// Hands the 2-D `tile` (its valid box `valid`) to the pipe `id` (`op` a push).
template <class E>
inline void tpush(pypto::codegen::PipeOp op, std::int64_t id, std::vector<E>& tile,
                  std::int64_t dtype, std::initializer_list<std::int64_t> extents,
                  std::initializer_list<std::int64_t> valid, std::int64_t site) {
  pypto::codegen::PipeTile t{tile.data(), dtype, extents.begin()[0], extents.begin()[1],
                             valid.begin()[0], valid.begin()[1]};
  if (!call_pipe(op, id, &t)) fault(7, site, 0, 0, 0, 0);
}

/// Fills `tile` from the pipe `id` (`op` a pop) and sets `valid` to the valid box it came with.
template <class E>
inline void tpop(pypto::codegen::PipeOp op, std::int64_t id, std::vector<E>& tile,
                 std::int64_t dtype, std::initializer_list<std::int64_t> extents,
                 std::int64_t* valid, std::int64_t site) {
  pypto::codegen::PipeTile t{tile.data(), dtype, extents.begin()[0], extents.begin()[1],
                             extents.begin()[0], extents.begin()[1]};
  if (!call_pipe(op, id, &t)) fault(7, site, 0, 0, 0, 0);
  valid[0] = t.valid_rows;
  valid[1] = t.valid_cols;
}

}  // namespace pk

extern "C" __attribute__((visibility("default"))) void pypto_kernel_set_block(std::int64_t b,
                                                                             std::int64_t n) {
  pk::block_idx = b;
  pk::block_num = n;
}

extern "C" __attribute__((visibility("default"))) void pypto_kernel_set_pipe(
    pypto::codegen::KernelPipe pipe, void* context) {
  pk::pipe = pipe;
  pk::pipe_context = context;
}

extern "C" __attribute__((visibility("default"))) void pypto_kernel_set_world(
    pypto::codegen::KernelWorld world, void* context) {
  pk::world = world;
  pk::world_context = context;
}

)";

}  // namespace detail::cpu_target

PYPTO_DECL std::string CpuTarget::round_to_dtype(core::DataType t, std::string_view x) {
  if (t == core::DataType::FP32) return std::string(x);
  if (!core::is_float(t) || element_type(t).empty()) return "";
  return "pk::round_to<" + std::string(element_type(t)) + ">(" + std::string(x) + ")";
}

PYPTO_DECL std::string CpuTarget::float_literal(std::uint32_t bits) {
  return hex_float_literal(bits, "std::bit_cast<float>");
}

PYPTO_DECL std::string CpuTarget::prologue(CoreType) {
  std::string s =
      "// Generated by pypto (target cpu). Strict IEEE binary32: no FP contraction.\n"
      "#if defined(__clang__)\n"
      "#pragma STDC FP_CONTRACT OFF\n"
      "#elif defined(__GNUC__)\n"
      "#pragma GCC optimize(\"fp-contract=off\")\n"
      "#endif\n"
      "#include <pypto/codegen/element_functions.hpp>\n"
      "#include <pypto/codegen/irregular_functions.hpp>\n"
      "#include <pypto/codegen/kernel_abi.hpp>\n\n"
      "#include <algorithm>\n#include <bit>\n#include <cmath>\n#include <cstddef>\n"
      "#include <cstdint>\n#include <cstdlib>\n#include <initializer_list>\n#include <limits>\n"
      "#include <type_traits>\n#include <vector>\n\n"
      "#define PK_FN inline\n";
  s += detail::cpu_target::kFaultRecord;
  s += kScalarHelpers;
  s += detail::cpu_target::kHalfHelpers;
  s += detail::cpu_target::kBoxHelpers;
  return s;
}

PYPTO_DECL std::string CpuTarget::entry_open() {
  return "extern \"C\" __attribute__((visibility(\"default\"))) void " +
         std::string(kKernelEntrySymbol) + "(const std::uint64_t* args) {\n";
}

PYPTO_DECL std::string CpuTarget::entry_close() { return "}\n"; }

PYPTO_DECL std::string CpuTarget::tensor_param(const TensorRef& t, std::size_t index) {
  return "auto* const " + t.name + " = reinterpret_cast<pypto::codegen::TensorArg*>(args[" +
         std::to_string(index) + "]);\n" + std::string(element_type(t.dtype)) + "* const " +
         t.data + " = static_cast<" + std::string(element_type(t.dtype)) + "*>(" + t.name +
         "->data);\n";
}

PYPTO_DECL std::string CpuTarget::scalar_param(std::string_view name, core::DataType t,
                                               std::size_t index) {
  const std::string arg = "args[" + std::to_string(index) + "]";
  const std::string type(scalar_type(t));
  if (t == core::DataType::FP32)
    return "const float " + std::string(name) +
           " = std::bit_cast<float>(static_cast<std::uint32_t>(" + arg + "));\n";
  if (t == core::DataType::BOOL)
    return "const bool " + std::string(name) + " = " + arg + " != 0;\n";
  return "const " + type + " " + std::string(name) + " = static_cast<" + type + ">(" + arg + ");\n";
}

PYPTO_DECL std::string CpuTarget::tensor_create(const TensorRef& t,
                                                const std::vector<std::string>& dims,
                                                std::string_view value) {
  const std::string e(element_type(t.dtype));
  std::string size, shape;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    size += (k ? " * " : "") + std::string("static_cast<std::size_t>(") + dims[k] + ")";
    shape += (k ? ", " : "") + std::string("static_cast<std::int64_t>(") + dims[k] + ")";
  }
  if (dims.empty()) size = "1";
  std::string s =
      "std::vector<" + e + "> " + t.name + "s(" + size + ", " + std::string(value) + ");\n";
  s += "pypto::codegen::TensorArg " + t.name + "a{" + t.name + "s.data(), " +
       std::to_string(dims.size()) + ", {" + shape + "}};\n";
  s += "auto* const " + t.name + " = &" + t.name + "a;\n";
  s += e + "* const " + t.data + " = " + t.name + "s.data();\n";
  return s;
}

PYPTO_DECL std::string CpuTarget::tile_decl(const TileRef& t) {
  return "std::vector<" + std::string(element_type(t.dtype)) + "> " + t.name +
         "(static_cast<std::size_t>(" + tile_size_text(t) + "));\n";
}

PYPTO_DECL std::string CpuTarget::extents(const TileRef& t) {
  std::vector<std::string> e;
  for (const Dim& d : t.dims) e.push_back(d.text);
  return brace_list(e);
}

PYPTO_DECL std::string CpuTarget::tile_load(const TileRef& t, const TensorRef& src,
                                            const std::vector<std::string>& offsets,
                                            std::int64_t site) {
  return "pk::copy_box(" + t.name + ".data(), " + src.data + ", " + src.name + "->shape, " +
         brace_list(offsets) + ", " + extents(t) + ", pk::Box::Load, " + std::to_string(site) +
         ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_load_valid(const TileRef& t, const TensorRef& src,
                                                  const std::vector<std::string>& offsets,
                                                  const std::vector<std::string>& valid,
                                                  std::int64_t site) {
  return "pk::copy_box_valid(" + t.name + ".data(), " + src.data + ", " + src.name + "->shape, " +
         brace_list(offsets) + ", " + extents(t) + ", " + brace_list(valid) + ", " +
         std::to_string(site) + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_store_valid(const TileRef& t, const TensorRef& dst,
                                                   const std::vector<std::string>& offsets,
                                                   const std::vector<std::string>& valid,
                                                   bool atomic_add, std::int64_t site) {
  return "pk::copy_box_valid(" + t.name + ".data(), " + dst.data + ", " + dst.name + "->shape, " +
         brace_list(offsets) + ", " + extents(t) + ", " + brace_list(valid) + ", " +
         std::to_string(site) + (atomic_add ? ", pk::Box::StoreAdd" : ", pk::Box::Store") + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_store(const TileRef& t, const TensorRef& dst,
                                             const std::vector<std::string>& offsets,
                                             bool atomic_add, std::int64_t site) {
  return "pk::copy_box(" + t.name + ".data(), " + dst.data + ", " + dst.name + "->shape, " +
         brace_list(offsets) + ", " + extents(t) + ", " +
         (atomic_add ? "pk::Box::StoreAdd" : "pk::Box::Store") + ", " + std::to_string(site) +
         ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_fill(const TileRef& t, std::string_view value) {
  return "std::fill(" + t.name + ".begin(), " + t.name + ".end(), " + std::string(value) + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_cast(const TileRef& dst, const TileRef& src,
                                            std::size_t mode) {
  const bool rounds = core::is_float(src.dtype) && !core::is_float(dst.dtype);
  return "for (std::size_t i = 0; i < " + src.name + ".size(); ++i) " + dst.name +
         "[i] = pk::" + (rounds ? "cast_rounded<" : "cast<") +
         std::string(element_type(dst.dtype)) + ">(" + src.name + "[i]" +
         (rounds ? ", " + std::to_string(mode) : std::string()) + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_copy(const TileRef& dst, const TileRef& src) {
  return dst.name + " = " + src.name + ";\n";
}

namespace detail::cpu_target {

/// pk::matmul over 2-D tiles, or per batch over tiles of rank 3 (a 2-D operand, or one whose
/// batch is 1, is the same matrix for every batch of the result).
inline std::string matmul_call(const TileRef& c, const TileRef* acc, std::string_view init,
                               const TileRef& a, const TileRef& b) {
  const std::string accumulator = acc ? acc->name + ".data()" : "nullptr";
  if (c.dims.size() <= 2)
    return "pk::matmul(" + c.name + ".data(), " + accumulator + ", " + std::string(init) + ", " +
           a.name + ".data(), " + b.name + ".data(), " + tile_rows(a).text + ", " +
           tile_cols(a).text + ", " + tile_cols(b).text + ");\n";
  const std::string m = "(" + a.dims[a.dims.size() - 2].text + ")",
                    k = "(" + a.dims.back().text + ")", n = "(" + b.dims.back().text + ")";
  const auto step = [](const TileRef& t, const std::string& size) {
    return t.dims.size() == 3 && t.dims[0].value != 1 ? "q * " + size : std::string("0");
  };
  return "for (std::int64_t q = 0; q < " + c.dims[0].text + "; ++q) pk::matmul(" + c.name +
         ".data() + q * " + m + " * " + n + ", " +
         (acc ? accumulator + " + q * " + m + " * " + n : accumulator) + ", " + std::string(init) +
         ", " + a.name + ".data() + " + step(a, m + " * " + k) + ", " + b.name + ".data() + " +
         step(b, k + " * " + n) + ", " + m + ", " + k + ", " + n + ");\n";
}

}  // namespace detail::cpu_target

PYPTO_DECL std::string CpuTarget::tile_matmul(const TileRef& c, const TileRef& a,
                                              const TileRef& b) {
  return detail::cpu_target::matmul_call(c, nullptr, "false", a, b);
}

PYPTO_DECL std::string CpuTarget::tile_matmul_acc(const TileRef& c, const TileRef& acc,
                                                  const TileRef& a, const TileRef& b,
                                                  std::string_view init) {
  return detail::cpu_target::matmul_call(c, &acc, init, a, b);
}

PYPTO_DECL std::string CpuTarget::tile_index_sequence(const TileRef& t, std::string_view start,
                                                      bool descending) {
  // The tile is zero when declared; unsigned arithmetic wraps, and the conversion to the dtype
  // keeps the low bits (C++20), as the interpreter's wrap does.
  const std::string e(element_type(t.dtype));
  return "for (std::int64_t k = 0; k < " + tile_cols(t).text + "; ++k) " + t.name +
         "[static_cast<std::size_t>(k)] = static_cast<" + e +
         ">(static_cast<std::uint64_t>(static_cast<std::int64_t>(" + std::string(start) + ")) " +
         (descending ? "-" : "+") + " static_cast<std::uint64_t>(k));\n";
}

PYPTO_DECL std::string CpuTarget::tile_element(ElementOp op, int mode, const TileRef& dst,
                                               const TileRef& a, std::string_view b, bool b_scalar,
                                               std::string_view int_expr) {
  const ElementOpInfo info = element_op_info(op);
  const bool is_float = core::is_float(dst.dtype);
  const std::string e(element_type(dst.dtype));
  const std::string y = b.empty() ? "" : std::string(b) + (b_scalar ? "" : "[i]");
  std::string s = "for (std::size_t i = 0; i < " + dst.name + ".size(); ++i) {\n";
  if (!is_float) {  // the scalar node's expression of x and y, in the element type
    s += "  const " + e + " x = " + a.name + "[i];\n";
    if (!y.empty()) s += "  const " + e + " y = static_cast<" + e + ">(" + y + ");\n";
    return s + "  " + dst.name + "[i] = " + std::string(int_expr) + ";\n}\n";
  }
  s += "  const float x = pk::widen(" + a.name + "[i]);\n";
  if (!y.empty()) s += "  const float y = pk::widen(" + y + ");\n";
  const std::string call = "pypto::codegen::element::" + std::string(info.name) + "(" +
                           (op == ElementOp::Compare ? std::to_string(mode) + ", " : "") + "x" +
                           (info.arity == 2 ? ", y" : "") + ")";
  const std::string value =
      dst.dtype == core::DataType::FP32 ? call : round_to_dtype(dst.dtype, call);
  return s + "  " + dst.name + "[i] = " + value + ";\n}\n";
}

PYPTO_DECL std::string CpuTarget::tile_fillpad(const TileRef& dst, const TileRef& src,
                                               const std::vector<std::string>& valid, int mode) {
  return "pk::fillpad(" + dst.name + ".data(), " + tile_rows(dst).text + ", " +
         tile_cols(dst).text + ", " + src.name + ".data(), " + tile_rows(src).text + ", " +
         tile_cols(src).text + ", " + valid.at(0) + ", " + valid.at(1) + ", " +
         std::to_string(mode) + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_compare_mask(const TileRef& dst, const TileRef& a,
                                                    std::string_view b, bool b_scalar, int mode) {
  const std::string e(element_type(a.dtype));
  return "pk::compare_mask(" + dst.name + ".data(), " + tile_cols(dst).text + ", " + a.name +
         ".data(), " +
         (b_scalar ? "static_cast<const " + e + "*>(nullptr), " + std::string(b)
                   : std::string(b) + ".data(), 0") +
         ", " + tile_rows(a).text + ", " + tile_cols(a).text + ", " + std::to_string(mode) + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_select(const TileRef& dst, const TileRef& mask, bool packed,
                                              const TileRef& a, std::string_view other,
                                              bool other_scalar) {
  const std::string e(element_type(a.dtype));
  const std::string s = core::is_float(a.dtype) && a.dtype != core::DataType::FP32
                            ? "pk::round_to<" + e + ">(" + std::string(other) + ")"
                            : "static_cast<" + e + ">(" + std::string(other) + ")";
  return "pk::select(" + dst.name + ".data(), " + mask.name + ".data(), " + tile_cols(mask).text +
         ", " + (packed ? "true" : "false") + ", " + a.name + ".data(), " +
         (other_scalar ? "static_cast<const " + e + "*>(nullptr), " + s
                       : std::string(other) + ".data(), " + e + "{}") +
         ", " + tile_rows(a).text + ", " + tile_cols(a).text + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_at(const TileRef& t, std::string_view flat) {
  return t.name + "[static_cast<std::size_t>(" + std::string(flat) + ")]";
}

PYPTO_DECL std::string CpuTarget::tile_broadcast(const TileRef& dst, const TileRef& vec) {
  return "pk::broadcast(" + dst.name + ".data(), " + tile_rows(dst).text + ", " +
         tile_cols(dst).text + ", " + vec.name + ".data(), " + tile_rows(vec).text + ", " +
         tile_cols(vec).text + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_add_bias(const TileRef& dst, const TileRef& bias,
                                                std::string_view rows) {
  return "pk::add_bias(" + dst.name + ".data(), " + bias.name + ".data(), " + std::string(rows) +
         ", " + tile_cols(dst).text + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_triangle(const TileRef& dst, std::string_view diagonal,
                                                bool upper) {
  return "pk::triangle(" + dst.name + ".data(), " + tile_rows(dst).text + ", " +
         tile_cols(dst).text + ", static_cast<std::int64_t>(" + std::string(diagonal) + "), " +
         (upper ? "true" : "false") + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_assemble(const TileRef& dst, const TileRef& src,
                                                const std::vector<std::string>& offsets,
                                                std::int64_t site,
                                                const std::vector<std::string>& valid) {
  // The target tile's extents stand in for a tensor's shape, as tile_slice's do.
  const std::string into = "std::initializer_list<std::int64_t>" + extents(dst) + ".begin(), " +
                           brace_list(offsets) + ", " + extents(src) + ", ";
  if (!valid.empty())
    return "pk::copy_box_valid(" + src.name + ".data(), " + dst.name + ".data(), " + into +
           brace_list(valid) + ", " + std::to_string(site) + ", pk::Box::Store);\n";
  return "pk::copy_box(" + src.name + ".data(), " + dst.name + ".data(), " + into +
         "pk::Box::Store, " + std::to_string(site) + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_expdif(const TileRef& dst, const TileRef& a,
                                              const TileRef& v) {
  return "pk::expdif(" + dst.name + ".data(), " + a.name + ".data(), " + tile_rows(a).text + ", " +
         tile_cols(a).text + ", " + v.name + ".data(), " + tile_rows(v).text + ", " +
         tile_cols(v).text + ");\n";
}

PYPTO_DECL std::string CpuTarget::tensor_fold_2d(const TensorRef& t, std::string_view name) {
  std::string rows = "1";
  for (std::size_t k = 0; k + 1 < t.rank; ++k)
    rows += " * " + t.name + "->shape[" + std::to_string(k) + "]";
  const std::string n(name);
  return "const pypto::codegen::TensorArg " + n + "_arg{" + t.name + "->data, 2, {" + rows + ", " +
         t.name + "->shape[" + std::to_string(t.rank - 1) + "]}};\nconst auto* const " + n +
         " = &" + n + "_arg;\n";
}

PYPTO_DECL std::string CpuTarget::irregular_view(const TileRef& t) {
  return "pypto::codegen::irregular::view(" + t.name + ".data(), " + tile_rows(t).text + ", " +
         tile_cols(t).text + ")";
}

PYPTO_DECL std::string CpuTarget::irregular_view(const TensorRef& t) {
  return "pk::tensor_view(" + t.name + ", " + t.data + ")";
}

PYPTO_DECL std::string CpuTarget::irregular_call(std::string_view function,
                                                 const std::vector<std::string>& operands,
                                                 std::int64_t site) {
  std::string call = "pk::irregular(pypto::codegen::irregular::" + std::string(function) + "(";
  for (std::size_t k = 0; k < operands.size(); ++k) call += (k ? ", " : "") + operands[k];
  return call + "), " + std::to_string(site) + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_reduce(const TileRef& dst, const TileRef& src,
                                              Reduction kind, bool by_row, bool index, bool tree) {
  if (tree)
    return "pk::col_sum_tree(" + dst.name + ".data(), " + src.name + ".data(), " +
           tile_rows(src).text + ", " + tile_cols(src).text + ");\n";
  if (index)
    return "pk::arg_reduce<" + std::to_string(static_cast<int>(kind)) + ">(" + dst.name +
           ".data(), " + src.name + ".data(), " + tile_rows(src).text + ", " + tile_cols(src).text +
           ", " + (by_row ? "true" : "false") + ");\n";
  return "pk::reduce<" + std::to_string(static_cast<int>(kind)) + ">(" + dst.name + ".data(), " +
         src.name + ".data(), " + tile_rows(src).text + ", " + tile_cols(src).text + ", " +
         (by_row ? "true" : "false") + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_slice(const TileRef& dst, const TileRef& src,
                                             const std::vector<std::string>& offsets,
                                             const std::vector<std::string>& valid,
                                             std::int64_t site) {
  // The source tile's extents stand in for a tensor's shape (an array for the call's duration).
  const std::string from = src.name + ".data(), std::initializer_list<std::int64_t>" +
                           extents(src) + ".begin(), " + brace_list(offsets) + ", " + extents(dst);
  if (valid.empty())
    return "pk::copy_box(" + dst.name + ".data(), " + from + ", pk::Box::Load, " +
           std::to_string(site) + ");\n";
  return "pk::copy_box_valid(" + dst.name + ".data(), " + from + ", " + brace_list(valid) + ", " +
         std::to_string(site) + ");\n";
}

PYPTO_DECL std::string CpuTarget::tile_reshape(const TileRef& dst, const TileRef& src) {
  return tile_copy(dst, src);  // a std::vector of the same elements
}

PYPTO_DECL std::string CpuTarget::tile_transpose(const TileRef& dst, const TileRef& src) {
  // The last two dimensions swapped, batch by batch.
  const std::size_t r = src.dims.size();
  const std::string rows = src.dims[r - 2].text, cols = src.dims[r - 1].text;
  return "for (std::int64_t q = 0; q < " + tile_size_text(src) + "; q += (" + rows + ") * (" +
         cols + ")) pk::transpose(" + dst.name + ".data() + q, " + src.name + ".data() + q, " +
         rows + ", " + cols + ");\n";
}

PYPTO_DECL std::string CpuTarget::block_idx() { return "pk::block_idx"; }
PYPTO_DECL std::string CpuTarget::block_num() { return "pk::block_num"; }

PYPTO_DECL std::string CpuTarget::pipe_sync(Pipe, Pipe) { return {}; }

PYPTO_DECL std::string CpuTarget::pipe_barrier() { return {}; }

PYPTO_DECL std::string CpuTarget::tile_elementwise(kernel::Op op, const TileRef& dst,
                                                   const TileRef& a, std::string_view b,
                                                   bool b_scalar) {
  if (dst.dtype == core::DataType::FP16 || dst.dtype == core::DataType::BF16)
    return half_op(op, dst, a, b, b_scalar);
  const std::string fn = "pk::" + std::string(int_fn(op));
  std::string rhs;
  if (kernel::arity(op) == 2) rhs = ", " + std::string(b) + (b_scalar ? "" : "[i]");
  return "for (std::size_t i = 0; i < " + dst.name + ".size(); ++i) " + dst.name + "[i] = " + fn +
         "(" + a.name + "[i]" + rhs + ");\n";
}

PYPTO_DECL std::string CpuTarget::half_op(kernel::Op op, const TileRef& dst, const TileRef& a,
                                          std::string_view b, bool b_scalar) {
  const std::string_view instr = instr_table[static_cast<std::size_t>(op)];
  const std::string e(element_type(dst.dtype));
  const std::string loop = "for (std::size_t i = 0; i < " + dst.name + ".size(); ++i) {\n";
  if (kernel::is_reduction(op)) {
    const bool sum = op == kernel::Op::RowSum || op == kernel::Op::ColSum;
    return "{\n  const std::size_t pk_cols = static_cast<std::size_t>(" + tile_cols(a).text +
           ");\n  " + loop + "    float acc = pk::widen(" + a.name +
           "[i * pk_cols]);\n    for (std::size_t j = 1; j < pk_cols; ++j) {\n" +
           "      const float x = pk::widen(" + a.name + "[i * pk_cols + j]);\n      " +
           format_template(instr, "acc", "x") + "\n" +
           (sum ? "      acc = pk::widen(" + round_to_dtype(dst.dtype, "acc") + ");\n" : "") +
           "    }\n    " + dst.name + "[i] = pk::narrow<" + e + ">(acc);\n  }\n}\n";
  }
  const bool binary = kernel::arity(op) == 2;
  return loop + "  const float x = pk::widen(" + a.name + "[i])" +
         (binary ? ", y = pk::widen(" + std::string(b) + (b_scalar ? ")" : "[i])") : "") +
         ";\n  float r = 0.0f;\n  " + format_template(instr, "r", "x", "y") + "\n  " + dst.name +
         "[i] = " + round_to_dtype(dst.dtype, "r") + ";\n}\n";
}

}  // namespace pypto::codegen
