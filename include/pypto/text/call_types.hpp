// pypto/text/call_types.hpp — the result type the text gives a call it does not annotate.
//
// A Call or Submit records its result type in the IR, but `pl.tile.add(a, b)` and `self.f(x)`
// do not write it: the parser derives it, and the printer writes the private marker
// `pl._dump.call(...)` / `pl._dump.submit(...)` with an explicit `type=` exactly when the
// recorded type is not what the parser would derive (seed 003, "lossless text round trip").
// Both sides use the functions here, so they cannot disagree.
//
// The same goes for a loop variable's type (implied_loop_var_type).
//
// Rules: a registered op's type rule (its argument and keyword checks included); a program
// function called with `self.f(...)` gives its single return type, or the tuple of its return
// types when it has none or several; `pl.submit` gives the tuple of the callee's return types
// followed by Scalar[TASK_ID].
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/type.hpp"

namespace pypto::text {

/// The return types of the functions a program defines, by name.
using FunctionReturns = std::map<std::string, std::vector<ir::TypeRef>, std::less<>>;

/// The registry the printer and the parser use when the caller names none: the standard ops,
/// built once.
inline const ir::OpRegistry& default_op_registry() {
  static const ir::OpRegistry registry = ir::standard_op_registry();
  return registry;
}

/// The type of a call of `op` with these arguments; throws core::TypeError / ValueError saying
/// why there is none (unknown op or function, arguments the type rule rejects).
inline ir::TypeRef derived_call_type(const ir::OpRegistry& ops, const FunctionReturns& functions,
                                     const ir::Op& op, const std::vector<ir::ExprRef>& args,
                                     const ir::Attrs& kwargs) {
  if (ir::isa<ir::GlobalVar>(op)) {
    const auto it = functions.find(op.name);
    if (it == functions.end())
      throw core::ValueError("the program has no function '" + op.name + "'");
    if (it->second.size() == 1) return it->second.front();
    return ir::TupleType::make(it->second);
  }
  return ops.make_call(op.name, args, kwargs)->type;
}

/// The type of `pl.submit(callee, ...)`: the callee's return types, then Scalar[TASK_ID].
inline ir::TypeRef derived_submit_type(const FunctionReturns& functions, const ir::Op& op) {
  const auto it = ir::isa<ir::GlobalVar>(op) ? functions.find(op.name) : functions.end();
  if (it == functions.end())
    throw core::ValueError("pl.submit launches a program function; '" + op.name + "' is not one");
  std::vector<ir::TypeRef> types = it->second;
  types.push_back(ir::ScalarType::make(core::DataType::TASK_ID));
  return ir::TupleType::make(std::move(types));
}

/// The type a `for i in pl.range(..., stop)` loop variable gets when no `i: T` declares it:
/// the bound's integer dtype (INDEX for a bare literal).
inline ir::TypeRef implied_loop_var_type(const ir::ExprRef& stop) {
  const auto* st = ir::as<ir::ScalarType>(stop->type.get());
  return ir::ScalarType::make(st && core::is_int(st->dtype) ? st->dtype : core::DataType::INDEX);
}

}  // namespace pypto::text
