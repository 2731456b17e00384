// pypto/reflect/walk.hpp — walking the reflected fields of an object with a visitor.
//
// `walk_fields(visitor, obj)` visits each field of a Reflected object in declaration order.
// Values are decomposed generically: a std::vector is visited element by element, a
// std::optional as present-or-absent, and a nested Reflected struct (TensorView, TileView) field
// by field. Every other value — handles to child nodes, scalars, enums, attribute maps — must be
// accepted by a `visit(const T&)` overload of the visitor; a field type the visitor does not
// handle is a compile error naming the missing overload, never a silent skip. A visitor may also
// handle a container or struct type itself (its overload wins over the generic decomposition).
//
// Optional hooks, called when the visitor declares them:
//   begin_field(F{}) / end_field(F{})     around each field (F is the descriptor type)
//   begin_list(n) / end_list()            around a vector's elements
//   begin_element(i) / end_element()      around the i-th element
//   absent() / present()                  before an empty / a present optional's value
// A visitor that declares `static constexpr bool skips_ignored_fields = true` never sees
// Ignore fields (decided at compile time), at any nesting level.
// There is no virtual call per field: everything is resolved at compile time.
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>
#include <vector>

#include "pypto/reflect/field.hpp"

namespace pypto::reflect {

namespace detail {
template <class T>
inline constexpr bool is_vector = false;
template <class T, class A>
inline constexpr bool is_vector<std::vector<T, A>> = true;
template <class T>
inline constexpr bool is_optional = false;
template <class T>
inline constexpr bool is_optional<std::optional<T>> = true;
template <class T>
inline constexpr bool dependent_false = false;
}  // namespace detail

template <class V, Reflected T>
void walk_fields(V& v, const T& obj);

/// Visits one value: the visitor's own overload if it has one, else the generic decomposition.
template <class V, class T>
void walk_value(V& v, const T& value) {
  if constexpr (requires { v.visit(value); }) {
    v.visit(value);
  } else if constexpr (detail::is_vector<T>) {
    if constexpr (requires { v.begin_list(value.size()); }) v.begin_list(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) {
      if constexpr (requires { v.begin_element(i); }) v.begin_element(i);
      walk_value(v, value[i]);
      if constexpr (requires { v.end_element(); }) v.end_element();
    }
    if constexpr (requires { v.end_list(); }) v.end_list();
  } else if constexpr (detail::is_optional<T>) {
    if (value) {
      if constexpr (requires { v.present(); }) v.present();
      walk_value(v, *value);
    } else if constexpr (requires { v.absent(); }) {
      v.absent();
    }
  } else if constexpr (Reflected<T>) {
    walk_fields(v, value);
  } else {
    static_assert(detail::dependent_false<T>,
                  "pypto::reflect::walk_value: the visitor has no `visit(const T&)` overload for "
                  "this field type (T is named in the instantiation context); add one");
  }
}

namespace detail {
template <class V>
constexpr bool skips_ignored() {
  if constexpr (requires { V::skips_ignored_fields; })
    return V::skips_ignored_fields;
  else
    return false;
}
}  // namespace detail

/// Visits every field of `obj` (Ignore fields too, unless the visitor skips them).
template <class V, Reflected T>
void walk_fields(V& v, const T& obj) {
  for_each_field(obj, [&](auto field, const auto& value) {
    if constexpr (detail::skips_ignored<V>() && decltype(field)::kind == FieldKind::Ignore) return;
    if constexpr (requires { v.begin_field(field); }) v.begin_field(field);
    walk_value(v, value);
    if constexpr (requires { v.end_field(field); }) v.end_field(field);
  });
}

}  // namespace pypto::reflect
