// pypto/ir/loop_exits.hpp — the breaks and continues a statement holds of the loop it is in.
//
// A break or continue belongs to the innermost loop around it, so the walk does not enter
// nested loops. `structured` is true when every exit is reached through statement sequences and
// ifs without results alone (not from inside a scope statement or an if that yields values): the
// form in which the statements after an exit can be moved into if arms. O(size of `s`), one
// frame per nesting level; nesting deeper than core::kMaxNesting is a ValueError.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/reflect/field.hpp"

namespace pypto::ir {

struct LoopExits {
  bool breaks = false;
  bool continues = false;
  bool structured = true;

  bool any() const { return breaks || continues; }
};

inline LoopExits loop_exits(const Stmt& s, std::size_t depth = 0) {
  if (depth > core::kMaxNesting)
    throw core::ValueError("statements nested deeper than " + std::to_string(core::kMaxNesting) +
                           " levels are not supported");
  if (isa<BreakStmt>(s)) return {.breaks = true};
  if (isa<ContinueStmt>(s)) return {.continues = true};
  if (isa<ForStmt>(s) || isa<WhileStmt>(s)) return {};
  LoopExits out;
  auto add = [&](const StmtRef& x) {
    if (!x) return;
    const LoopExits e = loop_exits(*x, depth + 1);
    out.breaks = out.breaks || e.breaks;
    out.continues = out.continues || e.continues;
    out.structured = out.structured && e.structured;
  };
  visit_stmt(s, [&](const auto& n) {
    reflect::for_each_field(n, [&](auto, const auto& v) {
      using V = std::remove_cvref_t<decltype(v)>;
      if constexpr (std::is_same_v<V, StmtRef>) {
        add(v);
      } else if constexpr (std::is_same_v<V, std::vector<StmtRef>>) {
        for (const auto& x : v) add(x);
      }
    });
  });
  const auto* i = as<IfStmt>(&s);
  if (out.any() && !isa<SeqStmts>(s) && (!i || !i->return_vars.empty())) out.structured = false;
  return out;
}

}  // namespace pypto::ir
