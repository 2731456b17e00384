// pypto/ir/implicit_kernel.hpp — the kernel scopes the text implies without spelling them.
//
// Two source forms stand for an InCore scope the text does not write, as upstream PyPTO's parser
// reads them (docs/ir.md, "Kernel regions the text implies"): a `pl.split_aiv` region outside any
// kernel, and a `with pl.spmd(n):` body that does per-block work itself — it reads the block
// index (`pl.tile.get_block_idx()`), holds no kernel scope of its own, and is not one lone kernel
// scope (the explicit carrier). The parser wraps both; the printer writes a bare one that IR built
// in C++ holds in its `pl._dump` form, which reads back without the wrapper. One rule each, here,
// for both. Each query is O(nodes of the body), iterative.
#pragma once

#include <string>
#include <utility>

#include "pypto/core/span.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/visit.hpp"

namespace pypto::ir {

/// `body` (a split region, or a spmd body the rule below holds for) inside an unnamed InCore scope
/// of its own.
inline Ref<const InCoreScopeStmt> implicit_kernel(StmtRef body, std::string name_hint = {},
                                                  SplitMode split = SplitMode::None,
                                                  Attrs attrs = {}) {
  core::Span span = body->span;
  if (!isa<SeqStmts>(*body)) body = SeqStmts::make({std::move(body)}, span);
  return InCoreScopeStmt::make(std::move(body), std::move(name_hint), split, std::move(attrs),
                               std::move(span));
}

/// True when `body` holds an InCore scope (a kernel of its own).
inline bool spmd_body_has_kernel(const Stmt& body) {
  bool has_kernel = false;
  for_each_node(NodeRef(&body), [&](const Node& n) {
    if (isa<InCoreScopeStmt>(n)) has_kernel = true;
  });
  return has_kernel;
}

/// True when a `with pl.spmd(n):` body is per-block work of its own, which the parser wraps in
/// an InCore scope: it reads the block index, holds no InCore scope, and is not one.
inline bool spmd_body_is_implicit_kernel(const Stmt& body) {
  bool reads_index = false, has_kernel = false;
  for_each_node(NodeRef(&body), [&](const Node& n) {
    if (isa<InCoreScopeStmt>(n)) has_kernel = true;
    if (const auto* c = as<Call>(&n);
        c && !isa<GlobalVar>(*c->op) && c->op->id == OpId::tile_get_block_idx)
      reads_index = true;
  });
  return reads_index && !has_kernel;
}

}  // namespace pypto::ir
