// pypto/transforms/prefetch_locality.ipp — the definitions of transforms/prefetch_locality.hpp.
#pragma once

#include "pypto/transforms/prefetch_locality.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/span.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"

// The admitted shape:
//
//     c = pl.prefetch.make_context(ws)         # each producer call bound once, by an
//     e = pl.prefetch.async_prefetch(src, c)   #   assignment, to a Var of exactly its type
//     s = pl.prefetch.session(c)
//     ok = pl.prefetch.wait(e, s)              # e and s made from the same context
//
// A handle *type* appears only as the result type of its producer call and as the type of the one
// Var that call is bound to. A handle *value* appears only in a consumer slot — the ctx operand of
// async_prefetch and session, the event and session operands of wait — as that Var, or as the
// producer call written inline there. Anything else is an escape: parameters and return types,
// function attrs, call kwargs and attrs, tuples (MakeTuple, or a TupleType at any depth in any
// type), yields, loop carries, if results, returns, aliases (`c2 = c`), other ops, program calls
// and task submits. A wait takes its event and its session from one context. Producers may sit
// in loop bodies — each evaluation creates its own context — and the SSAForm property that dedup
// requires keeps every use in the scope of its definition; uses never leave the function.
//
// Every incoming edge is checked, not every node: a shared node that one edge reaches through an
// allowed slot and another through a return is rejected. Context identity is the producer call,
// so a producer call has exactly one incoming edge and a binding is reached through no shared
// statement node (one node evaluated twice would make two contexts under one identity).
//
// Two iterative walks (constant native stack at any node nesting depth; only nested attribute
// lists are followed recursively, by ir::for_each_child), O(N) expected time and storage for N
// nodes and edges of the function. The first problem in walk order — depth first,
// fields in declaration order — is reported, so the result is deterministic.

namespace pypto::transforms {

namespace detail::prefetch {

enum class Handle : std::uint8_t { None, Context, Event, Session };

/// The handle kind of a type node (None for any other type, or no type).
inline Handle handle_of_type(const ir::Node* type) {
  if (!type) return Handle::None;
  switch (type->kind()) {
    case ir::NodeKind::PrefetchAsyncContextType: return Handle::Context;
    case ir::NodeKind::AsyncEventType: return Handle::Event;
    case ir::NodeKind::AsyncSessionType: return Handle::Session;
    default: return Handle::None;
  }
}
/// The handle kind of an expression's type.
inline Handle handle_of(const ir::Expr& e) { return handle_of_type(e.type.get()); }

/// How messages name a handle kind, its type as written, its producer op.
struct HandleInfo {
  std::string_view noun, type_name, producer, consumers;
};
inline const HandleInfo& info(Handle k) {
  static constexpr std::array<HandleInfo, 4> table{{
      {"", "", "", ""},
      {"prefetch context", "pl.PrefetchAsyncContext", "prefetch.make_context",
       "the ctx operand of prefetch.async_prefetch and prefetch.session"},
      {"prefetch event", "pl.AsyncEvent", "prefetch.async_prefetch",
       "the event operand of prefetch.wait"},
      {"prefetch session", "pl.AsyncSession", "prefetch.session",
       "the session operand of prefetch.wait"},
  }};
  return table[static_cast<std::size_t>(k)];
}

/// A prefetch op: its arity and the handle it produces (None for wait).
struct OpInfo {
  ir::OpId id;
  std::size_t arity;
  Handle result;
};
inline constexpr std::array<OpInfo, 4> kOps{{{ir::OpId::prefetch_make_context, 1, Handle::Context},
                                             {ir::OpId::prefetch_async_prefetch, 2, Handle::Event},
                                             {ir::OpId::prefetch_session, 1, Handle::Session},
                                             {ir::OpId::prefetch_wait, 2, Handle::None}}};

/// A consumer slot: argument `index` of `op` takes a handle of kind `handle`.
struct Slot {
  ir::OpId op;
  std::size_t index;
  Handle handle;
  std::string_view name;
};
inline constexpr std::array<Slot, 4> kSlots{
    {{ir::OpId::prefetch_async_prefetch, 1, Handle::Context, "ctx"},
     {ir::OpId::prefetch_session, 0, Handle::Context, "ctx"},
     {ir::OpId::prefetch_wait, 0, Handle::Event, "event"},
     {ir::OpId::prefetch_wait, 1, Handle::Session, "session"}}};

/// The prefetch op `c` calls (a builtin, not a program function), or null.
inline const OpInfo* prefetch_op(const ir::Call& c) {
  for (const auto& op : kOps)
    if (c.op->id == op.id) return &op;
  return nullptr;
}
/// The handle kind `c` produces by its op (whatever its recorded type), or None.
inline Handle produced_by(const ir::Call& c) {
  const OpInfo* op = prefetch_op(c);
  return op ? op->result : Handle::None;
}

/// The callee as the text writes it: `self.f` for a program function, the op name otherwise.
inline std::string callee_name(const ir::Op& op) {
  return ir::isa<ir::GlobalVar>(op) ? "self." + op.name : op.name;
}
/// `a Call`, `an IfStmt`: a node kind with its article.
inline std::string a_kind(const ir::Node& n) {
  const std::string_view k = ir::kind_name(n.kind());
  return (k.find_first_of("AEIOU") == 0 ? "an " : "a ") + std::string(k);
}
/// `'x'` for a variable, `a call of op` / `a <Kind>` otherwise.
inline std::string plain_ref(const ir::Expr& e) {
  if (const auto* v = ir::as<ir::Var>(&e)) return "'" + v->name_hint + "'";
  if (const auto* c = ir::as<ir::Call>(&e)) return "a call of " + callee_name(*c->op);
  return a_kind(e);
}
/// `prefetch event 'e'`, `prefetch event made by prefetch.async_prefetch`, ...
inline std::string handle_ref(const ir::Expr& e) {
  std::string s(info(handle_of(e)).noun);
  if (const auto* v = ir::as<ir::Var>(&e)) return s + " '" + v->name_hint + "'";
  if (const auto* c = ir::as<ir::Call>(&e)) return s + " made by " + callee_name(*c->op);
  return s + " from " + a_kind(e);
}

/// True when `v` is held, directly or in nested lists, by a value of `attrs`. Iterative.
inline bool attrs_hold(const ir::Attrs& attrs, const ir::Node* v) {
  std::vector<const ir::AttrValue*> stack;
  for (const auto& e : attrs) stack.push_back(&e.value);
  while (!stack.empty()) {
    const ir::AttrValue* a = stack.back();
    stack.pop_back();
    if (const auto* e = a->get_if<ir::ExprRef>(); e && e->get() == v) return true;
    if (const auto* l = a->get_if<ir::AttrValueList>())
      for (const auto& item : *l) stack.push_back(&item);
  }
  return false;
}

/// The span a message about `n` starts with, `line:column: `, or nothing.
inline std::string at(const ir::Node* n) {
  const core::Span* s = nullptr;
  if (const auto* st = ir::as<ir::Stmt>(n)) s = &st->span;
  if (const auto* e = ir::as<ir::Expr>(n)) s = &e->span;
  if (const auto* f = ir::as<ir::Function>(n)) s = &f->span;
  return s && s->is_known() ? s->to_string() + ": " : std::string();
}

/// The check of one function; see prefetch_handle_problem.
class Check {
 public:
  explicit Check(const ir::Function& f) : f_(f) {}

  std::string run() {
    collect_bindings();
    walk();
    if (problem_.empty()) check_binding_paths();
    return problem_;
  }

 private:
  /// The assignments to one Var that involve a handle.
  struct Binding {
    const ir::AssignStmt* stmt = nullptr;  ///< the first one
    std::uint32_t count = 0;
  };
  /// Incoming statement edges of a statement node, and the parent of the first.
  struct StmtEdges {
    const ir::Node* parent = nullptr;
    std::uint32_t count = 0;
  };
  /// The handle edges a node may have (consumed as they are met): at most a type and two slots.
  struct Allowed {
    std::array<const ir::Node*, 3> nodes{};
    void add(const ir::Node* n) {
      for (auto& s : nodes)
        if (!s) {
          s = n;
          return;
        }
    }
    bool take(const ir::Node* n) {
      for (auto& s : nodes)
        if (s == n) {
          s = nullptr;
          return true;
        }
      return false;
    }
  };

  // ---- bindings ----

  /// Pass 1: every assignment whose variable or value has a handle type, in walk order.
  void collect_bindings() {
    ir::for_each_node(ir::NodeRef(&f_), [&](const ir::Node& n) {
      const auto* s = ir::as<ir::AssignStmt>(&n);
      if (!s) return;
      if (ir::isa<ir::Call>(*s->value)) named_.insert(s->value.get(), s->var.get());
      if (handle_of(*s->var) == Handle::None && handle_of(*s->value) == Handle::None) return;
      auto [b, fresh] = bindings_.insert(s->var.get(), Binding{});
      if (fresh) b->stmt = s;
      ++b->count;
      binding_stmts_.push_back(s);
    });
  }

  /// `var = producer(...)`: a plain Var of exactly the producer's handle type, bound only here.
  bool binding_ok(const ir::AssignStmt& s) const {
    const Handle k = handle_of(*s.var);
    if (k == Handle::None || s.var->kind() != ir::NodeKind::Var) return false;
    const auto* c = ir::as<ir::Call>(s.value.get());
    if (!c || produced_by(*c) != k || handle_of(*c) != k) return false;
    const Binding* b = bindings_.find(s.var.get());
    return b && b->count == 1;
  }

  /// The producer call of a handle expression of kind `k` in a consumer slot: the expression
  /// itself when it is a producer call, the call bound to it when it is a bound Var; else null.
  const ir::Call* producer_of(const ir::Expr& e, Handle k) const {
    if (handle_of(e) != k) return nullptr;
    if (e.kind() == ir::NodeKind::Var) {
      const Binding* b = bindings_.find(&e);
      if (!b || b->count != 1 || !binding_ok(*b->stmt)) return nullptr;
      return static_cast<const ir::Call*>(b->stmt->value.get());
    }
    const auto* c = ir::as<ir::Call>(&e);
    return c && produced_by(*c) == k ? c : nullptr;
  }

  /// `'c'` for a context bound to c, `made inline by prefetch.make_context` otherwise.
  std::string context_name(const ir::Call* make_context) const {
    if (const ir::Var* const* v = named_.find(make_context)) return "'" + (*v)->name_hint + "'";
    return "made inline by prefetch.make_context";
  }

  // ---- pass 2: every node once, every edge ----

  void walk() {
    struct Frame {
      ir::NodeRef node;
      const ir::Node* anchor;  ///< the nearest located ancestor (statement, expression, function)
    };
    std::vector<Frame> stack{{ir::NodeRef(&f_), nullptr}};
    std::vector<ir::NodeRef> children;
    while (!stack.empty()) {
      const Frame frame = std::move(stack.back());
      stack.pop_back();
      const ir::Node& n = *frame.node;
      if (!seen_.insert(&n, true).second) continue;
      const bool located = ir::isa<ir::Stmt>(n) || ir::isa<ir::Expr>(n) || ir::isa<ir::Function>(n);
      const ir::Node* here = located ? &n : frame.anchor;
      check_node(n);
      if (!problem_.empty()) return;
      children.clear();
      ir::for_each_child(n, [&](ir::NodeRef c) { children.push_back(std::move(c)); });
      Allowed allowed = allowed_edges(n);
      for (const auto& c : children) {
        check_edge(n, *c, allowed, here);
        if (!problem_.empty()) return;
      }
      for (auto it = children.rbegin(); it != children.rend(); ++it)
        if (!seen_.find(it->get())) stack.push_back({*it, here});
    }
  }

  void fail(const ir::Node* where, std::string what) { problem_ = at(where) + std::move(what); }

  /// The rules a node imposes on itself: bindings, producer types, consumer operands.
  void check_node(const ir::Node& n) {
    if (const auto* s = ir::as<ir::AssignStmt>(&n)) return check_assign(*s);
    if (const auto* c = ir::as<ir::Call>(&n)) return check_call(*c);
    if (const auto* s = ir::as<ir::Submit>(&n))
      if (!ir::isa<ir::GlobalVar>(*s->op) && s->op->name.rfind("prefetch.", 0) == 0)
        fail(s, s->op->name + " is launched as a task; prefetch ops are called in place");
  }

  void check_assign(const ir::AssignStmt& s) {
    const Handle kv = handle_of(*s.var), kx = handle_of(*s.value);
    if ((kv == Handle::None && kx == Handle::None) || binding_ok(s)) return;
    const std::string var = "'" + s.var->name_hint + "'";
    const Binding* b = bindings_.find(s.var.get());
    const auto* c = ir::as<ir::Call>(s.value.get());
    if (kv != Handle::None && b && b->count > 1)
      return fail(&s, std::string(info(kv).noun) + " " + var + " is assigned " +
                          std::to_string(b->count) + " times (a handle is bound exactly once)");
    if (kx != Handle::None && !(c && produced_by(*c) == kx)) {
      if (ir::isa<ir::Var>(*s.value))
        return fail(&s, handle_ref(*s.value) + " is re-bound to " + var + " (an alias)");
      return fail(&s, handle_ref(*s.value) + " is bound to " + var + "; only a " +
                          std::string(info(kx).producer) + " call is bound to a " +
                          std::string(info(kx).noun));
    }
    if (kx != Handle::None)
      return fail(&s, var + " binds the " + std::string(info(kx).noun) + " made by " +
                          std::string(info(kx).producer) + " but is not a plain variable of type " +
                          std::string(info(kx).type_name));
    fail(&s, var + " has type " + std::string(info(kv).type_name) + " but is bound to " +
                 plain_ref(*s.value) + "; only " + std::string(info(kv).producer) + " makes a " +
                 std::string(info(kv).noun));
  }

  void check_call(const ir::Call& c) {
    const OpInfo* op = prefetch_op(c);
    if (!op) return;
    if (c.args.size() != op->arity)
      return fail(&c, std::string(ir::op_name(op->id)) + " takes " + std::to_string(op->arity) +
                          " argument(s), got " + std::to_string(c.args.size()));
    if (op->result != Handle::None && handle_of(c) != op->result)
      return fail(&c, std::string(ir::op_name(op->id)) + " is typed " +
                          std::string(ir::kind_name(c.type->kind())) + "; its result must be " +
                          std::string(info(op->result).type_name));
    for (const Slot& slot : kSlots) {
      if (slot.op != op->id) continue;
      const ir::Expr& a = *c.args[slot.index];
      const std::string operand =
          "the " + std::string(slot.name) + " operand of " + std::string(ir::op_name(op->id));
      if (handle_of(a) != slot.handle)
        return fail(&c, operand + " is not a " + std::string(info(slot.handle).noun) + " (it is " +
                            (handle_of(a) != Handle::None ? handle_ref(a) : plain_ref(a)) + ")");
      if (!producer_of(a, slot.handle))
        return fail(&c, operand + ", " + handle_ref(a) + ", is not bound by " +
                            std::string(info(slot.handle).producer) + " in this function");
    }
    if (op->id == ir::OpId::prefetch_wait) check_wait_contexts(c);
  }

  /// A wait uses the context its event was prefetched in. (A producer whose own operands are
  /// wrong is reported when the walk reaches it; it always does.)
  void check_wait_contexts(const ir::Call& wait) {
    const ir::Call* event = producer_of(*wait.args[0], Handle::Event);
    const ir::Call* session = producer_of(*wait.args[1], Handle::Session);
    if (event->args.size() != 2 || session->args.size() != 1) return;
    const ir::Call* from_event = producer_of(*event->args[1], Handle::Context);
    const ir::Call* from_session = producer_of(*session->args[0], Handle::Context);
    if (!from_event || !from_session || from_event == from_session) return;
    fail(&wait, "prefetch.wait uses " + handle_ref(*wait.args[1]) + " of context " +
                    context_name(from_session) + " but " + handle_ref(*wait.args[0]) +
                    " of context " + context_name(from_event) +
                    " (a wait must use the event's originating context)");
  }

  /// The handle edges node `n` may have.
  Allowed allowed_edges(const ir::Node& n) const {
    Allowed allowed;
    if (const auto* s = ir::as<ir::AssignStmt>(&n)) {
      if (binding_ok(*s)) {
        allowed.add(s->var.get());
        allowed.add(s->value.get());
      }
    } else if (n.kind() == ir::NodeKind::Var) {
      const auto& v = static_cast<const ir::Var&>(n);
      if (handle_of(v) != Handle::None && producer_of(v, handle_of(v))) allowed.add(v.type.get());
    } else if (const auto* c = ir::as<ir::Call>(&n)) {
      const OpInfo* op = prefetch_op(*c);
      if (op && op->result != Handle::None && handle_of(*c) == op->result)
        allowed.add(c->type.get());
      if (op && c->args.size() == op->arity)
        for (const Slot& slot : kSlots)
          if (slot.op == op->id && handle_of(*c->args[slot.index]) == slot.handle)
            allowed.add(c->args[slot.index].get());
    }
    return allowed;
  }

  void check_edge(const ir::Node& parent, const ir::Node& child, Allowed& allowed,
                  const ir::Node* here) {
    if (ir::isa<ir::Stmt>(child)) {
      auto [e, fresh] = stmt_edges_.insert(&child, StmtEdges{&parent, 0});
      ++e->count;
    }
    const bool is_type = ir::isa<ir::Type>(child);
    const auto* expr = ir::as<ir::Expr>(&child);
    const Handle k = is_type ? handle_of_type(&child) : expr ? handle_of(*expr) : Handle::None;
    if (k == Handle::None) return;
    if (ir::isa<ir::Call>(child))
      if (++*call_edges_.insert(&child, 0).first == 2)
        return fail(here, callee_name(*static_cast<const ir::Call&>(child).op) +
                              " call is shared by two uses (each evaluation makes a new " +
                              std::string(info(k).noun) + "; bind it to one variable)");
    if (allowed.take(&child)) return;
    if (is_type) return fail(here, type_escape(parent, k, here));
    fail(here, value_escape(parent, *expr));
  }

  /// Why a handle type may not hang below `parent`.
  std::string type_escape(const ir::Node& parent, Handle k, const ir::Node* here) const {
    const std::string type(info(k).type_name);
    const std::string only =
        "only " + std::string(info(k).producer) + " makes a " + std::string(info(k).noun);
    if (const auto* f = ir::as<ir::Function>(&parent))
      return "function '" + f->name + "' returns a " + type + " (escapes through the signature)";
    if (const auto* v = ir::as<ir::IterArg>(&parent))
      return "loop-carried '" + v->name_hint + "' has type " + type;
    if (const auto* v = ir::as<ir::Var>(&parent))
      return "'" + v->name_hint + "' has type " + type + " but is not bound by " +
             std::string(info(k).producer) + " in this function";
    if (const auto* c = ir::as<ir::Call>(&parent))
      return callee_name(*c->op) + " is typed " + type + "; " + only;
    if (ir::isa<ir::Expr>(parent)) return a_kind(parent) + " is typed " + type + "; " + only;
    std::string where;
    if (const auto* v = ir::as<ir::Var>(here))
      where = " (in the type of '" + v->name_hint + "')";
    else if (const auto* c = ir::as<ir::Call>(here))
      where = " (in the result type of " + callee_name(*c->op) + ")";
    else if (const auto* f = ir::as<ir::Function>(here))
      where = " (in the signature of function '" + f->name + "')";
    else if (here && ir::isa<ir::Expr>(*here))
      where = " (in the type of " + a_kind(*here) + ")";
    return type + " is nested in " + a_kind(parent) + where;
  }

  /// Why a handle value may not be used by `parent`.
  std::string value_escape(const ir::Node& parent, const ir::Expr& value) const {
    const std::string ref = handle_ref(value);
    const std::string only =
        "only " + std::string(info(handle_of(value)).consumers) + " may use it";
    const auto argument = [&](const std::vector<ir::ExprRef>& args, const ir::Attrs& kwargs,
                              const ir::Attrs& attrs, const std::string& callee) {
      for (std::size_t i = 0; i < args.size(); ++i)
        if (args[i].get() == &value) {
          bool slot = false;  // the value's own slot, already taken by an earlier edge
          for (const Slot& s : kSlots)
            slot =
                slot || (s.op == ir::op_id(callee) && s.index == i && s.handle == handle_of(value));
          if (!slot)
            return ref + " is argument " + std::to_string(i) + " of " + callee +
                   " (an arbitrary consumer; " + only + ")";
        }
      if (attrs_hold(kwargs, &value)) return ref + " escapes through the kwargs of " + callee;
      if (attrs_hold(attrs, &value)) return ref + " escapes through the attrs of " + callee;
      return ref + " is used by " + callee + " (an arbitrary consumer; " + only + ")";
    };
    if (const auto* c = ir::as<ir::Call>(&parent))
      return argument(c->args, c->kwargs, c->attrs, callee_name(*c->op));
    if (const auto* s = ir::as<ir::Submit>(&parent))
      return argument(s->args, s->kwargs, s->attrs, "pl.submit(" + callee_name(*s->op) + ")");
    if (const auto* f = ir::as<ir::Function>(&parent)) {
      for (const auto& p : f->params)
        if (p.get() == &value)
          return ref + " is a parameter of function '" + f->name +
                 "' (escapes through the signature)";
      return ref + " escapes through the attrs of function '" + f->name + "'";
    }
    switch (parent.kind()) {
      case ir::NodeKind::ReturnStmt: return ref + " escapes through the return";
      case ir::NodeKind::YieldStmt: return ref + " escapes through a yield";
      case ir::NodeKind::MakeTuple: return ref + " is packed into a tuple";
      case ir::NodeKind::ForStmt:
      case ir::NodeKind::WhileStmt: return ref + " is carried by a loop";
      case ir::NodeKind::IfStmt: return ref + " is a result of an if";
      case ir::NodeKind::IterArg:
        return ref + " is the initial value of loop-carried '" +
               static_cast<const ir::IterArg&>(parent).name_hint + "'";
      case ir::NodeKind::EvalStmt:
        return ref + " is evaluated as a statement (a handle is bound to a variable)";
      default:
        return ref + " is used by " + a_kind(parent) + " (an arbitrary consumer; " + only + ")";
    }
  }

  /// A sound binding is reached through statement nodes that each have one incoming edge: a
  /// shared statement would bind its variable once per path. Memoized: O(statements) in all.
  void check_binding_paths() {
    std::vector<const ir::Node*> chain;
    for (const ir::AssignStmt* s : binding_stmts_) {
      chain.clear();
      for (const ir::Node* n = s; ir::isa<ir::Stmt>(*n) && !verified_.find(n);) {
        const StmtEdges* e = stmt_edges_.find(n);
        if (e->count > 1)
          return fail(s, handle_ref(*s->var) + " is bound inside a statement node reached " +
                             std::to_string(e->count) +
                             " times (a shared statement would bind it once per use)");
        chain.push_back(n);
        n = e->parent;
      }
      for (const ir::Node* n : chain) verified_.insert(n, true);
    }
  }

  const ir::Function& f_;
  std::string problem_;
  pypto::detail::PointerMap<Binding> bindings_;          // Var -> its handle assignments
  pypto::detail::PointerMap<const ir::Var*> named_;      // call -> the first Var bound to it
  pypto::detail::PointerMap<bool> seen_;                 // nodes walked
  pypto::detail::PointerMap<StmtEdges> stmt_edges_;      // statement -> incoming edges
  pypto::detail::PointerMap<std::uint32_t> call_edges_;  // handle-typed call -> incoming edges
  pypto::detail::PointerMap<bool> verified_;             // statements on unshared paths
  std::vector<const ir::AssignStmt*> binding_stmts_;     // in walk order
};

}  // namespace detail::prefetch

PYPTO_DECL std::string prefetch_handle_problem(const ir::Function& f) {
  return detail::prefetch::Check(f).run();
}

}  // namespace pypto::transforms
