// pypto/text/host_values.hpp — the names a program's text reads and leaves to its host.
//
// Upstream's programs are Python: a `@pl.program` class written inside a test's factory reads
// the factory's variables (`rows`, `dtype`, `scalar`) from its closure. A host gives their values
// to the parser as ParseOptions::host_values, name → Python expression source (`64`, `pl.FP16`,
// `[16, 64]`). `bind_host_values` puts a copy of a value's syntax tree, at the reading name's
// position, wherever a scope reads the name without binding it, by Python's rule: a function's
// parameters and assignment / loop / `as` targets, a class's or the module's assignments and
// imports, and a comprehension's variable bind it. A value that is not one expression is a
// core::ValueError naming it. Iterative over expressions (a chain is as deep as it is long). See
// docs/text-format.md#host-values.
#pragma once

#include <map>
#include <string>

#include "pypto/core/config.hpp"
#include "pypto/text/syntax.hpp"

namespace pypto::text {

/// Replaces, in `module`, each name a scope reads but does not bind and `values` names.
PYPTO_DECL void bind_host_values(syntax::Module& module,
                                 const std::map<std::string, std::string>& values);

}  // namespace pypto::text

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/text/host_values.ipp"
#endif
