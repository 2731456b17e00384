// pypto/kernel/ssa.ipp — the definitions of kernel/ssa.hpp.
//
// Also the detail helpers the passes share (op trait bytes, node words, alias and
// value-numbering tables, operand walks): the other kernel .ipp files include this one.
#pragma once

#include "pypto/kernel/ssa.hpp"

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "pypto/core/hash.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/validate.hpp"

namespace pypto::kernel {

namespace detail {

/// Byte tables of the op traits the passes read per node (kOpTable rows are 40 bytes).
struct OpTraitBytes {
  std::array<std::uint8_t, kOpCount> arity{};
  std::array<bool, kOpCount> commutative{};
  std::array<bool, kOpCount> reduction{};
};

consteval OpTraitBytes make_op_trait_bytes() {
  OpTraitBytes t;
  for (std::size_t i = 0; i < kOpCount; ++i) {
    t.arity[i] = kOpTable[i].arity;
    t.commutative[i] = kOpTable[i].commutative;
    t.reduction[i] = kOpTable[i].cls != OpClass::Elementwise;
  }
  return t;
}
inline constexpr OpTraitBytes kOpTraitBytes = make_op_trait_bytes();

constexpr std::uint8_t node_arity(Op op) {
  return kOpTraitBytes.arity[static_cast<std::size_t>(op)];
}
constexpr bool node_commutative(Op op) {
  return kOpTraitBytes.commutative[static_cast<std::size_t>(op)];
}
constexpr bool node_is_reduction(Op op) {
  return kOpTraitBytes.reduction[static_cast<std::size_t>(op)];
}

static_assert(sizeof(Operand) == 2 && sizeof(Node) == 8 && std::is_trivially_copyable_v<Node>,
              "Node is eight bytes without padding: its bytes are its value");

/// The bytes of a node as one word (host byte order). Equal words <=> equal nodes, since every
/// field is a byte; for equality tests and hashing within a process, never for stable output.
inline std::uint64_t node_bits(const Node& n) {
  std::uint64_t w = 0;
  std::memcpy(&w, &n, sizeof(Node));
  return w;
}
inline bool same_node(const Node& x, const Node& y) { return node_bits(x) == node_bits(y); }
inline bool same_operand(const Operand& x, const Operand& y) {
  return std::bit_cast<std::uint16_t>(x) == std::bit_cast<std::uint16_t>(y);
}

/// Node -> the operand it is an alias of (kind None: no alias), for the forward walks.
using AliasTable = std::array<Operand, kMaxInstrs>;

/// First-occurrence value numbering for the forward walks (CSE): a fixed-size open-addressing
/// table of node indices keyed by the node's bytes; probed, never iterated, so deterministic.
class ValueTable {
 public:
  ValueTable() { slots_.fill(-1); }

  /// The index of the earliest recorded node equal to `node`, or -1 after recording `node` as
  /// node `i` (nodes are recorded in increasing index order, at most kMaxInstrs of them).
  int find_or_add(const Node& node, std::size_t i) {
    const std::uint64_t key = node_bits(node);
    keys_[i] = key;
    std::size_t slot = static_cast<std::size_t>(core::hash_mix(key)) % kSlots;
    while (slots_[slot] >= 0 && keys_[static_cast<std::size_t>(slots_[slot])] != key) {
      slot = (slot + 1) % kSlots;
    }
    if (slots_[slot] >= 0) return slots_[slot];
    slots_[slot] = static_cast<std::int8_t>(i);
    return -1;
  }

 private:
  static constexpr std::size_t kSlots = 2 * kMaxInstrs;  // load factor <= 1/2
  std::array<std::int8_t, kSlots> slots_;
  std::array<std::uint64_t, kMaxInstrs> keys_;  // written before it is read
};

/// Value-numbers `node` (already substituted and ordered) as node i of n: a duplicate of an
/// earlier node becomes an alias of it, or Mov(Reg first) when it is the output. True when the
/// node was a duplicate.
inline bool number_value(ValueTable& table, Node& node, std::size_t i, std::size_t n,
                         AliasTable& alias) {
  const int first_index = table.find_or_add(node, i);
  if (first_index < 0) return false;
  const auto first = static_cast<std::uint8_t>(first_index);
  if (i + 1 < n) {
    alias[i] = node_is_reduction(node.op) ? reduce_result(first) : reg(first);
  } else {
    node = Node{Op::Mov, reg(first), {}, {}};
  }
  return true;
}

/// Calls fn(operand) on each used operand slot of `n` (a, then b, then c). Unrolled rather than
/// a loop over slot(s), so a local node can stay in registers: a node written byte by byte in
/// memory and then copied as one word stalls store-to-load forwarding.
template <class N, class Fn>
constexpr void for_each_used_operand(N& n, Fn&& fn) {
  const std::uint8_t ar = node_arity(n.op);
  if (ar > 0) fn(n.a);
  if (ar > 1) fn(n.b);
  if (ar > 2) fn(n.c);
}

/// Replaces the index of each used operand of `n` that names a node by map[index].
template <class N, class Map>
constexpr void remap_node_operands(N& n, const Map& map) {
  for_each_used_operand(n, [&map](Operand& o) {
    if (names_node(o)) o.index = map[o.index];
  });
}

/// Replaces the used operands of `n` that name an aliased node by the alias; true when any
/// was replaced (an alias never names its own node, so a replacement changes the operand).
inline bool substitute_aliases(Node& n, const AliasTable& alias) {
  bool replaced = false;
  for_each_used_operand(n, [&alias, &replaced](Operand& o) {
    if (names_node(o)) {
      const Operand to = alias[o.index];
      if (to.kind != OperandKind::None) {
        o = to;
        replaced = true;
      }
    }
  });
  return replaced;
}

}  // namespace detail

PYPTO_DECL std::uint64_t operand_order(const SsaForm& f, const Operand& o) {
  const std::uint64_t value = o.kind == OperandKind::Const ? f.consts[o.index] : o.index;
  return (std::uint64_t{static_cast<std::uint8_t>(o.kind)} << 32) | value;
}

namespace detail {
/// order_commutative, reporting whether it swapped (operands of different order differ).
inline bool order_commutative_swapped(const SsaForm& f, Node& n) {
  if (node_commutative(n.op) && operand_order(f, n.b) < operand_order(f, n.a)) {
    std::swap(n.a, n.b);
    return true;
  }
  return false;
}
}  // namespace detail

PYPTO_DECL void order_commutative(const SsaForm& f, Node& n) {
  detail::order_commutative_swapped(f, n);
}

PYPTO_DECL SsaForm to_ssa(const Spec& spec) {
  validate(spec);
  SsaForm f;
  f.views = spec.views;
  f.consts = spec.consts;
  f.runtime_scalars = spec.runtime_scalars;
  f.matmul = spec.matmul;
  f.nodes.resize(spec.instrs.size());
  Node* const nodes = f.nodes.data();
  std::array<std::uint8_t, kMaxRegs> def{};  // register -> node defining its current value
  for (std::size_t i = 0; i < spec.instrs.size(); ++i) {
    const Instr& in = spec.instrs[i];
    // Remapped where it is stored: a local node patched byte by byte and then stored as one
    // word would stall store-to-load forwarding.
    nodes[i] = Node{in.op, in.a, in.b, in.c};
    detail::remap_node_operands(nodes[i], def);
    def[in.dst] = static_cast<std::uint8_t>(i);
  }
  return f;
}

}  // namespace pypto::kernel
