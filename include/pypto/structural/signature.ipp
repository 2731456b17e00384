// pypto/structural/signature.ipp — the definitions of structural/signature.hpp.
#pragma once

#include "pypto/structural/signature.hpp"

#include <vector>

#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/type.hpp"

namespace pypto::structural {

namespace detail {

/// Collects signature symbols in first-occurrence order, skipping already-known Vars.
class SignatureSymbolCollector {
 public:
  explicit SignatureSymbolCollector(const ir::Function& f) : function_(f) {}

  void add_param_type(const ir::TypeRef& type) {
    if (const auto* shaped = ir::as<ir::ShapedType>(type.get())) {  // the common case: no stack
      add_shaped(*shaped);
      return;
    }
    std::vector<const ir::Type*> types{type.get()};
    while (!types.empty()) {
      const ir::Type* t = types.back();
      types.pop_back();
      if (const auto* tuple = ir::as<ir::TupleType>(t)) {
        for (auto it = tuple->types.rbegin(); it != tuple->types.rend(); ++it)
          types.push_back(it->get());
      } else if (const auto* shaped = ir::as<ir::ShapedType>(t)) {
        add_shaped(*shaped);
      }
    }
  }

  std::vector<ir::VarRef> take() { return std::move(symbols_); }

 private:
  void add_shaped(const ir::ShapedType& t) {
    for (const auto& dim : t.shape) add_vars_in(dim);
    if (const auto* tensor = ir::as<ir::TensorType>(&t); tensor && tensor->tensor_view)
      add_bare_slots(tensor->tensor_view->valid_shape);
    if (const auto* tile = ir::as<ir::TileType>(&t); tile && tile->tile_view)
      add_bare_slots(tile->tile_view->valid_shape);
  }
  void add(const ir::Var* v) {
    if (known_.size() == 0)  // the parameters are known first; most signatures never get here
      for (const auto& p : function_.params) known_.insert(p.get(), 0);
    if (known_.insert(v, 0).second) symbols_.push_back(ir::VarRef(v));
  }
  void add_bare_slots(const std::vector<ir::ExprRef>& slots) {
    for (const auto& s : slots)
      if (const auto* v = ir::as<ir::Var>(s.get())) add(v);
  }
  /// Every Var inside a dim expression, in left-to-right order (iterative; each shared
  /// subexpression is walked once, so DAG-shaped shapes stay linear).
  void add_vars_in(const ir::ExprRef& dim) {
    if (ir::isa<ir::ConstInt>(*dim)) return;  // the common case: no stack
    std::vector<const ir::Expr*> stack{dim.get()};
    while (!stack.empty()) {
      const ir::Expr* e = stack.back();
      stack.pop_back();
      if (e->use_count() > 1 && !walked_.insert(e, 0).second) continue;
      if (const auto* v = ir::as<ir::Var>(e)) {
        add(v);
      } else if (const auto* b = ir::as<ir::BinaryExpr>(e)) {
        stack.push_back(b->right.get());
        stack.push_back(b->left.get());
      } else if (const auto* u = ir::as<ir::UnaryExpr>(e)) {
        stack.push_back(u->operand.get());
      } else if (const auto* mt = ir::as<ir::MakeTuple>(e)) {
        for (auto it = mt->elements.rbegin(); it != mt->elements.rend(); ++it)
          stack.push_back(it->get());
      } else if (const auto* gi = ir::as<ir::TupleGetItem>(e)) {
        stack.push_back(gi->tuple.get());
      }
    }
  }

  const ir::Function& function_;
  ::pypto::detail::PointerMap<char> known_;   // membership only; never iterated
  ::pypto::detail::PointerMap<char> walked_;  // shared subexpressions already walked
  std::vector<ir::VarRef> symbols_;
};

}  // namespace detail

PYPTO_DECL std::vector<ir::VarRef> signature_symbols(const ir::Function& f) {
  detail::SignatureSymbolCollector c(f);
  for (const auto& p : f.params) c.add_param_type(p->type);
  return c.take();
}

}  // namespace pypto::structural
