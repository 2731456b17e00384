// pypto/kernel/canonicalize.hpp — the canonical form of a kernel Spec (seed 004 IR-A + IR-B;
// issue 7).
//
// canonicalize(spec, flags) converts to the value form (ssa.hpp) and repeats one round —
// compact_constants, fold (flags), eliminate_common_subexpressions, eliminate_dead_code — until
// a round changes nothing, then allocates registers. Because the result of the loop is a fixpoint
// of the round and allocation is a pure function of it, canonicalize(canonicalize(s)) ==
// canonicalize(s) byte for byte; seed 004's one-shot pipeline was not idempotent
// (exprspec.md §1.8.1: `max(a*b, a*b)` only folds after CSE). Every rewrite makes the code
// smaller or moves it toward a fixed operand order, so the loop converges (it stops after one
// full cycle of passes that changed nothing, see below); it is capped at
// kMaxCanonicalizeRounds and throws core::InternalError if it ever does not (a bug to report).
// Views and runtime scalars are unchanged; the constant pool is compacted and may gain folded
// constants (dispatch must use the canonical pool). Throws SpecError for an invalid input or if
// the canonical code needs more than kMaxRegs registers. O(rounds * instrs).
#pragma once

#include <cstddef>
#include <string>

#include "pypto/core/error.hpp"
#include "pypto/kernel/cse.hpp"
#include "pypto/kernel/dce.hpp"
#include "pypto/kernel/fold.hpp"
#include "pypto/kernel/regalloc.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.hpp"
#include "pypto/kernel/validate.hpp"

namespace pypto::kernel {

/// The version of the canonicalization pipeline and of its rule set; part of the key.
inline constexpr std::uint32_t kPipelineVersion = 1;

inline constexpr std::size_t kMaxCanonicalizeRounds = 64;

/// Runs the rounds on the value form to a fixpoint (no register allocation).
///
/// The passes run in the fixed cyclic order compact_constants, fold, CSE, DCE, exactly as the
/// rounds describe, but the loop stops as soon as any kPasses consecutive passes changed nothing
/// rather than at the end of a quiet round that starts with compact_constants. The result is the
/// same: a pass that reports no change leaves the form as it was (every pass's flag is exact in
/// that direction), so after kPasses quiet passes in a row the form is a fixpoint of each pass,
/// and the remaining passes of the round-based loop would all have been quiet too. It saves
/// most of the confirming round (typically the first round rewrites, the second only compacts
/// the pool that DCE left with unused constants, and the third confirms).
inline void canonicalize(SsaForm& f, FoldFlags flags = FoldFlags::None) {
  constexpr std::size_t kPasses = 4;
  std::size_t quiet = 0;  // consecutive passes that changed nothing
  for (std::size_t step = 0; step < kMaxCanonicalizeRounds * kPasses; ++step) {
    bool changed = false;
    switch (step % kPasses) {
      case 0: changed = compact_constants(f); break;
      case 1: changed = fold(f, flags); break;
      case 2: changed = eliminate_common_subexpressions(f); break;
      default: changed = eliminate_dead_code(f); break;
    }
    quiet = changed ? 0 : quiet + 1;
    if (quiet == kPasses) return;
  }
  throw core::InternalError("kernel canonicalize did not reach a fixpoint in " +
                            std::to_string(kMaxCanonicalizeRounds) + " rounds");
}

/// The canonical form of a valid spec. validate() runs once, on the input (in to_ssa); the
/// passes keep the value form valid by construction, so the loop does not re-validate. Debug
/// builds check the result as well.
inline Spec canonicalize(const Spec& spec, FoldFlags flags = FoldFlags::None) {
  SsaForm f = to_ssa(spec);
  canonicalize(f, flags);
  Spec out = allocate(f);
#ifndef NDEBUG
  validate(out);
#endif
  return out;
}

}  // namespace pypto::kernel
