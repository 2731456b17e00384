// pypto/transforms/outline_properties.ipp — the definitions of transforms/outline_properties.hpp.
//
// OutlineIncoreScopes and OutlineClusterScopes establish the facts below; each
// `find_<property>_violation(program)` returns the first violation of one of them, as
// `function: what, where` with the field path (and line:column) of the offending statement and
// the name of the offending variable, or nullopt when the property holds:
//   SplitIncoreOrch       no InCoreScopeStmt is left anywhere; nested ones (in another InCore
//                         scope, or in an InCore/AIC/AIV function: upstream's NoNestedInCore)
//                         are reported before plain leftovers;
//   ClusterOutlined       no ClusterScopeStmt is left (one in an InCore/AIC/AIV function is
//                         reported first), and no SpmdScopeStmt in an Opaque or Orchestration
//                         function (a standalone spmd scope becomes a Function(Spmd) wrapper);
//   NoScalarKernelReturn  InCore, AIC, AIV, Group and Spmd functions declare no Scalar return
//                         type, at any tuple depth, Scalar[TASK_ID] included;
//   ReturnParamsExplicit  in those functions a returned tensor Var that is a parameter's buffer
//                         (return_lineage.hpp: through written arguments of registered ops,
//                         callees' Out/InOut slots, loop carries, ifs) is that parameter Var;
//   AivSplitValid         SplitAivScopeStmt regions sit only in InCore/AIC/AIV functions or in
//                         InCoreScopeStmt bodies, never in each other, over count 2, never in a
//                         scope that also has an AUTO split; an InCore function's attrs agree
//                         with the regions it owns (those not inside an InCore scope of its
//                         own): `split_aiv` is True exactly when it owns some, and `split` is
//                         their mode when all share one real mode, else absent.
// Every verifier is O(statements) (ReturnParamsExplicit: per function reached, see
// return_lineage.hpp); statements are walked iteratively, so any depth is fine.
#pragma once

#include "pypto/transforms/outline_properties.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/text/call_types.hpp"
#include "pypto/transforms/return_lineage.hpp"
#include "pypto/transforms/stmt_tree.hpp"

namespace pypto::transforms {

namespace detail {

/// `InCoreScopeStmt 'fused' at body.stmts[2] (5:9)`.
inline std::string describe_stmt(const StmtTree& tree, std::size_t id) {
  const ir::Stmt& s = tree.stmt(id);
  std::string out(ir::kind_name(s.kind()));
  if (const auto* scope = ir::as<ir::ScopeStmt>(&s); scope && !scope->name_hint.empty())
    out += " '" + scope->name_hint + "'";
  return out + " at " + tree.where(id);
}

/// `InCore function 'k'`.
inline std::string describe_function(const ir::Function& fn) {
  return std::string(ir::enum_name(fn.func_type)) + " function '" + fn.name + "'";
}

/// `pl.Scalar[pl.INDEX]`.
inline std::string scalar_text(const ir::ScalarType& t) {
  return "pl.Scalar[pl." + std::string(core::dtype_name(t.dtype)) + "]";
}

inline std::string split_text(const ir::AttrValue* v) {
  if (!v) return "absent";
  const auto* e = v->get_if<ir::EnumValue>();
  if (!e || !e->holds<ir::SplitMode>()) return "not a pl.SplitMode";
  return "pl.SplitMode." + std::string(ir::enum_value_name(*e));
}

}  // namespace detail

// ---- SplitIncoreOrch ---------------------------------------------------------------------------

PYPTO_DECL std::optional<std::string> find_split_incore_orch_violation(const ir::Program& program) {
  std::optional<std::string> leftover;
  for (const auto& [name, fn] : program.functions) {
    const StmtTree tree(*fn);
    for (std::size_t id = 0; id < tree.size(); ++id) {
      if (!ir::isa<ir::InCoreScopeStmt>(tree.stmt(id))) continue;
      const std::string what = name + ": the " + detail::describe_stmt(tree, id);
      if (is_kernel_function(fn->func_type))
        return what + " is inside " + detail::describe_function(*fn) +
               "; a kernel cannot hold an InCore scope (NoNestedInCore)";
      if (const std::size_t outer = tree.enclosing<ir::InCoreScopeStmt>(id);
          outer != StmtTree::npos)
        return what + " is nested in the " + detail::describe_stmt(tree, outer) +
               " (NoNestedInCore)";
      if (!leftover)
        leftover = what +
                   " was not outlined; OutlineIncoreScopes turns every InCore scope into a "
                   "Function(InCore) and a call";
    }
  }
  return leftover;
}

// ---- ClusterOutlined ---------------------------------------------------------------------------

PYPTO_DECL std::optional<std::string> find_cluster_outlined_violation(const ir::Program& program) {
  std::optional<std::string> leftover;
  for (const auto& [name, fn] : program.functions) {
    const StmtTree tree(*fn);
    const bool host = fn->func_type == ir::FunctionType::Opaque ||
                      fn->func_type == ir::FunctionType::Orchestration;
    for (std::size_t id = 0; id < tree.size(); ++id) {
      const ir::Stmt& s = tree.stmt(id);
      if (ir::isa<ir::ClusterScopeStmt>(s)) {
        if (is_kernel_function(fn->func_type))
          return name + ": the " + detail::describe_stmt(tree, id) + " is inside " +
                 detail::describe_function(*fn) +
                 "; a cluster groups kernels and cannot sit in one";
        if (!leftover)
          leftover = name + ": the " + detail::describe_stmt(tree, id) +
                     " was not outlined; OutlineClusterScopes turns every cluster scope into a "
                     "Function(Group) and a call";
      } else if (ir::isa<ir::SpmdScopeStmt>(s) && host && !leftover) {
        leftover = name + ": the " + detail::describe_stmt(tree, id) + " is still in " +
                   detail::describe_function(*fn) +
                   "; OutlineClusterScopes wraps a standalone spmd scope into a Function(Spmd)";
      }
    }
  }
  return leftover;
}

// ---- NoScalarKernelReturn ----------------------------------------------------------------------

PYPTO_DECL std::optional<std::string> find_no_scalar_kernel_return_violation(
    const ir::Program& program) {
  for (const auto& [name, fn] : program.functions) {
    if (!is_device_function(fn->func_type)) continue;
    for (std::size_t i = 0; i < fn->return_types.size(); ++i) {
      // (type, position text), depth first in element order; an explicit stack for any depth.
      std::vector<std::pair<const ir::Type*, std::string>> stack{
          {fn->return_types[i].get(), "return type " + std::to_string(i)}};
      while (!stack.empty()) {
        auto [type, where] = std::move(stack.back());
        stack.pop_back();
        if (const auto* scalar = ir::as<ir::ScalarType>(type))
          return name + ": " + where + " is " + detail::scalar_text(*scalar) + "; " +
                 detail::describe_function(*fn) +
                 " cannot return a scalar (the runtime passes scalars in by value and returns "
                 "only tensors): write it into a [1] tensor output and read it back with "
                 "pl.tensor.read(t, [0])";
        if (const auto* tuple = ir::as<ir::TupleType>(type))
          for (std::size_t k = tuple->types.size(); k-- > 0;)
            stack.emplace_back(tuple->types[k].get(), where + ", element " + std::to_string(k));
      }
    }
  }
  return std::nullopt;
}

// ---- ReturnParamsExplicit ----------------------------------------------------------------------

PYPTO_DECL std::optional<std::string> find_return_params_explicit_violation(
    const ir::Program& program, const ir::OpRegistry& ops) {
  ReturnLineage lineage(&program, ops);
  for (const auto& [name, fn] : program.functions) {
    if (!is_device_function(fn->func_type)) continue;
    const StmtTree tree(*fn);
    for (std::size_t id = 0; id < tree.size(); ++id) {
      const auto* ret = ir::as<ir::ReturnStmt>(&tree.stmt(id));
      if (!ret) continue;
      for (std::size_t k = 0; k < ret->values.size(); ++k) {
        const auto* v = ir::as<ir::Var>(ret->values[k].get());
        if (!v || !ir::isa<ir::TensorType>(*v->type)) continue;
        const std::optional<std::size_t> p = lineage.param_of(*fn, *v);
        if (!p || fn->params[*p].get() == v) continue;
        const std::string& param = fn->params[*p]->name_hint;
        return name + ": return value " + std::to_string(k) + " '" + v->name_hint + "' of the " +
               detail::describe_stmt(tree, id) + " is the buffer of parameter " +
               std::to_string(*p) + " '" + param +
               "' but not that parameter; a kernel returns the parameter it writes through "
               "(return '" +
               param + "' itself)";
      }
    }
  }
  return std::nullopt;
}

// ---- AivSplitValid -----------------------------------------------------------------------------

namespace detail {

/// The attr check (split_aiv, split) of an InCore function whose own regions (not inside an
/// InCore scope) are `regions`.
inline std::optional<std::string> check_split_attrs(const ir::Function& fn, const StmtTree& tree,
                                                    const std::vector<std::size_t>& regions) {
  const std::string head = fn.name + ": ";
  const ir::AttrValue* split_aiv = fn.attrs.find("split_aiv");
  const ir::AttrValue* split = fn.attrs.find("split");
  if (split) {
    const auto* e = split->get_if<ir::EnumValue>();
    if (!e || !e->holds<ir::SplitMode>())
      return head + "attr split is " + split_text(split) + "; it must be a pl.SplitMode";
  }
  if (regions.empty()) {
    if (split_aiv)
      return head + "attr split_aiv is set but the body holds no split_aiv region; the key is " +
             "stamped only on a function that holds regions";
    return std::nullopt;
  }
  const std::string first = "the " + describe_stmt(tree, regions.front());
  const auto* flag = split_aiv ? split_aiv->get_if<bool>() : nullptr;
  if (!flag || !*flag)
    return head + "holds split_aiv regions (first: " + first + ") but attr split_aiv is " +
           (split_aiv ? "not True" : "absent") + "; it must be True";
  // The representative mode: the one real mode every region shares, else none.
  const ir::SplitMode mode0 =
      static_cast<const ir::SplitAivScopeStmt&>(tree.stmt(regions[0])).split;
  std::optional<ir::SplitMode> uniform;
  std::string why = "all have mode NONE";
  if (mode0 != ir::SplitMode::None) uniform = mode0;
  for (std::size_t r : regions) {
    const ir::SplitMode m = static_cast<const ir::SplitAivScopeStmt&>(tree.stmt(r)).split;
    if (m == mode0) continue;
    uniform.reset();
    why = "have different modes (" + std::string(ir::enum_name(mode0)) + " in " + first + ", " +
          std::string(ir::enum_name(m)) + " in the " + describe_stmt(tree, r) + ")";
    break;
  }
  const std::optional<ir::SplitMode> stamped =
      split ? split->get_if<ir::EnumValue>()->get<ir::SplitMode>() : std::nullopt;
  if (uniform && stamped != uniform)
    return head + "every split_aiv region has mode " + std::string(ir::enum_name(*uniform)) +
           " (first: " + first + "), so attr split must be pl.SplitMode." +
           std::string(ir::enum_name(*uniform)) + "; it is " + split_text(split);
  if (!uniform && stamped)
    return head + "its split_aiv regions " + why +
           ", so the function has no representative mode and no split attr; it has split = " +
           split_text(split);
  return std::nullopt;
}

}  // namespace detail

PYPTO_DECL std::optional<std::string> find_aiv_split_valid_violation(const ir::Program& program) {
  for (const auto& [name, fn] : program.functions) {
    const StmtTree tree(*fn);
    std::vector<std::size_t> own_regions;  // not inside an InCore scope: the function's own
    for (std::size_t id = 0; id < tree.size(); ++id) {
      const auto* region = ir::as<ir::SplitAivScopeStmt>(&tree.stmt(id));
      if (!region) continue;
      const std::string what = name + ": the " + detail::describe_stmt(tree, id);
      if (const std::size_t outer = tree.enclosing<ir::SplitAivScopeStmt>(id);
          outer != StmtTree::npos)
        return what + " is nested in the " + detail::describe_stmt(tree, outer) +
               "; split_aiv regions do not nest";
      if (region->count != 2)
        return what + " has count " + std::to_string(region->count) +
               "; a split is over the two vector cores (count 2)";
      const std::size_t scope = tree.enclosing<ir::InCoreScopeStmt>(id);
      if (scope == StmtTree::npos) {
        if (!is_kernel_function(fn->func_type))
          return what + " is outside any InCore scope, in " + detail::describe_function(*fn) +
                 "; a split_aiv region splits an InCore region over the two vector cores";
        own_regions.push_back(id);
        continue;
      }
      const auto& incore = static_cast<const ir::InCoreScopeStmt&>(tree.stmt(scope));
      if (incore.split != ir::SplitMode::None)
        return name + ": the " + detail::describe_stmt(tree, scope) +
               " has an AUTO split (optimizations=[pl.split(pl.SplitMode." +
               std::string(ir::enum_name(incore.split)) + ")]) and holds the " +
               detail::describe_stmt(tree, id) +
               "; an AUTO split and explicit pl.split_aiv regions are mutually exclusive in one "
               "scope";
    }
    if (fn->func_type == ir::FunctionType::InCore)
      if (auto violation = detail::check_split_attrs(*fn, tree, own_regions)) return violation;
  }
  return std::nullopt;
}

}  // namespace pypto::transforms
