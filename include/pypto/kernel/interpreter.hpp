// pypto/kernel/interpreter.hpp — the reference semantics of a kernel Spec on real buffers, and
// a NaN-aware bit-exact comparator.
//
// evaluate(spec, inputs, grid) validates the spec and the buffer sizes, then runs the matmul
// segment, if any (per element, the k products in increasing order summed left to right from
// the first product, each rounded to binary32), then the reductions and reduction views, each
// into a vector (sums left to right or top to bottom, maxima from the first element: no
// identity value), then the elementwise instructions, per element in row-major order. The op
// semantics are IEEE binary32 with every result rounded (op_semantics.hpp; no FMA contraction,
// no excess precision); transcendentals use <cmath> in float and are never folded.
// O(rows*cols*instrs) time, O(rows + cols) extra space per reduction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/validate.hpp"

namespace pypto::kernel {

/// The grid a kernel runs over; `batch` is the value of GridIndex Batch (for a batched matmul,
/// the batch index of the first block of rows).
struct Grid {
  std::size_t rows = 1;
  std::size_t cols = 1;
  std::uint32_t batch = 0;
};

/// The number of values the buffer of input `v` of a valid `spec` needs on `grid`: what its
/// view reads, or for a matmul operand slot its stacked matrices (A: rows*k values, B:
/// batch*k*cols). Throws core::ValueError when no buffer fits: the matmul batch does not divide
/// the rows, or one slot is both A and B with different sizes.
PYPTO_DECL std::size_t input_size(const Spec& spec, std::size_t v, const Grid& grid);

/// Runs `spec` on one buffer per input (in view order) over `grid`; returns the output register
/// of every element, rows*cols values in row-major order. GridIndex Row and Batch read (r % m)
/// and (grid.batch + r / m) for m = rows / matmul.batch (m = rows without a matmul). Throws
/// SpecError for an invalid spec and core::ValueError for a grid or buffer that does not fit
/// the views or the matmul (the message names the input and the expected size). Semantics:
/// IEEE binary32, round to nearest, denormals kept; Max(a,b) = a < b ? b : a and Min(a,b) =
/// b < a ? b : a (order-sensitive for NaN and +-0); compares yield 1.0f or 0.0f; Select(a,b,c)
/// = a != 0 ? b : c (a NaN condition selects b); Rsqrt = 1/sqrt.
PYPTO_DECL std::vector<float> evaluate(const Spec& spec,
                                       std::span<const std::span<const float>> inputs, Grid grid);

/// Bit equality, except that any NaN equals any NaN (payloads and signs of NaNs are not
/// portable across devices; everything else, including the sign of zero, must match).
PYPTO_DECL bool same_float(float a, float b);

/// Index of the first element where `a` and `b` differ under same_float, or -1 when equal
/// (a size difference is a mismatch at the shorter size).
PYPTO_DECL std::ptrdiff_t first_mismatch(std::span<const float> a, std::span<const float> b);

}  // namespace pypto::kernel

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/kernel/interpreter.ipp"
#endif
