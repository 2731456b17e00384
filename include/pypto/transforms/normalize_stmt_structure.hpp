// pypto/transforms/normalize_stmt_structure.hpp — every body slot is one flat SeqStmts.
//
// NormalizeStmtStructure (`normalize-stmt-structure`, produces NormalizedStmtStructure): each
// body slot — a function body, a for/while body, the arms of an if, a scope's body — becomes a
// SeqStmts, and a SeqStmts nested in a sequence is spliced into its parent. Nothing else
// changes: statements, variables, attributes and comments are kept (a spliced sequence's
// comments move onto the first statement taken from it, or onto the next statement; what is
// left at the end of a slot goes to the slot's own SeqStmts). Unchanged subtrees are returned as
// the same objects, and a statement shared by two places stays shared. Nested sequences are
// flattened with an explicit stack (any depth); compound statements deeper than
// core::kMaxNesting are a core::ValueError. Both the pass and the verifier are O(statements).
#pragma once

#include <optional>
#include <string>

#include "pypto/core/config.hpp"
#include "pypto/transforms/pass.hpp"

namespace pypto::transforms {

/// The first body slot of `program` that is not a flat SeqStmts, as `function: field path`
/// (e.g. `main: body.stmts[1].then_body`), or nullopt when the property holds.
PYPTO_DECL std::optional<std::string> find_unnormalized_stmt_structure(const ir::Program& program);

/// The verifier of Property::NormalizedStmtStructure.
PYPTO_DECL bool is_normalized_stmt_structure(const ir::Program& program);

/// NormalizeStmtStructure: every body slot one flat SeqStmts (see the top of this header).
PYPTO_DECL Pass NormalizeStmtStructure();

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/normalize_stmt_structure.ipp"
#endif
