// pypto/runtime/shared_library.ipp — the definitions of runtime/shared_library.hpp.
#pragma once

#include "pypto/runtime/shared_library.hpp"

#include <dlfcn.h>

#include <memory>
#include <string>
#include <string_view>

#include "pypto/core/error.hpp"
#include "pypto/runtime/files.hpp"

namespace pypto::runtime {

PYPTO_DECL SharedLibrary::~SharedLibrary() {
  if (handle_) ::dlclose(handle_);
}

PYPTO_DECL std::shared_ptr<SharedLibrary> SharedLibrary::open(const std::string& path) {
  ::dlerror();
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw LoadError("cannot load '" + path + "': " + last_error());
  return std::shared_ptr<SharedLibrary>(new SharedLibrary(h, path));
}

PYPTO_DECL std::shared_ptr<SharedLibrary> SharedLibrary::open_private(std::string_view bytes,
                                                                      const std::string& dir,
                                                                      const std::string& label) {
  files::ScopedFile copy(files::make_unique_file(dir, ".pypto-load-", ".so"));
  files::write_atomic(copy.path(), bytes);
  ::dlerror();
  void* h = ::dlopen(copy.path().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw LoadError("cannot load '" + label + "': " + last_error());
  return std::shared_ptr<SharedLibrary>(new SharedLibrary(h, label));
}

PYPTO_DECL void* SharedLibrary::symbol(const char* name) const {
  ::dlerror();
  void* p = ::dlsym(handle_, name);
  if (!p) throw LoadError("'" + path_ + "' does not export '" + name + "': " + last_error());
  return p;
}

PYPTO_DECL void* SharedLibrary::find_symbol(const char* name) const {
  return ::dlsym(handle_, name);
}

PYPTO_DECL std::string SharedLibrary::last_error() {
  const char* e = ::dlerror();
  return e ? std::string(e) : std::string("unknown loader error");
}

}  // namespace pypto::runtime
