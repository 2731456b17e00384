// The parser's fuzz oracle, shared by the libFuzzer target and the corpus regression test.
//
// For any input bytes: parse_program either returns a Program or throws text::ParseError
// (nothing else, no crash, no hang); a Program it returns prints (or the printer refuses IR
// nested deeper than the library limit with a ValueError) and reads back structurally equal
// (check_round_trip), and goes through the whole pass pipeline (pipeline_case.hpp, lenient: a
// typed refusal is fine; a verifier failure, an internal error or a changed result is not).
// Any other outcome is a bug and aborts with a message.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "pipeline_case.hpp"
#include "pypto/text/parser.hpp"
#include "pypto/text/round_trip.hpp"

namespace pypto::fuzz {

[[noreturn]] inline void bug(const char* stage, const char* what) {
  std::fprintf(stderr, "pypto fuzz: %s: %s\n", stage, what);
  std::abort();
}

inline void parser_case(std::string_view input) {
  ir::ProgramRef program;
  try {
    program = text::parse_program(input);
  } catch (const text::ParseError&) {
    return;  // rejected with a position: fine
  } catch (const std::exception& e) {
    bug("parse threw something other than ParseError", e.what());
  }
  try {
    text::check_round_trip(*program);
  } catch (const core::ValueError& e) {
    // The printer refuses over-deep IR with a ValueError naming the limit; anything else is a
    // round-trip failure.
    if (std::string_view(e.what()).find("nests deeper than") == std::string_view::npos)
      bug("round trip", e.what());
  } catch (const std::exception& e) {
    bug("round trip threw", e.what());
  }
  CaseOptions lenient;
  lenient.strict = false;
  lenient.seeds = 1;
  Coverage coverage;
  if (const auto f = pipeline_case(*program, lenient, coverage))
    bug(f->stage.c_str(), (f->kind + ": " + f->message).c_str());
}

}  // namespace pypto::fuzz
