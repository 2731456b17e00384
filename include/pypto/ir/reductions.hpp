// pypto/ir/reductions.hpp — the row and column reductions of the op catalog as data: what each
// combines (sum, max, min, product), along which axis, and whether it gives the index of the
// extreme element. The interpreter, the code generators and the tensor-to-tile conversion all
// read it (docs/runtime.md, "Data movement and products").
#pragma once

#include <cstdint>
#include <optional>

#include "pypto/ir/op_id.hpp"

namespace pypto::ir {

/// What a reduction combines.
enum class Reduction : std::uint8_t { Sum, Max, Min, Prod };

/// A row or column reduction: what it combines, along which axis (a row: the last dimension),
/// and whether it gives the index of the extreme element (argmax / argmin) instead of it.
struct ReductionOf {
  Reduction kind;
  bool by_row;
  bool index;
};

/// The reduction `id` computes; nullopt for any other op.
constexpr std::optional<ReductionOf> reduction_of(OpId id) {
  using R = Reduction;
  switch (id) {
    case OpId::tile_row_sum:
    case OpId::tensor_row_sum: return ReductionOf{R::Sum, true, false};
    case OpId::tile_row_max:
    case OpId::tensor_row_max: return ReductionOf{R::Max, true, false};
    case OpId::tile_row_min:
    case OpId::tensor_row_min: return ReductionOf{R::Min, true, false};
    case OpId::tile_row_prod:
    case OpId::tensor_row_prod: return ReductionOf{R::Prod, true, false};
    case OpId::tile_col_sum:
    case OpId::tensor_col_sum: return ReductionOf{R::Sum, false, false};
    case OpId::tile_col_max:
    case OpId::tensor_col_max: return ReductionOf{R::Max, false, false};
    case OpId::tile_col_min:
    case OpId::tensor_col_min: return ReductionOf{R::Min, false, false};
    case OpId::tile_col_prod:
    case OpId::tensor_col_prod: return ReductionOf{R::Prod, false, false};
    case OpId::tile_row_argmax:
    case OpId::tensor_row_argmax: return ReductionOf{R::Max, true, true};
    case OpId::tile_row_argmin:
    case OpId::tensor_row_argmin: return ReductionOf{R::Min, true, true};
    case OpId::tile_col_argmax:
    case OpId::tensor_col_argmax: return ReductionOf{R::Max, false, true};
    case OpId::tile_col_argmin:
    case OpId::tensor_col_argmin: return ReductionOf{R::Min, false, true};
    default: return std::nullopt;
  }
}

}  // namespace pypto::ir
