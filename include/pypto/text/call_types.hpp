// pypto/text/call_types.hpp — the result type the text gives a call it does not annotate.
//
// A Call or Submit records its result type in the IR, but `pl.tile.add(a, b)` and `self.f(x)`
// do not write it: the parser derives it, and the printer writes the private marker
// `pl._dump.call(...)` / `pl._dump.submit(...)` with an explicit `type=` exactly when the
// recorded type is not what the parser would derive. Both sides use the functions here, so
// they cannot disagree; the same goes for a loop variable's type (implied_loop_var_type).
// Rules: a registered op's type rule (its argument and keyword checks included); `self.f(...)`
// gives f's single return type, or the tuple of its return types when it has none or several;
// `pl.submit` gives the tuple of the callee's return types followed by Scalar[TASK_ID]. A
// callee's return types are bound to the call's arguments: a shape symbol of a parameter's type
// (M in pl.Tensor[[M, 64], ...]) becomes the argument's extent there, a parameter's storage base
// (pl.MemRef("buf", ...)) the argument's, a scalar parameter the argument, so the call's type is
// in the caller's names; what no argument binds stays.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/var.hpp"

namespace pypto::ir {
struct Op;
struct Attrs;
class OpRegistry;
}  // namespace pypto::ir

namespace pypto::text {

/// What a call of a program function needs of it: the parameters the call's arguments bind,
/// and the return types they are bound in.
struct FunctionSignature {
  std::vector<ir::VarRef> params;
  std::vector<ir::TypeRef> returns;
};

/// The signatures of the functions a program defines, by name.
using FunctionSignatures = std::map<std::string, FunctionSignature, std::less<>>;

/// The registry the printer and the parser use when the caller names none: the standard ops,
/// built once.
PYPTO_DECL const ir::OpRegistry& default_op_registry();

/// The type of a call of `op` with these arguments; throws core::TypeError / ValueError saying
/// why there is none (unknown op or function, arguments the type rule rejects).
PYPTO_DECL ir::TypeRef derived_call_type(const ir::OpRegistry& ops,
                                         const FunctionSignatures& functions, const ir::Op& op,
                                         const std::vector<ir::ExprRef>& args,
                                         const ir::Attrs& kwargs);

/// The type of `pl.submit(callee, args...)`: the callee's return types bound to `args`, then
/// Scalar[TASK_ID].
PYPTO_DECL ir::TypeRef derived_submit_type(const FunctionSignatures& functions, const ir::Op& op,
                                           const std::vector<ir::ExprRef>& args);

/// The type `x: A = pl.tile.load(...)` (or `pl.tile.create(...)`) gives the call when the
/// annotation `A`, a tile of at most 2 dimensions, flattens the derived tile of more (upstream
/// reads a FlattenTileNdTo2D result so): A's shape, dtype, storage and view over the derived
/// memory space (and view) where A names none; null where the rule does not apply.
PYPTO_DECL ir::TypeRef flattened_call_type(const ir::Op& op, const ir::TypeRef& derived,
                                           const ir::TypeRef& annotation);

/// The type a `for i in pl.range(..., stop)` loop variable gets when no `i: T` declares it:
/// the bound's integer dtype (INDEX for a bare literal).
PYPTO_DECL ir::TypeRef implied_loop_var_type(const ir::ExprRef& stop);

}  // namespace pypto::text

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/text/call_types.ipp"
#endif
