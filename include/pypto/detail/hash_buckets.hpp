// pypto/detail/hash_buckets.hpp — small lists of item numbers under 64-bit hash keys.
//
// Implementation helper for the dedup pass's hash buckets: `bucket(key)` finds or opens the list
// of a key, `add` appends an item to it, `next` follows a list in insertion order. Keys live in
// an open-addressing table (linear probing, at most 3/4 full); a list is chained through one
// `next` entry per item number, so opening a bucket or adding an item allocates nothing beyond
// the amortized growth of two vectors (a node-based map allocated twice per new key, and its
// lookups chased a node). Keys are looked up, never enumerated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pypto::detail {

class HashBuckets {
 public:
  static constexpr std::uint32_t kEnd = ~std::uint32_t{0};

  struct Bucket {
    std::uint64_t key = 0;
    std::uint32_t head = kEnd, tail = kEnd;
    std::uint32_t size = 0;
    bool used = false;
  };

  /// Room for about `keys` keys without growing.
  void reserve(std::size_t keys) {
    std::size_t n = 16;
    while (3 * n < 4 * keys) n *= 2;
    if (n > slots_.size()) rehash(n);
  }

  void clear() {
    slots_.clear();
    next_.clear();
    used_ = 0;
  }

  /// The bucket of `key`, empty when new. The reference stays valid until the next call of
  /// bucket() opens another key.
  Bucket& bucket(std::uint64_t key) {
    if (4 * (used_ + 1) > 3 * slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
    Bucket& b = slots_[probe(key)];
    if (!b.used) {
      b.used = true;
      b.key = key;
      ++used_;
    }
    return b;
  }

  /// Appends `item` (a number not added before) to `b`.
  void add(Bucket& b, std::uint32_t item) {
    if (next_.size() <= item) next_.resize(std::size_t{item} + 1, kEnd);
    next_[item] = kEnd;
    if (b.tail == kEnd)
      b.head = item;
    else
      next_[b.tail] = item;
    b.tail = item;
    ++b.size;
  }

  /// The item after `item` in its bucket, or kEnd.
  std::uint32_t next(std::uint32_t item) const { return next_[item]; }

 private:
  std::size_t probe(std::uint64_t key) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
    while (slots_[i].used && slots_[i].key != key) i = (i + 1) & mask;
    return i;
  }

  void rehash(std::size_t n) {
    std::vector<Bucket> old(n);
    old.swap(slots_);
    for (const Bucket& b : old)
      if (b.used) slots_[probe(b.key)] = b;
  }

  std::vector<Bucket> slots_;  // size: a power of two, or empty
  std::vector<std::uint32_t> next_;
  std::size_t used_ = 0;
};

}  // namespace pypto::detail
