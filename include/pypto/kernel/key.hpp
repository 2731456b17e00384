// pypto/kernel/key.hpp — the 128-bit structural key of a canonical kernel Spec and a registry
// that confirms every hit by full structural equality (seed 004 expr_spec_key; issue 7).
//
// The key says which compiled kernel a spec needs; values that a kernel reads at run time
// (push constants / parameters) are not in it, so one kernel serves every value:
//
//   field                                         | in the key | travels at run time as
//   ----------------------------------------------|------------|------------------------------
//   domain tag, kPipelineVersion (rule set)       | yes        | -
//   fold flags (unsafe rules the target allows)   | yes        | -
//   num_regs                                      | yes        | -
//   instruction count; per instruction op, dst,   | yes        | -
//     a/b/c operand kind and index (None slots    |            |
//     hashed as they are: kind None, index 0)     |            |
//   view count; per view its kind                 | yes        | -
//   view params (RowMod p, RotateHalf p)          | no         | view parameter vp<i>
//   constant count (the parameter block layout)   | yes        | -
//   constant values                               | no         | parameter c<i>
//   runtime-scalar count / values                 | yes / no   | parameter rp<i>
//   matmul segment present                        | yes        | -
//   matmul a_input / b_input (input slots)        | yes        | -
//   matmul trans_a / trans_b                      | no         | parameter mm_trans (bit0 = A,
//                                                 |            | bit1 = B)
//   matmul k / batch                              | no         | parameters mm_k / mm_batch
//
// (A spec without a matmul hashes exactly the words it hashed before the segment existed, so
// its key did not change; a matmul adds one tagged word after the runtime-scalar count.) As in
// seed 004's table, the transposes are run-time values: one kernel loads its operands on both
// paths and branches on mm_trans, so one structure covers the four layouts. k and batch only
// bound loops and offsets.
// The key is defined on the canonical form: kernel_key(s, f) = structural_key(canonicalize(s,
// f), f), so two specs that canonicalize alike share a key, and canonicalizing folds
// constant *values* into structure only through exact rules (x*1 -> x): +0 and -0 constants may
// therefore give different keys (x + -0 folds, x + +0 does not), while Mul(x, +0) and
// Mul(x, -0) share one kernel and pass their constant as a parameter. The two 64-bit lanes are
// independent core::hash_combine chains (different seeds and value pre-mixes), stable across
// platforms, compilers and processes. A 128-bit hash can still collide, so KeyedRegistry keeps
// the canonical spec of every entry and confirms a hit with same_structure(). O(instrs).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/hash.hpp"
#include "pypto/kernel/canonicalize.hpp"
#include "pypto/kernel/fold.hpp"
#include "pypto/kernel/spec.hpp"

namespace pypto::kernel {

struct Key {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  friend constexpr auto operator<=>(const Key&, const Key&) = default;

  /// 32 lowercase hex digits, hi first.
  std::string hex() const {
    constexpr char digits[] = "0123456789abcdef";
    std::string out(32, '0');
    for (int i = 0; i < 16; ++i) {
      out[static_cast<std::size_t>(i)] = digits[(hi >> (60 - 4 * i)) & 15];
      out[static_cast<std::size_t>(16 + i)] = digits[(lo >> (60 - 4 * i)) & 15];
    }
    return out;
  }
};

namespace detail {

class KeyHasher {
 public:
  void add(std::uint64_t v) {
    hi_ = core::hash_combine(hi_, v);
    lo_ = core::hash_combine(lo_, (v ^ 0xa0761d6478bd642fULL) * 0xe7037ed1a0b428dbULL);
  }
  Key key() const { return {core::hash_mix(hi_ ^ 0x8ebc6af09c88c6e3ULL), core::hash_mix(lo_)}; }

 private:
  std::uint64_t hi_ = core::hash_string("pypto.kernel.key/hi");
  std::uint64_t lo_ = core::hash_string("pypto.kernel.key/lo");
};

inline std::uint64_t operand_word(const Operand& o) {
  return (std::uint64_t{static_cast<std::uint8_t>(o.kind)} << 8) | o.index;
}

/// The structural fields of a matmul segment, tagged: its input slots (the transposes, k and
/// batch are run-time parameters).
inline std::uint64_t matmul_word(const Matmul& m) {
  constexpr std::uint64_t kTag = 0x4d4d'0000'0000'0000ULL;  // "MM"
  return kTag | (std::uint64_t{m.a_input} << 24) | (std::uint64_t{m.b_input} << 16);
}

}  // namespace detail

/// The key of a spec that is already canonical (for canonicalize(s, flags) output).
inline Key structural_key(const Spec& canonical, FoldFlags flags) {
  detail::KeyHasher h;
  h.add(kPipelineVersion);
  h.add(static_cast<std::uint8_t>(flags));
  h.add(canonical.num_regs);
  h.add(canonical.instrs.size());
  for (const Instr& in : canonical.instrs) {
    // op, dst and three 16-bit operands fill one 64-bit word exactly
    h.add((std::uint64_t{static_cast<std::uint8_t>(in.op)} << 56) | (std::uint64_t{in.dst} << 48) |
          (detail::operand_word(in.a) << 32) | (detail::operand_word(in.b) << 16) |
          detail::operand_word(in.c));
  }
  h.add(canonical.views.size());
  for (const View& v : canonical.views) h.add(static_cast<std::uint8_t>(v.kind));
  h.add(canonical.consts.size());
  h.add(canonical.runtime_scalars.size());
  if (const std::optional<Matmul>& m = canonical.matmul) h.add(detail::matmul_word(*m));
  return h.key();
}

/// The key of any valid spec: the structural key of its canonical form.
inline Key kernel_key(const Spec& spec, FoldFlags flags = FoldFlags::None) {
  return structural_key(canonicalize(spec, flags), flags);
}

/// Equality on exactly the fields the key covers (see the table above).
inline bool same_structure(const Spec& a, const Spec& b) {
  if (a.num_regs != b.num_regs || a.instrs != b.instrs || a.views.size() != b.views.size() ||
      a.consts.size() != b.consts.size() || a.runtime_scalars.size() != b.runtime_scalars.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.views.size(); ++i) {
    if (a.views[i].kind != b.views[i].kind) return false;
  }
  if (a.matmul.has_value() != b.matmul.has_value()) return false;
  return !a.matmul || detail::matmul_word(*a.matmul) == detail::matmul_word(*b.matmul);
}

/// The default key function of KeyedRegistry.
struct StructuralKeyFn {
  Key operator()(const Spec& canonical, FoldFlags flags) const {
    return structural_key(canonical, flags);
  }
};

/// Kernels by structure, for one fold policy. Lookups canonicalize, hash, and confirm with
/// same_structure, so a key collision can never return another structure's kernel. Ordered
/// containers only: iteration order (keys, then insertion) is deterministic.
template <class T, class KeyFn = StructuralKeyFn>
class KeyedRegistry {
 public:
  struct Entry {
    Key key;
    Spec canonical;  // the first spec registered for this structure, canonicalized
    T value;
  };

  explicit KeyedRegistry(FoldFlags flags = FoldFlags::None, KeyFn key_fn = {})
      : flags_(flags), key_fn_(std::move(key_fn)) {}

  /// Registers `value` for the structure of `spec` unless one is registered already; returns
  /// the entry and whether it was inserted. Entry pointers stay valid until the next insert.
  std::pair<const Entry*, bool> insert(const Spec& spec, T value) {
    Spec canonical = canonicalize(spec, flags_);
    const Key key = key_fn_(canonical, flags_);
    std::vector<Entry>& bucket = entries_[key];
    for (const Entry& e : bucket) {
      if (same_structure(e.canonical, canonical)) return {&e, false};
    }
    bucket.push_back(Entry{key, std::move(canonical), std::move(value)});
    ++size_;
    return {&bucket.back(), true};
  }

  /// The entry for the structure of `spec`, or nullptr.
  const Entry* find(const Spec& spec) const {
    const Spec canonical = canonicalize(spec, flags_);
    const auto it = entries_.find(key_fn_(canonical, flags_));
    if (it == entries_.end()) return nullptr;
    for (const Entry& e : it->second) {
      if (same_structure(e.canonical, canonical)) return &e;
    }
    return nullptr;
  }

  std::size_t size() const { return size_; }
  FoldFlags flags() const { return flags_; }

 private:
  FoldFlags flags_;
  KeyFn key_fn_;
  std::map<Key, std::vector<Entry>> entries_;
  std::size_t size_ = 0;
};

}  // namespace pypto::kernel
