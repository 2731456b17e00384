// pypto/runtime/process.hpp — runs a program with an argv vector (posix_spawnp, no shell) and
// captures its combined stdout and stderr.
//
// Why no shell: paths and flags reach the compiler verbatim, so no quoting can go wrong. The
// output is read to the end before waiting, so a chatty child cannot deadlock on a full pipe.
#pragma once

#include <string>
#include <vector>

#include "pypto/core/config.hpp"

namespace pypto::runtime {

struct ProcessResult {
  bool started = false;  ///< false: the program could not be executed (see `output`)
  int exit_code = -1;    ///< the exit status, or -1 when killed by a signal
  std::string output;    ///< stdout and stderr, interleaved as written
  bool ok() const { return started && exit_code == 0; }
};

/// Runs argv[0] (searched on PATH when it has no '/') with `argv`, stdin from /dev/null.
PYPTO_DECL ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace pypto::runtime

#ifndef PYPTO_SEPARATE_COMPILATION
#include "pypto/runtime/process.ipp"
#endif
