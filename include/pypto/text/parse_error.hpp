// pypto/text/parse_error.hpp — the error of the text parser.
//
// Every rejection of input text is a ParseError that says where (`line:column`, 1-based, of the
// offending token), what was found (the token's text) and what was expected. It derives from
// core::ValueError so callers that catch the library's errors catch it too.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "pypto/core/error.hpp"

namespace pypto::text {

/// A position in the input text: 1-based line and column (columns count bytes).
struct TextPos {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
};

class ParseError : public core::ValueError {
 public:
  /// `found` is the offending token as written ("end of input", "end of line", "indent" and
  /// "dedent" name the layout tokens; empty when no single token is at fault); `expected`
  /// says what would have been accepted there, or what is wrong with the token.
  ParseError(TextPos pos, std::string found, std::string expected)
      : core::ValueError(format(pos, found, expected)),
        pos_(pos),
        found_(std::move(found)),
        expected_(std::move(expected)) {}

  std::uint32_t line() const { return pos_.line; }
  std::uint32_t column() const { return pos_.column; }
  const std::string& token() const { return found_; }
  const std::string& expected() const { return expected_; }

 private:
  static std::string format(TextPos pos, const std::string& found, const std::string& expected) {
    std::string m = std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": ";
    if (found.empty()) return m + expected;  // no single token to show
    if (found == "end of input" || found == "end of line" || found == "indent" || found == "dedent")
      m += "at " + found;
    else
      m += "at '" + found + "'";
    return m + ": " + expected;
  }

  TextPos pos_;
  std::string found_;
  std::string expected_;
};

}  // namespace pypto::text
