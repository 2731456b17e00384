// pypto/reflect/layout.hpp — proof that a class's descriptors account for every member it has.
//
// C++20 cannot enumerate a class's members, so the proof goes the other way: from the members a
// class declares — its `fields` descriptors plus the ones it lists as `unreflected` (caches and
// bookkeeping no algorithm may see) — build a class with exactly those members, base members
// first, in list order, and require that it has the size of the real one. A member that is
// neither listed nor declared unreflected makes the real class larger, and the static_assert that
// uses `members_accounted_for` fails to compile. What it cannot see is a member small enough to
// sit in the padding before the next one (a lone `bool` before a pointer): see docs/ir.md,
// "Reflection". Own members are listed in declaration order (the layout follows it).
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "pypto/reflect/field.hpp"

namespace pypto::reflect {

namespace detail {

template <class T>
struct UnreflectedOf {
  using type = UnreflectedList<>;
};
template <class T>
requires requires { typename T::unreflected; }
struct UnreflectedOf<T> {
  using type = typename T::unreflected;
};

struct LayoutRoot {};

/// `Base` followed by one member of type M: laid out as a class declaring M after Base's
/// members (a derived class reuses its base's tail padding, as the member of one class would).
template <class Base, class M>
struct LayoutStep : Base {
  M member;
};

template <class Base, class... M>
struct LayoutChain {
  using type = Base;
};
template <class Base, class M, class... Rest>
struct LayoutChain<Base, M, Rest...> {
  using type = typename LayoutChain<LayoutStep<Base, M>, Rest...>::type;
};

template <class... Entries>
struct EntryList {};

template <std::size_t I, class List>
struct EntryAt;
template <std::size_t I, class E, class... Rest>
struct EntryAt<I, EntryList<E, Rest...>> : EntryAt<I - 1, EntryList<Rest...>> {};
template <class E, class... Rest>
struct EntryAt<0, EntryList<E, Rest...>> {
  using type = E;
};

template <class A, class B>
inline constexpr bool is_strict_base = std::is_base_of_v<A, B> && !std::is_same_v<A, B>;

/// How many entries belong to a strict base of Owner: its depth in the one chain of classes.
template <class Owner, class... Entries>
inline constexpr std::size_t owner_depth =
    (std::size_t{is_strict_base<typename Entries::owner, Owner>} + ... + 0);

/// Entry indices ordered by the depth of their owner class (base members first), stable.
template <class... Entries>
constexpr std::array<std::size_t, sizeof...(Entries)> layout_order() {
  const std::array<std::size_t, sizeof...(Entries)> depth{
      owner_depth<typename Entries::owner, Entries...>...};
  std::array<std::size_t, sizeof...(Entries)> order{};
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::size_t j = i;
    for (; j > 0 && depth[order[j - 1]] > depth[i]; --j) order[j] = order[j - 1];
    order[j] = i;
  }
  return order;
}

/// The class with exactly the listed members, laid out after Root.
template <class Root, class... Entries>
struct MirrorOf {
  static constexpr auto order = layout_order<Entries...>();
  template <std::size_t... I>
  static auto build(std::index_sequence<I...>) -> typename LayoutChain<
      Root, typename EntryAt<order[I], EntryList<Entries...>>::type::value_type...>::type;
  using type = decltype(build(std::index_sequence_for<Entries...>{}));
};

template <class T, class Root, class... F, class... U>
constexpr bool accounted(FieldList<F...>, UnreflectedList<U...>) {
  using Mirror = typename MirrorOf<Root, F..., U...>::type;
  return sizeof(Mirror) == sizeof(T) && alignof(Mirror) == alignof(T);
}

}  // namespace detail

/// True when T's `fields` and `unreflected` lists account for its size: every member of T, from
/// the members of Root on (Root's own are bookkeeping, e.g. a node's kind and count), is listed.
template <Reflected T, class Root = detail::LayoutRoot>
constexpr bool members_accounted_for() {
  return detail::accounted<T, Root>(FieldsOf<T>{}, typename detail::UnreflectedOf<T>::type{});
}

}  // namespace pypto::reflect
