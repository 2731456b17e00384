// pypto/core/limits.hpp — the limits every recursive consumer of IR shares.
//
// IR can be nested arbitrarily deep (a 300,000-deep Add chain is a valid expression), but the
// layers that follow nesting — the parser, the printer, every pass, structural comparison —
// reject nesting deeper than kMaxNesting with a typed error instead of growing the native stack
// until it overflows. One value and one measure (ir/nesting.hpp) keep them consistent: whatever
// one of them accepts, the others accept too. See docs/ir.md, "Nesting".
#pragma once

#include <cstddef>

namespace pypto::core {

/// Node, type, statement and attribute-list nesting levels a recursive consumer follows.
inline constexpr std::size_t kMaxNesting = 512;

}  // namespace pypto::core
