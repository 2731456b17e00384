// pypto/text/parser.hpp — the parser of the pl DSL: text in, IR out.
//
// `parse_program(text)` reads what text::print writes (the lossless round trip: parse(print(p))
// is structurally equal to p once open references are mapped) and the source form people write
// in upstream's DSL (untyped functions, unannotated assignments, short op names, rebound names,
// `x += v`, comments and docstrings). The text is first read into a syntax tree
// (text/syntax.hpp), then given its meaning here; call result types are derived by
// text/call_types.hpp, shared with the printer. Every problem is a ParseError at the offending
// token's line:column. O(n log n) in the text size; recursion is bounded by core::kMaxNesting.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "pypto/core/config.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/text/parse_error.hpp"

namespace pypto::ir {
class OpRegistry;
}  // namespace pypto::ir

namespace pypto::text {

struct ParseOptions {
  /// The ops calls may name; null means ir::standard_op_registry().
  const ir::OpRegistry* ops = nullptr;
  /// Recorded in the spans of the built IR (and nowhere else).
  std::string file_name;
  /// Values of the names the text reads without binding them, as a Python host's closure gives
  /// them: name → expression source (`{"rows", "64"}`, `{"dtype", "pl.FP16"}`); see
  /// text/host_values.hpp.
  std::map<std::string, std::string> host_values;
};

/// The Program written in `text`; a ParseError (line:column, token, what was expected) when
/// the text is not a program of the pl DSL.
///
/// Source form: `@pl.function` without a type is Opaque, assignments without annotations take
/// the value's type, short op names (`pl.add`, `pl.load`, ...) resolve to `tile.*` or
/// `tensor.*` by the first operand's type, names may be rebound (the natural form that
/// ConvertToSSA turns into SSA), `x += v` is `x = x + v`, comments and docstrings are skipped,
/// and `M = pl.dynamic("M")` declares a shape symbol.
///
/// Types: a call's result type is derived (text/call_types.hpp) unless written with the private
/// marker `pl._dump.call(..., type=T)`. An annotation is checked against the value's type:
/// kind, dtype and shape must agree (recursively through tuples) or the annotation's
/// line:column gets a ParseError; views and memory spaces it omits are inherited from the
/// value's type; its storage (`pl.MemRef(...)` or none) is kept exactly. A bare integer literal
/// is INDEX, a bare float FP32; a bare literal operand of an arithmetic operator takes the
/// other operand's dtype.
///
/// Names follow Python: one namespace per function (parameters, assignments, loop targets,
/// region results), then the program's shape symbols, then `X__FREE_VAR` (a free variable, one
/// per name per program). `x: T` without a value declares the type of the next binding or free
/// use of `x` (the printer writes it for loop variables and free variables that are not
/// Scalar[INDEX]). A quoted memref base (`pl.MemRef("buf", 0, 512)`), or a bare one the text
/// does not bind, is the function's implicit allocation binding of that name. Upstream's other
/// MemRef forms read too: `pl.MemRef("buf"[, slots=N])` (a declared allocation: pinned, offset 0,
/// size 0), `pl.MemRef()` (the same, a fresh unnamed one), the legacy `pl.MemRef(addr, size, id)`
/// and `pl.MemRef(pl.Mem.<space>, addr, size, id)` (base `mem_<id>` / `mem_<space>_<id>`), and a
/// slot `pl.MemRef(...)[k]` of a multi-slot one. Parameter annotations may name later parameters.
///
/// Blocks are SeqStmts. `with pl._dump.seq():` is a nested SeqStmts and `with pl._dump.stmt():`
/// a body slot that holds one statement unwrapped: the printer writes them only for IR whose
/// sequence structure the plain text would not reproduce.
PYPTO_DECL ir::ProgramRef parse_program(std::string_view text, const ParseOptions& options = {});

}  // namespace pypto::text

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/text/parser.ipp"
#endif
