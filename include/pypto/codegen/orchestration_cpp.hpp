// pypto/codegen/orchestration_cpp.hpp — how orchestration code spells C++: scalar types,
// literals, reserved names, and the floor-division helpers.
//
// Pure text functions with no IR state, so the spelling rules are in one place: a literal keeps
// its exact value (an FP32 constant prints its shortest round-trip digits, INT64_MIN is written
// as an expression), negative literals are parenthesized, and names the emitted file itself uses
// are reserved. Every function is O(length of its output).
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pypto/core/dtype.hpp"

namespace pypto::codegen {

/// Names a generated orchestration source never gives a variable: C++ keywords that are not
/// Python keywords, the fixed-width integer types, and the names the file declares itself.
inline constexpr std::string_view kCppReservedNames[] = {"auto",
                                                         "bool",
                                                         "case",
                                                         "catch",
                                                         "char",
                                                         "class",
                                                         "const",
                                                         "default",
                                                         "delete",
                                                         "do",
                                                         "double",
                                                         "enum",
                                                         "explicit",
                                                         "extern",
                                                         "float",
                                                         "friend",
                                                         "goto",
                                                         "inline",
                                                         "int",
                                                         "long",
                                                         "namespace",
                                                         "new",
                                                         "operator",
                                                         "private",
                                                         "protected",
                                                         "public",
                                                         "register",
                                                         "short",
                                                         "signed",
                                                         "sizeof",
                                                         "static",
                                                         "struct",
                                                         "switch",
                                                         "template",
                                                         "this",
                                                         "throw",
                                                         "typedef",
                                                         "typename",
                                                         "union",
                                                         "unsigned",
                                                         "using",
                                                         "virtual",
                                                         "void",
                                                         "volatile",
                                                         "xor",
                                                         "bitand",
                                                         "bitor",
                                                         "compl",
                                                         "and_eq",
                                                         "or_eq",
                                                         "xor_eq",
                                                         "not_eq",
                                                         "int8_t",
                                                         "int16_t",
                                                         "int32_t",
                                                         "int64_t",
                                                         "uint8_t",
                                                         "uint16_t",
                                                         "uint32_t",
                                                         "uint64_t",
                                                         "size_t",
                                                         "orch_args",
                                                         "to_u64",
                                                         "from_u64",
                                                         "pypto_floordiv",
                                                         "pypto_floormod",
                                                         "main",
                                                         "pypto_read",
                                                         "pypto_write",
                                                         "pypto_array",
                                                         "pypto_array_filled",
                                                         "pypto_array_updated"};

/// Python's floor division and modulo of integers (C++ `/` and `%` truncate toward zero);
/// written into a source only when it uses them.
inline constexpr std::string_view kCppFloorHelpers =
    "// Python floor division and modulo of the DSL's integer scalars.\n"
    "static inline int64_t pypto_floordiv(int64_t a, int64_t b) {\n"
    "    const int64_t q = a / b;\n"
    "    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;\n"
    "}\n"
    "static inline int64_t pypto_floormod(int64_t a, int64_t b) {\n"
    "    const int64_t r = a % b;\n"
    "    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n"
    "}\n\n";

/// The DSL's pl.Array: a small array with value semantics (copied on assignment, so an update
/// gives a new array and leaves its input as it was), without the standard library; written
/// into a source only when it uses arrays.
inline constexpr std::string_view kCppArrayHelpers =
    "// A pl.Array: a small array copied by value, as the DSL's arrays behave.\n"
    "template <class T, int N>\n"
    "struct pypto_array {\n"
    "    T at[N];\n"
    "};\n"
    "template <class A, class T>\n"
    "static inline A pypto_array_filled(T value) {\n"
    "    A a;\n"
    "    for (T& x : a.at) x = value;\n"
    "    return a;\n"
    "}\n"
    "template <class T, int N, class V>\n"
    "static inline pypto_array<T, N> pypto_array_updated(pypto_array<T, N> a, int64_t i, V value) "
    "{\n"
    "    a.at[i] = static_cast<T>(value);\n"
    "    return a;\n"
    "}\n\n";

/// One element of a tensor read or written from orchestration code, through the runtime's
/// `get` / `set` functions (get_tensor_data / set_tensor_data, which wait for the element's
/// producer); written into a source only when it uses them.
inline std::string cpp_element_helpers(std::string_view get, std::string_view set) {
  const std::string g(get), st(set);
  return "// One element of a tensor, read or written through the runtime (indices in order).\n"
         "template <class T, class Tensor, class... I>\n"
         "static inline T pypto_read(const Tensor& t, I... i) {\n"
         "    uint32_t at[sizeof...(I) + 1] = {static_cast<uint32_t>(i)...};\n"
         "    return " +
         g +
         "<T>(t, sizeof...(I), sizeof...(I) ? at : nullptr);\n"
         "}\n"
         "template <class T, class Tensor, class... I>\n"
         "static inline void pypto_write(const Tensor& t, T value, I... i) {\n"
         "    uint32_t at[sizeof...(I) + 1] = {static_cast<uint32_t>(i)...};\n"
         "    " +
         st +
         "<T>(t, sizeof...(I), sizeof...(I) ? at : nullptr, value);\n"
         "}\n\n";
}

/// The C++ type of a scalar dtype (`task_id_class` for TASK_ID), or nullopt when orchestration
/// code has none (sub-byte and 16-bit floats).
inline std::optional<std::string> cpp_scalar_type(core::DataType d,
                                                  std::string_view task_id_class) {
  using core::DataType;
  switch (d) {
    case DataType::BOOL: return "bool";
    case DataType::INT8: return "int8_t";
    case DataType::INT16: return "int16_t";
    case DataType::INT32: return "int32_t";
    case DataType::INT64:
    case DataType::INDEX: return "int64_t";
    case DataType::UINT8: return "uint8_t";
    case DataType::UINT16: return "uint16_t";
    case DataType::UINT32: return "uint32_t";
    case DataType::UINT64: return "uint64_t";
    case DataType::FP32: return "float";
    case DataType::TASK_ID: return std::string(task_id_class);
    default: return std::nullopt;
  }
}

/// `s`, parenthesized when it starts with a minus (so `a - -1` cannot read as `a--1`).
inline std::string parens_if_negative(std::string s) {
  return !s.empty() && s[0] == '-' ? "(" + s + ")" : s;
}

/// An integer literal; INT64_MIN has no literal form and is written as an expression.
inline std::string cpp_int_literal(std::int64_t v) {
  if (v == INT64_MIN) return "(-9223372036854775807LL - 1)";
  return parens_if_negative(std::to_string(v));
}

/// A float literal with the shortest digits that read back as `f`; nullopt for inf / NaN.
inline std::optional<std::string> cpp_float_literal(float f) {
  if (f != f || f - f != 0.0f) return std::nullopt;
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, f);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return parens_if_negative(s + "f");
}

/// `s` without one pair of parentheses around all of it: `(a + b)` -> `a + b`, where the
/// context (an argument, a condition, an initializer) needs none.
inline std::string strip_outer_parens(std::string s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
  int depth = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
    if (depth == 0) return s;  // the first parenthesis closes before the end
  }
  return s.substr(1, s.size() - 2);
}

}  // namespace pypto::codegen
