// pypto/text/round_trip.hpp — the lossless-text check every pass test can call.
//
// `check_round_trip(p)` prints p, parses the text back and asserts the result is structurally
// equal to p. Rebuilding creates new objects, so open references (free variables, shape
// symbols) are mapped: the comparison runs with enable_auto_mapping, which maps each free
// variable of one side to one of the other, one to one; definitions and storage aliasing still
// compare exactly. On a difference it throws core::ValueError naming the first differing field
// path, both sides and the printed text. Cost: one print, one parse and one structural
// comparison.
#pragma once

#include "pypto/core/config.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/printer.hpp"

namespace pypto::text {

/// The program read back from its own text (throws ParseError if the printer wrote text the
/// parser rejects: a printer bug or IR the text format cannot express).
PYPTO_DECL ir::ProgramRef reparse(const ir::Program& program, const PrintOptions& options = {});

/// Throws core::ValueError unless parse(print(program)) is structurally equal to `program`.
PYPTO_DECL void check_round_trip(const ir::Program& program, const PrintOptions& options = {});

}  // namespace pypto::text

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/text/round_trip.ipp"
#endif
