// pypto/transforms/use_def.hpp — the variables a statement reads and binds, in evaluation order.
//
// `walk_uses_defs(stmt, on, ops, callees)` calls, for every statement of the tree in program
// order, `on.enter(stmt)`, then `on.use(var, access)` for each variable it reads and
// `on.def(var, stmt)` for each it binds, then the same for its nested statements, then
// `on.leave(stmt)`. The order is the order of evaluation, which is what flow-sensitive analyses
// (live-in sets) need: a leaf statement's reads come before its bindings (`c =
// pl.store(t, [0], c)` reads c, then rebinds it); a compound statement's fields are taken in
// descriptor order, where a loop's binders precede its body and its results follow it; an
// iter_arg's initial value is read just before the iter_arg is bound.
//
// `access` says how a read touches the variable's data, from the op registry's declared
// effects (never op-name special cases): a direct argument of a registered op gets
// the op's effect on that slot (Write: only written — not a read), a direct argument of a
// program function called or submitted gets the callee's parameter direction (Out: Write,
// InOut: ReadWrite), an iter_arg's initial value, a yielded value and the value of `y = x` are
// Alias (handed on, not read there), a Submit's deps and every other use are Read, and the
// bookkeeping attrs `dump_vars` / `arg_direction_overrides_vars` are Bookkeeping. Types are not
// walked: shape symbols are program-wide names, not values. O(nodes), recursion bounded by
// core::kMaxNesting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/ir/attrs.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/scope_attrs.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/type.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/field.hpp"

namespace pypto::transforms {

/// How a use touches a variable's data. Alias: the value is handed on under another name (an
/// iter_arg's initial value, a yielded value, the value of `y = x`), which is where the data is
/// then read or written.
enum class Access : std::uint8_t { Read, Write, ReadWrite, Alias, Bookkeeping };

/// What a caller may know of a program function: its parameter directions and, per return
/// value, the parameter whose buffer it returns (return_lineage.hpp), if any.
struct CalleeInfo {
  std::vector<ir::ParamDirection> directions;
  std::vector<std::optional<std::size_t>> returned_params;
};

/// The program function of a name; nullptr when there is none.
using CalleeDirections = std::function<const CalleeInfo*(std::string_view)>;

/// A program's functions as callees, by name; a pass that changes a function's directions sets
/// it again. `lookup()` refers to the table, which must outlive it.
class CalleeTable {
 public:
  void set(const std::string& name, CalleeInfo info) { infos_[name] = std::move(info); }
  const CalleeInfo* find(std::string_view name) const {
    auto it = infos_.find(name);
    return it == infos_.end() ? nullptr : &it->second;
  }
  CalleeDirections lookup() const {
    return [this](std::string_view name) { return find(name); };
  }

 private:
  std::map<std::string, CalleeInfo, std::less<>> infos_;
};

inline Access access_of(ir::ArgEffect e) {
  switch (e) {
    case ir::ArgEffect::Read: return Access::Read;
    case ir::ArgEffect::Write: return Access::Write;
    case ir::ArgEffect::ReadWrite: return Access::ReadWrite;
  }
  return Access::Read;
}

inline Access access_of(ir::ParamDirection d) {
  switch (d) {
    case ir::ParamDirection::In: return Access::Read;
    case ir::ParamDirection::Out: return Access::Write;
    case ir::ParamDirection::InOut: return Access::ReadWrite;
  }
  return Access::Read;
}

namespace detail {

template <class T>
inline constexpr bool is_stmt_ref = false;
template <class T>
inline constexpr bool is_stmt_ref<ir::Ref<const T>> = std::is_base_of_v<ir::Stmt, T>;
template <class T>
inline constexpr bool is_stmt_ref<std::vector<T>> = is_stmt_ref<T>;

/// True when statement class S holds nested statements (a compound statement).
template <class S>
constexpr bool has_statement_fields() {
  bool any = false;
  reflect::for_each_field_descriptor<S>([&](auto f) {
    using V = std::remove_cvref_t<decltype(decltype(f)::get(std::declval<const S&>()))>;
    any = any || is_stmt_ref<V>;
  });
  return any;
}

template <class On>
class UseDefWalker {
 public:
  UseDefWalker(On& on, const ir::OpRegistry& ops, const CalleeDirections& callees)
      : on_(on), ops_(ops), callees_(callees) {}

  void stmt(const ir::Stmt& s) {
    if (++depth_ > core::kMaxNesting) too_deep();
    on_.enter(s);
    ir::visit_stmt(s, [&](const auto& n) {
      using N = std::remove_cvref_t<decltype(n)>;
      if constexpr (!has_statement_fields<N>()) {
        Access access = std::is_same_v<N, ir::YieldStmt> ? Access::Alias : Access::Read;
        if constexpr (std::is_same_v<N, ir::AssignStmt>)
          if (ir::isa<ir::Var>(*n.value)) access = Access::Alias;  // `y = x` renames x
        reflect::for_each_field(n, [&](auto field, const auto& v) {
          if constexpr (decltype(field)::kind == reflect::FieldKind::Usual) uses(v, access);
        });
        reflect::for_each_field(n, [&](auto field, const auto& v) {
          if constexpr (decltype(field)::kind == reflect::FieldKind::Def) defs(v, s);
        });
      } else {
        reflect::for_each_field(n, [&](auto field, const auto& v) {
          using F = decltype(field);
          using V = std::remove_cvref_t<decltype(v)>;
          if constexpr (F::kind == reflect::FieldKind::Def)
            defs(v, s);
          else if constexpr (is_stmt_ref<V>)
            statements(v);
          else if constexpr (F::kind == reflect::FieldKind::Usual)
            uses(v, Access::Read);
        });
      }
    });
    on_.leave(s);
    --depth_;
  }

 private:
  [[noreturn]] static void too_deep() {
    throw core::ValueError("IR nested deeper than " + std::to_string(core::kMaxNesting) +
                           " levels is not supported");
  }

  void statements(const ir::StmtRef& s) {
    if (s) stmt(*s);
  }
  void statements(const std::vector<ir::StmtRef>& list) {
    for (const auto& s : list) statements(s);
  }

  // -- bindings --
  void defs(const ir::VarRef& v, const ir::Stmt& s) {
    if (v) on_.def(*v, s);
  }
  void defs(const ir::IterArgRef& v, const ir::Stmt& s) {
    if (!v) return;
    uses(v->init_value, Access::Alias);  // evaluated before the loop binds the iter_arg
    on_.def(*v, s);
  }
  template <class T>
  void defs(const std::vector<T>& list, const ir::Stmt& s) {
    for (const auto& v : list) defs(v, s);
  }

  // -- reads --
  template <class T>
  void uses(const ir::Ref<const T>& ref, Access access) {
    if (!ref) return;
    if constexpr (std::is_base_of_v<ir::Type, T> || std::is_base_of_v<ir::Op, T>) {
      return;
    } else if constexpr (std::is_base_of_v<ir::Expr, T>) {
      expr(*ref, access);
    }
  }
  template <class T>
  void uses(const std::vector<T>& list, Access access) {
    for (const auto& v : list) uses(v, access);
  }
  template <class T>
  void uses(const std::optional<T>& v, Access access) {
    if (v) uses(*v, access);
  }
  void uses(const ir::Attrs& attrs, Access access) {
    for (const auto& e : attrs) {
      const bool bookkeeping =
          e.key == ir::scope_attr::kDumpVars || e.key == ir::scope_attr::kNoDepVars;
      attr(e.value, bookkeeping ? Access::Bookkeeping : access);
    }
  }
  template <class T>
  requires reflect::Reflected<T>
  void uses(const T& s, Access access) {
    reflect::for_each_field(s, [&](auto field, const auto& v) {
      if constexpr (decltype(field)::kind != reflect::FieldKind::Ignore) uses(v, access);
    });
  }
  template <class T>
  void uses(const T&, Access) {}  // scalars, strings, enums, spans

  void attr(const ir::AttrValue& v, Access access) {
    if (const auto* e = v.get_if<ir::ExprRef>()) uses(*e, access);
    if (const auto* l = v.get_if<ir::AttrValueList>())
      for (const auto& item : *l) attr(item, access);
  }

  void expr(const ir::Expr& e, Access access) {
    if (const auto* v = ir::as<ir::Var>(&e)) {
      on_.use(*v, access);
      return;
    }
    if (++depth_ > core::kMaxNesting) too_deep();
    if (const auto* c = ir::as<ir::Call>(&e)) {
      const CalleeInfo* callee = ir::isa<ir::GlobalVar>(*c->op) ? callees_(c->op->name) : nullptr;
      const auto* dirs = callee ? &callee->directions : nullptr;
      for (std::size_t i = 0; i < c->args.size(); ++i) {
        Access a = Access::Read;
        if (ir::isa<ir::GlobalVar>(*c->op))
          a = dirs && i < dirs->size() ? access_of((*dirs)[i]) : Access::Read;
        else
          a = access_of(ops_.effect(*c, i));
        uses(c->args[i], a);
      }
      uses(c->kwargs, Access::Read);
      uses(c->attrs, Access::Read);
    } else if (const auto* sub = ir::as<ir::Submit>(&e)) {
      // args[i] is params[i] (a prefix); deps are task ids this task consumes: reads.
      const CalleeInfo* callee = callees_(sub->op->name);
      const auto* dirs = callee ? &callee->directions : nullptr;
      for (std::size_t i = 0; i < sub->args.size(); ++i)
        uses(sub->args[i], dirs && i < dirs->size() ? access_of((*dirs)[i]) : Access::Read);
      uses(sub->deps, Access::Read);
      uses(sub->core_num, Access::Read);
      uses(sub->predicate, Access::Read);
      uses(sub->kwargs, Access::Read);
      uses(sub->attrs, Access::Read);
    } else {
      ir::visit_expr(e, [&](const auto& n) {
        reflect::for_each_field(n, [&](auto field, const auto& v) {
          if constexpr (decltype(field)::kind != reflect::FieldKind::Ignore) uses(v, Access::Read);
        });
      });
    }
    --depth_;
  }

  On& on_;
  const ir::OpRegistry& ops_;
  const CalleeDirections& callees_;
  std::size_t depth_ = 0;
};

}  // namespace detail

template <class On>
void walk_uses_defs(const ir::Stmt& s, On& on, const ir::OpRegistry& ops,
                    const CalleeDirections& callees) {
  detail::UseDefWalker<On> walker(on, ops, callees);
  walker.stmt(s);
}

}  // namespace pypto::transforms
