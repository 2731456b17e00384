// pypto/transforms/substitute.ipp — the definitions of transforms/substitute.hpp.
#pragma once

#include "pypto/transforms/substitute.hpp"

#include <string>
#include <type_traits>

#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/ir/visit.hpp"

namespace pypto::transforms {

// Out of the class, after every member template its generic lambda calls: clang 14 leaves member
// templates declared later in the class uninstantiated there (-Wundefined-inline).
PYPTO_DECL ir::NodeRef Substitution::node(const ir::NodeRef& n) {
  if (ir::isa<ir::Op>(*n) || (!types_ && ir::isa<ir::Type>(*n))) return n;
  if (const auto* v = ir::as<ir::Var>(n.get())) {
    if (const ir::ExprRef* to = find(*v)) return *to;
    if (!types_ && !ir::isa<ir::IterArg>(*v)) return n;
  }
  if (const ir::NodeRef* done = memo_.find(n.get())) return *done;
  if (++depth_ > core::kMaxNesting)
    throw core::ValueError("substitution: IR nested deeper than " +
                           std::to_string(core::kMaxNesting) + " levels is not supported");
  ir::NodeRef out = ir::visit(*n, [&](const auto& concrete) -> ir::NodeRef {
    using N = std::remove_cvref_t<decltype(concrete)>;
    if constexpr (std::is_same_v<N, ir::IterArg> || std::is_same_v<N, ir::Var>) {
      // A binder re-made when what defines it changes (a plain Var only when types are
      // rewritten); its uses follow it.
      ir::TypeRef type = rewrite(concrete.type);
      ir::VarRef fresh;
      if constexpr (std::is_same_v<N, ir::IterArg>) {
        ir::ExprRef init = rewrite(concrete.init_value);
        if (init == concrete.init_value && type == concrete.type) return n;
        fresh = ir::IterArg::make(concrete.name_hint, type, init, concrete.span);
      } else {
        if (type == concrete.type) return n;
        fresh = ir::Var::make(concrete.name_hint, type, concrete.span);
      }
      *map_.insert(&concrete, nullptr).first = fresh;
      return fresh;
    } else {
      auto copy = rebuilt(concrete);
      return copy ? ir::NodeRef(copy) : n;
    }
  });
  --depth_;
  memo_.insert(n.get(), out);
  return out;
}

}  // namespace pypto::transforms
