// pypto/kernel/cse.hpp — common subexpression elimination (seed 004 IR-B; issue 7).
//
// Forward value numbering over SsaForm: each node's used operands are first substituted by
// earlier results, commutative operands are put in their fixed order (ssa.hpp), and the node
// (op, a, b, c) is looked up among the earlier nodes; the first occurrence wins and later
// duplicates become aliases of it. Constants are compared by pool index, which after pool
// compaction (dce.hpp) is comparison by bit pattern, so +0 and -0 never merge and NaN constants
// with equal payloads do. Reductions take part (equal reductions of equal operands are one
// vector). The output node is never aliased; a duplicate output becomes Mov(Reg first). The
// table (detail::ValueTable in ssa.hpp, shared with canonicalize's one-sweep walk) is a
// fixed-size open-addressing array that is probed, never iterated: deterministic. O(instrs)
// expected.
#pragma once

#include <cstddef>
#include <utility>

#include "pypto/kernel/regalloc.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.hpp"

namespace pypto::kernel {

/// One CSE walk over the value form; true when anything changed.
inline bool eliminate_common_subexpressions(SsaForm& f) {
  detail::ValueTable table;
  detail::AliasTable alias{};
  const std::size_t n = f.nodes.size();
  bool changed = false;
  for (std::size_t i = 0; i < n; ++i) {
    const Node before = f.nodes[i];  // a local copy: see fold.hpp
    Node node = before;
    bool dirty = detail::substitute_aliases(node, alias);
    dirty |= detail::order_commutative_swapped(f, node);
    if (detail::number_value(table, node, i, n, alias)) {
      dirty |= i + 1 == n;
      changed = true;
    }
    if (dirty && !detail::same_node(node, before)) {
      f.nodes[i] = node;
      changed = true;
    }
  }
  return changed;
}

/// The CSE pass on a Spec (the duplicates stay as dead code; see dce.hpp).
inline Spec eliminate_common_subexpressions(const Spec& spec) {
  SsaForm f = to_ssa(spec);
  eliminate_common_subexpressions(f);
  return allocate(std::move(f));
}

}  // namespace pypto::kernel
