// pypto/transforms/property_verifiers.hpp — the checks that a claimed property really holds.
//
// A PropertyVerifiers value maps a Property to a function that inspects a program and returns
// a description of the first violation (nullopt when the property holds). The pass manager's
// verify-each mode runs the verifier of every property it believes holds after a pass, so a
// pass that claims more than it delivers is caught at its boundary. Properties without a
// verifier are trusted. `standard_property_verifiers()` holds the verifiers that exist; each
// pass's header provides its own (SSAForm: ssa_form.hpp; outline_properties.hpp has the outline
// passes' five). ReturnParamsExplicit reads write effects from the default op registry; a host
// with its own ops sets a verifier that passes its registry.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "pypto/core/config.hpp"
#include "pypto/transforms/property.hpp"

namespace pypto::ir {
struct Program;
}  // namespace pypto::ir

namespace pypto::transforms {

class PropertyVerifiers {
 public:
  /// Returns the first violation of the property in `program`, or nullopt.
  using Verifier = std::function<std::optional<std::string>(const ir::Program&)>;

  /// Sets (or replaces) the verifier of `p`.
  PropertyVerifiers& set(Property p, Verifier verifier) {
    verifiers_[static_cast<std::size_t>(p)] = std::move(verifier);
    return *this;
  }
  bool has(Property p) const { return static_cast<bool>(verifiers_[static_cast<std::size_t>(p)]); }

  /// The first violation of `p` in `program`; nullopt when it holds or has no verifier.
  std::optional<std::string> check(Property p, const ir::Program& program) const {
    const Verifier& v = verifiers_[static_cast<std::size_t>(p)];
    return v ? v(program) : std::nullopt;
  }

 private:
  std::array<Verifier, kAllProperties.size()> verifiers_;
};

/// The verifiers that exist: SSAForm, NormalizedStmtStructure and the five outline properties
/// (ReturnParamsExplicit with the default op registry).
PYPTO_DECL PropertyVerifiers standard_property_verifiers();

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/property_verifiers.ipp"
#endif
