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

/// An index outside [0, size) (`invalid` false) or an operand outside the op's domain (true).
struct Fault {
  bool fault = false;
  bool invalid = false;
  std::int64_t value = 0, size = 0;
};

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

/// tile.gather, index form: dst[i][j] is src's element idx[i][j], counted row-major over the
/// whole source tile.
template <class D, class S, class I>
Fault gather(View<D> dst, View<S> src, View<I> idx) {
  const std::int64_t size = src.rows * src.cols;
  for (std::int64_t r = 0; r < dst.rows; ++r)
    for (std::int64_t c = 0; c < dst.cols; ++c) {
      const auto k = static_cast<std::int64_t>(idx.at(r, c));
      if (k < 0 || k >= size) return {true, false, k, size};
      dst.at(r, c) = src.data[k];
    }
  return {};
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
  if (pattern < 1 || pattern > 7) return {true, true, pattern, 0};
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
  if (block_len <= 0 || block_len % 64 != 0) return {true, true, block_len, 0};
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
  if (n < 2 || n > 4) return {true, true, n, 0};
  for (int k = 0; k < n; ++k) {
    runs[k] = lists[k].data;
    pairs[k] = lists[k].rows * lists[k].cols / 2;
    total += 2 * pairs[k];
  }
  if (total > dst.rows * dst.cols) return {true, false, total, dst.rows * dst.cols};
  merge_runs(dst.data, runs, pairs, n);
  return {};
}
template <class... L>
Fault mrgsort2(View<float> dst, L... lists) {
  const View<const float> all[] = {View<const float>{lists.data, lists.rows, lists.cols}...};
  return merge_lists(dst, all, static_cast<int>(sizeof...(L)));
}

}  // namespace pypto::codegen::irregular
