// pypto/transforms/pass.hpp — a pass: a named, property-annotated function from Program to
// Program.
//
// A Pass is a value: its stable kebab-case name (the `pypto-opt
// --passes=` spelling, e.g. `normalize-stmt-structure`), the properties it requires to hold on
// its input, the ones it establishes and the ones it may break, and the transformation itself.
// Running a pass never mutates its input (IR is immutable); it returns the new program, which
// may share every unchanged node with the input. Copying a Pass copies a std::function: cheap.
// The pass manager (pass_manager.hpp) checks `required` and tracks the properties that hold.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "pypto/core/error.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/transforms/property.hpp"

namespace pypto::transforms {

/// True for a stable command-line pass name: lowercase words of [a-z0-9] joined by single '-'.
inline bool is_kebab_case(std::string_view name) {
  if (name.empty() || name.front() == '-' || name.back() == '-') return false;
  char prev = '-';
  for (char c : name) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!word && !(c == '-' && prev != '-')) return false;
    prev = c;
  }
  return true;
}

class Pass {
 public:
  using Transform = std::function<ir::ProgramRef(const ir::Program&)>;

  /// Throws core::ValueError for a name that is not kebab-case or a missing transform.
  Pass(std::string name, PropertySet required, PropertySet produced, PropertySet invalidated,
       Transform transform)
      : name_(std::move(name)),
        required_(required),
        produced_(produced),
        invalidated_(invalidated),
        transform_(std::move(transform)) {
    if (!is_kebab_case(name_))
      throw core::ValueError("Pass: name '" + name_ +
                             "' is not kebab-case (lowercase words joined by '-')");
    if (!transform_) throw core::ValueError("Pass " + name_ + ": the transform is empty");
  }

  const std::string& name() const { return name_; }
  PropertySet required() const { return required_; }
  PropertySet produced() const { return produced_; }
  PropertySet invalidated() const { return invalidated_; }

  /// Runs the transformation alone (no property checks: that is the pass manager's job).
  ir::ProgramRef operator()(const ir::Program& program) const {
    ir::ProgramRef out = transform_(program);
    if (!out) throw core::InternalError("pass " + name_ + " returned no program");
    return out;
  }

 private:
  std::string name_;
  PropertySet required_, produced_, invalidated_;
  Transform transform_;
};

}  // namespace pypto::transforms
