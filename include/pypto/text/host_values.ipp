// pypto/text/host_values.ipp — the definitions of text/host_values.hpp.
#pragma once

#include "pypto/text/host_values.hpp"

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/core/identifier.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/syntax.hpp"

namespace pypto::text {

namespace detail {

using Names = std::set<std::string, std::less<>>;

/// A copy of `from` whose every node is at `pos` (an error in it points at the name it replaced).
inline syntax::ExprPtr copy_at(const syntax::Expr& from, TextPos pos) {
  auto root = std::make_unique<syntax::Expr>();
  std::vector<std::pair<const syntax::Expr*, syntax::Expr*>> work{{&from, root.get()}};
  while (!work.empty()) {
    const auto [src, dst] = work.back();
    work.pop_back();
    dst->kind = src->kind;
    dst->pos = pos;
    dst->parenthesized = src->parenthesized;
    dst->chained = src->chained;
    dst->text = src->text;
    dst->int_value = src->int_value;
    dst->float_value = src->float_value;
    for (const syntax::ExprPtr& item : src->items) {
      dst->items.push_back(item ? std::make_unique<syntax::Expr>() : nullptr);
      if (item) work.emplace_back(item.get(), dst->items.back().get());
    }
    for (const syntax::Keyword& k : src->keywords) {
      dst->keywords.push_back({k.name, pos, std::make_unique<syntax::Expr>()});
      work.emplace_back(k.value.get(), dst->keywords.back().value.get());
    }
  }
  return root;
}

/// The names a target binds: a name, or the names of a tuple / list of targets.
inline void add_targets(const syntax::Expr* target, Names& out) {
  if (!target) return;
  if (target->kind == syntax::ExprKind::Name) out.insert(target->text);
  if (target->kind == syntax::ExprKind::Tuple || target->kind == syntax::ExprKind::List)
    for (const syntax::ExprPtr& item : target->items) add_targets(item.get(), out);
}

class HostValues {
 public:
  explicit HostValues(const std::map<std::string, std::string>& sources) {
    for (const auto& [name, source] : sources) {
      const std::string what = "host value " + name + " = `" + source + "`";
      if (!core::is_identifier(name))
        throw core::ValueError("the " + what + " names no identifier");
      syntax::Module m;
      try {
        m = syntax::parse_module("_ = " + source + "\n");
      } catch (const ParseError& e) {  // at its column in `source`, not in the line parsed
        const TextPos at{e.line(), e.line() == 1 && e.column() > 4 ? e.column() - 4 : 1};
        throw core::ValueError("the " + what + " is not one expression: " +
                               ParseError(at, e.token(), e.expected()).what());
      }
      if (m.size() != 1 || m[0]->kind != syntax::StmtKind::Assign || !m[0]->value)
        throw core::ValueError("the " + what + " is not one expression");
      values_.emplace(name, std::move(m[0]->value));
    }
  }

  /// A block of one scope: its own bindings shadow the host values in all of it.
  void block(std::vector<syntax::StmtPtr>& stmts, const Names& outer) {
    Names bound = outer;
    for (const syntax::StmtPtr& s : stmts) bindings(*s, bound);
    for (syntax::StmtPtr& s : stmts) stmt(*s, bound);
  }

 private:
  /// The names `s` binds in the scope it belongs to (not inside a function or class it defines).
  static void bindings(const syntax::Stmt& s, Names& out) {
    switch (s.kind) {
      case syntax::StmtKind::Assign:
      case syntax::StmtKind::Declare:
      case syntax::StmtKind::AugAssign:
      case syntax::StmtKind::For:
      case syntax::StmtKind::With: add_targets(s.target.get(), out); break;
      case syntax::StmtKind::FunctionDef:
      case syntax::StmtKind::ClassDef: out.insert(s.name); return;
      case syntax::StmtKind::Import:
        out.insert(!s.name.empty() ? s.name : s.text.substr(0, s.text.find_first_of(".:")));
        return;
      default: break;
    }
    for (const syntax::StmtPtr& b : s.body) bindings(*b, out);
    for (const syntax::StmtPtr& b : s.orelse) bindings(*b, out);
  }

  void stmt(syntax::Stmt& s, const Names& bound) {
    for (syntax::ExprPtr& d : s.decorators) expr(d, bound);
    if (s.kind == syntax::StmtKind::FunctionDef || s.kind == syntax::StmtKind::ClassDef) {
      Names inner = bound;
      for (const syntax::Param& p : s.params) inner.insert(p.name);
      for (const syntax::StmtPtr& b : s.body) bindings(*b, inner);
      for (syntax::Param& p : s.params) expr(p.annotation, inner);
      expr(s.returns, inner);
      for (syntax::StmtPtr& b : s.body) stmt(*b, inner);
      return;
    }
    expr(s.target, bound);
    expr(s.annotation, bound);
    expr(s.value, bound);
    for (syntax::StmtPtr& b : s.body) stmt(*b, bound);
    for (syntax::StmtPtr& b : s.orelse) stmt(*b, bound);
  }

  void expr(syntax::ExprPtr& root, const Names& bound) {
    std::vector<std::pair<syntax::ExprPtr*, const Names*>> work{{&root, &bound}};
    while (!work.empty()) {
      const auto [at, names] = work.back();
      work.pop_back();
      syntax::Expr* e = at->get();
      if (!e) continue;
      if (e->kind == syntax::ExprKind::Name) {
        const auto value = values_.find(e->text);
        if (value != values_.end() && !names->contains(e->text))
          *at = copy_at(*value->second, e->pos);
        continue;
      }
      const Names* inner = names;
      if (e->kind == syntax::ExprKind::ListComp && e->items.size() > 1) {
        Names& scope = comprehensions_.emplace_back(*names);  // its variable shadows
        add_targets(e->items[1].get(), scope);
        inner = &scope;
      }
      for (std::size_t i = 0; i < e->items.size(); ++i)
        work.emplace_back(&e->items[i],
                          e->kind == syntax::ExprKind::ListComp && i == 2 ? names : inner);
      for (syntax::Keyword& k : e->keywords) work.emplace_back(&k.value, names);
    }
  }

  std::map<std::string, syntax::ExprPtr, std::less<>> values_;
  std::deque<Names> comprehensions_;  // stable addresses for the work list
};

}  // namespace detail

PYPTO_DECL void bind_host_values(syntax::Module& module,
                                 const std::map<std::string, std::string>& values) {
  if (values.empty()) return;
  detail::HostValues(values).block(module, {});
}

}  // namespace pypto::text
