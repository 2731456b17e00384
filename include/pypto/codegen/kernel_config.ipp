// pypto/codegen/kernel_config.ipp — the definitions of codegen/kernel_config.hpp.
#pragma once

#include "pypto/codegen/kernel_config.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace pypto::codegen {

PYPTO_DECL std::string kernel_source_path(const std::string& code_name, CoreType core_type) {
  return "kernels/" + std::string(core_type_name(core_type)) + "/" + code_name + ".cpp";
}

PYPTO_DECL std::string orchestration_source_path(std::string_view function) {
  return "orchestration/" + std::string(function) + ".cpp";
}

PYPTO_DECL std::string signature_text(const std::vector<RuntimeDirection>& signature) {
  std::string s = "[";
  for (std::size_t i = 0; i < signature.size(); ++i)
    s += (i ? ", _D." : "_D.") + std::string(runtime_direction_name(signature[i]));
  return s + "]";
}

PYPTO_DECL std::string kernel_config_text(
    const RuntimeAbi& abi, std::string_view orchestration_function,
    std::vector<KernelRegistration> registrations,
    const std::vector<RuntimeDirection>& orchestration_signature) {
  std::sort(registrations.begin(), registrations.end(),
            [](const KernelRegistration& a, const KernelRegistration& b) {
              return a.func_id < b.func_id;
            });
  const bool any_signature =
      !orchestration_signature.empty() ||
      std::any_of(registrations.begin(), registrations.end(),
                  [](const KernelRegistration& r) { return !r.signature.empty(); });
  std::string s = "# Kernel and Orchestration Configuration\n\nfrom pathlib import Path\n\n";
  if (any_signature) s += "from simpler.task_interface import ArgDirection as _D\n\n";
  s += "_ROOT_DIR = Path(__file__).parent\n\n";
  s += "RUNTIME_CONFIG = {\n";
  s += "\t\"runtime\": \"" + std::string(abi.name) + "\",\n";
  s += "\t\"aicpu_thread_num\": " + std::to_string(abi.aicpu_thread_num) + ",\n";
  s += "}\n\n";
  s += "ORCHESTRATION = {\n";
  s += "\t\"source\": str(_ROOT_DIR / \"orchestration\" / \"" +
       std::string(orchestration_function) + ".cpp\"),\n";
  s += "\t\"function_name\": \"" + std::string(abi.entry_function) + "\",\n";
  if (!orchestration_signature.empty())
    s += "\t\"signature\": " + signature_text(orchestration_signature) + ",\n";
  s += "}\n\n";
  s += "KERNELS = [\n";
  for (const KernelRegistration& r : registrations) {
    const std::string ct(core_type_name(r.core_type));
    s += "\t{\"func_id\": " + std::to_string(r.func_id) + ", \"name\": \"" + r.code_name +
         "\", \"source\": str(_ROOT_DIR / \"kernels\" / \"" + ct + "\" / \"" + r.code_name +
         ".cpp\"), \"core_type\": \"" + ct + "\"";
    if (!r.signature.empty()) s += ", \"signature\": " + signature_text(r.signature);
    s += "},\n";
  }
  s += "]\n";
  return s;
}

}  // namespace pypto::codegen
