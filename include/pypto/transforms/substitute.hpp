// pypto/transforms/substitute.hpp — replacing variables in expressions and statements.
//
// A Substitution maps variables (by identity) to expressions. `expr(e)` / `stmt(s)` return e / s
// with every mapped variable replaced, rebuilding only the nodes on a path to a replacement:
// an unchanged subtree is returned as the same object, and a node shared by several parents is
// rebuilt once (memoized), so sharing survives. The walk is generic over the field descriptors
// (nothing else names a node's fields), including attribute values and the nested view structs
// of a node. Types are left as they are (shape symbols are program-wide names, not the values a
// pass renames) unless `rewrite_types()` asks otherwise. An IterArg whose initial value changes,
// and a variable whose type changes, is re-made, and its uses follow it. Each node is visited at
// most once per Substitution: O(N) for a whole function, plus O(1) expected per lookup.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"
#include "pypto/core/span.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/reflect/field.hpp"

namespace pypto::transforms {

namespace detail {

/// Selects every field a rewrite may change (all but Ignore); `FieldRewriter::rebuilt`'s default.
struct EveryRewrittenField {
  template <class F, class V>
  static constexpr bool select = F::kind != reflect::FieldKind::Ignore;
};

/// Rewriting of field values, generic over the descriptors: every non-null node handle goes
/// through `Derived::rewrite_handle(Ref&)` (true when it changed), through lists, optionals,
/// attribute values and nested reflected structs; a null handle (an absent optional child) is
/// unchanged here, so no rewriter sees one. `fields(in, out)` is true when something in `in`
/// changed, and then `out` is `in` rewritten; a list or struct is copied only at its first change,
/// so an unchanged one costs no allocation. `rebuilt(node)` is a copy of `node` with the fields
/// `Select` selects rewritten, or null when none changed. A field type this does not know is a
/// compile error. Shared by Substitution, convert-to-ssa, the dedup pass's reference renamer and
/// the tile conversion's bottom-up rewriter.
template <class Derived>
class FieldRewriter {
 protected:
  /// A handle: through `Derived::rewrite_handle(in, out)` when it has one (it sets `out` only on
  /// a change), else through the in-place `rewrite_handle(ref)` on a copy.
  template <class T>
  bool fields(const ir::Ref<const T>& in, ir::Ref<const T>& out) {
    if (!in) return false;
    Derived& self = static_cast<Derived&>(*this);
    if constexpr (requires { self.rewrite_handle(in, out); }) {
      return self.rewrite_handle(in, out);
    } else {
      out = in;
      return self.rewrite_handle(out);
    }
  }
  bool fields(const ir::AttrValue& in, ir::AttrValue& out) { return attr_value(in, out); }
  template <class T>
  bool fields(const std::vector<T>& in, std::vector<T>& out) {
    bool changed = false;
    T item{};
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (!fields(in[i], item)) continue;
      if (!changed) out = in;
      changed = true;
      out[i] = std::move(item);
    }
    return changed;
  }
  template <class T>
  bool fields(const std::optional<T>& in, std::optional<T>& out) {
    if (!in) return false;
    T value{};
    if (!fields(*in, value)) return false;
    out = std::move(value);
    return true;
  }
  bool fields(const ir::Attrs& in, ir::Attrs& out) {
    bool changed = false;
    ir::AttrValue value;
    for (std::size_t i = 0; i < in.entries.size(); ++i) {
      if (!attr_value(in.entries[i].value, value)) continue;
      if (!changed) out = in;
      changed = true;
      out.entries[i].value = std::move(value);
    }
    return changed;
  }
  template <class T>
  requires reflect::Reflected<T>
  bool fields(const T& in, T& out) {
    bool changed = false;
    reflect::for_each_field(in, [&](auto field, const auto& current) {
      using F = decltype(field);
      if constexpr (F::kind != reflect::FieldKind::Ignore) {
        std::remove_cvref_t<decltype(current)> updated{};
        if (fields(current, updated)) {
          if (!changed) out = in;
          changed = true;
          out.*F::member = std::move(updated);
        }
      }
    });
    return changed;
  }
  template <class T>
  requires(std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::string> ||
           std::is_same_v<T, core::Span>) bool fields(const T&, T&) {
    return false;  // scalars, strings, enums, spans: no node inside
  }

  bool attr_value(const ir::AttrValue& in, ir::AttrValue& out) {
    if (const auto* e = std::get_if<ir::ExprRef>(&in.value)) {
      ir::ExprRef rewritten;
      if (!fields(*e, rewritten)) return false;
      out.value = std::move(rewritten);
      return true;
    }
    if (const auto* l = std::get_if<ir::AttrValueList>(&in.value)) {
      ir::AttrValueList rewritten;
      if (!fields(*l, rewritten)) return false;
      out.value = std::move(rewritten);
      return true;
    }
    return false;
  }

  template <class Select = EveryRewrittenField, class N>
  auto rebuilt(const N& concrete) {
    decltype(ir::copy_node(concrete)) copy;
    reflect::for_each_field(concrete, [&](auto field, const auto& current) {
      using F = decltype(field);
      using V = std::remove_cvref_t<decltype(current)>;
      if constexpr (Select::template select<F, V>) {
        V updated{};
        if (fields(current, updated)) {
          if (!copy) copy = ir::copy_node(concrete);
          copy.get()->*F::member = std::move(updated);
        }
      }
    });
    return copy;
  }
};

}  // namespace detail

class Substitution : private detail::FieldRewriter<Substitution> {
  friend class detail::FieldRewriter<Substitution>;

 public:
  /// Maps `from` to `to` from now on (replacing an earlier mapping of `from`). Nodes rebuilt
  /// before this call are not revisited: map first, then substitute.
  void set(const ir::Var& from, ir::ExprRef to) {
    auto [slot, fresh] = map_.insert(&from, nullptr);
    journal_.push_back({&from, fresh ? nullptr : *slot});
    *slot = std::move(to);
    memo_.clear();  // a different map gives different results
  }

  /// Replaces mapped variables inside types too, from now on (a pass folding a variable onto a
  /// shape symbol): a variable whose type changes is re-made with the new type, and its uses
  /// follow it. Off by default: shape symbols are program-wide names.
  void rewrite_types() {
    types_ = true;
    memo_.clear();
  }

  /// A point to roll the mappings back to (the branches of an if start from the same state).
  std::size_t mark() const { return journal_.size(); }
  void rollback(std::size_t mark) {
    while (journal_.size() > mark) {
      *map_.find(journal_.back().first) = std::move(journal_.back().second);
      journal_.pop_back();
    }
    memo_.clear();
  }

  /// The replacement of `v`, or null when it is not mapped.
  const ir::ExprRef* find(const ir::Var& v) {
    const ir::ExprRef* to = map_.find(&v);
    return to && *to ? to : nullptr;
  }

  /// `v`'s replacement, or `v` itself.
  ir::ExprRef current(const ir::VarRef& v) {
    const ir::ExprRef* to = find(*v);
    return to ? *to : ir::ExprRef(v);
  }

  ir::ExprRef expr(const ir::ExprRef& e) { return rewrite(e); }
  ir::StmtRef stmt(const ir::StmtRef& s) { return rewrite(s); }
  ir::Attrs attrs(const ir::Attrs& a) {
    ir::Attrs out = a;
    for (auto& e : out.entries) value(e.value);
    return out;
  }

  /// Rewrites `ref` in place; true when it changed.
  template <class T>
  bool value(ir::Ref<const T>& ref) {
    if (!ref) return false;
    auto out = rewrite(ref);
    if (out == ref) return false;
    ref = std::move(out);
    return true;
  }

 private:
  template <class T>
  ir::Ref<const T> rewrite(const ir::Ref<const T>& ref) {
    if (!ref) return ref;
    if constexpr (std::is_base_of_v<ir::Op, T>) {
      return ref;  // callees are names
    } else {
      if constexpr (std::is_base_of_v<ir::Type, T>)
        if (!types_) return ref;  // types keep their program-wide symbols
      ir::NodeRef done = node(ir::NodeRef(ref));
      if (!ir::isa<T>(*done))  // e.g. a variable in a Def position mapped to a non-variable
        throw core::InternalError("substitution: a " + std::string(T::class_name) +
                                  " position cannot hold a " +
                                  std::string(ir::kind_name(done->kind())));
      return ir::Ref<const T>(static_cast<const T*>(done.get()));
    }
  }

  template <class T>
  bool rewrite_handle(ir::Ref<const T>& ref) {
    if constexpr (std::is_base_of_v<ir::Type, T>)
      if (!types_) return false;  // the common case, decided before any call
    return value(ref);
  }
  bool value(ir::AttrValue& v) {
    ir::AttrValue out;
    if (!attr_value(v, out)) return false;
    v = std::move(out);
    return true;
  }

  /// `n` with every mapped variable replaced (memoized); types and ops are kept as they are.
  PYPTO_DECL ir::NodeRef node(const ir::NodeRef& n);

  ::pypto::detail::PointerMap<ir::ExprRef> map_;  // looked up, never iterated; null = unmapped
  std::vector<std::pair<const ir::Var*, ir::ExprRef>> journal_;  // (variable, previous value)
  ::pypto::detail::PointerMap<ir::NodeRef> memo_;                // looked up, never iterated
  std::size_t depth_ = 0;
  bool types_ = false;  // rewrite_types()
};

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/substitute.ipp"
#endif
