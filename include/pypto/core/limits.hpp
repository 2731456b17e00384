// pypto/core/limits.hpp — the limits every recursive consumer of IR shares.
//
// IR can be nested arbitrarily deep (a 300,000-deep Add chain is a valid expression), but the
// layers that follow nesting — the parser, the printer, every pass, structural comparison —
// reject nesting deeper than kMaxNesting with a typed error instead of growing the native stack
// until it overflows. The parser holds what it builds to this value by one measure
// (ir/nesting.hpp) that counts at least as many levels as any other layer, so whatever parses,
// every layer accepts. See docs/ir.md, "Nesting".
#pragma once

#include <cstddef>

namespace pypto::core {

/// Node, type, statement and attribute-list nesting levels a recursive consumer follows.
inline constexpr std::size_t kMaxNesting = 512;

}  // namespace pypto::core
