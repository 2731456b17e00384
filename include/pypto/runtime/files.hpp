// pypto/runtime/files.hpp — the POSIX file operations of the CPU runtime: whole-file reads,
// atomic writes (a unique temporary in the target's directory, then rename), a temporary
// directory that removes itself.
//
// Why atomic: a compile cache is shared by processes; a reader must see either no file or a
// complete one, never a half-written binary. Every failure is a typed FileError naming the path.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/config.hpp"
#include "pypto/core/error.hpp"

namespace pypto::runtime {

class FileError : public core::Error {
 public:
  explicit FileError(const std::string& message) : core::Error(message) {}
};

namespace files {

/// strerror(e) as a string.
PYPTO_DECL std::string errno_text(int e);

PYPTO_DECL bool exists(const std::string& path);

PYPTO_DECL bool is_directory(const std::string& path);

/// The whole content of `path`, or nullopt when it cannot be opened.
PYPTO_DECL std::optional<std::string> try_read(const std::string& path);

/// The whole content of `path`; FileError when it cannot be read.
PYPTO_DECL std::string read(const std::string& path);

/// Writes all of `bytes` to `fd` (retrying short writes); FileError naming `path` on failure.
PYPTO_DECL void write_all(int fd, std::string_view bytes, const std::string& path);

/// Creates a new empty file `<dir>/<prefix>XXXXXX<suffix>` (unique, mode 0600) and returns its
/// path; the caller owns (and must remove) it.
PYPTO_DECL std::string make_unique_file(const std::string& dir, const std::string& prefix,
                                        const std::string& suffix);

/// Removes a file when it goes out of scope unless released (a temporary that must not survive
/// a failure).
class ScopedFile {
 public:
  explicit ScopedFile(std::string path) : path_(std::move(path)) {}
  ScopedFile(const ScopedFile&) = delete;
  ScopedFile& operator=(const ScopedFile&) = delete;
  PYPTO_DECL ~ScopedFile();
  const std::string& path() const { return path_; }
  void release() { path_.clear(); }

 private:
  std::string path_;
};

/// Writes `bytes` to `path` atomically: a unique temporary in the same directory, then rename.
PYPTO_DECL void write_atomic(const std::string& path, std::string_view bytes);

/// Creates `path` and its missing parents (mode 0755).
PYPTO_DECL void make_directories(const std::string& path);

/// The names in directory `dir` (without "." and ".."), sorted: deterministic listings.
PYPTO_DECL std::vector<std::string> list_directory(const std::string& dir);

/// Removes `path` and, when it is a directory, everything under it (symlinks are removed, not
/// followed). Best effort: what cannot be removed stays.
PYPTO_DECL void remove_tree(const std::string& path);

/// Absolute form of `path` (relative paths resolve against the current directory); no symlink
/// resolution, so the path stays as the user wrote it.
PYPTO_DECL std::string absolute(const std::string& path);

}  // namespace files

/// A fresh directory (mkdtemp) removed with everything in it when it goes out of scope.
class TempDir {
 public:
  /// A new directory `<parent>/<prefix>XXXXXX`; the parent defaults to $TMPDIR or /tmp.
  PYPTO_DECL explicit TempDir(const std::string& prefix = "pypto-", std::string parent = {});
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  PYPTO_DECL ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/files.ipp"
#endif
