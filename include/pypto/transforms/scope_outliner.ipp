// pypto/transforms/scope_outliner.ipp — the definitions of transforms/scope_outliner.hpp.
//
// The machinery OutlineIncoreScopes and OutlineClusterScopes share: for each target
// scope of a function, in program order,
//   1. scalar live-outs computable by the caller (pure scalar expressions over live-ins) are
//      hoisted before the call; any other scalar live-out is a user error naming it;
//   2. inputs are the live-in set — variables read before the body (re)defines them, in
//      first-read order — each becoming a parameter whose direction comes from the accesses:
//      Write-only slots give Out, any read (including through a post-write alias) InOut;
//   3. outputs are the body's definitions used after the scope, plus every captured tensor the
//      body writes (returned as the parameter itself: ReturnParamsExplicit, also for a
//      definition provably that parameter's buffer, e.g. an if or loop joining writes through
//      it: return_lineage.hpp); when every output resolves to a distinct parameter they are
//      returned in parameter order. A read by a dead phi is no use: the dead phis carrying a
//      scope's values are dropped first (DeadCarries);
//   4. the scope becomes a Call (or, with `as tid` / deps, a Submit) of the new function, and
//      later statements see the call's results (store-target renames, one flat map, so N scopes
//      writing one tensor thread `out -> out_1 -> ...`);
//   5. a rename of a variable defined before an enclosing for / while / if is threaded out of it
//      as a real loop carry (new iter_arg, yield, return var) or an if-phi (a missing else is
//      synthesized).
// "Used after the scope" is decided by statement positions: each variable's last use is
// numbered in one pre-order walk, so the whole function is O(N log N) however many scopes it has.
// Names: `{func}_{kind}_{n}`, a name hint verbatim, an in-function clash suffixed `_0`, `_1`, a
// clash with another function's outlined scope prefixed by the later function's name.
#pragma once

#include "pypto/transforms/scope_outliner.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/core/error.hpp"
#include "pypto/core/span.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/dim_read.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/identical.hpp"
#include "pypto/ir/implicit_kernel.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/scope_attrs.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/field.hpp"
#include "pypto/transforms/body_slots.hpp"
#include "pypto/transforms/outline_properties.hpp"
#include "pypto/transforms/return_lineage.ipp"
#include "pypto/transforms/substitute.hpp"
#include "pypto/transforms/use_def.hpp"

namespace pypto::transforms {

namespace detail::outline {

/// `line:column: ` of a source position, or nothing for IR built without one.
inline std::string at(const core::Span& span) {
  return span.is_known() ? span.to_string() + ": " : std::string();
}

inline bool is_scalar(const ir::Type& t) { return ir::isa<ir::ScalarType>(t); }
inline bool is_tensor_like(const ir::Type& t) {
  return !is_scalar(t) && !ir::isa<ir::TupleType>(t);
}

/// Statement positions and last uses of one function (pre-order numbering from 1; parameters
/// are defined at 0).
class Positions {
 public:
  void enter(const ir::Stmt& s) {
    const std::uint32_t p = ++counter_;
    begin_.insert(&s, p);
  }
  void leave(const ir::Stmt& s) { end_.insert(&s, counter_); }
  void use(const ir::Var& v, Access) {
    std::uint32_t* last = last_use_.insert(&v, 0).first;
    *last = std::max(*last, counter_);
  }
  void def(const ir::Var& v, const ir::Stmt& s) {
    def_.insert(&v, *begin_.find(&s));
    defining_.insert(&v, &s);
  }
  void param(const ir::Var& v) { def_.insert(&v, 0); }

  std::uint32_t begin(const ir::Stmt& s) { return *begin_.find(&s); }
  std::uint32_t end(const ir::Stmt& s) { return *end_.find(&s); }
  std::uint32_t last_use(const ir::Var& v) {
    const std::uint32_t* p = last_use_.find(&v);
    return p ? *p : 0;
  }
  /// The position of v's definition; nullopt for a variable the function does not define (a
  /// shape symbol or a free variable).
  std::optional<std::uint32_t> def(const ir::Var& v) {
    const std::uint32_t* p = def_.find(&v);
    return p ? std::optional<std::uint32_t>(*p) : std::nullopt;
  }
  const ir::Stmt* defining(const ir::Var& v) {
    const ir::Stmt* const* s = defining_.find(&v);
    return s ? *s : nullptr;
  }

 private:
  std::uint32_t counter_ = 0;
  ::pypto::detail::PointerMap<std::uint32_t> begin_, end_, last_use_, def_;
  ::pypto::detail::PointerMap<const ir::Stmt*> defining_;
};

/// One captured variable of a scope.
struct Capture {
  ir::VarRef source;
  bool read = false;
  bool written = false;
};

/// One output of a scope: a captured tensor written through its parameter, or a value the body
/// defines.
struct Output {
  ir::VarRef value;                  ///< the body's definition (for a store target: the capture)
  std::optional<std::size_t> param;  ///< the capture index for a store-target output
  std::vector<ir::VarRef> aliases;   ///< post-write aliases used after the scope
};

/// The analysis of one scope body over source variables (no renames involved).
struct ScopeInfo {
  std::vector<Capture> captures;
  std::vector<ir::VarRef> rebound;  ///< captures the body rebinds by a write (pre-SSA form)
  std::vector<ir::VarRef> defs;     ///< definitions in order
  ::pypto::detail::PointerMap<std::size_t> capture_index;
  ::pypto::detail::PointerMap<std::size_t> alias_of;  ///< post-write alias -> capture index
  ::pypto::detail::PointerMap<bool> defined;
};

/// The live-in walk of a scope body: flow-sensitive, first-read order.
class LiveIn {
 public:
  LiveIn(ScopeInfo& info, Positions& pos, const ir::OpRegistry& ops,
         const CalleeDirections& callees, std::string_view pass)
      : info_(info), pos_(pos), ops_(ops), callees_(callees), pass_(pass) {}

  void enter(const ir::Stmt& s) {
    if (ir::isa<ir::ForStmt>(s) || ir::isa<ir::WhileStmt>(s)) ++loops_;
    if (ir::isa<ir::ReturnStmt>(s))
      throw OutlineError(at(s.span) + std::string(pass_) +
                         ": a return inside a scope cannot be outlined");
    if ((ir::isa<ir::BreakStmt>(s) || ir::isa<ir::ContinueStmt>(s)) && loops_ == 0)
      throw OutlineError(at(s.span) + std::string(pass_) +
                         ": a break/continue inside a scope leaves the scope; it cannot be "
                         "outlined");
  }
  void leave(const ir::Stmt& s) {
    if (ir::isa<ir::ForStmt>(s) || ir::isa<ir::WhileStmt>(s)) --loops_;
  }

  void use(const ir::Var& v, Access access) {
    std::optional<std::size_t> idx;
    if (const std::size_t* a = info_.alias_of.find(&v)) {
      idx = *a;  // reading (or writing) the post-write alias touches the captured buffer
    } else if (info_.defined.find(&v)) {
      return;  // a value the body made
    } else if (const std::size_t* c = info_.capture_index.find(&v)) {
      idx = *c;
    } else {
      if (!pos_.def(v) || access == Access::Bookkeeping) return;  // a symbol; or no data access
      idx = info_.captures.size();
      info_.capture_index.insert(&v, *idx);
      info_.captures.push_back({ir::VarRef(&v)});
    }
    Capture& c = info_.captures[*idx];
    // A value handed on to a loop is read for the scope: the capture must come in.
    if (access == Access::Read || access == Access::ReadWrite || access == Access::Alias)
      c.read = true;
    if (access == Access::Write || access == Access::ReadWrite) c.written = true;
  }

  void def(const ir::Var& v, const ir::Stmt& s) {
    if (info_.capture_index.find(&v)) {
      // Pre-SSA: a captured `pl.Out` rebound by a write into itself gets a fresh result variable
      // in the outlined body; any other rebinding needs real SSA construction.
      if (written_var(s) != &v)
        throw OutlineError(at(s.span) + std::string(pass_) + ": captured variable '" + v.name_hint +
                           "' is rebound inside the scope by something other than a write into "
                           "it; run convert-to-ssa first");
      info_.rebound.push_back(ir::VarRef(&v));
      return;
    }
    info_.defined.insert(&v, true);
    info_.defs.push_back(ir::VarRef(&v));
    if (const ir::Var* w = written_var(s)) {
      const std::size_t* root = info_.alias_of.find(w);
      if (!root) root = info_.capture_index.find(w);
      if (root) info_.alias_of.insert(&v, *root);
    }
    if (const auto* a = ir::as<ir::AssignStmt>(&s); a && ir::isa<ir::TupleType>(*v.type))
      if (const auto* c = ir::as<ir::Call>(a->value.get())) tuples_.insert(&v, c);
  }

 private:
  /// The variable whose buffer `v = value` is the post-write state of: a Write/ReadWrite slot of
  /// a registered op, or the argument of a parameter a program function returns (directly or as
  /// element i of a tuple result).
  const ir::Var* written_var(const ir::Stmt& s) const {
    const auto* a = ir::as<ir::AssignStmt>(&s);
    if (!a) return nullptr;
    std::optional<std::size_t> element;
    const ir::Call* c = ir::as<ir::Call>(a->value.get());
    if (const auto* g = ir::as<ir::TupleGetItem>(a->value.get())) {
      const auto* t = ir::as<ir::Var>(g->tuple.get());
      const ir::Call* const* call = t ? tuples_.find(t) : nullptr;
      if (!call) return nullptr;
      c = *call;
      element = static_cast<std::size_t>(g->index);
    }
    if (!c) return nullptr;
    if (ir::isa<ir::GlobalVar>(*c->op)) {
      const CalleeInfo* callee = callees_(c->op->name);
      const std::size_t i = element.value_or(0);
      if (!callee || i >= callee->returned_params.size() || !callee->returned_params[i] ||
          (!element && callee->returned_params.size() != 1))
        return nullptr;
      const std::size_t p = *callee->returned_params[i];
      return p < c->args.size() ? ir::as<ir::Var>(c->args[p].get()) : nullptr;
    }
    if (element) return nullptr;
    for (std::size_t i = 0; i < c->args.size(); ++i)
      if (ops_.effect(*c, i) != ir::ArgEffect::Read)
        if (const auto* v = ir::as<ir::Var>(c->args[i].get())) return v;
    return nullptr;
  }

  ScopeInfo& info_;
  Positions& pos_;
  const ir::OpRegistry& ops_;
  const CalleeDirections& callees_;
  std::string_view pass_;
  int loops_ = 0;
  ::pypto::detail::PointerMap<const ir::Call*> tuples_;  // tuple-typed results of calls
};

/// The dead carry slots of a function and their removal. A slot is one result of an if (the
/// values its arms yield for it) or one carry of a loop (its init, the value its body yields,
/// its iter_arg and result). Live is the least set holding every variable read outside a slot
/// and the inputs of every slot one of whose results is live (a loop's iter_arg is a result:
/// the next iteration reads it). A scope's outputs are its definitions used after the
/// scope; a read by a dead slot — a phi convert-to-ssa made for a variable nothing reads
/// afterwards — is no use, so the outliner first drops the dead slots that carry a value a
/// target scope defines (and, transitively, the dead slots carrying those slots' results):
/// otherwise the kernel would have to return that value. Other dead slots are kept as they
/// are. Slots inside target scopes stay in the kernels and are not examined. O(N).
class DeadCarries {
 public:
  DeadCarries(const ir::Stmt& body, const std::function<bool(const ir::Stmt&)>& is_target,
              const ir::OpRegistry& ops, const CalleeDirections& callees)
      : is_target_(is_target), ops_(ops), callees_(callees) {
    walk_uses_defs(body, *this, ops, callees);
    mark_live();
    mark_dropped();
  }

  /// `body` without the dropped slots (an emptied yield goes with them).
  ir::StmtRef prune(const ir::StmtRef& body) const {
    if (dropped_.size() == 0) return body;
    std::function<ir::StmtRef(const ir::StmtRef&)> walk = [&](const ir::StmtRef& s) {
      ir::StmtRef r = map_children(s, walk);
      const std::vector<char>* drop = dropped_.find(s.get());
      return drop ? without_slots(r, *drop) : r;
    };
    return walk(body);
  }

  // the walk_uses_defs callbacks
  void enter(const ir::Stmt& s) {
    if (is_target_(s)) ++in_target_;
    if (in_target_ > 0) return;
    if (const auto* i = ir::as<ir::IfStmt>(&s)) {
      const ir::YieldStmt* then_y = transforms::detail::final_yield(i->then_body);
      const ir::YieldStmt* else_y =
          i->else_body ? transforms::detail::final_yield(i->else_body) : nullptr;
      for (std::size_t k = 0; k < i->return_vars.size(); ++k)
        if (then_y && else_y && k < then_y->values.size() && k < else_y->values.size())
          add_slot(s, k, {i->return_vars[k].get()}, {then_y->values[k], else_y->values[k]});
    } else if (const auto* f = ir::as<ir::ForStmt>(&s)) {
      loop_slots(s, f->iter_args, f->body, f->return_vars);
    } else if (const auto* w = ir::as<ir::WhileStmt>(&s)) {
      loop_slots(s, w->iter_args, w->body, w->return_vars);
    }
  }
  void leave(const ir::Stmt& s) {
    if (is_target_(s)) --in_target_;
  }
  void use(const ir::Var& v, Access) { ++count(v).all; }
  void def(const ir::Var& v, const ir::Stmt&) {
    if (in_target_ > 0) gone_.insert(&v, true);  // only the kernel has it after outlining
  }

 private:
  struct Slot {
    const ir::Stmt* owner;
    std::size_t index;
    std::vector<const ir::Var*> results;
    std::vector<const ir::Var*> inputs;  // the variables the slot's values read
    bool live = false, dropped = false;
  };
  struct Reads {
    std::uint32_t all = 0, in_slots = 0;
  };
  /// Collects the variables one slot value reads, as walk_uses_defs reports them.
  struct SlotReads {
    DeadCarries& self;
    std::vector<const ir::Var*>& inputs;
    void enter(const ir::Stmt&) {}
    void leave(const ir::Stmt&) {}
    void def(const ir::Var&, const ir::Stmt&) {}
    void use(const ir::Var& v, Access) {
      ++self.count(v).in_slots;
      inputs.push_back(&v);
    }
  };

  Reads& count(const ir::Var& v) {
    auto [r, fresh] = reads_.insert(&v, Reads{});
    if (fresh) order_.push_back(&v);  // first-read order: no pointer order anywhere
    return *r;
  }

  void add_slot(const ir::Stmt& owner, std::size_t k, std::vector<const ir::Var*> results,
                const std::vector<ir::ExprRef>& values) {
    Slot slot{&owner, k, std::move(results), {}};
    SlotReads reads{*this, slot.inputs};
    for (const auto& e : values) walk_uses_defs(*ir::YieldStmt::make({e}), reads, ops_, callees_);
    for (const ir::Var* r : slot.results) result_slot_.insert(r, slots_.size());
    slots_.push_back(std::move(slot));
  }

  void loop_slots(const ir::Stmt& s, const std::vector<ir::IterArgRef>& iter_args,
                  const ir::StmtRef& body, const std::vector<ir::VarRef>& return_vars) {
    const ir::YieldStmt* y = transforms::detail::final_yield(body);
    for (std::size_t k = 0; k < iter_args.size() && k < return_vars.size(); ++k)
      if (y && k < y->values.size())
        add_slot(s, k, {iter_args[k].get(), return_vars[k].get()},
                 {iter_args[k]->init_value, y->values[k]});
  }

  void mark_live() {
    std::vector<const ir::Var*> work;
    for (const ir::Var* v : order_)
      if (reads_.find(v)->all > reads_.find(v)->in_slots) work.push_back(v);
    while (!work.empty()) {
      const ir::Var* v = work.back();
      work.pop_back();
      const std::size_t* k = result_slot_.find(v);
      if (!k || slots_[*k].live) continue;
      slots_[*k].live = true;
      work.insert(work.end(), slots_[*k].inputs.begin(), slots_[*k].inputs.end());
    }
  }

  /// Dead slots carrying a value gone after outlining, until none is left (nesting rounds).
  void mark_dropped() {
    for (bool again = true; again;) {
      again = false;
      for (Slot& slot : slots_) {
        if (slot.live || slot.dropped ||
            std::none_of(slot.inputs.begin(), slot.inputs.end(),
                         [&](const ir::Var* v) { return gone_.find(v) != nullptr; }))
          continue;
        slot.dropped = again = true;
        for (const ir::Var* r : slot.results) gone_.insert(r, true);
        std::vector<char>& drop = *dropped_.insert(slot.owner, {}).first;
        drop.resize(std::max(drop.size(), slot.index + 1), 0);
        drop[slot.index] = 1;
      }
    }
  }

  template <class T>
  static std::vector<T> kept(const std::vector<T>& all, const std::vector<char>& drop) {
    std::vector<T> out;
    for (std::size_t k = 0; k < all.size(); ++k)
      if (k >= drop.size() || !drop[k]) out.push_back(all[k]);
    return out;
  }

  /// A region whose final yield lost the dropped values (and is gone when none is left).
  static ir::StmtRef without_yielded(const ir::StmtRef& body, const std::vector<char>& drop) {
    if (!body) return body;
    if (const auto* y = ir::as<ir::YieldStmt>(body.get())) {
      std::vector<ir::ExprRef> values = kept(y->values, drop);
      if (values.empty()) return ir::SeqStmts::make({}, y->span);
      return ir::YieldStmt::make(std::move(values), y->span);
    }
    const auto* seq = ir::as<ir::SeqStmts>(body.get());
    if (!seq || seq->stmts.empty()) return body;
    auto copy = ir::copy_node(*seq);
    ir::StmtRef last = without_yielded(seq->stmts.back(), drop);
    const auto* empty = ir::as<ir::SeqStmts>(last.get());
    if (empty && empty->stmts.empty() && ir::isa<ir::YieldStmt>(*seq->stmts.back()))
      copy->stmts.pop_back();
    else
      copy->stmts.back() = std::move(last);
    return copy;
  }

  static ir::StmtRef without_slots(const ir::StmtRef& s, const std::vector<char>& drop) {
    if (const auto* i = ir::as<ir::IfStmt>(s.get())) {
      auto copy = ir::copy_node(*i);
      copy->return_vars = kept(i->return_vars, drop);
      copy->then_body = without_yielded(i->then_body, drop);
      copy->else_body = without_yielded(i->else_body, drop);
      return copy;
    }
    return ir::visit_stmt(*s, [&](const auto& n) -> ir::StmtRef {
      using N = std::remove_cvref_t<decltype(n)>;
      if constexpr (std::is_same_v<N, ir::ForStmt> || std::is_same_v<N, ir::WhileStmt>) {
        auto copy = ir::copy_node(n);
        copy->iter_args = kept(n.iter_args, drop);
        copy->return_vars = kept(n.return_vars, drop);
        copy->body = without_yielded(n.body, drop);
        return copy;
      } else {
        return s;
      }
    });
  }

  const std::function<bool(const ir::Stmt&)>& is_target_;
  const ir::OpRegistry& ops_;
  const CalleeDirections& callees_;
  int in_target_ = 0;
  std::vector<Slot> slots_;
  std::vector<const ir::Var*> order_;
  ::pypto::detail::PointerMap<Reads> reads_;
  ::pypto::detail::PointerMap<std::size_t> result_slot_;  // a result -> its slot
  ::pypto::detail::PointerMap<bool> gone_;  // defined in a target scope, or a dropped result
  ::pypto::detail::PointerMap<std::vector<char>> dropped_;  // owner -> its dropped slots
};

/// Program-wide names: existing functions are reserved; outlined names remember their source.
class Names {
 public:
  explicit Names(const ir::Program& p) {
    for (const auto& e : p.functions) owner_[e.name] = "";
  }

  /// Every scope of `kind` in `fn` takes the next number, named or not (a scope after a named
  /// one is `<fn>_<kind>_1`), as upstream PyPTO numbers them.
  std::string take(const std::string& fn, const std::string& hint, const std::string& kind) {
    std::string name;
    std::size_t& n = counters_[fn + "\x1f" + kind];
    if (hint.empty()) {
      do name = fn + "_" + kind + "_" + std::to_string(n++);
      while (owner_.count(name));
    } else {
      ++n;
      name = hint;
      auto it = owner_.find(name);
      if (it != owner_.end() && !it->second.empty() && it->second != fn) name = fn + "_" + hint;
      if (owner_.count(name)) {
        const std::string base = name;
        std::size_t n = 0;
        do name = base + "_" + std::to_string(n++);
        while (owner_.count(name));
      }
    }
    owner_[name] = fn;
    return name;
  }

 private:
  std::map<std::string, std::string> owner_;  // name -> source function ("" = pre-existing)
  std::map<std::string, std::size_t> counters_;
};

/// Outlines the target scopes of one function.
/// The statements directly inside `s`: a sequence's items, or a compound statement's slots.
template <class Fn>
void for_each_stmt_slot(const ir::Stmt& s, Fn&& fn) {
  if (const auto* seq = ir::as<ir::SeqStmts>(&s)) {
    for (const auto& c : seq->stmts) fn(c);
    return;
  }
  transforms::detail::for_each_body_slot(s, [&](const ir::StmtRef& c, std::string_view) { fn(c); });
}

/// The split modes of the split_aiv regions in `body`, in pre-order.
inline std::vector<ir::SplitMode> split_regions(const ir::Stmt& body) {
  std::vector<ir::SplitMode> regions;
  std::function<void(const ir::Stmt&)> scan = [&](const ir::Stmt& x) {
    if (const auto* r = ir::as<ir::SplitAivScopeStmt>(&x)) regions.push_back(r->split);
    for_each_stmt_slot(x, [&](const ir::StmtRef& c) { scan(*c); });
  };
  scan(body);
  return regions;
}

/// `attrs` with what a kernel holding split_aiv `regions` declares (AivSplitValid): split_aiv,
/// and the split mode when every region has the same real one. Keys already set are kept.
inline ir::Attrs with_split_aiv_attrs(ir::Attrs attrs, const std::vector<ir::SplitMode>& regions,
                                      bool* changed = nullptr) {
  if (regions.empty()) return attrs;
  auto set = [&](const char* key, auto value) {
    if (attrs.find(key)) return;
    attrs = attrs.with(key, value);
    if (changed) *changed = true;
  };
  set("split_aiv", true);
  const bool uniform = std::all_of(regions.begin(), regions.end(),
                                   [&](ir::SplitMode m) { return m == regions.front(); });
  if (uniform && regions.front() != ir::SplitMode::None) set("split", regions.front());
  return attrs;
}

class FunctionOutliner {
 public:
  FunctionOutliner(const OutlineTarget& target, const ir::Program& program,
                   const ir::OpRegistry& ops, const CalleeDirections& callees, Names& names,
                   std::vector<ir::FunctionRef>& outlined)
      : target_(target),
        program_(&program),
        ops_(ops),
        callees_(callees),
        names_(names),
        outlined_(outlined) {}

  ir::FunctionRef run(const ir::FunctionRef& f) {
    if (!f->body) return f;
    fn_ = f.get();
    // Promotion folds the parameter extent reads first, so that the scopes are analysed in the
    // body a function written as Orchestration has.
    ir::StmtRef source = f->body;
    if (target_.fold_param_dims && f->func_type == ir::FunctionType::Opaque &&
        ir::has_dim_symbols(f->params) && contains_target(*source))
      source = folded_param_dims(source);
    // A value only a dead phi reads is no live-out: such phis go first (DeadCarries).
    if (contains_target(*source))
      source = DeadCarries(*source, target_.is_target, ops_, callees_).prune(source);
    for (const auto& p : f->params) pos_.param(*p);
    walk_uses_defs(*source, pos_, ops_, callees_);
    const std::size_t before = outlined_.size();
    ir::StmtRef body = slot(source);
    if (outlined_.size() == before && body == f->body) return f;
    auto copy = ir::copy_node(*f);
    copy->body = std::move(body);
    if (target_.promote_opaque && f->func_type == ir::FunctionType::Opaque &&
        outlined_.size() > before) {
      copy->func_type = ir::FunctionType::Orchestration;
      copy->level = ir::default_level(ir::FunctionType::Orchestration);
      copy->role = ir::default_role(ir::FunctionType::Orchestration);
    }
    return copy;
  }

 private:
  std::string where() const { return target_.pass_name + " (function " + fn_->name + ")"; }

  bool contains_target(const ir::Stmt& s) const {
    if (target_.is_target(s)) return true;
    bool found = false;
    for_each_slot(s, [&](const ir::StmtRef& child) { found = found || contains_target(*child); });
    return found;
  }

  template <class Fn>
  static void for_each_slot(const ir::Stmt& s, Fn&& fn) {
    for_each_stmt_slot(s, std::forward<Fn>(fn));
  }

  // ---- rebuilding, statement by statement ----

  /// A body slot rebuilt: a sequence whose target scopes are replaced by their call statements.
  ir::StmtRef slot(const ir::StmtRef& body) {
    const auto* seq = ir::as<ir::SeqStmts>(body.get());
    std::vector<ir::StmtRef> out;
    bool changed = false;
    auto one = [&](const ir::StmtRef& s) {
      const std::size_t n = out.size();
      rebuild(s, out);
      changed = changed || out.size() != n + 1 || out.back() != s;
    };
    if (seq)
      for (const auto& s : seq->stmts) one(s);
    else
      one(body);
    if (!changed) return body;
    if (!seq && out.size() == 1) return out.front();
    auto copy = seq ? ir::copy_node(*seq) : ir::copy_node(*ir::SeqStmts::make({}, body->span));
    copy->stmts = std::move(out);
    return copy;
  }

  void rebuild(const ir::StmtRef& s, std::vector<ir::StmtRef>& out) {
    if (target_.is_target(*s)) return outline(*ir::as<ir::ScopeStmt>(s.get()), out);
    if (const auto* f = ir::as<ir::ForStmt>(s.get())) return out.push_back(loop(*f, s));
    if (const auto* w = ir::as<ir::WhileStmt>(s.get())) return out.push_back(loop(*w, s));
    if (const auto* i = ir::as<ir::IfStmt>(s.get())) return out.push_back(branch(*i, s));
    if (ir::isa<ir::SeqStmts>(*s)) return out.push_back(slot(s));
    if (ir::isa<ir::ScopeStmt>(*s) && contains_target(*s)) {
      // A straight-line scope (an Spmd wrapper, ...): rebuild its body, then its own fields.
      ir::StmtRef body = slot(ir::as<ir::ScopeStmt>(s.get())->body);
      ir::StmtRef outer = ir::visit_stmt(*s, [&](const auto& n) -> ir::StmtRef {
        if constexpr (std::is_base_of_v<ir::ScopeStmt, std::remove_cvref_t<decltype(n)>>) {
          auto copy = ir::copy_node(n);
          copy->body = ir::SeqStmts::make({});  // substituted separately below
          ir::StmtRef header = renames_.stmt(copy);
          auto done = ir::copy_node(*ir::as<std::remove_cvref_t<decltype(n)>>(header.get()));
          done->body = body;
          return done;
        } else {
          return s;
        }
      });
      return out.push_back(outer);
    }
    out.push_back(renames_.stmt(s));
  }

  /// `body` with every `m = tensor.dim(param, k)` that reads a signature symbol
  /// (ir/dim_read.hpp), at any depth, folded onto the symbol: the binding dropped, its uses
  /// replaced.
  ir::StmtRef folded_param_dims(const ir::StmtRef& body) {
    Substitution folded;
    folded.rewrite_types();  // a shape built from the read is built from the symbol
    bool any = false;
    const auto folds = [&](const ir::Stmt& s) {
      const auto* a = ir::as<ir::AssignStmt>(&s);
      ir::ExprRef sym = a ? ir::param_dim_symbol(fn_->params, a->var->type, *a->value) : nullptr;
      if (!sym) return false;
      folded.set(*a->var, std::move(sym));
      any = true;
      return true;
    };
    std::function<ir::StmtRef(const ir::StmtRef&)> drop = [&](const ir::StmtRef& s) -> ir::StmtRef {
      const auto* seq = ir::as<ir::SeqStmts>(s.get());
      if (!seq)
        return folds(*s) ? ir::StmtRef(ir::SeqStmts::make({}, s->span))
                         : detail::with_body_slots(s, drop);
      std::vector<ir::StmtRef> kept;
      for (const ir::StmtRef& x : seq->stmts)
        if (!folds(*x)) kept.push_back(drop(x));
      if (std::equal(kept.begin(), kept.end(), seq->stmts.begin(), seq->stmts.end())) return s;
      auto copy = ir::copy_node(*seq);
      copy->stmts = std::move(kept);
      return ir::StmtRef(copy);
    };
    const ir::StmtRef dropped = drop(body);
    return any ? folded.stmt(dropped) : body;
  }

  // ---- carries out of loops and branches ----

  /// The variables defined before `s` (position-wise) that target scopes inside it write: each
  /// needs a carry out of s, in first-write order.
  std::vector<ir::VarRef> carried_writes(const ir::Stmt& s, const ir::StmtRef& region) {
    std::vector<ir::VarRef> out;
    ::pypto::detail::PointerMap<bool> seen;
    const std::uint32_t at = pos_.begin(s);
    std::function<void(const ir::Stmt&)> scan = [&](const ir::Stmt& x) {
      if (target_.is_target(x)) {
        ScopeInfo& info = analysis(*ir::as<ir::ScopeStmt>(&x));
        for (const Capture& c : info.captures) {
          const auto d = pos_.def(*c.source);
          if (c.written && d && *d < at && seen.insert(c.source.get(), true).second)
            out.push_back(c.source);
        }
        return;
      }
      for_each_slot(x, [&](const ir::StmtRef& child) { scan(*child); });
    };
    scan(*region);
    return out;
  }

  /// Appends `values` to the yield that ends `body` (adding one when it has none).
  /// The yield ending `body` (a YieldStmt, or the last statement of a SeqStmts), or null.
  static const ir::YieldStmt* last_yield(const ir::Stmt& body) {
    if (const auto* seq = ir::as<ir::SeqStmts>(&body))
      return seq->stmts.empty() ? nullptr : ir::as<ir::YieldStmt>(seq->stmts.back().get());
    return ir::as<ir::YieldStmt>(&body);
  }

  static ir::StmtRef append_yield(const ir::StmtRef& body, const std::vector<ir::ExprRef>& values) {
    std::vector<ir::StmtRef> stmts;
    if (const auto* seq = ir::as<ir::SeqStmts>(body.get()))
      stmts = seq->stmts;
    else
      stmts.push_back(body);
    const auto* y = stmts.empty() ? nullptr : ir::as<ir::YieldStmt>(stmts.back().get());
    std::vector<ir::ExprRef> all = y ? y->values : std::vector<ir::ExprRef>{};
    all.insert(all.end(), values.begin(), values.end());
    ir::StmtRef yield = ir::YieldStmt::make(std::move(all), y ? y->span : body->span);
    if (y)
      stmts.back() = yield;
    else
      stmts.push_back(yield);
    return ir::SeqStmts::make(std::move(stmts), body->span);
  }

  ir::VarRef fresh(const ir::Var& like, std::string_view role) {
    return ir::Var::make(like.name_hint + std::string(role), like.type, like.span);
  }

  template <class L>
  ir::StmtRef loop(const L& l, const ir::StmtRef& s) {
    const std::vector<ir::VarRef> carried = carried_writes(l, l.body);
    if (carried.empty() && !contains_target(*l.body)) return renames_.stmt(s);
    if constexpr (std::is_same_v<L, ir::ForStmt>) {
      if (l.for_kind == ir::ForKind::Unroll && !carried.empty())
        throw OutlineError(at(l.span) + where() + ": a scope in this pl.unroll loop writes '" +
                           carried.front()->name_hint +
                           "', whose new value would have to be carried out of the loop, and "
                           "an unrolled loop carries no values; use pl.range");
    }
    // The header (bounds, init values) is evaluated with the entry renames.
    auto header = ir::copy_node(l);
    header->body = ir::SeqStmts::make({});
    ir::StmtRef h = renames_.stmt(header);
    auto copy = ir::copy_node(*ir::as<L>(h.get()));
    std::vector<ir::VarRef> rvs;
    for (const auto& x : carried) {
      ir::IterArgRef ia =
          ir::IterArg::make(x->name_hint + "__iter", x->type, renames_.current(x), x->span);
      copy->iter_args.push_back(ia);
      rvs.push_back(fresh(*x, "__rv"));
      renames_.set(*x, ia);
    }
    // A while condition is evaluated before every iteration: it reads the carries.
    if constexpr (std::is_same_v<L, ir::WhileStmt>) copy->condition = renames_.expr(l.condition);
    ir::StmtRef body = slot(l.body);
    if (!carried.empty()) {
      std::vector<ir::ExprRef> ends;
      for (const auto& x : carried) ends.push_back(renames_.current(x));
      body = append_yield(body, ends);
    }
    copy->body = std::move(body);
    copy->return_vars.insert(copy->return_vars.end(), rvs.begin(), rvs.end());
    for (std::size_t i = 0; i < carried.size(); ++i) renames_.set(*carried[i], rvs[i]);
    return copy;
  }

  ir::StmtRef branch(const ir::IfStmt& i, const ir::StmtRef& s) {
    std::vector<ir::VarRef> carried = carried_writes(i, i.then_body);
    if (i.else_body)
      for (const auto& x : carried_writes(i, i.else_body))
        if (std::find(carried.begin(), carried.end(), x) == carried.end()) carried.push_back(x);
    if (carried.empty() && !contains_target(*i.then_body) &&
        !(i.else_body && contains_target(*i.else_body)))
      return renames_.stmt(s);
    ir::ExprRef cond = renames_.expr(i.condition);
    struct Arm {
      ir::StmtRef body;
      std::vector<ir::ExprRef> ends;  // each carried target's value at the end of the arm
    };
    auto arm = [&](const ir::StmtRef& body) {
      const std::size_t mark = renames_.mark();
      Arm out{body ? slot(body) : ir::SeqStmts::make({}, i.span), {}};
      for (const auto& x : carried) out.ends.push_back(renames_.current(x));
      renames_.rollback(mark);
      return out;
    };
    Arm then_arm = arm(i.then_body);
    std::optional<Arm> else_arm;
    if (i.else_body || !carried.empty()) else_arm = arm(i.else_body);
    // A target whose new value an existing result already joins (convert-to-ssa's phi of the
    // store's result) takes that result: a second one would join the same values again.
    const ir::YieldStmt* then_yield = last_yield(*then_arm.body);
    const ir::YieldStmt* else_yield = else_arm ? last_yield(*else_arm->body) : nullptr;
    std::vector<std::optional<std::size_t>> joined(carried.size());
    for (std::size_t k = 0; k < carried.size() && then_yield && else_yield; ++k)
      for (std::size_t r = 0; r < i.return_vars.size() && r < then_yield->values.size() &&
                              r < else_yield->values.size();
           ++r)
        if (then_yield->values[r] == then_arm.ends[k] && else_yield->values[r] == else_arm->ends[k])
          joined[k] = r;
    auto unjoined = [&](const std::vector<ir::ExprRef>& ends) {
      std::vector<ir::ExprRef> out;
      for (std::size_t k = 0; k < carried.size(); ++k)
        if (!joined[k]) out.push_back(ends[k]);
      return out;
    };
    const std::vector<ir::ExprRef> then_ends = unjoined(then_arm.ends);
    ir::StmtRef then_body =
        then_ends.empty() ? then_arm.body : append_yield(then_arm.body, then_ends);
    ir::StmtRef else_body;
    if (else_arm) {
      const std::vector<ir::ExprRef> else_ends = unjoined(else_arm->ends);
      else_body = else_ends.empty() ? else_arm->body : append_yield(else_arm->body, else_ends);
    }
    std::vector<ir::VarRef> rvs = i.return_vars;
    for (std::size_t k = 0; k < carried.size(); ++k) {
      if (joined[k]) {
        renames_.set(*carried[k], rvs[*joined[k]]);
        continue;
      }
      rvs.push_back(fresh(*carried[k], "__rv"));
      renames_.set(*carried[k], rvs.back());
    }
    auto copy = ir::copy_node(i);
    copy->condition = std::move(cond);
    copy->then_body = std::move(then_body);
    copy->else_body = std::move(else_body);
    copy->return_vars = std::move(rvs);
    return copy;
  }

  // ---- one scope ----

  /// The Spmd scope a cluster consists of (`with pl.cluster(): with pl.spmd(n): ...`): the
  /// Group function takes its body and the dispatch its launch; null otherwise.
  const ir::SpmdScopeStmt* unwrapped_spmd(const ir::ScopeStmt& s) const {
    if (target_.function_type != ir::FunctionType::Group) return nullptr;
    const auto* seq = ir::as<ir::SeqStmts>(s.body.get());
    const ir::Stmt* only =
        seq ? (seq->stmts.size() == 1 ? seq->stmts[0].get() : nullptr) : s.body.get();
    return only ? ir::as<ir::SpmdScopeStmt>(only) : nullptr;
  }

  /// The statements the outlined function's body is made of.
  const ir::StmtRef& region(const ir::ScopeStmt& s) const {
    const ir::SpmdScopeStmt* spmd = unwrapped_spmd(s);
    return spmd ? spmd->body : s.body;
  }

  ScopeInfo& analysis(const ir::ScopeStmt& s) {
    if (const std::size_t* done = info_index_.find(&s)) return infos_[*done];
    info_index_.insert(&s, infos_.size());
    ScopeInfo& info = infos_.emplace_back();  // a deque: earlier references stay valid
    LiveIn live(info, pos_, ops_, callees_, target_.pass_name);
    walk_uses_defs(*region(s), live, ops_, callees_);
    return info;
  }

  /// Scalar live-outs the caller can compute, hoisted out of the body.
  /// Returns the hoisted statements in body order; throws for a scalar that cannot leave.
  std::vector<ir::StmtRef> hoist_scalars(const ir::ScopeStmt& s, std::vector<ir::StmtRef>& body) {
    const std::uint32_t end = pos_.end(s);
    ::pypto::detail::PointerMap<std::size_t> top;  // top-level definition -> statement index
    for (std::size_t k = 0; k < body.size(); ++k)
      if (const auto* a = ir::as<ir::AssignStmt>(body[k].get())) top.insert(a->var.get(), k);
    std::vector<char> hoisted(body.size(), 0), visiting(body.size(), 0);
    // Pure scalar expression over values defined outside the scope or hoisted themselves.
    std::function<bool(const ir::Expr&)> pure;
    std::function<bool(std::size_t)> hoist = [&](std::size_t k) {
      if (hoisted[k]) return true;
      if (visiting[k]) return false;
      visiting[k] = 1;
      const auto* a = ir::as<ir::AssignStmt>(body[k].get());
      const bool ok = is_scalar(*a->var->type) && pure(*a->value);
      visiting[k] = 0;
      if (ok) hoisted[k] = 1;
      return ok;
    };
    pure = [&](const ir::Expr& e) -> bool {
      if (const auto* v = ir::as<ir::Var>(&e)) {
        const auto d = pos_.def(*v);
        const bool inside = d && *d >= pos_.begin(s) && *d <= end;
        if (!inside) return true;
        const std::size_t* k = top.find(v);
        return k && hoist(*k);
      }
      if (ir::isa<ir::Call>(e) || ir::isa<ir::Submit>(e) || ir::isa<ir::MakeTuple>(e) ||
          ir::isa<ir::TupleGetItem>(e) || !is_scalar(*e.type))
        return false;  // device reads and block indices mean nothing in the caller
      bool ok = true;
      ir::visit_expr(e, [&](const auto& n) {
        reflect::for_each_field(n, [&](auto field, const auto& v) {
          using V = std::remove_cvref_t<decltype(v)>;
          if constexpr (decltype(field)::kind == reflect::FieldKind::Usual &&
                        std::is_same_v<V, ir::ExprRef>)
            ok = ok && v && pure(*v);
        });
      });
      return ok;
    };
    for (std::size_t k = 0; k < body.size(); ++k) {
      const auto* a = ir::as<ir::AssignStmt>(body[k].get());
      if (!a || !is_scalar(*a->var->type) || pos_.last_use(*a->var) <= end) continue;
      if (!hoist(k))
        throw OutlineError(
            at(a->span) + where() + ": scalar '" + a->var->name_hint +
            "' is computed inside the scope and used after it, but a kernel cannot return a "
            "scalar; write it to a [1] tensor output and read it back with "
            "pl.tensor.read(t, [0]) after the call, or move the computation out of the scope");
    }
    std::vector<ir::StmtRef> out, kept;
    for (std::size_t k = 0; k < body.size(); ++k) (hoisted[k] ? out : kept).push_back(body[k]);
    body = std::move(kept);
    return out;
  }

  void outline(const ir::ScopeStmt& s, std::vector<ir::StmtRef>& out) {
    // 1. scalar live-outs the caller can compute move in front of the call
    const ir::StmtRef& region_body = region(s);
    std::vector<ir::StmtRef> body_stmts;
    if (const auto* seq = ir::as<ir::SeqStmts>(region_body.get()))
      body_stmts = seq->stmts;
    else
      body_stmts.push_back(region_body);
    const std::vector<ir::StmtRef> hoisted = hoist_scalars(s, body_stmts);
    for (const auto& h : hoisted) out.push_back(renames_.stmt(h));
    ir::StmtRef body = ir::SeqStmts::make(body_stmts, region_body->span);
    // 2. inputs: the live-in set of what stays in the body
    ScopeInfo fresh_info;
    ScopeInfo* info_ptr = &analysis(s);
    if (!hoisted.empty()) {
      LiveIn live(fresh_info, pos_, ops_, callees_, target_.pass_name);
      walk_uses_defs(*body, live, ops_, callees_);
      info_ptr = &fresh_info;
    }
    ScopeInfo& info = *info_ptr;
    // 4a. the parameters, and the body over them
    Substitution inner;
    std::vector<ir::Param> params;
    std::vector<ir::VarRef> param_vars;
    for (const Capture& c : info.captures) {
      ir::VarRef p = ir::Var::make(c.source->name_hint, c.source->type, c.source->span);
      ir::ParamDirection d = ir::ParamDirection::In;
      if (c.written && is_tensor_like(*c.source->type))
        d = c.read ? ir::ParamDirection::InOut : ir::ParamDirection::Out;
      params.push_back({p, d});
      param_vars.push_back(p);
      inner.set(*c.source, p);
    }
    body = rebind_writes(body, info);
    body = inner.stmt(body);
    // 3. outputs
    const std::uint32_t end = pos_.end(s);
    std::vector<Output> outputs;
    ::pypto::detail::PointerMap<std::size_t> output_of_capture;
    auto capture_output = [&](std::size_t c) -> Output& {
      std::size_t* o = output_of_capture.find(&*info.captures[c].source);
      if (!o) {
        o = output_of_capture.insert(info.captures[c].source.get(), outputs.size()).first;
        outputs.push_back({info.captures[c].source, c, {}});
      }
      return outputs[*o];
    };
    // A definition that is provably a parameter's buffer — an if or a loop joining writes
    // through it — is returned as that parameter (return_lineage).
    ir::FunctionRef probe;  // the body over the parameters, made when first needed
    std::optional<ReturnLineage> lineage_of_probe;
    auto lineage = [&](const ir::Var& v) -> std::optional<std::size_t> {
      if (!ir::isa<ir::TensorType>(*v.type)) return std::nullopt;
      if (!probe) {
        probe = ir::Function::make("lineage_probe", params, {}, body);
        lineage_of_probe.emplace(program_, ops_);
      }
      return lineage_of_probe->param_of(*probe, v);
    };
    for (const auto& v : info.defs) {
      if (pos_.last_use(*v) <= end) continue;
      const std::size_t* alias = info.alias_of.find(v.get());
      const std::optional<std::size_t> c = alias ? std::optional<std::size_t>(*alias) : lineage(*v);
      if (c) {
        capture_output(*c).aliases.push_back(v);
        continue;
      }
      if (!is_tensor_like(*v->type))
        throw OutlineError(at(v->span) + where() + ": '" + v->name_hint +
                           "' is defined inside the scope and used after it, but a kernel "
                           "returns tensors only; return it through a tensor output");
      outputs.push_back({v, std::nullopt, {}});
    }
    for (std::size_t c = 0; c < info.captures.size(); ++c)
      if (info.captures[c].written) capture_output(c);
    if (std::all_of(outputs.begin(), outputs.end(), [](const Output& o) { return o.param; }))
      std::stable_sort(outputs.begin(), outputs.end(),
                       [](const Output& a, const Output& b) { return *a.param < *b.param; });

    // 4b. the function
    std::vector<ir::ExprRef> returns;
    std::vector<ir::TypeRef> return_types;
    for (const Output& o : outputs) {
      ir::ExprRef r = o.param ? ir::ExprRef(param_vars[*o.param]) : ir::ExprRef(o.value);
      return_types.push_back(r->type);
      returns.push_back(std::move(r));
    }
    if (!returns.empty()) {  // a scope with no outputs becomes a function with no return
      std::vector<ir::StmtRef> stmts = ir::as<ir::SeqStmts>(body.get())->stmts;
      stmts.push_back(ir::ReturnStmt::make(returns, s.span));
      body = ir::SeqStmts::make(std::move(stmts), region_body->span);
    }
    const std::string name = names_.take(fn_->name, s.name_hint, target_.kind);
    ir::Attrs fattrs = function_attrs(s, info, params);
    outlined_.push_back(ir::Function::make(name, params, return_types, body, target_.function_type,
                                           std::move(fattrs),
                                           ir::FunctionOptions().with_span(s.span)));

    // 5. the call site
    std::vector<ir::ExprRef> args;
    for (const Capture& c : info.captures) args.push_back(renames_.current(c.source));
    ir::Attrs call_attrs = dispatch_attrs(s, info);
    const std::vector<ir::ExprRef> deps = renames_attrs_exprs(s.attrs, ir::scope_attr::kDeps);
    ir::OpRef callee = ir::GlobalVar::make(name);
    // A predicated dispatch is a Submit: a Call has no predicate.
    const bool submit = s.task_id || !deps.empty() || predicate(s);
    ir::ExprRef call;
    std::vector<ir::TypeRef> result_types = return_types;
    if (submit) {
      result_types.push_back(ir::ScalarType::make(core::DataType::TASK_ID));
      ir::SubmitLaunch launch;
      launch.deps = deps;
      dispatch_launch(s, launch);
      call = ir::Submit::make(callee, args, ir::TupleType::make(result_types), launch, {},
                              call_attrs, s.span);
    } else {
      dispatch_launch_attrs(s, call_attrs);
      call = ir::Call::make(
          callee, args,
          result_types.size() == 1 ? result_types.front() : ir::TupleType::make(result_types), {},
          call_attrs, s.span);
    }
    std::vector<ir::VarRef> results;
    for (const Output& o : outputs) results.push_back(fresh(*o.value, ""));
    if (!submit && results.size() == 1) {
      out.push_back(ir::AssignStmt::make(results.front(), call, s.span));
    } else if (!submit && results.empty()) {
      out.push_back(ir::EvalStmt::make(call, s.span));
    } else {
      ir::VarRef tuple = ir::Var::make(name + "_result", call->type, s.span);
      out.push_back(ir::AssignStmt::make(tuple, call, s.span));
      for (std::size_t k = 0; k < results.size(); ++k)
        out.push_back(ir::AssignStmt::make(
            results[k], ir::TupleGetItem::make(tuple, static_cast<std::int64_t>(k), s.span),
            s.span));
      if (s.task_id)
        out.push_back(ir::AssignStmt::make(
            s.task_id,
            ir::TupleGetItem::make(tuple, static_cast<std::int64_t>(results.size()), s.span),
            s.span));
    }
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      renames_.set(*outputs[k].value, results[k]);
      for (const auto& a : outputs[k].aliases) renames_.set(*a, results[k]);
    }
  }

  /// Pre-SSA: a captured variable the body rebinds by a write into itself binds a fresh
  /// `name__store` instead, so the outlined body never rebinds its own parameter.
  /// The body with every store bound to a Var of its own (`c__store = pl.tile.store(..., c)`), so
  /// that it never rebinds a parameter: a rebinding of a captured variable gets a fresh Var, and
  /// a bare `pl.store(...)` statement is bound like one.
  ir::StmtRef rebind_writes(const ir::StmtRef& body, const ScopeInfo& info) {
    ::pypto::detail::PointerMap<bool> rebound;
    for (const auto& v : info.rebound) rebound.insert(v.get(), true);
    return rebind_writes(body, rebound);
  }
  ir::StmtRef rebind_writes(const ir::StmtRef& s,
                            const ::pypto::detail::PointerMap<bool>& rebound) {
    if (const auto* a = ir::as<ir::AssignStmt>(s.get())) {
      if (!rebound.find(a->var.get())) return s;
      auto copy = ir::copy_node(*a);
      copy->var = fresh(*a->var, "__store");
      return ir::StmtRef(copy);
    }
    if (const auto* e = ir::as<ir::EvalStmt>(s.get())) {
      const auto* call = ir::as<ir::Call>(e->expr.get());
      if (!call || call->op->id != ir::OpId::tile_store || call->args.size() < 3) return s;
      const auto* target = ir::as<ir::Var>(call->args[2].get());
      ir::VarRef bound = ir::Var::make(
          (target ? target->name_hint : std::string("tensor")) + "__store", call->type, call->span);
      return ir::StmtRef(ir::AssignStmt::make(std::move(bound), e->expr, e->span));
    }
    return map_children(s, [&](const ir::StmtRef& c) { return rebind_writes(c, rebound); });
  }

  std::vector<ir::ExprRef> renames_attrs_exprs(const ir::Attrs& attrs, std::string_view key) {
    std::vector<ir::ExprRef> out;
    for (const auto& e : ir::scope_attr::exprs(attrs, key)) out.push_back(renames_.expr(e));
    return out;
  }

  /// The outlined function's attrs: the AUTO split, the AIV split table, the cross-core slot
  /// count, the windowize opt-in and the cache policies as sorted (param index, policy) pairs.
  ir::Attrs function_attrs(const ir::ScopeStmt& s, const ScopeInfo& info,
                           const std::vector<ir::Param>& params) {
    ir::Attrs attrs;
    const auto* incore = ir::as<ir::InCoreScopeStmt>(&s);
    const std::vector<ir::SplitMode> regions = split_regions(*region(s));
    if (unwrapped_spmd(s)) attrs = attrs.with("spmd_unwrapped", true);
    if (incore && incore->split != ir::SplitMode::None) {
      if (!regions.empty())
        throw OutlineError(at(s.span) + where() + ": scope '" + scope_label(s) +
                           "' combines an AUTO split (optimizations=[pl.split(...)]) with "
                           "pl.split_aiv regions; use one mechanism per scope");
      attrs = attrs.with("split", incore->split);
    }
    attrs = with_split_aiv_attrs(std::move(attrs), regions);
    if (auto slots = s.attrs.get<std::int64_t>(ir::scope_attr::kSlotNum))
      attrs = attrs.with(std::string(ir::scope_attr::kSlotNum), *slots);
    if (s.attrs.get<bool>(ir::scope_attr::kWindowize).value_or(false))
      attrs = attrs.with(std::string(ir::scope_attr::kWindowize), true);
    if (const ir::AttrValue* v = s.attrs.find(ir::scope_attr::kCachePolicyVars)) {
      std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
      for (const auto& item : *v->get_if<ir::AttrValueList>()) {
        const auto& pair = *item.get_if<ir::AttrValueList>();
        const auto* var = ir::as<ir::Var>(pair[0].get_if<ir::ExprRef>()->get());
        const auto policy = pair[1].get_if<ir::EnumValue>()->get<ir::CachePolicy>();
        const std::size_t* idx = info.capture_index.find(var);
        if (!idx)
          throw OutlineError(at(s.span) + where() + ": pl.set_cache_policy names '" +
                             var->name_hint +
                             "', which the scope neither reads nor writes, so no parameter "
                             "carries the policy");
        if (policy == ir::CachePolicy::BYPASS && params[*idx].direction != ir::ParamDirection::In)
          throw OutlineError(at(s.span) + where() + ": pl.set_cache_policy(" + var->name_hint +
                             ", BYPASS) on a parameter the kernel writes (" +
                             std::string(ir::enum_name(params[*idx].direction)) +
                             "): bypassing the cache for bytes the kernel itself writes is "
                             "incoherent");
        pairs.emplace_back(static_cast<std::int64_t>(*idx), static_cast<std::int64_t>(*policy));
      }
      std::sort(pairs.begin(), pairs.end());
      ir::AttrValueList list;
      for (const auto& [i, p] : pairs) list.emplace_back(ir::AttrValueList{i, p});
      attrs = attrs.with("cache_policy", std::move(list));
    }
    return attrs;
  }

  static std::string scope_label(const ir::ScopeStmt& s) {
    return s.name_hint.empty() ? std::string(ir::kind_name(s.kind())) : s.name_hint;
  }

  /// The dispatch's attrs: `no_dep_args` as sorted parameter indices, `dumps` as the caller's
  /// arguments (by identity, through the capture map); names the scope never captured drop.
  ir::Attrs dispatch_attrs(const ir::ScopeStmt& s, const ScopeInfo& info) {
    ir::Attrs attrs;
    std::vector<std::int64_t> no_dep;
    for (const auto& e : ir::scope_attr::exprs(s.attrs, ir::scope_attr::kNoDepVars))
      if (const std::size_t* i = info.capture_index.find(e.get()))
        no_dep.push_back(static_cast<std::int64_t>(*i));
    std::sort(no_dep.begin(), no_dep.end());
    no_dep.erase(std::unique(no_dep.begin(), no_dep.end()), no_dep.end());
    if (!no_dep.empty()) {
      ir::AttrValueList list(no_dep.begin(), no_dep.end());
      attrs = attrs.with("arg_direction_overrides", std::move(list));
    }
    ir::AttrValueList dumps;
    for (const auto& e : ir::scope_attr::exprs(s.attrs, ir::scope_attr::kDumpVars))
      if (info.capture_index.find(e.get())) dumps.emplace_back(renames_.expr(e));
    if (!dumps.empty()) attrs = attrs.with(std::string(ir::scope_attr::kDumpVars), dumps);
    return attrs;
  }

  /// Spmd: the core count and sync_start ride the dispatch, never the callee (which could not
  /// name the caller's values).
  const ir::SpmdScopeStmt* launched_spmd(const ir::ScopeStmt& s) const {
    if (const auto* spmd = ir::as<ir::SpmdScopeStmt>(&s)) return spmd;
    return unwrapped_spmd(s);
  }
  void dispatch_launch(const ir::ScopeStmt& s, ir::SubmitLaunch& launch) {
    if (const auto* spmd = launched_spmd(s)) {
      launch.core_num = renames_.expr(spmd->core_num);
      launch.sync_start = spmd->sync_start;
      if (const ir::ExprRef p = predicate(s)) launch.predicate = renames_.expr(p);
    }
  }
  /// The `predicate=` of an spmd scope (null when it has none).
  ir::ExprRef predicate(const ir::ScopeStmt& s) const {
    const auto* spmd = launched_spmd(s);
    return spmd ? ir::scope_attr::expr(spmd->attrs, ir::scope_attr::kPredicate) : ir::ExprRef();
  }
  void dispatch_launch_attrs(const ir::ScopeStmt& s, ir::Attrs& attrs) {
    if (const auto* spmd = launched_spmd(s)) {
      // A constant count is a plain int attribute (as upstream PyPTO writes it); else the
      // expression.
      ir::ExprRef n = renames_.expr(spmd->core_num);
      if (const auto* c = ir::as<ir::ConstInt>(n.get()))
        attrs = attrs.with("core_num", std::int64_t{c->value});
      else
        attrs = attrs.with("core_num", std::move(n));
      if (spmd->sync_start) attrs = attrs.with("sync_start", true);
    }
  }

  const OutlineTarget& target_;
  const ir::Program* program_;  // resolves the callees of return lineage
  const ir::OpRegistry& ops_;
  const CalleeDirections& callees_;
  Names& names_;
  std::vector<ir::FunctionRef>& outlined_;
  const ir::Function* fn_ = nullptr;
  Positions pos_;
  Substitution renames_;
  ::pypto::detail::PointerMap<std::size_t> info_index_;
  std::deque<ScopeInfo> infos_;
};

/// `s` with every split_aiv region that no InCore scope encloses wrapped in one.
inline ir::StmtRef wrap_bare_splits(const ir::StmtRef& s) {
  if (ir::isa<ir::InCoreScopeStmt>(*s)) return s;
  if (ir::isa<ir::SplitAivScopeStmt>(*s)) return ir::implicit_kernel(s);
  return map_children(s, [](const ir::StmtRef& c) { return wrap_bare_splits(c); });
}

}  // namespace detail::outline

PYPTO_DECL ir::ProgramRef outline_scopes(const ir::Program& program, const OutlineTarget& target,
                                         const ir::OpRegistry& ops,
                                         const std::function<bool(const ir::Function&)>& scan) {
  detail::outline::Names names(program);
  std::vector<ir::FunctionRef> outlined, functions;
  CalleeTable infos;
  ReturnLineage lineage(&program, ops);
  for (const auto& e : program.functions)
    infos.set(e.name,
              CalleeInfo{e.function->param_directions, lineage.returned_params(*e.function)});
  const CalleeDirections callees = infos.lookup();
  bool changed = false;
  for (const auto& e : program.functions) {
    if (!scan(*e.function)) {
      ir::FunctionRef f = e.function;
      // A kernel the program already has gets the split_aiv attrs of its regions, as the
      // outlined ones do; its returns are normalize-return-order's to make explicit.
      if (is_kernel_function(f->func_type) && f->body) {
        bool stamped = false;
        ir::Attrs attrs = detail::outline::with_split_aiv_attrs(
            f->attrs, detail::outline::split_regions(*f->body), &stamped);
        if (stamped) {
          auto copy = ir::copy_node(*f);
          copy->attrs = std::move(attrs);
          f = copy;
          changed = true;
        }
      }
      functions.push_back(std::move(f));
      continue;
    }
    ir::FunctionRef in = e.function;
    if (target.wrap_bare_splits && in->body) {
      ir::StmtRef body = detail::outline::wrap_bare_splits(in->body);
      if (body != in->body) {
        auto copy = ir::copy_node(*in);
        copy->body = std::move(body);
        in = copy;
      }
    }
    detail::outline::FunctionOutliner fo(target, program, ops, callees, names, outlined);
    ir::FunctionRef f = fo.run(in);
    changed = changed || f != e.function;
    functions.push_back(std::move(f));
  }
  if (!changed) return ir::ProgramRef(&program);
  functions.insert(functions.end(), outlined.begin(), outlined.end());
  return ir::Program::make(program.name, std::move(functions));
}

}  // namespace pypto::transforms
