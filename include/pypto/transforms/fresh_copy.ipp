// pypto/transforms/fresh_copy.ipp — the definitions of transforms/fresh_copy.hpp.
#pragma once

#include "pypto/transforms/fresh_copy.hpp"

#include <string>
#include <utility>
#include <vector>

#include "pypto/ir/function.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/transforms/ssa_form.ipp"
#include "pypto/transforms/substitute.hpp"

namespace pypto::transforms {

PYPTO_DECL ir::FunctionRef fresh_copy(const ir::Function& f, std::string name) {
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
