// pypto/codegen/kernel_registration.hpp — what codegen tells the runtime about each kernel
// launch shape.
//
// One KernelRegistration per distinct (code, core type, tensor signature) met in the final
// task-parameter ordering; several registrations may reference one code unit with different
// signatures, and equal keys reuse one func_id. `assign_kernel_registrations` numbers the keys
// in first-encounter order over every task launch of every Orchestration function (name order,
// then program order, orchestration_tasks.hpp), so IDs are deterministic and follow the emitted
// tasks; a Group's members are met AIC first, then AIV (the MixedKernels slot order).
// O(L log R) for L kernel launches and R registrations.
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
#include "pypto/codegen/registration_code_map.hpp"
#include "pypto/core/config.hpp"
#include "pypto/ir/enums.hpp"

namespace pypto::ir {
struct Program;
}  // namespace pypto::ir

namespace pypto::codegen {

struct TaskLaunch;   // orchestration_tasks.hpp
class TaskResolver;  // orchestration_tasks.hpp

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
PYPTO_DECL std::vector<RuntimeDirection> task_signature(const TaskLaunch& t);

/// One kernel of a task with its code unit: the unit of registration.
struct TaskKernel {
  std::string function;
  KernelCode code;
};

/// The kernels a task runs, in registration (and MixedKernels slot) order: a plain kernel alone;
/// a Group's AIC member first, then its AIV members. CodegenError when a kernel has no code, or
/// a Group does not fit one mixed task (at most one AIC and two AIV kernels).
PYPTO_DECL std::vector<TaskKernel> task_kernels(const TaskResolver& tasks, const TaskLaunch& t,
                                                const KernelCodeMap& codes);

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

/// The registrations of every kernel launch of `program` (see the header comment); CodegenError
/// as task_kernels.
PYPTO_DECL std::vector<KernelRegistration> assign_kernel_registrations(const ir::Program& program,
                                                                       const KernelCodeMap& codes);

/// The func_id of (code, signature) among `regs`; CodegenError naming `function` when absent.
PYPTO_DECL std::int32_t registered_func_id(const std::vector<KernelRegistration>& regs,
                                           const KernelCode& code,
                                           const std::vector<RuntimeDirection>& signature,
                                           const std::string& function);

}  // namespace pypto::codegen

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/codegen/kernel_registration.ipp"
#endif
