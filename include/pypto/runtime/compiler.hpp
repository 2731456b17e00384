// pypto/runtime/compiler.hpp — the system C++ compiler the CPU runtime builds kernels with: its
// program, its identity (the `--version` and `-dumpmachine` outputs, part of every cache key, so
// a compiler upgrade or another target invalidates the binaries built before), the flags, and
// the pypto include directory that generated code includes <pypto/codegen/kernel_abi.hpp> from.
//
// Lookup order (first that runs wins): an explicit program; $PYPTO_CXX; $CXX; c++; g++; clang++.
// The include directory: an explicit one; $PYPTO_INCLUDE_DIR; the directory the library's
// definitions (compiler.ipp) were compiled from (__FILE__, made absolute). It must hold
// pypto/codegen/kernel_abi.hpp, or the lookup fails with a CompileError that says how to supply it.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"

namespace pypto::runtime {

/// A kernel failed to compile, or no compiler could be set up. `code_name` names the code unit
/// (empty for set-up failures); `diagnostics` is the compiler's output verbatim.
class CompileError : public core::Error {
 public:
  CompileError(std::string code_name, const std::string& message, std::string diagnostics = {})
      : core::Error(compose(code_name, message, diagnostics)),
        code_name_(std::move(code_name)),
        diagnostics_(std::move(diagnostics)) {}

  const std::string& code_name() const { return code_name_; }
  const std::string& diagnostics() const { return diagnostics_; }

 private:
  static std::string compose(const std::string& code, const std::string& message,
                             const std::string& diagnostics) {
    std::string s =
        code.empty() ? "compile: " + message : "compile: kernel '" + code + "': " + message;
    if (!diagnostics.empty()) s += "\n" + diagnostics;
    return s;
  }
  std::string code_name_;
  std::string diagnostics_;
};

/// Strict IEEE float code (no contraction into FMA), position independent, one shared object.
PYPTO_DECL const std::vector<std::string>& default_compile_flags();

struct Compiler {
  std::string program;             ///< as executed (searched on PATH)
  std::string identity;            ///< `program --version` output: enters every cache key
  std::vector<std::string> flags;  ///< enter every cache key
  std::string include_dir;         ///< holds pypto/codegen/kernel_abi.hpp (not in the key:
                                   ///< the content of the headers is)
};

/// True when `include_dir` holds pypto/codegen/kernel_abi.hpp.
PYPTO_DECL bool has_kernel_abi(const std::string& include_dir);

/// The pypto include directory for generated code (see the lookup order above).
PYPTO_DECL std::string find_include_dir(std::optional<std::string> explicit_dir = std::nullopt);

/// Finds a working compiler and reads its identity (see the lookup order above).
PYPTO_DECL Compiler find_compiler(std::optional<std::string> program = std::nullopt,
                                  std::optional<std::string> include_dir = std::nullopt);

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/compiler.ipp"
#endif
