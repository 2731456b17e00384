// pypto/transforms/return_lineage.ipp — the definitions of transforms/return_lineage.hpp.
//
// A kernel returns the parameter it writes through, not the SSA result of the write, so
// orchestration code maps results to arguments by identity. This is the shared analysis that finds
// such values: `param_of(fn, v)` is the index of the parameter of `fn` whose memory `v` is, or
// nullopt when `v` is (or may be) a buffer of its own. A value aliases parameter j when it is
// parameter j, or follows from one that does by
//   - a copy `v = u`;
//   - a call of a registered op with exactly one Write/ReadWrite argument (the registry's
//     declared effects, never op names): the result is that argument's buffer
//     (`tile.store(t, offs, out)`, `tensor.assemble(out, src, offs)`);
//   - a call of a program function, or a TupleGetItem of such a call or submit, whose result
//     position the callee returns from a parameter (its own lineage, recursively) that is an
//     Out or InOut slot: the result is the caller's argument in that slot;
//   - a loop carry (for/while iter_arg, and the loop's result): its init value aliases j and
//     the loop body yields, for that slot, a value aliasing j (the carry itself included);
//   - an if result: both arms yield values aliasing the same j.
// A function returning several results may return them as one value, a call of a function
// with those results: result k is then the callee's result k, as above.
// Anything else — a fresh allocation, a computing op, a view, an op with two written
// arguments, a callee without a body, a recursive call — gives nullopt: the answer is
// conservative ("not provably the parameter's buffer"), never a guess.
//
// Each function is solved once, by forward passes over its statements in execution order
// (SSA: a value is defined before it is used), every carry first assumed to keep its init's
// buffer; a pass that refutes a carry (its yield disagrees) is followed by another with that
// carry dropped, until none is refuted — the greatest consistent answer. A pass is
// O(statements); there is one more pass per round of refuted carries (nested loops), usually
// none. No recursion over statements; recursion over callees is bounded by call depth.
// A ReturnLineage keeps pointers to the functions, program and registry it is given: they
// must outlive it.
#pragma once

#include "pypto/transforms/return_lineage.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/transforms/body_slots.hpp"

namespace pypto::transforms {

namespace detail {

/// The last statement of a region if it is a YieldStmt (looking into trailing sequences): the
/// values an if arm or a loop body hands out.
inline const ir::YieldStmt* final_yield(const ir::StmtRef& body) {
  const ir::Stmt* s = body.get();
  while (const auto* seq = ir::as<ir::SeqStmts>(s)) {
    if (seq->stmts.empty()) return nullptr;
    s = seq->stmts.back().get();
  }
  return ir::as<ir::YieldStmt>(s);
}

}  // namespace detail

struct ReturnLineage::FunctionState {
  enum class Stage : std::uint8_t { NotStarted, Solving, Solved };
  /// A statement reached in execution order: entered, or (loops and ifs) left.
  struct Event {
    const ir::Stmt* stmt;
    bool exit;
  };

  ReturnLineage* owner;
  const ir::Function* fn;
  std::vector<Event> events;
  std::vector<const ir::ReturnStmt*> return_stmts;
  ::pypto::detail::PointerMap<const ir::AssignStmt*> assigns;  // var -> its definition
  ::pypto::detail::PointerMap<ParamIndex> values;              // var -> its parameter
  ::pypto::detail::PointerMap<bool> refuted;                   // iter_arg -> carry refuted
  Stage stage = Stage::NotStarted;
  std::optional<std::vector<ParamIndex>> returns;

  FunctionState(ReturnLineage* o, const ir::Function& f) : owner(o), fn(&f) {
    if (!f.body) return;
    std::vector<Event> stack{{f.body.get(), false}};  // explicit: any depth
    std::vector<const ir::Stmt*> children;
    while (!stack.empty()) {
      const Event e = stack.back();
      stack.pop_back();
      events.push_back(e);
      if (e.exit) continue;
      if (const auto* a = ir::as<ir::AssignStmt>(e.stmt)) assigns.insert(a->var.get(), a);
      if (const auto* r = ir::as<ir::ReturnStmt>(e.stmt)) return_stmts.push_back(r);
      if (ir::isa<ir::ForStmt>(*e.stmt) || ir::isa<ir::WhileStmt>(*e.stmt) ||
          ir::isa<ir::IfStmt>(*e.stmt))
        stack.push_back({e.stmt, true});  // popped after the body
      children.clear();
      if (const auto* seq = ir::as<ir::SeqStmts>(e.stmt)) {
        for (const auto& c : seq->stmts) children.push_back(c.get());
      } else {
        detail::for_each_body_slot(
            *e.stmt, [&](const ir::StmtRef& c, std::string_view) { children.push_back(c.get()); });
      }
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back({*it, false});
    }
  }

  /// Solves the function; false while it is being solved (a recursive call reached it).
  bool solve() {
    if (stage != Stage::NotStarted) return stage == Stage::Solved;
    stage = Stage::Solving;
    for (bool again = true; again;) {
      values.clear();
      for (std::size_t i = 0; i < fn->params.size(); ++i) set(fn->params[i].get(), i);
      again = false;
      for (const Event& e : events) again = step(e) || again;
    }
    stage = Stage::Solved;
    return true;
  }

  /// The parameter a variable's buffer is, or a call's that writes one (`return pl.store(t,
  /// [0], out)` returns `out`); nullopt for other expressions and unknown vars.
  ParamIndex value_of(const ir::Expr* e) {
    if (e && !ir::isa<ir::Var>(*e)) {
      const ir::Expr* buffer = assigned_buffer(*e);
      return buffer && buffer != e ? value_of(buffer) : std::nullopt;
    }
    const auto* v = ir::as<ir::Var>(e);  // keys are always `const Var*`
    const ParamIndex* p = v ? values.find(v) : nullptr;
    return p ? *p : std::nullopt;
  }
  void set(const ir::Var* v, ParamIndex p) { *values.insert(v, p).first = p; }

  /// Applies one event; true when it refutes a carry (the pass must be repeated).
  bool step(const Event& e) {
    const ir::Stmt& s = *e.stmt;
    if (const auto* a = ir::as<ir::AssignStmt>(&s)) {
      set(a->var.get(), value_of(assigned_buffer(*a->value)));
    } else if (const auto* l = ir::as<ir::ForStmt>(&s)) {
      return loop(e.exit, l->iter_args, l->body, l->return_vars);
    } else if (const auto* w = ir::as<ir::WhileStmt>(&s)) {
      return loop(e.exit, w->iter_args, w->body, w->return_vars);
    } else if (const auto* i = ir::as<ir::IfStmt>(&s); i && e.exit) {
      const ir::YieldStmt* then_y = detail::final_yield(i->then_body);
      const ir::YieldStmt* else_y = i->else_body ? detail::final_yield(i->else_body) : nullptr;
      for (std::size_t k = 0; k < i->return_vars.size(); ++k) {
        ParamIndex p;
        if (then_y && else_y && k < then_y->values.size() && k < else_y->values.size()) {
          p = value_of(then_y->values[k].get());
          if (value_of(else_y->values[k].get()) != p) p = std::nullopt;
        }
        set(i->return_vars[k].get(), p);
      }
    }
    return false;
  }

  /// Entering: each carry (unless refuted) and its result take the init's parameter.
  /// Leaving: a carry whose yield disagrees is refuted.
  bool loop(bool exit, const std::vector<ir::IterArgRef>& iter_args, const ir::StmtRef& body,
            const std::vector<ir::VarRef>& return_vars) {
    if (!exit) {
      for (std::size_t k = 0; k < iter_args.size(); ++k) {
        const ParamIndex p = refuted.find(iter_args[k].get())
                                 ? std::nullopt
                                 : value_of(iter_args[k]->init_value.get());
        set(iter_args[k].get(), p);
        if (k < return_vars.size()) set(return_vars[k].get(), p);
      }
      return false;
    }
    bool refuted_one = false;
    const ir::YieldStmt* y = detail::final_yield(body);
    for (std::size_t k = 0; k < iter_args.size(); ++k) {
      const ParamIndex p = value_of(iter_args[k].get());
      if (!p) continue;
      if (y && k < y->values.size() && value_of(y->values[k].get()) == p) continue;
      refuted.insert(iter_args[k].get(), true);
      set(iter_args[k].get(), std::nullopt);
      if (k < return_vars.size()) set(return_vars[k].get(), std::nullopt);
      refuted_one = true;
    }
    return refuted_one;
  }

  /// The expression whose buffer an assigned value is, or null.
  const ir::Expr* assigned_buffer(const ir::Expr& value) {
    if (ir::isa<ir::Var>(value)) return &value;
    if (const auto* call = ir::as<ir::Call>(&value)) {
      if (!ir::isa<ir::GlobalVar>(*call->op)) return written_arg(*call);
      return callee_arg(call->op->name, call->args, std::nullopt, false);
    }
    if (const auto* get = ir::as<ir::TupleGetItem>(&value)) return tuple_item_arg(*get);
    return nullptr;
  }

  /// The argument a registered op writes, when it writes exactly one.
  const ir::Expr* written_arg(const ir::Call& call) const {
    const ir::Expr* written = nullptr;
    for (std::size_t i = 0; i < call.args.size(); ++i) {
      if (owner->ops_->effect(call, i) == ir::ArgEffect::Read) continue;
      if (written) return nullptr;  // two destinations: the result is neither for sure
      written = call.args[i].get();
    }
    return written;
  }

  /// Result `k` of `e`, a function's one returned value standing for all its results: a call
  /// of a program function with several results (or a name bound to one).
  ParamIndex result_value_of(const ir::Expr* e, std::size_t k) {
    if (const auto* v = ir::as<ir::Var>(e)) {
      const ir::AssignStmt* const* def = assigns.find(v);
      e = def ? (*def)->value.get() : nullptr;
    }
    const auto* call = ir::as<ir::Call>(e);
    const ir::Expr* arg = call && ir::isa<ir::GlobalVar>(*call->op)
                              ? callee_arg(call->op->name, call->args, k, false)
                              : nullptr;
    return arg ? value_of(arg) : std::nullopt;
  }

  /// `t[k]` where t is (bound to) a call or submit of a program function.
  const ir::Expr* tuple_item_arg(const ir::TupleGetItem& get) {
    const ir::Expr* tuple = get.tuple.get();
    if (const auto* tv = ir::as<ir::Var>(tuple)) {
      const ir::AssignStmt* const* def = assigns.find(tv);
      if (!def) return nullptr;
      tuple = (*def)->value.get();
    }
    const auto index = static_cast<std::size_t>(get.index);
    if (const auto* call = ir::as<ir::Call>(tuple))
      return ir::isa<ir::GlobalVar>(*call->op)
                 ? callee_arg(call->op->name, call->args, index, false)
                 : nullptr;
    if (const auto* submit = ir::as<ir::Submit>(tuple))
      return ir::isa<ir::GlobalVar>(*submit->op)
                 ? callee_arg(submit->op->name, submit->args, index, true)
                 : nullptr;
    return nullptr;
  }

  /// The argument in the Out/InOut slot that result `position` of `callee` returns;
  /// `position` is nullopt for the whole result of a call (a callee with one return type).
  const ir::Expr* callee_arg(const std::string& callee_name, const std::vector<ir::ExprRef>& args,
                             ParamIndex position, bool submit) {
    const ir::FunctionRef callee = owner->program_ ? owner->program_->find(callee_name) : nullptr;
    if (!callee) return nullptr;
    const std::size_t n = callee->return_types.size();
    std::size_t pos = 0;
    if (!position) {
      if (n != 1) return nullptr;  // a tuple of results is no single buffer
    } else {
      // A call's result is a tuple only with several return types; a submit's always is.
      if (!submit && n == 1) return nullptr;
      pos = *position;
      if (pos >= n) return nullptr;  // a submit's task id
    }
    const std::vector<ParamIndex> returns = owner->returned_params(*callee);
    if (pos >= returns.size() || !returns[pos]) return nullptr;
    const std::size_t j = *returns[pos];
    if (j >= args.size() || callee->param_directions[j] == ir::ParamDirection::In) return nullptr;
    return args[j].get();
  }
};

PYPTO_DECL ReturnLineage::ReturnLineage(const ir::Program* program, const ir::OpRegistry& ops)
    : program_(program), ops_(&ops) {}
PYPTO_DECL ReturnLineage::ReturnLineage(ReturnLineage&&) noexcept = default;
PYPTO_DECL ReturnLineage& ReturnLineage::operator=(ReturnLineage&&) noexcept = default;
PYPTO_DECL ReturnLineage::~ReturnLineage() = default;

PYPTO_DECL ReturnLineage::ParamIndex ReturnLineage::param_of(const ir::Function& fn,
                                                             const ir::Var& v) {
  FunctionState& s = state(fn);
  return s.solve() ? s.value_of(&v) : std::nullopt;
}

PYPTO_DECL std::vector<ReturnLineage::ParamIndex> ReturnLineage::returned_params(
    const ir::Function& fn) {
  FunctionState& s = state(fn);
  if (s.returns) return *s.returns;
  std::vector<ParamIndex> out(fn.return_types.size());
  if (!s.solve()) return out;  // asked while solving `fn` itself (recursion): unknown
  bool first = true;
  for (const ir::ReturnStmt* ret : s.return_stmts) {
    for (std::size_t k = 0; k < out.size(); ++k) {
      const ParamIndex p = ret->values.size() == out.size() ? s.value_of(ret->values[k].get())
                           : ret->values.size() == 1 ? s.result_value_of(ret->values[0].get(), k)
                                                     : std::nullopt;
      if (first) out[k] = p;
      if (out[k] != p) out[k] = std::nullopt;
    }
    first = false;
  }
  s.returns = out;
  return out;
}

PYPTO_DECL ReturnLineage::FunctionState& ReturnLineage::state(const ir::Function& fn) {
  if (std::size_t* i = index_.find(&fn)) return *states_[*i];
  states_.push_back(std::make_unique<FunctionState>(this, fn));
  index_.insert(&fn, states_.size() - 1);
  return *states_.back();
}

PYPTO_DECL std::optional<std::size_t> return_lineage(const ir::Function& fn, const ir::Var& v,
                                                     const ir::Program* program,
                                                     const ir::OpRegistry& ops) {
  return ReturnLineage(program, ops).param_of(fn, v);
}

}  // namespace pypto::transforms
