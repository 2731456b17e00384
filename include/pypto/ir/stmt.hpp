// pypto/ir/stmt.hpp — statements: assignment, sequencing, structured control flow, scopes.
//
// Binding structure (what the Def fields mean): AssignStmt defines `var` after its
// value is evaluated; ForStmt defines `loop_var` and `iter_args` for its body (iter_arg init
// values are evaluated outside the loop) and `return_vars` after the loop; WhileStmt and IfStmt
// define `return_vars` after the region. Regions hand values out through YieldStmt; a
// function returns through ReturnStmt. Scope statements (InCore, Cluster, Hierarchy, Spmd,
// SplitAiv, Runtime) mark regions that passes outline into functions; their definitions flow out
// of the region (straight-line scopes), unlike branch and loop bodies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/ir/attrs.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"

namespace pypto::ir {

namespace detail {
inline void require_bool(const ExprRef& e, std::string_view node, std::string_view field) {
  require(static_cast<bool>(e), node, field, "must not be null");
  require(has_scalar_dtype(e, DataType::BOOL), node, field, "must be a BOOL scalar expression");
}
template <class S>
Ref<S> make_stmt(Span span) {
  auto s = make_node<S>();
  s->span = std::move(span);
  return s;
}
}  // namespace detail

struct AssignStmt final : Stmt {
  PYPTO_CONCRETE_NODE(AssignStmt)
  VarRef var;
  ExprRef value;
  using fields = ConcatFields<Stmt::fields, FieldList<DefField<&AssignStmt::var, "var">,
                                                      UsualField<&AssignStmt::value, "value">>>;

  static Ref<const AssignStmt> make(VarRef var, ExprRef value, Span span = {}) {
    detail::require(static_cast<bool>(var), "AssignStmt", "var", "must not be null");
    detail::require(static_cast<bool>(value), "AssignStmt", "value", "must not be null");
    auto s = detail::make_stmt<AssignStmt>(std::move(span));
    s->var = std::move(var);
    s->value = std::move(value);
    return s;
  }
};

/// An expression evaluated for its effect (a store, a notify); its value is dropped.
struct EvalStmt final : Stmt {
  PYPTO_CONCRETE_NODE(EvalStmt)
  ExprRef expr;
  using fields = ConcatFields<Stmt::fields, FieldList<UsualField<&EvalStmt::expr, "expr">>>;

  static Ref<const EvalStmt> make(ExprRef expr, Span span = {}) {
    detail::require(static_cast<bool>(expr), "EvalStmt", "expr", "must not be null");
    auto s = detail::make_stmt<EvalStmt>(std::move(span));
    s->expr = std::move(expr);
    return s;
  }
};

struct SeqStmts final : Stmt {
  PYPTO_CONCRETE_NODE(SeqStmts)
  std::vector<StmtRef> stmts;
  using fields = ConcatFields<Stmt::fields, FieldList<UsualField<&SeqStmts::stmts, "stmts">>>;

  static Ref<const SeqStmts> make(std::vector<StmtRef> stmts, Span span = {}) {
    detail::require_non_null(stmts, "SeqStmts", "stmts");
    auto s = detail::make_stmt<SeqStmts>(std::move(span));
    s->stmts = std::move(stmts);
    return s;
  }
};

struct ForStmt final : Stmt {
  PYPTO_CONCRETE_NODE(ForStmt)
  VarRef loop_var;
  ExprRef start, stop, step;
  std::vector<IterArgRef> iter_args;
  StmtRef body;
  std::vector<VarRef> return_vars;
  ForKind for_kind = ForKind::Sequential;
  Attrs attrs;

  using fields = ConcatFields<
      Stmt::fields,
      FieldList<DefField<&ForStmt::loop_var, "loop_var">, UsualField<&ForStmt::start, "start">,
                UsualField<&ForStmt::stop, "stop">, UsualField<&ForStmt::step, "step">,
                DefField<&ForStmt::iter_args, "iter_args">, UsualField<&ForStmt::body, "body">,
                DefField<&ForStmt::return_vars, "return_vars">,
                UsualField<&ForStmt::for_kind, "for_kind">, UsualField<&ForStmt::attrs, "attrs">>>;

  static Ref<const ForStmt> make(VarRef loop_var, ExprRef start, ExprRef stop, ExprRef step,
                                 std::vector<IterArgRef> iter_args, StmtRef body,
                                 std::vector<VarRef> return_vars,
                                 ForKind for_kind = ForKind::Sequential, Attrs attrs = {},
                                 Span span = {}) {
    detail::require(static_cast<bool>(loop_var), "ForStmt", "loop_var", "must not be null");
    detail::require(is_integer_scalar(loop_var), "ForStmt", "loop_var",
                    "must be an integer scalar variable");
    detail::require(is_integer_scalar(start), "ForStmt", "start",
                    "must be an integer scalar expression");
    detail::require(is_integer_scalar(stop), "ForStmt", "stop",
                    "must be an integer scalar expression");
    detail::require(is_integer_scalar(step), "ForStmt", "step",
                    "must be an integer scalar expression");
    detail::require_non_null(iter_args, "ForStmt", "iter_args");
    detail::require_non_null(return_vars, "ForStmt", "return_vars");
    if (iter_args.size() != return_vars.size())
      detail::fail("ForStmt", "return_vars",
                   "needs one return var per iter_arg (" + std::to_string(iter_args.size()) +
                       " iter_args, " + std::to_string(return_vars.size()) + " return vars)");
    detail::require(iter_args.empty() || for_kind != ForKind::Unroll, "ForStmt", "iter_args",
                    "an unrolled loop cannot carry values");
    detail::require(static_cast<bool>(body), "ForStmt", "body", "must not be null");
    auto s = detail::make_stmt<ForStmt>(std::move(span));
    s->loop_var = std::move(loop_var);
    s->start = std::move(start);
    s->stop = std::move(stop);
    s->step = std::move(step);
    s->iter_args = std::move(iter_args);
    s->body = std::move(body);
    s->return_vars = std::move(return_vars);
    s->for_kind = for_kind;
    s->attrs = std::move(attrs);
    return s;
  }
};

/// A loop over carried values: `condition` is evaluated on the iter_args before each iteration.
struct WhileStmt final : Stmt {
  PYPTO_CONCRETE_NODE(WhileStmt)
  std::vector<IterArgRef> iter_args;
  ExprRef condition;
  StmtRef body;
  std::vector<VarRef> return_vars;

  using fields =
      ConcatFields<Stmt::fields, FieldList<DefField<&WhileStmt::iter_args, "iter_args">,
                                           UsualField<&WhileStmt::condition, "condition">,
                                           UsualField<&WhileStmt::body, "body">,
                                           DefField<&WhileStmt::return_vars, "return_vars">>>;

  static Ref<const WhileStmt> make(std::vector<IterArgRef> iter_args, ExprRef condition,
                                   StmtRef body, std::vector<VarRef> return_vars, Span span = {}) {
    detail::require_non_null(iter_args, "WhileStmt", "iter_args");
    detail::require_bool(condition, "WhileStmt", "condition");
    detail::require(static_cast<bool>(body), "WhileStmt", "body", "must not be null");
    detail::require_non_null(return_vars, "WhileStmt", "return_vars");
    detail::require(iter_args.size() == return_vars.size(), "WhileStmt", "return_vars",
                    "needs one return var per iter_arg");
    auto s = detail::make_stmt<WhileStmt>(std::move(span));
    s->iter_args = std::move(iter_args);
    s->condition = std::move(condition);
    s->body = std::move(body);
    s->return_vars = std::move(return_vars);
    return s;
  }
};

/// A two-way branch; with return_vars, both arms end in a YieldStmt (the phi values).
struct IfStmt final : Stmt {
  PYPTO_CONCRETE_NODE(IfStmt)
  ExprRef condition;
  StmtRef then_body;
  StmtRef else_body;  ///< optional (null when there is no else)
  std::vector<VarRef> return_vars;

  using fields =
      ConcatFields<Stmt::fields, FieldList<UsualField<&IfStmt::condition, "condition">,
                                           UsualField<&IfStmt::then_body, "then_body">,
                                           UsualField<&IfStmt::else_body, "else_body">,
                                           DefField<&IfStmt::return_vars, "return_vars">>>;

  static Ref<const IfStmt> make(ExprRef condition, StmtRef then_body, StmtRef else_body = nullptr,
                                std::vector<VarRef> return_vars = {}, Span span = {}) {
    detail::require_bool(condition, "IfStmt", "condition");
    detail::require(static_cast<bool>(then_body), "IfStmt", "then_body", "must not be null");
    detail::require_non_null(return_vars, "IfStmt", "return_vars");
    detail::require(return_vars.empty() || else_body, "IfStmt", "else_body",
                    "an if with return vars needs an else branch that yields them");
    auto s = detail::make_stmt<IfStmt>(std::move(span));
    s->condition = std::move(condition);
    s->then_body = std::move(then_body);
    s->else_body = std::move(else_body);
    s->return_vars = std::move(return_vars);
    return s;
  }
};

/// Hands values out of the enclosing loop or if region (bound to its return_vars).
struct YieldStmt final : Stmt {
  PYPTO_CONCRETE_NODE(YieldStmt)
  std::vector<ExprRef> values;
  using fields = ConcatFields<Stmt::fields, FieldList<UsualField<&YieldStmt::values, "values">>>;

  static Ref<const YieldStmt> make(std::vector<ExprRef> values, Span span = {}) {
    detail::require_non_null(values, "YieldStmt", "values");
    auto s = detail::make_stmt<YieldStmt>(std::move(span));
    s->values = std::move(values);
    return s;
  }
};

struct ReturnStmt final : Stmt {
  PYPTO_CONCRETE_NODE(ReturnStmt)
  std::vector<ExprRef> values;
  using fields = ConcatFields<Stmt::fields, FieldList<UsualField<&ReturnStmt::values, "values">>>;

  static Ref<const ReturnStmt> make(std::vector<ExprRef> values, Span span = {}) {
    detail::require_non_null(values, "ReturnStmt", "values");
    auto s = detail::make_stmt<ReturnStmt>(std::move(span));
    s->values = std::move(values);
    return s;
  }
};

struct BreakStmt final : Stmt {
  PYPTO_CONCRETE_NODE(BreakStmt)
  using fields = Stmt::fields;
  static Ref<const BreakStmt> make(Span span = {}) {
    return detail::make_stmt<BreakStmt>(std::move(span));
  }
};

struct ContinueStmt final : Stmt {
  PYPTO_CONCRETE_NODE(ContinueStmt)
  using fields = Stmt::fields;
  static Ref<const ContinueStmt> make(Span span = {}) {
    return detail::make_stmt<ContinueStmt>(std::move(span));
  }
};

/// Source in the host language (Python) carried verbatim: the body of a HOST sub-worker, which
/// runs on the host as written and is not IR. A leaf: passes do not look inside.
struct InlineStmt final : Stmt {
  PYPTO_CONCRETE_NODE(InlineStmt)
  std::string body;

  using fields = ConcatFields<Stmt::fields, FieldList<UsualField<&InlineStmt::body, "body">>>;

  static Ref<const InlineStmt> make(std::string body, Span span = {}) {
    auto s = detail::make_stmt<InlineStmt>(std::move(span));
    s->body = std::move(body);
    return s;
  }
};

// ---- scopes -----------------------------------------------------------------------------------

/// Base of the scope statements: a named region with attributes. Unlike Var and Function
/// names, a scope's `name_hint` is compared (it names the function the scope becomes).
///
/// `task_id` (optional) is the `as tid` variable of `with pl.at(...) as tid`: the scope runs as an
/// asynchronous task and the variable, bound after the scope, holds its Scalar[TASK_ID]. It is
/// listed after the body, so walkers bind it for the statements that follow, not for the body.
struct ScopeStmt : Stmt {
  PYPTO_ABSTRACT_NODE(ScopeStmt, kinds::scope)
  std::string name_hint;
  StmtRef body;
  Attrs attrs;
  VarRef task_id;
  using fields =
      ConcatFields<Stmt::fields, FieldList<UsualField<&ScopeStmt::name_hint, "name_hint">,
                                           UsualField<&ScopeStmt::body, "body">,
                                           UsualField<&ScopeStmt::attrs, "attrs">,
                                           DefField<&ScopeStmt::task_id, "task_id">>>;

  /// This scope bound to a task id variable (`with ... as tid`); tid must be Scalar[TASK_ID].
  template <class S>
  static Ref<const S> with_task_id(const S& scope, VarRef tid) {
    detail::require(!tid || has_scalar_dtype(tid, DataType::TASK_ID), S::class_name, "task_id",
                    "must be a Scalar[TASK_ID] variable");
    detail::require(!tid || scope.kind() != NodeKind::SplitAivScopeStmt, S::class_name, "task_id",
                    "a split_aiv scope runs inside its kernel: it is no task");
    auto s = copy_node(scope);
    s->task_id = std::move(tid);
    return s;
  }

 protected:
  template <class S>
  static Ref<S> make_scope(std::string_view node, std::string name_hint, StmtRef body, Attrs attrs,
                           Span span) {
    detail::require(static_cast<bool>(body), node, "body", "must not be null");
    auto s = detail::make_stmt<S>(std::move(span));
    s->name_hint = std::move(name_hint);
    s->body = std::move(body);
    s->attrs = std::move(attrs);
    return s;
  }
};

/// `with pl.at(level=pl.Level.CORE_GROUP, ...)`: a region outlined into an InCore kernel.
/// `split` is the AUTO vector split (`optimizations=[pl.split(mode)]`); None = no split.
struct InCoreScopeStmt final : ScopeStmt {
  PYPTO_CONCRETE_NODE(InCoreScopeStmt)
  SplitMode split = SplitMode::None;
  using fields =
      ConcatFields<ScopeStmt::fields, FieldList<UsualField<&InCoreScopeStmt::split, "split">>>;

  static Ref<const InCoreScopeStmt> make(StmtRef body, std::string name_hint = {},
                                         SplitMode split = SplitMode::None, Attrs attrs = {},
                                         Span span = {}) {
    auto s = make_scope<InCoreScopeStmt>("InCoreScopeStmt", std::move(name_hint), std::move(body),
                                         std::move(attrs), std::move(span));
    s->split = split;
    return s;
  }
};

/// `with pl.cluster()`: a co-scheduled AIC+AIV group, outlined into a Group function.
struct ClusterScopeStmt final : ScopeStmt {
  PYPTO_CONCRETE_NODE(ClusterScopeStmt)
  using fields = ScopeStmt::fields;

  static Ref<const ClusterScopeStmt> make(StmtRef body, std::string name_hint = {},
                                          Attrs attrs = {}, Span span = {}) {
    return make_scope<ClusterScopeStmt>("ClusterScopeStmt", std::move(name_hint), std::move(body),
                                        std::move(attrs), std::move(span));
  }
};

/// `with pl.at(level=..., role=...)` at a level other than CORE_GROUP.
struct HierarchyScopeStmt final : ScopeStmt {
  PYPTO_CONCRETE_NODE(HierarchyScopeStmt)
  Level level = Level::HOST;
  std::optional<Role> role;
  using fields =
      ConcatFields<ScopeStmt::fields, FieldList<UsualField<&HierarchyScopeStmt::level, "level">,
                                                UsualField<&HierarchyScopeStmt::role, "role">>>;

  static Ref<const HierarchyScopeStmt> make(StmtRef body, Level level,
                                            std::optional<Role> role = std::nullopt,
                                            std::string name_hint = {}, Attrs attrs = {},
                                            Span span = {}) {
    detail::require(level != Level::CORE_GROUP, "HierarchyScopeStmt", "level",
                    "CORE_GROUP is the level of an InCoreScopeStmt");
    auto s = make_scope<HierarchyScopeStmt>("HierarchyScopeStmt", std::move(name_hint),
                                            std::move(body), std::move(attrs), std::move(span));
    s->level = level;
    s->role = role;
    return s;
  }
};

/// `with pl.spmd(core_num, sync_start=...)`: the body runs on `core_num` cores.
struct SpmdScopeStmt final : ScopeStmt {
  PYPTO_CONCRETE_NODE(SpmdScopeStmt)
  ExprRef core_num;
  bool sync_start = false;
  using fields = ConcatFields<ScopeStmt::fields,
                              FieldList<UsualField<&SpmdScopeStmt::core_num, "core_num">,
                                        UsualField<&SpmdScopeStmt::sync_start, "sync_start">>>;

  static Ref<const SpmdScopeStmt> make(StmtRef body, ExprRef core_num, bool sync_start = false,
                                       std::string name_hint = {}, Attrs attrs = {},
                                       Span span = {}) {
    detail::require(is_integer_scalar(core_num), "SpmdScopeStmt", "core_num",
                    "must be an integer scalar expression");
    auto s = make_scope<SpmdScopeStmt>("SpmdScopeStmt", std::move(name_hint), std::move(body),
                                       std::move(attrs), std::move(span));
    s->core_num = std::move(core_num);
    s->sync_start = sync_start;
    return s;
  }
};

/// `for aiv_id in pl.split_aiv(2, mode=...)`: an explicit split of a region over the two vector
/// cores; `aiv_id` (the sub-block index) is defined for the body.
struct SplitAivScopeStmt final : ScopeStmt {
  PYPTO_CONCRETE_NODE(SplitAivScopeStmt)
  VarRef aiv_id;
  SplitMode split = SplitMode::None;
  std::int64_t count = 2;
  // aiv_id is listed before the body it is bound for: walkers meet a definition before its uses.
  // task_id (inherited) is always null here, but listed like every member.
  using fields =
      ConcatFields<Stmt::fields, FieldList<UsualField<&ScopeStmt::name_hint, "name_hint">,
                                           DefField<&SplitAivScopeStmt::aiv_id, "aiv_id">,
                                           UsualField<&ScopeStmt::body, "body">,
                                           UsualField<&ScopeStmt::attrs, "attrs">,
                                           DefField<&ScopeStmt::task_id, "task_id">,
                                           UsualField<&SplitAivScopeStmt::split, "split">,
                                           UsualField<&SplitAivScopeStmt::count, "count">>>;

  /// `count` sub-blocks: 2, the two vector cores of a core group.
  static Ref<const SplitAivScopeStmt> make(VarRef aiv_id, StmtRef body,
                                           SplitMode split = SplitMode::None,
                                           std::string name_hint = {}, Attrs attrs = {},
                                           Span span = {}, std::int64_t count = 2) {
    detail::require(is_integer_scalar(aiv_id), "SplitAivScopeStmt", "aiv_id",
                    "must be an integer scalar variable");
    detail::require(count == 2, "SplitAivScopeStmt", "count",
                    "must be 2 (a split is over the two vector cores)");
    auto s = make_scope<SplitAivScopeStmt>("SplitAivScopeStmt", std::move(name_hint),
                                           std::move(body), std::move(attrs), std::move(span));
    s->aiv_id = std::move(aiv_id);
    s->split = split;
    s->count = count;
    return s;
  }
};

/// `with pl.scope(mode=...)`: a task scope of the runtime (auto or manual dependencies).
struct RuntimeScopeStmt final : ScopeStmt {
  PYPTO_CONCRETE_NODE(RuntimeScopeStmt)
  bool manual = false;
  using fields =
      ConcatFields<ScopeStmt::fields, FieldList<UsualField<&RuntimeScopeStmt::manual, "manual">>>;

  static Ref<const RuntimeScopeStmt> make(StmtRef body, bool manual = false,
                                          std::string name_hint = {}, Attrs attrs = {},
                                          Span span = {}) {
    auto s = make_scope<RuntimeScopeStmt>("RuntimeScopeStmt", std::move(name_hint), std::move(body),
                                          std::move(attrs), std::move(span));
    s->manual = manual;
    return s;
  }
};

}  // namespace pypto::ir
