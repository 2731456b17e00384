// pypto/runtime/cpu_program.ipp — the definitions of runtime/cpu_program.hpp.
#pragma once

#include "pypto/runtime/cpu_program.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/codegen/codegen_error.hpp"
#include "pypto/codegen/cpu_target.hpp"
#include "pypto/codegen/kernel_config.hpp"
#include "pypto/codegen/orchestration_result.hpp"
#include "pypto/codegen/registration_code_map.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/runtime/compile_cache.hpp"
#include "pypto/runtime/interpreter.hpp"
#include "pypto/runtime/kernel_library.hpp"
#include "pypto/runtime/program_runner.hpp"

namespace pypto::runtime {

PYPTO_DECL CpuProgram CpuProgram::compile(CompileCache& cache, const ir::Program& program,
                                          const codegen::OrchestrationResult& code,
                                          const codegen::KernelCodeMap& codes) {
  // Every kernel begins with the target's prologue: parsed once, precompiled, for all of them.
  for (const codegen::CoreType core : {codegen::CoreType::AIV, codegen::CoreType::AIC})
    cache.share_prelude(codegen::CpuTarget::prologue(core));
  std::map<std::string, const std::string*> text_by_path;
  for (const auto& f : code.kernel_sources) text_by_path[f.path] = &f.text;
  std::vector<CodeUnit> units;
  std::map<std::string, std::int32_t> first_id;  // code name -> lowest func_id
  for (const auto& r : code.kernel_registrations) {
    auto [it, fresh] = first_id.emplace(r.code_name, r.func_id);
    if (!fresh) {
      it->second = std::min(it->second, r.func_id);
      continue;
    }
    auto text = text_by_path.find(codegen::kernel_source_path(r.code_name, r.core_type));
    if (text == text_by_path.end())
      throw codegen::CodegenError(r.code_name, "is registered but has no kernel source");
    units.push_back(CodeUnit{r.code_name, *text->second, CodeOrigin::Generated, {}});
  }
  std::map<std::string, std::int32_t> func_ids;  // kernel function -> func_id
  for (const auto& [function, unit] : codes)
    if (auto it = first_id.find(unit.code_name); it != first_id.end())
      func_ids.emplace(function, it->second);
  return CpuProgram(program, KernelLibrary::compile(cache, units, code.kernel_registrations),
                    std::move(func_ids));
}

PYPTO_DECL std::vector<Value> CpuProgram::run(std::string_view function, std::vector<Value> args,
                                              std::int64_t world_size) const {
  ProgramRunner runner(*program_, library_, func_ids_);
  return runner.run(function, std::move(args), world_size);
}

}  // namespace pypto::runtime
