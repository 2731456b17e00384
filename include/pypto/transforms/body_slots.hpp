// pypto/transforms/body_slots.hpp — the body slots of a statement, read from its descriptors.
//
// A body slot is a statement-valued field of a statement: a function body's statement, a
// for/while body, the arms of an if, a scope's body. The helpers here find them through the
// field descriptors, so a new compound statement needs no change in the passes and analyses
// that use them (normalize-stmt-structure, the scope outliner, return lineage, StmtTree, the
// tile conversion). Templates over the caller's function object; each call is O(fields).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "pypto/ir/node.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/field.hpp"

namespace pypto::transforms::detail {

/// Calls `fn(slot, field name)` for each body slot of `s` — its statement-valued fields, read
/// from the field descriptors, so a new compound statement needs no change here — in field
/// order, null slots skipped.
template <class Fn>
void for_each_body_slot(const ir::Stmt& s, Fn&& fn) {
  ir::visit_stmt(s, [&](const auto& n) {
    reflect::for_each_field(n, [&](auto field, const auto& value) {
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(value)>, ir::StmtRef>)
        if (value) fn(value, decltype(field)::name);
    });
  });
}

/// `s` with each body slot replaced by `fn(slot)` — copied at the first slot that changes — or
/// `s` itself when none changes. The slots are read from the field descriptors, as above.
template <class Fn>
ir::StmtRef with_body_slots(const ir::StmtRef& s, Fn&& fn) {
  return ir::visit_stmt(*s, [&](const auto& n) -> ir::StmtRef {
    decltype(ir::copy_node(n)) copy;  // made at the first slot that changes
    reflect::for_each_field(n, [&](auto field, const auto& value) {
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(value)>, ir::StmtRef>) {
        if (!value) return;
        ir::StmtRef done = fn(value);
        if (done == value) return;
        if (!copy) copy = ir::copy_node(n);
        copy.get()->*decltype(field)::member = std::move(done);
      }
    });
    return copy ? ir::StmtRef(copy) : s;
  });
}

/// `s` with each statement directly inside it (a sequence's items, a compound statement's body
/// slots) replaced by `fn(child)`; `s` itself when no child changed.
template <class Fn>
ir::StmtRef map_children(const ir::StmtRef& s, Fn&& fn) {
  const auto* seq = ir::as<ir::SeqStmts>(s.get());
  if (!seq) return with_body_slots(s, fn);
  decltype(ir::copy_node(*seq)) copy;
  for (std::size_t k = 0; k < seq->stmts.size(); ++k) {
    ir::StmtRef c = fn(seq->stmts[k]);
    if (c == seq->stmts[k]) continue;
    if (!copy) copy = ir::copy_node(*seq);
    copy->stmts[k] = std::move(c);
  }
  return copy ? ir::StmtRef(copy) : s;
}

}  // namespace pypto::transforms::detail
