// pypto/transforms/pass_manager.hpp — runs a list of passes in order, tracking properties.
//
// The manager holds the set of properties that hold between passes: it starts from
// `initial_properties`, and after each pass removes what the pass invalidates and adds what it
// produces. A pass whose required properties do not hold is refused before anything runs
// (PassPreconditionError names the pass and the first missing property), so a bad pipeline
// fails fast. Options, each off by default:
//   verify_each      after each pass: verify_structural_bindings on every function with a body,
//                    the print→parse round trip, and the verifier of every property believed to
//                    hold and of the structural properties that must always hold
//                    (PassVerificationError names the pass and the failed check);
//   print_after_all  the program's text after each pass, to an ostream and/or a callback;
//   timing           wall time of each pass (the transform only, not the verification).
// Cost: the passes themselves, plus O(N log N) per pass for verify_each and printing.
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/ir/op_registry.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/structural/bindings.hpp"
#include "pypto/text/printer.hpp"
#include "pypto/text/round_trip.hpp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/property.hpp"
#include "pypto/transforms/property_verifiers.hpp"

namespace pypto::transforms {

/// A pass was asked to run while a property it requires does not hold.
class PassPreconditionError : public core::ValueError {
 public:
  PassPreconditionError(std::string pass_name, Property missing, PropertySet holding)
      : core::ValueError(
            "pass " + pass_name + " requires property " + std::string(property_name(missing)) +
            ", which does not hold at that point (holding: " + holding.to_string() + ")"),
        pass_name_(std::move(pass_name)),
        missing_(missing) {}
  const std::string& pass_name() const { return pass_name_; }
  Property missing() const { return missing_; }

 private:
  std::string pass_name_;
  Property missing_;
};

/// A check of verify_each failed after a pass.
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

struct PassManagerOptions {
  bool verify_each = false;
  /// Receives `# ----- after <pass> -----` and the program's text after each pass.
  std::ostream* print_after_all = nullptr;
  /// Called with each pass and its output program, after verification.
  std::function<void(const Pass&, const ir::Program&)> after_pass;
  bool timing = false;
  /// The properties the input program is known to have.
  PropertySet initial_properties;
  PropertyVerifiers verifiers = standard_property_verifiers();
  /// The ops for printing and the round trip; null means ir::standard_op_registry().
  const ir::OpRegistry* ops = nullptr;
};

struct PassTiming {
  std::string pass_name;
  std::chrono::nanoseconds wall{};
};

class PassManager {
 public:
  explicit PassManager(std::vector<Pass> passes, PassManagerOptions options = {})
      : passes_(std::move(passes)), options_(std::move(options)) {}

  const std::vector<Pass>& passes() const { return passes_; }

  /// Throws PassPreconditionError at the first pass whose requirements do not hold when the
  /// list runs from `initial_properties`; runs nothing.
  void check_pipeline() const {
    PropertySet holding = options_.initial_properties;
    for (const Pass& pass : passes_) {
      require(pass, holding);
      holding = after(pass, holding);
    }
  }

  /// Runs every pass in order on `program` and returns the result (the input when the list is
  /// empty). Throws PassPreconditionError before running anything if the list is ill-formed,
  /// PassVerificationError when verify_each finds a problem, and whatever a pass throws.
  ir::ProgramRef run(const ir::Program& program) {
    check_pipeline();
    timings_.clear();
    properties_ = options_.initial_properties;
    ir::ProgramRef current(&program);
    for (const Pass& pass : passes_) {
      const auto start = std::chrono::steady_clock::now();
      current = pass(*current);
      const auto stop = std::chrono::steady_clock::now();
      if (options_.timing) timings_.push_back({pass.name(), stop - start});
      properties_ = after(pass, properties_);
      if (options_.verify_each) verify(pass, *current);
      if (options_.print_after_all)
        *options_.print_after_all << "# ----- after " << pass.name() << " -----\n"
                                  << text::print(*current, print_options());
      if (options_.after_pass) options_.after_pass(pass, *current);
    }
    return current;
  }

  /// The properties that held after the last run (the initial ones before any run).
  PropertySet properties() const { return properties_; }

  /// Per-pass wall times of the last run, in run order (empty unless `timing` is set).
  const std::vector<PassTiming>& timings() const { return timings_; }

  /// A table of the last run's timings: one line per pass and a total, in milliseconds.
  std::string timing_report() const {
    std::string out = "# pass timing (wall, ms)\n";
    std::chrono::nanoseconds total{};
    for (const PassTiming& t : timings_) {
      out += format_ms(t.wall) + "  " + t.pass_name + "\n";
      total += t.wall;
    }
    return out + format_ms(total) + "  total\n";
  }

 private:
  static void require(const Pass& pass, PropertySet holding) {
    for (Property p : kAllProperties)
      if (pass.required().contains(p) && !holding.contains(p))
        throw PassPreconditionError(pass.name(), p, holding);
  }
  static PropertySet after(const Pass& pass, PropertySet holding) {
    return holding.without(pass.invalidated()).with(pass.produced());
  }

  text::PrintOptions print_options() const {
    text::PrintOptions o;
    o.ops = options_.ops;
    return o;
  }

  void verify(const Pass& pass, const ir::Program& program) const {
    for (const auto& [name, fn] : program.functions) {
      if (!fn->body) continue;
      try {
        structural::verify_structural_bindings(*fn);
      } catch (const core::Error& e) {
        throw PassVerificationError(pass.name(), "verify_structural_bindings",
                                    "function " + name + ": " + e.what());
      }
    }
    try {
      text::check_round_trip(program, print_options());
    } catch (const core::Error& e) {
      throw PassVerificationError(pass.name(), "round trip", e.what());
    }
    for (Property p : kAllProperties)
      if (properties_.contains(p) || kStructuralProperties.contains(p))
        if (auto violation = options_.verifiers.check(p, program))
          throw PassVerificationError(pass.name(), std::string(property_name(p)), *violation);
  }

  static std::string format_ms(std::chrono::nanoseconds ns) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%10.3f", static_cast<double>(ns.count()) / 1e6);
    return buf;
  }

  std::vector<Pass> passes_;
  PassManagerOptions options_;
  PropertySet properties_ = options_.initial_properties;
  std::vector<PassTiming> timings_;
};

}  // namespace pypto::transforms
