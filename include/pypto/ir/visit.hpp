// pypto/ir/visit.hpp — dispatch on a node's kind, and generic child walks.
//
// `visit(node, fn)` calls `fn(const Concrete&)` with the node's concrete class: one switch per
// node, generated from the catalog in node.hpp, so a new node cannot be forgotten
// (`visit_expr` / `visit_stmt` / `visit_type` do the same within one category). On top of it,
// `for_each_child` lists a node's direct children in field order (derived from the field
// descriptors, including nodes held in optional fields, views and attribute values), and
// `for_each_node` walks a whole graph depth-first with an explicit stack — constant native stack
// whatever the depth — visiting each shared node once. Both are O(nodes + fields).
#pragma once

#include <concepts>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "pypto/core/callback_ref.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/reflect/walk.hpp"

namespace pypto::ir {

/// `visit` restricted to the concrete classes derived from `Base` (Expr, Stmt, Type, ...): `fn`
/// is instantiated for those only, so a walker with one overload per kind of the category fails
/// to compile when a kind is added without its overload, instead of needing a runtime fallback.
template <class Base, class Fn>
decltype(auto) visit_as(const Base& n, Fn&& fn) {
  switch (n.kind()) {
#define PYPTO_X(T)                                           \
  case NodeKind::T:                                          \
    if constexpr (std::is_base_of_v<Base, T>)                \
      return std::forward<Fn>(fn)(static_cast<const T&>(n)); \
    else                                                     \
      break;
    PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
  }
  throw core::InternalError("visit_as: a " + std::string(kind_name(n.kind())) + " is not a " +
                            std::string(Base::class_name));
}
/// Calls `fn(static_cast<const T&>(n))` where T is n's concrete class; every branch must
/// return the same type.
template <class Fn>
decltype(auto) visit(const Node& n, Fn&& fn) {
  return visit_as<Node>(n, std::forward<Fn>(fn));
}
template <class Fn>
decltype(auto) visit_expr(const Expr& n, Fn&& fn) {
  return visit_as<Expr>(n, std::forward<Fn>(fn));
}
template <class Fn>
decltype(auto) visit_stmt(const Stmt& n, Fn&& fn) {
  return visit_as<Stmt>(n, std::forward<Fn>(fn));
}
template <class Fn>
decltype(auto) visit_type(const Type& n, Fn&& fn) {
  return visit_as<Type>(n, std::forward<Fn>(fn));
}

namespace detail {
/// A reflect::walk visitor that reports every child node handle and ignores leaves.
template <class Fn>
struct ChildCollector {
  Fn fn;

  template <class T>
  requires std::derived_from<T, Node>
  void visit(const Ref<const T>& child) {
    if (child) fn(NodeRef(child));
  }
  void visit(const Attrs& attrs) {
    for (const auto& e : attrs) visit_attr(e.value);
  }
  void visit_attr(const AttrValue& v) {
    if (const auto* e = v.get_if<ExprRef>()) visit(*e);
    if (const auto* l = v.get_if<AttrValueList>())
      for (const auto& item : *l) visit_attr(item);
  }
  template <class T>
  requires(std::is_arithmetic_v<T> || std::is_enum_v<T>) void visit(const T&) {}
  void visit(const std::string&) {}
  void visit(const Span&) {}
};

template <class Fn>
void for_each_child_of(const Node& n, ChildCollector<Fn> collector) {
  visit(n, [&](const auto& concrete) { reflect::walk_fields(collector, concrete); });
}

/// for_each_node's own child callback: a direct call, where a caller's is through a CallbackRef.
struct PushChild {
  std::vector<NodeRef>& out;
  void operator()(NodeRef c) const { out.push_back(std::move(c)); }
};
}  // namespace detail

// The two walks take their callback by CallbackRef, so each is compiled once, not once per
// caller; they are templates (of nothing) only so that a TU that never walks does not compile
// them at all.

/// Calls `fn(NodeRef)` for each direct child of `n`, in field order (null children skipped).
template <class = void>
void for_each_child(const Node& n, core::CallbackRef<void(NodeRef)> fn) {
  detail::for_each_child_of(n, detail::ChildCollector<core::CallbackRef<void(NodeRef)>>{fn});
}

/// Calls `fn(const Node&)` once for every node reachable from `root`, parents before children,
/// children in field order. Iterative: safe for arbitrarily deep IR.
template <class = void>
void for_each_node(const NodeRef& root, core::CallbackRef<void(const Node&)> fn) {
  if (!root) return;
  ::pypto::detail::PointerMap<char> seen;  // membership only; never iterated
  std::vector<NodeRef> stack{root};
  std::vector<NodeRef> children;
  while (!stack.empty()) {
    NodeRef n = std::move(stack.back());
    stack.pop_back();
    if (!seen.insert(n.get(), 0).second) continue;
    fn(*n);
    children.clear();
    detail::for_each_child_of(*n, detail::ChildCollector<detail::PushChild>{{children}});
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }
}

}  // namespace pypto::ir
