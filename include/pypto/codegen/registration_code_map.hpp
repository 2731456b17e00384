// pypto/codegen/registration_code_map.hpp — which compiled code unit each kernel function uses:
// the input that kernel code generation hands to registration assignment.
//
// A code unit is one generated source. Several kernel functions share one unit when their
// generated sources are byte-identical, so a runtime compiles each unit once. KernelCodeMap maps
// a kernel function name to its unit's `code_name` and CoreType; it is a sorted map, so every
// walk over it is in name order. `share_identical_sources` builds it from per-function sources:
// O(F log F) comparisons of (core type, source) keys.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "pypto/codegen/codegen_error.hpp"
#include "pypto/codegen/core_type.hpp"
#include "pypto/core/config.hpp"

namespace pypto::codegen {

/// The code unit of one kernel function.
struct KernelCode {
  std::string code_name;
  CoreType core_type = CoreType::AIV;

  friend bool operator==(const KernelCode&, const KernelCode&) = default;
};

/// Kernel function name -> its code unit.
using KernelCodeMap = std::map<std::string, KernelCode, std::less<>>;

/// One kernel function's generated source, as kernel code generation returns it.
struct KernelText {
  std::string function;
  CoreType core_type = CoreType::AIV;
  std::string source;
};

/// Code units after sharing byte-identical sources: the map for registration assignment and
/// each unit's source by code name.
struct KernelCodeUnits {
  KernelCodeMap codes;
  std::map<std::string, std::string, std::less<>> sources;  ///< code_name -> source
};

/// Functions whose (core type, source) are equal share one unit, named after the first such
/// function in name order (so the name does not depend on the input order). A function listed
/// twice is an error (CodegenError): its code would be ambiguous.
PYPTO_DECL KernelCodeUnits share_identical_sources(std::vector<KernelText> kernels);

}  // namespace pypto::codegen

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/codegen/registration_code_map.ipp"
#endif
