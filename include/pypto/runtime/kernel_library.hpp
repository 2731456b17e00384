// pypto/runtime/kernel_library.hpp — one callable per kernel registration (seed 001, "Code and
// registration identity": compile each code once, build each callable with its own signature).
//
// KernelLibrary::compile takes code units and KernelRegistrations: it checks the whole
// configuration first (duplicate func_ids, registrations of unknown code, one code name for two
// sources), then compiles and loads each referenced code unit once through a CompileCache (equal
// code under two names compiles once) and builds a Kernel per registration: its func_id, its own
// signature and the entry of its code. Registrations of one generated code share its load: that
// code is stateless by construction, and nothing in the runtime is keyed by load address.
//
// KernelLibrary::from_manifest loads a prebuilt schema-1 manifest: each binary file is read once
// and its SHA-256 checked before anything is loaded (a missing file or a mismatch names the file).
// By default each registration then loads its own private copy of the validated bytes, so
// registrations that reuse one binary do not share a load address or static state — "binary
// reuse does not imply shared load addresses". LoadMode::PerBinary shares one load per binary.
//
// A Kernel checks each call against its registration (tensor count = signature length, ranks,
// shapes) and packs the arguments per kernel_abi.hpp: tensors (as TensorArg addresses), then
// scalar bits. Lookup by func_id is O(log n).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pypto/codegen/kernel_abi.hpp"
#include "pypto/codegen/kernel_registration.hpp"
#include "pypto/core/error.hpp"
#include "pypto/runtime/compile_cache.hpp"
#include "pypto/runtime/files.hpp"
#include "pypto/runtime/prebuilt_manifest.hpp"
#include "pypto/runtime/sha256.hpp"
#include "pypto/runtime/shared_library.hpp"

namespace pypto::runtime {

/// A kernel configuration or call the library rejects (duplicate func_id, unknown code, an
/// argument list that does not match the registration's signature, ...).
class KernelLibraryError : public core::ValueError {
 public:
  explicit KernelLibraryError(const std::string& message) : core::ValueError(message) {}
};

inline std::string registration_text(const codegen::KernelRegistration& r) {
  std::string sig;
  for (std::size_t k = 0; k < r.signature.size(); ++k)
    sig +=
        std::string(k ? ", " : "") + std::string(codegen::runtime_direction_name(r.signature[k]));
  return "func_id " + std::to_string(r.func_id) + " ('" + r.code_name + "', " +
         std::string(codegen::core_type_name(r.core_type)) + ", [" + sig + "])";
}

class Kernel {
 public:
  Kernel(codegen::KernelRegistration registration, std::shared_ptr<SharedLibrary> library)
      : registration_(std::move(registration)), library_(std::move(library)) {
    try {
      entry_ =
          reinterpret_cast<codegen::KernelEntry>(library_->symbol(codegen::kKernelEntrySymbol));
    } catch (const LoadError& e) {
      throw LoadError("kernel " + registration_text(registration_) + ": " + e.what());
    }
    set_block_idx_ = reinterpret_cast<codegen::KernelSetBlockIdx>(
        library_->find_symbol(codegen::kKernelSetBlockIdxSymbol));
  }

  const codegen::KernelRegistration& registration() const { return registration_; }
  /// The binary this kernel's code was loaded from.
  const std::string& binary() const { return library_->path(); }
  /// The loaded entry point (distinct loads have distinct entries).
  codegen::KernelEntry entry() const { return entry_; }

  /// Runs the kernel: `tensors` in signature order, then `scalars` (their bits), as block
  /// `block_idx` of its launch.
  void operator()(std::span<const codegen::TensorArg> tensors,
                  std::span<const std::uint64_t> scalars, std::int64_t block_idx = 0) const {
    if (tensors.size() != registration_.signature.size())
      fail("takes " + std::to_string(registration_.signature.size()) + " tensors, got " +
           std::to_string(tensors.size()));
    std::vector<codegen::TensorArg> local(tensors.begin(), tensors.end());
    std::vector<std::uint64_t> packed;
    packed.reserve(tensors.size() + scalars.size());
    for (std::size_t k = 0; k < local.size(); ++k) {
      const codegen::TensorArg& t = local[k];
      if (t.rank < 0 || t.rank > codegen::kKernelAbiMaxRank)
        fail("tensor " + std::to_string(k) + " has rank " + std::to_string(t.rank) + " (0 to " +
             std::to_string(codegen::kKernelAbiMaxRank) + ")");
      std::int64_t elements = 1;
      for (std::int64_t d = 0; d < t.rank; ++d) {
        if (t.shape[d] < 0)
          fail("tensor " + std::to_string(k) + " has a negative dimension " + std::to_string(d));
        elements *= t.shape[d];
      }
      if (!t.data && elements != 0) fail("tensor " + std::to_string(k) + " has no data");
      packed.push_back(reinterpret_cast<std::uintptr_t>(&local[k]));
    }
    packed.insert(packed.end(), scalars.begin(), scalars.end());
    if (set_block_idx_) set_block_idx_(block_idx);
    entry_(packed.data());
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw KernelLibraryError("kernel " + registration_text(registration_) + ": " + what);
  }
  codegen::KernelRegistration registration_;
  std::shared_ptr<SharedLibrary> library_;
  codegen::KernelEntry entry_ = nullptr;
  codegen::KernelSetBlockIdx set_block_idx_ = nullptr;  ///< optional export
};

enum class LoadMode : std::uint8_t {
  PerBinary,        ///< one load per binary, shared by the registrations that reference it
  PerRegistration,  ///< a private load per registration: no shared load addresses
};

class KernelLibrary {
 public:
  /// Compiles (through `cache`) each code unit that a registration references, once, and builds
  /// one Kernel per registration.
  static KernelLibrary compile(CompileCache& cache, const std::vector<CodeUnit>& units,
                               const std::vector<codegen::KernelRegistration>& registrations) {
    std::map<std::string, const CodeUnit*> by_name;
    for (const CodeUnit& u : units) {
      auto [it, fresh] = by_name.emplace(u.code_name, &u);
      if (!fresh && (it->second->source != u.source || it->second->origin != u.origin ||
                     it->second->extra_flags != u.extra_flags))
        throw KernelLibraryError("code '" + u.code_name +
                                 "' is given twice with different content");
    }
    check_unique_ids(registrations);
    for (const auto& r : registrations)
      if (!by_name.count(r.code_name))
        throw KernelLibraryError("registration " + registration_text(r) + " references code '" +
                                 r.code_name + "', which is not among the code units");
    KernelLibrary lib;
    std::map<std::string, std::shared_ptr<SharedLibrary>> loads;  // by code name
    for (const CodeUnit& u : units) {
      if (loads.count(u.code_name)) continue;
      bool used = false;
      for (const auto& r : registrations) used = used || r.code_name == u.code_name;
      if (used) loads[u.code_name] = cache.load(u);
    }
    for (const auto& r : registrations) lib.add(r, loads.at(r.code_name));
    lib.count_loads();
    return lib;
  }

  /// Loads a prebuilt manifest: every binary's checksum is checked before any load.
  static KernelLibrary from_manifest(const PrebuiltManifest& m,
                                     LoadMode mode = LoadMode::PerRegistration) {
    check_unique_ids(m.registrations);
    std::vector<std::string> bytes;
    for (const PrebuiltBinary& b : m.binaries) {
      auto content = files::try_read(b.path);
      if (!content)
        throw ManifestError("prebuilt binary '" + b.file + "' (" + b.path +
                            ") cannot be read: " + files::errno_text(errno));
      const std::string actual = sha256_hex(*content);
      if (actual != b.sha256)
        throw ManifestError("prebuilt binary '" + b.file + "' fails its checksum: sha256 is " +
                            actual + ", the manifest says " + b.sha256);
      bytes.push_back(std::move(*content));
    }
    KernelLibrary lib;
    const TempDir scratch("pypto-load-");  // private copies are unlinked once loaded
    std::vector<std::shared_ptr<SharedLibrary>> shared(m.binaries.size());
    for (std::size_t k = 0; k < m.registrations.size(); ++k) {
      const std::size_t b = m.binary_of.at(k);
      std::shared_ptr<SharedLibrary> load;
      if (mode == LoadMode::PerRegistration) {
        load = SharedLibrary::open_private(bytes[b], scratch.path(), m.binaries[b].path);
      } else {
        if (!shared[b])
          shared[b] = SharedLibrary::open_private(bytes[b], scratch.path(), m.binaries[b].path);
        load = shared[b];
      }
      lib.add(m.registrations[k], std::move(load));
    }
    lib.count_loads();
    return lib;
  }

  const Kernel* find(std::int32_t func_id) const {
    auto it = kernels_.find(func_id);
    return it == kernels_.end() ? nullptr : &it->second;
  }
  const Kernel& at(std::int32_t func_id) const {
    if (const Kernel* k = find(func_id)) return *k;
    throw KernelLibraryError("no kernel registered with func_id " + std::to_string(func_id));
  }
  /// The registered func_ids, ascending.
  std::vector<std::int32_t> func_ids() const {
    std::vector<std::int32_t> out;
    for (const auto& [id, k] : kernels_) out.push_back(id);
    return out;
  }
  std::size_t size() const { return kernels_.size(); }
  /// Distinct loaded shared objects behind the kernels.
  std::size_t load_count() const { return load_count_; }

 private:
  static void check_unique_ids(const std::vector<codegen::KernelRegistration>& regs) {
    std::map<std::int32_t, const codegen::KernelRegistration*> seen;
    for (const auto& r : regs) {
      auto [it, fresh] = seen.emplace(r.func_id, &r);
      if (!fresh)
        throw KernelLibraryError("duplicate func_id " + std::to_string(r.func_id) + ": " +
                                 registration_text(*it->second) + " and " + registration_text(r));
    }
  }

  void add(const codegen::KernelRegistration& r, std::shared_ptr<SharedLibrary> load) {
    kernels_.emplace(r.func_id, Kernel(r, std::move(load)));
  }

  void count_loads() {
    std::set<std::uintptr_t> entries;  // distinct loads have distinct entry addresses
    for (const auto& [id, k] : kernels_)
      entries.insert(reinterpret_cast<std::uintptr_t>(k.entry()));
    load_count_ = entries.size();
  }

  std::map<std::int32_t, Kernel> kernels_;
  std::size_t load_count_ = 0;
};

}  // namespace pypto::runtime
