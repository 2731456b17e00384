// pypto/runtime/files.ipp — the definitions of runtime/files.hpp.
#pragma once

#include "pypto/runtime/files.hpp"

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

namespace files {

PYPTO_DECL std::string errno_text(int e) { return std::strerror(e); }

PYPTO_DECL bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

PYPTO_DECL bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

PYPTO_DECL std::optional<std::string> try_read(const std::string& path) {
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

PYPTO_DECL std::string read(const std::string& path) {
  auto s = try_read(path);
  if (!s) throw FileError("cannot read '" + path + "': " + errno_text(errno));
  return std::move(*s);
}

PYPTO_DECL void write_all(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw FileError("cannot write '" + path + "': " + errno_text(errno));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

PYPTO_DECL std::string make_unique_file(const std::string& dir, const std::string& prefix,
                                        const std::string& suffix) {
  std::string tmpl = dir + "/" + prefix + "XXXXXX" + suffix;
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const int fd = ::mkstemps(buf.data(), static_cast<int>(suffix.size()));
  if (fd < 0) throw FileError("cannot create a file in '" + dir + "': " + errno_text(errno));
  ::close(fd);
  return std::string(buf.data());
}

PYPTO_DECL ScopedFile::~ScopedFile() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

PYPTO_DECL void write_atomic(const std::string& path, std::string_view bytes) {
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

PYPTO_DECL void make_directories(const std::string& path) {
  if (path.empty() || is_directory(path)) return;
  const auto slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) make_directories(path.substr(0, slash));
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
    throw FileError("cannot create directory '" + path + "': " + errno_text(errno));
}

PYPTO_DECL std::vector<std::string> list_directory(const std::string& dir) {
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

PYPTO_DECL void remove_tree(const std::string& path) {
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

PYPTO_DECL std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  std::vector<char> buf(4096);
  if (!::getcwd(buf.data(), buf.size()))
    throw FileError("cannot read the current directory: " + errno_text(errno));
  return std::string(buf.data()) + "/" + path;
}

}  // namespace files

PYPTO_DECL TempDir::TempDir(const std::string& prefix, std::string parent) {
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

PYPTO_DECL TempDir::~TempDir() { files::remove_tree(path_); }

}  // namespace pypto::runtime
