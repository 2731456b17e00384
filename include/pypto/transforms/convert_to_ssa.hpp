// pypto/transforms/convert_to_ssa.hpp — ConvertToSSA: the natural form into SSA form.
//
// ConvertToSSA (`convert-to-ssa`; requires nothing, produces SSAForm and NormalizedStmtStructure)
// rewrites what the parser reads from the natural form — a variable assigned several times,
// stores into `pl.Out` parameters in loops and branches, pre-SSA loops whose body rebinds an
// iter_arg without a yield, `while c:` loops — into SSA form (ssa_form.hpp). The first
// definition of a variable keeps its Var; later ones get `base__ssa_vN`; a loop that redefines
// an outer variable carries it (`base__iter_vN`, `base__rv_vN`), an if after which it differs
// gets `base__phi_vN`. Reading a variable no definition reaches, or carrying one out of a loop
// with break/continue or a `pl.unroll` loop, is a core::ValueError naming it. Names are
// deterministic and the pass is idempotent. O(N + C) expected, N = nodes, C = carries made.
#pragma once

#include "pypto/core/config.hpp"
#include "pypto/transforms/pass.hpp"

namespace pypto::transforms {

/// ConvertToSSA: the natural form into SSA form (see the top of this header; the rules in full
/// head convert_to_ssa.ipp).
PYPTO_DECL Pass ConvertToSSA();

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/convert_to_ssa.ipp"
#endif
