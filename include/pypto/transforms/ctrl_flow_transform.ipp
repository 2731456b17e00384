// pypto/transforms/ctrl_flow_transform.ipp — the definitions of
// transforms/ctrl_flow_transform.hpp.
#pragma once

#include "pypto/transforms/ctrl_flow_transform.hpp"

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/loop_exits.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/field.hpp"
#include "pypto/transforms/normalize_stmt_structure.ipp"
#include "pypto/transforms/substitute.hpp"

namespace pypto::transforms {

namespace detail::ctrl_flow {

using Stmts = std::vector<ir::StmtRef>;

inline Stmts statements_of(const ir::StmtRef& s) {
  if (!s) return {};
  if (const auto* seq = ir::as<ir::SeqStmts>(s.get())) return seq->stmts;
  return {s};
}

/// Rewrites loops bottom-up; `flags` numbers the break flags of one function.
class Rewriter : private FieldRewriter<Rewriter> {
  friend class FieldRewriter<Rewriter>;

  // Defined before stmt, whose generic lambda uses them (clang 14 needs the definition first).
  /// The fields holding statements: only those can hold a loop.
  struct Statements {
    template <class F, class V>
    static constexpr bool select =
        std::is_same_v<V, ir::StmtRef> || std::is_same_v<V, std::vector<ir::StmtRef>>;
  };

  template <class T>
  bool rewrite_handle(const ir::Ref<const T>& in, ir::Ref<const T>& out) {
    if constexpr (std::is_same_v<T, ir::Stmt>) {
      ir::StmtRef x = stmt(in);
      if (x == in) return false;
      out = std::move(x);
      return true;
    } else {
      return false;
    }
  }

  std::size_t depth_ = 0;

 public:
  ir::StmtRef stmt(const ir::StmtRef& s) {
    if (++depth_ > core::kMaxNesting)
      throw core::ValueError("ctrl-flow-transform: IR nested deeper than " +
                             std::to_string(core::kMaxNesting) + " levels is not supported");
    ir::StmtRef out = ir::visit_stmt(*s, [&](const auto& n) -> ir::StmtRef {
      using N = std::remove_cvref_t<decltype(n)>;
      auto copy = rebuilt<Statements>(n);  // nested statements first: loops bottom-up
      const N& now = copy ? *copy : n;
      if constexpr (std::is_same_v<N, ir::ForStmt>) {
        if (ir::StmtRef x = for_loop(now)) return x;
      } else if constexpr (std::is_same_v<N, ir::WhileStmt>) {
        if (ir::StmtRef x = while_loop(now)) return x;
      }
      return copy ? ir::StmtRef(copy) : s;
    });
    --depth_;
    return out;
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
      if (!i || !exits<Exit>(ir::loop_exits(*s))) continue;
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
  static bool exits(const ir::LoopExits& e) {
    return std::is_same_v<Exit, ir::BreakStmt> ? e.breaks : e.continues;
  }

  ir::VarRef new_flag(const core::Span& span) {
    return ir::Var::make("__break_" + std::to_string(flags++),
                         ir::ScalarType::make(core::DataType::BOOL), span);
  }

  /// A `pl.range` loop whose body (already rewritten) breaks or continues, as a while loop with
  /// its exits structured; null when there is nothing to rewrite.
  ir::StmtRef for_loop(const ir::ForStmt& f) {
    const ir::LoopExits e = ir::loop_exits(*f.body);
    const auto* step = ir::as<ir::ConstInt>(f.step.get());
    if (!e.any() || !e.structured || !f.iter_args.empty() ||
        f.for_kind != ir::ForKind::Sequential || !step || step->value == 0)
      return nullptr;
    Stmts stmts = sink<ir::ContinueStmt>(statements_of(f.body), nullptr, f.span, 0);
    if (!e.breaks)
      return ir::ForStmt::make(f.loop_var, f.start, f.stop, f.step, {},
                               ir::SeqStmts::make(std::move(stmts), f.span), {}, f.for_kind,
                               f.attrs, f.span);
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

  /// A while loop whose body (already rewritten) breaks or continues, with its exits
  /// structured; null when there is nothing to rewrite.
  ir::StmtRef while_loop(const ir::WhileStmt& w) {
    const ir::LoopExits e = ir::loop_exits(*w.body);
    if (!e.any() || !e.structured || !w.iter_args.empty()) return nullptr;
    Stmts stmts = sink<ir::ContinueStmt>(statements_of(w.body), nullptr, w.span, 0);
    if (!e.breaks)
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
