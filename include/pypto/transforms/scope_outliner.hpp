// pypto/transforms/scope_outliner.hpp — turning scope statements into functions and calls.
//
// The machinery OutlineIncoreScopes and OutlineClusterScopes share: each target scope of a
// function, in program order, becomes a new function and a Call (a Submit with `as tid` /
// deps) of it. Parameters are the scope's live-in set in first-read order, directions from the
// op registry's declared effects; outputs are its definitions used after the scope plus the
// captured tensors it writes, returned as their parameters (ReturnParamsExplicit); scalar
// live-outs the caller can compute are hoisted before the call, any other is an OutlineError;
// renames of written tensors are threaded out of loops and ifs as real carries. Names are
// `{func}_{kind}_{n}` or the scope's name hint, made unique. O(N log N) per function.
#pragma once

#include <functional>
#include <string>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/program.hpp"

namespace pypto::ir {
struct Stmt;
class OpRegistry;
}  // namespace pypto::ir

namespace pypto::transforms {

/// A user-facing outlining error (a scalar that cannot leave a kernel, a cache policy on a
/// tensor the scope does not capture, ...): the message names the variable or parameter.
class OutlineError : public core::ValueError {
 public:
  using core::ValueError::ValueError;
};

/// What one outlining pass extracts and how.
struct OutlineTarget {
  std::string pass_name;  ///< for messages: "outline-incore-scopes"
  std::function<bool(const ir::Stmt&)> is_target;
  ir::FunctionType function_type;  ///< InCore, Group or Spmd
  std::string kind;                ///< the default name's middle part: "incore", ...
  bool promote_opaque = false;     ///< an Opaque parent becomes Orchestration
  bool fold_param_dims = false;    ///< fold tensor.dim(param, k) on promotion
  /// A split_aiv region outside any InCore scope (upstream's bare `for aiv in pl.split_aiv(2)`
  /// in an orchestration function) is first wrapped in its implicit InCore scope.
  bool wrap_bare_splits = false;
};

/// Outlines every target scope of the functions `scan` accepts; other functions are kept.
PYPTO_DECL ir::ProgramRef outline_scopes(const ir::Program& program, const OutlineTarget& target,
                                         const ir::OpRegistry& ops,
                                         const std::function<bool(const ir::Function&)>& scan);

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/scope_outliner.ipp"
#endif
