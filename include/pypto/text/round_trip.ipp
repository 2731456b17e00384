// pypto/text/round_trip.ipp — the definitions of text/round_trip.hpp.
#pragma once

#include "pypto/text/round_trip.hpp"

#include <string>

#include "pypto/core/error.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/structural/compare.hpp"
#include "pypto/text/parse_error.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/printer.hpp"

namespace pypto::text {

PYPTO_DECL ir::ProgramRef reparse(const ir::Program& program, const PrintOptions& options) {
  ParseOptions parse_options;
  parse_options.ops = options.ops;
  return parse_program(print(program, options), parse_options);
}

PYPTO_DECL void check_round_trip(const ir::Program& program, const PrintOptions& options) {
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
