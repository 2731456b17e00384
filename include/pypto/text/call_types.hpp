// pypto/text/call_types.hpp — the result type the text gives a call it does not annotate.
//
// A Call or Submit records its result type in the IR, but `pl.tile.add(a, b)` and `self.f(x)`
// do not write it: the parser derives it, and the printer writes the private marker
// `pl._dump.call(...)` / `pl._dump.submit(...)` with an explicit `type=` exactly when the
// recorded type is not what the parser would derive. Both sides use the functions here, so
// they cannot disagree; the same goes for a loop variable's type (implied_loop_var_type).
// Rules: a registered op's type rule (its argument and keyword checks included); `self.f(...)`
// gives f's single return type, or the tuple of its return types when it has none or several;
// `pl.submit` gives the tuple of the callee's return types followed by Scalar[TASK_ID].
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/ir/node.hpp"

namespace pypto::ir {
struct Op;
struct Attrs;
class OpRegistry;
}  // namespace pypto::ir

namespace pypto::text {

/// The return types of the functions a program defines, by name.
using FunctionReturns = std::map<std::string, std::vector<ir::TypeRef>, std::less<>>;

/// The registry the printer and the parser use when the caller names none: the standard ops,
/// built once.
PYPTO_DECL const ir::OpRegistry& default_op_registry();

/// The type of a call of `op` with these arguments; throws core::TypeError / ValueError saying
/// why there is none (unknown op or function, arguments the type rule rejects).
PYPTO_DECL ir::TypeRef derived_call_type(const ir::OpRegistry& ops,
                                         const FunctionReturns& functions, const ir::Op& op,
                                         const std::vector<ir::ExprRef>& args,
                                         const ir::Attrs& kwargs);

/// The type of `pl.submit(callee, ...)`: the callee's return types, then Scalar[TASK_ID].
PYPTO_DECL ir::TypeRef derived_submit_type(const FunctionReturns& functions, const ir::Op& op);

/// The type a `for i in pl.range(..., stop)` loop variable gets when no `i: T` declares it:
/// the bound's integer dtype (INDEX for a bare literal).
PYPTO_DECL ir::TypeRef implied_loop_var_type(const ir::ExprRef& stop);

}  // namespace pypto::text

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/text/call_types.ipp"
#endif
