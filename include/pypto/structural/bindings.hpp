// pypto/structural/bindings.hpp — verify_structural_bindings: is every use of a variable legal?
//
// Rejects duplicate definitions, uses before the definition and locals used outside their
// lexical scope — including references inside types, attributes, views and storage descriptors —
// ineligible signature symbols and statement objects shared between two places of a body. The
// first violation in walk order (descriptor field order, the order of the field paths) is thrown
// as a BindingError (BindingNotVisible for uses) whose path is the offending definition or use
// itself. A Var defined nowhere in the function is an open capture and may be used anywhere (this
// covers MemRef bases, implicit resource bindings). Structural comparison does not call this
// verifier. Time O(N) expected, O(N log N) worst; space O(N); no native recursion over IR depth.
#pragma once

#include "pypto/core/config.hpp"
#include "pypto/structural/errors.hpp"

namespace pypto::ir {
struct Function;
}  // namespace pypto::ir

namespace pypto::structural {

/// Checks the binding structure of `f` and throws the first violation in walk order:
/// BindingError with kind DuplicateDefinition (a Var defined twice, e.g. a parameter listed
/// twice or redefined in the body, or a signature shape symbol defined in the body),
/// IneligibleSignatureSymbol (a shape symbol of a parameter that is not an integer scalar),
/// SharedStatement (one statement object at two places), or BindingNotVisible (a use before
/// the definition or outside its lexical scope, anywhere: expressions, types, views, storage,
/// attributes). The error's field_path() is rooted at the function: `body[2].value.args[0]`,
/// `params[0].type.shape[1]`. Returns normally for a well-formed function. O(N log N).
PYPTO_DECL void verify_structural_bindings(const ir::Function& f);

}  // namespace pypto::structural

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/structural/bindings.ipp"
#endif
