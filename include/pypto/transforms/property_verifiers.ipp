// pypto/transforms/property_verifiers.ipp — the definitions of transforms/property_verifiers.hpp.
#pragma once

#include "pypto/transforms/property_verifiers.hpp"

#include "pypto/ir/program.hpp"
#include "pypto/transforms/normalize_stmt_structure.hpp"
#include "pypto/transforms/outline_properties.hpp"
#include "pypto/transforms/property.hpp"
#include "pypto/transforms/ssa_form.hpp"

namespace pypto::transforms {

PYPTO_DECL PropertyVerifiers standard_property_verifiers() {
  PropertyVerifiers verifiers;
  verifiers.set(Property::SSAForm, find_ssa_violation);
  verifiers.set(Property::NormalizedStmtStructure, find_unnormalized_stmt_structure);
  verifiers.set(Property::SplitIncoreOrch, find_split_incore_orch_violation);
  verifiers.set(Property::ClusterOutlined, find_cluster_outlined_violation);
  verifiers.set(Property::NoScalarKernelReturn, find_no_scalar_kernel_return_violation);
  verifiers.set(Property::ReturnParamsExplicit,
                [](const ir::Program& p) { return find_return_params_explicit_violation(p); });
  verifiers.set(Property::AivSplitValid, find_aiv_split_valid_violation);
  return verifiers;
}

}  // namespace pypto::transforms
