// pypto/kernel/fold.ipp — the definitions of kernel/fold.hpp.
//
// A rule table change must keep Folder::may_simplify (the nodes no rule can touch) in step;
// debug builds check it. The same walk can also value-number each node (canonicalize.ipp's
// one-sweep path).
#pragma once

#include "pypto/kernel/fold.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/kernel/op_semantics.hpp"
#include "pypto/kernel/regalloc.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.ipp"

namespace pypto::kernel {

namespace detail {

inline constexpr std::uint32_t kPlusZero = 0x00000000u;
inline constexpr std::uint32_t kMinusZero = 0x80000000u;
inline constexpr std::uint32_t kOne = 0x3f800000u;

/// The pool index of `bits`, appending it when absent and there is room.
inline std::optional<std::uint8_t> intern_const(SsaForm& f, std::uint32_t bits) {
  for (std::size_t i = 0; i < f.consts.size(); ++i) {
    if (f.consts[i] == bits) return static_cast<std::uint8_t>(i);
  }
  if (f.consts.size() >= kMaxConsts) return std::nullopt;
  f.consts.push_back(bits);
  return static_cast<std::uint8_t>(f.consts.size() - 1);
}

class Folder {
 public:
  Folder(SsaForm& f, FoldFlags flags) : f_(f), flags_(flags) {}

  /// One folding walk; with `cse`, each node that folding keeps is also value-numbered in the
  /// same walk (see canonicalize.ipp), and the walk stops early, returning false, when a rule
  /// was skipped for want of a pool slot, a node did not settle in kRewriteRounds, or a rule
  /// that needs two equal operands fired on a node that value numbering may have changed.
  [[gnu::always_inline]] bool run(bool& changed, detail::ValueTable* cse = nullptr) {
    const std::size_t n = f_.nodes.size();
    AliasTable alias{};  // kind None: no alias
    // With `cse`: bit i set when node i is a duplicate, or reads (directly or through other
    // nodes) one; only such nodes can look different here than in a fold pass without CSE.
    std::uint64_t tainted = 0;
    changed = false;
    for (std::size_t i = 0; i < n; ++i) {
      // Work on a copy: writes through the byte-sized fields of a node in the vector would
      // make the compiler reload everything else after each of them. `dirty` tracks whether
      // any step touched the copy, so the exact comparison with `before` runs only then.
      const Node before = f_.nodes[i];
      Node node = before;
      bool node_tainted = false;
      if (cse) {
        for_each_used_operand(before, [&](const Operand& o) {
          node_tainted |= names_node(o) && ((tainted >> o.index) & 1) != 0;
        });
      }
      bool dirty = substitute_aliases(node, alias);
      bool aliased = false;
      equal_operands_ = false;
      if (!node_is_reduction(node.op)) {
        // A rewrite may enable another rule on the same node (Sub -> Neg -> alias): repeat.
        bool settled = false;
        for (int round = 0; round < kRewriteRounds && !settled; ++round) {
          dirty |= order_commutative_swapped(f_, node);
          // simplify() gets a copy: `node` itself never has its address taken, so it can live
          // in registers (no byte stores followed by a word load of the same bytes).
          Node work = node;
          rewrote_ = false;
          const std::optional<Operand> to = may_simplify(node) ? simplify(work) : std::nullopt;
#ifndef NDEBUG
          if (!may_simplify(node) && (simplify(work) || rewrote_)) {
            throw core::InternalError("kernel fold: may_simplify() misses a rule of simplify()");
          }
#endif
          if (!to) {
            settled = !rewrote_ || same_node(work, node);
            dirty |= !settled;
            node = work;
          } else if (i + 1 < n) {
            alias[i] = *to;
            aliased = changed = settled = true;
          } else if (node.op == Op::Mov && same_operand(node.a, *to)) {
            settled = true;
          } else {
            node = Node{Op::Mov, *to, {}, {}};
            dirty = true;
          }
        }
        if (cse && (!settled || pool_full_ || (node_tainted && equal_operands_))) return false;
      }
      if (cse && !aliased && number_value(*cse, node, i, n, alias)) {
        dirty |= i + 1 == n;
        changed = node_tainted = true;
      }
      if (node_tainted) tainted |= std::uint64_t{1} << i;
      if (dirty && !same_node(node, before)) {
        f_.nodes[i] = node;
        changed = true;
      }
    }
    return true;
  }

 private:
  bool is_const(const Operand& o, std::uint32_t bits) const {
    return o.kind == OperandKind::Const && f_.consts[o.index] == bits;
  }
  std::optional<Operand> make_const(std::uint32_t bits) {
    if (auto k = intern(bits)) return constant(*k);
    return std::nullopt;
  }
  std::optional<std::uint8_t> intern(std::uint32_t bits) {
    const std::optional<std::uint8_t> k = intern_const(f_, bits);
    pool_full_ |= !k;
    return k;
  }
  const Node* def(const Operand& o) const {
    return o.kind == OperandKind::Reg ? &f_.nodes[o.index] : nullptr;
  }
  bool flag(FoldFlags wanted) const { return has(flags_, wanted); }

  /// False only where simplify() can do nothing, which saves the call for most nodes: every
  /// rule needs a Const operand, an op below, or an unsafe flag. Debug builds check it.
  bool may_simplify(const Node& node) const {
    constexpr std::uint32_t kOps =
        (1u << static_cast<unsigned>(Op::Mov)) | (1u << static_cast<unsigned>(Op::Neg)) |
        (1u << static_cast<unsigned>(Op::Abs)) | (1u << static_cast<unsigned>(Op::Max)) |
        (1u << static_cast<unsigned>(Op::Min)) | (1u << static_cast<unsigned>(Op::Select));
    // Unused slots are None, so all three can be tested.
    const bool any_const = (node.a.kind == OperandKind::Const) |
                           (node.b.kind == OperandKind::Const) |
                           (node.c.kind == OperandKind::Const);
    return any_const || ((kOps >> static_cast<unsigned>(node.op)) & 1) != 0 ||
           flags_ != FoldFlags::None;
  }

  /// An operand the node equals, or nullopt; may rewrite `node` in place instead.
  std::optional<Operand> simplify(Node& node) {
    const OpInfo& info = op_info(node.op);
    if (auto c = fold_constants(node, info)) return c;
    const Operand& a = node.a;
    const Operand& b = node.b;
    switch (node.op) {
      case Op::Mov: return a;
      case Op::Neg:
        if (const Node* d = def(a); d && d->op == Op::Neg) return d->a;
        break;
      case Op::Abs:
        if (const Node* d = def(a); d && (d->op == Op::Neg || d->op == Op::Abs)) {
          node.a = d->a;
          rewrote_ = true;
          return std::nullopt;
        }
        break;
      case Op::Mul:
        if (is_const(b, kOne)) return a;
        if (is_const(a, kOne)) return b;
        if (flag(FoldFlags::NoNaNs | FoldFlags::NoInfs | FoldFlags::NoSignedZeros) &&
            (is_const(a, kPlusZero) || is_const(a, kMinusZero) || is_const(b, kPlusZero) ||
             is_const(b, kMinusZero))) {
          return make_const(kPlusZero);
        }
        return reassociate(node);
      case Op::Div:
        if (is_const(b, kOne)) return a;
        break;
      case Op::Add:
        if (is_const(b, kMinusZero)) return a;
        if (is_const(a, kMinusZero)) return b;
        if (flag(FoldFlags::NoSignedZeros)) {
          if (is_const(b, kPlusZero)) return a;
          if (is_const(a, kPlusZero)) return b;
        }
        return reassociate(node);
      case Op::Sub:
        if (is_const(b, kPlusZero)) return a;
        if (flag(FoldFlags::NoSignedZeros) && is_const(b, kMinusZero)) return a;
        if (is_const(a, kMinusZero) || (flag(FoldFlags::NoSignedZeros) && is_const(a, kPlusZero))) {
          node = Node{Op::Neg, b, {}, {}};
          rewrote_ = true;
          return std::nullopt;
        }
        if (flag(FoldFlags::NoNaNs | FoldFlags::NoInfs) && same_operand(a, b)) {
          equal_operands_ = true;
          return make_const(kPlusZero);
        }
        break;
      case Op::Max:
      case Op::Min:
        if (same_operand(a, b)) {
          equal_operands_ = true;
          return a;
        }
        break;
      case Op::Select:
        if (same_operand(b, node.c)) {
          equal_operands_ = true;
          return b;
        }
        if (a.kind == OperandKind::Const)
          return bits_float(f_.consts[a.index]) != 0.0f ? b : node.c;
        break;
      default: break;
    }
    return std::nullopt;
  }

  std::optional<Operand> fold_constants(const Node& node, const OpInfo& info) {
    if (!info.host_foldable || node.op == Op::Mov || node.a.kind != OperandKind::Const) {
      return std::nullopt;
    }
    std::array<float, 3> v{};
    for (std::size_t s = 0; s < info.arity; ++s) {
      const Operand& o = node.slot(s);
      if (o.kind != OperandKind::Const) return std::nullopt;
      v[s] = bits_float(f_.consts[o.index]);
      if (std::isnan(v[s])) return std::nullopt;
    }
    if ((node.op == Op::Max || node.op == Op::Min) && v[0] == 0.0f && v[1] == 0.0f) {
      return std::nullopt;  // which zero max(+0,-0) returns is target-dependent
    }
    const float r = apply_op(node.op, v[0], v[1], v[2]);
    if (std::isnan(r)) return std::nullopt;
    return make_const(float_bits(r));
  }

  /// Reassociate: (x op c1) op c2 -> x op (c1 op c2), for op in {Add, Mul}; rewrites in place.
  std::optional<Operand> reassociate(Node& node) {
    if (!flag(FoldFlags::Reassociate) || node.b.kind != OperandKind::Const) return std::nullopt;
    const Node* d = def(node.a);
    if (!d || d->op != node.op || d->b.kind != OperandKind::Const ||
        d->a.kind == OperandKind::Const) {
      return std::nullopt;
    }
    const float c = apply_op(node.op, bits_float(f_.consts[d->b.index]),
                             bits_float(f_.consts[node.b.index]), 0.0f);
    if (auto k = intern(float_bits(c))) {
      node = Node{node.op, d->a, constant(*k), {}};
      rewrote_ = true;
    }
    return std::nullopt;
  }

  static constexpr int kRewriteRounds = 4;

  SsaForm& f_;
  FoldFlags flags_;
  bool rewrote_ = false;         // simplify() rewrote the node in place
  bool pool_full_ = false;       // a rule was skipped: the constant pool had no free slot
  bool equal_operands_ = false;  // a rule that needs two equal operands fired on this node
};

}  // namespace detail

PYPTO_DECL bool fold(SsaForm& f, FoldFlags flags) {
  bool changed = false;
  detail::Folder(f, flags).run(changed);
  return changed;
}

PYPTO_DECL Spec fold_constants(const Spec& spec, FoldFlags flags) {
  SsaForm f = to_ssa(spec);
  fold(f, flags);
  return allocate(std::move(f));
}

}  // namespace pypto::kernel
