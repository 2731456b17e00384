// pypto/runtime/compiler.hpp — the system C++ compiler the CPU runtime builds kernels with: its
// program, its identity (the `--version` and `-dumpmachine` outputs, part of every cache key, so
// a compiler upgrade or another target invalidates the binaries built before), the flags, and
// the pypto include directory that generated code includes <pypto/codegen/kernel_abi.hpp> from.
//
// Lookup order (first that runs wins): an explicit program; $PYPTO_CXX; $CXX; c++; g++; clang++.
// The include directory: an explicit one; $PYPTO_INCLUDE_DIR; the directory this header was
// included from (__FILE__, made absolute). It must hold pypto/codegen/kernel_abi.hpp, or the
// lookup fails with a CompileError that says how to supply it.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"
#include "pypto/runtime/files.hpp"
#include "pypto/runtime/process.hpp"

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
inline const std::vector<std::string>& default_compile_flags() {
  static const std::vector<std::string> flags{"-std=c++20", "-O2", "-fPIC", "-shared",
                                              "-ffp-contract=off"};
  return flags;
}

struct Compiler {
  std::string program;             ///< as executed (searched on PATH)
  std::string identity;            ///< `program --version` output: enters every cache key
  std::vector<std::string> flags;  ///< enter every cache key
  std::string include_dir;         ///< holds pypto/codegen/kernel_abi.hpp (not in the key:
                                   ///< the content of the headers is)
};

namespace detail {

inline std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

/// The include root this header was found under: __FILE__ minus "/pypto/runtime/compiler.hpp".
inline std::string include_dir_of_this_header() {
  std::string file = __FILE__;
  constexpr std::string_view tail = "pypto/runtime/compiler.hpp";
  if (file.size() < tail.size() || file.compare(file.size() - tail.size(), tail.size(), tail) != 0)
    return {};
  file.resize(file.size() - tail.size());
  if (file.empty()) file = ".";
  if (file.size() > 1 && file.back() == '/') file.pop_back();
  return files::absolute(file);
}

}  // namespace detail

inline bool has_kernel_abi(const std::string& include_dir) {
  return files::exists(include_dir + "/pypto/codegen/kernel_abi.hpp");
}

/// The pypto include directory for generated code (see the lookup order above).
inline std::string find_include_dir(std::optional<std::string> explicit_dir = std::nullopt) {
  std::vector<std::string> tried;
  std::vector<std::string> candidates;
  if (explicit_dir) {
    candidates.push_back(*explicit_dir);
  } else {
    if (auto e = detail::env("PYPTO_INCLUDE_DIR"); !e.empty()) candidates.push_back(e);
    if (auto d = detail::include_dir_of_this_header(); !d.empty()) candidates.push_back(d);
  }
  for (const auto& c : candidates) {
    if (has_kernel_abi(c)) return c;
    tried.push_back(c);
  }
  std::string list;
  for (const auto& t : tried) list += " '" + t + "'";
  throw CompileError({},
                     "cannot find the pypto include directory (pypto/codegen/kernel_abi.hpp "
                     "is not under" +
                         (list.empty() ? std::string(" any candidate") : list) +
                         "); pass it explicitly or set PYPTO_INCLUDE_DIR");
}

/// Finds a working compiler and reads its identity (see the lookup order above).
inline Compiler find_compiler(std::optional<std::string> program = std::nullopt,
                              std::optional<std::string> include_dir = std::nullopt) {
  std::vector<std::string> candidates;
  if (program) {
    candidates.push_back(*program);
  } else {
    for (const char* var : {"PYPTO_CXX", "CXX"})
      if (auto e = detail::env(var); !e.empty()) candidates.push_back(e);
    for (const char* name : {"c++", "g++", "clang++"}) candidates.emplace_back(name);
  }
  std::string failures;
  for (const auto& c : candidates) {
    ProcessResult r = run_process({c, "--version"});
    if (r.ok() && !r.output.empty()) {
      Compiler out;
      out.program = c;
      out.identity = std::move(r.output);
      // The target triple too: part of the binary's context (clang prints it, gcc does not).
      if (ProcessResult m = run_process({c, "-dumpmachine"}); m.ok())
        out.identity += "target: " + m.output;
      out.flags = default_compile_flags();
      out.include_dir = find_include_dir(std::move(include_dir));
      return out;
    }
    failures += "\n  " + c + ": " + (r.started ? "`--version` failed" : r.output);
  }
  throw CompileError({}, "no working C++ compiler found; tried:" + failures);
}

}  // namespace pypto::runtime
