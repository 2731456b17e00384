// pypto/kernel/regalloc.hpp — liveness register allocation: SsaForm back to a Spec.
//
// Straight-line live ranges form an interval graph, so a greedy walk in definition order that
// always takes the lowest free register is optimal in register count and fully deterministic.
// A value's register is freed after its last reader (a dst may reuse the register of an operand
// that dies in the same instruction); a value that is never read is freed right after its
// definition. Elementwise values get [0, E); reduction vectors get [E, E+R) in instruction
// order and are never reused (the two classes stay disjoint). This is also the renumbering:
// the same SsaForm always gives the same bytes. Only used operand slots are rewritten (unused
// slots stay None). O(instrs).
#pragma once

#include "pypto/core/config.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.hpp"

namespace pypto::kernel {

/// The spec of value form `f`, registers allocated. Throws SpecError if the code needs more
/// than kMaxRegs registers (possible when CSE or folding lengthened live ranges).
PYPTO_DECL Spec allocate(const SsaForm& f);

/// allocate() for a value form that is no longer needed: its pools move into the spec.
PYPTO_DECL Spec allocate(SsaForm&& f);

/// The register allocation pass on a Spec: same instructions, fewest registers.
PYPTO_DECL Spec allocate_registers(const Spec& spec);

}  // namespace pypto::kernel

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/kernel/regalloc.ipp"
#endif
