// pypto/text/call_types.ipp — the definitions of text/call_types.hpp.
#pragma once

#include "pypto/text/call_types.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"

namespace pypto::text {

PYPTO_DECL ir::TypeRef flattened_call_type(const ir::Op& op, const ir::TypeRef& derived,
                                           const ir::TypeRef& annotation) {
  const auto* a = ir::as<ir::TileType>(annotation.get());
  const auto* d = ir::as<ir::TileType>(derived.get());
  if (!a || !d || (op.id != ir::OpId::tile_load && op.id != ir::OpId::tile_create) ||
      a->rank() > 2 || d->rank() <= 2 || a->dtype != d->dtype)
    return nullptr;
  std::optional<ir::TileView> view = a->tile_view;
  if (!view && d->tile_view && d->tile_view->valid_shape.empty() && d->tile_view->stride.empty())
    view = d->tile_view;
  return ir::TileType::make(a->dtype, a->shape, a->memory_space ? a->memory_space : d->memory_space,
                            std::move(view), a->memref);
}

PYPTO_DECL const ir::OpRegistry& default_op_registry() {
  static const ir::OpRegistry registry = ir::standard_op_registry();
  return registry;
}

namespace detail {

/// A callee's parameters and signature shape symbols, bound to one call's expressions.
class CallBinding {
 public:
  CallBinding(const FunctionSignature& callee, const std::vector<ir::ExprRef>& args) {
    for (std::size_t i = 0; i < callee.params.size() && i < args.size(); ++i) {
      const ir::Var& p = *callee.params[i];
      if (ir::isa<ir::ScalarType>(*p.type)) bound_.insert(&p, args[i]);
      const auto* want = ir::as<ir::ShapedType>(p.type.get());
      const auto* have = ir::as<ir::ShapedType>(args[i]->type.get());
      if (!want || !have) continue;
      if (want->memref && have->memref)  // the allocation the parameter names is the argument's
        bound_.insert(want->memref->base.get(), have->memref->base);
      if (want->shape.size() != have->shape.size()) continue;
      for (std::size_t k = 0; k < want->shape.size(); ++k)
        if (ir::isa<ir::Var>(*want->shape[k])) bound_.insert(want->shape[k].get(), have->shape[k]);
    }
  }

  /// `t` in the caller's names: its shape and its view's dims (the same object when nothing in
  /// it is bound).
  ir::TypeRef type(const ir::TypeRef& t) {
    if (const auto* tuple = ir::as<ir::TupleType>(t.get())) {
      std::vector<ir::TypeRef> types;
      bool changed = false;
      for (const ir::TypeRef& e : tuple->types) {
        types.push_back(type(e));
        changed = changed || types.back() != e;
      }
      return changed ? ir::TupleType::make(std::move(types)) : t;
    }
    bool changed = false;
    if (const auto* tensor = ir::as<ir::TensorType>(t.get())) {
      std::vector<ir::ExprRef> shape = dims(tensor->shape, changed);
      std::optional<ir::TensorView> view = tensor->tensor_view;
      if (view) {
        view->stride = dims(view->stride, changed);
        view->valid_shape = dims(view->valid_shape, changed);
      }
      ir::MemRefRef memref = storage(tensor->memref, changed);
      return changed ? ir::TensorType::make(tensor->dtype, std::move(shape), std::move(view),
                                            std::move(memref), tensor->distributed)
                     : t;
    }
    if (const auto* tile = ir::as<ir::TileType>(t.get())) {
      std::vector<ir::ExprRef> shape = dims(tile->shape, changed);
      std::optional<ir::TileView> view = tile->tile_view;
      if (view) {
        view->valid_shape = dims(view->valid_shape, changed);
        view->stride = dims(view->stride, changed);
        if (view->start_offset) {
          ir::ExprRef offset = expr(view->start_offset, 0);
          changed = changed || offset != view->start_offset;
          view->start_offset = std::move(offset);
        }
      }
      ir::MemRefRef memref = storage(tile->memref, changed);
      return changed ? ir::TileType::make(tile->dtype, std::move(shape), tile->memory_space,
                                          std::move(view), std::move(memref))
                     : t;
    }
    return t;
  }

 private:
  /// `ds` in the caller's names; sets `changed` when one differs.
  std::vector<ir::ExprRef> dims(const std::vector<ir::ExprRef>& ds, bool& changed) {
    std::vector<ir::ExprRef> out;
    for (const ir::ExprRef& d : ds) {
      out.push_back(expr(d, 0));
      changed = changed || out.back() != d;
    }
    return out;
  }

  /// A type's storage in the caller's names: its base (when an argument's storage binds it) and
  /// its offsets; sets `changed` when it differs.
  ir::MemRefRef storage(const ir::MemRefRef& m, bool& changed) {
    if (!m) return m;
    const ir::ExprRef* b = bound_.find(m->base.get());
    ir::VarRef base = b ? ir::as<ir::Var>(*b) : nullptr;
    if (!base) base = m->base;
    ir::ExprRef offset = expr(m->byte_offset, 0);
    ir::ExprRef slot = m->slot_index ? expr(m->slot_index, 0) : m->slot_index;
    if (base == m->base && offset == m->byte_offset && slot == m->slot_index) return m;
    changed = true;
    return ir::MemRef::make(std::move(base), std::move(offset), m->size, m->is_pinned,
                            m->slot_count, std::move(slot), m->span);
  }

  /// A dimension in the caller's names: a bound variable is replaced, unary and binary
  /// operators over dimensions are rebuilt around replaced operands, anything else stays.
  ir::ExprRef expr(const ir::ExprRef& e, std::size_t depth) {
    if (const ir::ExprRef* b = bound_.find(e.get())) return *b;
    if (depth > core::kMaxNesting) return e;
    return ir::visit_expr(*e, [&](const auto& n) -> ir::ExprRef {
      using N = std::decay_t<decltype(n)>;
      if constexpr (requires { N::make(n.left, n.right, n.span); }) {
        ir::ExprRef l = expr(n.left, depth + 1), r = expr(n.right, depth + 1);
        return l == n.left && r == n.right ? e : N::make(std::move(l), std::move(r), n.span);
      } else if constexpr (requires { N::make(n.operand, n.span); }) {
        ir::ExprRef o = expr(n.operand, depth + 1);
        return o == n.operand ? e : N::make(std::move(o), n.span);
      } else {
        return e;
      }
    });
  }

  ::pypto::detail::PointerMap<ir::ExprRef> bound_;  // callee Var -> caller expression
};

/// The signature `op` names, or null.
inline const FunctionSignature* callee_of(const FunctionSignatures& functions, const ir::Op& op) {
  const auto it = ir::isa<ir::GlobalVar>(op) ? functions.find(op.name) : functions.end();
  return it == functions.end() ? nullptr : &it->second;
}

/// The callee's return types bound to `args`.
inline std::vector<ir::TypeRef> bound_returns(const FunctionSignature& callee,
                                              const std::vector<ir::ExprRef>& args) {
  CallBinding binding(callee, args);
  std::vector<ir::TypeRef> types;
  for (const ir::TypeRef& t : callee.returns) types.push_back(binding.type(t));
  return types;
}

}  // namespace detail

PYPTO_DECL ir::TypeRef derived_call_type(const ir::OpRegistry& ops,
                                         const FunctionSignatures& functions, const ir::Op& op,
                                         const std::vector<ir::ExprRef>& args,
                                         const ir::Attrs& kwargs) {
  if (ir::isa<ir::GlobalVar>(op)) {
    const FunctionSignature* callee = detail::callee_of(functions, op);
    if (!callee) throw core::ValueError("the program has no function '" + op.name + "'");
    std::vector<ir::TypeRef> types = detail::bound_returns(*callee, args);
    if (types.size() == 1) return types.front();
    return ir::TupleType::make(std::move(types));
  }
  return ops.make_call(op.name, args, kwargs)->type;
}

PYPTO_DECL ir::TypeRef derived_submit_type(const FunctionSignatures& functions, const ir::Op& op,
                                           const std::vector<ir::ExprRef>& args) {
  const FunctionSignature* callee = detail::callee_of(functions, op);
  if (!callee)
    throw core::ValueError("pl.submit launches a program function; '" + op.name + "' is not one");
  std::vector<ir::TypeRef> types = detail::bound_returns(*callee, args);
  types.push_back(ir::ScalarType::make(core::DataType::TASK_ID));
  return ir::TupleType::make(std::move(types));
}

PYPTO_DECL ir::TypeRef implied_loop_var_type(const ir::ExprRef& stop) {
  const auto* st = ir::as<ir::ScalarType>(stop->type.get());
  return ir::ScalarType::make(st && core::is_int(st->dtype) ? st->dtype : core::DataType::INDEX);
}

}  // namespace pypto::text
