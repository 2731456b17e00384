// pypto/transforms/ssa_form.hpp — the SSAForm property and its verifier.
//
// A program is in SSA form (the property ConvertToSSA produces and the outline passes require)
// when 1. every variable is defined exactly once in the program, at one Def position of one
// function; 2. every use is reached by its definition in the structured sense (defined earlier
// in an enclosing sequence, a parameter, or a binder of an enclosing loop; definitions in a
// scope body flow out to the statements after the scope, those in a for/while body or an if
// arm do not; variables nothing in the function defines, such as shape symbols, are free);
// 3. every for/while that carries values and every if with results ends each region in a yield
// of exactly as many values. Rule 2 and rule 1 within a function are
// structural::verify_structural_bindings. O(N) expected (identity hashing), N = nodes.
#pragma once

#include <optional>
#include <string>

#include "pypto/core/config.hpp"

namespace pypto::ir {
struct Program;
}  // namespace pypto::ir

namespace pypto::transforms {

/// The first violation of SSAForm in `program` (see the top of this header), or nullopt. Messages
/// start with `function 'name': ` and name the variable, with a field path from the function
/// (`body[2].value.args[0]`) or a description of the statement.
PYPTO_DECL std::optional<std::string> find_ssa_violation(const ir::Program& program);

/// The verifier of Property::SSAForm.
PYPTO_DECL bool is_ssa_form(const ir::Program& program);

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/ssa_form.ipp"
#endif
