// pypto/runtime/shared_library.hpp — a loaded shared object (dlopen RAII) and its symbols.
//
// open() loads a file by path: the dynamic loader shares one load per path (and per file
// identity) in a process, so opening one path twice yields one load address. open_private()
// loads a private copy of the given bytes (a unique file, unlinked right after dlopen), so the
// load has its own address and its own static state: binary reuse does not imply shared load
// addresses, for a prebuilt binary that several registrations reference. Errors are LoadError
// with the loader's message; never a crash on a bad file.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"

namespace pypto::runtime {

class LoadError : public core::Error {
 public:
  explicit LoadError(const std::string& message) : core::Error(message) {}
};

class SharedLibrary {
 public:
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  PYPTO_DECL ~SharedLibrary();

  /// Loads `path` (RTLD_NOW: unresolved symbols fail here, not at the first call; RTLD_LOCAL:
  /// kernels never see each other's symbols).
  PYPTO_DECL static std::shared_ptr<SharedLibrary> open(const std::string& path);

  /// Loads a private copy of `bytes` written to a unique file in `dir`; `label` names the
  /// original in messages. The copy is unlinked once loaded (the mapping stays valid).
  PYPTO_DECL static std::shared_ptr<SharedLibrary> open_private(std::string_view bytes,
                                                                const std::string& dir,
                                                                const std::string& label);

  /// The address of `name`, or a LoadError naming the library.
  PYPTO_DECL void* symbol(const char* name) const;

  /// The address of `name`, or null when the library does not export it.
  PYPTO_DECL void* find_symbol(const char* name) const;

  const std::string& path() const { return path_; }

 private:
  SharedLibrary(void* h, std::string path) : handle_(h), path_(std::move(path)) {}
  PYPTO_DECL static std::string last_error();
  void* handle_;
  std::string path_;
};

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/shared_library.ipp"
#endif
