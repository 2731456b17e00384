// pypto/transforms/convert_to_ssa.ipp — the definitions of transforms/convert_to_ssa.hpp.
//
// ConvertToSSA (`convert-to-ssa`; requires nothing, produces SSAForm and
// NormalizedStmtStructure) rewrites what the parser reads from the natural form — one variable
// assigned several times, stores into `pl.Out` parameters inside loops and branches, pre-SSA
// loops `for i, (acc,) in pl.range(n, init_values=(x,))` whose body rebinds `acc` without a
// yield, `while c:` loops — into SSA form (ssa_form.hpp):
//   - a variable is a Var object, except that inside a loop with iter_args and no yield (a
//     pre-SSA loop) a plain Var defined with an iter_arg's name and type is that iter_arg
//     rebound: the parser makes a new Var there because the name's binding was an IterArg;
//   - the first definition of a variable keeps its Var (so parameters, types that name them and
//     already-SSA programs are untouched); every later definition gets a fresh Var named
//     `base__ssa_vN` (`i__idx_vN` for a loop variable or split index), and uses read the
//     version current where they are evaluated;
//   - a loop whose body redefines a variable defined before it carries that variable: a new
//     IterArg `base__iter_vN` seeded with the version on entry, the body's yield extended with
//     the version at its end (a pre-SSA loop gets its yield), and a return var `base__rv_vN`
//     that later statements read;
//   - an if after which a variable has a new version on either path (rebound in one arm with a
//     version on entry, or defined in both arms) gets an if-result `base__phi_vN` and a yield in
//     each arm; a missing else arm is made, yielding the versions on entry;
//   - a variable first defined in a loop body and read after the loop before anything defines
//     it again is carried out of it too (as upstream PyPTO promotes it), starting from the
//     current version of the first Out / InOut parameter of its type, else of the first
//     variable of its type defined before the loop (what it holds when the loop runs no
//     iteration; none is a core::ValueError); an if between its definition and that loop hands
//     it on;
//   - other variables first defined in a loop body or an if arm and not defined on every path
//     out of it stay local; reading one after it is a core::ValueError naming the variable;
//   - scope statements (InCore, Cluster, Spmd, Hierarchy, SplitAiv, Runtime) are straight-line:
//     their attrs (e.g. `dump_vars`, `arg_direction_overrides_vars`) read the versions on entry,
//     their Def fields are defined before (binders) or after (results) the body as the
//     descriptors order them, and definitions in the body flow out;
//   - carrying a value out of a loop whose body (outside nested loops) has a break or continue,
//     or out of a `pl.unroll` loop, is a core::ValueError naming the construct and the variable.
// Types are not rewritten: a shape that names a variable names its first definition.
// Names: N counts per function, base name and role, skipping names the function already uses
// (a base drops an earlier `__role_vN` suffix), so output names are deterministic and running
// the pass twice gives the same program as running it once. Carries and if-results are ordered
// by name, as upstream PyPTO orders them (equal names by their first definition inside the
// region), never by address.
//
// A store evaluated for its effect (`pl.store(t, [0], out)` as a statement) rebinds nothing and
// stays as it is. Each function is first normalized (normalize_stmt_structure.hpp: nested
// sequences flattened without recursion); the rewrite keeps every body slot one flat SeqStmts.
//
// Complexity: O(N + C) expected (identity hashing), N = nodes, C = the carries and if-results
// made (at most the definitions times the nesting depth). A pre-scan lists, per loop and if, the
// variables defined inside that may need a value out of it: a definition is added to the
// enclosing regions outward and stops at the first region that already lists the variable or
// where the variable is local. Compound statements and expressions are followed by recursion
// bounded at core::kMaxNesting levels each (beyond: a core::ValueError, as in
// normalize-stmt-structure); shared expressions are rewritten once per environment.
#pragma once

#include "pypto/transforms/convert_to_ssa.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/identical.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/field.hpp"
#include "pypto/reflect/walk.hpp"
#include "pypto/transforms/normalize_stmt_structure.ipp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/ssa_form.ipp"
#include "pypto/transforms/substitute.hpp"

namespace pypto::transforms {

namespace detail::ssa {

using Id = std::uint32_t;
inline constexpr Id kNone = std::numeric_limits<Id>::max();

template <class T>
inline constexpr bool holds_statements =
    std::is_same_v<T, ir::StmtRef> || std::is_same_v<T, std::vector<ir::StmtRef>>;

/// The position of the first statement-valued field of N (N's field count when it has none):
/// Def fields before it bind for the body, Def fields after it are results.
template <class N>
constexpr std::size_t first_body_field() {
  std::size_t i = 0, found = reflect::FieldsOf<N>::size;
  reflect::for_each_field_descriptor<N>([&](auto f) {
    if (found == reflect::FieldsOf<N>::size && holds_statements<typename decltype(f)::value_type>)
      found = i;
    ++i;
  });
  return found;
}

/// Visits the definitions and bodies of a statement without regions of its own (an assignment,
/// a sequence, a scope, ...) in evaluation order, after its value fields (evaluated on entry):
/// `binder(F, value)` for the Def fields declared before its first statement field (bound for
/// the body), `body(F, value)` for the statement fields, `result(F, value)` for the Def fields
/// declared after it (all Def fields of a statement without body).
template <class N, class Parts>
void walk_parts(const N& n, Parts&& parts) {
  constexpr std::size_t body_at = first_body_field<N>();
  constexpr bool has_body = body_at < reflect::FieldsOf<N>::size;
  auto sweep = [&](auto pick) {
    std::size_t i = 0;
    reflect::for_each_field(n, [&](auto field, const auto& value) { pick(field, value, i++); });
  };
  constexpr auto kDef = reflect::FieldKind::Def;
  sweep([&](auto f, const auto& v, std::size_t i) {
    if constexpr (decltype(f)::kind == kDef)
      if (has_body && i < body_at) parts.binder(f, v);
  });
  sweep([&](auto f, const auto& v, std::size_t) {
    if constexpr (holds_statements<std::remove_cvref_t<decltype(v)>>) parts.body(f, v);
  });
  sweep([&](auto f, const auto& v, std::size_t i) {
    if constexpr (decltype(f)::kind == kDef)
      if (!has_body || i > body_at) parts.result(f, v);
  });
}

/// Throws the ValueError of a statement or expression nested deeper than core::kMaxNesting.
struct NestingGuard {
  std::size_t& depth;
  explicit NestingGuard(std::size_t& d) : depth(d) {
    if (depth >= core::kMaxNesting)
      throw core::ValueError("convert-to-ssa: IR nested deeper than " +
                             std::to_string(core::kMaxNesting) + " levels is not supported");
    ++depth;
  }
  ~NestingGuard() { --depth; }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;
};

// ---- the pre-scan -----------------------------------------------------------------------------

/// What ConvertToSSA needs to know about one function before rewriting it: a dense id per
/// variable (aliases of a pre-SSA iter_arg share its id), each variable's first definition, and
/// per loop or if the variables defined inside that may need a carry or an if-result.
class Scan {
 public:
  struct Variable {
    const ir::Var* origin;  ///< the first definition (its name is the base of new names)
    std::uint32_t first_def;
    Id home;  ///< the innermost region open at the first definition (kNone: none)
  };
  struct Region {
    std::vector<Id> defined;   ///< candidates, in the order of their first definition inside
    std::vector<Id> escaping;  ///< a loop's: first defined inside, read after it (see escapes)
    std::string_view exit;     ///< "break" or "continue" in a loop body (nested loops aside)
    Id parent = kNone;         ///< the enclosing region
    std::uint32_t start = 0, end = 0;
    bool loop = false;
  };

  explicit Scan(const ir::Function& f) {
    for (const auto& p : f.params) define(*p, false);
    if (f.body) stmt(*f.body);
    for (Id id = 0; id < vars_.size(); ++id) list_escapes(id);
  }

  /// The variable's id, or kNone for a variable nothing in the function defines (free).
  Id id(const ir::Var& v) const {
    const Id* i = ids_.find(&v);
    return i ? *i : kNone;
  }
  const Variable& variable(Id i) const { return vars_[i]; }
  std::size_t size() const { return vars_.size(); }
  const Region& region(const ir::Stmt& s) const { return regions_[*region_of_.find(&s)]; }

 private:
  struct Open {
    Id region;
    std::uint32_t start;     ///< definitions from here on are inside
    std::uint32_t then_end;  ///< if: where the then arm ended (the else arm is being scanned)
    bool in_else;
  };

  void stmt(const ir::Stmt& s) {
    const NestingGuard guard(depth_);
    ++statement_;
    if (ir::isa<ir::BreakStmt>(s) || ir::isa<ir::ContinueStmt>(s)) {
      if (!loops_.empty() && regions_[loops_.back()].exit.empty())
        regions_[loops_.back()].exit = ir::isa<ir::BreakStmt>(s) ? "break" : "continue";
      return;
    }
    if (const auto* f = ir::as<ir::ForStmt>(&s)) {
      reads(*f);
      for (const auto& ia : f->iter_args) read(ia->init_value);
      define(*f->loop_var, false);
      for (const auto& ia : f->iter_args) define(*ia, false);
      loop(s, f->iter_args, *f->body, nullptr);
      for (const auto& rv : f->return_vars) define(*rv, true);
    } else if (const auto* w = ir::as<ir::WhileStmt>(&s)) {
      for (const auto& ia : w->iter_args) read(ia->init_value);
      for (const auto& ia : w->iter_args) define(*ia, false);
      loop(s, w->iter_args, *w->body, w);
      for (const auto& rv : w->return_vars) define(*rv, true);
    } else if (const auto* i = ir::as<ir::IfStmt>(&s)) {
      reads(*i);
      open(s);
      stmt(*i->then_body);
      open_.back().then_end = time_;
      open_.back().in_else = true;
      if (i->else_body) stmt(*i->else_body);
      close();
      for (const auto& rv : i->return_vars) define(*rv, true);
    } else {
      ir::visit_stmt(s, [&](const auto& n) {
        reads(n);
        walk_parts(n, Parts{*this});
      });
    }
  }

  // -- reads: the value fields a node evaluates where it stands, in field order --

  template <class N>
  void reads(const N& n) {
    reflect::for_each_field(n, [&](auto field, const auto& v) {
      using F = decltype(field);
      if constexpr (F::kind == reflect::FieldKind::Usual &&
                    !holds_statements<std::remove_cvref_t<decltype(v)>>)
        read(v);
    });
  }
  template <class T>
  void read(const ir::Ref<const T>& e) {
    if constexpr (std::is_base_of_v<ir::Expr, T>) {
      if (!e) return;
      if (const auto* v = ir::as<ir::Var>(e.get())) return use(*v);
      // A shared expression is read once per statement: its reads happen there once.
      if (e.use_count() > 1) {
        auto [at, fresh] = seen_.insert(e.get(), statement_);
        if (!fresh && *at == statement_) return;
        *at = statement_;
      }
      const NestingGuard guard(depth_);
      ir::visit_expr(*e, [&](const auto& n) { reads(n); });
    }  // types keep their program-wide symbols; callees are names
  }
  template <class T>
  void read(const std::vector<T>& list) {
    for (const auto& x : list) read(x);
  }
  template <class T>
  void read(const std::optional<T>& x) {
    if (x) read(*x);
  }
  void read(const ir::Attrs& attrs) {
    for (const auto& entry : attrs) read(entry.value);
  }
  void read(const ir::AttrValue& v) {
    if (const auto* e = v.get_if<ir::ExprRef>()) read(*e);
    if (const auto* l = v.get_if<ir::AttrValueList>()) read(*l);
  }
  template <class T>
  void read(const T& x) {
    if constexpr (reflect::Reflected<T>) reads(x);  // a view struct; scalars read nothing
  }

  void use(const ir::Var& v) {
    if (const Id* id = ids_.find(&v)) events_[*id].push_back({time_, false});
    ++time_;
  }

  /// walk_parts callbacks: binders never rebind an iter_arg; results may.
  struct Parts {
    Scan& scan;
    template <class F, class V>
    void binder(F, const V& v) {
      for_each_defined_var(v, [&](const ir::Var& var) { scan.define(var, false); });
    }
    template <class F, class V>
    void result(F, const V& v) {
      for_each_defined_var(v, [&](const ir::Var& var) { scan.define(var, true); });
    }
    template <class F, class V>
    void body(F, const V& v) {
      if constexpr (std::is_same_v<V, ir::StmtRef>) {
        if (v) scan.stmt(*v);
      } else {
        for (const auto& s : v) scan.stmt(*s);
      }
    }
  };

  void loop(const ir::Stmt& s, const std::vector<ir::IterArgRef>& iter_args, const ir::Stmt& body,
            const ir::WhileStmt* w) {
    open(s);
    regions_[open_.back().region].loop = true;
    loops_.push_back(open_.back().region);
    if (!iter_args.empty()) frames_.push_back({&iter_args, !tail_yield(body)});
    if (w) reads(*w);  // the condition is evaluated in the loop, on the carried values
    stmt(body);
    if (!iter_args.empty()) frames_.pop_back();
    loops_.pop_back();
    close();
  }

  void open(const ir::Stmt& s) {
    const auto [index, fresh] = region_of_.insert(&s, static_cast<Id>(regions_.size()));
    if (fresh) regions_.emplace_back();
    Region& r = regions_[*index];
    r.parent = open_.empty() ? kNone : open_.back().region;
    r.start = time_;
    open_.push_back({*index, time_, 0, false});
  }
  void close() {
    regions_[open_.back().region].end = time_;
    open_.pop_back();
  }

  /// True when the variable is read after loop `r` before anything defines it again: its value
  /// must come out of the loop.
  bool escapes(Id id, const Region& r) const {
    const auto& ev = events_[id];
    const auto next = std::lower_bound(ev.begin(), ev.end(), r.end,
                                       [](const Event& e, std::uint32_t t) { return e.time < t; });
    return next != ev.end() && !next->def;
  }

  /// Lists a variable first defined inside loops and read after them (as upstream PyPTO
  /// promotes it): in each such loop's `escaping`, and in the ifs between its first definition
  /// and that loop, whose results must then hand it on.
  void list_escapes(Id id) {
    std::vector<Id> pending;  // ifs since the last loop outward
    for (Id r = vars_[id].home; r != kNone; r = regions_[r].parent) {
      Region& region = regions_[r];
      if (!region.loop) {
        pending.push_back(r);
        continue;
      }
      if (!escapes(id, region)) {
        pending.clear();
        continue;
      }
      for (Id i : pending) list(i, id, regions_[i].defined);
      pending.clear();
      list(r, id, region.escaping);
    }
  }
  void list(Id region, Id id, std::vector<Id>& into) {
    if (listed_.insert((std::uint64_t{region} << 32) | id).second) into.push_back(id);
  }

  /// The iter_arg that a plain Var defined in a pre-SSA loop's body rebinds, or null: the
  /// innermost iter_arg of that name, when its loop has no yield and the types are the same.
  const ir::Var* rebound_iter_arg(const ir::Var& v) const {
    if (v.kind() != ir::NodeKind::Var) return nullptr;
    for (auto f = frames_.rbegin(); f != frames_.rend(); ++f)
      for (const auto& ia : *f->iter_args) {
        if (ia->name_hint != v.name_hint) continue;
        if (!f->pre_ssa) return nullptr;
        // The loop's result is the name's last value: a value of another type cannot be it.
        if (!ir::identical(ia->type, v.type))
          throw core::ValueError(
              "convert-to-ssa: " + v.span.to_string() + ": '" + v.name_hint +
              "' is a value the loop carries, and its body rebinds it to a value of another "
              "type; a carried name keeps the type of its initial value");
        return ia.get();
      }
    return nullptr;
  }

  /// A definition of `v`; `result` positions may rebind a pre-SSA iter_arg.
  void define(const ir::Var& v, bool result) {
    Id id = kNone;
    if (const Id* known = ids_.find(&v)) {
      id = *known;
    } else {
      const ir::Var* iter_arg = result ? rebound_iter_arg(v) : nullptr;
      if (iter_arg) {
        id = *ids_.find(iter_arg);  // defined when its loop was entered
      } else {
        id = static_cast<Id>(vars_.size());
        vars_.push_back({&v, time_, open_.empty() ? kNone : open_.back().region});
        events_.emplace_back();
      }
      ids_.insert(&v, id);
    }
    const std::uint32_t first = vars_[id].first_def;
    const std::uint32_t now = time_++;
    events_[id].push_back({now, true});
    if (first == now) return;  // a first definition is local to every open region
    // Outward through the open regions while the variable may need a value out of them: it was
    // defined before the region, or (an if's else arm) first in the then arm.
    for (auto r = open_.rbegin(); r != open_.rend(); ++r) {
      const bool before = first < r->start;
      const bool other_arm = r->in_else && r->start <= first && first < r->then_end;
      if (!before && !other_arm) break;
      const std::uint64_t key = (std::uint64_t{r->region} << 32) | id;
      if (!listed_.insert(key).second) break;  // so are the regions outside it
      regions_[r->region].defined.push_back(id);
    }
  }

  ::pypto::detail::PointerMap<Id> ids_;
  std::vector<Variable> vars_;
  ::pypto::detail::PointerMap<Id> region_of_;
  std::vector<Region> regions_;
  std::vector<Open> open_;
  std::vector<Id> loops_;
  struct Frame {
    const std::vector<ir::IterArgRef>* iter_args;  ///< of an enclosing loop
    bool pre_ssa;                                  ///< that loop has no yield
  };
  std::vector<Frame> frames_;
  std::unordered_set<std::uint64_t> listed_;  // (region, variable) pairs; membership only
  struct Event {
    std::uint32_t time;
    bool def;  ///< a definition, else a read
  };
  std::vector<std::vector<Event>> events_;           // per variable, in time order
  ::pypto::detail::PointerMap<std::uint32_t> seen_;  // shared expression -> last statement read
  std::uint32_t time_ = 0;                           // definitions and reads, in order
  std::uint32_t statement_ = 0;
  std::size_t depth_ = 0;
};

// ---- names ------------------------------------------------------------------------------------

/// `x` for `x__ssa_v3` (and for `x`): the base that new versions are named after.
inline std::string base_name(std::string_view name) {
  const std::size_t sep = name.rfind("__");
  if (sep != std::string_view::npos && sep > 0) {
    const std::string_view suffix = name.substr(sep + 2);  // role_vN
    const std::size_t v = suffix.rfind("_v");
    bool digits = v != std::string_view::npos && v > 0 && v + 2 < suffix.size();
    for (std::size_t i = v + 2; digits && i < suffix.size(); ++i)
      digits = suffix[i] >= '0' && suffix[i] <= '9';
    bool role = digits;
    for (std::size_t i = 0; role && i < v; ++i) role = suffix[i] >= 'a' && suffix[i] <= 'z';
    if (role) return std::string(name.substr(0, sep));
  }
  return name.empty() ? std::string("v") : std::string(name);
}

/// Fresh names `base__role_vN`, N counted per (base, role) from 1, skipping names the function
/// already uses. Only names with a `__` can clash, and they are collected at the first request
/// (an SSA function never pays for it).
class Names {
 public:
  explicit Names(const ir::Function& f) : fn_(f) {}

  std::string fresh(std::string_view base, std::string_view role) {
    if (!collected_) collect();
    std::string stem = std::string(base) + "__" + std::string(role) + "_v";
    std::uint32_t& n = next_[stem];
    std::string name;
    do name = stem + std::to_string(++n);
    while (!taken_.insert(name).second);
    return name;
  }

 private:
  void collect() {
    collected_ = true;
    ir::for_each_node(ir::FunctionRef(&fn_), [&](const ir::Node& n) {
      if (const auto* v = ir::as<ir::Var>(&n); v && v->name_hint.find("__") != std::string::npos)
        taken_.insert(v->name_hint);
    });
  }

  const ir::Function& fn_;
  bool collected_ = false;
  std::unordered_set<std::string> taken_;  // membership only
  std::map<std::string, std::uint32_t> next_;
};

// ---- versions ---------------------------------------------------------------------------------

/// The current version of each variable, with an undo log: a loop body or an if arm is left by
/// restoring the mark taken on entry. `generation` changes with every update (memo validity).
class Versions {
 public:
  explicit Versions(std::size_t n) : current_(n) {}

  const ir::VarRef& get(Id id) const { return current_[id]; }
  void set(Id id, ir::VarRef v) {
    log_.push_back({id, std::move(current_[id])});
    current_[id] = std::move(v);
    ++generation_;
  }
  std::size_t mark() const { return log_.size(); }
  void restore(std::size_t mark) {
    for (; log_.size() > mark; log_.pop_back()) current_[log_.back().id] = log_.back().previous;
    ++generation_;
  }
  std::uint64_t generation() const { return generation_; }

 private:
  struct Undo {
    Id id;
    ir::VarRef previous;
  };
  std::vector<ir::VarRef> current_;
  std::vector<Undo> log_;
  std::uint64_t generation_ = 0;
};

// ---- the rewrite ------------------------------------------------------------------------------

/// Rewrites one function; `kept` holds the Vars kept by earlier functions of the program (a Var
/// object defined in two functions is kept in the first only).
class FunctionConverter : private FieldRewriter<FunctionConverter> {
  friend class FieldRewriter<FunctionConverter>;

 public:
  FunctionConverter(const ir::Function& f, ::pypto::detail::PointerMap<char>& kept)
      : fn_(f),
        scan_(f),
        names_(f),
        versions_(scan_.size()),
        defined_(scan_.size()),
        kept_(kept),
        binder_stamp_(scan_.size(), 0) {}

  ir::FunctionRef run(const ir::FunctionRef& self) {
    std::vector<ir::VarRef> params;
    bool changed = false;
    for (const auto& p : fn_.params) {
      params.push_back(define(*p, "ssa"));
      changed = changed || params.back() != p;
    }
    ir::StmtRef body = fn_.body ? stmt(fn_.body) : nullptr;
    if (!changed && body == fn_.body) return self;
    auto copy = ir::copy_node(fn_);
    copy->params = std::move(params);
    copy->body = std::move(body);
    return copy;
  }

 private:
  // -- definitions and uses --

  /// The Var a definition of `v` binds: `v` itself at its variable's first definition (unless
  /// `rename`), else a fresh `base__role_vN` of v's kind and type. The variable's version
  /// becomes it.
  ir::VarRef define(const ir::Var& v, std::string_view role, bool rename = false) {
    const Id id = scan_.id(v);
    if (id == kNone) throw core::InternalError("convert-to-ssa: a definition the scan missed");
    const bool first = !defined_[id] && scan_.variable(id).origin == &v;
    defined_[id] = true;
    ir::VarRef out;
    if (first && !rename && kept_.insert(&v, 1).second)
      out = ir::VarRef(&v);
    else
      out = fresh_like(v, names_.fresh(base(id), role));
    versions_.set(id, out);
    return out;
  }

  std::string base(Id id) const { return base_name(scan_.variable(id).origin->name_hint); }

  static ir::VarRef fresh_like(const ir::Var& v, std::string name) {
    if (const auto* w = ir::as<ir::WindowBuffer>(&v))
      return ir::WindowBuffer::make(std::move(name), w->size, w->base, w->load_from_host,
                                    w->store_to_host, w->span);
    return ir::Var::make(std::move(name), v.type, v.span);
  }

  /// The version of `v` read here (v itself when it is free).
  ir::VarRef use(const ir::VarRef& v) {
    const Id id = scan_.id(*v);
    if (id == kNone) return v;
    if (const ir::VarRef& current = versions_.get(id)) return current;
    throw core::ValueError("convert-to-ssa: function '" + fn_.name + "': variable '" +
                           v->name_hint + "' is read in a " + std::string(ir::kind_name(where_)) +
                           " that no definition of it reaches (it is defined only later, or only "
                           "inside a loop body or one branch of an if)");
  }

  // -- values: expressions, lists, attrs (through FieldRewriter: null children stay null) --

  /// A handle read here: a variable at its current version, an expression rewritten; types and
  /// callees are not rewritten. Sets `out` and returns true only on a change.
  template <class T>
  bool rewrite_handle(const ir::Ref<const T>& in, ir::Ref<const T>& out) {
    if constexpr (std::is_same_v<T, ir::Var>) {
      ir::VarRef x = use(in);
      if (x == in) return false;
      out = std::move(x);
      return true;
    } else if constexpr (std::is_base_of_v<ir::Expr, T>) {
      static_assert(!std::is_base_of_v<ir::Var, T>, "a Usual field holding a kind of Var");
      ir::ExprRef x = expr(in);
      if (x == in) return false;
      out = ir::cast<T>(x);
      return true;
    } else {
      return false;  // types keep their program-wide symbols; callees are names
    }
  }

  /// The value fields a statement or expression evaluates where it stands: Usual fields that do
  /// not hold statements (bodies and definitions are walked in order by `walk_parts`).
  struct ValueFields {
    template <class F, class V>
    static constexpr bool select = F::kind == reflect::FieldKind::Usual && !holds_statements<V>;
  };

  /// A copy of `n` with its value fields rewritten, or null when none changed.
  template <class N>
  ir::Ref<N> rewritten_values(const N& n) {
    return rebuilt<ValueFields>(n);
  }

  /// `e` with every variable read at its current version (the same object when none changed).
  ir::ExprRef expr(const ir::ExprRef& e) {
    if (const auto* v = ir::as<ir::Var>(e.get())) return use(ir::VarRef(v));
    const bool shared = e.use_count() > 1;
    if (shared)
      if (Memo* m = memo_.find(e.get()); m && m->generation == versions_.generation())
        return m->out;
    const NestingGuard guard(expr_depth_);
    ir::ExprRef out = ir::visit_expr(*e, [&](const auto& n) -> ir::ExprRef {
      auto copy = rewritten_values(n);
      return copy ? ir::ExprRef(copy) : e;
    });
    if (shared) {
      const Memo m{versions_.generation(), out};
      if (auto [at, fresh] = memo_.insert(e.get(), m); !fresh) *at = m;
    }
    return out;
  }

  // -- statements --

  /// walk_parts callbacks of `straight`: the statement rebuilt on the first change.
  template <class N>
  struct StraightParts {
    FunctionConverter& c;
    const N& n;
    ir::Ref<N> copy;

    template <class F, class V>
    void set(V value) {
      if (!copy) copy = ir::copy_node(n);
      copy.get()->*F::member = std::move(value);
    }
    template <class F, class V>
    void define(const V& v, std::string_view role) {
      if constexpr (std::is_convertible_v<V, ir::VarRef>) {
        if (!v) return;
        ir::VarRef out = c.define(*v, role);
        if (out != v) set<F>(std::move(out));
      } else if constexpr (std::is_same_v<V, std::optional<ir::VarRef>>) {
        if (!v || !*v) return;
        ir::VarRef out = c.define(**v, role);
        if (out != *v) set<F>(V(std::move(out)));
      } else {
        static_assert(std::is_same_v<V, std::vector<ir::VarRef>>,
                      "convert-to-ssa: a Def field of an unexpected type");
        V out = v;
        bool changed = false;
        for (auto& x : out)
          if (x) {
            ir::VarRef y = c.define(*x, role);
            changed = changed || y != x;
            x = std::move(y);
          }
        if (changed) set<F>(std::move(out));
      }
    }
    template <class F, class V>
    void binder(F, const V& v) {
      define<F>(v, "idx");  // a scope's own binder: the split_aiv sub-block index
    }
    template <class F, class V>
    void result(F, const V& v) {
      define<F>(v, "ssa");
    }
    template <class F, class V>
    void body(F, const V& v) {
      if constexpr (std::is_same_v<V, ir::StmtRef>) {
        if (!v) return;
        ir::StmtRef out = c.stmt(v);
        if (out != v) set<F>(std::move(out));
      } else {
        std::optional<V> out;
        for (std::size_t i = 0; i < v.size(); ++i) {
          ir::StmtRef x = c.stmt(v[i]);
          if (x == v[i]) continue;
          if (!out) out = v;
          (*out)[i] = std::move(x);
        }
        if (out) set<F>(std::move(*out));
      }
    }
  };

  /// A statement without regions of its own (assignments, sequences, scopes, ...), through its
  /// descriptors: values on entry, then binders, bodies in order, results.
  template <class N>
  ir::StmtRef straight(const N& n, const ir::StmtRef& self) {
    StraightParts<N> parts{*this, n, rewritten_values(n)};
    walk_parts(n, parts);
    return parts.copy ? ir::StmtRef(parts.copy) : self;
  }

  // -- loops --

  /// The variables a loop carries beyond its own iter_args: those defined in its body that have
  /// a version on entry, less the loop's own binders.
  /// Then those first defined in it and read after it (Scan::escapes), which start from
  /// `escape_init`: in all, `entry` of them have a version on entry.
  std::vector<Id> carried(const ir::Stmt& loop, const std::vector<Id>& own, std::size_t& entry) {
    const std::uint64_t stamp = ++loops_seen_;
    for (Id o : own) binder_stamp_[o] = stamp;
    const Scan::Region& region = scan_.region(loop);
    std::vector<Id> out, escaping;
    for (const auto* list : {&region.defined, &region.escaping})
      for (Id id : *list)
        if (versions_.get(id) && binder_stamp_[id] != stamp) out.push_back(id);
    for (Id id : region.escaping)
      if (!versions_.get(id)) escaping.push_back(id);
    out = by_name(std::move(out));
    entry = out.size();
    for (Id id : by_name(std::move(escaping))) out.push_back(id);
    return out;
  }

  /// What a variable first defined in a loop and read after it holds when the loop runs no
  /// iteration, as upstream PyPTO chooses it: the current version of the first Out / InOut
  /// parameter of its type, else of the first variable of its type defined before the loop.
  ir::VarRef escape_init(Id id, std::string_view what) const {
    const ir::Var& origin = *scan_.variable(id).origin;
    for (std::size_t k = 0; k < fn_.params.size(); ++k) {
      if (k >= fn_.param_directions.size() || fn_.param_directions[k] == ir::ParamDirection::In)
        continue;
      const ir::VarRef& v = versions_.get(scan_.id(*fn_.params[k]));
      if (v && ir::identical(v->type, origin.type)) return v;
    }
    for (Id other = 0; other < scan_.size(); ++other) {
      const ir::VarRef& v = versions_.get(other);
      if (v && ir::identical(v->type, origin.type)) return v;
    }
    throw core::ValueError("convert-to-ssa: function '" + fn_.name + "': variable '" +
                           origin.name_hint + "' is first defined inside the " + std::string(what) +
                           " and read after it, and no value of its type is defined before the "
                           "loop to hold when the loop runs no iteration");
  }

  /// `ids` in the order of their names (first definition order among equal names), the order
  /// upstream PyPTO gives a loop's carried values and an if's results.
  std::vector<Id> by_name(std::vector<Id> ids) const {
    std::stable_sort(ids.begin(), ids.end(), [&](Id a, Id b) {
      return scan_.variable(a).origin->name_hint < scan_.variable(b).origin->name_hint;
    });
    return ids;
  }

  /// Fails when the loop must hand values out but cannot express it.
  void check_loop_can_carry(const ir::Stmt& loop, std::string_view what,
                            const std::vector<Id>& carries, const std::vector<ir::IterArgRef>& own,
                            bool needs_yield, bool unrolled) {
    if (carries.empty() && !needs_yield) return;
    const std::string var = carries.empty() ? own.front()->name_hint
                                            : scan_.variable(carries.front()).origin->name_hint;
    const std::string in = "convert-to-ssa: function '" + fn_.name + "': ";
    if (unrolled)
      throw core::ValueError(in + "variable '" + var + "' is rebound inside a pl.unroll loop (" +
                             std::string(what) +
                             "), which cannot carry values (unroll-loops expands it first)");
    if (const std::string_view exit = scan_.region(loop).exit; !exit.empty())
      throw core::ValueError(in + "the " + std::string(what) + " would carry variable '" + var +
                             "', but its body has a `" + std::string(exit) +
                             "`: carrying a value out of a loop with break or continue is not "
                             "supported (one trailing yield cannot give the value at the exit)");
  }

  /// Defines the loop's iter_args (rebuilt when an initial value changed) and one new IterArg per
  /// carried variable, seeded with its version on entry. Initial values are read before any is
  /// defined: they are evaluated outside the loop.
  std::vector<ir::IterArgRef> open_iter_args(const std::vector<ir::IterArgRef>& own,
                                             const std::vector<ir::ExprRef>& inits,
                                             const std::vector<Id>& carries, std::size_t entry,
                                             std::string_view what) {
    std::vector<ir::ExprRef> carried_inits;
    for (std::size_t k = 0; k < carries.size(); ++k)
      carried_inits.push_back(k < entry ? versions_.get(carries[k])
                                        : escape_init(carries[k], what));
    std::vector<ir::IterArgRef> out;
    for (std::size_t k = 0; k < own.size(); ++k) {
      const ir::IterArg& ia = *own[k];
      const Id id = scan_.id(ia);
      const bool first = !defined_[id] && scan_.variable(id).origin == &ia;
      defined_[id] = true;
      ir::IterArgRef x;
      if (first && inits[k] == ia.init_value && kept_.insert(&ia, 1).second)
        x = own[k];
      else
        x = ir::IterArg::make(first ? ia.name_hint : names_.fresh(base(id), "iter"), ia.type,
                              inits[k], ia.span);
      versions_.set(id, x);
      out.push_back(std::move(x));
    }
    for (std::size_t k = 0; k < carries.size(); ++k) {
      const ir::Var& origin = *scan_.variable(carries[k]).origin;
      auto x = ir::IterArg::make(names_.fresh(base(carries[k]), "iter"), origin.type,
                                 carried_inits[k], origin.span);
      versions_.set(carries[k], x);
      out.push_back(std::move(x));
    }
    return out;
  }

  /// The loop body handing out the versions at its end: its tail yield extended with the
  /// carried variables, or a new yield (a pre-SSA loop, a loop that starts to carry).
  ir::StmtRef close_body(ir::StmtRef body, const std::vector<ir::IterArgRef>& own,
                         const std::vector<Id>& carries) {
    std::vector<ir::ExprRef> values;
    const bool has_yield = tail_yield(*body) != nullptr;
    if (!has_yield)
      for (const auto& ia : own) values.push_back(versions_.get(scan_.id(*ia)));
    for (Id id : carries) values.push_back(versions_.get(id));
    if (has_yield ? carries.empty() : values.empty()) return body;
    return with_yield(body, std::move(values));
  }

  /// Defines the loop's or if's own results, then one new result per carried variable, which
  /// later statements read. A pre-SSA loop's results, which the parser names like its iter_args,
  /// are renamed `base__rv_vN`.
  std::vector<ir::VarRef> close_results(const std::vector<ir::VarRef>& own,
                                        const std::vector<Id>& carries, std::string_view role,
                                        bool rename_own = false) {
    std::vector<ir::VarRef> out;
    for (const auto& rv : own) out.push_back(define(*rv, role, rename_own));
    for (Id id : carries) {
      const ir::Var& origin = *scan_.variable(id).origin;
      auto rv = ir::Var::make(names_.fresh(base(id), role), origin.type, origin.span);
      versions_.set(id, rv);
      out.push_back(std::move(rv));
    }
    return out;
  }

  std::vector<ir::ExprRef> rewritten_inits(const std::vector<ir::IterArgRef>& own) {
    std::vector<ir::ExprRef> inits;
    for (const auto& ia : own) inits.push_back(expr(ia->init_value));
    return inits;
  }

  std::vector<Id> own_ids(const std::vector<ir::IterArgRef>& own, const ir::Var* loop_var) {
    std::vector<Id> ids;
    if (loop_var) ids.push_back(scan_.id(*loop_var));
    for (const auto& ia : own) ids.push_back(scan_.id(*ia));
    return ids;
  }

  ir::StmtRef for_stmt(const ir::ForStmt& s, const ir::StmtRef& self) {
    auto copy = ir::copy_node(s);
    if (auto x = rewritten_values(s)) copy = std::move(x);  // bounds, attrs: outside the loop
    const std::vector<ir::ExprRef> inits = rewritten_inits(s.iter_args);
    std::size_t entry = 0;
    const std::vector<Id> carries = carried(s, own_ids(s.iter_args, s.loop_var.get()), entry);
    const bool pre_ssa = !s.iter_args.empty() && !tail_yield(*s.body);
    const std::string what = "for loop over '" + s.loop_var->name_hint + "'";
    check_loop_can_carry(s, what, carries, s.iter_args, pre_ssa, s.for_kind == ir::ForKind::Unroll);
    const std::size_t mark = versions_.mark();
    // The iter_args first: an escaping variable's initial value is read before the loop, where
    // the loop variable is not defined yet.
    copy->iter_args = open_iter_args(s.iter_args, inits, carries, entry, what);
    copy->loop_var = define(*s.loop_var, "idx");
    copy->body = close_body(stmt(s.body), s.iter_args, carries);
    versions_.restore(mark);
    copy->return_vars = close_results(s.return_vars, carries, "rv", pre_ssa);
    return same_fields(s, *copy) ? self : ir::StmtRef(copy);
  }

  ir::StmtRef while_stmt(const ir::WhileStmt& s, const ir::StmtRef& self) {
    auto copy = ir::copy_node(s);
    const std::vector<ir::ExprRef> inits = rewritten_inits(s.iter_args);
    std::size_t entry = 0;
    const std::vector<Id> carries = carried(s, own_ids(s.iter_args, nullptr), entry);
    const bool pre_ssa = !s.iter_args.empty() && !tail_yield(*s.body);
    check_loop_can_carry(s, "while loop", carries, s.iter_args, pre_ssa, false);
    const std::size_t mark = versions_.mark();
    copy->iter_args = open_iter_args(s.iter_args, inits, carries, entry, "while loop");
    copy->condition = expr(s.condition);  // evaluated in the loop, on the carried values
    copy->body = close_body(stmt(s.body), s.iter_args, carries);
    versions_.restore(mark);
    copy->return_vars = close_results(s.return_vars, carries, "rv", pre_ssa);
    return same_fields(s, *copy) ? self : ir::StmtRef(copy);
  }

  /// True when every field of `b` (a rebuilt `a`) holds the same objects as `a`.
  template <class N>
  static bool same_fields(const N& a, const N& b) {
    bool same = true;
    reflect::for_each_field(a, [&](auto field, const auto& value) {
      using F = decltype(field);
      if constexpr (F::kind != reflect::FieldKind::Ignore)
        same = same && identical_refs(value, F::get(b));
    });
    return same;
  }
  template <class T>
  static bool identical_refs(const T& a, const T& b) {
    if constexpr (reflect::detail::is_vector<T>) {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (!identical_refs(a[i], b[i])) return false;
      return true;
    } else if constexpr (std::is_same_v<T, ir::Attrs>) {
      return &a == &b || (a.size() == b.size() && [&] {
        for (std::size_t i = 0; i < a.size(); ++i)
          if (!identical_refs(a.entries[i].value, b.entries[i].value)) return false;
        return true;
      }());
    } else if constexpr (std::is_same_v<T, ir::AttrValue>) {
      const auto* ea = a.template get_if<ir::ExprRef>();
      const auto* eb = b.template get_if<ir::ExprRef>();
      if (ea || eb) return ea && eb && *ea == *eb;
      const auto* la = a.template get_if<ir::AttrValueList>();
      const auto* lb = b.template get_if<ir::AttrValueList>();
      if (la || lb) return la && lb && identical_refs(*la, *lb);
      return true;  // scalar payloads are never rewritten
    } else if constexpr (requires { a.get(); }) {
      return a.get() == b.get();
    } else {
      return true;  // scalars and enums are copied, never rewritten
    }
  }

  // -- branches --

  ir::StmtRef if_stmt(const ir::IfStmt& s, const ir::StmtRef& self) {
    auto copy = ir::copy_node(s);
    copy->condition = expr(s.condition);
    const std::vector<Id> candidates = by_name(scan_.region(s).defined);
    const std::size_t mark = versions_.mark();
    auto arm = [&](const ir::StmtRef& body, std::vector<ir::VarRef>& at_end) -> ir::StmtRef {
      ir::StmtRef out = body ? stmt(body) : nullptr;
      for (Id id : candidates) at_end.push_back(versions_.get(id));
      versions_.restore(mark);
      return out;
    };
    std::vector<ir::VarRef> then_end, else_end;
    copy->then_body = arm(s.then_body, then_end);
    copy->else_body = arm(s.else_body, else_end);
    // An if-result for each variable with a version on both paths that differs between them.
    std::vector<Id> phis;
    std::vector<ir::ExprRef> then_values, else_values;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      if (!then_end[k] || !else_end[k] || then_end[k] == else_end[k]) continue;
      phis.push_back(candidates[k]);
      then_values.push_back(then_end[k]);
      else_values.push_back(else_end[k]);
    }
    if (!phis.empty()) {
      copy->then_body = with_yield(copy->then_body, std::move(then_values));
      copy->else_body = copy->else_body
                            ? with_yield(copy->else_body, std::move(else_values))
                            : ir::SeqStmts::make({ir::YieldStmt::make(std::move(else_values))});
    }
    copy->return_vars = close_results(s.return_vars, phis, "phi");
    return same_fields(s, *copy) ? self : ir::StmtRef(copy);
  }

  /// `s` rewritten (the same object when nothing changed). Defined after the handlers it
  /// dispatches to: clang 14 does not instantiate member templates named earlier in a generic
  /// lambda (-Wundefined-inline).
  ir::StmtRef stmt(const ir::StmtRef& s) {
    const NestingGuard guard(stmt_depth_);
    const ir::NodeKind outer = where_;
    where_ = s->kind();
    ir::StmtRef out = ir::visit_stmt(*s, [&](const auto& n) -> ir::StmtRef {
      using N = std::remove_cvref_t<decltype(n)>;
      if constexpr (std::is_same_v<N, ir::ForStmt>)
        return for_stmt(n, s);
      else if constexpr (std::is_same_v<N, ir::WhileStmt>)
        return while_stmt(n, s);
      else if constexpr (std::is_same_v<N, ir::IfStmt>)
        return if_stmt(n, s);
      else
        return straight(n, s);
    });
    where_ = outer;
    return out;
  }

  // -- yields --

  /// `body` whose tail yield also hands out `extra`, or with a new yield of `extra` appended.
  static ir::StmtRef with_yield(const ir::StmtRef& body, std::vector<ir::ExprRef> extra) {
    if (const ir::YieldStmt* y = tail_yield(*body)) {
      auto grown = ir::copy_node(*y);
      grown->values.insert(grown->values.end(), extra.begin(), extra.end());
      return replace_tail(body, grown);
    }
    ir::StmtRef yield = ir::YieldStmt::make(std::move(extra));
    if (const auto* seq = ir::as<ir::SeqStmts>(body.get())) {
      auto copy = ir::copy_node(*seq);
      copy->stmts.push_back(std::move(yield));
      return copy;
    }
    return ir::SeqStmts::make({body, std::move(yield)});
  }

  /// `s` with its tail yield (see tail_yield) replaced by `y`, rebuilt along the way there.
  static ir::StmtRef replace_tail(const ir::StmtRef& s, const ir::StmtRef& y) {
    if (ir::isa<ir::YieldStmt>(*s)) return y;
    if (const auto* seq = ir::as<ir::SeqStmts>(s.get())) {
      auto copy = ir::copy_node(*seq);
      copy->stmts.back() = replace_tail(seq->stmts.back(), y);
      return copy;
    }
    return ir::visit_stmt(*s, [&](const auto& n) -> ir::StmtRef {
      using N = std::remove_cvref_t<decltype(n)>;
      if constexpr (std::is_base_of_v<ir::ScopeStmt, N>) {
        auto copy = ir::copy_node(n);
        copy->body = replace_tail(n.body, y);
        return copy;
      } else {
        throw core::InternalError("convert-to-ssa: a tail yield under a " +
                                  std::string(N::class_name));
      }
    });
  }

  struct Memo {
    std::uint64_t generation;
    ir::ExprRef out;
  };

  const ir::Function& fn_;
  Scan scan_;
  Names names_;
  Versions versions_;
  std::vector<bool> defined_;  // per variable: its first definition has been rewritten
  ::pypto::detail::PointerMap<char>& kept_;
  ::pypto::detail::PointerMap<Memo> memo_;       // shared expressions; looked up, never iterated
  ir::NodeKind where_ = ir::NodeKind::SeqStmts;  // the statement being rewritten (messages)
  std::vector<std::uint64_t> binder_stamp_;      // per variable: the loop that binds it (carried)
  std::uint64_t loops_seen_ = 0;
  std::size_t stmt_depth_ = 0, expr_depth_ = 0;
};

}  // namespace detail::ssa

PYPTO_DECL Pass ConvertToSSA() {
  return Pass(
      "convert-to-ssa", /*required=*/{},
      /*produced=*/{Property::SSAForm, Property::NormalizedStmtStructure},
      /*invalidated=*/{}, [](const ir::Program& program) -> ir::ProgramRef {
        ::pypto::detail::PointerMap<char> kept;
        detail::StmtStructureNormalizer normalizer;
        std::vector<ir::FunctionRef> functions;
        bool changed = false;
        for (const auto& entry : program.functions) {
          // Normalized first: nested sequences are flattened without recursion, and every
          // body slot the rewrite extends with a yield is already a SeqStmts (so stays
          // normalized).
          const ir::FunctionRef f = normalizer.function(entry.function);
          functions.push_back(f->body ? detail::ssa::FunctionConverter(*f, kept).run(f) : f);
          changed = changed || functions.back() != entry.function;
        }
        if (!changed) return ir::ProgramRef(&program);
        return ir::Program::make(program.name, std::move(functions));
      });
}

}  // namespace pypto::transforms
