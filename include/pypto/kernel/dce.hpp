// pypto/kernel/dce.hpp — dead code elimination and constant-pool compaction.
//
// eliminate_dead_code: the output is the last node, seen through Mov of an elementwise register
// (folding and CSE turn an output that equals an earlier value into such a Mov); nodes are live
// when the output reads them transitively through used operand slots. Live nodes keep their
// order; the others go. compact_constants rebuilds the pool in order of first use, deduplicated
// by bit pattern (+0 and -0 stay two constants; a NaN merges only with the same payload), and
// drops unused ones. Views, runtime scalars and the matmul segment are never touched, so the
// input binding layout stays the same, and the inputs the matmul reads stay bound even when no
// instruction reads its result any more. O(instrs).
#pragma once

#include "pypto/core/config.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.hpp"

namespace pypto::kernel {

/// Drops the nodes the output does not read; true when anything changed.
PYPTO_DECL bool eliminate_dead_code(SsaForm& f);

/// Rebuilds the constant pool in first-use order, deduplicated by bits; true when changed.
PYPTO_DECL bool compact_constants(SsaForm& f);

/// The DCE pass on a Spec: dead instructions and unused constants go, registers are reallocated.
PYPTO_DECL Spec eliminate_dead_code(const Spec& spec);

}  // namespace pypto::kernel

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/kernel/dce.ipp"
#endif
