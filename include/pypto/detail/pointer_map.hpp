// pypto/detail/pointer_map.hpp — an open-addressing map from object addresses to small values.
//
// Implementation helper for per-call side tables (memo tables, binding numbers) keyed by node
// identity. Linear probing in a power-of-two table at most 3/4 full; no erase, no iteration —
// addresses are looked up, never enumerated, so they cannot leak into anything observable.
// Keys are compared by address; where a key's home slot is, is the `SlotHash` policy's choice
// (by default, Fibonacci hashing of the address).
// Lookups and inserts are O(1) expected. (boost::unordered_flat_map would do, but its header
// alone costs ~0.75 s of parsing in every TU that includes the structural engine.)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pypto::detail {

/// Home slots by Fibonacci hashing of the address: the high bits of address * 2^64/phi spread
/// aligned addresses well.
struct AddressSlot {
  static std::size_t slot(const void* key, unsigned shift) {
    const auto x = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(key));
    return static_cast<std::size_t>((x * 0x9e3779b97f4a7c15ULL) >> shift);
  }
};

/// `SlotHash::slot(key, shift)` is the key's home slot in a table of 2^(64 - shift) slots.
template <class V, class SlotHash = AddressSlot>
class PointerMap {
 public:
  /// The value stored for `key`, or null.
  V* find(const void* key) {
    if (size_ == 0) return nullptr;
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (s.key == nullptr) return nullptr;
    }
  }
  const V* find(const void* key) const { return const_cast<PointerMap*>(this)->find(key); }

  /// Inserts `key -> value` unless present; returns the stored value and whether it was new.
  std::pair<V*, bool> insert(const void* key, V value) {
    if (4 * (size_ + 1) > 3 * slots_.size()) grow();  // at most 3/4 full
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.key == key) return {&s.value, false};
      if (s.key == nullptr) {
        s.key = key;
        s.value = value;
        ++size_;
        return {&s.value, true};
      }
    }
  }

  std::size_t size() const { return size_; }
  std::size_t bytes() const { return slots_.capacity() * sizeof(Slot); }
  /// Empties the map, keeping its table for reuse unless the table is large and was mostly
  /// empty (so that clearing costs no more than the use since the last clear did).
  void clear() {
    if (size_ == 0) return;
    if (slots_.size() > 1024 && 16 * size_ < slots_.size()) {
      slots_ = {};
      mask_ = 0;
      shift_ = 63;
    } else {
      std::fill(slots_.begin(), slots_.end(), Slot{});
    }
    size_ = 0;
  }

 private:
  struct Slot {
    const void* key = nullptr;
    V value{};
  };

  std::size_t slot_of(const void* key) const { return SlotHash::slot(key, shift_) & mask_; }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t capacity = old.empty() ? 16 : old.size() * 2;
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    for (const Slot& s : old) {
      if (!s.key) continue;
      std::size_t i = slot_of(s.key);
      while (slots_[i].key) i = (i + 1) & mask_;  // keys are distinct: just the first free slot
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
  unsigned shift_ = 63;
};

}  // namespace pypto::detail
