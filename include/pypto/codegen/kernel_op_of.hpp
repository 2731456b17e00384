// pypto/codegen/kernel_op_of.hpp — the kernel::Op a catalog op computes, element by element.
//
// One table for every consumer that computes tile and tensor ops through the kernel expression
// semantics (kernel/op_semantics.hpp): the reference interpreter runs them, the kernel code
// generator fuses the tile forms into kernel expressions. The `<name>s` forms (a scalar second
// operand) compute what their tile-tile forms compute, and so do the `row_expand_<op>` /
// `col_expand_<op>` forms (a [rows, 1] / [1, cols] second operand, broadcast) and the partial
// combines `part_<op>` (a buffer is valid everywhere: the plain op). Row and column
// reductions map to RowSum / RowMax / ColSum / ColMax (ir/reductions.hpp says what every row or
// column reduction combines).
#pragma once

#include <cstdint>
#include <optional>

#include "pypto/ir/expr.hpp"
#include "pypto/ir/op_id.hpp"
#include "pypto/ir/reductions.hpp"
#include "pypto/kernel/spec.hpp"

namespace pypto::codegen {

/// The kernel::Op of `id`; nullopt for an op computed otherwise.
constexpr std::optional<kernel::Op> kernel_op_of(ir::OpId id) {
  using ir::OpId;
  using kernel::Op;
  switch (id) {
    case OpId::tile_add:
    case OpId::tile_adds:
    case OpId::tensor_add:
    case OpId::tensor_adds:
    case OpId::tile_row_expand_add:
    case OpId::tile_col_expand_add:
    case OpId::tensor_row_expand_add:
    case OpId::tensor_col_expand_add: return Op::Add;
    case OpId::tile_sub:
    case OpId::tile_subs:
    case OpId::tensor_sub:
    case OpId::tensor_subs:
    case OpId::tile_row_expand_sub:
    case OpId::tile_col_expand_sub:
    case OpId::tensor_row_expand_sub:
    case OpId::tensor_col_expand_sub: return Op::Sub;
    case OpId::tile_part_add:
    case OpId::tensor_part_add: return Op::Add;
    case OpId::tile_part_mul:
    case OpId::tensor_part_mul: return Op::Mul;
    case OpId::tile_part_max:
    case OpId::tensor_part_max: return Op::Max;
    case OpId::tile_part_min:
    case OpId::tensor_part_min: return Op::Min;
    case OpId::tile_mul:
    case OpId::tile_muls:
    case OpId::tensor_mul:
    case OpId::tensor_muls:
    case OpId::tile_row_expand_mul:
    case OpId::tile_col_expand_mul:
    case OpId::tensor_row_expand_mul:
    case OpId::tensor_col_expand_mul: return Op::Mul;
    case OpId::tile_div:
    case OpId::tile_divs:
    case OpId::tensor_div:
    case OpId::tensor_divs:
    case OpId::tile_row_expand_div:
    case OpId::tile_col_expand_div:
    case OpId::tensor_row_expand_div:
    case OpId::tensor_col_expand_div: return Op::Div;
    case OpId::tile_maximum:
    case OpId::tile_maximums:
    case OpId::tensor_maximum:
    case OpId::tile_row_expand_max:
    case OpId::tile_col_expand_max:
    case OpId::tensor_row_expand_max:
    case OpId::tensor_col_expand_max: return Op::Max;
    case OpId::tile_minimum:
    case OpId::tile_minimums:
    case OpId::tensor_minimum:
    case OpId::tile_row_expand_min:
    case OpId::tile_col_expand_min:
    case OpId::tensor_row_expand_min:
    case OpId::tensor_col_expand_min: return Op::Min;
    case OpId::tile_neg:
    case OpId::tensor_neg: return Op::Neg;
    case OpId::tile_abs:
    case OpId::tensor_abs: return Op::Abs;
    case OpId::tile_exp:
    case OpId::tensor_exp: return Op::Exp;
    case OpId::tile_log:
    case OpId::tensor_log: return Op::Log;
    case OpId::tile_sqrt:
    case OpId::tensor_sqrt: return Op::Sqrt;
    case OpId::tile_rsqrt:
    case OpId::tensor_rsqrt: return Op::Rsqrt;
    case OpId::tile_row_sum: return Op::RowSum;
    case OpId::tile_row_max: return Op::RowMax;
    case OpId::tile_col_sum: return Op::ColSum;
    case OpId::tile_col_max: return Op::ColMax;
    default: return std::nullopt;
  }
}

// The reductions of the catalog (ir/reductions.hpp), under the names the targets use.
using ir::Reduction;
using ir::reduction_of;
using ir::ReductionOf;

/// The kernel::Op a call computes; nullopt also where its arguments ask for another order of
/// evaluation than the kernel op's (a col_sum given a scratch tile reduces as a tree).
inline std::optional<kernel::Op> kernel_op_of(const ir::Call& c) {
  if (c.op->id == ir::OpId::tile_col_sum && c.args.size() > 1) return std::nullopt;
  return kernel_op_of(c.op->id);
}

}  // namespace pypto::codegen
