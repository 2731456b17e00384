// pypto/text/round_trip.hpp — the lossless-text check every pass test can call.
//
// `check_round_trip(p)` prints p, parses the text back and asserts the result is structurally
// equal to p (seed 003, "lossless text round trip"). Rebuilding creates new objects, so open
// references (free variables, shape symbols) are mapped: the comparison runs with
// enable_auto_mapping, which maps each free variable of one side to one of the other, one to
// one; definitions and storage aliasing still compare exactly. On a difference it throws
// core::ValueError naming the first differing field path, both sides and the printed text.
#pragma once

#include <string>

#include "pypto/core/error.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"

namespace pypto::text {

/// The program read back from its own text (throws ParseError if the printer wrote text the
/// parser rejects: a printer bug or IR the text format cannot express).
inline ir::ProgramRef reparse(const ir::Program& program, const PrintOptions& options = {}) {
  ParseOptions parse_options;
  parse_options.ops = options.ops;
  return parse_program(print(program, options), parse_options);
}

/// Throws core::ValueError unless parse(print(program)) is structurally equal to `program`.
inline void check_round_trip(const ir::Program& program, const PrintOptions& options = {}) {
  const std::string text = print(program, options);
  ParseOptions parse_options;
  parse_options.ops = options.ops;
  ir::ProgramRef back;
  try {
    back = parse_program(text, parse_options);
  } catch (const ParseError& e) {
    throw core::ValueError(std::string("round trip: the printed text does not parse: ") + e.what() +
                           "\n--- text ---\n" + text);
  }
  try {
    structural::assert_structural_equal(ir::NodeRef(&program), ir::NodeRef(back),
                                        /*enable_auto_mapping=*/true);
  } catch (const core::ValueError& e) {
    throw core::ValueError(std::string("round trip: ") + e.what() + "\n--- text ---\n" + text);
  }
}

}  // namespace pypto::text
