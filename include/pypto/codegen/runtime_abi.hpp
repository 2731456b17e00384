// pypto/codegen/runtime_abi.hpp — the task-runtime vocabulary an orchestration code generator
// prints: names only, as plain data held by each target's traits.
//
// The fields after `entry_function` have defaults (the `simpler` runtime's names as of the
// reference snapshot), so a target states only what differs. Names churn upstream
// (Arg -> CoreTaskArgs, Tensor -> ChipTensor); keeping them here keeps the generator unchanged.
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

  std::string_view config_function = "aicpu_orchestration_config";
  std::string_view config_class = "PTO2OrchestrationConfig";  // returns expected_arg_count
  std::string_view orch_args_class = "ChipTaskArgs";          // the entry's argument list
  std::string_view tensor_class = "ChipTensor";               // orch_args.tensor(i).ref()
  std::string_view api_header = "pto_orchestration_api.h";
  std::string_view task_id_class = "PTO2TaskId";
  std::string_view task_outputs_class = "TaskOutputTensors";  // what a submit returns
  std::string_view submit_dummy = "rt_submit_dummy_task";     // a no-op task: a barrier
  std::string_view tensor_create_info = "TensorCreateInfo";   // an intermediate's shape/dtype
  std::string_view alloc_tensors = "alloc_tensors";
  std::string_view get_tensor_data = "get_tensor_data";   // <T>(tensor, ndims, indices)
  std::string_view set_tensor_data = "set_tensor_data";   // <T>(tensor, ndims, indices, value)
  std::string_view tensor_view = "view";                  // tensor.<this>(shapes, offsets): a box
  std::string_view tensor_reshape = "reshape";            // tensor.<this>(shapes, ndims)
  std::string_view tensor_transpose = "transpose";        // tensor.<this>(x, y): two axes swapped
  std::string_view mixed_kernels_class = "MixedKernels";  // {aic, aiv0, aiv1}
  std::string_view invalid_kernel_id = "INVALID_KERNEL_ID";
  std::string_view core_count_method = "set_block_num";  // launch_spec.<this>(n); A5: set_core_num
  std::string_view manual_scope_mode = "PTO2ScopeMode::MANUAL";
  int aicpu_thread_num = 4;  // RUNTIME_CONFIG["aicpu_thread_num"]
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
inline constexpr RuntimeAbi kCpuRuntimeAbi = [] {
  RuntimeAbi abi = kNpuRuntimeAbi;
  abi.name = "pypto_cpu_reference";
  abi.aicpu_thread_num = 0;  // tasks run on the host thread
  return abi;
}();

}  // namespace pypto::codegen
