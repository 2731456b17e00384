// pypto/codegen/kernel_registration.hpp — what codegen tells the runtime about each kernel
// launch shape (seed 001, "Code and registration identity").
//
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
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "pypto/codegen/codegen_error.hpp"
#include "pypto/codegen/core_type.hpp"
#include "pypto/codegen/orchestration_tasks.hpp"
#include "pypto/codegen/registration_code_map.hpp"
#include "pypto/ir.hpp"

namespace pypto::codegen {

/// The runtime direction of one tensor argument. A NoDep argument is InOut here (its task still
/// uses add_no_dep); scalars are not part of a signature.
enum class RuntimeDirection : std::uint8_t { In = 0, Out = 1, InOut = 2 };

constexpr std::string_view runtime_direction_name(RuntimeDirection d) {
  switch (d) {
    case RuntimeDirection::In: return "IN";
    case RuntimeDirection::Out: return "OUT";
    case RuntimeDirection::InOut: return "INOUT";
  }
  return "?";
}

struct KernelRegistration {
  std::int32_t func_id = 0;
  std::string code_name;
  CoreType core_type = CoreType::AIV;
  std::vector<RuntimeDirection> signature;

  friend bool operator==(const KernelRegistration&, const KernelRegistration&) = default;
};

/// The runtime direction of a tensor argument: Output and OutputExisting are OUT (upstream
/// passes both through add_output), NoDep is INOUT (its task still uses add_no_dep).
constexpr RuntimeDirection runtime_direction(ir::ArgDirection d) {
  switch (d) {
    case ir::ArgDirection::Input: return RuntimeDirection::In;
    case ir::ArgDirection::Output:
    case ir::ArgDirection::OutputExisting: return RuntimeDirection::Out;
    default: return RuntimeDirection::InOut;
  }
}

/// The tensor signature of a task: scalars omitted.
inline std::vector<RuntimeDirection> task_signature(const TaskLaunch& t) {
  std::vector<RuntimeDirection> sig;
  for (const TaskArg& a : t.args)
    if (a.direction != ir::ArgDirection::Scalar) sig.push_back(runtime_direction(a.direction));
  return sig;
}

/// One kernel of a task with its code unit: the unit of registration.
struct TaskKernel {
  std::string function;
  KernelCode code;
};

/// The kernels a task runs, in registration (and MixedKernels slot) order: a plain kernel alone;
/// a Group's AIC member first, then its AIV members. CodegenError when a kernel has no code, or
/// a Group does not fit one mixed task (at most one AIC and two AIV kernels).
inline std::vector<TaskKernel> task_kernels(const TaskResolver& tasks, const TaskLaunch& t,
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

/// Numbers (code, core type, signature) keys in first-encounter order.
class RegistrationTable {
 public:
  std::int32_t id_of(const KernelCode& code, const std::vector<RuntimeDirection>& signature) {
    auto [it, fresh] = ids_.try_emplace(Key{code.code_name, code.core_type, signature},
                                        static_cast<std::int32_t>(regs_.size()));
    if (fresh) regs_.push_back({it->second, code.code_name, code.core_type, signature});
    return it->second;
  }
  const std::vector<KernelRegistration>& registrations() const { return regs_; }

 private:
  using Key = std::tuple<std::string, CoreType, std::vector<RuntimeDirection>>;
  std::map<Key, std::int32_t> ids_;
  std::vector<KernelRegistration> regs_;
};

/// The registrations of every kernel launch of `program` (see the header comment).
inline std::vector<KernelRegistration> assign_kernel_registrations(const ir::Program& program,
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

/// The func_id of (code, signature) among `regs`; CodegenError naming `function` when absent.
inline std::int32_t registered_func_id(const std::vector<KernelRegistration>& regs,
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
