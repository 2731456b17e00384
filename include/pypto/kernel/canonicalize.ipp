// pypto/kernel/canonicalize.ipp — the definitions of kernel/canonicalize.hpp.
#pragma once

#include "pypto/kernel/canonicalize.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "pypto/core/error.hpp"
#include "pypto/kernel/cse.hpp"
#include "pypto/kernel/dce.hpp"
#include "pypto/kernel/fold.ipp"
#include "pypto/kernel/regalloc.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.ipp"
#include "pypto/kernel/validate.hpp"

namespace pypto::kernel {

namespace detail {

/// Runs the rounds on the value form to a fixpoint: the definition of the canonical form.
///
/// The passes run in the fixed cyclic order compact_constants, fold, CSE, DCE, exactly as the
/// rounds describe, but the loop stops as soon as any kPasses consecutive passes changed nothing
/// rather than at the end of a quiet round that starts with compact_constants. The result is the
/// same: a pass that reports no change leaves the form as it was (every pass's flag is exact in
/// that direction), so after kPasses quiet passes in a row the form is a fixpoint of each pass,
/// and the remaining passes of the round-based loop would all have been quiet too.
PYPTO_DECL void canonicalize_by_rounds(SsaForm& f, FoldFlags flags) {
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

/// The same fixpoint in one sweep, for the exact rules (FoldFlags::None): compact_constants,
/// one forward walk that folds each node and then value-numbers it in the same visit, DCE and
/// compact_constants. Why the rounds end in the same form: value numbering merges only nodes
/// (never constants, which compaction has already made unique), and the exact rules look only
/// at operand kinds, constant bits and the ops of defining nodes, all of which a merge keeps,
/// except Max(x, x), Min(x, x) and Select(c, x, x), which need two operands to be one value.
/// So unless one of those fires on a node that reads a merged value, the walk folds what the
/// first fold pass folds and merges what the first CSE pass merges, into the same first
/// occurrences, and the later rounds end where the walk does. Where one does fire, the rounds may
/// delete the first occurrence of a value as dead code before its duplicate is recognized
/// (min(a, a') + b is first a distinct value, and dies, before CSE and folding make it a + b),
/// so the walk declines. It also declines with any unsafe flag (those rules are order-
/// sensitive: with NoSignedZeros, (+0) + Neg(x - x) becomes -0 through the rounds but +0 once
/// x - x is known to be +0), when a rule was skipped for want of a pool slot, and when a node
/// did not settle. False when it declines; `f` is then unspecified.
PYPTO_DECL bool canonicalize_by_sweep(SsaForm& f, FoldFlags flags) {
  if (flags != FoldFlags::None) return false;
  compact_constants(f);
  ValueTable table;
  bool changed = false;
  if (!Folder(f, flags).run(changed, &table)) return false;
  eliminate_dead_code(f);
  compact_constants(f);
  return true;
}

[[noreturn, gnu::cold, gnu::noinline]] inline void throw_outside_limits(const SsaForm& f) {
  throw SpecError("canonicalize: a value form of " + std::to_string(f.nodes.size()) +
                  " nodes and " + std::to_string(f.consts.size()) +
                  " constants is outside the limits (1.." + std::to_string(kMaxInstrs) +
                  " nodes, " + std::to_string(kMaxConsts) + " constants)");
}

}  // namespace detail

namespace detail {

/// canonicalize() given `reload(f)`, which puts the input back into `f` for the rounds when the
/// sweep declines (it has changed `f` by then).
template <class Reload>
void canonicalize_with(SsaForm& f, FoldFlags flags, Reload&& reload) {
  if (f.nodes.empty() || f.nodes.size() > kMaxInstrs || f.consts.size() > kMaxConsts) {
    throw_outside_limits(f);
  }
  if (flags != FoldFlags::None) {
    canonicalize_by_rounds(f, flags);  // the sweep would decline at once
    return;
  }
  if (!canonicalize_by_sweep(f, flags)) {
    reload(f);
    canonicalize_by_rounds(f, flags);
    return;
  }
#ifndef NDEBUG
  const SsaForm by_sweep = f;
  reload(f);
  canonicalize_by_rounds(f, flags);
  if (!(by_sweep == f)) {
    throw core::InternalError("kernel canonicalize: the sweep and the rounds disagree");
  }
#endif
}

}  // namespace detail

PYPTO_DECL void canonicalize(SsaForm& f, FoldFlags flags) {
  // The input, for the rounds if the sweep declines (fixed-size: canonicalize_with checks the
  // limits before the sweep, and only the sweep calls reload).
  std::array<Node, kMaxInstrs> nodes;
  std::array<std::uint32_t, kMaxConsts> consts;
  const std::size_t num_nodes = std::min(f.nodes.size(), kMaxInstrs);
  const std::size_t num_consts = std::min(f.consts.size(), kMaxConsts);
  if (flags == FoldFlags::None) {
    std::copy_n(f.nodes.begin(), num_nodes, nodes.begin());
    std::copy_n(f.consts.begin(), num_consts, consts.begin());
  }
  detail::canonicalize_with(f, flags, [&](SsaForm& g) {
    g.nodes.assign(nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(num_nodes));
    g.consts.assign(consts.begin(), consts.begin() + static_cast<std::ptrdiff_t>(num_consts));
  });
}

PYPTO_DECL Spec canonicalize(const Spec& spec, FoldFlags flags) {
  SsaForm f = to_ssa(spec);
  detail::canonicalize_with(f, flags, [&spec](SsaForm& g) { g = to_ssa(spec); });
  Spec out = allocate(std::move(f));
#ifndef NDEBUG
  validate(out);
#endif
  return out;
}

}  // namespace pypto::kernel
