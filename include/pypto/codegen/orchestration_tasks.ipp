// pypto/codegen/orchestration_tasks.ipp — the definitions of codegen/orchestration_tasks.hpp.
#pragma once

#include "pypto/codegen/orchestration_tasks.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pypto/ir/attrs.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/visit.hpp"

// A task launch is a Call or Submit of a program function from an Orchestration function. The
// launched function is a kernel (InCore / AIC / AIV), or a wrapper the runtime does not see: a
// Spmd wrapper (one inner launch, its core count on the dispatch) or a Group bundle (members run
// together as one mixed task). `resolve` looks through wrappers down to the kernels and gives the
// task's arguments in task-parameter order (every tensor, then every scalar), each with the value
// it binds (none for an output the runtime allocates because a Submit omitted it). Directions:
// the `arg_directions` attr, else the callee's ParamDirection; `arg_direction_overrides` are
// NoDep. `for_each_task_launch` visits launches in program order (statements in order, loop
// bodies once, then-arm before else-arm), the order registration and orchestration codegen both
// use. Everything is O(size of the launch and the wrappers it goes through).

namespace pypto::codegen {

PYPTO_DECL bool is_orchestration(const ir::Program& program, const ir::Function& fn) {
  if (fn.func_type == ir::FunctionType::Orchestration) return true;
  if (fn.func_type != ir::FunctionType::Opaque || !fn.body) return false;
  bool launches = false;
  ir::for_each_node(ir::NodeRef(fn.body), [&](const ir::Node& n) {
    const ir::Op* op = nullptr;
    if (const auto* c = ir::as<ir::Call>(&n)) op = c->op.get();
    if (const auto* s = ir::as<ir::Submit>(&n)) op = s->op.get();
    if (!op || !ir::isa<ir::GlobalVar>(*op)) return;
    if (ir::FunctionRef callee = program.find(op->name)) switch (callee->func_type) {
        case ir::FunctionType::InCore:
        case ir::FunctionType::AIC:
        case ir::FunctionType::AIV:
        case ir::FunctionType::Group:
        case ir::FunctionType::Spmd: launches = true; break;
        default: break;
      }
  });
  return launches;
}

PYPTO_DECL std::string span_prefix(const core::Span& span) {
  return span.is_known() ? span.to_string() + ": " : std::string();
}

PYPTO_DECL bool TaskResolver::is_launch(const ir::Expr& e) {
  const ir::Op* op = callee(e);
  return op && ir::isa<ir::GlobalVar>(*op);
}

PYPTO_DECL const ir::Function* TaskResolver::launched_function(const ir::Expr& e) const {
  const ir::Op* op = callee(e);
  if (!op || !ir::isa<ir::GlobalVar>(*op)) return nullptr;
  return program_.find(op->name).get();
}

PYPTO_DECL TaskLaunch TaskResolver::resolve(const ir::Expr& e) const {
  const ir::Op* op = callee(e);
  const ir::Function* fn = op ? program_.find(op->name).get() : nullptr;
  if (!fn)
    fail(e.span, "calls '" + (op ? op->name : std::string("?")) +
                     "', which is not a function of the program");
  TaskLaunch t;
  t.dispatch = &e;
  t.launched = fn->name;
  std::vector<ir::ExprRef> args;
  const ir::Attrs* attrs = nullptr;
  if (const auto* c = ir::as<ir::Call>(&e)) {
    args = c->args;
    attrs = &c->attrs;
    if (const auto* v = c->attrs.find("core_num")) {
      if (const auto* x = v->get_if<ir::ExprRef>()) t.core_num = *x;
      if (const auto* n = v->get_if<std::int64_t>()) t.core_num = ir::ConstInt::make(*n);
    }
    t.sync_start = c->attrs.get<bool>("sync_start").value_or(false);
  } else {
    const auto& s = static_cast<const ir::Submit&>(e);
    args = s.args;
    attrs = &s.attrs;
    t.is_submit = true;
    t.deps = s.deps;
    t.core_num = s.core_num;
    t.sync_start = s.sync_start;
    t.allow_early_resolve = s.allow_early_resolve;
    t.predicate = s.predicate;
  }
  if (args.size() > fn->params.size() || (!t.is_submit && args.size() != fn->params.size()))
    fail(e.span, "passes " + std::to_string(args.size()) + " arguments to '" + fn->name +
                     "', which has " + std::to_string(fn->params.size()) + " parameters");
  std::vector<TaskArg> outer;
  for (std::size_t i = 0; i < fn->params.size(); ++i) {
    if (i < args.size()) {
      outer.push_back({direction(*attrs, args, i, *fn, e.span), args[i], args[i]->type});
      continue;
    }
    // A Submit may omit trailing outputs: the runtime allocates them.
    if (!ir::isa<ir::TensorType>(fn->params[i]->type) ||
        fn->param_directions[i] != ir::ParamDirection::Out)
      fail(e.span, "omits argument " + std::to_string(i) + " of '" + fn->name +
                       "', which is not an output tensor the runtime could allocate");
    outer.push_back({ir::ArgDirection::Output, nullptr, fn->params[i]->type});
  }
  expand(t, *fn, outer, e.span, 0);
  return t;
}

PYPTO_DECL void TaskResolver::fail(const core::Span& span, const std::string& problem) const {
  throw CodegenError(orch_, span_prefix(span) + problem);
}

PYPTO_DECL const ir::Op* TaskResolver::callee(const ir::Expr& e) {
  if (const auto* c = ir::as<ir::Call>(&e)) return c->op.get();
  if (const auto* s = ir::as<ir::Submit>(&e)) return s->op.get();
  return nullptr;
}

PYPTO_DECL ir::ArgDirection TaskResolver::direction(const ir::Attrs& attrs,
                                                    const std::vector<ir::ExprRef>& args,
                                                    std::size_t i, const ir::Function& fn,
                                                    const core::Span& span) const {
  if (ir::isa<ir::ScalarType>(args[i]->type)) return ir::ArgDirection::Scalar;
  if (!ir::isa<ir::TensorType>(args[i]->type))
    fail(span, "argument " + std::to_string(i) + " of '" + fn.name +
                   "' is neither a tensor nor a scalar; a task takes only those");
  ir::ArgDirection d = ir::ArgDirection::Input;
  if (const ir::AttrValue* v = attrs.find("arg_directions")) {
    const auto* list = v->get_if<ir::AttrValueList>();
    const auto* item =
        list && list->size() == args.size() ? (*list)[i].get_if<ir::EnumValue>() : nullptr;
    const auto dir = item ? item->get<ir::ArgDirection>() : std::nullopt;
    if (!dir || *dir == ir::ArgDirection::Scalar)
      fail(span, "the arg_directions of the call of '" + fn.name +
                     "' need one tensor direction per argument (argument " + std::to_string(i) +
                     ")");
    d = *dir;
  } else {
    switch (fn.param_directions[i]) {
      case ir::ParamDirection::In: d = ir::ArgDirection::Input; break;
      case ir::ParamDirection::Out: d = ir::ArgDirection::Output; break;
      case ir::ParamDirection::InOut: d = ir::ArgDirection::InOut; break;
    }
  }
  if (const ir::AttrValue* v = attrs.find("arg_direction_overrides"))
    if (const auto* list = v->get_if<ir::AttrValueList>())
      for (const ir::AttrValue& x : *list)
        if (const auto* k = x.get_if<std::int64_t>(); k && *k == static_cast<std::int64_t>(i))
          d = ir::ArgDirection::NoDep;
  return d;
}

PYPTO_DECL void TaskResolver::inner_calls(const ir::StmtRef& body,
                                          std::vector<const ir::Call*>& out,
                                          const ir::Function& wrapper) const {
  if (const auto* seq = ir::as<ir::SeqStmts>(body.get())) {
    for (const auto& s : seq->stmts) inner_calls(s, out, wrapper);
    return;
  }
  const ir::Expr* e = nullptr;
  if (const auto* a = ir::as<ir::AssignStmt>(body.get())) e = a->value.get();
  if (const auto* ev = ir::as<ir::EvalStmt>(body.get())) e = ev->expr.get();
  if (e && is_launch(*e)) {
    if (!launched_function(*e))
      fail(e->span, "'" + wrapper.name + "' calls a function the program does not define");
    if (!ir::isa<ir::Call>(*e))
      fail(e->span, "'" + wrapper.name + "' submits a task; a wrapper may only call kernels");
    out.push_back(static_cast<const ir::Call*>(e));
  }
}

PYPTO_DECL std::vector<TaskArg> TaskResolver::map_through(const ir::Call& call,
                                                          const ir::Function& wrapper,
                                                          const std::vector<TaskArg>& outer) const {
  std::vector<TaskArg> mapped;
  for (std::size_t k = 0; k < call.args.size(); ++k) {
    const ir::ExprRef& a = call.args[k];
    if (ir::isa<ir::ConstInt>(a) || ir::isa<ir::ConstFloat>(a) || ir::isa<ir::ConstBool>(a)) {
      mapped.push_back({ir::ArgDirection::Scalar, a, a->type});
      continue;
    }
    std::size_t j = 0;
    while (j < wrapper.params.size() && wrapper.params[j].get() != a.get()) ++j;
    if (j == wrapper.params.size())
      fail(call.span, "argument " + std::to_string(k) + " of the call of '" + call.op->name +
                          "' inside '" + wrapper.name +
                          "' is neither a parameter of the wrapper nor a constant");
    mapped.push_back(outer[j]);
  }
  return mapped;
}

PYPTO_DECL bool TaskResolver::same_constant(const ir::ExprRef& x, const ir::ExprRef& y) {
  if (!x || !y || x->kind() != y->kind() || !ir::isa<ir::ScalarType>(x->type) ||
      static_cast<const ir::ScalarType&>(*x->type).dtype !=
          static_cast<const ir::ScalarType&>(*y->type).dtype)
    return false;
  if (const auto* i = ir::as<ir::ConstInt>(x.get()))
    return i->value == static_cast<const ir::ConstInt&>(*y).value;
  if (const auto* f = ir::as<ir::ConstFloat>(x.get())) {  // by bits: -0.0 is not 0.0
    const double g = static_cast<const ir::ConstFloat&>(*y).value;
    return std::memcmp(&f->value, &g, sizeof g) == 0;
  }
  if (const auto* b = ir::as<ir::ConstBool>(x.get()))
    return b->value == static_cast<const ir::ConstBool&>(*y).value;
  return false;
}

PYPTO_DECL bool TaskResolver::same_args(const std::vector<TaskArg>& a,
                                        const std::vector<TaskArg>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].direction != b[i].direction) return false;
    if (a[i].value.get() == b[i].value.get() && (a[i].value || a[i].type == b[i].type)) continue;
    if (!same_constant(a[i].value, b[i].value)) return false;
  }
  return true;
}

PYPTO_DECL std::vector<TaskArg> TaskResolver::tensors_first(std::vector<TaskArg> args) {
  std::vector<TaskArg> out;
  for (auto& a : args)
    if (a.direction != ir::ArgDirection::Scalar) out.push_back(a);
  for (auto& a : args)
    if (a.direction == ir::ArgDirection::Scalar) out.push_back(a);
  return out;
}

PYPTO_DECL void TaskResolver::expand(TaskLaunch& t, const ir::Function& fn,
                                     const std::vector<TaskArg>& args, const core::Span& span,
                                     int depth) const {
  if (depth > 8) fail(span, "'" + fn.name + "' nests wrappers more than 8 deep");
  if (ir::is_incore_type(fn.func_type)) {
    t.kernels = {fn.name};
    t.args = tensors_first(args);
    return;
  }
  if (fn.func_type != ir::FunctionType::Spmd && fn.func_type != ir::FunctionType::Group)
    fail(span, "launches '" + fn.name + "' of function type " +
                   std::string(ir::enum_name(fn.func_type)) +
                   "; a task runs an InCore, AIC or AIV kernel, a Group or a Spmd wrapper");
  if (!fn.body) fail(span, "launches '" + fn.name + "', which has no body");
  std::vector<const ir::Call*> calls;
  inner_calls(fn.body, calls, fn);
  if (fn.func_type == ir::FunctionType::Spmd) {
    if (calls.size() != 1)
      fail(span, "the Spmd wrapper '" + fn.name + "' launches " + std::to_string(calls.size()) +
                     " functions; it must launch exactly one");
    expand(t, *launched_function(*calls[0]), map_through(*calls[0], fn, args), calls[0]->span,
           depth + 1);
    return;
  }
  // A Group: its members run as one mixed task on one argument list.
  if (calls.empty()) fail(span, "the Group '" + fn.name + "' calls no kernel");
  t.group = fn.name;
  std::vector<TaskArg> payload;
  for (std::size_t m = 0; m < calls.size(); ++m) {
    const ir::Function* member = launched_function(*calls[m]);
    if (!ir::is_incore_type(member->func_type))
      fail(calls[m]->span, "the Group '" + fn.name + "' calls '" + member->name +
                               "', which is not an InCore, AIC or AIV kernel");
    std::vector<TaskArg> mapped = map_through(*calls[m], fn, args);
    if (m == 0) {
      payload = std::move(mapped);
    } else if (!same_args(payload, mapped)) {
      fail(calls[m]->span, "the members of the Group '" + fn.name +
                               "' take different arguments ('" + calls[0]->op->name + "' and '" +
                               member->name +
                               "'); a mixed task passes one argument list to all its kernels "
                               "(run expand-mixed-kernels first)");
    }
    t.kernels.push_back(member->name);
    if (member->attrs.get<bool>("dual_aiv_dispatch").value_or(false)) t.dual_aiv = true;
  }
  t.args = tensors_first(std::move(payload));
}

}  // namespace pypto::codegen
