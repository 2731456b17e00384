// pypto/codegen/kernel_registration.ipp — the definitions of codegen/kernel_registration.hpp.
#pragma once

#include "pypto/codegen/kernel_registration.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "pypto/codegen/orchestration_tasks.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/program.hpp"

// One KernelRegistration per distinct (code, core type, tensor signature) met in the final
// task-parameter ordering. `code_name` names a compiled code unit; several registrations may
// reference one code with different signatures, and equal signatures reuse one func_id.
//
// `assign_kernel_registrations` walks every task launch of every Orchestration function (in
// name order; each body in program order, see orchestration_tasks.hpp) down through Group and
// Spmd wrappers to the kernels, and numbers the keys in first-encounter order, so IDs are
// deterministic and follow the emitted tasks. A Group's members are met AIC first, then AIV
// (the MixedKernels slot order); each member is registered with the task's signature, since a
// mixed task hands one argument list to all of its kernels. O(L log R) for L kernel launches
// and R registrations (key comparisons are O(signature)).

namespace pypto::codegen {

PYPTO_DECL std::vector<RuntimeDirection> task_signature(const TaskLaunch& t) {
  std::vector<RuntimeDirection> sig;
  for (const TaskArg& a : t.args)
    if (a.direction != ir::ArgDirection::Scalar) sig.push_back(runtime_direction(a.direction));
  return sig;
}

PYPTO_DECL std::vector<TaskKernel> task_kernels(const TaskResolver& tasks, const TaskLaunch& t,
                                                const KernelCodeMap& codes) {
  std::vector<TaskKernel> aic, aiv;
  for (const std::string& k : t.kernels) {
    auto it = codes.find(k);
    if (it == codes.end())
      tasks.fail(t.dispatch->span, "launches the kernel '" + k + "', which has no generated code");
    (it->second.core_type == CoreType::AIC ? aic : aiv).push_back({k, it->second});
  }
  if (!t.group.empty() && (aic.size() > 1 || aiv.size() > 2))
    tasks.fail(t.dispatch->span, "the Group '" + t.group + "' has " + std::to_string(aic.size()) +
                                     " AIC and " + std::to_string(aiv.size()) +
                                     " AIV kernels; a mixed task runs at most one AIC and two AIV");
  aic.insert(aic.end(), aiv.begin(), aiv.end());
  return aic;
}

PYPTO_DECL std::vector<KernelRegistration> assign_kernel_registrations(const ir::Program& program,
                                                                       const KernelCodeMap& codes) {
  RegistrationTable table;
  for (const auto& [name, fn] : program.functions) {
    if (!is_orchestration(program, *fn)) continue;
    const TaskResolver tasks(program, name);
    for_each_task_launch(tasks, fn->body, [&](const ir::Expr& e) {
      const TaskLaunch t = tasks.resolve(e);
      const auto signature = task_signature(t);
      for (const TaskKernel& k : task_kernels(tasks, t, codes)) table.id_of(k.code, signature);
    });
  }
  return table.registrations();
}

PYPTO_DECL std::int32_t registered_func_id(const std::vector<KernelRegistration>& regs,
                                           const KernelCode& code,
                                           const std::vector<RuntimeDirection>& signature,
                                           const std::string& function) {
  for (const KernelRegistration& r : regs)
    if (r.code_name == code.code_name && r.core_type == code.core_type && r.signature == signature)
      return r.func_id;
  throw CodegenError(function, "no kernel registration for code '" + code.code_name +
                                   "' with this signature; registrations were assigned for "
                                   "another program");
}

}  // namespace pypto::codegen
