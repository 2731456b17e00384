// pypto/transforms/unroll_loops.ipp — the definitions of transforms/unroll_loops.hpp.
#pragma once

#include "pypto/transforms/unroll_loops.hpp"

#include <cstdint>
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
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/field.hpp"
#include "pypto/transforms/normalize_stmt_structure.ipp"
#include "pypto/transforms/substitute.hpp"

namespace pypto::transforms {

namespace detail::unroll {

/// Rebuilds statements with their `pl.unroll` loops expanded; expressions are left as they are.
class Unroller : private FieldRewriter<Unroller> {
  friend class FieldRewriter<Unroller>;

 private:
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

  [[noreturn]] static void fail(const ir::ForStmt& f, const std::string& what) {
    throw core::ValueError("unroll-loops: " + f.span.to_string() + ": a pl.unroll loop " + what);
  }

  ir::StmtRef unroll(const ir::ForStmt& f) {
    const auto* start = ir::as<ir::ConstInt>(f.start.get());
    const auto* stop = ir::as<ir::ConstInt>(f.stop.get());
    const auto* step = ir::as<ir::ConstInt>(f.step.get());
    if (!start || !stop || !step) fail(f, "needs integer constant start, stop and step");
    if (step->value == 0) fail(f, "needs a non-zero step");
    if (!f.iter_args.empty()) fail(f, "cannot carry values (init_values)");
    if (ir::loop_exits(*f.body).any())
      fail(f, "cannot break or continue (its iterations are unrolled)");
    const std::int64_t s = step->value;
    std::int64_t copies = 0;
    if (s > 0 ? start->value < stop->value : start->value > stop->value)
      copies = (s > 0 ? stop->value - start->value + s - 1 : start->value - stop->value - s - 1) /
               (s > 0 ? s : -s);
    if (static_cast<std::uint64_t>(copies) > kMaxUnrolledCopies)
      fail(f, "would make " + std::to_string(copies) + " copies of its body, over " +
                  std::to_string(kMaxUnrolledCopies));
    const ir::StmtRef body = stmt(f.body);
    const core::DataType dtype = static_cast<const ir::ScalarType&>(*f.loop_var->type).dtype;
    std::vector<ir::StmtRef> out;
    for (std::int64_t k = 0; k < copies; ++k) {
      Substitution sub;
      sub.set(*f.loop_var, ir::ConstInt::make(start->value + k * s, dtype, f.loop_var->span));
      out.push_back(sub.stmt(body));
    }
    return ir::SeqStmts::make(std::move(out), f.span);
  }

 public:
  /// `s` with its pl.unroll loops expanded (defined after the handlers it dispatches to: clang 14
  /// does not instantiate member templates named earlier in a generic lambda).
  ir::StmtRef stmt(const ir::StmtRef& s) {
    if (++depth_ > core::kMaxNesting)
      throw core::ValueError("unroll-loops: IR nested deeper than " +
                             std::to_string(core::kMaxNesting) + " levels is not supported");
    ir::StmtRef out = ir::visit_stmt(*s, [&](const auto& n) -> ir::StmtRef {
      using N = std::remove_cvref_t<decltype(n)>;
      if constexpr (std::is_same_v<N, ir::ForStmt>)
        if (n.for_kind == ir::ForKind::Unroll) return unroll(n);
      auto copy = rebuilt<Statements>(n);
      return copy ? ir::StmtRef(copy) : s;
    });
    --depth_;
    return out;
  }

 private:
  std::size_t depth_ = 0;
};

}  // namespace detail::unroll

PYPTO_DECL Pass UnrollLoops() {
  return Pass("unroll-loops", /*required=*/{},
              /*produced=*/{Property::NormalizedStmtStructure},
              /*invalidated=*/{Property::SSAForm},
              [](const ir::Program& program) -> ir::ProgramRef {
                std::vector<ir::FunctionRef> functions;
                bool changed = false;
                detail::StmtStructureNormalizer normalizer;  // the copies spliced in place
                for (const auto& entry : program.functions) {
                  ir::FunctionRef f = normalizer.function(entry.function);
                  ir::StmtRef body = f->body ? detail::unroll::Unroller().stmt(f->body) : nullptr;
                  if (body != f->body) {
                    auto copy = ir::copy_node(*f);
                    copy->body = std::move(body);
                    f = normalizer.function(copy);
                  }
                  changed = changed || f != entry.function;
                  functions.push_back(std::move(f));
                }
                if (!changed) return ir::ProgramRef(&program);
                return ir::Program::make(program.name, std::move(functions));
              });
}

}  // namespace pypto::transforms
