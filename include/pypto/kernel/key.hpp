// pypto/kernel/key.hpp — the 128-bit structural key of a canonical kernel Spec, and a registry
// that confirms every hit by full structural equality.
//
// The key says which compiled kernel a spec needs; values that a kernel reads at run time
// (push constants / parameters) are not in it, so one kernel serves every value (the table of
// fields is at structural_key). It is defined on the canonical form: kernel_key(s, f) =
// structural_key(canonicalize(s, f), f), so two specs that canonicalize alike share a key. The
// two 64-bit lanes are independent core::hash_combine chains, stable across platforms,
// compilers and processes. A 128-bit hash can still collide, so KeyedRegistry keeps the
// canonical spec of every entry and confirms a hit with same_structure(). O(instrs).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/kernel/canonicalize.hpp"
#include "pypto/kernel/fold.hpp"
#include "pypto/kernel/spec.hpp"

namespace pypto::kernel {

struct Key {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  friend constexpr auto operator<=>(const Key&, const Key&) = default;

  /// 32 lowercase hex digits, hi first.
  PYPTO_DECL std::string hex() const;
};

/// The key of a spec that is already canonical (for canonicalize(s, flags) output). It covers:
///
///   field                                         | in the key | travels at run time as
///   ----------------------------------------------|------------|------------------------------
///   domain tag, kPipelineVersion (rule set)       | yes        | -
///   fold flags (unsafe rules the target allows)   | yes        | -
///   num_regs                                      | yes        | -
///   instruction count; per instruction op, dst,   | yes        | -
///     a/b/c operand kind and index (None slots    |            |
///     hashed as they are: kind None, index 0)     |            |
///   view count; per view its kind                 | yes        | -
///   view params (RowMod p, RotateHalf p)          | no         | view parameter vp<i>
///   constant count (the parameter block layout)   | yes        | -
///   constant values                               | no         | parameter c<i>
///   runtime-scalar count / values                 | yes / no   | parameter rp<i>
///   matmul segment present                        | yes        | -
///   matmul a_input / b_input (input slots)        | yes        | -
///   matmul trans_a / trans_b                      | no         | parameter mm_trans (bit0 = A,
///                                                 |            | bit1 = B)
///   matmul k / batch                              | no         | parameters mm_k / mm_batch
///
/// A spec without a matmul hashes exactly the words it hashed before the segment existed, so
/// its key did not change; a matmul adds one tagged word after the runtime-scalar count. The
/// transposes are run-time values: one kernel loads its operands on both paths and branches on
/// mm_trans, so one structure covers the four layouts. k and batch only bound loops and offsets.
PYPTO_DECL Key structural_key(const Spec& canonical, FoldFlags flags);

/// The key of any valid spec: the structural key of its canonical form. Canonicalizing folds
/// constant *values* into structure only through exact rules (x*1 -> x): +0 and -0 constants
/// may therefore give different keys (x + -0 folds, x + +0 does not), while Mul(x, +0) and
/// Mul(x, -0) share one kernel and pass their constant as a parameter.
PYPTO_DECL Key kernel_key(const Spec& spec, FoldFlags flags = FoldFlags::None);

/// Equality on exactly the fields the key covers (see structural_key).
PYPTO_DECL bool same_structure(const Spec& a, const Spec& b);

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

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/kernel/key.ipp"
#endif
