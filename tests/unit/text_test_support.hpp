// tests/unit/text_test_support.hpp — helpers shared by the text-format tests (text_*_test.cpp;
// not a test file itself: only tests/unit/*.cpp are compiled): the ParseError a text gives,
// a text with one fragment replaced, and the value of an integer constant.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "pypto/ir/expr.hpp"
#include "pypto/text/parser.hpp"

namespace pypto::text_test {

/// Checks that `text` is a ParseError at line:column whose message holds `what`.
inline void expect_error(const std::string& text, std::uint32_t line, std::uint32_t column,
                         const std::string& what) {
  CAPTURE(text);
  try {
    text::parse_program(text);
    FAIL("no ParseError");
  } catch (const text::ParseError& e) {
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(e.line() == line);
    CHECK(e.column() == column);
    CHECK(message.find(what) != std::string::npos);
  }
}

/// The ParseError message `text` gives, or "no error".
inline std::string error_of(const std::string& text) {
  try {
    text::parse_program(text);
  } catch (const text::ParseError& e) {
    return e.what();
  }
  return "no error";
}

/// `from` with its first `a` replaced by `b` (`a` must occur).
inline std::string replaced(std::string from, const std::string& a, const std::string& b) {
  const std::size_t at = from.find(a);
  REQUIRE(at != std::string::npos);
  from.replace(at, a.size(), b);
  return from;
}

/// The value of `e`, which must be an integer constant.
inline std::int64_t const_value(const ir::ExprRef& e) {
  const auto* c = ir::as<ir::ConstInt>(e.get());
  REQUIRE(c);
  return c->value;
}

}  // namespace pypto::text_test
