// pypto/transforms/normalize_return_order.ipp — the definitions of
// transforms/normalize_return_order.hpp.
#pragma once

#include "pypto/transforms/normalize_return_order.hpp"

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/transforms/body_slots.hpp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/property.hpp"
#include "pypto/transforms/return_lineage.hpp"
#include "pypto/transforms/substitute.hpp"

namespace pypto::transforms {

namespace detail::return_order {

/// `new position = permutation[old position]` of one kernel's results.
using Permutation = std::vector<std::size_t>;
using Permutations = std::map<std::string, Permutation, std::less<>>;

/// Step 1: `s` with every ReturnStmt's tensor value that is provably a parameter's buffer (but
/// not the parameter) replaced by the parameter — `o1 = pl.store(t, [0], o); return o1` returns
/// `o`. The same buffer, so the meaning is unchanged.
inline ir::StmtRef explicit_return_params(const ir::StmtRef& s, const ir::Function& fn,
                                          ReturnLineage& lineage) {
  if (const auto* ret = ir::as<ir::ReturnStmt>(s.get())) {
    std::vector<ir::ExprRef> values = ret->values;
    bool changed = false;
    for (auto& v : values) {
      const auto* var = ir::as<ir::Var>(v.get());
      if (!var || !ir::isa<ir::TensorType>(*var->type)) continue;
      const std::optional<std::size_t> p = lineage.param_of(fn, *var);
      if (!p || fn.params[*p].get() == var) continue;
      v = fn.params[*p];
      changed = true;
    }
    if (!changed) return s;
    auto copy = ir::copy_node(*ret);  // keeps the statement's comments
    copy->values = std::move(values);
    return copy;
  }
  return map_children(s,
                      [&](const ir::StmtRef& c) { return explicit_return_params(c, fn, lineage); });
}

/// Step 2's order for an InCore function: each return position whose value is an Out / InOut
/// parameter's buffer moves to that parameter's rank among them, any other keeps its place.
/// Empty (no change) when it is the identity, when there are fewer returns than output
/// parameters, or when two positions would meet (as upstream PyPTO computes it).
inline Permutation return_permutation(const ir::Function& fn, ReturnLineage& lineage) {
  if (fn.func_type != ir::FunctionType::InCore || !fn.body) return {};
  const std::vector<ReturnLineage::ParamIndex> returned = lineage.returned_params(fn);
  if (returned.size() != fn.return_types.size() || returned.size() < 2) return {};
  std::vector<std::optional<std::size_t>> rank(fn.params.size());
  std::size_t outputs = 0;
  for (std::size_t i = 0; i < fn.param_directions.size(); ++i)
    if (fn.param_directions[i] != ir::ParamDirection::In) rank[i] = outputs++;
  if (outputs == 0 || outputs > returned.size()) return {};
  Permutation perm(returned.size());
  std::vector<bool> taken(returned.size(), false);
  bool identity = true;
  for (std::size_t k = 0; k < returned.size(); ++k) {
    const std::optional<std::size_t>& p = returned[k];
    perm[k] = p && rank[*p] ? *rank[*p] : k;
    if (taken[perm[k]]) return {};
    taken[perm[k]] = true;
    identity = identity && perm[k] == k;
  }
  return identity ? Permutation{} : perm;
}

/// `types` with its first `perm.size()` elements moved by `perm` (a submit's task id stays).
inline std::vector<ir::TypeRef> permuted(const std::vector<ir::TypeRef>& types,
                                         const Permutation& perm) {
  std::vector<ir::TypeRef> out = types;
  for (std::size_t k = 0; k < perm.size() && k < types.size(); ++k) out[perm[k]] = types[k];
  return out;
}

/// Step 2 on one function: every ReturnStmt's values and the declared return types reordered.
inline ir::FunctionRef reorder_returns(const ir::FunctionRef& fn, const Permutation& perm) {
  struct Reorder {
    const Permutation& perm;
    ir::StmtRef operator()(const ir::StmtRef& s) const {
      const auto* ret = ir::as<ir::ReturnStmt>(s.get());
      if (!ret) return map_children(s, *this);
      if (ret->values.size() != perm.size())
        throw core::InternalError("normalize-return-order: a return of " +
                                  std::to_string(ret->values.size()) + " values in a kernel of " +
                                  std::to_string(perm.size()) + " results");
      auto copy = ir::copy_node(*ret);
      for (std::size_t k = 0; k < perm.size(); ++k) copy->values[perm[k]] = ret->values[k];
      return copy;
    }
  };
  auto copy = ir::copy_node(*fn);
  copy->body = Reorder{perm}(fn->body);
  copy->return_types = permuted(fn->return_types, perm);
  return copy;
}

/// Step 3 on one function: a call or submit of a reordered kernel gets the reordered result type,
/// the Var it binds is re-made with that type, and each `r[i]` reads `r[perm[i]]`. A reordered
/// call reached anywhere else, or its result Var used other than by `r[i]`, is recorded in
/// `escaped` (the kernel must keep its order) and left as it is. Shared nodes are rebuilt once.
class ResultReads : private FieldRewriter<ResultReads> {
  friend class FieldRewriter<ResultReads>;

 public:
  ResultReads(const Permutations& perms, std::set<std::string, std::less<>>& escaped)
      : perms_(perms), escaped_(escaped) {}

  ir::StmtRef body(const ir::StmtRef& s) {
    ir::NodeRef out = node(s.get());
    return out ? ir::StmtRef(static_cast<const ir::Stmt*>(out.get())) : s;
  }

 private:
  struct Rebound {
    ir::VarRef var;
    const Permutation* perm;
    std::string callee;
  };

  template <class T>
  bool rewrite_handle(const ir::Ref<const T>& in, ir::Ref<const T>& out) {
    ir::NodeRef done = node(in.get());
    if (!done) return false;
    out = ir::Ref<const T>(static_cast<const T*>(done.get()));
    return true;
  }

  /// The function `e` calls or submits, or "" when it is no call of a program function.
  static const std::string& callee_name(const ir::Node& e) {
    static const std::string none;
    const ir::Op* op = nullptr;
    if (const auto* c = ir::as<ir::Call>(&e)) op = c->op.get();
    if (const auto* c = ir::as<ir::Submit>(&e)) op = c->op.get();
    return op && ir::isa<ir::GlobalVar>(*op) ? op->name : none;
  }

  /// The permutation of the kernel `e` calls or submits, or null.
  const Permutation* reordered_callee(const ir::Node& e) const {
    const std::string& name = callee_name(e);
    auto it = name.empty() ? perms_.end() : perms_.find(name);
    return it == perms_.end() ? nullptr : &it->second;
  }

  /// `e` (a reordered call or submit) with its arguments rewritten and its result type
  /// reordered.
  ir::ExprRef reordered_call(const ir::ExprRef& e, const Permutation& perm) {
    return ir::visit(*e, [&](const auto& concrete) -> ir::ExprRef {
      using N = std::remove_cvref_t<decltype(concrete)>;
      if constexpr (std::is_same_v<N, ir::Call> || std::is_same_v<N, ir::Submit>) {
        auto copy = rebuilt(concrete);
        if (!copy) copy = ir::copy_node(concrete);
        const auto* tuple = ir::as<ir::TupleType>(concrete.type.get());
        if (!tuple)
          throw core::InternalError("normalize-return-order: a call of '" + concrete.op->name +
                                    "', a kernel of several results, is not tuple-typed");
        copy->type = ir::TupleType::make(permuted(tuple->types, perm));
        return copy;
      } else {
        return e;
      }
    });
  }

  /// The read `r[i]` of a rebound result `r`, or of a reordered call itself, or null.
  ir::NodeRef result_read(const ir::TupleGetItem& get) {
    const auto* var = ir::as<ir::Var>(get.tuple.get());
    if (const Rebound* r = var ? rebound_.find(var) : nullptr)
      return ir::TupleGetItem::make(r->var, moved(get.index, *r->perm), get.span);
    if (const Permutation* perm = reordered_callee(*get.tuple))
      return ir::TupleGetItem::make(reordered_call(get.tuple, *perm), moved(get.index, *perm),
                                    get.span);
    return nullptr;
  }
  static std::int64_t moved(std::int64_t index, const Permutation& perm) {
    const auto k = static_cast<std::size_t>(index);
    return k < perm.size() ? static_cast<std::int64_t>(perm[k]) : index;
  }

  /// `n` rewritten, or null when nothing in it changes.
  ir::NodeRef node(const ir::Node* n) {
    if (const auto* v = ir::as<ir::Var>(n))
      if (const Rebound* r = rebound_.find(v)) {  // a use of a whole reordered result
        escaped_.insert(r->callee);
        return nullptr;
      }
    const bool shared = n->use_count() > 1;
    if (shared)
      if (const ir::NodeRef* done = memo_.find(n)) return *done;
    if (++depth_ > core::kMaxNesting)
      throw core::ValueError("normalize-return-order: IR nested deeper than " +
                             std::to_string(core::kMaxNesting) + " levels is not supported");
    ir::NodeRef out = ir::visit(*n, [&](const auto& concrete) -> ir::NodeRef {
      using N = std::remove_cvref_t<decltype(concrete)>;
      if constexpr (std::is_same_v<N, ir::AssignStmt>) {
        if (const Permutation* perm = reordered_callee(*concrete.value)) {
          auto copy = ir::copy_node(concrete);
          copy->value = reordered_call(concrete.value, *perm);
          copy->var = ir::Var::make(concrete.var->name_hint, copy->value->type, concrete.var->span);
          rebound_.insert(concrete.var.get(), Rebound{copy->var, perm, callee_name(*copy->value)});
          return copy;
        }
      } else if constexpr (std::is_same_v<N, ir::EvalStmt>) {
        if (const Permutation* perm = reordered_callee(*concrete.expr)) {
          auto copy = ir::copy_node(concrete);
          copy->expr = reordered_call(concrete.expr, *perm);
          return copy;
        }
      } else if constexpr (std::is_same_v<N, ir::TupleGetItem>) {
        if (ir::NodeRef read = result_read(concrete)) return read;
      } else if constexpr (std::is_same_v<N, ir::Call> || std::is_same_v<N, ir::Submit>) {
        if (reordered_callee(concrete)) escaped_.insert(callee_name(concrete));
      }
      auto copy = rebuilt(concrete);
      return copy ? ir::NodeRef(copy) : nullptr;
    });
    --depth_;
    if (shared) memo_.insert(n, out);
    return out;
  }

  const Permutations& perms_;
  std::set<std::string, std::less<>>& escaped_;
  ::pypto::detail::PointerMap<Rebound> rebound_;   // old result Var -> its rebinding
  ::pypto::detail::PointerMap<ir::NodeRef> memo_;  // null: unchanged; looked up, never iterated
  std::size_t depth_ = 0;
};

/// The three steps on `program` (see the header).
inline ir::ProgramRef normalize(const ir::Program& program, const ir::OpRegistry& ops) {
  ReturnLineage lineage(&program, ops);
  std::vector<ir::FunctionRef> explicit_returns;  // step 1, per function
  Permutations perms;
  for (const auto& e : program.functions) {
    ir::FunctionRef f = e.function;
    if (is_device_function(f->func_type) && f->body) {
      ir::StmtRef body = explicit_return_params(f->body, *f, lineage);
      if (body != f->body) {
        auto copy = ir::copy_node(*f);
        copy->body = std::move(body);
        f = copy;
      }
    }
    if (Permutation perm = return_permutation(*e.function, lineage); !perm.empty())
      perms.emplace(e.name, std::move(perm));
    explicit_returns.push_back(std::move(f));
  }
  // Steps 2 and 3; a kernel whose whole result escapes keeps its order, and the rest are
  // redone without it (each round drops at least one kernel).
  for (;;) {
    std::set<std::string, std::less<>> escaped;
    std::vector<ir::FunctionRef> functions;
    bool changed = false;
    for (std::size_t i = 0; i < explicit_returns.size(); ++i) {
      ir::FunctionRef f = explicit_returns[i];
      if (auto it = perms.find(f->name); it != perms.end()) f = reorder_returns(f, it->second);
      if (!perms.empty() && f->body)
        if (ir::StmtRef body = ResultReads(perms, escaped).body(f->body); body != f->body) {
          auto copy = ir::copy_node(*f);
          copy->body = std::move(body);
          f = copy;
        }
      changed = changed || f != program.functions[i].function;
      functions.push_back(std::move(f));
    }
    if (escaped.empty()) {
      if (!changed) return ir::ProgramRef(&program);
      return ir::Program::make(program.name, std::move(functions));
    }
    for (const std::string& name : escaped) perms.erase(name);
  }
}

}  // namespace detail::return_order

PYPTO_DECL Pass NormalizeReturnOrder(const ir::OpRegistry& ops) {
  return Pass("normalize-return-order", {Property::SplitIncoreOrch},
              {Property::ReturnParamsExplicit}, {},
              [registry = std::make_shared<const ir::OpRegistry>(ops)](const ir::Program& p) {
                // The pass's own copy of the registry: `ops` may be a temporary.
                return detail::return_order::normalize(p, *registry);
              });
}

}  // namespace pypto::transforms
