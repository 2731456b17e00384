// pypto/text/printer.hpp — the printer of the `pl` DSL: IR in, Python-syntax text out.
//
// `print(program)` writes the text upstream PyPTO's printer writes: a `# pypto.program:` header,
// `pl.dynamic` lines for free shape symbols, and an `@pl.program` class whose `@pl.function`
// methods come callees first. `print(node)` writes any node alone. The text is a function of
// the IR's structure and names only (no pointer value reaches it); where upstream's text would
// not read back as the same IR, more is printed, so that print → parse is lossless.
// O(N log N) time, O(N) memory; IR nested deeper than core::kMaxNesting is a ValueError, never a
// stack overflow.
#pragma once

#include <string>
#include <type_traits>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"
#include "pypto/ir/node.hpp"

namespace pypto::ir {
struct Program;
class OpRegistry;
}  // namespace pypto::ir

namespace pypto::text {

struct PrintOptions {
  bool concise = false;  ///< drop the `: T` annotations of assignments and single-var yields
  /// The ops whose type rules the parser applies; a call whose recorded type differs from its
  /// rule's is written `pl._dump.call(..., type=T)`. Null means ir::standard_op_registry().
  const ir::OpRegistry* ops = nullptr;
};

/// The whole program in the pl DSL, ending with a newline.
PYPTO_DECL std::string print(const ir::Program& program, PrintOptions options = {});

/// Any node alone: a Program as `print(program)`; a Function as a `@pl.function` def without
/// `self`; a statement as its lines (each ending with a newline); an expression, a type or an
/// op as one line without a newline.
PYPTO_DECL std::string print(const ir::Node& node, PrintOptions options = {});

/// `print(*node)`; a null handle is a ValueError.
template <class T>
requires std::is_base_of_v<ir::Node, std::remove_const_t<T>> std::string print(
    const core::Ref<T>& node, PrintOptions options = {}) {
  if (!node) throw core::ValueError("pypto::text::print: null node");
  return print(static_cast<const ir::Node&>(*node), options);
}

}  // namespace pypto::text

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/text/printer.ipp"
#endif
