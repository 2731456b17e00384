// pypto/codegen/element_ops.hpp — the element ops outside the kernel expression IR: what a
// catalog op computes at each position, defined once for the interpreter and the CPU target.
//
// kernel_op_of.hpp maps the ops the kernel IR expresses (seed 004's Op set); this table maps the
// rest of the elementwise vocabulary: relu, recip, sin, cos, fmod, the floored remainder, the
// leaky / parametric ReLU, the bitwise and shift ops and the compares. On floats each is one
// function of binary32 values whose result the caller rounds to the dtype; on integers it is the
// scalar IR node of the same name (its wrapping, its faults: runtime/interpreter.hpp). The float
// functions are those of element_functions.hpp, which the code the CPU target generates includes
// too, so both compute the same bits with the same C library. docs/runtime.md, "Element ops".
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "pypto/codegen/element_functions.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/op_id.hpp"

namespace pypto::codegen {

enum class ElementOp : std::uint8_t {
  Relu,
  Recip,
  Sin,
  Cos,
  Not,  // unary
  Fmod,
  Rem,
  Leaky,  // x > 0 ? x : x * slope (lrelu: a scalar slope; prelu: a tile)
  And,
  Or,
  Xor,
  Shl,
  Shr,
  Compare,  // cmp_type 0..5: == != < <= > >=; 1 or 0 in the operand's dtype
};

struct ElementOpInfo {
  std::string_view name;               ///< the function of element_functions.hpp, or ""
  unsigned arity;                      ///< 1 or 2
  std::optional<ir::NodeKind> on_int;  ///< the scalar node computed on integers
};

constexpr ElementOpInfo element_op_info(ElementOp op) {
  using K = ir::NodeKind;
  switch (op) {
    case ElementOp::Relu: return {"relu", 1, std::nullopt};
    case ElementOp::Recip: return {"recip", 1, std::nullopt};
    case ElementOp::Sin: return {"sin", 1, std::nullopt};
    case ElementOp::Cos: return {"cos", 1, std::nullopt};
    case ElementOp::Not: return {"", 1, K::BitNot};
    case ElementOp::Fmod: return {"fmod", 2, std::nullopt};
    case ElementOp::Rem: return {"rem", 2, K::FloorMod};
    case ElementOp::Leaky: return {"leaky", 2, std::nullopt};
    case ElementOp::And: return {"", 2, K::BitAnd};
    case ElementOp::Or: return {"", 2, K::BitOr};
    case ElementOp::Xor: return {"", 2, K::BitXor};
    case ElementOp::Shl: return {"", 2, K::BitShiftLeft};
    case ElementOp::Shr: return {"", 2, K::BitShiftRight};
    case ElementOp::Compare: return {"compare", 2, std::nullopt};
  }
  return {"", 0, std::nullopt};
}

/// `op` on binary32 operands (`mode` is a compare's cmp_type).
inline float apply_element(ElementOp op, float a, float b, int mode = 0) {
  switch (op) {
    case ElementOp::Relu: return element::relu(a);
    case ElementOp::Recip: return element::recip(a);
    case ElementOp::Sin: return element::sin(a);
    case ElementOp::Cos: return element::cos(a);
    case ElementOp::Fmod: return element::fmod(a, b);
    case ElementOp::Rem: return element::rem(a, b);
    case ElementOp::Leaky: return element::leaky(a, b);
    case ElementOp::Compare: return element::compare(mode, a, b);
    default: return a;  // integer-only ops: callers check element_op_info first
  }
}

/// The element op of `id`; nullopt for an op computed otherwise. Scalar second operands (`ands`,
/// `fmods`, `rems`, ...) compute what the tile-tile form computes; a trailing scratch tile
/// (`xor`, `rem`, `prelu`) is not an operand.
constexpr std::optional<ElementOp> element_op_of(ir::OpId id) {
  using ir::OpId;
  switch (id) {
    case OpId::tile_relu: return ElementOp::Relu;
    case OpId::tile_recip:
    case OpId::tensor_recip: return ElementOp::Recip;
    case OpId::tile_sin:
    case OpId::tensor_sin: return ElementOp::Sin;
    case OpId::tile_cos:
    case OpId::tensor_cos: return ElementOp::Cos;
    case OpId::tile_not:
    case OpId::tensor_not: return ElementOp::Not;
    case OpId::tile_fmod:
    case OpId::tile_fmods:
    case OpId::tensor_fmod:
    case OpId::tensor_fmods: return ElementOp::Fmod;
    case OpId::tile_rem:
    case OpId::tile_rems: return ElementOp::Rem;
    case OpId::tile_lrelu:
    case OpId::tile_prelu: return ElementOp::Leaky;
    case OpId::tile_and:
    case OpId::tile_ands:
    case OpId::tensor_and:
    case OpId::tensor_ands: return ElementOp::And;
    case OpId::tile_or:
    case OpId::tile_ors:
    case OpId::tensor_or:
    case OpId::tensor_ors: return ElementOp::Or;
    case OpId::tile_xor:
    case OpId::tile_xors:
    case OpId::tensor_xor:
    case OpId::tensor_xors: return ElementOp::Xor;
    case OpId::tile_shl:
    case OpId::tile_shls:
    case OpId::tensor_shl:
    case OpId::tensor_shls: return ElementOp::Shl;
    case OpId::tile_shr:
    case OpId::tile_shrs:
    case OpId::tensor_shr:
    case OpId::tensor_shrs: return ElementOp::Shr;
    case OpId::tensor_cmp: return ElementOp::Compare;
    default: return std::nullopt;
  }
}

}  // namespace pypto::codegen
