// pypto/kernel/regalloc.ipp — the definitions of kernel/regalloc.hpp.
#pragma once

#include "pypto/kernel/regalloc.hpp"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.ipp"
#include "pypto/kernel/validate.hpp"

namespace pypto::kernel {

namespace detail {

/// Allocates registers for the nodes of `f` into out.instrs and out.num_regs (the rest of `out`
/// is the caller's).
inline void allocate_instrs(const SsaForm& f, Spec& out) {
  const std::size_t n = f.nodes.size();
  // last_use[v]: the step from which value v's register is free. A reader at step i frees at
  // step i (reuse by i's own dst); an unread value frees at def + 1.
  std::array<std::uint8_t, kMaxInstrs> last_use;
  for (std::size_t i = 0; i < n; ++i) {
    last_use[i] = static_cast<std::uint8_t>(i + 1);
    detail::for_each_used_operand(f.nodes[i], [&last_use, i](const Operand& o) {
      if (o.kind == OperandKind::Reg && last_use[o.index] < i) {
        last_use[o.index] = static_cast<std::uint8_t>(i);
      }
    });
  }
  // release[step]: the registers that become free at `step`, filled in as values get theirs
  // (a value's register frees after its definition, so its entry is set before it is read).
  std::array<std::uint64_t, kMaxInstrs + 1> release{};
  std::array<std::uint8_t, kMaxInstrs> reg_of{};
  std::uint64_t used = 0;                           // registers in use (up to 64 during allocation)
  std::uint64_t ever = 0;                           // registers used at some step: [0, E)
  std::array<std::uint8_t, kMaxInstrs> reductions;  // in instruction order
  std::size_t num_reductions = 0;
  for (std::size_t i = 0; i < n; ++i) {
    used &= ~release[i];
    if (detail::node_is_reduction(f.nodes[i].op)) {
      reductions[num_reductions++] = static_cast<std::uint8_t>(i);
      continue;
    }
    const std::uint64_t bit = ~used & (used + 1);  // the lowest free register
    reg_of[i] = static_cast<std::uint8_t>(std::countr_zero(bit));
    used |= bit;
    ever |= bit;
    release[last_use[i]] |= bit;
  }
  std::size_t next = static_cast<std::size_t>(std::bit_width(ever));
  for (std::size_t k = 0; k < num_reductions; ++k) {
    reg_of[reductions[k]] = static_cast<std::uint8_t>(next++);
  }
  if (next > kMaxRegs) {
    throw SpecError("num_regs: the code needs " + std::to_string(next) +
                    " registers after allocation, over the limit of " + std::to_string(kMaxRegs));
  }
  out.num_regs = static_cast<std::uint8_t>(next);
  out.instrs.resize(n);
  Instr* const dst = out.instrs.data();
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = f.nodes[i];
    dst[i] = Instr{node.op, reg_of[i], node.a, node.b, node.c};
    detail::remap_node_operands(dst[i], reg_of);  // in place: see to_ssa
  }
}

}  // namespace detail

PYPTO_DECL Spec allocate(const SsaForm& f) {
  Spec out;
  detail::allocate_instrs(f, out);
  out.views = f.views;
  out.consts = f.consts;
  out.runtime_scalars = f.runtime_scalars;
  out.matmul = f.matmul;
  return out;
}

PYPTO_DECL Spec allocate(SsaForm&& f) {
  Spec out;
  detail::allocate_instrs(f, out);
  out.views = std::move(f.views);
  out.consts = std::move(f.consts);
  out.runtime_scalars = std::move(f.runtime_scalars);
  out.matmul = f.matmul;
  return out;
}

PYPTO_DECL Spec allocate_registers(const Spec& spec) { return allocate(to_ssa(spec)); }

}  // namespace pypto::kernel
