// pypto/codegen/kernel_registration.hpp — what codegen tells the runtime about each kernel
// launch shape (seed 001, "Code and registration identity").
//
// One KernelRegistration per distinct (code, core type, tensor signature) met in the final
// task-parameter ordering. `code_name` names a compiled code unit; several registrations may
// reference one code with different signatures, and equal signatures reuse one func_id.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/codegen/core_type.hpp"

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

}  // namespace pypto::codegen
