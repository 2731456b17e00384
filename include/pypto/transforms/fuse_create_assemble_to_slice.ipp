// pypto/transforms/fuse_create_assemble_to_slice.ipp — the definitions of
// transforms/fuse_create_assemble_to_slice.hpp.
#pragma once

#include "pypto/transforms/fuse_create_assemble_to_slice.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/identical.hpp"
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
#include "pypto/transforms/use_def.hpp"

namespace pypto::transforms {

namespace detail::fuse_create_assemble {

/// Every use and binding of one function's variables, each with the statement holding it, and
/// each statement's parent (walk_uses_defs' visitor).
class Uses {
 public:
  struct Use {
    const ir::Var* var;
    Access access;
    const ir::Stmt* stmt;
  };

  void enter(const ir::Stmt& s) {
    parent_.insert(&s, stack_.empty() ? nullptr : stack_.back());
    stack_.push_back(&s);
  }
  void leave(const ir::Stmt&) { stack_.pop_back(); }
  void use(const ir::Var& v, Access a) { uses.push_back({&v, a, stack_.back()}); }
  void def(const ir::Var& v, const ir::Stmt& s) { defs.push_back({&v, Access::Write, &s}); }

  /// True when `s` is `ancestor` or nested in it.
  bool within(const ir::Stmt* s, const ir::Stmt* ancestor) const {
    while (s && s != ancestor) {
      const ir::Stmt* const* p = parent_.find(s);
      s = p ? *p : nullptr;
    }
    return s != nullptr;
  }

  std::vector<Use> uses, defs;

 private:
  ::pypto::detail::PointerMap<const ir::Stmt*> parent_;
  std::vector<const ir::Stmt*> stack_;
};

/// A create / assemble pair of one block, at positions `first` < `last`, and the slice that
/// replaces the create.
struct Pair {
  const ir::SeqStmts* block;
  std::size_t first, last;
  const ir::AssignStmt* create;
  const ir::AssignStmt* assemble;
  ir::ExprRef slice;
};

/// The fusible pairs of one Orchestration function.
class Finder {
 public:
  Finder(const ir::Function& fn, const ir::OpRegistry& ops, const CalleeTable& callees)
      : fn_(fn), ops_(ops), callees_(callees) {
    ir::for_each_node(ir::NodeRef(fn.body), [&](const ir::Node& n) {
      if (const auto* a = ir::as<ir::AssignStmt>(&n)) def_.insert(a->var.get(), a->value.get());
    });
    walk_uses_defs(*fn.body, uses_, ops, callees.lookup());
  }

  /// The pairs to fuse, in program order (of two that interleave in one block, the first).
  std::vector<Pair> pairs() {
    std::vector<Pair> out;
    for (Pair& p : candidate_pairs()) {
      bool overlaps = false;
      for (const Pair& q : out)
        overlaps = overlaps || (q.block == p.block && p.first < q.last && q.first < p.last);
      if (!overlaps && fusible(p)) out.push_back(std::move(p));
    }
    return out;
  }

 private:
  /// The buffer `v` is: the variable whose create, slice, parameter or loop carry made it,
  /// followed through copies, an assemble's or element write's result (its target) and a
  /// program call's result that returns an Out / InOut argument.
  const ir::Var* root(const ir::Var* v) {
    if (const ir::Var* const* known = roots_.find(v)) return *known;
    const ir::Var* at = v;
    for (std::size_t steps = 0; steps <= def_.size(); ++steps) {  // SSA: no cycle, but bounded
      const ir::Expr* const* d = def_.find(at);
      const ir::Expr* next = d ? aliased(**d) : nullptr;
      const auto* var = next ? ir::as<ir::Var>(next) : nullptr;
      if (!var) break;
      at = var;
    }
    roots_.insert(v, at);
    return at;
  }

  /// The expression whose buffer the value `e` is, if another's.
  const ir::Expr* aliased(const ir::Expr& e) {
    if (ir::isa<ir::Var>(e)) return &e;
    if (const auto* c = ir::as<ir::Call>(&e)) return returned_arg(*c, std::nullopt);
    if (const auto* g = ir::as<ir::TupleGetItem>(&e)) {
      const ir::Expr* const* d = g->tuple ? def_.find(g->tuple.get()) : nullptr;
      const auto* c = d ? ir::as<ir::Call>(*d) : nullptr;
      return c && g->index >= 0 ? returned_arg(*c, static_cast<std::size_t>(g->index)) : nullptr;
    }
    return nullptr;
  }

  /// The argument whose buffer result `index` (the whole result: nullopt) of `c` is, if any.
  const ir::Expr* returned_arg(const ir::Call& c, std::optional<std::size_t> index) const {
    if (c.op->id == ir::OpId::tensor_assemble || c.op->id == ir::OpId::tensor_write)
      return index || c.args.empty() ? nullptr : c.args[0].get();
    const CalleeInfo* callee = ir::isa<ir::GlobalVar>(*c.op) ? callees_.find(c.op->name) : nullptr;
    if (!callee || (!index && callee->returned_params.size() != 1)) return nullptr;
    const std::size_t k = index.value_or(0);
    if (k >= callee->returned_params.size() || !callee->returned_params[k]) return nullptr;
    const std::size_t j = *callee->returned_params[k];
    if (j >= c.args.size() || j >= callee->directions.size() ||
        callee->directions[j] == ir::ParamDirection::In)
      return nullptr;
    return c.args[j].get();
  }

  /// The call `s` binds, when it is an assignment of op `id`.
  static const ir::Call* call_of(const ir::Stmt& s, ir::OpId id) {
    const auto* a = ir::as<ir::AssignStmt>(&s);
    const auto* c = a ? ir::as<ir::Call>(a->value.get()) : nullptr;
    return c && c->op->id == id ? c : nullptr;
  }

  /// Each create whose buffer exactly one assemble of the function takes as its source, with
  /// that assemble, when it is later in the create's block.
  std::vector<Pair> candidate_pairs() {
    ::pypto::detail::PointerMap<std::size_t> sources;  // buffer -> assembles taking it
    std::vector<const ir::SeqStmts*> blocks;
    ir::for_each_node(ir::NodeRef(fn_.body), [&](const ir::Node& n) {
      if (const auto* seq = ir::as<ir::SeqStmts>(&n)) blocks.push_back(seq);
      const auto* c = ir::as<ir::Call>(&n);
      if (!c || c->op->id != ir::OpId::tensor_assemble || c->args.size() < 3) return;
      if (const auto* src = ir::as<ir::Var>(c->args[1].get())) {
        auto [count, fresh] = sources.insert(root(src), 1);
        if (!fresh) ++*count;
      }
    });
    std::vector<Pair> out;
    for (const ir::SeqStmts* b : blocks)
      for (std::size_t i = 0; i < b->stmts.size(); ++i) {
        if (!call_of(*b->stmts[i], ir::OpId::tensor_create)) continue;
        const auto* create = static_cast<const ir::AssignStmt*>(b->stmts[i].get());
        const std::size_t* n = sources.find(create->var.get());
        if (!n || *n != 1) continue;
        for (std::size_t j = i + 1; j < b->stmts.size(); ++j) {
          const ir::Call* a = call_of(*b->stmts[j], ir::OpId::tensor_assemble);
          const auto* src = a ? ir::as<ir::Var>(a->args[1].get()) : nullptr;
          if (!src || root(src) != create->var.get()) continue;
          out.push_back(
              {b, i, j, create, static_cast<const ir::AssignStmt*>(b->stmts[j].get()), {}});
          break;
        }
      }
    return out;
  }

  /// The conditions of the header, and the slice that replaces the create (set on success).
  bool fusible(Pair& p) {
    const auto& assemble = static_cast<const ir::Call&>(*p.assemble->value);
    const auto& create = static_cast<const ir::Call&>(*p.create->value);
    const ir::Var* staged = p.create->var.get();
    const auto* target = ir::as<ir::Var>(assemble.args[0].get());
    if (!target) return false;
    const ir::Var* target_root = root(target);
    if (target_root == staged) return false;
    auto between = [&](const ir::Stmt* s, bool directly) {
      for (std::size_t k = p.first + 1; k < p.last; ++k) {
        const ir::Stmt* b = p.block->stmts[k].get();
        if (directly ? s == b : uses_.within(s, b)) return true;
      }
      return false;
    };
    // The target and the offsets' variables are bound before the create.
    std::vector<const ir::Var*> needed{target};
    ir::for_each_node(ir::NodeRef(assemble.args[2]), [&](const ir::Node& n) {
      if (const auto* v = ir::as<ir::Var>(&n)) needed.push_back(v);
    });
    for (const Uses::Use& d : uses_.defs)
      if (between(d.stmt, false) || d.stmt == p.create)
        for (const ir::Var* v : needed)
          if (d.var == v) return false;
    for (const Uses::Use& u : uses_.uses) {
      const ir::Var* r = root(u.var);
      if (r == staged) {
        const bool written = u.access == Access::Write ||
                             (u.access == Access::Alias && ir::isa<ir::AssignStmt>(*u.stmt));
        if (u.stmt == p.assemble || (written && between(u.stmt, true))) continue;
        return false;
      }
      if (r == target_root && between(u.stmt, false)) return false;
    }
    // The view: the create's shape at the assemble's offsets, of the create's type.
    try {
      p.slice =
          ops_.make_call("tensor.slice", {assemble.args[0], create.args.at(0), assemble.args[2]},
                         {}, {}, p.create->value->span);
    } catch (const core::Error&) {  // a box the type rule refuses: left as written
      return false;
    }
    const auto* want = ir::as<ir::TensorType>(staged->type.get());
    const auto* got = ir::as<ir::TensorType>(p.slice->type.get());
    if (!want || !got || want->dtype != got->dtype || want->shape.size() != got->shape.size())
      return false;
    for (std::size_t k = 0; k < want->shape.size(); ++k)
      if (!ir::identical(want->shape[k], got->shape[k])) return false;
    return true;
  }

  const ir::Function& fn_;
  const ir::OpRegistry& ops_;
  const CalleeTable& callees_;
  ::pypto::detail::PointerMap<const ir::Expr*> def_;  // variable -> its assigned value
  ::pypto::detail::PointerMap<const ir::Var*> roots_;
  Uses uses_;
};

/// `s` with each fused create replaced by its slice and each fused assemble dropped.
inline ir::StmtRef rewrite(const ir::StmtRef& s,
                           const ::pypto::detail::PointerMap<ir::StmtRef>& replaced) {
  const auto* seq = ir::as<ir::SeqStmts>(s.get());
  if (!seq) return with_body_slots(s, [&](const ir::StmtRef& c) { return rewrite(c, replaced); });
  std::vector<ir::StmtRef> stmts;
  bool changed = false;
  for (const ir::StmtRef& c : seq->stmts) {
    if (const ir::StmtRef* r = replaced.find(c.get())) {
      changed = true;
      if (*r) stmts.push_back(*r);
      continue;
    }
    stmts.push_back(rewrite(c, replaced));
    changed = changed || stmts.back() != c;
  }
  if (!changed) return s;
  auto copy = ir::copy_node(*seq);  // keeps the block's comments
  copy->stmts = std::move(stmts);
  return copy;
}

/// The pass on `program` (see the header).
inline ir::ProgramRef fuse(const ir::Program& program, const ir::OpRegistry& ops) {
  ReturnLineage lineage(&program, ops);
  CalleeTable callees;
  for (const auto& e : program.functions)
    callees.set(e.function->name,
                {e.function->param_directions, lineage.returned_params(*e.function)});
  std::vector<ir::FunctionRef> functions;
  bool changed = false;
  for (const auto& e : program.functions) {
    ir::FunctionRef f = e.function;
    if (f->func_type == ir::FunctionType::Orchestration && f->body) {
      const std::vector<Pair> pairs = Finder(*f, ops, callees).pairs();
      if (!pairs.empty()) {
        ::pypto::detail::PointerMap<ir::StmtRef> replaced;
        Substitution results;  // each assemble's result is its target from there on
        for (const Pair& p : pairs) {
          replaced.insert(p.create, ir::AssignStmt::make(p.create->var, p.slice, p.create->span));
          replaced.insert(p.assemble, ir::StmtRef());
          results.set(*p.assemble->var, static_cast<const ir::Call&>(*p.assemble->value).args[0]);
        }
        auto copy = ir::copy_node(*f);
        copy->body = results.stmt(rewrite(f->body, replaced));
        f = copy;
        changed = true;
      }
    }
    functions.push_back(std::move(f));
  }
  if (!changed) return ir::ProgramRef(&program);
  return ir::Program::make(program.name, std::move(functions));
}

}  // namespace detail::fuse_create_assemble

PYPTO_DECL Pass FuseCreateAssembleToSlice(const ir::OpRegistry& ops) {
  return Pass("fuse-create-assemble-to-slice", {Property::SplitIncoreOrch}, {}, {},
              [registry = std::make_shared<const ir::OpRegistry>(ops)](const ir::Program& p) {
                // The pass's own copy of the registry: `ops` may be a temporary.
                return detail::fuse_create_assemble::fuse(p, *registry);
              });
}

}  // namespace pypto::transforms
