// pypto/core/limits.hpp — the limits every recursive consumer of IR shares.
//
// IR can be nested arbitrarily deep (a 300,000-deep Add chain is a valid expression), but the
// consumers that follow nesting — structural comparison, the printer — reject nesting deeper
// than kMaxNesting with a typed error instead of growing the native stack until it overflows.
// One value keeps them consistent: whatever one of them accepts, the others accept too.
#pragma once

#include <cstddef>

namespace pypto::core {

/// Node, type, statement and attribute-list nesting levels a recursive consumer follows.
inline constexpr std::size_t kMaxNesting = 512;

}  // namespace pypto::core
