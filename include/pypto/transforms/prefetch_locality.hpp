// pypto/transforms/prefetch_locality.hpp — are a function's prefetch handles local?
//
// The prefetch exception of DeduplicateOutlinedKernels. A prefetch context, event or session is
// admitted only when its producer call (prefetch.make_context / async_prefetch / session) is
// bound once, by an assignment, to a Var of exactly its type, and the handle is used only in a
// consumer slot (the ctx operand of async_prefetch and session, the event and session operands
// of wait); a wait takes its event and its session from one context. Anything else — parameters,
// returns, attrs, kwargs, tuples, yields, loop carries, if results, aliases, other ops, program
// calls, submits — is an escape. Every incoming edge is checked, not every node. Two iterative
// walks (constant native stack), O(N) expected; the first problem in walk order is reported.
#pragma once

#include <string>

#include "pypto/core/config.hpp"

namespace pypto::ir {
struct Function;
}  // namespace pypto::ir

namespace pypto::transforms {

/// Empty when every prefetch handle of `f` (context, event, session) is produced and consumed
/// locally by the prefetch operations, and every wait uses its event's originating context — in
/// particular when `f` has no prefetch handle at all. Otherwise the first problem in walk order:
/// `line:column: ` of the offending node when the IR carries spans, then which handle (variable
/// or producer) and what is wrong, e.g. "prefetch event 'e' escapes through the return" or
/// "prefetch.wait uses prefetch session 's' of context 'c1' but prefetch event 'e' of context
/// 'c0' (...)". Never throws on well-formed IR. O(N) expected.
PYPTO_DECL std::string prefetch_handle_problem(const ir::Function& f);

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/prefetch_locality.ipp"
#endif
