// pypto/kernel/cse.hpp — common subexpression elimination.
//
// Forward value numbering over SsaForm: each node's used operands are first substituted by
// earlier results, commutative operands are put in their fixed order (ssa.hpp), and the node
// (op, a, b, c) is looked up among the earlier nodes; the first occurrence wins and later
// duplicates become aliases of it. Constants are compared by pool index, which after pool
// compaction (dce.hpp) is comparison by bit pattern, so +0 and -0 never merge and NaN constants
// with equal payloads do. Reductions take part. The output node is never aliased; a duplicate
// output becomes Mov(Reg first). The table is a fixed-size open-addressing array that is
// probed, never iterated: deterministic. O(instrs) expected.
#pragma once

#include "pypto/core/config.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.hpp"

namespace pypto::kernel {

/// One CSE walk over the value form; true when anything changed.
PYPTO_DECL bool eliminate_common_subexpressions(SsaForm& f);

/// The CSE pass on a Spec (the duplicates stay as dead code; see dce.hpp).
PYPTO_DECL Spec eliminate_common_subexpressions(const Spec& spec);

}  // namespace pypto::kernel

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/kernel/cse.ipp"
#endif
