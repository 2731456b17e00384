// pypto/codegen/codegen.ipp — the definitions of codegen/codegen.hpp.
#pragma once

#include "pypto/codegen/codegen.hpp"

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/codegen/cpu_target.hpp"
#include "pypto/codegen/kernel_codegen.hpp"
#include "pypto/codegen/kernel_source.hpp"
#include "pypto/codegen/npu_target.hpp"
#include "pypto/codegen/orchestration_codegen.hpp"
#include "pypto/codegen/orchestration_result.hpp"
#include "pypto/codegen/registration_code_map.hpp"
#include "pypto/codegen/target_traits.hpp"
#include "pypto/ir/enums.hpp"
#include "pypto/ir/expr.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/stmt.hpp"
#include "pypto/ir/visit.hpp"

namespace pypto::codegen {

PYPTO_DECL std::set<std::string> launched_kernels(const ir::Program& program) {
  std::set<std::string> callees;
  for (const auto& [name, fn] : program.functions)
    ir::for_each_node(ir::NodeRef(fn), [&](const ir::Node& n) {
      const ir::Op* op = nullptr;
      if (const auto* c = ir::as<ir::Call>(&n)) op = c->op.get();
      if (const auto* s = ir::as<ir::Submit>(&n)) op = s->op.get();
      if (op && ir::isa<ir::GlobalVar>(*op)) callees.insert(op->name);
    });
  std::set<std::string> kernels;
  for (const std::string& name : callees)
    if (ir::FunctionRef fn = program.find(name)) switch (fn->func_type) {
        case ir::FunctionType::InCore:
        case ir::FunctionType::AIC:
        case ir::FunctionType::AIV: kernels.insert(name); break;
        default: break;
      }
  return kernels;
}

template <TargetTraits Target>
OrchestrationResult codegen(const ir::Program& program, std::string_view entry,
                            KernelCodeMap* codes) {
  std::vector<KernelText> kernels;
  for (const std::string& name : launched_kernels(program)) {
    KernelSource k = codegen_kernel<Target>(*program.find(name));
    kernels.push_back(KernelText{name, k.core_type, std::move(k.source)});
  }
  KernelCodeUnits units = share_identical_sources(std::move(kernels));
  OrchestrationResult result =
      generate_orchestration(program, units.codes, units.sources, Target::runtime_abi, entry);
  if (codes) *codes = std::move(units.codes);
  return result;
}

#ifdef PYPTO_SEPARATE_COMPILATION
template OrchestrationResult codegen<CpuTarget>(const ir::Program& program, std::string_view entry,
                                                KernelCodeMap* codes);
template OrchestrationResult codegen<NpuTarget>(const ir::Program& program, std::string_view entry,
                                                KernelCodeMap* codes);
#endif

}  // namespace pypto::codegen
