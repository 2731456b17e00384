// pypto/runtime/json.ipp — the definitions of runtime/json.hpp.
#pragma once

#include "pypto/runtime/json.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"

namespace pypto::runtime {

namespace detail {

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  JsonValue document() {
    JsonValue v = value(0);
    skip_space();
    if (pos_ != text_.size()) fail("expected the end of the document");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw JsonError(line_, column_, what); }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }
  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      advance();
  }
  void expect(char c) {
    if (peek() != c || at_end()) fail(std::string("expected '") + c + "'");
    advance();
  }
  void keyword(std::string_view word) {
    for (char c : word) {
      if (peek() != c || at_end()) fail("expected '" + std::string(word) + "'");
      advance();
    }
  }

  JsonValue value(int depth) {
    skip_space();
    if (depth >= kMaxJsonDepth) fail("nesting deeper than " + std::to_string(kMaxJsonDepth));
    JsonValue v;
    v.line = line_;
    v.column = column_;
    if (at_end()) fail("expected a value");
    const char c = peek();
    if (c == '{') {
      v.kind = JsonValue::Kind::Object;
      advance();
      skip_space();
      if (peek() == '}') {
        advance();
        return v;
      }
      for (;;) {
        skip_space();
        if (peek() != '"') fail("expected a string key");
        const int kl = line_, kc = column_;
        std::string key = string();
        for (const auto& k : v.keys)
          if (k == key) throw JsonError(kl, kc, "duplicate key \"" + key + "\"");
        skip_space();
        expect(':');
        JsonValue member = value(depth + 1);
        v.keys.push_back(std::move(key));
        v.values.push_back(std::move(member));
        skip_space();
        if (peek() == ',' && !at_end()) {
          advance();
          continue;
        }
        if (peek() == '}' && !at_end()) {
          advance();
          return v;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v.kind = JsonValue::Kind::Array;
      advance();
      skip_space();
      if (peek() == ']') {
        advance();
        return v;
      }
      for (;;) {
        v.items.push_back(value(depth + 1));
        skip_space();
        if (peek() == ',' && !at_end()) {
          advance();
          continue;
        }
        if (peek() == ']' && !at_end()) {
          advance();
          return v;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v.kind = JsonValue::Kind::String;
      v.s = string();
      return v;
    }
    if (c == 't' || c == 'f') {
      v.kind = JsonValue::Kind::Bool;
      v.b = c == 't';
      keyword(v.b ? "true" : "false");
      return v;
    }
    if (c == 'n') {
      keyword("null");
      return v;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = JsonValue::Kind::Int;
      v.i = integer();
      return v;
    }
    fail("expected a value");
  }

  std::int64_t integer() {
    const bool negative = peek() == '-';
    if (negative) advance();
    if (at_end() || peek() < '0' || peek() > '9') fail("expected a digit");
    if (peek() == '0' && pos_ + 1 < text_.size() && text_[pos_ + 1] >= '0' &&
        text_[pos_ + 1] <= '9')
      fail("leading zeros are not JSON");
    std::uint64_t magnitude = 0;
    const std::uint64_t limit =
        negative ? std::uint64_t{1} << 63 : std::uint64_t{std::numeric_limits<std::int64_t>::max()};
    while (!at_end() && peek() >= '0' && peek() <= '9') {
      const auto d = static_cast<std::uint64_t>(peek() - '0');
      if (magnitude > (limit - d) / 10) fail("integer out of the int64 range");
      magnitude = magnitude * 10 + d;
      advance();
    }
    if (peek() == '.' || peek() == 'e' || peek() == 'E')
      fail("expected an integer (fractions and exponents are not used by this format)");
    if (!negative) return static_cast<std::int64_t>(magnitude);
    return magnitude == (std::uint64_t{1} << 63) ? std::numeric_limits<std::int64_t>::min()
                                                 : -static_cast<std::int64_t>(magnitude);
  }

  unsigned hex4() {
    unsigned u = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = peek();
      if (at_end()) fail("expected 4 hex digits");
      u <<= 4;
      if (h >= '0' && h <= '9')
        u |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f')
        u |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        u |= static_cast<unsigned>(h - 'A' + 10);
      else
        fail("expected 4 hex digits");
      advance();
    }
    return u;
  }

  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (at_end()) fail("unterminated string");
      const char c = peek();
      if (c == '"') {
        advance();
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out.push_back(c);
        advance();
        continue;
      }
      advance();
      if (at_end()) fail("unterminated escape");
      const char e = peek();
      advance();
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail("unpaired low surrogate");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (peek() != '\\') fail("expected a low surrogate escape");
            advance();
            if (peek() != 'u') fail("expected a low surrogate escape");
            advance();
            const unsigned lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("expected a low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          utf8(out, cp);
          break;
        }
        default: fail(std::string("unknown escape '\\") + e + "'");
      }
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1, column_ = 1;
};

}  // namespace detail

PYPTO_DECL JsonValue parse_json(std::string_view text) {
  return detail::JsonParser(text).document();
}

PYPTO_DECL std::string json_quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20) {
      out += "\\u00";
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 0xF]);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

}  // namespace pypto::runtime
