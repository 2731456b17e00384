// pypto/transforms/expand_mixed_kernels.ipp — the definitions of
// transforms/expand_mixed_kernels.hpp.
//
// A Group runs as one mixed task: the runtime hands every member kernel (AIC, AIV, AIV lane 1)
// the same argument list. Outlining gives each member only the values its scope used, so the
// members of `main_cluster_0(a, w, c, bias, o)` may be `cube(a, w, c)` and `vec(c1, bias, o)`.
// This pass normalizes every Group whose member calls differ from its own parameter list: each
// member takes the Group's parameters, in the Group's order, and the Group calls it with exactly
// those. A member argument is resolved to a Group slot as
//   - a Group parameter: that slot;
//   - the result of an earlier member call (or an element of its tuple result) that the callee
//     returns from its parameter k (a kernel returns the buffer it wrote, return_lineage.hpp):
//     whatever the earlier call passed in slot k, recursively;
//   - a constant: substituted into the member's body (the parameter goes away).
// Other statements (projections, op calls such as system.sync_set, the return) stay as they are.
// A member parameter reuses its Var for the first slot it is bound to (its type, direction and
// every use stay as they are); a second parameter bound to the same slot is substituted by the
// first; a slot the member does not read becomes a fresh In parameter of the Group's type.
// Anything else a member receives (a value the Group computes) is a MixedKernelError naming the
// Group, the member, the argument and line:column.
//
// A member whose every call in the program is in this Group is rewritten in place for its first
// binding; any other binding (a second lane, a caller outside the Group) gets a Group-private
// copy with its own variables, `{group}_{member}` (then `_2`, `_3`, ... while the name is
// taken), and its sibling members' `peer_func` names follow the copy. Groups are
// visited in name order, so names never depend on pointer values. A Group that already passes
// its own parameters to every member, or that launches anything but a kernel, is left alone
// (codegen reports what it cannot run). Requires SSAForm and ClusterOutlined and keeps every
// property. O(N) over the program plus O(1) expected per lookup.
#pragma once

#include "pypto/transforms/expand_mixed_kernels.hpp"

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/transforms/fresh_copy.hpp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/property.hpp"
#include "pypto/transforms/reference_renamer.hpp"
#include "pypto/transforms/return_lineage.hpp"
#include "pypto/transforms/substitute.hpp"

namespace pypto::transforms {

namespace detail::mixed {

/// What a member argument is in the Group's terms: a parameter slot or a constant.
struct Slot {
  std::optional<std::size_t> param;
  ir::ExprRef constant;
};

/// One member call of a Group body: where it sits and how its arguments resolve.
struct MemberCall {
  std::size_t stmt = 0;  ///< index in the Group's top-level statements
  const ir::Call* call = nullptr;
  ir::FunctionRef callee;
  std::vector<Slot> slots;  ///< one per callee parameter
};

inline bool is_constant(const ir::ExprRef& e) {
  return ir::isa<ir::ConstInt>(e) || ir::isa<ir::ConstFloat>(e) || ir::isa<ir::ConstBool>(e);
}

/// The top-level statements of a body (a SeqStmts' items, or the single statement).
inline std::vector<ir::StmtRef> top_level(const ir::StmtRef& body) {
  if (const auto* seq = ir::as<ir::SeqStmts>(body.get())) return seq->stmts;
  return {body};
}

/// The Call of a program function a statement makes (`x = f(..)` or `f(..)`), or null.
inline const ir::Call* launch_of(const ir::Stmt& s) {
  const ir::Expr* e = nullptr;
  if (const auto* a = ir::as<ir::AssignStmt>(&s)) e = a->value.get();
  if (const auto* ev = ir::as<ir::EvalStmt>(&s)) e = ev->expr.get();
  const auto* c = e ? ir::as<ir::Call>(e) : nullptr;
  return c && ir::isa<ir::GlobalVar>(*c->op) ? c : nullptr;
}

class Expander {
 public:
  explicit Expander(const ir::Program& program) : program_(program), lineage_(&program) {
    for (const auto& e : program.functions) {
      taken_.emplace(e.name, true);
      if (e.function->body)
        ir::for_each_node(ir::NodeRef(e.function->body), [&](const ir::Node& n) {
          const ir::Op* op = nullptr;
          if (const auto* c = ir::as<ir::Call>(&n)) op = c->op.get();
          if (const auto* s = ir::as<ir::Submit>(&n)) op = s->op.get();
          if (op && ir::isa<ir::GlobalVar>(*op)) ++calls_[op->name];
        });
    }
  }

  ir::ProgramRef run() {
    std::vector<ir::FunctionRef> out;
    std::unordered_map<std::string, ir::FunctionRef> replaced;  // looked up, never iterated
    bool changed = false;
    for (const auto& e : program_.functions) {
      const ir::Function& g = *e.function;
      if (g.func_type != ir::FunctionType::Group || !g.body) continue;
      changed = expand(g, replaced, out) || changed;
    }
    if (!changed) return ir::ProgramRef(&program_);
    for (const auto& e : program_.functions) {
      auto it = replaced.find(e.name);
      out.push_back(it == replaced.end() ? e.function : it->second);
    }
    return ir::Program::make(program_.name, std::move(out));
  }

 private:
  /// Normalizes Group `g`; its new body and in-place members go to `replaced`, private copies
  /// to `added`. False when `g` needs nothing (or is not a straight list of member calls).
  bool expand(const ir::Function& g, std::unordered_map<std::string, ir::FunctionRef>& replaced,
              std::vector<ir::FunctionRef>& added) {
    const std::vector<ir::StmtRef> stmts = top_level(g.body);
    std::vector<MemberCall> members;
    for (std::size_t i = 0; i < stmts.size(); ++i) {
      const ir::Call* c = launch_of(*stmts[i]);
      if (!c) continue;  // projections, op calls (sync_set, ...), the return
      ir::FunctionRef callee = program_.find(c->op->name);
      if (!callee || !ir::is_incore_type(callee->func_type) || !callee->body ||
          c->args.size() != callee->params.size())
        return false;
      members.push_back({i, c, callee, {}});
    }
    if (members.empty() || normalized(g, members)) return false;

    ::pypto::detail::PointerMap<Slot> results;         // member result Var -> its Group slot
    ::pypto::detail::PointerMap<std::size_t> call_of;  // member result Var -> index in members
    for (std::size_t m = 0, next_stmt = 0; m < members.size(); ++m) {
      // Projections `x = r[k]` between calls bind x to the slot r's callee returns in k.
      for (; next_stmt < members[m].stmt; ++next_stmt)
        project(stmts[next_stmt], results, call_of, members);
      MemberCall& mc = members[m];
      for (std::size_t k = 0; k < mc.call->args.size(); ++k)
        mc.slots.push_back(resolve(g, mc, k, results, call_of, members));
      if (const auto* a = ir::as<ir::AssignStmt>(stmts[mc.stmt].get())) {
        call_of.insert(a->var.get(), m);
        if (auto s = returned_slot(mc, 0, mc.callee->return_types.size() == 1))
          results.insert(a->var.get(), *s);
      }
      next_stmt = mc.stmt + 1;
    }

    // Members whose every call is in this Group with one binding are rewritten in place.
    std::unordered_map<std::string, std::size_t> calls_here;  // looked up, never iterated
    for (const auto& mc : members) ++calls_here[mc.callee->name];
    std::set<std::string> claimed;
    ReferenceRenamer::Renames renames;
    std::vector<std::string> names(members.size());
    std::vector<ir::FunctionRef> normalized_members(members.size());
    for (std::size_t m = 0; m < members.size(); ++m) {
      const MemberCall& mc = members[m];
      const std::size_t first = first_call(members, m);
      if (first != m) {  // an earlier call with the same binding: reuse its function
        names[m] = names[first];
        continue;
      }
      // The first binding of a kernel only this Group calls takes the kernel itself.
      const bool in_place = calls_[mc.callee->name] == calls_here[mc.callee->name] &&
                            replaced.find(mc.callee->name) == replaced.end() &&
                            claimed.insert(mc.callee->name).second;
      names[m] = in_place ? mc.callee->name : fresh_name(g.name + "_" + mc.callee->name);
      if (!in_place) renames.emplace(mc.callee->name, names[m]);
      ir::FunctionRef f = normalize(g, mc, names[m]);
      normalized_members[m] = in_place ? f : fresh_copy(*f, names[m]);
    }
    // A copied member's siblings name it by its new name (peer_func).
    ReferenceRenamer renamer(renames);
    for (std::size_t m = 0; m < members.size(); ++m) {
      if (!normalized_members[m]) continue;
      ir::FunctionRef f =
          renames.empty() ? normalized_members[m] : renamer.function(normalized_members[m]);
      if (names[m] == members[m].callee->name)
        replaced[names[m]] = f;
      else
        added.push_back(f);
    }

    // The Group passes its own parameters to every member.
    std::vector<ir::ExprRef> params(g.params.begin(), g.params.end());
    std::vector<ir::StmtRef> body = stmts;
    for (std::size_t m = 0; m < members.size(); ++m) {
      const ir::Call& c = *members[m].call;
      ir::ExprRef call =
          ir::Call::make(ir::GlobalVar::make(names[m]), params, c.type, c.kwargs, c.attrs, c.span);
      const ir::StmtRef& s = stmts[members[m].stmt];
      if (const auto* a = ir::as<ir::AssignStmt>(s.get()))
        body[members[m].stmt] = ir::AssignStmt::make(a->var, call, a->span);
      else
        body[members[m].stmt] = ir::EvalStmt::make(call, s->span);
    }
    auto group = ir::copy_node(g);
    group->body = ir::SeqStmts::make(std::move(body), g.body->span);
    replaced[g.name] = group;
    return true;
  }

  /// True when every member already takes exactly the Group's parameters.
  static bool normalized(const ir::Function& g, const std::vector<MemberCall>& members) {
    for (const auto& mc : members) {
      if (mc.call->args.size() != g.params.size()) return false;
      for (std::size_t i = 0; i < g.params.size(); ++i)
        if (mc.call->args[i].get() != g.params[i].get()) return false;
    }
    return true;
  }

  static bool same_slots(const MemberCall& a, const MemberCall& b) {
    if (a.callee.get() != b.callee.get() || a.slots.size() != b.slots.size()) return false;
    for (std::size_t i = 0; i < a.slots.size(); ++i) {
      if (a.slots[i].param != b.slots[i].param) return false;
      if (a.slots[i].constant.get() != b.slots[i].constant.get()) return false;
    }
    return true;
  }

  /// The first member call with the same callee and binding as call m.
  static std::size_t first_call(const std::vector<MemberCall>& members, std::size_t m) {
    for (std::size_t i = 0; i < m; ++i)
      if (same_slots(members[i], members[m])) return i;
    return m;
  }

  /// Binds `x = r[k]` (r a member's tuple result) to the slot r's callee returns in k.
  void project(const ir::StmtRef& s, ::pypto::detail::PointerMap<Slot>& results,
               const ::pypto::detail::PointerMap<std::size_t>& call_of,
               const std::vector<MemberCall>& members) {
    const auto* a = ir::as<ir::AssignStmt>(s.get());
    const auto* item = a ? ir::as<ir::TupleGetItem>(a->value.get()) : nullptr;
    const auto* tuple = item ? ir::as<ir::Var>(item->tuple.get()) : nullptr;
    const std::size_t* m = tuple ? call_of.find(tuple) : nullptr;
    if (!m || item->index < 0) return;
    if (auto slot = returned_slot(members[*m], static_cast<std::size_t>(item->index), true))
      results.insert(a->var.get(), *slot);
  }

  /// The Group slot of return position k of a member call, when the callee returns one of its
  /// parameters there (and `applies`).
  std::optional<Slot> returned_slot(const MemberCall& mc, std::size_t k, bool applies) {
    if (!applies) return std::nullopt;
    const std::vector<ReturnLineage::ParamIndex> ret = lineage_.returned_params(*mc.callee);
    if (k >= ret.size() || !ret[k] || *ret[k] >= mc.slots.size()) return std::nullopt;
    return mc.slots[*ret[k]];
  }

  Slot resolve(const ir::Function& g, const MemberCall& mc, std::size_t k,
               const ::pypto::detail::PointerMap<Slot>& results,
               const ::pypto::detail::PointerMap<std::size_t>& call_of,
               const std::vector<MemberCall>& members) {
    const ir::ExprRef& a = mc.call->args[k];
    if (is_constant(a)) return {std::nullopt, a};
    if (const auto* v = ir::as<ir::Var>(a.get())) {
      for (std::size_t j = 0; j < g.params.size(); ++j)
        if (g.params[j].get() == v) return {j, nullptr};
      if (const Slot* s = results.find(v)) return *s;
      if (const std::size_t* m = call_of.find(v))
        throw MixedKernelError(g.name, mc.callee->name, k, mc.call->span,
                               "is the result of the call of '" + members[*m].callee->name +
                                   "', which is not the buffer of one of its parameters");
    }
    throw MixedKernelError(g.name, mc.callee->name, k, mc.call->span,
                           "is a value the Group computes; a mixed task's kernels take only "
                           "the Group's parameters");
  }

  /// `mc.callee` taking the Group's parameters, named `name`.
  ir::FunctionRef normalize(const ir::Function& g, const MemberCall& mc, const std::string& name) {
    const ir::Function& f = *mc.callee;
    std::vector<ir::Param> params;
    std::vector<bool> used(f.params.size(), false);
    Substitution subst;
    bool substituted = false;
    for (std::size_t j = 0; j < g.params.size(); ++j) {
      std::optional<std::size_t> first;
      for (std::size_t i = 0; i < f.params.size(); ++i) {
        if (mc.slots[i].param != j) continue;
        used[i] = true;
        if (!first) {
          first = i;
        } else {
          subst.set(*f.params[i], f.params[*first]);
          substituted = true;
        }
      }
      if (first)
        params.push_back({f.params[*first], f.param_directions[*first]});
      else
        params.push_back(
            {ir::Var::make(g.params[j]->name_hint, g.params[j]->type, g.params[j]->span),
             ir::ParamDirection::In});
    }
    for (std::size_t i = 0; i < f.params.size(); ++i)
      if (!used[i]) {  // a constant argument
        subst.set(*f.params[i], mc.slots[i].constant);
        substituted = true;
      }
    auto out = ir::copy_node(f);
    out->name = name;
    out->params.clear();
    out->param_directions.clear();
    for (auto& p : params) {
      out->params.push_back(std::move(p.var));
      out->param_directions.push_back(p.direction);
    }
    if (substituted) out->body = subst.stmt(f.body);
    return out;
  }

  std::string fresh_name(const std::string& base) {
    std::string name = base;
    for (int k = 2; taken_.count(name) != 0; ++k) name = base + "_" + std::to_string(k);
    taken_.emplace(name, true);
    return name;
  }

  const ir::Program& program_;
  ReturnLineage lineage_;
  std::unordered_map<std::string, std::size_t> calls_;  // callee name -> calls in the program
  std::unordered_map<std::string, bool> taken_;         // function names, looked up only
};

}  // namespace detail::mixed

PYPTO_DECL Pass ExpandMixedKernels() {
  return Pass("expand-mixed-kernels", {Property::SSAForm, Property::ClusterOutlined}, {}, {},
              [](const ir::Program& p) { return detail::mixed::Expander(p).run(); });
}

}  // namespace pypto::transforms
