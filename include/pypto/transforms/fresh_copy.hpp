// pypto/transforms/fresh_copy.hpp — a copy of a function under another name, with its own
// variables.
//
// SSAForm defines every variable exactly once in the whole program, so a pass that adds a second
// copy of a function (a Group-private member, a specialization) cannot share the original's Vars.
// `fresh_copy(f, name)` gives `f` under `name` with every variable it defines — parameters,
// assignment targets, loop variables, iter_args, return vars, any Def field — replaced by a new
// one of the same hint, type and span. Free variables (shape symbols) and the nodes that define
// nothing new are shared where the Substitution can keep them. Iter_args are re-made with their
// substituted initial value, outer ones first (definition order), so nested carries follow.
// O(N) for the substitution plus O(1) expected per lookup.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "pypto/ir.hpp"
#include "pypto/transforms/ssa_form.hpp"
#include "pypto/transforms/substitute.hpp"

namespace pypto::transforms {

inline ir::FunctionRef fresh_copy(const ir::Function& f, std::string name) {
  Substitution subst;
  std::vector<const ir::IterArg*> carries;
  detail::for_each_definition(f, [&](const ir::Var& v) {
    if (const auto* ia = ir::as<ir::IterArg>(&v)) {
      carries.push_back(ia);
      return;
    }
    subst.set(v, ir::Var::make(v.name_hint, v.type, v.span));
  });
  for (const ir::IterArg* ia : carries)
    subst.set(*ia,
              ir::IterArg::make(ia->name_hint, ia->type, subst.expr(ia->init_value), ia->span));
  auto out = ir::copy_node(f);
  out->name = std::move(name);
  for (auto& p : out->params) p = ir::VarRef(static_cast<const ir::Var*>(subst.current(p).get()));
  if (f.body) out->body = subst.stmt(f.body);
  return out;
}

}  // namespace pypto::transforms
