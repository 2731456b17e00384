// pypto/core/callback_ref.hpp — a non-owning reference to something callable.
//
// `CallbackRef<R(A...)>` is two words: the callable's address and a thunk that calls it. A
// generic walk that takes one is compiled once, instead of once per lambda handed to it (each
// instantiation of a walk over every node kind costs a header-only user real compile time), at
// the price of one indirect call per callback. It never outlives the call it is passed to: the
// callable it refers to is usually a temporary lambda.
#pragma once

#include <type_traits>
#include <utility>

namespace pypto::core {

template <class Signature>
class CallbackRef;

template <class R, class... Args>
class CallbackRef<R(Args...)> {
 public:
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, CallbackRef> &&
           std::is_invocable_r_v<R, F&, Args...>) CallbackRef(F&& f)
  noexcept  // NOLINT(google-explicit-constructor): lambdas convert implicitly
      : callable_(const_cast<void*>(static_cast<const void*>(&f))),
        thunk_([](void* callable, Args... args) -> R {
          auto& fn = *static_cast<std::remove_reference_t<F>*>(callable);
          if constexpr (std::is_void_v<R>)
            fn(std::forward<Args>(args)...);
          else
            return fn(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return thunk_(callable_, std::forward<Args>(args)...); }

 private:
  void* callable_;
  R (*thunk_)(void*, Args...);
};

}  // namespace pypto::core
