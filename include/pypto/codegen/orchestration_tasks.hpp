// pypto/codegen/orchestration_tasks.hpp — the task launches of an Orchestration function, in
// the final task-parameter ordering.
//
// A task launch is a Call or Submit of a program function from an Orchestration function: a
// kernel (InCore / AIC / AIV), or a Spmd or Group wrapper the runtime does not see.
// TaskResolver::resolve looks through wrappers down to the kernels and gives the task's
// arguments in task-parameter order (tensors, then scalars). `for_each_task_launch` visits
// launches in program order (then-arm before else-arm, loop bodies once), the order both
// registration assignment and orchestration codegen use, so func IDs follow the emitted tasks.
// Everything is O(size of the launch and the wrappers it goes through).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "pypto/codegen/codegen_error.hpp"
#include "pypto/core/config.hpp"
#include "pypto/core/span.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/stmt.hpp"

namespace pypto::ir {
struct Function;
struct Program;
}  // namespace pypto::ir

namespace pypto::codegen {

/// Whether `fn` is emitted as orchestration: an Orchestration function, or an Opaque one that
/// launches a kernel, Group or Spmd function (a host function whose scopes were all clusters or
/// spmd scopes is still Opaque after outlining: only InCore outlining promotes its parent).
PYPTO_DECL bool is_orchestration(const ir::Program& program, const ir::Function& fn);

/// One task parameter: its direction (Scalar for a scalar), the orchestration-level value it
/// binds (null for a runtime-allocated output) and its type.
struct TaskArg {
  ir::ArgDirection direction = ir::ArgDirection::Input;
  ir::ExprRef value;
  ir::TypeRef type;
};

/// One task launch, resolved down to the kernels it runs.
struct TaskLaunch {
  const ir::Expr* dispatch = nullptr;  ///< the Call or Submit (identity only, never printed)
  std::string launched;                ///< the dispatched function (kernel, Group or Spmd)
  std::string group;                   ///< the Group bundle the task runs, if any
  std::vector<std::string> kernels;    ///< one kernel, or a Group's members in call order
  bool dual_aiv = false;               ///< a split AIV member runs on both vector lanes
  std::vector<TaskArg> args;           ///< tensors first, then scalars
  bool is_submit = false;
  std::vector<ir::ExprRef> deps;  ///< Submit dependencies (TASK_ID values)
  ir::ExprRef core_num;           ///< from the Submit or the Call's `core_num` attr
  bool sync_start = false;
  bool allow_early_resolve = false;
  ir::ExprRef predicate;
};

/// "line:column: " of a span, or "" when it is unknown.
PYPTO_DECL std::string span_prefix(const core::Span& span);

/// Resolves the launches of one Orchestration function of a program.
class TaskResolver {
 public:
  TaskResolver(const ir::Program& program, std::string orchestration)
      : program_(program), orch_(std::move(orchestration)) {}

  /// True for a Call or Submit of a program function (by name), as opposed to an op call.
  static bool is_launch(const ir::Expr& e);

  /// The program function a Call/Submit launches, or null for anything else (an op call).
  const ir::Function* launched_function(const ir::Expr& e) const;

  /// The task `e` launches; CodegenError for a launch the runtime cannot express.
  TaskLaunch resolve(const ir::Expr& e) const;

  [[noreturn]] void fail(const core::Span& span, const std::string& problem) const;

 private:
  static const ir::Op* callee(const ir::Expr& e);

  /// The call-site direction of argument i.
  ir::ArgDirection direction(const ir::Attrs& attrs, const std::vector<ir::ExprRef>& args,
                             std::size_t i, const ir::Function& fn, const core::Span& span) const;

  /// Calls of program functions in `body`, in statement order (wrappers are straight-line).
  void inner_calls(const ir::StmtRef& body, std::vector<const ir::Call*>& out,
                   const ir::Function& wrapper) const;

  /// The task parameters of `call` inside `wrapper`, whose parameters are bound to `outer`.
  std::vector<TaskArg> map_through(const ir::Call& call, const ir::Function& wrapper,
                                   const std::vector<TaskArg>& outer) const;

  /// Two constants of one dtype and value (each call site parses its own constant node).
  static bool same_constant(const ir::ExprRef& x, const ir::ExprRef& y);

  static bool same_args(const std::vector<TaskArg>& a, const std::vector<TaskArg>& b);

  static std::vector<TaskArg> tensors_first(std::vector<TaskArg> args);

  void expand(TaskLaunch& t, const ir::Function& fn, const std::vector<TaskArg>& args,
              const core::Span& span, int depth) const;

  const ir::Program& program_;
  std::string orch_;
};

/// Calls `fn(const ir::Expr& launch)` for every task launch of `orch`'s body in program order.
template <class Fn>
void for_each_task_launch(const TaskResolver& tasks, const ir::StmtRef& body, Fn&& fn) {
  if (!body) return;
  const ir::Stmt& s = *body;
  if (const auto* seq = ir::as<ir::SeqStmts>(&s)) {
    for (const auto& x : seq->stmts) for_each_task_launch(tasks, x, fn);
  } else if (const auto* f = ir::as<ir::ForStmt>(&s)) {
    for_each_task_launch(tasks, f->body, fn);
  } else if (const auto* w = ir::as<ir::WhileStmt>(&s)) {
    for_each_task_launch(tasks, w->body, fn);
  } else if (const auto* i = ir::as<ir::IfStmt>(&s)) {
    for_each_task_launch(tasks, i->then_body, fn);
    for_each_task_launch(tasks, i->else_body, fn);
  } else if (const auto* sc = ir::as<ir::ScopeStmt>(&s)) {
    for_each_task_launch(tasks, sc->body, fn);
  } else {
    const ir::Expr* e = nullptr;
    if (const auto* a = ir::as<ir::AssignStmt>(&s)) e = a->value.get();
    if (const auto* ev = ir::as<ir::EvalStmt>(&s)) e = ev->expr.get();
    if (e && TaskResolver::is_launch(*e)) fn(*e);
    if (const auto* r = ir::as<ir::ReturnStmt>(&s))  // `return self.kernel(a, out)`
      for (const auto& v : r->values)
        if (TaskResolver::is_launch(*v)) fn(*v);
  }
}

}  // namespace pypto::codegen

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/codegen/orchestration_tasks.ipp"
#endif
