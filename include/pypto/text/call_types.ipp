// pypto/text/call_types.ipp — the definitions of text/call_types.hpp.
#pragma once

#include "pypto/text/call_types.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/core/error.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/type.hpp"

namespace pypto::text {

PYPTO_DECL const ir::OpRegistry& default_op_registry() {
  static const ir::OpRegistry registry = ir::standard_op_registry();
  return registry;
}

PYPTO_DECL ir::TypeRef derived_call_type(const ir::OpRegistry& ops,
                                         const FunctionReturns& functions, const ir::Op& op,
                                         const std::vector<ir::ExprRef>& args,
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

PYPTO_DECL ir::TypeRef derived_submit_type(const FunctionReturns& functions, const ir::Op& op) {
  const auto it = ir::isa<ir::GlobalVar>(op) ? functions.find(op.name) : functions.end();
  if (it == functions.end())
    throw core::ValueError("pl.submit launches a program function; '" + op.name + "' is not one");
  std::vector<ir::TypeRef> types = it->second;
  types.push_back(ir::ScalarType::make(core::DataType::TASK_ID));
  return ir::TupleType::make(std::move(types));
}

PYPTO_DECL ir::TypeRef implied_loop_var_type(const ir::ExprRef& stop) {
  const auto* st = ir::as<ir::ScalarType>(stop->type.get());
  return ir::ScalarType::make(st && core::is_int(st->dtype) ? st->dtype : core::DataType::INDEX);
}

}  // namespace pypto::text
