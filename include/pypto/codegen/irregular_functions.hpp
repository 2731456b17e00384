// pypto/codegen/irregular_functions.hpp — the gathers, sorts and merges of PTO-ISA's irregular
// instructions over row-major tiles, one function template each. The interpreter calls them on
// its buffers; the code the CPU target generates includes this header and calls them by name, so
// both move and order the same elements. Each returns a Fault instead of reading outside a tile
// (the caller reports it). Standard headers only: every generated kernel compiles it.
// What each op means is in docs/runtime.md.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace pypto::codegen::irregular {

/// A row-major tile: leading dimensions folded into rows.
template <class E>
struct View {
  E* data;
  std::int64_t rows, cols;
  E& at(std::int64_t r, std::int64_t c) const { return data[r * cols + c]; }
};

template <class E>
View<E> view(E* data, std::int64_t rows, std::int64_t cols) {
  return {data, rows, cols};
}

/// What stopped a function: an index `value` outside [0, size), an operand `value` outside the
/// op's domain, or operands whose shapes do not fit together. The kinds are kernel_abi.hpp's
/// KernelFaultKind numbers.
struct Fault {
  enum Kind : int { None = 0, Index = 1, Operand = 5, Shape = 6 } kind = None;
  std::int64_t value = 0, size = 0;

  static Fault index(std::int64_t v, std::int64_t size) { return {Index, v, size}; }
  static Fault operand(std::int64_t v) { return {Operand, v, 0}; }
  static Fault shape() { return {Shape, 0, 0}; }
  explicit operator bool() const { return kind != None; }
};

/// Whether a view holds at least rows x cols.
template <class E>
bool holds(View<E> v, std::int64_t rows, std::int64_t cols) {
  return v.rows >= rows && v.cols >= cols;
}

/// An element of another type of the same width keeps its bits (gather_mask's output_dtype).
template <class D, class S>
D bits_as(S s) {
  if constexpr (std::is_same_v<std::remove_const_t<D>, std::remove_const_t<S>>) {
    return s;
  } else {
    static_assert(sizeof(D) == sizeof(S), "a reinterpretation keeps the element width");
    D d;
    std::memcpy(&d, &s, sizeof d);
    return d;
  }
}

/// Calls move(r, c, k) for each index k = idx[r][c] in row-major order; an index outside
/// [0, size) is a fault.
template <class I, class Move>
Fault each_index(View<I> idx, std::int64_t size, Move move) {
  for (std::int64_t r = 0; r < idx.rows; ++r)
    for (std::int64_t c = 0; c < idx.cols; ++c) {
      const auto k = static_cast<std::int64_t>(idx.at(r, c));
      if (k < 0 || k >= size) return Fault::index(k, size);
      move(r, c, k);
    }
  return {};
}

/// tile.gather, index form: dst[i][j] is src's element idx[i][j], counted row-major over the
/// whole source tile.
template <class D, class S, class I>
Fault gather(View<D> dst, View<S> src, View<I> idx) {
  if (!holds(dst, idx.rows, idx.cols)) return Fault::shape();
  return each_index(idx, src.rows * src.cols, [&](std::int64_t r, std::int64_t c, std::int64_t k) {
    dst.at(r, c) = src.data[k];
  });
}

/// Whether column `c` is one of PTO-ISA mask pattern `pattern`'s (1 P0101 even columns, 2 P1010
/// odd, 3..6 P0001 / P0010 / P0100 / P1000 column c % 4 == 0..3, 7 P1111 every column).
inline bool mask_selects(int pattern, std::int64_t c) {
  if (pattern == 1 || pattern == 2) return c % 2 == pattern - 1;
  if (pattern >= 3 && pattern <= 6) return c % 4 == pattern - 3;
  return true;
}

/// tile.gather_mask: each row's selected columns, in order, packed to the front of its row.
template <class D, class S>
Fault gather_mask(View<D> dst, View<S> src, int pattern) {
  if (pattern < 1 || pattern > 7) return Fault::operand(pattern);
  if (dst.rows < src.rows) return Fault::shape();
  for (std::int64_t r = 0; r < src.rows; ++r) {
    std::int64_t out = 0;
    for (std::int64_t c = 0; c < src.cols && out < dst.cols; ++c)
      if (mask_selects(pattern, c)) dst.at(r, out++) = bits_as<D>(src.at(r, c));
  }
  return {};
}

/// The order of the sorts and merges: descending by value, a NaN before every number (it sorts
/// as the largest), numbers equal under == (+0 and -0 too) tied.
inline bool precedes(float a, float b) {
  if (a != a) return b == b;
  return b == b && a > b;
}

/// The index bits a value-index pair stores in its second float.
inline float index_bits(std::uint32_t i) { return bits_as<float>(i); }

/// tile.sort32 (FP32): each row's 32-element blocks sorted apart (the last may be shorter), each
/// value with its index from idx (one row for every row, or a row per row); dst row r holds the
/// sorted pairs [value, index bits] of src row r. Ties keep the smaller index first.
template <class S, class I>
Fault sort32(View<float> dst, View<S> src, View<I> idx) {
  if (!holds(dst, src.rows, 2 * src.cols) || idx.cols < src.cols ||
      (idx.rows != 1 && idx.rows < src.rows))
    return Fault::shape();
  struct Pair {
    float value;
    std::uint32_t index;
  };
  std::vector<Pair> block;
  for (std::int64_t r = 0; r < src.rows; ++r)
    for (std::int64_t b = 0; b < src.cols; b += 32) {
      const std::int64_t n = std::min<std::int64_t>(32, src.cols - b);
      block.clear();
      for (std::int64_t k = 0; k < n; ++k)
        block.push_back(
            {src.at(r, b + k), static_cast<std::uint32_t>(idx.at(idx.rows == 1 ? 0 : r, b + k))});
      std::stable_sort(block.begin(), block.end(), [](const Pair& x, const Pair& y) {
        if (precedes(x.value, y.value)) return true;
        if (precedes(y.value, x.value)) return false;
        return x.index < y.index;
      });
      for (std::int64_t k = 0; k < n; ++k) {
        dst.at(r, 2 * (b + k)) = block[static_cast<std::size_t>(k)].value;
        dst.at(r, 2 * (b + k) + 1) = index_bits(block[static_cast<std::size_t>(k)].index);
      }
    }
  return {};
}

/// Merges sorted runs of value-index pairs (two floats each) of one row into `out`: at each step
/// the run whose head precedes every other head's, the earliest run among equal heads.
inline void merge_runs(float* out, const float* const* runs, const std::int64_t* pairs, int n) {
  std::int64_t at[4] = {0, 0, 0, 0};
  for (;;) {
    int pick = -1;
    for (int k = 0; k < n; ++k)
      if (at[k] < pairs[k] && (pick < 0 || precedes(runs[k][2 * at[k]], runs[pick][2 * at[pick]])))
        pick = k;
    if (pick < 0) return;
    *out++ = runs[pick][2 * at[pick]];
    *out++ = runs[pick][2 * at[pick] + 1];
    ++at[pick];
  }
}

/// tile.mrgsort_format1 (FP32): in each row, every group of four consecutive runs of block_len
/// floats (block_len / 2 pairs; a positive multiple of 64, as the device's) merged into one run;
/// columns after the last whole group copied.
template <class S>
Fault mrgsort1(View<float> dst, View<S> src, std::int64_t block_len) {
  if (block_len <= 0 || block_len % 64 != 0) return Fault::operand(block_len);
  if (!holds(dst, src.rows, src.cols)) return Fault::shape();
  const std::int64_t group = 4 * block_len;
  for (std::int64_t r = 0; r < src.rows; ++r) {
    std::int64_t c = 0;
    for (; c + group <= src.cols; c += group) {
      const float* runs[4];
      std::int64_t pairs[4];
      for (int k = 0; k < 4; ++k) {
        runs[k] = &src.at(r, c + k * block_len);
        pairs[k] = block_len / 2;
      }
      merge_runs(&dst.at(r, c), runs, pairs, 4);
    }
    for (; c < src.cols; ++c) dst.at(r, c) = src.at(r, c);
  }
  return {};
}

/// tile.mrgsort_format2 (FP32): two to four sorted one-row lists merged into dst's row.
inline Fault merge_lists(View<float> dst, const View<const float>* lists, int n) {
  const float* runs[4];
  std::int64_t pairs[4];
  std::int64_t total = 0;
  if (n < 2 || n > 4) return Fault::operand(n);
  for (int k = 0; k < n; ++k) {
    runs[k] = lists[k].data;
    pairs[k] = lists[k].rows * lists[k].cols / 2;
    total += 2 * pairs[k];
  }
  if (total > dst.rows * dst.cols) return Fault::shape();
  merge_runs(dst.data, runs, pairs, n);
  return {};
}
template <class... L>
Fault mrgsort2(View<float> dst, L... lists) {
  const View<const float> all[] = {View<const float>{lists.data, lists.rows, lists.cols}...};
  return merge_lists(dst, all, static_cast<int>(sizeof...(L)));
}

/// tile.scatter (and tile.mscatter into a tensor): dst's element at each index idx[i][j],
/// counted row-major over the whole of dst, becomes src[i][j], in row-major order (the last
/// write wins); every other element keeps its value.
template <class D, class S, class I>
Fault scatter(View<D> dst, View<S> src, View<I> idx) {
  if (!holds(src, idx.rows, idx.cols)) return Fault::shape();
  return each_index(idx, dst.rows * dst.cols, [&](std::int64_t r, std::int64_t c, std::int64_t k) {
    dst.data[k] = src.at(r, c);
  });
}

/// scatter_mask, the inverse of gather_mask: each row's selected columns of dst take src's row
/// in order; the others become zero (tile.scatter_mask, as the device's) or keep theirs
/// (tensor.scatter_mask: `keep`).
template <class D, class S>
Fault scatter_mask(View<D> dst, View<S> src, int pattern, bool keep) {
  if (pattern < 1 || pattern > 7) return Fault::operand(pattern);
  for (std::int64_t r = 0; r < dst.rows && r < src.rows; ++r) {
    std::int64_t in = 0;
    for (std::int64_t c = 0; c < dst.cols; ++c) {
      if (mask_selects(pattern, c) && in < src.cols)
        dst.at(r, c) = src.at(r, in++);
      else if (!keep)
        dst.at(r, c) = D{};
    }
  }
  return {};
}

/// tile.scatter_update: row idx.flat[k] of dst becomes row k of src, k in order (the last write
/// wins).
template <class D, class S, class I>
Fault scatter_rows(View<D> dst, View<S> src, View<I> idx) {
  for (std::int64_t k = 0; k < idx.rows * idx.cols && k < src.rows; ++k) {
    const auto row = static_cast<std::int64_t>(idx.data[k]);
    if (row < 0 || row >= dst.rows) return Fault::index(row, dst.rows);
    for (std::int64_t c = 0; c < dst.cols && c < src.cols; ++c) dst.at(row, c) = src.at(k, c);
  }
  return {};
}

/// tile.mgather: from a tensor `mem` (leading dimensions folded into rows), each row of dst is
/// the row idx.flat[r] (coalesce 0) or each element the element idx.flat[r * dst.cols + c]
/// counted row-major (coalesce 1), within dst's first `valid_rows` x `valid_cols` (a Mat
/// gather's valid_shape; the rest stays as it was). An index reads as its 32-bit unsigned
/// pattern; one outside mem is, by `oob`: an error (0, the device leaves it undefined), the last
/// (1, clamp), the index modulo the extent (2, wrap), or zero (3). A `scratch` with data (the Mat
/// element gather's staging tensor) receives each gathered element at its flat dst position.
template <class D, class M, class I, class S = std::remove_const_t<M>>
Fault mgather(View<D> dst, View<M> mem, View<I> idx, int coalesce, int oob, std::int64_t valid_rows,
              std::int64_t valid_cols, View<S> scratch = {}) {
  const bool rows = coalesce == 0;
  const std::int64_t extent = rows ? mem.rows : mem.rows * mem.cols;
  if ((coalesce != 0 && coalesce != 1) || oob < 0 || oob > 3 || extent == 0)
    return Fault::operand(coalesce != 0 && coalesce != 1 ? coalesce : oob);
  if (valid_rows < 0 || valid_cols < 0 || valid_rows > dst.rows || valid_cols > dst.cols ||
      (scratch.data && scratch.rows * scratch.cols < dst.rows * dst.cols))
    return Fault::shape();
  for (std::int64_t r = 0; r < valid_rows; ++r)
    for (std::int64_t c = 0; c < (rows ? 1 : valid_cols); ++c) {
      const std::int64_t k = rows ? r : r * dst.cols + c;
      if (k >= idx.rows * idx.cols) return {};
      auto at = static_cast<std::int64_t>(static_cast<std::uint32_t>(idx.data[k]));
      bool zero = false;
      if (at >= extent) {
        if (oob == 0) return Fault::index(static_cast<std::int64_t>(idx.data[k]), extent);
        if (oob == 1) at = extent - 1;
        if (oob == 2) at %= extent;
        zero = oob == 3;
      }
      if (!rows) {
        dst.data[k] = zero ? D{} : mem.data[at];
        if (scratch.data) scratch.data[k] = static_cast<S>(dst.data[k]);
        continue;
      }
      for (std::int64_t j = 0; j < valid_cols; ++j)
        dst.at(r, j) = zero || j >= mem.cols ? D{} : mem.at(at, j);
    }
  return {};
}

/// tile.gatherb: block c of dst's row r (32 bytes) is the 32 bytes of src at byte offset
/// offset[r][c] (src's bytes counted row-major), for the first `valid_rows` rows and
/// `valid_blocks` blocks of each; a block whose source passes src's end is left as it was
/// (PTO-ISA leaves it undefined). The elements' bytes are their tensor encoding.
template <class D, class S, class O>
Fault gatherb(View<D> dst, View<S> src, View<O> offset, std::int64_t valid_rows,
              std::int64_t valid_blocks) {
  constexpr std::int64_t kBlock = 32;
  const std::int64_t row_bytes = dst.cols * static_cast<std::int64_t>(sizeof(D)),
                     src_bytes = src.rows * src.cols * static_cast<std::int64_t>(sizeof(S));
  if (valid_rows < 0 || valid_blocks < 0 || valid_rows > dst.rows || valid_rows > offset.rows ||
      valid_blocks > offset.cols || valid_blocks * kBlock > row_bytes)
    return Fault::shape();
  const auto* from = reinterpret_cast<const unsigned char*>(src.data);
  auto* to = reinterpret_cast<unsigned char*>(dst.data);
  for (std::int64_t r = 0; r < valid_rows; ++r)
    for (std::int64_t c = 0; c < valid_blocks; ++c) {
      const auto at = static_cast<std::int64_t>(static_cast<std::uint32_t>(offset.at(r, c)));
      if (at + kBlock <= src_bytes)
        std::memcpy(to + r * row_bytes + c * kBlock, from + at, static_cast<std::size_t>(kBlock));
    }
  return {};
}

/// Whether `a` compares true with `b` under gather_compare's mode (0..5: == != < <= > >=).
inline bool compares(int mode, double a, double b) {
  switch (mode) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
  }
}

/// tile.gather_compare: for each row of src, the column indices plus `offset` of the elements
/// `value(e)` that compare true with kvalue, in order, packed to the front of the row of dst (as
/// many as it holds; the rest of the row is left as it is), and the number of them (every match)
/// in cdst[0][row]. The values compare exactly, as doubles.
template <class D, class C, class S, class Widen>
Fault gather_compare(View<D> dst, View<C> cdst, View<S> src, double kvalue, int mode,
                     std::int64_t offset, Widen value) {
  if (mode < 0 || mode > 5) return Fault::operand(mode);
  if (dst.rows < src.rows || cdst.rows * cdst.cols < src.rows) return Fault::shape();
  for (std::int64_t r = 0; r < src.rows; ++r) {
    std::int64_t count = 0;
    for (std::int64_t c = 0; c < src.cols; ++c) {
      if (!compares(mode, static_cast<double>(value(src.at(r, c))), kvalue)) continue;
      if (count < dst.cols) dst.at(r, count) = static_cast<D>(offset + c);
      ++count;
    }
    cdst.data[r] = static_cast<C>(count);
  }
  return {};
}

/// Philox4x32 with `rounds` rounds (Random123's): the four words of counter `c` under key k.
inline void philox(std::uint32_t c[4], std::uint32_t k0, std::uint32_t k1, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    const std::uint64_t p0 = std::uint64_t{c[0]} * 0xD2511F53u;
    const std::uint64_t p1 = std::uint64_t{c[2]} * 0xCD9E8D57u;
    const std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k0;
    const std::uint32_t n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k1;
    c[0] = n0;
    c[1] = static_cast<std::uint32_t>(p1);
    c[2] = n2;
    c[3] = static_cast<std::uint32_t>(p0);
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}

/// tile.random: Philox4x32 words over the valid rows x cols box, in the device's (A5) order.
/// The counter is 128 bits, counter0 its lowest word; row r starts at counter + r * (64 * (n -
/// 1) + (cols - 1) % 64 + 1), n the row's chunks of 256 columns, and column 256j + 4l + w takes
/// word w of the row's start + 64j + l. A signed dtype (`as_signed`) reads a word as its two's
/// complement. (PTO-ISA's CPU simulator orders the words otherwise; docs/runtime.md.)
template <class E>
Fault random(View<E> dst, std::int64_t valid_rows, std::int64_t valid_cols, std::uint32_t key0,
             std::uint32_t key1, std::uint32_t c0, std::uint32_t c1, std::uint32_t c2,
             std::uint32_t c3, int rounds, bool as_signed) {
  if (rounds != 7 && rounds != 10) return Fault::operand(rounds);
  if (valid_rows < 0 || valid_cols < 0 || valid_rows > dst.rows || valid_cols > dst.cols)
    return Fault::shape();
  if (valid_cols == 0) return {};
  const std::int64_t chunks = (valid_cols + 255) / 256;
  const std::int64_t per_row = 64 * (chunks - 1) + (valid_cols - 1) % 64 + 1;
  for (std::int64_t r = 0; r < valid_rows; ++r)
    for (std::int64_t col = 0; col < valid_cols; ++col) {
      const auto step = static_cast<std::uint64_t>(r * per_row + 64 * (col / 256) + col % 256 / 4);
      std::uint32_t c[4] = {c0, c1, c2, c3};
      std::uint64_t carry = step;
      for (std::uint32_t& w : c) {  // the 128-bit counter plus `step`
        const std::uint64_t sum = std::uint64_t{w} + (carry & 0xffffffffu);
        w = static_cast<std::uint32_t>(sum);
        carry = (carry >> 32) + (sum >> 32);
      }
      philox(c, key0, key1, rounds);
      const std::uint32_t word = c[col % 4];
      dst.at(r, col) =
          as_signed ? static_cast<E>(static_cast<std::int32_t>(word)) : static_cast<E>(word);
    }
  return {};
}

}  // namespace pypto::codegen::irregular
