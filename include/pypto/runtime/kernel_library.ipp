// pypto/runtime/kernel_library.ipp — the definitions of runtime/kernel_library.hpp.
#pragma once

#include "pypto/runtime/kernel_library.hpp"

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

PYPTO_DECL std::string registration_text(const codegen::KernelRegistration& r) {
  std::string sig;
  for (std::size_t k = 0; k < r.signature.size(); ++k)
    sig +=
        std::string(k ? ", " : "") + std::string(codegen::runtime_direction_name(r.signature[k]));
  return "func_id " + std::to_string(r.func_id) + " ('" + r.code_name + "', " +
         std::string(codegen::core_type_name(r.core_type)) + ", [" + sig + "])";
}

PYPTO_DECL Kernel::Kernel(codegen::KernelRegistration registration,
                          std::shared_ptr<SharedLibrary> library)
    : registration_(std::move(registration)), library_(std::move(library)) {
  try {
    entry_ = reinterpret_cast<codegen::KernelEntry>(library_->symbol(codegen::kKernelEntrySymbol));
  } catch (const LoadError& e) {
    throw LoadError("kernel " + registration_text(registration_) + ": " + e.what());
  }
  set_block_ = reinterpret_cast<codegen::KernelSetBlock>(
      library_->find_symbol(codegen::kKernelSetBlockSymbol));
  fault_record_ = reinterpret_cast<codegen::KernelFaultRecord>(
      library_->find_symbol(codegen::kKernelFaultSymbol));
  set_pipe_ = reinterpret_cast<codegen::KernelSetPipe>(
      library_->find_symbol(codegen::kKernelSetPipeSymbol));
  set_world_ = reinterpret_cast<codegen::KernelSetWorld>(
      library_->find_symbol(codegen::kKernelSetWorldSymbol));
}

PYPTO_DECL void Kernel::set_pipe(codegen::KernelPipe pipe, void* context) const {
  if (set_pipe_) set_pipe_(pipe, context);
}

PYPTO_DECL void Kernel::set_world(codegen::KernelWorld world, void* context) const {
  if (set_world_) set_world_(world, context);
}

PYPTO_DECL std::string kernel_fault_text(const codegen::KernelFault& f) {
  using K = codegen::KernelFaultKind;
  switch (f.kind) {
    case K::None: return "no fault";
    case K::OutOfBounds:
      return "accesses " + std::to_string(f.offset) + ".." + std::to_string(f.offset + f.extent) +
             " of dimension " + std::to_string(f.dim) + ", outside its tensor (size " +
             std::to_string(f.size) + ")";
    case K::DivisionByZero: return "divides an integer by zero";
    case K::ShiftOutOfRange: return "shifts by " + std::to_string(f.offset) + ", out of range";
    case K::NegativeExponent:
      return "raises an integer to the negative power " + std::to_string(f.offset);
    case K::InvalidOperand: return "gets the invalid operand " + std::to_string(f.offset);
    case K::ShapeMismatch: return "gets operands whose shapes do not fit together";
    case K::PipeFailed: return "has a cross-core push or pop, or a syncall, refused";
    case K::OutsideWorld:
      return "names rank " + std::to_string(f.offset) +
             ", outside the world of one rank a single process runs (rank 0)";
    case K::WaitNeverMet:
      return "waits for a signal that holds " + std::to_string(f.offset) + " to reach " +
             std::to_string(f.extent) +
             ": no other rank runs in a world of one rank, so it never would (a deadlock)";
  }
  return "faults (kind " + std::to_string(static_cast<std::int64_t>(f.kind)) + ")";
}

PYPTO_DECL void Kernel::operator()(std::span<const codegen::TensorArg> tensors,
                                   std::span<const std::uint64_t> scalars, std::int64_t block_idx,
                                   std::int64_t block_num) const {
  if (tensors.size() != registration_.signature.size())
    fail("takes " + std::to_string(registration_.signature.size()) + " tensors, got " +
         std::to_string(tensors.size()));
  std::vector<codegen::TensorArg> local(tensors.begin(), tensors.end());
  // An empty tensor still gets one element of storage: a faulting element access reads or
  // writes position 0 (kernel_helpers.hpp).
  std::uint64_t empty_storage = 0;
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
    if (elements == 0) local[k].data = &empty_storage;
    packed.push_back(reinterpret_cast<std::uintptr_t>(&local[k]));
  }
  packed.insert(packed.end(), scalars.begin(), scalars.end());
  if (set_block_) set_block_(block_idx, block_num);
  codegen::KernelFault* fault = fault_record_ ? fault_record_() : nullptr;
  if (fault) *fault = {};
  entry_(packed.data());
  if (fault && fault->kind != codegen::KernelFaultKind::None)
    throw KernelFaultError(
        "kernel " + registration_text(registration_) + ": " + kernel_fault_text(*fault), *fault);
}

PYPTO_DECL void Kernel::fail(const std::string& what) const {
  throw KernelLibraryError("kernel " + registration_text(registration_) + ": " + what);
}

PYPTO_DECL KernelLibrary
KernelLibrary::compile(CompileCache& cache, const std::vector<CodeUnit>& units,
                       const std::vector<codegen::KernelRegistration>& registrations) {
  std::map<std::string, const CodeUnit*> by_name;
  for (const CodeUnit& u : units) {
    auto [it, fresh] = by_name.emplace(u.code_name, &u);
    if (!fresh && (it->second->source != u.source || it->second->origin != u.origin ||
                   it->second->extra_flags != u.extra_flags))
      throw KernelLibraryError("code '" + u.code_name + "' is given twice with different content");
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

PYPTO_DECL KernelLibrary KernelLibrary::from_manifest(const PrebuiltManifest& m, LoadMode mode) {
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

PYPTO_DECL const Kernel& KernelLibrary::at(std::int32_t func_id) const {
  if (const Kernel* k = find(func_id)) return *k;
  throw KernelLibraryError("no kernel registered with func_id " + std::to_string(func_id));
}

PYPTO_DECL std::vector<std::int32_t> KernelLibrary::func_ids() const {
  std::vector<std::int32_t> out;
  for (const auto& [id, k] : kernels_) out.push_back(id);
  return out;
}

PYPTO_DECL void KernelLibrary::check_unique_ids(
    const std::vector<codegen::KernelRegistration>& regs) {
  std::map<std::int32_t, const codegen::KernelRegistration*> seen;
  for (const auto& r : regs) {
    auto [it, fresh] = seen.emplace(r.func_id, &r);
    if (!fresh)
      throw KernelLibraryError("duplicate func_id " + std::to_string(r.func_id) + ": " +
                               registration_text(*it->second) + " and " + registration_text(r));
  }
}

PYPTO_DECL void KernelLibrary::add(const codegen::KernelRegistration& r,
                                   std::shared_ptr<SharedLibrary> load) {
  kernels_.emplace(r.func_id, Kernel(r, std::move(load)));
}

PYPTO_DECL void KernelLibrary::count_loads() {
  std::set<std::uintptr_t> entries;  // distinct loads have distinct entry addresses
  for (const auto& [id, k] : kernels_) entries.insert(reinterpret_cast<std::uintptr_t>(k.entry()));
  load_count_ = entries.size();
}

}  // namespace pypto::runtime
