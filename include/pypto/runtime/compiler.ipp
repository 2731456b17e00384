// pypto/runtime/compiler.ipp — the definitions of runtime/compiler.hpp.
#pragma once

#include "pypto/runtime/compiler.hpp"

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

PYPTO_DECL const std::vector<std::string>& default_compile_flags() {
  static const std::vector<std::string> flags{"-std=c++20", "-O2", "-fPIC", "-shared",
                                              "-ffp-contract=off"};
  return flags;
}

namespace detail {

inline std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

/// The include root this file was found under: __FILE__ minus "/pypto/runtime/compiler.ipp".
inline std::string include_dir_of_this_header() {
  std::string file = __FILE__;
  constexpr std::string_view tail = "pypto/runtime/compiler.ipp";
  if (file.size() < tail.size() || file.compare(file.size() - tail.size(), tail.size(), tail) != 0)
    return {};
  file.resize(file.size() - tail.size());
  if (file.empty()) file = ".";
  if (file.size() > 1 && file.back() == '/') file.pop_back();
  return files::absolute(file);
}

}  // namespace detail

PYPTO_DECL bool has_kernel_abi(const std::string& include_dir) {
  return files::exists(include_dir + "/pypto/codegen/kernel_abi.hpp");
}

PYPTO_DECL std::string find_include_dir(std::optional<std::string> explicit_dir) {
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

PYPTO_DECL Compiler find_compiler(std::optional<std::string> program,
                                  std::optional<std::string> include_dir) {
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
