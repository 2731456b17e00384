// pypto/detail/pod_stack.hpp — a growable array of trivially copyable values for hot walks.
//
// Implementation helper: std::vector value-initialises on resize and keeps push_back out of
// line in hot loops; the structural projection pushes and pops several values per node, so its
// stacks use this instead (measured with callgrind: about a quarter of the instructions per node
// went to vector resize/push_back). Resizing never initialises; growth doubles unless a stack is
// told to grow by less (a large table whose peak memory counts).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

namespace pypto::detail {

template <class T>
class PodStack {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  PodStack() = default;
  PodStack(const PodStack&) = delete;
  PodStack& operator=(const PodStack&) = delete;
  ~PodStack() { std::free(data_); }

  // Always inlined: a call per push cost more than the push in the structural walk's field folds.
  [[gnu::always_inline]] void push_back(const T& v) {
    if (size_ == capacity_) [[unlikely]]
      reserve(size_ + 1);
    data_[size_++] = v;
  }
  void pop_back() { --size_; }
  /// Sets the size; new elements are uninitialised.
  void resize(std::size_t n) {
    if (n > capacity_) reserve(n);
    size_ = n;
  }
  void clear() { size_ = 0; }
  /// Growth per reallocation in percent of the capacity (100, the default, doubles).
  void set_growth_percent(std::size_t percent) { growth_percent_ = percent ? percent : 1; }
  [[gnu::noinline]] void reserve(std::size_t n) {
    if (n <= capacity_) return;
    auto grown = [&](std::size_t c) { return c + (c * growth_percent_ + 99) / 100; };
    std::size_t c = capacity_ ? grown(capacity_) : 64;
    while (c < n) c = grown(c);
    void* p = std::realloc(static_cast<void*>(data_), c * sizeof(T));
    if (!p) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
    capacity_ = c;
  }

  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return capacity_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  std::size_t growth_percent_ = 100;
};

}  // namespace pypto::detail
