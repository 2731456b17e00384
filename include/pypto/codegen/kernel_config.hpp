// pypto/codegen/kernel_config.hpp — the text of kernel_config.py, the file through which the
// `simpler` runtime finds the orchestration and kernels, in the format upstream PyPTO's backend
// writes.
//
// RUNTIME_CONFIG names the runtime; ORCHESTRATION names the orchestration source and its entry
// function; KERNELS has one row per KernelRegistration, sorted by func_id, with its code unit's
// name and source path (kernels/<aic|aiv>/<code_name>.cpp), core type and tensor signature
// ([_D.IN, _D.OUT, ...], omitted when empty, as upstream does). Two registrations of one code
// unit name the same source: the runtime compiles it once and builds two callables.
// Byte-deterministic; O(total signature length).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pypto/codegen/core_type.hpp"
#include "pypto/codegen/kernel_registration.hpp"
#include "pypto/codegen/runtime_abi.hpp"
#include "pypto/core/config.hpp"

namespace pypto::codegen {

/// The path of a code unit's source, relative to the output directory.
PYPTO_DECL std::string kernel_source_path(const std::string& code_name, CoreType core_type);

/// The path of an orchestration function's source, relative to the output directory.
PYPTO_DECL std::string orchestration_source_path(std::string_view function);

/// `[_D.IN, _D.OUT, ...]`
PYPTO_DECL std::string signature_text(const std::vector<RuntimeDirection>& signature);

/// kernel_config.py for `orchestration_function` and `registrations` (any order).
/// `orchestration_signature` (the entry's tensor parameters in orch_args order; upstream's
/// optional ORCHESTRATION "signature", which lets the runtime skip copying back IN tensors) is
/// written when not empty.
PYPTO_DECL std::string kernel_config_text(
    const RuntimeAbi& abi, std::string_view orchestration_function,
    std::vector<KernelRegistration> registrations,
    const std::vector<RuntimeDirection>& orchestration_signature = {});

}  // namespace pypto::codegen

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/codegen/kernel_config.ipp"
#endif
