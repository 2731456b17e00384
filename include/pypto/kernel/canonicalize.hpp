// pypto/kernel/canonicalize.hpp — the canonical form of a kernel Spec (seed 004 IR-A + IR-B;
// issue 7).
//
// canonicalize(spec, flags) converts to the value form (ssa.hpp) and repeats one round —
// compact_constants, fold (flags), eliminate_common_subexpressions, eliminate_dead_code — until
// a round changes nothing, then allocates registers. Because the result of the loop is a fixpoint
// of the round and allocation is a pure function of it, canonicalize(canonicalize(s)) ==
// canonicalize(s) byte for byte; seed 004's one-shot pipeline was not idempotent
// (exprspec.md §1.8.1: `max(a*b, a*b)` only folds after CSE). Every rewrite makes the code
// smaller or moves it toward a fixed operand order, so the loop converges; it is capped at
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

namespace pypto::kernel {

/// The version of the canonicalization pipeline and of its rule set; part of the key.
inline constexpr std::uint32_t kPipelineVersion = 1;

inline constexpr std::size_t kMaxCanonicalizeRounds = 64;

/// Runs the rounds on the value form to a fixpoint (no register allocation).
inline void canonicalize(SsaForm& f, FoldFlags flags = FoldFlags::None) {
  for (std::size_t round = 0; round < kMaxCanonicalizeRounds; ++round) {
    bool changed = compact_constants(f);
    changed = fold(f, flags) || changed;
    changed = eliminate_common_subexpressions(f) || changed;
    changed = eliminate_dead_code(f) || changed;
    if (!changed) return;
  }
  throw core::InternalError("kernel canonicalize did not reach a fixpoint in " +
                            std::to_string(kMaxCanonicalizeRounds) + " rounds");
}

inline Spec canonicalize(const Spec& spec, FoldFlags flags = FoldFlags::None) {
  SsaForm f = to_ssa(spec);
  canonicalize(f, flags);
  return allocate(f);
}

}  // namespace pypto::kernel
