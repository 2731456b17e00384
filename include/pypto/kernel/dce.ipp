// pypto/kernel/dce.ipp — the definitions of kernel/dce.hpp.
#pragma once

#include "pypto/kernel/dce.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "pypto/kernel/regalloc.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.ipp"

namespace pypto::kernel {

PYPTO_DECL bool eliminate_dead_code(SsaForm& f) {
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

PYPTO_DECL bool compact_constants(SsaForm& f) {
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

PYPTO_DECL Spec eliminate_dead_code(const Spec& spec) {
  SsaForm f = to_ssa(spec);
  eliminate_dead_code(f);
  compact_constants(f);
  return allocate(std::move(f));
}

}  // namespace pypto::kernel
