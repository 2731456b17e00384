// pypto/reflect/fixed_string.hpp — a string literal usable as a template argument.
//
// Field descriptors carry their names in the type (`UsualField<&Call::args, "args">`), so the
// name costs nothing at run time and two descriptors with different names are different types.
#pragma once

#include <cstddef>
#include <string_view>

namespace pypto::reflect {

template <std::size_t N>
struct FixedString {
  char chars[N] = {};

  constexpr FixedString(const char (&s)[N]) {  // NOLINT: implicit by design (NTTP literal)
    for (std::size_t i = 0; i < N; ++i) chars[i] = s[i];
  }
  constexpr std::string_view view() const { return {chars, N - 1}; }
};

}  // namespace pypto::reflect
