// pypto/runtime/process.ipp — the definitions of runtime/process.hpp.
#pragma once

#include "pypto/runtime/process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "pypto/runtime/files.hpp"

extern char** environ;

namespace pypto::runtime {

PYPTO_DECL ProcessResult run_process(const std::vector<std::string>& argv) {
  ProcessResult result;
  if (argv.empty()) {
    result.output = "run_process: empty argv";
    return result;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    result.output = "cannot create a pipe: " + files::errno_text(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    result.output = "cannot execute '" + argv[0] + "': " + files::errno_text(rc);
    return result;
  }
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      result.output += "\nwaitpid failed: " + files::errno_text(errno);
      return result;
    }
  result.started = true;
  // posix_spawnp reports a missing program as exit status 127 of the child.
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (result.exit_code == 127 && result.output.empty()) {
    result.started = false;
    result.output = "cannot execute '" + argv[0] + "'";
  }
  return result;
}

}  // namespace pypto::runtime
