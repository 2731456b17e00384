// pypto/codegen/orchestration_codegen.hpp — C++ orchestration code for a task runtime, one
// source per Orchestration function (the shape upstream emits for the `simpler` runtime), and
// the whole OrchestrationResult of a program.
//
// Each task launch becomes an argument object filled in task-parameter order and the submit call
// of its core type (a Group: one mixed task); func IDs come from the kernel registrations, so
// tasks and KERNELS rows agree. Loops, ifs, scalar arithmetic, runtime scopes and tensor.create
// are lowered, and no tensor is copied; anything else is a CodegenError naming the function and
// line:column. The vocabulary is a RuntimeAbi value, so one generator serves every target. The
// text is deterministic; O(N log N) in the size of the function.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/codegen/codegen_error.hpp"
#include "pypto/codegen/kernel_registration.hpp"
#include "pypto/codegen/orchestration_result.hpp"
#include "pypto/codegen/registration_code_map.hpp"
#include "pypto/codegen/runtime_abi.hpp"
#include "pypto/core/config.hpp"

namespace pypto::ir {
struct Function;
struct Program;
}  // namespace pypto::ir

namespace pypto::codegen {

/// The C++ orchestration source of the Orchestration function `fn` of `program`, with func
/// IDs from `registrations` (assign_kernel_registrations of the same program and codes).
PYPTO_DECL std::string generate_orchestration_source(
    const ir::Program& program, const ir::Function& fn, const KernelCodeMap& codes,
    const std::vector<KernelRegistration>& registrations, const RuntimeAbi& abi);

/// The whole result for `program`: registrations, one orchestration source per Orchestration
/// function, the source of every code unit a registration references (`code_sources`: code
/// name -> text), and kernel_config.py naming `entry` (empty: the only Orchestration function).
PYPTO_DECL OrchestrationResult
generate_orchestration(const ir::Program& program, const KernelCodeMap& codes,
                       const std::map<std::string, std::string, std::less<>>& code_sources,
                       const RuntimeAbi& abi, std::string_view entry = {});

/// The same, for code units built by share_identical_sources.
PYPTO_DECL OrchestrationResult generate_orchestration(const ir::Program& program,
                                                      const KernelCodeUnits& units,
                                                      const RuntimeAbi& abi,
                                                      std::string_view entry = {});

}  // namespace pypto::codegen

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/codegen/orchestration_codegen.ipp"
#endif
