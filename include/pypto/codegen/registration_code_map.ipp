// pypto/codegen/registration_code_map.ipp — the definitions of codegen/registration_code_map.hpp.
#pragma once

#include "pypto/codegen/registration_code_map.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace pypto::codegen {

PYPTO_DECL KernelCodeUnits share_identical_sources(std::vector<KernelText> kernels) {
  std::sort(kernels.begin(), kernels.end(),
            [](const KernelText& a, const KernelText& b) { return a.function < b.function; });
  KernelCodeUnits out;
  std::map<std::pair<CoreType, std::string>, std::string> unit_of;  // (core, source) -> code_name
  for (auto& k : kernels) {
    if (out.codes.contains(k.function))
      throw CodegenError(k.function, "has two generated sources; a kernel has exactly one");
    auto [it, fresh] = unit_of.try_emplace({k.core_type, k.source}, k.function);
    if (fresh) out.sources.emplace(k.function, std::move(k.source));
    out.codes.emplace(k.function, KernelCode{it->second, k.core_type});
  }
  return out;
}

}  // namespace pypto::codegen
