// pypto/codegen/codegen.hpp — `codegen<Target>(program)`: a whole program to code for one
// target: every launched kernel through codegen_kernel<Target>, byte-identical sources shared
// as one code unit, registrations after the final task-parameter ordering, the orchestration
// sources and kernel_config.py.
//
// The program is expected in the form the tensor pipeline leaves it: outlined, deduplicated and
// in tile form (convert-tensor-to-tile-ops). Only kernels that some Call or Submit launches are
// generated: an unreferenced kernel is a potential entry of the host, not code of this program.
// Target differences live in the traits; this function is the same for every target. Compiled
// mode (docs/compilation.md) instantiates it for CpuTarget and NpuTarget; another target needs
// header-only mode.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "pypto/codegen/codegen_error.hpp"
#include "pypto/codegen/cpu_target.hpp"
#include "pypto/codegen/npu_target.hpp"
#include "pypto/codegen/orchestration_result.hpp"
#include "pypto/codegen/registration_code_map.hpp"
#include "pypto/codegen/target_traits.hpp"
#include "pypto/core/config.hpp"

namespace pypto::ir {
struct Program;
}  // namespace pypto::ir

namespace pypto::codegen {

/// Names of the kernel (InCore / AIC / AIV) functions some Call or Submit of `program` launches,
/// sorted.
PYPTO_DECL std::set<std::string> launched_kernels(const ir::Program& program);

/// Code for `program` on `Target`; `entry` names the Orchestration function kernel_config.py
/// points at (empty: the only one). `codes`, when given, receives the code unit of every
/// launched kernel function (what a runtime needs to dispatch a Call to a registration).
/// Throws CodegenError naming the kernel or function the target cannot express.
template <TargetTraits Target>
OrchestrationResult codegen(const ir::Program& program, std::string_view entry = {},
                            KernelCodeMap* codes = nullptr);

#ifdef PYPTO_SEPARATE_COMPILATION
extern template OrchestrationResult codegen<CpuTarget>(const ir::Program& program,
                                                       std::string_view entry,
                                                       KernelCodeMap* codes);
extern template OrchestrationResult codegen<NpuTarget>(const ir::Program& program,
                                                       std::string_view entry,
                                                       KernelCodeMap* codes);
#endif

}  // namespace pypto::codegen

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/codegen/codegen.ipp"
#endif
