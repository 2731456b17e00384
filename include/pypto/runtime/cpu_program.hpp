// pypto/runtime/cpu_program.hpp — a program whose code was generated for CpuTarget, compiled
// and ready to run: the bridge from codegen's OrchestrationResult to the kernel library and the
// program runner.
//
// Every code unit the registrations reference is compiled once through the cache (its
// identity: the generated source); each registration gets its own callable. The orchestration
// runs through the interpreter with kernel launches dispatched to the callables: a kernel
// function runs the code unit codegen assigned it, through the registration of that code with
// the lowest func_id (registrations of one code differ only in their tensor signature, which the
// CPU entry does not depend on).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/codegen/registration_code_map.hpp"
#include "pypto/core/config.hpp"
#include "pypto/runtime/compile_cache.hpp"
#include "pypto/runtime/interpreter.hpp"
#include "pypto/runtime/kernel_library.hpp"

namespace pypto::ir {
struct Program;
}  // namespace pypto::ir

namespace pypto::codegen {
struct OrchestrationResult;
}  // namespace pypto::codegen

namespace pypto::runtime {

class CpuProgram {
 public:
  /// Compiles `code` (codegen<CpuTarget>(program, ..., &codes)) through `cache`. `program` must
  /// outlive the result.
  PYPTO_DECL static CpuProgram compile(CompileCache& cache, const ir::Program& program,
                                       const codegen::OrchestrationResult& code,
                                       const codegen::KernelCodeMap& codes);

  /// Runs `function` on `args` (shared buffers: Out / InOut writes show in `args`), a
  /// distributed program's devices as `world_size` ranks (RunOptions::world_size).
  PYPTO_DECL std::vector<Value> run(std::string_view function, std::vector<Value> args,
                                    std::int64_t world_size = 1) const;

  const KernelLibrary& library() const { return library_; }
  const std::map<std::string, std::int32_t>& func_ids() const { return func_ids_; }

 private:
  CpuProgram(const ir::Program& program, KernelLibrary library,
             std::map<std::string, std::int32_t> func_ids)
      : program_(&program), library_(std::move(library)), func_ids_(std::move(func_ids)) {}

  const ir::Program* program_;
  KernelLibrary library_;
  std::map<std::string, std::int32_t> func_ids_;
};

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/cpu_program.ipp"
#endif
