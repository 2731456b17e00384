// pypto/codegen/orchestration_result.hpp — everything code generation hands to a runtime or
// writes into an output directory.
//
// The kernel registrations replace upstream's func_name_to_id / func_name_to_core_type /
// func_name_to_signature maps: a runtime builds one callable per registration, and compiles
// each code unit (kernel_sources) once. Paths are relative to the output directory and every
// list is in a deterministic order: orchestration sources by function name, kernel sources by
// path, registrations by func_id.
#pragma once

#include <string>
#include <vector>

#include "pypto/codegen/kernel_registration.hpp"

namespace pypto::codegen {

/// One generated file: its path relative to the output directory and its text.
struct GeneratedFile {
  std::string path;
  std::string text;

  friend bool operator==(const GeneratedFile&, const GeneratedFile&) = default;
};

struct OrchestrationResult {
  std::vector<GeneratedFile> orchestration_sources;  ///< orchestration/<function>.cpp
  std::vector<GeneratedFile> kernel_sources;         ///< kernels/<aic|aiv>/<code_name>.cpp
  std::vector<KernelRegistration> kernel_registrations;
  GeneratedFile kernel_config;  ///< kernel_config.py: RUNTIME_CONFIG, ORCHESTRATION, KERNELS
};

}  // namespace pypto::codegen
