// pypto/runtime/files.hpp — the POSIX file operations of the CPU runtime: whole-file reads,
// atomic writes (a unique temporary in the target's directory, then rename), a temporary
// directory that removes itself.
//
// Why atomic: a compile cache is shared by processes; a reader must see either no file or a
// complete one, never a half-written binary. Every failure is a typed FileError naming the path.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypto/core/error.hpp"

namespace pypto::runtime {

class FileError : public core::Error {
 public:
  explicit FileError(const std::string& message) : core::Error(message) {}
};

namespace files {

inline std::string errno_text(int e) { return std::strerror(e); }

inline bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

inline bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

/// The whole content of `path`, or nullopt when it cannot be opened.
inline std::optional<std::string> try_read(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

inline std::string read(const std::string& path) {
  auto s = try_read(path);
  if (!s) throw FileError("cannot read '" + path + "': " + errno_text(errno));
  return std::move(*s);
}

inline void write_all(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw FileError("cannot write '" + path + "': " + errno_text(errno));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

/// Creates a new empty file `<dir>/<prefix>XXXXXX<suffix>` (unique, mode 0600) and returns its
/// path; the caller owns (and must remove) it.
inline std::string make_unique_file(const std::string& dir, const std::string& prefix,
                                    const std::string& suffix) {
  std::string tmpl = dir + "/" + prefix + "XXXXXX" + suffix;
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const int fd = ::mkstemps(buf.data(), static_cast<int>(suffix.size()));
  if (fd < 0) throw FileError("cannot create a file in '" + dir + "': " + errno_text(errno));
  ::close(fd);
  return std::string(buf.data());
}

/// Removes a file when it goes out of scope unless released (a temporary that must not survive
/// a failure).
class ScopedFile {
 public:
  explicit ScopedFile(std::string path) : path_(std::move(path)) {}
  ScopedFile(const ScopedFile&) = delete;
  ScopedFile& operator=(const ScopedFile&) = delete;
  ~ScopedFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }
  void release() { path_.clear(); }

 private:
  std::string path_;
};

/// Writes `bytes` to `path` atomically: a unique temporary in the same directory, then rename.
inline void write_atomic(const std::string& path, std::string_view bytes) {
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  ScopedFile tmp(make_unique_file(dir, ".tmp-", ".part"));
  const int fd = ::open(tmp.path().c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) throw FileError("cannot open '" + tmp.path() + "': " + errno_text(errno));
  try {
    write_all(fd, bytes, tmp.path());
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  if (::rename(tmp.path().c_str(), path.c_str()) != 0)
    throw FileError("cannot rename '" + tmp.path() + "' to '" + path + "': " + errno_text(errno));
  tmp.release();
}

/// Creates `path` and its missing parents (mode 0755).
inline void make_directories(const std::string& path) {
  if (path.empty() || is_directory(path)) return;
  const auto slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) make_directories(path.substr(0, slash));
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
    throw FileError("cannot create directory '" + path + "': " + errno_text(errno));
}

/// The names in directory `dir` (without "." and ".."), sorted: deterministic listings.
inline std::vector<std::string> list_directory(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (!d) throw FileError("cannot list '" + dir + "': " + errno_text(errno));
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

/// Removes `path` and, when it is a directory, everything under it (symlinks are removed, not
/// followed). Best effort: what cannot be removed stays.
inline void remove_tree(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    try {
      for (const auto& name : list_directory(path)) remove_tree(path + "/" + name);
    } catch (const FileError&) {  // unreadable: rmdir below fails and leaves it
    }
    ::rmdir(path.c_str());
    return;
  }
  ::unlink(path.c_str());
}

/// Absolute form of `path` (relative paths resolve against the current directory); no symlink
/// resolution, so the path stays as the user wrote it.
inline std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  std::vector<char> buf(4096);
  if (!::getcwd(buf.data(), buf.size()))
    throw FileError("cannot read the current directory: " + errno_text(errno));
  return std::string(buf.data()) + "/" + path;
}

}  // namespace files

/// A fresh directory (mkdtemp) removed with everything in it when it goes out of scope.
class TempDir {
 public:
  /// A new directory `<parent>/<prefix>XXXXXX`; the parent defaults to $TMPDIR or /tmp.
  explicit TempDir(const std::string& prefix = "pypto-", std::string parent = {}) {
    if (parent.empty()) {
      const char* base = std::getenv("TMPDIR");
      parent = base && *base ? base : "/tmp";
    }
    std::string tmpl = parent + "/" + prefix + "XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data()))
      throw FileError("cannot create a temporary directory: " + files::errno_text(errno));
    path_ = buf.data();
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() { files::remove_tree(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace pypto::runtime
