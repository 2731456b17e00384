// pypto/transforms/ctrl_flow_transform.hpp — CtrlFlowTransform: break and continue as
// structured control flow in kernels.
//
// CtrlFlowTransform (`ctrl-flow-transform`; requires nothing, produces NormalizedStmtStructure,
// invalidates SSAForm) rewrites, in InCore, AIC and AIV functions, every loop of the natural form
// whose body (outside nested loops) holds a `continue` or a `break`, so that a loop carries its
// values through one trailing yield (what convert-to-ssa needs):
//   1. continue: the statements after an if whose arm continues move into its arms, dropped
//      after the continue (`A; if c: continue; B` -> `A; if c: pass else: B`);
//   2. break: the same with a flag (`__break_N = True` where the break was); a `for i in
//      pl.range(start, stop, step)` loop becomes `i = start; __break_N = False; while i < stop
//      and not __break_N: body; if not __break_N: i = i + step` (`>` for a negative step), a
//      while loop `while c and not __break_N`. The bound is read each iteration.
// A loop left as it is: one with iter_args or if-results already (SSA form), a non-sequential
// or non-constant-step `for`, an exit inside a scope statement of the body. Orchestration code
// keeps its breaks (its code generator lowers them). Deterministic; O(N x depth of exits).
#pragma once

#include "pypto/core/config.hpp"
#include "pypto/transforms/pass.hpp"

namespace pypto::transforms {

/// CtrlFlowTransform (see the top of this header).
PYPTO_DECL Pass CtrlFlowTransform();

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/ctrl_flow_transform.ipp"
#endif
