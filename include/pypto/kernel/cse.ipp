// pypto/kernel/cse.ipp — the definitions of kernel/cse.hpp.
#pragma once

#include "pypto/kernel/cse.hpp"

#include <cstddef>
#include <utility>

#include "pypto/kernel/regalloc.hpp"
#include "pypto/kernel/spec.hpp"
#include "pypto/kernel/ssa.ipp"

namespace pypto::kernel {

PYPTO_DECL bool eliminate_common_subexpressions(SsaForm& f) {
  detail::ValueTable table;
  detail::AliasTable alias{};
  const std::size_t n = f.nodes.size();
  bool changed = false;
  for (std::size_t i = 0; i < n; ++i) {
    const Node before = f.nodes[i];  // a local copy: see fold.ipp
    Node node = before;
    bool dirty = detail::substitute_aliases(node, alias);
    dirty |= detail::order_commutative_swapped(f, node);
    if (detail::number_value(table, node, i, n, alias)) {
      dirty |= i + 1 == n;
      changed = true;
    }
    if (dirty && !detail::same_node(node, before)) {
      f.nodes[i] = node;
      changed = true;
    }
  }
  return changed;
}

PYPTO_DECL Spec eliminate_common_subexpressions(const Spec& spec) {
  SsaForm f = to_ssa(spec);
  eliminate_common_subexpressions(f);
  return allocate(std::move(f));
}

}  // namespace pypto::kernel
