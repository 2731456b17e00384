// pypto/codegen/kernel_codegen.hpp — lowers one kernel (an InCore / AIC / AIV function in tile
// form, after convert-tensor-to-tile-ops) to target source.
//
// codegen_kernel<T>(fn) is one template for every target; T's traits print each construct.
// Scalar code computes what runtime/interpreter.hpp computes (integer wrap, Python floor
// division, strict FP32); runs of FP32 elementwise and row-reduction tile ops go through the
// kernel expression IR (one canonical kernel::Spec per materialized value). Names are numbered
// in order of appearance and the source holds nothing else of the function, so alpha-equivalent
// kernels print byte-identical source. What the target cannot express is a CodegenError naming
// the kernel, the op and line:column, never partial output. O(body + region values x inlined
// DAG size). Compiled mode (docs/compilation.md) instantiates CpuTarget and NpuTarget only.
#pragma once

#include "pypto/codegen/codegen_error.hpp"
#include "pypto/codegen/cpu_target.hpp"
#include "pypto/codegen/kernel_source.hpp"
#include "pypto/codegen/npu_target.hpp"
#include "pypto/codegen/target_traits.hpp"

namespace pypto::ir {
struct Function;
}  // namespace pypto::ir

namespace pypto::codegen {

/// The source of kernel `fn` (an InCore, AIC or AIV function in tile form) for target T, its
/// core type and its entry parameters in task-parameter order. Throws CodegenError naming the
/// kernel, the op and line:column for anything the target cannot express.
template <TargetTraits T>
KernelSource codegen_kernel(const ir::Function& fn);

#ifdef PYPTO_SEPARATE_COMPILATION
extern template KernelSource codegen_kernel<CpuTarget>(const ir::Function& fn);
extern template KernelSource codegen_kernel<NpuTarget>(const ir::Function& fn);
#endif

}  // namespace pypto::codegen

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/codegen/kernel_codegen.ipp"
#endif
