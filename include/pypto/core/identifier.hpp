// pypto/core/identifier.hpp — the lexical rules of the names the printed text contains.
//
// The text format is Python syntax, so every name the IR prints bare (function, program and
// callee names, keyword-argument keys, variables) must be a Python identifier: an ASCII letter
// or `_`, then letters, digits or `_`. Builders reject names that are not; the printer turns a
// variable's free-form name hint into one. Keywords (`for`, `lambda`, ...) are identifiers
// lexically but cannot name anything. All queries are constexpr and O(length).
#pragma once

#include <string_view>

namespace pypto::core {

constexpr bool is_identifier_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
constexpr bool is_identifier_char(char c) {
  return is_identifier_start(c) || (c >= '0' && c <= '9');
}

/// True for a non-empty ASCII Python identifier (keywords included: see is_python_keyword).
constexpr bool is_identifier(std::string_view s) {
  if (s.empty() || !is_identifier_start(s.front())) return false;
  for (char c : s)
    if (!is_identifier_char(c)) return false;
  return true;
}

/// True for the reserved words of Python 3 (soft keywords such as `match` are usable names).
constexpr bool is_python_keyword(std::string_view s) {
  constexpr std::string_view kKeywords[] = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  for (std::string_view k : kKeywords)
    if (k == s) return true;
  return false;
}

/// An identifier that may name something: not a keyword.
constexpr bool is_usable_name(std::string_view s) {
  return is_identifier(s) && !is_python_keyword(s);
}

}  // namespace pypto::core
