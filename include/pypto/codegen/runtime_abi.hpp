// pypto/codegen/runtime_abi.hpp — the task-runtime vocabulary an orchestration code generator
// prints: names only, as plain data held by each target's traits (pypto.md section 6).
#pragma once

#include <string_view>

namespace pypto::codegen {

struct RuntimeAbi {
  std::string_view name;        // RUNTIME_CONFIG["runtime"]
  std::string_view args_class;  // per-task argument object
  std::string_view add_input;   // argument directions, in task-parameter order
  std::string_view add_output;
  std::string_view add_inout;
  std::string_view add_no_dep;
  std::string_view add_scalar;
  std::string_view submit_aic;  // submit calls by core type
  std::string_view submit_aiv;
  std::string_view submit_mixed;    // a Group: its AIC and AIV members together
  std::string_view scope_macro;     // the runtime scope around the orchestration body
  std::string_view entry_function;  // ORCHESTRATION["function_name"]
};

inline constexpr RuntimeAbi kNpuRuntimeAbi{
    .name = "tensormap_and_ringbuffer",
    .args_class = "CoreTaskArgs",
    .add_input = "add_input",
    .add_output = "add_output",
    .add_inout = "add_inout",
    .add_no_dep = "add_no_dep",
    .add_scalar = "add_scalar",
    .submit_aic = "rt_submit_aic_task",
    .submit_aiv = "rt_submit_aiv_task",
    .submit_mixed = "rt_submit_task",
    .scope_macro = "PTO2_SCOPE",
    .entry_function = "aicpu_orchestration_entry",
};

/// The CPU reference runtime uses the same vocabulary, under its own runtime name.
inline constexpr RuntimeAbi kCpuRuntimeAbi{
    .name = "pypto_cpu_reference",
    .args_class = "CoreTaskArgs",
    .add_input = "add_input",
    .add_output = "add_output",
    .add_inout = "add_inout",
    .add_no_dep = "add_no_dep",
    .add_scalar = "add_scalar",
    .submit_aic = "rt_submit_aic_task",
    .submit_aiv = "rt_submit_aiv_task",
    .submit_mixed = "rt_submit_task",
    .scope_macro = "PTO2_SCOPE",
    .entry_function = "aicpu_orchestration_entry",
};

}  // namespace pypto::codegen
