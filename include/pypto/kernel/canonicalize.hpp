// pypto/kernel/canonicalize.hpp — the canonical form of a kernel Spec.
//
// canonicalize(spec, flags) converts to the value form (ssa.hpp) and repeats one round —
// compact_constants, fold (flags), eliminate_common_subexpressions, eliminate_dead_code — until
// a round changes nothing, then allocates registers. The result is a fixpoint of the round and
// allocation is a pure function of it, so canonicalize(canonicalize(s)) == canonicalize(s) byte
// for byte (a one-shot pipeline is not: `max(a*b, a*b)` only folds after CSE). Views, runtime
// scalars and the matmul segment are unchanged; the constant pool is compacted and may gain
// folded constants (dispatch must use the canonical pool). The fixpoint is normally computed in
// one sweep that folds and value-numbers each node in one visit. O(instrs) for the sweep,
// O(rounds * instrs) for the rounds.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pypto/core/config.hpp"
#include "pypto/kernel/fold.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.hpp"

namespace pypto::kernel {

/// The version of the canonicalization pipeline and of its rule set; part of the key.
inline constexpr std::uint32_t kPipelineVersion = 1;

/// The cap on the rounds; a loop that does not converge within it is a core::InternalError (a
/// bug to report): every rewrite makes the code smaller or moves it toward a fixed operand
/// order, so the loop converges.
inline constexpr std::size_t kMaxCanonicalizeRounds = 64;

/// Canonicalizes the value form in place (no register allocation): the fixpoint of the rounds,
/// computed in one sweep when it can be (detail::canonicalize_by_sweep) and by the rounds
/// otherwise. Debug builds check the sweep against the rounds. Throws SpecError when `f` is
/// outside the limits of a valid spec's value form (1..kMaxInstrs nodes, <= kMaxConsts
/// constants), which every pass assumes.
PYPTO_DECL void canonicalize(SsaForm& f, FoldFlags flags = FoldFlags::None);

/// The canonical form of a valid spec. validate() runs once, on the input (in to_ssa); the
/// passes keep the value form valid by construction, so the loop does not re-validate. Debug
/// builds check the result as well. Throws SpecError for an invalid input or if the canonical
/// code needs more than kMaxRegs registers.
PYPTO_DECL Spec canonicalize(const Spec& spec, FoldFlags flags = FoldFlags::None);

namespace detail {

/// Runs the rounds on the value form to a fixpoint: the definition of the canonical form. The
/// passes run in the fixed cyclic order compact_constants, fold, CSE, DCE, and the loop stops
/// as soon as four consecutive passes changed nothing (the same form as the round-based loop).
PYPTO_DECL void canonicalize_by_rounds(SsaForm& f, FoldFlags flags);

/// The same fixpoint in one sweep, for the exact rules (FoldFlags::None): compact_constants,
/// one forward walk that folds each node and then value-numbers it in the same visit, DCE and
/// compact_constants. It declines, returning false and leaving `f` unspecified, with any unsafe
/// flag, when a rule was skipped for want of a pool slot, when a node did not settle, and when
/// Max(x, x), Min(x, x) or Select(c, x, x) fires on a node that reads a merged value (the rounds
/// may then end elsewhere). Why it otherwise ends where the rounds do: canonicalize.ipp.
PYPTO_DECL bool canonicalize_by_sweep(SsaForm& f, FoldFlags flags);

}  // namespace detail

}  // namespace pypto::kernel

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/kernel/canonicalize.ipp"
#endif
