// pypto/ir/identical.hpp — exact sameness of two IR values, variables by identity.
//
// `identical(a, b)` holds when a and b are the same kind and every reflected field that is not
// Ignore is identical: a variable only to itself (no renaming, so this is structural equality
// with enable_auto_mapping off, for values that bind nothing — types and expressions), dtypes by
// code, floats by bits, attrs in stored order. It is what the text layer needs to decide whether
// a recorded type equals the one the text implies, at a fraction of the compile cost of the
// structural engine (which also renames bindings, hashes, and reports paths).
//
// Like every generic walker it is driven by the field descriptors. It recurses along the
// values' nesting and answers false beyond core::kMaxNesting levels (such IR cannot be printed
// either). O(n) in the size of the two values; a shared subvalue is compared once per path.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "pypto/core/limits.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/field.hpp"

namespace pypto::ir {

namespace detail {

class Identical {
 public:
  bool node(const Node* a, const Node* b) {
    if (a == b) return true;
    if (!a || !b || a->kind() != b->kind()) return false;
    if (isa<Var>(*a)) return false;  // two variables: different bindings
    if (depth_ >= core::kMaxNesting) return false;
    ++depth_;
    const bool same = visit(*a, [&](const auto& x) {
      return fields(x, static_cast<const std::remove_cvref_t<decltype(x)>&>(*b));
    });
    --depth_;
    return same;
  }

 private:
  template <class T>
  bool fields(const T& x, const T& y) {
    bool same = true;
    reflect::for_each_field(x, [&](auto field, const auto& vx) {
      using F = decltype(field);
      if constexpr (F::kind != reflect::FieldKind::Ignore)
        if (same) same = value(vx, F::get(y));
    });
    return same;
  }

  template <class T>
  bool value(const Ref<T>& a, const Ref<T>& b) {
    return node(a.get(), b.get());
  }
  template <class T>
  bool value(const std::vector<T>& a, const std::vector<T>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!value(a[i], b[i])) return false;
    return true;
  }
  template <class T>
  bool value(const std::optional<T>& a, const std::optional<T>& b) {
    if (a.has_value() != b.has_value()) return false;
    return !a || value(*a, *b);
  }
  bool value(double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
  }
  bool value(const Attrs& a, const Attrs& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a.entries[i].key != b.entries[i].key || !value(a.entries[i].value, b.entries[i].value))
        return false;
    return true;
  }
  bool value(const AttrValue& a, const AttrValue& b) {
    if (a.value.index() != b.value.index()) return false;
    return std::visit(
        [&](const auto& x) {
          using V = std::remove_cvref_t<decltype(x)>;
          const V& y = std::get<V>(b.value);
          if constexpr (std::is_same_v<V, OpaquePayload>)
            return x.type_name == y.type_name && x.data == y.data;
          else
            return value(x, y);
        },
        a.value);
  }
  /// A reflected struct (a view) field by field; any other leaf by ==.
  template <class T>
  bool value(const T& a, const T& b) {
    if constexpr (requires { typename T::fields; })
      return fields(a, b);
    else
      return a == b;
  }

  std::size_t depth_ = 0;
};

}  // namespace detail

/// True when `a` and `b` are the same value with every variable compared by identity.
inline bool identical(const NodeRef& a, const NodeRef& b) {
  return detail::Identical().node(a.get(), b.get());
}

}  // namespace pypto::ir
