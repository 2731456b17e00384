// pypto/transforms/ssa_form.ipp — the definitions of transforms/ssa_form.hpp.
//
// A program is in SSA form (the property ConvertToSSA produces and the outline passes require)
// when
//   1. every variable is defined exactly once in the program: at one Def position (a parameter,
//      an assignment, a loop variable, an iter_arg, a return var, a split_aiv index, any field
//      the descriptors mark Def) of one function;
//   2. every use is reached by its definition in the structured sense: defined earlier in an
//      enclosing sequence, a parameter, or a binder of an enclosing loop; return vars are
//      visible after their statement; definitions in a scope body (InCore, Cluster, Spmd,
//      Hierarchy, SplitAiv, Runtime) flow out to the statements after the scope, those in a
//      for/while body or an if arm do not. Shape symbols and other variables that nothing in
//      the function defines are free and may be used anywhere;
//   3. every for/while that carries values and every if with results ends each region in a
//      yield of exactly as many values (the yield may close a scope that ends the region, as
//      the printer writes it); a region with nothing to carry yields no values.
// Rules 1 (within a function) and 2 are structural::verify_structural_bindings, run per
// function; this file adds the program-wide part of rule 1, the cross-function uses, and
// rule 3. `find_ssa_violation` returns the first violation as a message naming the function,
// the variable and the field path or statement. O(N) expected (identity hashing), N = nodes.
//
// Also the definition walkers convert_to_ssa.ipp and fresh_copy.ipp share (detail::tail_yield,
// for_each_defined_var, for_each_definition).
#pragma once

#include "pypto/transforms/ssa_form.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/var.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/field.hpp"
#include "pypto/structural/bindings.hpp"
#include "pypto/structural/errors.hpp"

namespace pypto::transforms {

namespace detail {

/// The yield that ends a region: the last statement of `body`, looking through the last
/// statement of a sequence and the body of a scope that ends the region; null when the region
/// does not end in a yield.
inline const ir::YieldStmt* tail_yield(const ir::Stmt& body) {
  const ir::Stmt* s = &body;
  for (;;) {
    if (const auto* y = ir::as<ir::YieldStmt>(s)) return y;
    if (const auto* seq = ir::as<ir::SeqStmts>(s)) {
      if (seq->stmts.empty()) return nullptr;
      s = seq->stmts.back().get();
    } else if (const auto* scope = ir::as<ir::ScopeStmt>(s)) {
      s = scope->body.get();
    } else {
      return nullptr;
    }
  }
}

/// Calls `fn(var)` for each value of a Def field (a variable, or a list or optional of them).
template <class T, class Fn>
void for_each_defined_var(const T& value, Fn&& fn) {
  if constexpr (reflect::detail::is_vector<T>) {
    for (const auto& v : value)
      if (v) fn(*v);
  } else if constexpr (reflect::detail::is_optional<T>) {
    if (value && *value) fn(**value);
  } else {
    static_assert(std::is_convertible_v<T, ir::VarRef>,
                  "a Def field holds a variable, or a list or optional of variables");
    if (value) fn(*value);
  }
}

/// Calls `fn(var)` for each definition in `f` (parameters, then every Def field of every
/// statement, in field order). Statement fields are found through the descriptors; explicit
/// stack, so any depth is fine.
template <class Fn>
void for_each_definition(const ir::Function& f, Fn&& fn) {
  for (const auto& p : f.params) fn(*p);
  std::vector<const ir::Stmt*> stack;
  if (f.body) stack.push_back(f.body.get());
  std::vector<const ir::Stmt*> inner;
  while (!stack.empty()) {
    const ir::Stmt* s = stack.back();
    stack.pop_back();
    inner.clear();
    ir::visit_stmt(*s, [&](const auto& n) {
      reflect::for_each_field(n, [&](auto field, const auto& value) {
        using T = std::remove_cvref_t<decltype(value)>;
        if constexpr (decltype(field)::kind == reflect::FieldKind::Def)
          for_each_defined_var(value, fn);
        else if constexpr (std::is_same_v<T, ir::StmtRef>)
          inner.push_back(value.get());
        else if constexpr (std::is_same_v<T, std::vector<ir::StmtRef>>)
          for (const auto& c : value) inner.push_back(c.get());
      });
    });
    for (auto it = inner.rbegin(); it != inner.rend(); ++it)
      if (*it) stack.push_back(*it);
  }
}

inline std::string quoted(std::string_view name) {
  std::string out(1, '\'');  // appended, not "'" + string: g++ 12 -O3 warns (restrict) on that
  out.append(name);
  out.push_back('\'');
  return out;
}

/// `'a', 'b'`: the names of `vars`.
template <class List>
std::string quoted_names(const List& vars) {
  std::string out;
  for (const auto& v : vars) out += (out.empty() ? "" : ", ") + detail::quoted(v->name_hint);
  return out;
}

/// Rule 3 for one region: its tail yield hands out `expected` values (described by `what`).
inline std::optional<std::string> check_region_yield(const ir::Stmt* body, std::size_t expected,
                                                     const std::string& what) {
  const ir::YieldStmt* y = body ? tail_yield(*body) : nullptr;
  const std::size_t got = y ? y->values.size() : 0;
  if (expected > 0 && !y) return what + " does not end in a yield";
  if (got != expected)
    return what + " ends in a yield of " + std::to_string(got) + " value(s), but " +
           std::to_string(expected) + " are carried";
  return std::nullopt;
}

/// Rule 3 for one statement (for, while, if; nullopt for the others).
inline std::optional<std::string> check_yields(const ir::Stmt& s) {
  if (const auto* f = ir::as<ir::ForStmt>(&s)) {
    std::string what = "the body of the for loop over " + detail::quoted(f->loop_var->name_hint);
    if (!f->iter_args.empty()) what += " (carrying " + quoted_names(f->iter_args) + ")";
    return check_region_yield(f->body.get(), f->iter_args.size(), what);
  }
  if (const auto* w = ir::as<ir::WhileStmt>(&s)) {
    std::string what = "the body of the while loop";
    if (!w->iter_args.empty()) what += " carrying " + quoted_names(w->iter_args);
    return check_region_yield(w->body.get(), w->iter_args.size(), what);
  }
  if (const auto* i = ir::as<ir::IfStmt>(&s)) {
    std::string what = "of the if";
    if (!i->return_vars.empty()) what += " defining " + quoted_names(i->return_vars);
    if (auto v = check_region_yield(i->then_body.get(), i->return_vars.size(),
                                    "the then branch " + what))
      return v;
    if (i->else_body || !i->return_vars.empty())
      return check_region_yield(i->else_body.get(), i->return_vars.size(),
                                "the else branch " + what);
  }
  return std::nullopt;
}

}  // namespace detail

PYPTO_DECL std::optional<std::string> find_ssa_violation(const ir::Program& program) {
  const auto in = [](const std::string& fn) { return "function " + detail::quoted(fn) + ": "; };
  // Rules 1 and 2 within each function.
  for (const auto& [name, fn] : program.functions) {
    if (!fn->body) continue;
    try {
      structural::verify_structural_bindings(*fn);
    } catch (const structural::BindingError& e) {
      return in(name) + e.what();
    }
  }
  // Rule 1 across functions: each variable belongs to one function, which alone may use it.
  ::pypto::detail::PointerMap<std::uint32_t> owner;  // looked up, never iterated
  const auto& fns = program.functions;
  for (std::uint32_t i = 0; i < fns.size(); ++i) {
    std::optional<std::string> clash;
    detail::for_each_definition(*fns[i].function, [&](const ir::Var& v) {
      const auto [at, fresh] = owner.insert(&v, i);
      if (!fresh && *at != i && !clash)
        clash = in(fns[i].name) + "variable " + detail::quoted(v.name_hint) +
                " is also defined in function " + detail::quoted(fns[*at].name);
    });
    if (clash) return clash;
  }
  for (std::uint32_t i = 0; i < fns.size(); ++i) {
    std::optional<std::string> violation;
    ir::for_each_node(fns[i].function, [&](const ir::Node& n) {
      if (violation) return;
      if (const auto* v = ir::as<ir::Var>(&n)) {
        if (const std::uint32_t* at = owner.find(v); at && *at != i)
          violation = in(fns[i].name) + "variable " + detail::quoted(v->name_hint) +
                      " is defined in function " + detail::quoted(fns[*at].name) +
                      " and cannot be used here";
      } else if (const auto* s = ir::as<ir::Stmt>(&n)) {
        if (auto bad = detail::check_yields(*s)) violation = in(fns[i].name) + *bad;
      }
    });
    if (violation) return violation;
  }
  return std::nullopt;
}

PYPTO_DECL bool is_ssa_form(const ir::Program& program) { return !find_ssa_violation(program); }

}  // namespace pypto::transforms
