// pypto/transforms/stmt_tree.ipp — the definitions of transforms/stmt_tree.hpp.
#pragma once

#include "pypto/transforms/stmt_tree.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/core/span.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/transforms/body_slots.hpp"

namespace pypto::transforms {

PYPTO_DECL StmtTree::StmtTree(const ir::Function& fn) {
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

PYPTO_DECL std::string StmtTree::path(std::size_t id) const {
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

PYPTO_DECL std::string StmtTree::where(std::size_t id) const {
  const core::Span& span = sites_[id].stmt->span;
  return path(id) + (span.is_known() ? " (" + span.to_string() + ")" : std::string());
}

}  // namespace pypto::transforms
