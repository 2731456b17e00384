// pypto/runtime/program_runner.hpp — runs a whole program on host tensors with its kernels
// executed by compiled code (loops, ifs, calls and submits in program order, dependencies
// honoured).
//
// The reference interpreter (interpreter.hpp) executes the orchestration: control flow, scalar
// code, tensor ops on the host. Its call hook sends every Call / Submit of an InCore, AIC or AIV
// function to the Kernel of that function's registration (kernel function name -> func_id, a
// mapping the caller gives, e.g. from codegen). Execution is sequential in program order, which
// satisfies every Submit dependency. A kernel called with a block count (core_num) runs once per
// block, told its block index through the kernel's set-block-index export (kernel_abi.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/codegen/kernel_abi.hpp"
#include "pypto/codegen/kernel_source.hpp"
#include "pypto/core/config.hpp"
#include "pypto/core/dtype.hpp"
#include "pypto/runtime/interpreter.hpp"
#include "pypto/runtime/kernel_library.hpp"
#include "pypto/transforms/return_lineage.hpp"

namespace pypto::ir {
struct Call;
struct Function;
struct Program;
}  // namespace pypto::ir

namespace pypto::runtime {

class ProgramRunner {
 public:
  /// `func_ids` maps each kernel function's name to its registration's func_id. The program and
  /// library must outlive the runner.
  ProgramRunner(const ir::Program& program, const KernelLibrary& library,
                std::map<std::string, std::int32_t> func_ids)
      : program_(program), library_(library), func_ids_(std::move(func_ids)), lineage_(&program) {}

  /// Runs `function` (usually the Orchestration function) on `args`, like runtime::run.
  /// Arguments are marshalled per kernel_abi.hpp: FP32 tensors by address; integer and BOOL
  /// tensors through a packed buffer of the dtype's width (BOOL: one byte), FP16 and BF16
  /// tensors through a buffer of their 16-bit patterns (a host value that is not one of the
  /// dtype's, which the interpreter never makes, is a RuntimeError), each copied back only into
  /// OUT / INOUT tensors of the signature (an IN tensor is never written back); scalars as their
  /// bits. A kernel's results are the parameters it returns (its return lineage,
  /// transforms/return_lineage.hpp): a kernel that returns anything else cannot run compiled
  /// and is a RuntimeError naming it, as is a kernel without a registration.
  PYPTO_DECL std::vector<Value> run(std::string_view function, std::vector<Value> args,
                                    std::int64_t world_size = 1);

  /// Kernel launches so far (one per block of a multi-block call).
  std::size_t kernel_calls() const { return kernel_calls_; }

 private:
  [[noreturn]] PYPTO_DECL static void fail(const ir::Function& fn, const std::string& what);
  PYPTO_DECL static std::optional<codegen::HalfFormat> half_format(core::DataType t);
  PYPTO_DECL static std::size_t element_bytes(const ir::Function& fn, core::DataType t);

  /// Integer elements of `b` packed at their dtype's width (little or big endian: native);
  /// FP16 / BF16 elements as their 16-bit patterns, exactly.
  PYPTO_DECL static std::vector<unsigned char> pack(const ir::Function& fn, const Buffer& b,
                                                    std::size_t width);

  /// The packed elements back into `b`, sign- or zero-extended per its dtype.
  PYPTO_DECL static void unpack(const std::vector<unsigned char>& in, std::size_t width, Buffer& b);

  PYPTO_DECL std::vector<Value> call_kernel(const ir::Function& fn, std::vector<Value>& args,
                                            std::int64_t block_idx, std::int64_t block_num);

  /// A tensor argument packed for the kernel (integer and 16-bit float elements at their width).
  struct Staged {
    Buffer* buffer;
    std::size_t width;
    std::vector<unsigned char> bytes;
    std::size_t tensor_index;
  };

  /// What a running kernel's requests reach: the kernel, its arguments as the interpreter holds
  /// them (`args`) and as the kernel sees them (`tensors`, whose k-th is `args[tensor_args[k]]`;
  /// `staged` the packed ones). An error is kept here, for the runner to raise when the kernel
  /// returns, and the kernel told false.
  struct KernelCall {
    ProgramRunner* runner;
    const ir::Function* fn;
    std::exception_ptr error;
    std::vector<Value>* args = nullptr;
    const std::vector<codegen::TensorArg>* tensors = nullptr;
    std::vector<std::size_t> tensor_args;
    std::vector<Staged>* staged = nullptr;
  };

  /// A kernel's cross-core pushes and pops, to the pipes of the mixed task the calling thread
  /// runs a member of (mixed_task.hpp); `context` is the calling kernel's KernelCall.
  PYPTO_DECL static bool pipe_entry(void* context, std::int64_t op, std::int64_t id,
                                    codegen::PipeTile* tile);
  /// A kernel's syncall: the barrier of the mixed task of blocks the calling thread runs a
  /// member of; none, a launch of one block: nothing to wait for.
  PYPTO_DECL static bool sync_all(KernelCall& call);

  /// A kernel's distributed op on a peer (kernel_abi.hpp's WorldOp), done by the rank the
  /// calling thread runs (interpreter.hpp's RankPort): the op is the kernel's call at the
  /// request's site, its window the kernel's argument the request names.
  PYPTO_DECL static bool world_entry(void* context, std::int64_t op, codegen::WorldCall* w);
  PYPTO_DECL static void world_request(KernelCall& call, RankPort& port, codegen::WorldOp op,
                                       codegen::WorldCall& w);
  /// The argument a kernel's tensor descriptor stands for (the one whose data it holds), or
  /// null.
  PYPTO_DECL static const Value* argument(const KernelCall& call, const codegen::TensorArg* t);
  /// The call at a kernel's fault site (kernel_source.hpp), lowered once per function.
  PYPTO_DECL const ir::Call& site_call(const ir::Function& fn, std::int64_t site);
  /// The kernel's packed tensors into the interpreter's buffers (before other ranks run), and
  /// back (after: what peers wrote into its windows).
  PYPTO_DECL static void unpack_all(KernelCall& call);
  PYPTO_DECL static void repack_all(KernelCall& call);

  std::map<std::string, std::vector<codegen::KernelFaultSite>, std::less<>> sites_;
  const ir::Program& program_;
  const KernelLibrary& library_;
  std::map<std::string, std::int32_t> func_ids_;
  transforms::ReturnLineage lineage_;
  std::size_t kernel_calls_ = 0;
};

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/program_runner.ipp"
#endif
