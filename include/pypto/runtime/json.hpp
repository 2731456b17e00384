// pypto/runtime/json.hpp — a minimal strict JSON reader for the runtime's manifests.
//
// The subset: objects (duplicate keys rejected), arrays, strings (all JSON escapes; \u escapes
// must encode a code point, surrogate pairs included, written out as UTF-8), integers that fit
// int64 (no fractions or exponents: the manifests hold ids and counts only), true, false, null.
// Every value keeps its line:column so a schema check can point at it; every syntax error is a
// JsonError "line:column: expected ...". Nesting is limited to kMaxJsonDepth (no unbounded
// recursion on hostile input). O(n) time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"

namespace pypto::runtime {

inline constexpr int kMaxJsonDepth = 64;

class JsonError : public core::ValueError {
 public:
  JsonError(int line, int column, const std::string& message)
      : core::ValueError(std::to_string(line) + ":" + std::to_string(column) + ": " + message),
        line_(line),
        column_(column) {}
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  int line_, column_;
};

struct JsonValue {
  enum class Kind : std::uint8_t { Null, Bool, Int, String, Array, Object };
  Kind kind = Kind::Null;
  bool b = false;
  std::int64_t i = 0;
  std::string s;
  std::vector<JsonValue> items;   ///< of an array
  std::vector<std::string> keys;  ///< of an object, in source order (parallel to `values`:
  std::vector<JsonValue> values;  ///< a pair with an incomplete JsonValue is not allowed)
  int line = 1, column = 1;

  /// The member `key` of an object, or null.
  const JsonValue* find(std::string_view key) const {
    for (std::size_t k = 0; k < keys.size(); ++k)
      if (keys[k] == key) return &values[k];
    return nullptr;
  }
  std::string where() const { return std::to_string(line) + ":" + std::to_string(column); }
};

constexpr std::string_view json_kind_name(JsonValue::Kind k) {
  switch (k) {
    case JsonValue::Kind::Null: return "null";
    case JsonValue::Kind::Bool: return "a boolean";
    case JsonValue::Kind::Int: return "an integer";
    case JsonValue::Kind::String: return "a string";
    case JsonValue::Kind::Array: return "an array";
    case JsonValue::Kind::Object: return "an object";
  }
  return "?";
}

/// Parses a whole JSON document (see the subset above).
PYPTO_DECL JsonValue parse_json(std::string_view text);

/// `s` as a JSON string literal (quotes and escapes), for writers of the same subset.
PYPTO_DECL std::string json_quote(std::string_view s);

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/json.ipp"
#endif
