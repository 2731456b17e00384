// pypto/kernel/ssa.hpp — the value form the kernel passes work on.
//
// A Spec names values by register, and registers are reused after allocation, so a pass that
// keyed facts by register number would be wrong on allocated code (a fact kept for register r
// across a redefinition of r). Every pass therefore first converts to SsaForm, where a Reg or
// ReduceResult operand's index is the position of the node that defines the value, and only
// register allocation (regalloc.hpp) maps values back to registers. Views, constants, runtime
// scalars and the matmul segment are carried unchanged (a MatmulResult operand is a leaf, like
// an Input). The output is the last node. to_ssa validates its input; it is O(instrs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/kernel/spec.hpp"

namespace pypto::kernel {

struct Node {
  Op op = Op::Mov;
  Operand a, b, c;  // Reg / ReduceResult: index of the defining node
  // Always 0. It makes a node eight bytes, so a copy or a comparison is one 64-bit move rather
  // than two overlapping 32-bit ones (which stall store-to-load forwarding on x86).
  std::uint8_t zero = 0;
  constexpr const Operand& slot(std::size_t i) const { return i == 0 ? a : (i == 1 ? b : c); }
  constexpr Operand& slot(std::size_t i) { return i == 0 ? a : (i == 1 ? b : c); }
  friend constexpr bool operator==(const Node&, const Node&) = default;
};

struct SsaForm {
  std::vector<Node> nodes;  // output = nodes.back()
  std::vector<View> views;
  std::vector<std::uint32_t> consts;
  std::vector<std::uint32_t> runtime_scalars;
  std::optional<Matmul> matmul;
  friend bool operator==(const SsaForm&, const SsaForm&) = default;
};

/// True for operands that name a node (and so must be remapped when nodes move).
constexpr bool names_node(const Operand& o) {
  return o.kind == OperandKind::Reg || o.kind == OperandKind::ReduceResult;
}

/// The order of commutative operands (Add, Mul, Eq, Ne): kind first, then the node index or,
/// for a constant, its bit pattern (so the order does not depend on pool positions).
PYPTO_DECL std::uint64_t operand_order(const SsaForm& f, const Operand& o);

/// Puts the operands of a commutative node in operand_order (exact up to the NaN payload).
PYPTO_DECL void order_commutative(const SsaForm& f, Node& n);

/// The value form of `spec`; throws SpecError when it is invalid.
PYPTO_DECL SsaForm to_ssa(const Spec& spec);

}  // namespace pypto::kernel

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/kernel/ssa.ipp"
#endif
