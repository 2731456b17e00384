// pypto/codegen/codegen_error.hpp — the error of every code generator: a construct the target
// cannot express, named by kernel (or orchestration function) and line:column.
#pragma once

#include <string>
#include <utility>

#include "pypto/core/error.hpp"

namespace pypto::codegen {

/// Code generation refused the program. `function` is the kernel or orchestration function
/// being emitted; the message says what it holds that the target cannot express, and where.
class CodegenError : public core::ValueError {
 public:
  CodegenError(std::string function, const std::string& message)
      : core::ValueError("codegen: " + function + ": " + message), function_(std::move(function)) {}

  const std::string& function() const { return function_; }

 private:
  std::string function_;
};

}  // namespace pypto::codegen
