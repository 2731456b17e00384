// pypto/transforms/pass_manager.hpp — runs a list of passes in order, tracking properties.
//
// The manager holds the set of properties that hold between passes: it starts from
// `initial_properties`, and after each pass removes what the pass invalidates and adds what it
// produces. A pass whose required properties do not hold is refused before anything runs
// (PassPreconditionError names the pass and the first missing property), so a bad pipeline
// fails fast. After each pass it calls the instruments in order (verify-each and
// print-after-all are instruments: transforms/pass_instruments.hpp), so the manager itself needs
// neither the text layer nor any verifier. `timing` records the wall time of each transform.
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/transforms/pass.hpp"
#include "pypto/transforms/property.hpp"

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

/// Called after each pass with the pass, its output and the properties that hold after it. An
/// instrument may throw to stop the run (the verify-each instrument throws
/// PassVerificationError); see transforms/pass_instruments.hpp for the standard ones.
using PassInstrument =
    std::function<void(const Pass& pass, const ir::Program& output, PropertySet holding)>;

struct PassManagerOptions {
  /// Run after each pass, in this order.
  std::vector<PassInstrument> instruments;
  bool timing = false;
  /// The properties the input program is known to have.
  PropertySet initial_properties;
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
  /// and whatever a pass or an instrument throws.
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
      for (const PassInstrument& instrument : options_.instruments)
        instrument(pass, *current, properties_);
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
