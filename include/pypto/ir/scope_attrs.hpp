// pypto/ir/scope_attrs.hpp — the attribute keys a scope statement's surface options become.
//
// `with pl.at(level=pl.Level.CORE_GROUP, deps=[t0], no_dep_args=[kv], dumps=[x],
// optimizations=[pl.cross_core_slot(slot_num=2)], allow_early_resolve=True, windowize=True)
// as tid:`, the `predicate=` of a `pl.spmd` and the `pl.set_cache_policy(t, p)` markers of its
// body are carried in ScopeStmt::attrs under the keys below (upstream PyPTO's
// names), so every generic walk (comparison, hashing, binding checks, SSA renaming) sees the
// variables they reference as ordinary uses. The outliners consume them: a Var-keyed list
// becomes parameter indices on the outlined function or the dispatching call.
// The printer writes them back in their surface form; the parser reads that form.
#pragma once

#include <string_view>
#include <vector>

#include "pypto/ir/attrs.hpp"
#include "pypto/ir/node.hpp"

namespace pypto::ir::scope_attr {

/// `deps=[t0, ...]`: Scalar[TASK_ID] expressions the scope's task waits for (a list of Exprs).
inline constexpr std::string_view kDeps = "deps";
/// `no_dep_args=[v, ...]`: captured tensors exempt from dependency tracking (a list of Vars).
inline constexpr std::string_view kNoDepVars = "arg_direction_overrides_vars";
/// `dumps=[v, ...]`: tensors tagged for dumping; bookkeeping, never a read (a list of Vars).
inline constexpr std::string_view kDumpVars = "dump_vars";
/// `pl.set_cache_policy(v, policy)` markers: a list of [Var, CachePolicy] pairs.
inline constexpr std::string_view kCachePolicyVars = "cache_policy_vars";
/// `optimizations=[pl.cross_core_slot(slot_num=N)]`: the cross-core pipe depth (an int).
inline constexpr std::string_view kSlotNum = "slot_num";
/// `allow_early_resolve=True` on a CORE_GROUP `pl.at` or a `pl.spmd`: the speculative
/// early-dispatch opt-in the outliner moves onto the dispatching Submit (a bool, present only
/// when true).
inline constexpr std::string_view kAllowEarlyResolve = "allow_early_resolve";
/// `windowize=True` on a CORE_GROUP `pl.at`: the kernel's opt-in to local windowization (a
/// bool, present only when true).
inline constexpr std::string_view kWindowize = "windowize";
/// `predicate=e` on a `pl.spmd`: the dispatch predicate (a BOOL scalar Expr) the outliner
/// moves onto the dispatching Submit.
inline constexpr std::string_view kPredicate = "predicate";

/// The expressions of a list-valued key (empty when absent); non-expression items are skipped.
inline std::vector<ExprRef> exprs(const Attrs& attrs, std::string_view key) {
  std::vector<ExprRef> out;
  const AttrValue* v = attrs.find(key);
  const auto* list = v ? v->get_if<AttrValueList>() : nullptr;
  if (!list) return out;
  for (const AttrValue& item : *list)
    if (const auto* e = item.get_if<ExprRef>()) out.push_back(*e);
  return out;
}

/// The expression of a single-valued key (null when absent or not an expression).
inline ExprRef expr(const Attrs& attrs, std::string_view key) {
  const AttrValue* v = attrs.find(key);
  const auto* e = v ? v->get_if<ExprRef>() : nullptr;
  return e ? *e : ExprRef();
}

/// True for the keys the surface syntax writes outside `attrs={...}`.
constexpr bool is_surface_key(std::string_view key) {
  return key == kDeps || key == kNoDepVars || key == kDumpVars || key == kCachePolicyVars ||
         key == kSlotNum || key == kAllowEarlyResolve || key == kWindowize || key == kPredicate;
}

}  // namespace pypto::ir::scope_attr
