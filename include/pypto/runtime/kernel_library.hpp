// pypto/runtime/kernel_library.hpp — one callable per kernel registration: each code compiles
// once, and each callable is built with its own signature.
//
// KernelLibrary::compile checks the whole configuration first (duplicate func_ids,
// registrations of unknown code, one code name for two sources), then compiles and loads each
// referenced code unit once through a CompileCache and builds a Kernel per registration.
// KernelLibrary::from_manifest loads a prebuilt schema-1 manifest, each binary read once and its
// SHA-256 checked before anything is loaded. A Kernel checks each call against its registration
// (tensor count = signature length, ranks, shapes) and packs the arguments per kernel_abi.hpp:
// tensors (as TensorArg addresses), then scalar bits. Lookup by func_id is O(log n).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pypto/codegen/kernel_abi.hpp"
#include "pypto/codegen/kernel_registration.hpp"
#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"
#include "pypto/runtime/compile_cache.hpp"
#include "pypto/runtime/prebuilt_manifest.hpp"
#include "pypto/runtime/shared_library.hpp"

namespace pypto::runtime {

/// A kernel configuration or call the library rejects (duplicate func_id, unknown code, an
/// argument list that does not match the registration's signature, ...).
class KernelLibraryError : public core::ValueError {
 public:
  explicit KernelLibraryError(const std::string& message) : core::ValueError(message) {}
};

/// A kernel call that stopped on a fault (codegen/kernel_abi.hpp's KernelFault): an access outside
/// a tensor, an integer division by zero, ... The outputs of the call are not to be used.
class KernelFaultError : public core::Error {
 public:
  KernelFaultError(const std::string& message, codegen::KernelFault fault)
      : core::Error(message), fault_(fault) {}
  const codegen::KernelFault& fault() const { return fault_; }

 private:
  codegen::KernelFault fault_;
};

/// What `fault` means, in words: "reads/writes 8..24 of dimension 0 (size 16)", "divides by zero".
PYPTO_DECL std::string kernel_fault_text(const codegen::KernelFault& fault);

/// "func_id <id> ('<code>', <core type>, [<directions>])", for messages.
PYPTO_DECL std::string registration_text(const codegen::KernelRegistration& r);

class Kernel {
 public:
  PYPTO_DECL Kernel(codegen::KernelRegistration registration,
                    std::shared_ptr<SharedLibrary> library);

  const codegen::KernelRegistration& registration() const { return registration_; }
  /// The binary this kernel's code was loaded from.
  const std::string& binary() const { return library_->path(); }
  /// The loaded entry point (distinct loads have distinct entries).
  codegen::KernelEntry entry() const { return entry_; }

  /// Runs the kernel: `tensors` in signature order, then `scalars` (their bits), as block
  /// `block_idx` of a launch of `block_num` blocks. A call that faults throws KernelFaultError.
  PYPTO_DECL void operator()(std::span<const codegen::TensorArg> tensors,
                             std::span<const std::uint64_t> scalars, std::int64_t block_idx = 0,
                             std::int64_t block_num = 1) const;

  /// Where the kernel's next calls send their cross-core pushes and pops (nothing for a kernel
  /// without pipe ops).
  PYPTO_DECL void set_pipe(codegen::KernelPipe pipe, void* context) const;
  /// Where its next calls send the distributed ops a rank cannot do alone (null: a world of one
  /// rank; nothing for a kernel without such ops).
  PYPTO_DECL void set_world(codegen::KernelWorld world, void* context) const;

 private:
  [[noreturn]] PYPTO_DECL void fail(const std::string& what) const;
  codegen::KernelRegistration registration_;
  std::shared_ptr<SharedLibrary> library_;
  codegen::KernelEntry entry_ = nullptr;
  codegen::KernelSetBlock set_block_ = nullptr;        ///< optional export
  codegen::KernelFaultRecord fault_record_ = nullptr;  ///< optional export
  codegen::KernelSetPipe set_pipe_ = nullptr;          ///< optional export
  codegen::KernelSetWorld set_world_ = nullptr;        ///< optional export
};

enum class LoadMode : std::uint8_t {
  PerBinary,        ///< one load per binary, shared by the registrations that reference it
  PerRegistration,  ///< a private load per registration: no shared load addresses
};

class KernelLibrary {
 public:
  /// Compiles (through `cache`) each code unit that a registration references, once (equal
  /// code under two names compiles once), and builds one Kernel per registration: its func_id,
  /// its own signature and the entry of its code. Registrations of one generated code share its
  /// load: that code is stateless by construction, and nothing in the runtime is keyed by load
  /// address.
  PYPTO_DECL static KernelLibrary compile(
      CompileCache& cache, const std::vector<CodeUnit>& units,
      const std::vector<codegen::KernelRegistration>& registrations);

  /// Loads a prebuilt manifest: each binary file is read once and its SHA-256 checked before
  /// any load (a missing file or a mismatch is a ManifestError naming the file). By default
  /// each registration then loads its own private copy of the validated bytes, so registrations
  /// that reuse one binary do not share a load address or static state; LoadMode::PerBinary
  /// shares one load per binary.
  PYPTO_DECL static KernelLibrary from_manifest(const PrebuiltManifest& m,
                                                LoadMode mode = LoadMode::PerRegistration);

  const Kernel* find(std::int32_t func_id) const {
    auto it = kernels_.find(func_id);
    return it == kernels_.end() ? nullptr : &it->second;
  }
  PYPTO_DECL const Kernel& at(std::int32_t func_id) const;
  /// The registered func_ids, ascending.
  PYPTO_DECL std::vector<std::int32_t> func_ids() const;
  std::size_t size() const { return kernels_.size(); }
  /// Distinct loaded shared objects behind the kernels.
  std::size_t load_count() const { return load_count_; }

 private:
  PYPTO_DECL static void check_unique_ids(const std::vector<codegen::KernelRegistration>& regs);

  PYPTO_DECL void add(const codegen::KernelRegistration& r, std::shared_ptr<SharedLibrary> load);

  PYPTO_DECL void count_loads();

  std::map<std::int32_t, Kernel> kernels_;
  std::size_t load_count_ = 0;
};

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/kernel_library.ipp"
#endif
