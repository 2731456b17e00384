// pypto/transforms/pass_instruments.hpp — the standard PassInstruments a driver plugs in.
//
// verify_each_instrument: after each pass, verify_structural_bindings on every function with a
// body when SSAForm holds (the natural form, before convert-to-ssa, binds a name several
// times), the print → parse round trip, and the verifier of every property believed to hold and
// of the structural properties that must always hold; the first failure throws
// PassVerificationError naming the pass and the check. print_after_all_instrument: writes
// `# ----- after <pass> -----` and the program's text. Both cost O(N log N) per pass. They live
// apart from the pass manager so that running passes needs neither the text layer nor the
// verifiers.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"
#include "pypto/transforms/pass_manager.hpp"
#include "pypto/transforms/property_verifiers.hpp"

namespace pypto::ir {
class OpRegistry;
}  // namespace pypto::ir

namespace pypto::transforms {

/// A check of the verify-each instrument failed after a pass.
class PassVerificationError : public core::ValueError {
 public:
  PassVerificationError(std::string pass_name, std::string check, const std::string& detail)
      : core::ValueError("after pass " + pass_name + ": " + check + " failed: " + detail),
        pass_name_(std::move(pass_name)),
        check_(std::move(check)) {}
  const std::string& pass_name() const { return pass_name_; }
  /// `verify_structural_bindings`, `round trip` or the property's name.
  const std::string& check() const { return check_; }

 private:
  std::string pass_name_;
  std::string check_;
};

/// Verifies each pass's output with `verifiers` (standard_property_verifiers() by default);
/// `ops` (null: ir::standard_op_registry()) are the ops of the round trip.
PYPTO_DECL PassInstrument verify_each_instrument(const ir::OpRegistry* ops = nullptr);
PYPTO_DECL PassInstrument verify_each_instrument(PropertyVerifiers verifiers,
                                                 const ir::OpRegistry* ops = nullptr);

/// Writes each pass's output program to `out` (which must outlive the run).
PYPTO_DECL PassInstrument print_after_all_instrument(std::ostream& out,
                                                     const ir::OpRegistry* ops = nullptr);

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/pass_instruments.ipp"
#endif
