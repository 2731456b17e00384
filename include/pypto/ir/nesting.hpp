// pypto/ir/nesting.hpp — the one measure of how deeply IR nests, and its one limit.
//
// A node's nesting is the number of nodes on the longest path from it down through its
// children (`for_each_child`: fields, optionals, views, attribute values; types included). The
// parser holds every program to core::kMaxNesting by this measure; the other layers count fewer
// levels on the same IR, so whatever parses, prints, compares and runs through every pass. See
// docs/ir.md, "Nesting".
//
// `find_too_deep` is iterative (no native recursion) and O(nodes + fields): a node shared by
// several parents is measured once.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "pypto/core/config.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/core/span.hpp"
#include "pypto/ir/node.hpp"

namespace pypto::ir {

/// Where IR nests deeper than a limit: the first node (in field order) past it, how deep the
/// path through it goes, and the nearest source position on that path (unknown if none).
struct TooDeep {
  NodeRef node;
  std::size_t depth = 0;
  Span span;
};

/// The first path below `root` with more than `limit` nodes, or nullopt when there is none.
PYPTO_DECL std::optional<TooDeep> find_too_deep(const Node& root,
                                                std::size_t limit = core::kMaxNesting);

/// "IR nests deeper than 512 levels (513 levels at a SeqStmts)": what `deep` says, for errors.
PYPTO_DECL std::string describe(const TooDeep& deep);

/// Throws core::ValueError naming `who`, the limit and the position when `root` nests deeper
/// than core::kMaxNesting.
PYPTO_DECL void require_nesting_within_limit(const Node& root, std::string_view who);

}  // namespace pypto::ir

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/ir/nesting.ipp"
#endif
