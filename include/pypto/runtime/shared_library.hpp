// pypto/runtime/shared_library.hpp — a loaded shared object (dlopen RAII) and its symbols.
//
// open() loads a file by path: the dynamic loader shares one load per path (and per file
// identity) in a process, so opening one path twice yields one load address. open_private()
// loads a private copy of the given bytes (a unique file, unlinked right after dlopen), so the
// load has its own address and its own static state — how the runtime keeps "binary reuse does
// not imply shared load addresses" (seed 001) for a prebuilt binary that several registrations
// reference. Errors are LoadError with the loader's message; never a crash on a bad file.
#pragma once

#include <dlfcn.h>

#include <memory>
#include <string>
#include <string_view>

#include "pypto/core/error.hpp"
#include "pypto/runtime/files.hpp"

namespace pypto::runtime {

class LoadError : public core::Error {
 public:
  explicit LoadError(const std::string& message) : core::Error(message) {}
};

class SharedLibrary {
 public:
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary() {
    if (handle_) ::dlclose(handle_);
  }

  /// Loads `path` (RTLD_NOW: unresolved symbols fail here, not at the first call; RTLD_LOCAL:
  /// kernels never see each other's symbols).
  static std::shared_ptr<SharedLibrary> open(const std::string& path) {
    ::dlerror();
    void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw LoadError("cannot load '" + path + "': " + last_error());
    return std::shared_ptr<SharedLibrary>(new SharedLibrary(h, path));
  }

  /// Loads a private copy of `bytes` written to a unique file in `dir`; `label` names the
  /// original in messages. The copy is unlinked once loaded (the mapping stays valid).
  static std::shared_ptr<SharedLibrary> open_private(std::string_view bytes, const std::string& dir,
                                                     const std::string& label) {
    files::ScopedFile copy(files::make_unique_file(dir, ".pypto-load-", ".so"));
    files::write_atomic(copy.path(), bytes);
    ::dlerror();
    void* h = ::dlopen(copy.path().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw LoadError("cannot load '" + label + "': " + last_error());
    return std::shared_ptr<SharedLibrary>(new SharedLibrary(h, label));
  }

  /// The address of `name`, or a LoadError naming the library.
  void* symbol(const char* name) const {
    ::dlerror();
    void* p = ::dlsym(handle_, name);
    if (!p) throw LoadError("'" + path_ + "' does not export '" + name + "': " + last_error());
    return p;
  }

  /// The address of `name`, or null when the library does not export it.
  void* find_symbol(const char* name) const { return ::dlsym(handle_, name); }

  const std::string& path() const { return path_; }

 private:
  SharedLibrary(void* h, std::string path) : handle_(h), path_(std::move(path)) {}
  static std::string last_error() {
    const char* e = ::dlerror();
    return e ? std::string(e) : std::string("unknown loader error");
  }
  void* handle_;
  std::string path_;
};

}  // namespace pypto::runtime
