// pypto/core/span.hpp — a source location range.
//
// A Span names a file and a 1-based line:column range; `Span::unknown()` is the empty span of
// IR built programmatically. Spans are metadata: structural comparison ignores them,
// error messages print them. The file name is shared between all spans of one parse.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "pypto/core/ref.hpp"

namespace pypto::core {

/// A source file name, shared by every span that points into it.
struct SourceFile final : RefCounted {
  explicit SourceFile(std::string n) : name(std::move(n)) {}
  std::string name;
};

struct Span {
  Ref<const SourceFile> file;
  std::uint32_t line = 0;  ///< 0 means unknown
  std::uint32_t column = 0;
  std::uint32_t end_line = 0;
  std::uint32_t end_column = 0;

  static Span unknown() { return {}; }
  bool is_known() const { return line != 0; }
  std::string_view file_name() const { return file ? std::string_view(file->name) : ""; }

  /// `file:line:column`, `line:column` without a file, or `<unknown>`.
  std::string to_string() const {
    if (!is_known()) return "<unknown>";
    std::string s = file && !file->name.empty() ? file->name + ":" : std::string();
    return s + std::to_string(line) + ":" + std::to_string(column);
  }
};

}  // namespace pypto::core
