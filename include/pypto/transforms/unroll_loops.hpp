// pypto/transforms/unroll_loops.hpp — UnrollLoops: `pl.unroll` loops expanded into their bodies.
//
// UnrollLoops (`unroll-loops`; requires nothing, produces NormalizedStmtStructure, invalidates
// SSAForm) replaces every `for i in pl.unroll(start, stop, step)` loop with its body once per
// value of `i`, in order, `i` replaced by that value (a constant of the loop variable's dtype),
// loops nested in the body unrolled too; the copies are spliced into the enclosing sequence.
// It runs on the natural form, before convert-to-ssa, so a body that rebinds an outer variable
// (`x = pl.add(x, i)`) becomes straight-line rebinding, which convert-to-ssa versions. Bounds
// that are not integer constants, a zero step, init_values, a `break` / `continue` of the loop
// itself, or more than kMaxUnrolledCopies copies in one loop are a core::ValueError naming the
// loop's line:column. Deterministic; O(output size).
#pragma once

#include <cstddef>

#include "pypto/core/config.hpp"
#include "pypto/transforms/pass.hpp"

namespace pypto::transforms {

/// The most copies of a body one unrolled loop may make.
inline constexpr std::size_t kMaxUnrolledCopies = 4096;

/// UnrollLoops (see the top of this header).
PYPTO_DECL Pass UnrollLoops();

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/unroll_loops.ipp"
#endif
