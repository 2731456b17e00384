// pypto/runtime/compile_cache.hpp — compiles each code unit once per cache directory.
//
// A code unit is a kernel's source and its compilation identity kind; its key (key()) hashes
// everything the binary depends on but not the code name: two names for equal code share one
// binary. Layout: <dir>/<key>.so and <dir>/<key>.so.sha256 (the SHA-256 of the .so). A binary is
// reused only when its checksum matches the sidecar; a missing sidecar, a mismatch (a stale or
// corrupted file) or a load failure rebuilds it once. Compilation is atomic (a unique scratch
// directory in <dir>, renamed into place on success, removed on any failure), so the directory
// never holds a half-written binary. Reading a valid entry is O(size of the binary). A cache
// object is for one thread at a time; several processes may share a directory. A prelude that
// many units begin with (share_prelude) is compiled once per compiler and flags into a
// precompiled header beside them, <dir>/prelude-<key>.hpp and its .gch (g++) or .pch (clang++);
// it changes how long a compile takes, never what a binary computes. See docs/runtime.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/runtime/compiler.hpp"
#include "pypto/runtime/shared_library.hpp"

namespace pypto::runtime {

/// Where a code unit comes from. Each kind is its own compilation identity.
enum class CodeOrigin : std::uint8_t {
  Generated = 0,
  External = 1,
  BuiltinTemplate = 2,
  Legacy = 3
};

constexpr std::string_view code_origin_name(CodeOrigin o) {
  switch (o) {
    case CodeOrigin::Generated: return "generated";
    case CodeOrigin::External: return "external";
    case CodeOrigin::BuiltinTemplate: return "builtin-template";
    case CodeOrigin::Legacy: return "legacy";
  }
  return "?";
}

struct CodeUnit {
  std::string code_name;
  std::string source;
  CodeOrigin origin = CodeOrigin::Generated;
  std::vector<std::string> extra_flags;  ///< appended to the compiler's flags; in the key
};

struct CompileStats {
  std::size_t compilations = 0;  ///< successful compiler runs
  std::size_t failures = 0;      ///< compiler runs that failed
  std::size_t hits = 0;          ///< requests served by a valid binary already in the cache
  std::size_t rebuilds = 0;  ///< compilations that replaced a stale, corrupted or unloadable one
  std::size_t preludes = 0;  ///< precompiled preludes built (see share_prelude)
};

class CompileCache {
 public:
  /// A cache in `directory` (created when missing) that builds with `compiler`.
  PYPTO_DECL CompileCache(std::string directory, Compiler compiler);
  /// A cache in `directory` that builds with find_compiler().
  explicit CompileCache(std::string directory)
      : CompileCache(std::move(directory), find_compiler()) {}

  /// The cache key of `unit`: 64 hex digits, the SHA-256 of the identity kind (generated code
  /// never shares a binary with external, builtin-template or legacy code), the source, the path
  /// and content of every pypto header it includes (transitively, kernel_abi.hpp always — read
  /// at run time, so editing a header invalidates the binaries built against it), the compiler
  /// identity (`--version` output), the flags and the unit's extra flags.
  PYPTO_DECL std::string key(const CodeUnit& unit) const;

  std::string binary_path(const std::string& key) const { return dir_ + "/" + key + ".so"; }

  /// The path of a valid binary of `unit`, compiling it when the cache has none.
  PYPTO_DECL std::string binary(const CodeUnit& unit);

  /// `unit` loaded: one load per key in this cache while a caller holds it. A binary that fails
  /// to load is rebuilt once; a second failure is a LoadError.
  PYPTO_DECL std::shared_ptr<SharedLibrary> load(const CodeUnit& unit);

  /// Units whose source begins with `text` (a code generator's fixed prologue: its includes and
  /// helpers; it ends a line) read it precompiled: built on the first such compile, kept in the
  /// directory for every later one. A unit that fails so is compiled again as its whole source,
  /// whose diagnostics the error carries; a compiler that is neither g++ nor clang++ always
  /// compiles the whole source.
  PYPTO_DECL void share_prelude(std::string text);

  const CompileStats& stats() const { return stats_; }
  const std::string& directory() const { return dir_; }
  const Compiler& compiler() const { return compiler_; }

  /// The pypto headers `source` includes, transitively, plus kernel_abi.hpp: (path relative to
  /// the include directory, content or "<missing>"), sorted by path.
  PYPTO_DECL std::map<std::string, std::string> included_headers(std::string_view source) const;

 private:
  /// The targets of `#include <pypto/...>` and `#include "pypto/..."` lines.
  PYPTO_DECL static std::vector<std::string> pypto_includes(std::string_view text);
  PYPTO_DECL static bool valid(const std::string& so);
  PYPTO_DECL static void remove_entry(const std::string& so);
  /// Compiles in a private scratch directory inside the cache (see compile_cache.ipp).
  PYPTO_DECL void compile(const CodeUnit& unit, const std::string& so);
  /// The longest shared prelude `unit` begins with, or null.
  PYPTO_DECL const std::string* prelude_of(const CodeUnit& unit) const;
  /// The path of `prelude`'s header, its precompiled header beside it (built when missing), for
  /// `unit`'s flags; empty when the compiler has no precompiled headers or building one failed.
  PYPTO_DECL std::string precompiled(const std::string& prelude, const CodeUnit& unit);
  /// The compiler's command line for `src` -> `out` (scratch in `scratch`); with `header`, the
  /// precompiled prelude is read first.
  PYPTO_DECL std::vector<std::string> command(const CodeUnit& unit, const std::string& scratch,
                                              const std::string& src, const std::string& out,
                                              const std::string& header) const;

  std::string dir_;
  Compiler compiler_;
  CompileStats stats_;
  std::map<std::string, std::weak_ptr<SharedLibrary>> loaded_;
  std::vector<std::string> preludes_;
  std::vector<std::string> failed_preludes_;  ///< headers whose precompiled form would not build
};

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/compile_cache.ipp"
#endif
