// pypto/transforms/outline_incore_scopes.hpp — OutlineIncoreScopes.
//
// Each InCoreScopeStmt of an Opaque, Orchestration or Graph function becomes a Function(InCore)
// and a call (a Submit when the scope binds `as tid` or waits on `deps=`); InCore functions are
// left alone. Inputs, outputs, directions, scalar hoisting and carries follow the outliner
// (scope_outliner.hpp); a dead phi's read is no use. An Opaque parent with at least one outlined
// scope is promoted to Orchestration after its `tensor.dim(param, k)` reads of declared dynamic
// symbols are folded onto the symbols; Graph stays Graph. Requires SSAForm; produces SSAForm,
// SplitIncoreOrch, AivSplitValid and NoScalarKernelReturn; the kernels it makes return the
// parameters they write (normalize-return-order makes every kernel do so: ReturnParamsExplicit).
// O(N log N) in the program size.
#pragma once

#include "pypto/core/config.hpp"
#include "pypto/text/call_types.hpp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/scope_outliner.hpp"

namespace pypto::transforms {

/// OutlineIncoreScopes (`outline-incore-scopes`, see the top of this header); `ops` declares which
/// arguments an op reads and writes. A scope that cannot be outlined is an OutlineError.
PYPTO_DECL Pass OutlineIncoreScopes(const ir::OpRegistry& ops = text::default_op_registry());

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/outline_incore_scopes.ipp"
#endif
