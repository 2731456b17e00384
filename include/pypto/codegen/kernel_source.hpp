// pypto/codegen/kernel_source.hpp — what kernel code generation returns for one kernel: its
// source text and how to call it.
//
// The source holds nothing but the code: not the function's name, no addresses, no timestamps.
// Two kernels with equal canonical code therefore have byte-identical sources, and the
// orchestration code generator may compile one of them for both. The parameter lists are in the
// task-parameter order the entry expects: every tensor parameter (in parameter order), then every
// scalar parameter.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pypto/codegen/core_type.hpp"
#include "pypto/core/dtype.hpp"
#include "pypto/core/span.hpp"
#include "pypto/ir/enums.hpp"

namespace pypto::ir {
struct Expr;
}  // namespace pypto::ir

namespace pypto::codegen {

/// One parameter of a kernel entry: its position among the function's parameters, its callee
/// direction and its dtype (of the tensor elements, or of the scalar).
struct KernelParam {
  std::size_t index = 0;
  ir::ParamDirection direction = ir::ParamDirection::In;
  core::DataType dtype = core::DataType::FP32;
  friend bool operator==(const KernelParam&, const KernelParam&) = default;
};

/// An expression whose fault the kernel reports (kernel_abi.hpp's KernelFault): site k of a fault
/// record is `fault_sites[k]`, numbered in the order the source first uses them, so that equal
/// sources number their sites alike.
struct KernelFaultSite {
  std::string what;  ///< the op ("tile.load") or the operator kind ("FloorDiv")
  core::Span span;
  /// The expression itself, owned by the lowered function (null for one the lowering made).
  const ir::Expr* expr = nullptr;
};

struct KernelSource {
  std::string function_name;  ///< the IR function (for diagnostics and registrations only)
  CoreType core_type = CoreType::AIV;
  std::string source;                        ///< the complete translation unit
  std::vector<KernelParam> tensors;          ///< args[0 .. tensors.size())
  std::vector<KernelParam> scalars;          ///< args[tensors.size() ..)
  std::vector<KernelFaultSite> fault_sites;  ///< for diagnostics only: not in the source
};

}  // namespace pypto::codegen
