// pypto/transforms/convert_tensor_to_tile_ops.hpp — kernels' tensor ops become tile ops.
//
// ConvertTensorToTileOps runs after DeduplicateOutlinedKernels. In every InCore / AIC / AIV
// kernel the tensor parameters converted ops read are loaded at the entry, every tensor op with
// a tile form becomes it — through loops and branches, iter_args and return vars becoming tiles
// with their values — and each returned tile is stored into a new trailing pl.Out parameter whose
// store result the kernel returns; callers in Orchestration / Opaque functions allocate the new
// parameters, and written parameters become Out / InOut. The `cache_policy` attr becomes `cache=`
// kwargs on tile.load. What it cannot convert is a TensorToTileError, a call it cannot give the
// new outputs a KernelOutputCallError. A kernel with nothing to convert and no cache_policy comes
// back as the same object (idempotent). Requires SSAForm and SplitIncoreOrch, keeps every
// property. O(N) per function, O(1) expected per lookup. The steps: the .ipp's top comment.
#pragma once

#include <string>
#include <utility>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"
#include "pypto/ir/node.hpp"
#include "pypto/text/call_types.hpp"
#include "pypto/transforms/pass.hpp"

namespace pypto::transforms {

/// A tensor op in a kernel that this pass cannot turn into tile ops: names the function, the op
/// and where it is.
class TensorToTileError : public core::ValueError {
 public:
  TensorToTileError(std::string function, std::string op, const ir::Span& span,
                    const std::string& why)
      : core::ValueError("convert-tensor-to-tile-ops: kernel '" + function + "': " + op + " at " +
                         span.to_string() + " " + why),
        function_(std::move(function)),
        op_(std::move(op)),
        span_(span) {}
  const std::string& function() const { return function_; }
  const std::string& op() const { return op_; }
  const ir::Span& span() const { return span_; }

 private:
  std::string function_, op_;
  ir::Span span_;
};

/// A call of a kernel that gained Out parameters, which this pass cannot give them: names the
/// calling function, the kernel and where the call is.
class KernelOutputCallError : public core::ValueError {
 public:
  KernelOutputCallError(std::string function, std::string kernel, const ir::Span& span,
                        const std::string& why)
      : core::ValueError("convert-tensor-to-tile-ops: function '" + function + "': the call of '" +
                         kernel + "' at " + span.to_string() + " " + why),
        function_(std::move(function)),
        kernel_(std::move(kernel)),
        span_(span) {}
  const std::string& function() const { return function_; }
  const std::string& kernel() const { return kernel_; }
  const ir::Span& span() const { return span_; }

 private:
  std::string function_, kernel_;
  ir::Span span_;
};

/// The Ascend generation the tile ops are shaped for, where the conversion differs: a gather on
/// A2/A3 reads row by row (one tile.gather per row), on A5 in one tile.gather of flat indices.
enum class TileArch { A2A3, A5 };

struct ConvertTensorToTileOptions {
  TileArch arch = TileArch::A2A3;
};

/// ConvertTensorToTileOps: kernels' tensor ops become tile loads, tile ops and tile stores, a
/// computed value a kernel returns goes into a new trailing Out parameter its callers allocate,
/// and the `cache_policy` attr becomes `cache=` kwargs on tile.load (see the top of this header).
/// The pass holds `ops` by reference: the registry must outlive it.
PYPTO_DECL Pass ConvertTensorToTileOps(const ir::OpRegistry& ops = text::default_op_registry(),
                                       ConvertTensorToTileOptions options = {});

}  // namespace pypto::transforms

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/transforms/convert_tensor_to_tile_ops.ipp"
#endif
