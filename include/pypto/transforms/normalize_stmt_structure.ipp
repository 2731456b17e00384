// pypto/transforms/normalize_stmt_structure.ipp — the definitions of
// transforms/normalize_stmt_structure.hpp.
#pragma once

#include "pypto/transforms/normalize_stmt_structure.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/core/limits.hpp"
#include "pypto/detail/pointer_map.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/visit.hpp"
#include "pypto/transforms/body_slots.hpp"
#include "pypto/transforms/pass.hpp"

namespace pypto::transforms {

namespace detail {

class StmtStructureNormalizer {
 public:
  ir::FunctionRef function(const ir::FunctionRef& f) {
    if (!f->body) return f;  // a runtime-bound declaration has no body
    ir::StmtRef body = slot(f->body);
    if (body == f->body) return f;
    auto copy = ir::copy_node(*f);
    copy->body = std::move(body);
    return copy;
  }

 private:
  /// `body` as a SeqStmts of normalized, non-sequence statements.
  ir::StmtRef slot(const ir::StmtRef& body) {
    const auto* seq = ir::as<ir::SeqStmts>(body.get());
    if (!seq) return ir::SeqStmts::make({stmt(body)}, body->span);

    std::vector<ir::StmtRef> flat;
    std::vector<std::string> pending_comments;  // of spliced sequences, for the next statement
    bool changed = false;
    // Explicit stack of (sequence, next index): nested sequences cost heap, not native stack.
    std::vector<std::pair<const ir::SeqStmts*, std::size_t>> stack{{seq, 0}};
    while (!stack.empty()) {
      auto& [current, next] = stack.back();
      if (next == current->stmts.size()) {
        stack.pop_back();
        continue;
      }
      const ir::StmtRef& child = current->stmts[next++];
      if (const auto* inner = ir::as<ir::SeqStmts>(child.get())) {
        changed = true;
        pending_comments.insert(pending_comments.end(), inner->leading_comments.begin(),
                                inner->leading_comments.end());
        stack.emplace_back(inner, 0);  // invalidates `current`/`next`; not used after this
        continue;
      }
      ir::StmtRef normalized = stmt(child);
      if (!pending_comments.empty()) {
        normalized = with_leading_comments(normalized, std::move(pending_comments));
        pending_comments.clear();
      }
      changed = changed || normalized != child;
      flat.push_back(std::move(normalized));
    }
    if (!changed) return body;
    auto out = ir::copy_node(*seq);
    out->stmts = std::move(flat);
    out->leading_comments.insert(out->leading_comments.end(), pending_comments.begin(),
                                 pending_comments.end());
    return out;
  }

  /// A non-sequence statement with its body slots normalized.
  ir::StmtRef stmt(const ir::StmtRef& s) {
    if (const ir::StmtRef* done = memo_.find(s.get())) return *done;
    if (depth_ >= core::kMaxNesting)
      throw core::ValueError("normalize-stmt-structure: statements nested deeper than " +
                             std::to_string(core::kMaxNesting) + " levels are not supported");
    ++depth_;
    ir::StmtRef out = with_body_slots(s, [&](const ir::StmtRef& body) { return slot(body); });
    --depth_;
    memo_.insert(s.get(), out);
    return out;
  }

  static ir::StmtRef with_leading_comments(const ir::StmtRef& s, std::vector<std::string> first) {
    // Copy through the concrete class: copy_node must copy the whole statement, not its base.
    return ir::visit_stmt(*s, [&](const auto& n) -> ir::StmtRef {
      auto copy = ir::copy_node(n);
      first.insert(first.end(), n.leading_comments.begin(), n.leading_comments.end());
      copy->leading_comments = std::move(first);
      return copy;
    });
  }

  std::size_t depth_ = 0;
  // Looked up, never iterated: the output does not depend on addresses.
  ::pypto::detail::PointerMap<ir::StmtRef> memo_;
};

}  // namespace detail

PYPTO_DECL std::optional<std::string> find_unnormalized_stmt_structure(const ir::Program& program) {
  struct Slot {
    const ir::Stmt* stmt;
    std::string path;
  };
  for (const auto& [name, fn] : program.functions) {
    if (!fn->body) continue;
    std::vector<Slot> slots{{fn->body.get(), "body"}};  // explicit stack: any depth is fine
    while (!slots.empty()) {
      Slot slot = std::move(slots.back());
      slots.pop_back();
      const auto* seq = ir::as<ir::SeqStmts>(slot.stmt);
      if (!seq)
        return name + ": " + slot.path + " is a " + std::string(ir::kind_name(slot.stmt->kind())) +
               ", not a SeqStmts";
      for (std::size_t i = 0; i < seq->stmts.size(); ++i)
        if (ir::isa<ir::SeqStmts>(*seq->stmts[i]))
          return name + ": " + slot.path + ".stmts[" + std::to_string(i) +
                 "] is a SeqStmts nested in a SeqStmts";
      // Inner slots pushed in reverse: they are checked in field order.
      for (std::size_t i = seq->stmts.size(); i-- > 0;) {
        std::vector<Slot> inner;  // paths are built for compound statements only
        detail::for_each_body_slot(*seq->stmts[i], [&](const ir::StmtRef& b, std::string_view f) {
          inner.push_back(
              {b.get(), slot.path + ".stmts[" + std::to_string(i) + "]." + std::string(f)});
        });
        for (auto it = inner.rbegin(); it != inner.rend(); ++it) slots.push_back(std::move(*it));
      }
    }
  }
  return std::nullopt;
}

PYPTO_DECL bool is_normalized_stmt_structure(const ir::Program& program) {
  return !find_unnormalized_stmt_structure(program);
}

PYPTO_DECL Pass NormalizeStmtStructure() {
  return Pass("normalize-stmt-structure", /*required=*/{},
              /*produced=*/{Property::NormalizedStmtStructure}, /*invalidated=*/{},
              [](const ir::Program& program) -> ir::ProgramRef {
                detail::StmtStructureNormalizer normalizer;
                std::vector<ir::FunctionRef> functions;
                bool changed = false;
                for (const auto& entry : program.functions) {
                  functions.push_back(normalizer.function(entry.function));
                  changed = changed || functions.back() != entry.function;
                }
                if (!changed) return ir::ProgramRef(&program);
                return ir::Program::make(program.name, std::move(functions));
              });
}

}  // namespace pypto::transforms
