// pypto/codegen/kernel_abi.hpp — the entry convention of generated CPU kernels, shared by the
// CPU code generator (which emits `#include <pypto/codegen/kernel_abi.hpp>` into every kernel)
// and the CPU runtime (which packs the arguments). Self-contained on purpose: generated code
// includes it, and its content is part of every compilation cache key.
//
// A kernel is one shared object exporting
//     extern "C" void pypto_kernel_entry(const std::uint64_t* args);
// args holds the kernel's parameters in the task-parameter order: every tensor parameter first
// (in parameter order), as the address of a TensorArg; then every scalar parameter, as its bits
// (an integer sign- or zero-extended to 64 bits, a float's IEEE bits zero-extended). Tensor data
// is contiguous row-major with the element type of the parameter's dtype; shapes are carried so
// that a kernel with symbolic dims reads them at run time.
#pragma once

#include <cstdint>

namespace pypto::codegen {

inline constexpr int kKernelAbiMaxRank = 8;

struct TensorArg {
  void* data;
  std::int64_t rank;
  std::int64_t shape[kKernelAbiMaxRank];
};

using KernelEntry = void (*)(const std::uint64_t* args);

/// The exported symbol of every generated CPU kernel. Fixed (not derived from the kernel's name)
/// so that two kernels with the same code produce byte-identical source.
inline constexpr const char* kKernelEntrySymbol = "pypto_kernel_entry";

/// Optional export `extern "C" void pypto_kernel_set_block_idx(std::int64_t)`: the block index
/// the next entry call runs (tile.get_block_idx). A runtime calls it before every launch of a
/// multi-block call; a kernel without it does not read its block index.
using KernelSetBlockIdx = void (*)(std::int64_t block_idx);
inline constexpr const char* kKernelSetBlockIdxSymbol = "pypto_kernel_set_block_idx";

}  // namespace pypto::codegen
