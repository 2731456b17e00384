// pypto/transforms/normalize_return_order.hpp — kernel returns readable by position alone.
//
// NormalizeReturnOrder (`normalize-return-order`) makes what orchestration code needs to know of
// a kernel's results a matter of position, not analysis, in three steps:
//   1. every InCore, AIC, AIV, Group or Spmd function returns a tensor that is provably a
//      parameter's buffer (return_lineage.hpp) as that parameter itself (ReturnParamsExplicit);
//   2. an InCore function whose returns each name a distinct Out / InOut parameter, in another
//      order than the parameters', returns them (and declares their types) in parameter order;
//   3. every read `r[i]` of a call or submit of such a kernel follows its result to the new
//      position (a submit's task id stays last), so each name keeps the same buffer.
// A kernel one of whose call results is used other than by `r[i]` (returned, yielded or passed
// on whole) keeps its order: moving it would change what that use sees. Requires
// SplitIncoreOrch; produces ReturnParamsExplicit; keeps every other property (a rebound result
// is a fresh Var, bound once). O(N) in the program size, plus one pass per kernel whose order
// had to be kept.
#pragma once

#include "pypto/core/config.hpp"
#include "pypto/text/call_types.hpp"
#include "pypto/transforms/pass.hpp"

namespace pypto::transforms {

/// NormalizeReturnOrder (see the top of this header); `ops` declares which arguments an op
/// writes, which return lineage follows.
PYPTO_DECL Pass NormalizeReturnOrder(const ir::OpRegistry& ops = text::default_op_registry());

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/normalize_return_order.ipp"
#endif
