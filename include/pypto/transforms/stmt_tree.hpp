// pypto/transforms/stmt_tree.hpp — a function body's statements in pre-order, with their places.
//
// A StmtTree lists every statement of a function body once per occurrence, parents before
// children and children in field order (body slots from the field descriptors: body_slots.hpp).
// Each site records its parent, the field that holds it and, inside a SeqStmts, its index; from
// these `path(site)` rebuilds the field path a diagnostic names (`body.stmts[2].then_body`), and
// `enclosing<S>(site)` finds the nearest enclosing scope statement of type S (not the site
// itself). Verifiers that must know where a statement sits read it from here. Building is
// iterative (any depth) and O(statements); `path` is O(depth); `enclosing` is O(enclosing
// scopes). A statement shared by two places has two sites.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/stmt.hpp"

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
  PYPTO_DECL explicit StmtTree(const ir::Function& fn);

  std::size_t size() const { return sites_.size(); }
  const Site& operator[](std::size_t id) const { return sites_[id]; }
  const ir::Stmt& stmt(std::size_t id) const { return *sites_[id].stmt; }

  /// The field path of a site from the function: `body.stmts[1].then_body.stmts[0]`.
  PYPTO_DECL std::string path(std::size_t id) const;

  /// `path(id)`, followed by ` (line:column)` when the statement has a known span.
  PYPTO_DECL std::string where(std::size_t id) const;

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

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/stmt_tree.ipp"
#endif
