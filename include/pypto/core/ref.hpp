// pypto/core/ref.hpp — intrusive reference counting with stack-safe teardown.
//
// `Ref<T>` is an 8-byte handle to an immutable, reference-counted object (T derives from
// RefCounted). Copies bump an atomic counter, so handles may cross threads. Releasing the
// last handle never recurses: objects whose count reaches zero while another teardown is in
// progress on the same thread are queued and deleted by the outermost release, so destroying a
// chain of a million nodes uses constant stack (a plain shared_ptr destructor chain overflows
// at ~40k levels under ASan). `use_count()` is one relaxed load, which lets walkers memoise
// only shared nodes.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace pypto::core {

class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) : refs_(0) {}
  RefCounted& operator=(const RefCounted&) { return *this; }
  virtual ~RefCounted() = default;

  std::uint32_t use_count() const { return refs_.load(std::memory_order_relaxed); }

 private:
  template <class T>
  friend class Ref;

  void retain() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void release() const {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) destroy(this);
  }

  // Deletes `obj`, deferring every deletion its destructor triggers on this thread.
  static void destroy(const RefCounted* obj) {
    // `finished` is trivially destructible, so it outlives `teardown`: objects released after
    // this thread's teardown state is gone (static handles at exit) are deleted directly.
    thread_local bool finished = false;
    struct Teardown {
      bool active = false;
      std::vector<const RefCounted*> pending;
      ~Teardown() { finished = true; }
    };
    thread_local Teardown teardown;
    if (finished) {
      delete obj;
      return;
    }
    if (teardown.active) {
      teardown.pending.push_back(obj);
      return;
    }
    teardown.active = true;
    delete obj;
    while (!teardown.pending.empty()) {
      const RefCounted* next = teardown.pending.back();
      teardown.pending.pop_back();
      delete next;
    }
    teardown.active = false;
  }

  mutable std::atomic<std::uint32_t> refs_{0};
};

/// A counted handle; null is a valid state (optional children are null Refs).
template <class T>
class Ref {
 public:
  using element_type = T;

  constexpr Ref() = default;
  constexpr Ref(std::nullptr_t) {}
  /// Adopts a freshly allocated object (or shares an existing one).
  explicit Ref(T* p) : p_(p) {
    if (p_) p_->retain();
  }
  Ref(const Ref& o) : p_(o.p_) {
    if (p_) p_->retain();
  }
  Ref(Ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
  requires std::is_convertible_v<U*, T*> Ref(const Ref<U>& o) : Ref(o.get()) {}
  template <class U>
  requires std::is_convertible_v<U*, T*> Ref(Ref<U>&& o)
  noexcept : p_(o.release_unchecked()) {}
  ~Ref() {
    if (p_) p_->release();
  }
  Ref& operator=(Ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }

  T* get() const { return p_; }
  T& operator*() const { return *p_; }
  T* operator->() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }
  std::uint32_t use_count() const { return p_ ? p_->use_count() : 0; }

  /// Identity comparison (structural comparison lives in pypto/structural).
  template <class U>
  bool operator==(const Ref<U>& o) const {
    return static_cast<const void*>(p_) == static_cast<const void*>(o.get());
  }
  bool operator==(std::nullptr_t) const { return p_ == nullptr; }

  /// Gives up ownership without releasing; for converting moves only.
  T* release_unchecked() { return std::exchange(p_, nullptr); }

 private:
  T* p_ = nullptr;
};

/// Allocates a T and returns the first handle to it.
template <class T, class... Args>
Ref<T> make_ref(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

}  // namespace pypto::core
