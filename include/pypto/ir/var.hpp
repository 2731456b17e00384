// pypto/ir/var.hpp — variables: Var and the loop-carried IterArg.
//
// A Var is a binding. Its identity is the object (two Vars named "x" are different variables);
// `name_hint` is Ignore metadata for printing. A Var is defined at exactly one Def position
// (a parameter, an assignment, a loop variable, an iter_arg, a return var) and referenced
// elsewhere. `uid` is a process-wide creation counter: it gives free variables a deterministic
// identity for hashing and ordering without looking at addresses (upstream PR #248).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "pypto/ir/node.hpp"

namespace pypto::ir {

struct Var : Expr {
  PYPTO_CONCRETE_BASE_NODE(Var, kinds::var)

  std::string name_hint;
  std::uint64_t uid = 0;  ///< creation order; identity, not structure

  using fields = ConcatFields<Expr::fields, FieldList<IgnoreField<&Var::name_hint, "name_hint">>>;
  using unreflected = UnreflectedList<Unreflected<&Var::uid>>;

  static Ref<const Var> make(std::string name_hint, TypeRef type, Span span = {});

 protected:
  template <class T>
  static Ref<T> make_named(std::string_view node, std::string name_hint, TypeRef type, Span span) {
    detail::require(static_cast<bool>(type), node, "type", "a variable needs a type");
    auto v = make_node<T>();
    v->name_hint = std::move(name_hint);
    v->type = std::move(type);
    v->span = std::move(span);
    v->uid = next_uid();
    return v;
  }
  static std::uint64_t next_uid() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
  }
};
using VarRef = Ref<const Var>;

inline VarRef Var::make(std::string name_hint, TypeRef type, Span span) {
  return make_named<Var>("Var", std::move(name_hint), std::move(type), std::move(span));
}

/// A loop-carried binder of a ForStmt/WhileStmt: `init_value` seeds the first iteration and is
/// evaluated in the scope outside the loop.
struct IterArg final : Var {
  PYPTO_CONCRETE_NODE(IterArg)
  ExprRef init_value;

  using fields =
      ConcatFields<Var::fields, FieldList<UsualField<&IterArg::init_value, "init_value">>>;

  static Ref<const IterArg> make(std::string name_hint, TypeRef type, ExprRef init_value,
                                 Span span = {}) {
    detail::require(static_cast<bool>(init_value), "IterArg", "init_value",
                    "an iter_arg needs an initial value");
    auto n = make_named<IterArg>("IterArg", std::move(name_hint), std::move(type), std::move(span));
    n->init_value = std::move(init_value);
    return n;
  }
};
using IterArgRef = Ref<const IterArg>;

}  // namespace pypto::ir
