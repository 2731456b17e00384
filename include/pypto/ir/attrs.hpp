// pypto/ir/attrs.hpp — typed attribute values and keyed attribute lists.
//
// Functions, scopes, loops and calls carry `Attrs`: an ordered list of (key, AttrValue)
// entries. A value is exactly one of bool, int64, double, string, DataType, an IR enum
// (EnumValue: which enum and which value), an expression reference (a Var or any Expr), a list of
// values, or an OpaquePayload — a host compiler's own data, which the library carries and prints
// but cannot compare (structural comparison reports it as unsupported rather than guessing).
// Entries keep insertion order for printing; comparison sorts by key ("attrs: unique
// keys sorted, value types and vector order kept"). Duplicate keys are representable so that
// foreign IR can be loaded and rejected with a precise error instead of being silently merged.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "pypto/core/dtype.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/node.hpp"

namespace pypto::ir {

/// The IR enums an attribute may hold, in a fixed order (the order defines EnumValue::id).
template <class... E>
struct EnumList {};
using AttrEnums =
    EnumList<FunctionType, ParamDirection, ArgDirection, Level, Role, ForKind, SplitMode,
             MemorySpace, TensorLayout, TileLayout, PadValue, CompactMode, CachePolicy, ScopeMode,
             AtomicType, NotifyOp, WaitCmp, ReduceOp, PipeType>;

namespace detail {
template <class E, class... Es>
constexpr std::uint8_t enum_index(EnumList<Es...>) {
  std::uint8_t i = 0, found = 0xff;
  ((std::is_same_v<E, Es> ? (found = i, ++i) : ++i), ...);
  return found;
}
}  // namespace detail

/// One value of one IR enum, stored as (enum id, underlying value).
struct EnumValue {
  std::uint8_t enum_id = 0;
  std::int64_t value = 0;

  /// The enum id of E: its position in AttrEnums.
  template <IrEnum E>
  static constexpr std::uint8_t id_of() {
    constexpr std::uint8_t id = detail::enum_index<E>(AttrEnums{});
    static_assert(id != 0xff, "pypto::ir::EnumValue: add this enum to AttrEnums");
    return id;
  }
  template <IrEnum E>
  static EnumValue of(E v) {
    return {id_of<E>(), static_cast<std::int64_t>(v)};
  }
  template <IrEnum E>
  bool holds() const {
    return enum_id == id_of<E>();
  }
  template <IrEnum E>
  std::optional<E> get() const {
    if (!holds<E>()) return std::nullopt;
    return static_cast<E>(value);
  }
  friend bool operator==(const EnumValue&, const EnumValue&) = default;
};

/// Calls `fn(std::type_identity<E>{})` for each enum E of AttrEnums, in order.
template <class Fn>
constexpr void for_each_attr_enum(Fn&& fn) {
  [&]<class... Es>(EnumList<Es...>) { (fn(std::type_identity<Es>{}), ...); }(AttrEnums{});
}

namespace detail {
/// One enum of AttrEnums with its type erased: the queries on an EnumValue index this table by
/// enum id instead of instantiating a walk over every enum in each of them.
struct ErasedEnum {
  std::string_view module;
  std::string_view type_name;
  std::string_view type_alias;
  EnumSpellings spellings;
};
template <class... Es>
constexpr std::array<ErasedEnum, sizeof...(Es)> erase_enums(EnumList<Es...>) {
  return {ErasedEnum{EnumTraits<Es>::module, EnumTraits<Es>::type_name, EnumTraits<Es>::type_alias,
                     ir::spellings<Es>()}...};
}
inline constexpr auto kErasedEnums = erase_enums(AttrEnums{});
}  // namespace detail

/// `pl.<Enum>` type name of an EnumValue ("SplitMode"); "?" for an unknown id.
inline std::string_view enum_type_name(const EnumValue& e) {
  return e.enum_id < detail::kErasedEnums.size() ? detail::kErasedEnums[e.enum_id].type_name : "?";
}

/// The DSL module (`pl` or `pld`) an EnumValue is printed in; "?" for an unknown id.
inline std::string_view enum_module(const EnumValue& e) {
  return e.enum_id < detail::kErasedEnums.size() ? detail::kErasedEnums[e.enum_id].module : "?";
}

/// Printed name of an EnumValue's value ("UP_DOWN"); "?" when out of range.
inline std::string_view enum_value_name(const EnumValue& e) {
  return e.enum_id < detail::kErasedEnums.size()
             ? detail::spelling_of(detail::kErasedEnums[e.enum_id].spellings, e.value)
             : "?";
}

/// The EnumValue spelled `pl.<type_name>.<value_name>`; nullopt when either part is unknown.
inline std::optional<EnumValue> parse_enum_value(std::string_view type_name,
                                                 std::string_view value_name) {
  for (std::size_t id = 0; id < detail::kErasedEnums.size(); ++id) {
    const detail::ErasedEnum& e = detail::kErasedEnums[id];
    if (type_name != e.type_name && (e.type_alias.empty() || type_name != e.type_alias)) continue;
    if (auto v = detail::value_spelled(e.spellings, value_name))
      return EnumValue{static_cast<std::uint8_t>(id), *v};
    return std::nullopt;
  }
  return std::nullopt;
}

/// A host compiler's own attribute payload: carried and printed by name, never compared.
struct OpaquePayload {
  std::string type_name;
  Ref<const core::RefCounted> data;
};

struct AttrValue;
using AttrValueList = std::vector<AttrValue>;

/// A typed attribute value. The constructors reject what no alternative can hold exactly (a null
/// expression, a null C string, an unsigned integer above INT64_MAX) with a ValueError instead
/// of storing a null handle, reading through a null pointer or wrapping silently.
struct AttrValue {
  using Storage = std::variant<bool, std::int64_t, double, std::string, core::DataType, EnumValue,
                               ExprRef, AttrValueList, OpaquePayload>;
  Storage value;

  AttrValue() : value(false) {}
  AttrValue(bool b) : value(b) {}  // NOLINT: implicit conversions make attr lists readable
  template <class I>
  requires(std::is_integral_v<I> && !std::is_same_v<I, bool>) AttrValue(I i)
      : value(checked_int(i)) {}                          // NOLINT
  AttrValue(double d) : value(d) {}                       // NOLINT
  AttrValue(const char* s) : value(checked_string(s)) {}  // NOLINT
  AttrValue(std::string s) : value(std::move(s)) {}       // NOLINT
  AttrValue(core::DataType t) : value(t) {}               // NOLINT
  template <IrEnum E>
  AttrValue(E e) : value(EnumValue::of(e)) {}  // NOLINT
  AttrValue(EnumValue e) : value(e) {}         // NOLINT
  template <class T>
  requires std::is_convertible_v<Ref<T>, ExprRef> AttrValue(Ref<T> e)
      : value(checked_expr(std::move(e))) {}           // NOLINT
  AttrValue(AttrValueList l) : value(std::move(l)) {}  // NOLINT
  AttrValue(OpaquePayload p) : value(std::move(p)) {}  // NOLINT

  template <class T>
  bool is() const {
    return std::holds_alternative<T>(value);
  }
  template <class T>
  const T* get_if() const {
    return std::get_if<T>(&value);
  }

 private:
  template <class I>
  static std::int64_t checked_int(I i) {
    if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(std::int64_t)) {
      if (i > static_cast<I>(std::numeric_limits<std::int64_t>::max()))
        detail::fail("AttrValue", "int",
                     std::to_string(i) + " is above INT64_MAX, the largest integer attribute");
    }
    return static_cast<std::int64_t>(i);
  }
  static std::string checked_string(const char* s) {
    if (!s) detail::fail("AttrValue", "string", "a null C string is not a string");
    return s;
  }
  template <class T>
  static ExprRef checked_expr(Ref<T> e) {
    if (!e) detail::fail("AttrValue", "expr", "an expression attribute must not be null");
    return ExprRef(std::move(e));
  }
};

struct AttrEntry {
  std::string key;
  AttrValue value;
};

/// An ordered list of keyed attribute values (small; lookups are linear).
struct Attrs {
  std::vector<AttrEntry> entries;

  Attrs() = default;
  Attrs(std::initializer_list<AttrEntry> init) : entries(init) {}

  bool empty() const { return entries.empty(); }
  std::size_t size() const { return entries.size(); }
  auto begin() const { return entries.begin(); }
  auto end() const { return entries.end(); }

  /// The first value stored under `key`, or null.
  const AttrValue* find(std::string_view key) const {
    for (const auto& e : entries)
      if (e.key == key) return &e.value;
    return nullptr;
  }
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  /// The value under `key` as a T, or nullopt when absent or of another type.
  template <class T>
  std::optional<T> get(std::string_view key) const {
    const AttrValue* v = find(key);
    if (!v) return std::nullopt;
    if constexpr (IrEnum<T>) {
      const auto* e = v->get_if<EnumValue>();
      return e ? e->get<T>() : std::nullopt;
    } else {
      const T* p = v->get_if<T>();
      return p ? std::optional<T>(*p) : std::nullopt;
    }
  }

  /// A copy with `key` set to `value` (replacing an existing entry in place, else appended).
  Attrs with(std::string key, AttrValue value) const {
    Attrs out = *this;
    for (auto& e : out.entries)
      if (e.key == key) {
        e.value = std::move(value);
        return out;
      }
    out.entries.push_back({std::move(key), std::move(value)});
    return out;
  }

  /// A copy without any entry under `key`.
  Attrs without(std::string_view key) const {
    Attrs out;
    for (const auto& e : entries)
      if (e.key != key) out.entries.push_back(e);
    return out;
  }

  /// The first key that occurs twice, if any (builders of foreign IR check this).
  std::optional<std::string> duplicate_key() const {
    for (std::size_t i = 0; i < entries.size(); ++i)
      for (std::size_t j = i + 1; j < entries.size(); ++j)
        if (entries[i].key == entries[j].key) return entries[i].key;
    return std::nullopt;
  }
};

}  // namespace pypto::ir
