// pypto/kernel/dce.hpp — dead code elimination and constant-pool compaction (seed 004 IR-A;
// issue 7).
//
// eliminate_dead_code: the output is the last node, seen through Mov of an elementwise register
// (folding and CSE turn an output that equals an earlier value into such a Mov); nodes are live
// when the output reads them transitively through used operand slots (Reg and ReduceResult).
// Live nodes keep their order; the others go. compact_constants: the pool is rebuilt in order of
// first use (node order, slot order), with constants deduplicated by bit pattern (+0 and -0 stay
// two constants; a NaN merges only with the same payload) and unused ones dropped. Views,
// runtime scalars and the matmul segment are never touched, so the input binding layout stays
// the same, and the inputs the matmul reads stay bound even when no instruction reads its
// result any more (a MatmulResult operand is a leaf: nothing to mark). O(instrs).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "pypto/kernel/regalloc.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.hpp"

namespace pypto::kernel {

/// Drops the nodes the output does not read; true when anything changed.
inline bool eliminate_dead_code(SsaForm& f) {
  std::size_t out = f.nodes.size() - 1;
  while (f.nodes[out].op == Op::Mov && f.nodes[out].a.kind == OperandKind::Reg) {
    out = f.nodes[out].a.index;
  }
  std::array<bool, kMaxInstrs> live{};
  live[out] = true;
  std::size_t n_live = 0;  // live nodes in [0, out]: each is visited once below
  for (std::size_t i = out + 1; i-- > 0;) {
    if (!live[i]) continue;
    ++n_live;
    detail::for_each_used_operand(f.nodes[i], [&live](const Operand& o) {
      if (names_node(o)) live[o.index] = true;
    });
  }
  if (n_live == f.nodes.size()) return false;  // all live (so out is last): later rounds
  // Compact in place: live nodes keep their order, readers follow their operands' moves.
  std::array<std::uint8_t, kMaxInstrs> new_index{};
  std::size_t kept = 0;
  for (std::size_t i = 0; i <= out; ++i) {
    if (!live[i]) continue;
    f.nodes[kept] = f.nodes[i];  // remapped in place: see to_ssa
    detail::remap_node_operands(f.nodes[kept], new_index);
    new_index[i] = static_cast<std::uint8_t>(kept++);
  }
  const bool changed = kept != f.nodes.size();  // same size: nothing was dropped
  f.nodes.resize(kept);
  return changed;
}

/// Rebuilds the constant pool in first-use order, deduplicated by bits; true when changed.
inline bool compact_constants(SsaForm& f) {
  std::array<std::uint32_t, kMaxConsts> pool{};
  std::size_t size = 0;
  bool changed = false;
  for (Node& node : f.nodes) {
    detail::for_each_used_operand(node, [&](Operand& o) {
      if (o.kind != OperandKind::Const) return;
      const std::uint32_t bits = f.consts[o.index];
      std::size_t k = 0;
      while (k < size && pool[k] != bits) ++k;
      if (k == size) pool[size++] = bits;
      if (o.index != k) {
        o.index = static_cast<std::uint8_t>(k);
        changed = true;
      }
    });
  }
  changed = changed || size != f.consts.size();
  f.consts.assign(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(size));
  return changed;
}

/// The DCE pass on a Spec: dead instructions and unused constants go, registers are reallocated.
inline Spec eliminate_dead_code(const Spec& spec) {
  SsaForm f = to_ssa(spec);
  eliminate_dead_code(f);
  compact_constants(f);
  return allocate(std::move(f));
}

}  // namespace pypto::kernel
