// pypto/ir/nesting.ipp — the definitions of ir/nesting.hpp.
#pragma once

#include "pypto/ir/nesting.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/visit.hpp"

namespace pypto::ir {

namespace detail {

/// The source position of `n`, if it carries one (a variable's is where it is defined, not the
/// use on this path: skipped).
inline Span own_span(const Node& n) {
  if (isa<Var>(n)) return {};
  if (const auto* e = as<Expr>(&n)) return e->span;
  if (const auto* s = as<Stmt>(&n)) return s->span;
  if (const auto* f = as<Function>(&n)) return f->span;
  return {};
}

}  // namespace detail

PYPTO_DECL std::optional<TooDeep> find_too_deep(const Node& root, std::size_t limit) {
  // Post-order over the graph with an explicit stack. A frame's `height` gathers the largest
  // height among its finished children; a shared node's height (nodes on its longest downward
  // path) is memoized when it finishes, so it is walked once and met again in O(1).
  struct Frame {
    const Node* node;
    std::uint32_t parent;
    std::size_t depth;
    std::size_t height = 0;
    bool expanded = false;
  };
  constexpr auto kNoParent = static_cast<std::uint32_t>(-1);
  ::pypto::detail::PointerMap<std::size_t> heights;
  std::vector<Frame> frames{{&root, kNoParent, 1}};
  const auto too_deep = [&](std::uint32_t index, std::size_t depth) {
    TooDeep out{NodeRef(frames[index].node), depth, {}};
    for (std::uint32_t i = index; i != kNoParent && !out.span.is_known(); i = frames[i].parent)
      out.span = detail::own_span(*frames[i].node);
    return out;
  };
  const auto finish = [&](std::size_t height) {
    const std::uint32_t parent = frames.back().parent;
    frames.pop_back();
    if (parent != kNoParent) frames[parent].height = std::max(frames[parent].height, height);
  };
  while (!frames.empty()) {
    const auto index = static_cast<std::uint32_t>(frames.size() - 1);
    Frame& f = frames.back();
    // Only a node held by more than one handle can be met again: the others skip the memo.
    const bool shared = f.node->use_count() > 1;
    if (f.expanded) {
      const std::size_t height = f.height + 1;
      if (shared) heights.insert(f.node, height);
      finish(height);
      continue;
    }
    if (const std::size_t* h = shared ? heights.find(f.node) : nullptr) {
      if (f.depth + *h - 1 > limit) return too_deep(index, f.depth + *h - 1);
      finish(*h);
      continue;
    }
    if (f.depth > limit) return too_deep(index, f.depth);
    f.expanded = true;
    const std::size_t depth = f.depth + 1;
    for_each_child(*f.node, [&](NodeRef c) { frames.push_back({c.get(), index, depth}); });
  }
  return std::nullopt;
}

PYPTO_DECL std::string describe(const TooDeep& deep) {
  return "IR nests deeper than " + std::to_string(core::kMaxNesting) + " levels (" +
         std::to_string(deep.depth) + " levels at a " + std::string(kind_name(deep.node->kind())) +
         ")";
}

PYPTO_DECL void require_nesting_within_limit(const Node& root, std::string_view who) {
  const std::optional<TooDeep> deep = find_too_deep(root);
  if (!deep) return;
  throw core::ValueError(std::string(who) + ": " + describe(*deep) + " at " +
                         deep->span.to_string());
}

}  // namespace pypto::ir
