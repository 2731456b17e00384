// pypto/transforms/stmt_tree.hpp — a function body's statements in pre-order, with their places.
//
// A StmtTree lists every statement of a function body once per occurrence, parents before
// children and children in field order (the body slots come from the field descriptors, as in
// normalize_stmt_structure.hpp, so a new compound statement needs no change here). Each site
// records its parent, the field that holds it and, inside a SeqStmts, its index; from these
// `path(site)` rebuilds the field path a diagnostic names (`body.stmts[2].then_body`), and
// `enclosing<S>(site)` finds the nearest enclosing scope statement of type S (statements
// inside it, not the scope itself). Verifiers and analyses that must know where a statement
// sits (inside an InCore scope, inside a split_aiv region) read it from here instead of each
// carrying its own stack of context.
//
// Building is iterative (any depth) and O(statements); `path` is O(depth); `enclosing` is
// O(number of enclosing scopes). A statement shared by two places has two sites.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/ir/function.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/transforms/normalize_stmt_structure.hpp"

namespace pypto::transforms {

class StmtTree {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  struct Site {
    const ir::Stmt* stmt;
    std::size_t parent;      ///< the parent's site; npos for the body itself
    std::string_view field;  ///< the parent's field holding this statement ("body", "stmts")
    std::size_t index;       ///< the position in the parent SeqStmts; npos otherwise
    std::size_t scope;       ///< the nearest enclosing ScopeStmt's site; npos when none
  };

  /// The statements of `fn`'s body (none for a runtime-bound declaration).
  explicit StmtTree(const ir::Function& fn) {
    if (!fn.body) return;
    std::vector<Site> stack{{fn.body.get(), npos, "body", npos, npos}};
    std::vector<Site> children;
    while (!stack.empty()) {
      const Site site = stack.back();
      stack.pop_back();
      const std::size_t id = sites_.size();
      sites_.push_back(site);
      const std::size_t scope = ir::isa<ir::ScopeStmt>(*site.stmt) ? id : site.scope;
      children.clear();
      if (const auto* seq = ir::as<ir::SeqStmts>(site.stmt)) {
        for (std::size_t i = 0; i < seq->stmts.size(); ++i)
          children.push_back({seq->stmts[i].get(), id, "stmts", i, scope});
      } else {
        detail::for_each_body_slot(*site.stmt, [&](const ir::StmtRef& s, std::string_view f) {
          children.push_back({s.get(), id, f, npos, scope});
        });
      }
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
    }
  }

  std::size_t size() const { return sites_.size(); }
  const Site& operator[](std::size_t id) const { return sites_[id]; }
  const ir::Stmt& stmt(std::size_t id) const { return *sites_[id].stmt; }

  /// The field path of a site from the function: `body.stmts[1].then_body.stmts[0]`.
  std::string path(std::size_t id) const {
    std::vector<std::size_t> chain;
    for (std::size_t s = id; s != npos; s = sites_[s].parent) chain.push_back(s);
    std::string out;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const Site& s = sites_[*it];
      if (!out.empty()) out += ".";
      out += s.field;
      if (s.index != npos) out += "[" + std::to_string(s.index) + "]";
    }
    return out;
  }

  /// `path(id)`, followed by ` (line:column)` when the statement has a known span.
  std::string where(std::size_t id) const {
    const core::Span& span = sites_[id].stmt->span;
    return path(id) + (span.is_known() ? " (" + span.to_string() + ")" : std::string());
  }

  /// The site of the nearest scope statement of type S that encloses site `id` (not `id`
  /// itself), or npos.
  template <class S>
  std::size_t enclosing(std::size_t id) const {
    for (std::size_t s = sites_[id].scope; s != npos; s = sites_[s].scope)
      if (ir::isa<S>(*sites_[s].stmt)) return s;
    return npos;
  }

 private:
  std::vector<Site> sites_;
};

}  // namespace pypto::transforms
