// pypto/structural/signature.hpp — the symbols a function's signature binds.
//
// Besides its parameters, a function binds the shape symbols of its signature: every Var that
// occurs in a parameter's physical shape (the dims of a TensorType / TileType, inside dim
// expressions, through TupleType elements and through tuple construction and projection
// expressions) and every bare valid_shape slot (a TensorView / TileView valid_shape entry that is
// a Var). Other open references in a signature (strides, offsets, storage) stay free. Structural
// comparison reserves these bindings before walking the signature; the bindings verifier checks
// their eligibility; MaterializeValidShapeSymbols-style passes share this classification.
// O(size of the parameter types).
#pragma once

#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/ir/var.hpp"

namespace pypto::ir {
struct Function;
}  // namespace pypto::ir

namespace pypto::structural {

/// The shape symbols bound by `f`'s signature, in first-occurrence order over its parameters'
/// types (parameters themselves excluded).
PYPTO_DECL std::vector<ir::VarRef> signature_symbols(const ir::Function& f);

}  // namespace pypto::structural

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/structural/signature.ipp"
#endif
