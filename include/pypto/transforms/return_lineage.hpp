// pypto/transforms/return_lineage.hpp — which parameter's buffer a value of a function is.
//
// A kernel returns the parameter it writes through, not the SSA result of the write, so
// orchestration code maps results to arguments by identity. `param_of(fn, v)` is the index of
// the parameter of `fn` whose memory `v` is, or nullopt when `v` is (or may be) a buffer of its
// own. A value aliases parameter j when it is j, or follows from one that does by a copy, the
// one written argument of a registered op (declared effects, never op names), the Out/InOut
// slot a called program function returns, a loop carry whose init and yield both alias j, or an
// if whose arms both yield j. Anything else gives nullopt: conservative, never a guess. Each
// function is solved once, by forward passes over its statements (O(statements) each, one more
// per round of refuted carries); recursion only over callees. A ReturnLineage keeps pointers to
// the functions, program and registry it is given: they must outlive it.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/text/call_types.hpp"

namespace pypto::ir {
struct Program;
}  // namespace pypto::ir

namespace pypto::transforms {

class ReturnLineage {
 public:
  using ParamIndex = std::optional<std::size_t>;

  /// `program` resolves callees (null: calls of program functions give nullopt).
  PYPTO_DECL explicit ReturnLineage(const ir::Program* program = nullptr,
                                    const ir::OpRegistry& ops = text::default_op_registry());
  PYPTO_DECL ReturnLineage(ReturnLineage&&) noexcept;
  PYPTO_DECL ReturnLineage& operator=(ReturnLineage&&) noexcept;
  PYPTO_DECL ~ReturnLineage();

  /// The index of the parameter of `fn` whose buffer `v` is, or nullopt.
  PYPTO_DECL ParamIndex param_of(const ir::Function& fn, const ir::Var& v);
  ParamIndex param_of(const ir::Function& fn, const ir::ExprRef& e) {
    const auto* v = ir::as<ir::Var>(e.get());
    return v ? param_of(fn, *v) : std::nullopt;
  }

  /// For each return position of `fn`, the parameter its returned value aliases: every
  /// ReturnStmt of the body must agree (nullopt where they do not, or where there is none).
  PYPTO_DECL std::vector<ParamIndex> returned_params(const ir::Function& fn);

 private:
  struct FunctionState;  // one function's events and solution (return_lineage.ipp)

  PYPTO_DECL FunctionState& state(const ir::Function& fn);

  const ir::Program* program_;
  const ir::OpRegistry* ops_;
  ::pypto::detail::PointerMap<std::size_t> index_;  // function -> its state in states_
  std::vector<std::unique_ptr<FunctionState>> states_;
};

/// The parameter of `fn` whose buffer `v` is (see the top of this header), or nullopt.
PYPTO_DECL std::optional<std::size_t> return_lineage(
    const ir::Function& fn, const ir::Var& v, const ir::Program* program = nullptr,
    const ir::OpRegistry& ops = text::default_op_registry());

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/return_lineage.ipp"
#endif
