// pypto/transforms/ctrl_flow_transform.ipp — the definitions of
// transforms/ctrl_flow_transform.hpp.
#pragma once

#include "pypto/transforms/ctrl_flow_transform.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/field.hpp"
#include "pypto/transforms/normalize_stmt_structure.ipp"

namespace pypto::transforms {

namespace detail::ctrl_flow {

using Stmts = std::vector<ir::StmtRef>;

/// What a statement holds of its loop's exits (nested loops aside).
struct Exits {
  bool any = false;
  bool structured = true;  ///< every exit is reachable through ifs of the natural form alone
};

inline Exits exits_of(const ir::Stmt& s, std::size_t depth = 0) {
  if (depth > core::kMaxNesting)
    throw core::ValueError("ctrl-flow-transform: IR nested deeper than " +
                           std::to_string(core::kMaxNesting) + " levels is not supported");
  if (ir::isa<ir::BreakStmt>(s) || ir::isa<ir::ContinueStmt>(s)) return {true, true};
  if (ir::isa<ir::ForStmt>(s) || ir::isa<ir::WhileStmt>(s)) return {};
  Exits out;
  auto add = [&](const ir::StmtRef& x) {
    if (!x) return;
    const Exits e = exits_of(*x, depth + 1);
    out.any = out.any || e.any;
    out.structured = out.structured && e.structured;
  };
  if (const auto* seq = ir::as<ir::SeqStmts>(&s)) {
    for (const auto& x : seq->stmts) add(x);
  } else if (const auto* i = ir::as<ir::IfStmt>(&s)) {
    add(i->then_body);
    add(i->else_body);
    if (out.any && !i->return_vars.empty()) out.structured = false;
  } else {
    ir::visit_stmt(s, [&](const auto& n) {
      reflect::for_each_field(n, [&](auto, const auto& v) {
        using V = std::remove_cvref_t<decltype(v)>;
        if constexpr (std::is_same_v<V, ir::StmtRef>) {
          add(v);
        } else if constexpr (std::is_same_v<V, std::vector<ir::StmtRef>>) {
          for (const auto& x : v) add(x);
        }
      });
    });
    if (out.any) out.structured = false;  // an exit inside a scope statement
  }
  return out;
}

inline Stmts statements_of(const ir::StmtRef& s) {
  if (!s) return {};
  if (const auto* seq = ir::as<ir::SeqStmts>(s.get())) return seq->stmts;
  return {s};
}

/// Rewrites loops bottom-up; `flags` numbers the break flags of one function.
class Rewriter {
 public:
  ir::StmtRef stmt(const ir::StmtRef& s, std::size_t depth = 0) {
    if (depth > core::kMaxNesting)
      throw core::ValueError("ctrl-flow-transform: IR nested deeper than " +
                             std::to_string(core::kMaxNesting) + " levels is not supported");
    if (const auto* f = ir::as<ir::ForStmt>(s.get())) return for_loop(*f, s, depth);
    if (const auto* w = ir::as<ir::WhileStmt>(s.get())) return while_loop(*w, s, depth);
    // Every other statement: its nested statements rewritten.
    return ir::visit_stmt(*s, [&](const auto& n) -> ir::StmtRef {
      std::optional<ir::Ref<std::remove_cvref_t<decltype(n)>>> copy;
      reflect::for_each_field(n, [&](auto field, const auto& v) {
        using F = decltype(field);
        using V = std::remove_cvref_t<decltype(v)>;
        if constexpr (std::is_same_v<V, ir::StmtRef>) {
          if (!v) return;
          ir::StmtRef x = stmt(v, depth + 1);
          if (x == v) return;
          if (!copy) copy = ir::copy_node(n);
          (*copy).get()->*F::member = std::move(x);
        } else if constexpr (std::is_same_v<V, std::vector<ir::StmtRef>>) {
          V out = v;
          bool changed = false;
          for (auto& x : out) {
            ir::StmtRef y = stmt(x, depth + 1);
            changed = changed || y != x;
            x = std::move(y);
          }
          if (!changed) return;
          if (!copy) copy = ir::copy_node(n);
          (*copy).get()->*F::member = std::move(out);
        }
      });
      return copy ? ir::StmtRef(*copy) : s;
    });
  }

  std::size_t flags = 0;

 private:
  /// `stmts` with the loop's exits of kind `Exit` removed: the statements after an exit
  /// dropped, those after an if holding one moved into both its arms; a break first sets
  /// `flag` (when given).
  template <class Exit>
  Stmts sink(Stmts stmts, const ir::VarRef& flag, const core::Span& span, std::size_t depth) {
    if (depth > core::kMaxNesting)
      throw core::ValueError("ctrl-flow-transform: exits nested deeper than " +
                             std::to_string(core::kMaxNesting) + " levels are not supported");
    for (std::size_t k = 0; k < stmts.size(); ++k) {
      const ir::StmtRef& s = stmts[k];
      if (ir::isa<Exit>(*s)) {
        stmts.resize(k);
        if (flag) stmts.push_back(ir::AssignStmt::make(flag, ir::ConstBool::make(true), s->span));
        return stmts;
      }
      const auto* i = ir::as<ir::IfStmt>(s.get());
      if (!i || !holds<Exit>(*s)) continue;
      const Stmts rest(stmts.begin() + static_cast<std::ptrdiff_t>(k) + 1, stmts.end());
      auto arm = [&](const ir::StmtRef& body) {
        Stmts a = statements_of(body);
        a.insert(a.end(), rest.begin(), rest.end());
        return ir::SeqStmts::make(sink<Exit>(std::move(a), flag, span, depth + 1), span);
      };
      ir::StmtRef rewritten =
          ir::IfStmt::make(i->condition, arm(i->then_body), arm(i->else_body), {}, i->span);
      stmts.resize(k);
      stmts.push_back(std::move(rewritten));
      return stmts;
    }
    return stmts;
  }

  template <class Exit>
  static bool holds(const ir::Stmt& s) {
    if (ir::isa<Exit>(s)) return true;
    if (ir::isa<ir::ForStmt>(s) || ir::isa<ir::WhileStmt>(s)) return false;
    if (const auto* seq = ir::as<ir::SeqStmts>(&s)) {
      for (const auto& x : seq->stmts)
        if (holds<Exit>(*x)) return true;
      return false;
    }
    if (const auto* i = ir::as<ir::IfStmt>(&s))
      return holds<Exit>(*i->then_body) || (i->else_body && holds<Exit>(*i->else_body));
    return false;
  }

  ir::VarRef new_flag(const core::Span& span) {
    return ir::Var::make("__break_" + std::to_string(flags++),
                         ir::ScalarType::make(core::DataType::BOOL), span);
  }

  ir::StmtRef for_loop(const ir::ForStmt& f, const ir::StmtRef& self, std::size_t depth) {
    ir::StmtRef body = stmt(f.body, depth + 1);
    auto keep = [&] {
      if (body == f.body) return self;
      auto copy = ir::copy_node(f);
      copy->body = body;
      return ir::StmtRef(copy);
    };
    const Exits e = exits_of(*body);
    const auto* step = ir::as<ir::ConstInt>(f.step.get());
    if (!e.any || !e.structured || !f.iter_args.empty() || f.for_kind != ir::ForKind::Sequential ||
        !step || step->value == 0)
      return keep();
    Stmts stmts = sink<ir::ContinueStmt>(statements_of(body), nullptr, f.span, 0);
    if (!holds<ir::BreakStmt>(*ir::SeqStmts::make(stmts, f.span))) {
      auto copy = ir::copy_node(f);
      copy->body = ir::SeqStmts::make(std::move(stmts), f.span);
      return copy;
    }
    const ir::VarRef flag = new_flag(f.span);
    stmts = sink<ir::BreakStmt>(std::move(stmts), flag, f.span, 0);
    const ir::ExprRef not_broken = ir::Not::make(flag, f.span);
    const ir::VarRef& i = f.loop_var;
    stmts.push_back(ir::IfStmt::make(
        not_broken,
        ir::SeqStmts::make({ir::AssignStmt::make(i, ir::Add::make(i, f.step, f.span), f.span)},
                           f.span),
        nullptr, {}, f.span));
    ir::ExprRef in_range = step->value > 0 ? ir::ExprRef(ir::Lt::make(i, f.stop, f.span))
                                           : ir::ExprRef(ir::Gt::make(i, f.stop, f.span));
    Stmts out = {ir::AssignStmt::make(i, f.start, f.span),
                 ir::AssignStmt::make(flag, ir::ConstBool::make(false), f.span),
                 ir::WhileStmt::make({}, ir::And::make(in_range, not_broken, f.span),
                                     ir::SeqStmts::make(std::move(stmts), f.span), {}, f.span)};
    return ir::SeqStmts::make(std::move(out), f.span);
  }

  ir::StmtRef while_loop(const ir::WhileStmt& w, const ir::StmtRef& self, std::size_t depth) {
    ir::StmtRef body = stmt(w.body, depth + 1);
    const Exits e = exits_of(*body);
    if (!e.any || !e.structured || !w.iter_args.empty()) {
      if (body == w.body) return self;
      auto copy = ir::copy_node(w);
      copy->body = body;
      return copy;
    }
    Stmts stmts = sink<ir::ContinueStmt>(statements_of(body), nullptr, w.span, 0);
    if (!holds<ir::BreakStmt>(*ir::SeqStmts::make(stmts, w.span)))
      return ir::WhileStmt::make({}, w.condition, ir::SeqStmts::make(std::move(stmts), w.span), {},
                                 w.span);
    const ir::VarRef flag = new_flag(w.span);
    stmts = sink<ir::BreakStmt>(std::move(stmts), flag, w.span, 0);
    Stmts out = {
        ir::AssignStmt::make(flag, ir::ConstBool::make(false), w.span),
        ir::WhileStmt::make({}, ir::And::make(w.condition, ir::Not::make(flag, w.span), w.span),
                            ir::SeqStmts::make(std::move(stmts), w.span), {}, w.span)};
    return ir::SeqStmts::make(std::move(out), w.span);
  }
};

}  // namespace detail::ctrl_flow

PYPTO_DECL Pass CtrlFlowTransform() {
  return Pass("ctrl-flow-transform", /*required=*/{},
              /*produced=*/{Property::NormalizedStmtStructure},
              /*invalidated=*/{Property::SSAForm},
              [](const ir::Program& program) -> ir::ProgramRef {
                std::vector<ir::FunctionRef> functions;
                bool changed = false;
                detail::StmtStructureNormalizer normalizer;
                for (const auto& entry : program.functions) {
                  ir::FunctionRef f = entry.function;
                  if (f->body && ir::is_kernel_function(f->func_type)) {
                    ir::StmtRef body = detail::ctrl_flow::Rewriter().stmt(f->body);
                    if (body != f->body) {
                      auto copy = ir::copy_node(*f);
                      copy->body = std::move(body);
                      f = normalizer.function(copy);
                    }
                  }
                  changed = changed || f != entry.function;
                  functions.push_back(std::move(f));
                }
                if (!changed) return ir::ProgramRef(&program);
                return ir::Program::make(program.name, std::move(functions));
              });
}

}  // namespace pypto::transforms
