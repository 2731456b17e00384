// pypto/kernel/interpreter.ipp — the definitions of kernel/interpreter.hpp.
//
// Strictness: every arithmetic result passes through a volatile store (detail::strict), since
// g++ contracts across statements under -ffp-contract=fast, its GNU-mode default; the cost is
// irrelevant for an oracle.
#pragma once

#include "pypto/kernel/interpreter.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/kernel/op_semantics.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/validate.hpp"

namespace pypto::kernel {

namespace detail {

inline std::size_t expected_input_size(const View& v, const Grid& g) {
  switch (v.kind) {
    case ViewKind::RowBroadcast: return g.cols;
    case ViewKind::ColBroadcast: return g.rows;
    case ViewKind::RowMod: return static_cast<std::size_t>(v.param) * g.cols;
    default: return g.rows * g.cols;
  }
}

/// a * b, or ValueError naming `what` when the product does not fit a size_t.
inline std::size_t checked_size(std::size_t a, std::size_t b, const char* what) {
  if (a != 0 && b > static_cast<std::size_t>(-1) / a) {
    throw core::ValueError(std::string("evaluate: the size of ") + what + " overflows");
  }
  return a * b;
}

/// The rows of one matmul block, m = rows / batch (rows without a matmul); ValueError when the
/// batch does not divide the grid's rows.
inline std::size_t rows_per_block(const Spec& spec, const Grid& g) {
  if (!spec.matmul) return g.rows;
  const std::size_t batch = spec.matmul->batch;
  if (batch == 0 || g.rows % batch != 0) {
    throw core::ValueError("evaluate: matmul.batch " + std::to_string(batch) +
                           " does not divide the grid's " + std::to_string(g.rows) + " rows");
  }
  return g.rows / batch;
}

class Evaluator {
 public:
  Evaluator(const Spec& spec, std::span<const std::span<const float>> inputs, Grid grid)
      : spec_(spec), inputs_(inputs), grid_(grid), block_rows_(rows_per_block(spec, grid)) {}

  std::vector<float> run() {
    // Phase 0: the matmul segment.
    if (spec_.matmul) run_matmul(*spec_.matmul);
    // Phase 1: reduction views, then reduction instructions in order.
    view_vectors_.resize(spec_.views.size());
    for (std::size_t v = 0; v < spec_.views.size(); ++v) reduce_view(v);
    for (const Instr& in : spec_.instrs) {
      if (!is_reduction(in.op)) continue;
      const bool by_row = op_info(in.op).cls == OpClass::RowReduction;
      const bool is_max = in.op == Op::RowMax || in.op == Op::ColMax;
      std::vector<float>& out = reductions_[in.dst];
      reduction_by_row_[in.dst] = by_row;
      out.assign(by_row ? grid_.rows : grid_.cols, 0.0f);
      const std::size_t outer = by_row ? grid_.rows : grid_.cols;
      const std::size_t inner = by_row ? grid_.cols : grid_.rows;
      for (std::size_t o = 0; o < outer; ++o) {
        float acc = 0.0f;
        for (std::size_t i = 0; i < inner; ++i) {
          const std::size_t r = by_row ? o : i, c = by_row ? i : o;
          const float x = read(in.a, r, c);
          acc = i == 0 ? x : (is_max ? apply_max(acc, x) : strict(acc + x));
        }
        out[o] = acc;
      }
    }
    // Phase 2: elementwise code per element.
    std::vector<float> result(grid_.rows * grid_.cols);
    const std::uint8_t out_reg = spec_.instrs.back().dst;
    for (std::size_t r = 0; r < grid_.rows; ++r) {
      for (std::size_t c = 0; c < grid_.cols; ++c) {
        for (const Instr& in : spec_.instrs) {
          if (is_reduction(in.op)) continue;
          const std::uint8_t n = arity(in.op);
          const float a = read(in.a, r, c);
          const float b = n > 1 ? read(in.b, r, c) : 0.0f;
          const float x = n > 2 ? read(in.c, r, c) : 0.0f;
          regs_[in.dst] = apply_op(in.op, a, b, x);
        }
        result[r * grid_.cols + c] = regs_[out_reg];
      }
    }
    return result;
  }

 private:
  float input_at(std::size_t v, std::size_t r, std::size_t c) const {
    const View& view = spec_.views[v];
    const std::span<const float> in = inputs_[v];
    const std::size_t cols = grid_.cols;
    switch (view.kind) {
      case ViewKind::Linear: return in[r * cols + c];
      case ViewKind::RowBroadcast: return in[c];
      case ViewKind::ColBroadcast: return in[r];
      case ViewKind::RowMod: return in[(r % view.param) * cols + c];
      case ViewKind::RotateHalf: {
        const std::size_t p = view.param, off = c % (2 * p), base = c - off;
        return off < p ? -in[r * cols + base + off + p] : in[r * cols + base + off - p];
      }
      case ViewKind::RowReduceSum:
      case ViewKind::RowReduceMax: return view_vectors_[v][r];
      default: return view_vectors_[v][c];  // column reduce views
    }
  }

  void run_matmul(const Matmul& mm) {
    const std::size_t m = block_rows_, n = grid_.cols, k = mm.k;
    const std::span<const float> a = inputs_[mm.a_input], b = inputs_[mm.b_input];
    matmul_.assign(grid_.rows * n, 0.0f);
    for (std::size_t r = 0; r < grid_.rows; ++r) {
      const std::size_t t = r / m, i = r % m;
      for (std::size_t c = 0; c < n; ++c) {
        float acc = 0.0f;
        for (std::size_t p = 0; p < k; ++p) {
          const float x = mm.trans_a ? a[(t * k + p) * m + i] : a[(t * m + i) * k + p];
          const float y = mm.trans_b ? b[(t * n + c) * k + p] : b[(t * k + p) * n + c];
          const float product = strict(x * y);
          acc = p == 0 ? product : strict(acc + product);
        }
        matmul_[r * n + c] = acc;
      }
    }
  }

  void reduce_view(std::size_t v) {
    const View& view = spec_.views[v];
    const bool by_row = view.kind == ViewKind::RowReduceSum || view.kind == ViewKind::RowReduceMax;
    const bool by_col = view.kind == ViewKind::ColReduceSum || view.kind == ViewKind::ColReduceMax;
    if (!by_row && !by_col) return;
    const bool is_max = view.kind == ViewKind::RowReduceMax || view.kind == ViewKind::ColReduceMax;
    const std::size_t outer = by_row ? grid_.rows : grid_.cols;
    const std::size_t inner = by_row ? grid_.cols : grid_.rows;
    std::vector<float>& out = view_vectors_[v];
    out.assign(outer, 0.0f);
    for (std::size_t o = 0; o < outer; ++o) {
      float acc = 0.0f;
      for (std::size_t i = 0; i < inner; ++i) {
        const std::size_t r = by_row ? o : i, c = by_row ? i : o;
        const float x = inputs_[v][r * grid_.cols + c];
        acc = i == 0 ? x : (is_max ? apply_max(acc, x) : strict(acc + x));
      }
      out[o] = acc;
    }
  }

  float read(const Operand& o, std::size_t r, std::size_t c) const {
    switch (o.kind) {
      case OperandKind::Reg: return regs_[o.index];
      case OperandKind::Input: return input_at(o.index, r, c);
      case OperandKind::Const: return bits_float(spec_.consts[o.index]);
      case OperandKind::RuntimeScalar: return bits_float(spec_.runtime_scalars[o.index]);
      case OperandKind::ReduceResult:
        return reductions_[o.index][reduction_by_row_[o.index] ? r : c];
      case OperandKind::GridIndex:
        if (o.index == 0) return static_cast<float>(r % block_rows_);
        if (o.index == 1) return static_cast<float>(c);
        return static_cast<float>(grid_.batch + r / block_rows_);
      case OperandKind::MatmulResult: return matmul_[r * grid_.cols + c];
      default: throw core::InternalError("read of an unused operand slot");
    }
  }

  const Spec& spec_;
  std::span<const std::span<const float>> inputs_;
  Grid grid_;
  std::array<float, kMaxRegs> regs_{};
  std::array<std::vector<float>, kMaxRegs> reductions_;
  std::array<bool, kMaxRegs> reduction_by_row_{};
  std::vector<std::vector<float>> view_vectors_;
  std::size_t block_rows_;     // m: rows per matmul block (rows without a matmul)
  std::vector<float> matmul_;  // C, rows x cols, row-major
};

}  // namespace detail

PYPTO_DECL std::size_t input_size(const Spec& spec, std::size_t v, const Grid& grid) {
  if (!is_matmul_operand(spec.matmul, v)) return detail::expected_input_size(spec.views[v], grid);
  const Matmul& mm = *spec.matmul;
  const std::size_t m = detail::rows_per_block(spec, grid);
  const std::size_t a = detail::checked_size(grid.rows, mm.k, "matmul operand A");
  const std::size_t b = detail::checked_size(
      detail::checked_size(mm.batch, mm.k, "matmul operand B"), grid.cols, "matmul operand B");
  const bool is_a = v == mm.a_input, is_b = v == mm.b_input;
  if (is_a && is_b && a != b) {
    throw core::ValueError("evaluate: input " + std::to_string(v) +
                           " is both matmul operands, but A needs " + std::to_string(a) +
                           " values (" + std::to_string(mm.batch) + " x " + std::to_string(m) +
                           " x " + std::to_string(mm.k) + ") and B needs " + std::to_string(b) +
                           " (" + std::to_string(mm.batch) + " x " + std::to_string(mm.k) + " x " +
                           std::to_string(grid.cols) + ")");
  }
  return is_a ? a : b;
}

PYPTO_DECL std::vector<float> evaluate(const Spec& spec,
                                       std::span<const std::span<const float>> inputs, Grid grid) {
  validate(spec);
  if (grid.rows == 0 || grid.cols == 0) {
    throw core::ValueError("evaluate: the grid must have at least one row and one column");
  }
  if (inputs.size() != spec.views.size()) {
    throw core::ValueError("evaluate: the spec has " + std::to_string(spec.views.size()) +
                           " inputs, " + std::to_string(inputs.size()) + " buffers were given");
  }
  for (std::size_t v = 0; v < inputs.size(); ++v) {
    const View& view = spec.views[v];
    const std::size_t want = input_size(spec, v, grid);
    if (inputs[v].size() != want) {
      const std::string what =
          is_matmul_operand(spec.matmul, v)
              ? "matmul operand " + std::string(matmul_operand_name(spec.matmul, v))
              : std::string(view_kind_name(view.kind));
      throw core::ValueError("evaluate: input " + std::to_string(v) + " (" + what + ") needs " +
                             std::to_string(want) + " values, got " +
                             std::to_string(inputs[v].size()));
    }
    if (view.kind == ViewKind::RotateHalf && grid.cols % (2 * std::size_t{view.param}) != 0) {
      throw core::ValueError("evaluate: input " + std::to_string(v) + " (RotateHalf " +
                             std::to_string(view.param) + ") needs cols divisible by " +
                             std::to_string(2 * std::size_t{view.param}) + ", got " +
                             std::to_string(grid.cols));
    }
  }
  return detail::Evaluator(spec, inputs, grid).run();
}

PYPTO_DECL bool same_float(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return float_bits(a) == float_bits(b);
}

PYPTO_DECL std::ptrdiff_t first_mismatch(std::span<const float> a, std::span<const float> b) {
  const std::size_t n = a.size() < b.size() ? a.size() : b.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (!same_float(a[i], b[i])) return static_cast<std::ptrdiff_t>(i);
  }
  return a.size() == b.size() ? -1 : static_cast<std::ptrdiff_t>(n);
}

}  // namespace pypto::kernel
