// pypto/runtime/compile_cache.hpp — compiles each code unit once per cache directory (seed 001,
// "Code and registration identity"; issue 8, "CPU runtime").
//
// A code unit is a kernel's source and its compilation identity kind. Its key is the SHA-256 of:
// the identity kind (generated code never shares a binary with external, builtin-template or
// legacy code), the source, the path and content of every pypto header it includes (transitively,
// kernel_abi.hpp always — read at run time, so editing a header invalidates the binaries built
// against it), the compiler identity (`--version` output), the flags and the unit's extra flags.
// The code name is not in the key: two names for equal code share one binary.
//
// Layout: <dir>/<key>.so and <dir>/<key>.so.sha256 (the SHA-256 of the .so). A binary is reused
// only when its checksum matches the sidecar; a missing sidecar, a mismatch (a stale or corrupted
// file) or a load failure rebuilds it once. Compilation is atomic: source and output live in a
// unique scratch directory in <dir>, the binary is renamed into place on success and the scratch
// is removed on any failure, so the directory never holds a half-written binary. Reading a valid
// entry is O(size of the binary). A cache object is for one thread at a time; several processes
// may share a directory (every publication is a rename).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/runtime/compiler.hpp"
#include "pypto/runtime/files.hpp"
#include "pypto/runtime/process.hpp"
#include "pypto/runtime/sha256.hpp"
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
};

class CompileCache {
 public:
  CompileCache(std::string directory, Compiler compiler)
      : dir_(files::absolute(directory)), compiler_(std::move(compiler)) {
    files::make_directories(dir_);
  }
  explicit CompileCache(std::string directory)
      : CompileCache(std::move(directory), find_compiler()) {}

  /// The cache key of `unit`: 64 hex digits.
  std::string key(const CodeUnit& unit) const {
    Sha256 h;
    h.field("pypto-compile-cache-v1").field(code_origin_name(unit.origin)).field(unit.source);
    for (const auto& [path, content] : included_headers(unit.source)) h.field(path).field(content);
    h.field(compiler_.identity);
    for (const auto& f : compiler_.flags) h.field(f);
    h.field("extra");
    for (const auto& f : unit.extra_flags) h.field(f);
    return h.hex();
  }

  std::string binary_path(const std::string& key) const { return dir_ + "/" + key + ".so"; }

  /// The path of a valid binary of `unit`, compiling it when the cache has none.
  std::string binary(const CodeUnit& unit) {
    const std::string k = key(unit);
    const std::string so = binary_path(k);
    if (valid(so)) {
      ++stats_.hits;
      return so;
    }
    const bool stale = files::exists(so) || files::exists(so + ".sha256");
    compile(unit, so);
    if (stale) ++stats_.rebuilds;
    return so;
  }

  /// `unit` loaded: one load per key in this cache while a caller holds it. A binary that fails
  /// to load is rebuilt once; a second failure is a LoadError.
  std::shared_ptr<SharedLibrary> load(const CodeUnit& unit) {
    const std::string k = key(unit);
    if (auto it = loaded_.find(k); it != loaded_.end())
      if (auto lib = it->second.lock()) {
        ++stats_.hits;
        return lib;
      }
    const std::string so = binary(unit);
    std::shared_ptr<SharedLibrary> lib;
    try {
      lib = SharedLibrary::open(so);
    } catch (const LoadError&) {
      remove_entry(so);
      compile(unit, so);
      ++stats_.rebuilds;
      lib = SharedLibrary::open(so);
    }
    loaded_[k] = lib;
    return lib;
  }

  const CompileStats& stats() const { return stats_; }
  const std::string& directory() const { return dir_; }
  const Compiler& compiler() const { return compiler_; }

  /// The pypto headers `source` includes, transitively, plus kernel_abi.hpp: (path relative to
  /// the include directory, content or "<missing>"), sorted by path.
  std::map<std::string, std::string> included_headers(std::string_view source) const {
    std::map<std::string, std::string> out;
    std::vector<std::string> todo = pypto_includes(source);
    todo.emplace_back("pypto/codegen/kernel_abi.hpp");
    while (!todo.empty()) {
      std::string rel = std::move(todo.back());
      todo.pop_back();
      if (out.count(rel)) continue;
      auto content = files::try_read(compiler_.include_dir + "/" + rel);
      out[rel] = content ? *content : std::string("<missing>");
      if (content)
        for (auto& r : pypto_includes(*content)) todo.push_back(std::move(r));
    }
    return out;
  }

 private:
  /// The targets of `#include <pypto/...>` and `#include "pypto/..."` lines.
  static std::vector<std::string> pypto_includes(std::string_view text) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      std::string_view line = text.substr(pos, end - pos);
      pos = end + 1;
      auto skip = [&] {
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
          line.remove_prefix(1);
      };
      skip();
      if (line.empty() || line.front() != '#') continue;
      line.remove_prefix(1);
      skip();
      if (line.substr(0, 7) != "include") continue;
      line.remove_prefix(7);
      skip();
      if (line.size() < 2 || (line.front() != '<' && line.front() != '"')) continue;
      const char close = line.front() == '<' ? '>' : '"';
      line.remove_prefix(1);
      const std::size_t q = line.find(close);
      if (q == std::string_view::npos) continue;
      std::string_view target = line.substr(0, q);
      if (target.substr(0, 6) == "pypto/") out.emplace_back(target);
    }
    return out;
  }

  static bool valid(const std::string& so) {
    auto sum = files::try_read(so + ".sha256");
    if (!sum) return false;
    auto bytes = files::try_read(so);
    return bytes && sha256_hex(*bytes) == *sum;
  }

  static void remove_entry(const std::string& so) {
    ::unlink(so.c_str());
    ::unlink((so + ".sha256").c_str());
  }

  /// Compiles in a private scratch directory inside the cache (same file system, so the final
  /// rename is atomic; removed with everything in it whatever happens). The source is named
  /// after the key and the scratch path is mapped away (-ffile-prefix-map), so equal keys give
  /// byte-identical binaries wherever and however often they are built.
  void compile(const CodeUnit& unit, const std::string& so) {
    const std::string k = so.substr(dir_.size() + 1, 64);
    const TempDir scratch(".tmp-" + k.substr(0, 16) + "-", dir_);
    const std::string src = scratch.path() + "/" + k + ".cpp";
    const std::string out = scratch.path() + "/" + k + ".so";
    files::write_atomic(src, unit.source);
    std::vector<std::string> argv{compiler_.program};
    argv.insert(argv.end(), compiler_.flags.begin(), compiler_.flags.end());
    argv.insert(argv.end(), unit.extra_flags.begin(), unit.extra_flags.end());
    argv.insert(argv.end(), {"-ffile-prefix-map=" + scratch.path() + "=.", "-I",
                             compiler_.include_dir, "-o", out, src});
    ProcessResult r = run_process(argv);
    if (!r.ok()) {
      ++stats_.failures;
      throw CompileError(unit.code_name,
                         std::string(code_origin_name(unit.origin)) + " code failed to compile (" +
                             (r.started ? "exit status " + std::to_string(r.exit_code)
                                        : std::string("compiler not started")) +
                             ")",
                         r.output);
    }
    const std::string bytes = files::read(out);
    if (::rename(out.c_str(), so.c_str()) != 0)
      throw FileError("cannot rename '" + out + "' to '" + so + "': " + files::errno_text(errno));
    files::write_atomic(so + ".sha256", sha256_hex(bytes));
    ++stats_.compilations;
  }

  std::string dir_;
  Compiler compiler_;
  CompileStats stats_;
  std::map<std::string, std::weak_ptr<SharedLibrary>> loaded_;
};

}  // namespace pypto::runtime
