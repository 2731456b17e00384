// pypto/transforms/fresh_copy.hpp — a copy of a function under another name, with its own
// variables.
//
// SSAForm defines every variable exactly once in the whole program, so a pass that adds a second
// copy of a function (a Group-private member, a specialization) cannot share the original's Vars.
// `fresh_copy(f, name)` gives `f` under `name` with every variable it defines — parameters,
// assignment targets, loop variables, iter_args, return vars, any Def field — replaced by a new
// one of the same hint, type and span. Free variables (shape symbols) and the nodes that define
// nothing new are shared where the Substitution can keep them. Iter_args are re-made with their
// substituted initial value, outer ones first (definition order), so nested carries follow.
// O(N) for the substitution plus O(1) expected per lookup.
#pragma once

#include <string>

#include "pypto/core/config.hpp"
#include "pypto/ir/function.hpp"

namespace pypto::transforms {

/// `f` under `name`, every variable it defines replaced by a fresh one (see above).
PYPTO_DECL ir::FunctionRef fresh_copy(const ir::Function& f, std::string name);

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/fresh_copy.ipp"
#endif
