// pypto/runtime/compile_cache.ipp — the definitions of runtime/compile_cache.hpp.
#pragma once

#include "pypto/runtime/compile_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
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

namespace detail::compile_cache {

/// The file g++ (.gch) or clang++ (.pch) looks for beside a header given with -include, from the
/// compiler's identity; empty for a compiler known to neither.
inline std::string_view precompiled_extension(const std::string& identity) {
  if (identity.find("clang") != std::string::npos) return ".pch";
  if (identity.find("Free Software Foundation") != std::string::npos) return ".gch";
  return {};
}

}  // namespace detail::compile_cache

PYPTO_DECL CompileCache::CompileCache(std::string directory, Compiler compiler)
    : dir_(files::absolute(directory)), compiler_(std::move(compiler)) {
  files::make_directories(dir_);
}

PYPTO_DECL std::string CompileCache::key(const CodeUnit& unit) const {
  Sha256 h;
  h.field("pypto-compile-cache-v1").field(code_origin_name(unit.origin)).field(unit.source);
  for (const auto& [path, content] : included_headers(unit.source)) h.field(path).field(content);
  h.field(compiler_.identity);
  for (const auto& f : compiler_.flags) h.field(f);
  h.field("extra");
  for (const auto& f : unit.extra_flags) h.field(f);
  return h.hex();
}

PYPTO_DECL std::string CompileCache::binary(const CodeUnit& unit) {
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

PYPTO_DECL std::shared_ptr<SharedLibrary> CompileCache::load(const CodeUnit& unit) {
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

PYPTO_DECL std::map<std::string, std::string> CompileCache::included_headers(
    std::string_view source) const {
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

PYPTO_DECL std::vector<std::string> CompileCache::pypto_includes(std::string_view text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    auto skip = [&] {
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
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

PYPTO_DECL bool CompileCache::valid(const std::string& so) {
  auto sum = files::try_read(so + ".sha256");
  if (!sum) return false;
  auto bytes = files::try_read(so);
  return bytes && sha256_hex(*bytes) == *sum;
}

PYPTO_DECL void CompileCache::remove_entry(const std::string& so) {
  ::unlink(so.c_str());
  ::unlink((so + ".sha256").c_str());
}

PYPTO_DECL void CompileCache::share_prelude(std::string text) {
  if (text.empty() || text.back() != '\n') return;  // a unit's rest must start a line
  if (std::find(preludes_.begin(), preludes_.end(), text) == preludes_.end())
    preludes_.push_back(std::move(text));
}

PYPTO_DECL const std::string* CompileCache::prelude_of(const CodeUnit& unit) const {
  const std::string* best = nullptr;
  for (const auto& p : preludes_)
    if (unit.source.size() > p.size() && unit.source.compare(0, p.size(), p) == 0 &&
        (!best || p.size() > best->size()))
      best = &p;
  return best;
}

/// Keyed like a binary, on everything the precompiled header depends on: its text, the pypto
/// headers it includes, the compiler and every flag. A whole header is never rewritten (that would
/// change its time stamp under a clang++ precompiled header that another process is reading);
/// the precompiled file is built in scratch and renamed into place, so a reader finds it whole
/// or not at all, and then reads the header as text.
PYPTO_DECL std::string CompileCache::precompiled(const std::string& prelude, const CodeUnit& unit) {
  const std::string_view ext = detail::compile_cache::precompiled_extension(compiler_.identity);
  if (ext.empty()) return {};
  Sha256 h;
  h.field("pypto-compile-cache-prelude-v1").field(prelude);
  for (const auto& [path, content] : included_headers(prelude)) h.field(path).field(content);
  h.field(compiler_.identity);
  for (const auto& f : compiler_.flags) h.field(f);
  h.field("extra");
  for (const auto& f : unit.extra_flags) h.field(f);
  const std::string key = h.hex();
  const std::string header = dir_ + "/prelude-" + key + ".hpp";
  const std::string pch = header + std::string(ext);
  if (std::find(failed_preludes_.begin(), failed_preludes_.end(), header) != failed_preludes_.end())
    return {};
  // The header is trusted by content, not by name: one edited by hand is written again, and a
  // precompiled form built from it goes with it.
  const std::optional<std::string> written = files::try_read(header);
  const bool header_whole = written && *written == prelude;
  if (header_whole && files::exists(pch)) return header;
  if (!header_whole) {
    ::unlink(pch.c_str());
    files::write_atomic(header, prelude);
  }
  const TempDir scratch(".tmp-prelude-" + key.substr(0, 16) + "-", dir_);
  const std::string out = scratch.path() + "/prelude" + std::string(ext);
  std::vector<std::string> argv{compiler_.program};
  for (const auto& f : compiler_.flags)
    if (f != "-shared") argv.push_back(f);  // a header, not a shared object
  argv.insert(argv.end(), unit.extra_flags.begin(), unit.extra_flags.end());
  argv.insert(argv.end(), {"-I", compiler_.include_dir, "-x", "c++-header", header, "-o", out});
  if (!run_process(argv).ok() || ::rename(out.c_str(), pch.c_str()) != 0) {
    failed_preludes_.push_back(header);
    return {};
  }
  ++stats_.preludes;
  return header;
}

PYPTO_DECL std::vector<std::string> CompileCache::command(const CodeUnit& unit,
                                                          const std::string& scratch,
                                                          const std::string& src,
                                                          const std::string& out,
                                                          const std::string& header) const {
  std::vector<std::string> argv{compiler_.program};
  argv.insert(argv.end(), compiler_.flags.begin(), compiler_.flags.end());
  argv.insert(argv.end(), unit.extra_flags.begin(), unit.extra_flags.end());
  argv.insert(argv.end(), {"-ffile-prefix-map=" + scratch + "=.", "-I", compiler_.include_dir});
  if (!header.empty()) {
    // g++ would read an invalid precompiled header's text in silence, slowly, for good.
    if (detail::compile_cache::precompiled_extension(compiler_.identity) == ".gch")
      argv.insert(argv.end(), {"-Winvalid-pch", "-Werror=invalid-pch"});
    argv.insert(argv.end(), {"-include", header});
  }
  argv.insert(argv.end(), {"-o", out, src});
  return argv;
}

/// Compiles in a private scratch directory inside the cache (same file system, so the final
/// rename is atomic; removed with everything in it whatever happens). The source is named
/// after the key and the scratch path is mapped away (-ffile-prefix-map), so equal keys give
/// byte-identical binaries wherever and however often they are built. A unit that begins with a
/// shared prelude is compiled as the rest of its source after the precompiled prelude; when that
/// fails, the whole source is compiled as text, so an error's diagnostics are the whole source's,
/// and if that succeeds the precompiled header was at fault (corrupted, or stale under clang++)
/// and is removed, to be built again on next use.
PYPTO_DECL void CompileCache::compile(const CodeUnit& unit, const std::string& so) {
  const std::string k = so.substr(dir_.size() + 1, 64);
  const TempDir scratch(".tmp-" + k.substr(0, 16) + "-", dir_);
  const std::string src = scratch.path() + "/" + k + ".cpp";
  const std::string out = scratch.path() + "/" + k + ".so";
  const std::string* prelude = prelude_of(unit);
  const std::string header = prelude ? precompiled(*prelude, unit) : std::string();
  ProcessResult r;
  if (!header.empty()) {
    files::write_atomic(src, std::string_view(unit.source).substr(prelude->size()));
    r = run_process(command(unit, scratch.path(), src, out, header));
  }
  if (header.empty() || !r.ok()) {
    files::write_atomic(src, unit.source);
    ProcessResult whole = run_process(command(unit, scratch.path(), src, out, {}));
    if (whole.ok() && !header.empty()) {
      const std::string_view ext = detail::compile_cache::precompiled_extension(compiler_.identity);
      ::unlink((header + std::string(ext)).c_str());
    }
    r = std::move(whole);
  }
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

}  // namespace pypto::runtime
