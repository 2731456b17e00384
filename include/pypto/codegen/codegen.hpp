// pypto/codegen/codegen.hpp — `codegen<Target>(program)`: a whole program to code for one
// target (issue 8): every launched kernel through codegen_kernel<Target>, byte-identical
// sources shared as one code unit, registrations after the final task-parameter ordering, the
// orchestration sources and kernel_config.py.
//
// The program is expected in the form the tensor pipeline leaves it: outlined, deduplicated and
// in tile form (convert-tensor-to-tile-ops). Only kernels that some Call or Submit launches are
// generated: an unreferenced kernel is a potential entry of the host, not code of this program.
// Target differences live in the traits; this function is the same for every target.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pypto/codegen/kernel_codegen.hpp"
#include "pypto/codegen/orchestration_codegen.hpp"
#include "pypto/codegen/orchestration_result.hpp"
#include "pypto/codegen/registration_code_map.hpp"
#include "pypto/codegen/target_traits.hpp"
#include "pypto/ir/function.hpp"
#include "pypto/ir/program.hpp"
#include "pypto/ir/visit.hpp"

namespace pypto::codegen {

/// Names of the kernel (InCore / AIC / AIV) functions some Call or Submit of `program` launches,
/// sorted.
inline std::set<std::string> launched_kernels(const ir::Program& program) {
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

/// Code for `program` on `Target`; `entry` names the Orchestration function kernel_config.py
/// points at (empty: the only one). `codes`, when given, receives the code unit of every
/// launched kernel function (what a runtime needs to dispatch a Call to a registration).
/// Throws CodegenError naming the kernel or function the target cannot express.
template <TargetTraits Target>
OrchestrationResult codegen(const ir::Program& program, std::string_view entry = {},
                            KernelCodeMap* codes = nullptr) {
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

}  // namespace pypto::codegen
