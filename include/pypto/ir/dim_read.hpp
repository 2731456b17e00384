// pypto/ir/dim_read.hpp — which reads of a parameter's extent are its signature symbol.
//
// A tensor parameter's declared extent is its runtime extent, so `m = pl.tensor.dim(a, k)` on a
// parameter `a` whose axis k is a dynamic shape symbol M reads M itself: binding it gives the
// quantity a second IR name, and a shape built from m no longer equals one built from M. The
// parser folds such a read onto M in a function written as Orchestration, and the outliners fold
// it the moment they promote an Opaque function to Orchestration (docs/ir.md, "Extent reads"), by
// this one rule, so both spellings of a function give the same IR. Reads it does not match stay: a
// constant extent, an axis out of range, a dimension that is a parameter or an expression.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "pypto/ir/expr.hpp"
#include "pypto/ir/identical.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"

namespace pypto::ir {

/// Whether some tensor among `params` has an extent that is a variable other than a parameter:
/// without one, no read is a signature symbol and a fold has nothing to do.
inline bool has_dim_symbols(const std::vector<VarRef>& params) {
  for (const VarRef& p : params)
    if (const auto* tt = as<TensorType>(p->type.get()))
      for (const ExprRef& dim : tt->shape)
        if (isa<Var>(dim) && std::none_of(params.begin(), params.end(),
                                          [&](const VarRef& q) { return q.get() == dim.get(); }))
          return true;
  return false;
}

/// The shape symbol `value` reads when it is `tensor.dim(a, k)` on one of `params` and the
/// symbol has the type `var_type` of the variable it would bind; null otherwise.
inline ExprRef param_dim_symbol(const std::vector<VarRef>& params, const TypeRef& var_type,
                                const Expr& value) {
  const auto* c = as<Call>(&value);
  if (!c || c->op->id != OpId::tensor_dim || c->args.size() != 2) return nullptr;
  const auto is_param = [&](const Expr* e) {
    return std::any_of(params.begin(), params.end(), [&](const VarRef& p) { return p.get() == e; });
  };
  const auto* axis = as<ConstInt>(c->args[1].get());
  if (!is_param(c->args[0].get()) || !axis) return nullptr;
  const auto* tt = as<TensorType>(c->args[0]->type.get());
  if (!tt || axis->value < 0 || static_cast<std::size_t>(axis->value) >= tt->shape.size())
    return nullptr;
  const ExprRef& dim = tt->shape[static_cast<std::size_t>(axis->value)];
  if (!isa<Var>(dim) || is_param(dim.get()) || !identical(dim->type, var_type)) return nullptr;
  return dim;
}

}  // namespace pypto::ir
