// pypto/kernel/cse.hpp — common subexpression elimination (seed 004 IR-B; issue 7).
//
// Forward value numbering over SsaForm: each node's used operands are first substituted by
// earlier results, commutative operands are put in their fixed order (ssa.hpp), and the node
// (op, a, b, c) is looked up among the earlier nodes; the first occurrence wins and later
// duplicates become aliases of it. Constants are compared by pool index, which after pool
// compaction (dce.hpp) is comparison by bit pattern, so +0 and -0 never merge and NaN constants
// with equal payloads do. Reductions take part (equal reductions of equal operands are one
// vector). The output node is never aliased; a duplicate output becomes Mov(Reg first). The
// table is a fixed-size open-addressing array that is probed, never iterated: deterministic.
// O(instrs) expected.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "pypto/core/hash.hpp"
#include "pypto/kernel/regalloc.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.hpp"

namespace pypto::kernel {

namespace detail {

inline std::uint64_t pack_node(const Node& n) {
  auto op = [](const Operand& o) {
    return (std::uint64_t{static_cast<std::uint8_t>(o.kind)} << 8) | o.index;
  };
  return (std::uint64_t{static_cast<std::uint8_t>(n.op)} << 48) | (op(n.a) << 32) |
         (op(n.b) << 16) | op(n.c);
}

}  // namespace detail

/// One CSE walk over the value form; true when anything changed.
inline bool eliminate_common_subexpressions(SsaForm& f) {
  constexpr std::size_t kSlots = 2 * kMaxInstrs;  // load factor <= 1/2
  std::array<std::int8_t, kSlots> table;
  table.fill(-1);
  std::array<std::uint64_t, kMaxInstrs> packed;  // written before it is read
  detail::AliasTable alias{};
  const std::size_t n = f.nodes.size();
  bool changed = false;
  for (std::size_t i = 0; i < n; ++i) {
    const Node before = f.nodes[i];  // a local copy: see fold.hpp
    Node node = before;
    bool dirty = detail::substitute_aliases(node, alias);
    dirty |= detail::order_commutative_swapped(f, node);
    const std::uint64_t key = detail::node_bits(node);  // probe order only
    packed[i] = key;
    std::size_t slot = static_cast<std::size_t>(core::hash_mix(key)) % kSlots;
    while (table[slot] >= 0 && packed[static_cast<std::size_t>(table[slot])] != key) {
      slot = (slot + 1) % kSlots;
    }
    if (table[slot] < 0) {
      table[slot] = static_cast<std::int8_t>(i);
    } else {
      const auto first = static_cast<std::uint8_t>(table[slot]);
      if (i + 1 < n) {
        alias[i] = detail::node_is_reduction(node.op) ? reduce_result(first) : reg(first);
      } else {
        node = Node{Op::Mov, reg(first), {}, {}};
        dirty = true;
      }
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
  return allocate(f);
}

}  // namespace pypto::kernel
