// pypto/transforms/expand_mixed_kernels.hpp — ExpandMixedKernels (upstream's ExpandMixedKernel).
//
// A Group runs as one mixed task: the runtime hands every member kernel (AIC, AIV, AIV lane 1)
// the same argument list. This pass (`expand-mixed-kernels`) makes each member of a Group take
// the Group's parameters, in the Group's order, and the Group call it with exactly those. A
// member argument resolves to a Group parameter, to what an earlier member call returns from
// one of its parameters (return_lineage.hpp), or to a constant (substituted into the member);
// anything else is a MixedKernelError. A member called elsewhere, or bound twice, gets a
// Group-private copy `{group}_{member}` with its own variables (fresh_copy.hpp); names never
// depend on pointer values. Requires SSAForm and ClusterOutlined and keeps every property.
// O(N) over the program plus O(1) expected per lookup.
#pragma once

#include <cstddef>
#include <string>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/transforms/pass.hpp"

namespace pypto::transforms {

/// A member argument of a Group that is neither a Group parameter, a constant, nor the buffer an
/// earlier member returned.
class MixedKernelError : public core::ValueError {
 public:
  MixedKernelError(const std::string& group, const std::string& member, std::size_t arg,
                   const ir::Span& span, const std::string& why)
      : core::ValueError("expand-mixed-kernels: Group '" + group + "': " +
                         (span.is_known() ? span.to_string() + ": " : std::string()) + "argument " +
                         std::to_string(arg) + " of the call of '" + member + "' " + why) {}
};

/// The pass (`expand-mixed-kernels`, see the top of this header).
PYPTO_DECL Pass ExpandMixedKernels();

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/expand_mixed_kernels.ipp"
#endif
