// pypto/transforms/pass_instruments.ipp — the definitions of transforms/pass_instruments.hpp.
#pragma once

#include "pypto/transforms/pass_instruments.hpp"

#include <ostream>
#include <string>
#include <utility>

#include "pypto/structural/bindings.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"

namespace pypto::transforms {

PYPTO_DECL PassInstrument verify_each_instrument(const ir::OpRegistry* ops) {
  return verify_each_instrument(standard_property_verifiers(), ops);
}

PYPTO_DECL PassInstrument verify_each_instrument(PropertyVerifiers verifiers,
                                                 const ir::OpRegistry* ops) {
  return [verifiers = std::move(verifiers), ops](const Pass& pass, const ir::Program& program,
                                                 PropertySet holding) {
    for (const auto& [name, fn] : program.functions) {
      if (!fn->body || !holding.contains(Property::SSAForm)) continue;
      try {
        structural::verify_structural_bindings(*fn);
      } catch (const core::Error& e) {
        throw PassVerificationError(pass.name(), "verify_structural_bindings",
                                    "function " + name + ": " + e.what());
      }
    }
    text::PrintOptions print_options;
    print_options.ops = ops;
    try {
      text::check_round_trip(program, print_options);
    } catch (const core::Error& e) {
      throw PassVerificationError(pass.name(), "round trip", e.what());
    }
    for (Property p : kAllProperties)
      if (holding.contains(p) || kStructuralProperties.contains(p))
        if (auto violation = verifiers.check(p, program))
          throw PassVerificationError(pass.name(), std::string(property_name(p)), *violation);
  };
}

PYPTO_DECL PassInstrument print_after_all_instrument(std::ostream& out, const ir::OpRegistry* ops) {
  return [&out, ops](const Pass& pass, const ir::Program& program, PropertySet) {
    text::PrintOptions print_options;
    print_options.ops = ops;
    out << "# ----- after " << pass.name() << " -----\n" << text::print(program, print_options);
  };
}

}  // namespace pypto::transforms
