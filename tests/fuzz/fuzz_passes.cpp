// pypto_fuzz_passes — the differential pass fuzzer.
//
// Generates random valid programs (program_gen.hpp) from consecutive seeds and runs each through
// the oracle (pipeline_case.hpp) in a child process, so that a crash or a hang is caught like
// any other failure. A failing program is shrunk (shrink.hpp) and written, with what it shows,
// to the output directory. At the end: programs run, programs per second, and in what share of
// the programs each node kind, op and pass occurred.
//
//   pypto_fuzz_passes [--seed S] [--programs N] [--seconds T] [--cpu-every K] [--out DIR]
//                     [--timeout SEC] [--print SEED] [--check FILE] [--quiet]
//
// --print writes the program of a seed; --check runs the oracle on a program file (with
// --cpu-every, on the CPU target too).
//
// Exit status: 0 when nothing failed, 1 when something did, 2 on a usage error.
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "pipeline_case.hpp"
#include "program_gen.hpp"
#include "pypto/runtime/files.hpp"
#include "shrink.hpp"

namespace {

using pypto::fuzz::Coverage;
using pypto::fuzz::Finding;

struct Options {
  std::uint64_t seed = 1;
  std::uint64_t programs = 0;   ///< 0: until --seconds
  double seconds = 0;           ///< 0: until --programs
  std::uint64_t cpu_every = 0;  ///< every K-th program also runs on the CPU target (0: never)
  std::string out = ".";
  unsigned timeout = 60;
  bool quiet = false;
  std::optional<std::uint64_t> print;
  std::string check;  ///< a program file to run the oracle on (a reproducer)
};

/// One case's outcome as the child reports it through a pipe: a line per field.
struct Report {
  std::optional<Finding> finding;
  Coverage coverage;
};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s)
    out += c == '\n' ? std::string("\\n") : c == '\\' ? std::string("\\\\") : std::string(1, c);
  return out;
}
std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      out += s[i + 1] == 'n' ? '\n' : s[i + 1];
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string serialize(const Report& r) {
  std::ostringstream o;
  if (r.finding)
    o << "F\t" << escape(r.finding->stage) << "\t" << escape(r.finding->kind) << "\t"
      << escape(r.finding->message) << "\t" << (r.finding->valid ? 1 : 0) << "\n";
  auto section = [&](char tag, const std::map<std::string, std::size_t>& m) {
    for (const auto& [k, v] : m) o << tag << "\t" << escape(k) << "\t" << v << "\n";
  };
  section('K', r.coverage.node_kinds);
  section('O', r.coverage.ops);
  section('P', r.coverage.passes);
  section('N', r.coverage.notes);
  return o.str();
}

Report deserialize(const std::string& text) {
  Report r;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::size_t start = 0;
    for (;;) {
      const std::size_t tab = line.find('\t', start);
      f.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    if (f[0] == "F" && f.size() == 5) {
      r.finding = Finding{unescape(f[1]), unescape(f[2]), unescape(f[3]), f[4] == "1"};
    } else if (f.size() == 3) {
      auto& m = f[0] == "K"   ? r.coverage.node_kinds
                : f[0] == "O" ? r.coverage.ops
                : f[0] == "P" ? r.coverage.passes
                              : r.coverage.notes;
      m[unescape(f[1])] += std::stoull(f[2]);
    }
  }
  return r;
}

/// Runs the oracle on `text` in a child process; a signal or the timeout is a finding too.
Report run_isolated(const std::string& text, bool cpu, const std::string& cache_dir,
                    unsigned timeout) {
  int fds[2];
  if (pipe(fds) != 0) {
    std::perror("pipe");
    std::exit(2);
  }
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("fork");
    std::exit(2);
  }
  if (pid == 0) {
    close(fds[0]);
    alarm(timeout);
    Report r;
    pypto::fuzz::CaseOptions opt;
    std::optional<pypto::runtime::CompileCache> cache;
    if (cpu) {
      cache.emplace(cache_dir);
      opt.cpu = &*cache;
    }
    try {
      r.finding = pypto::fuzz::pipeline_case(std::string_view(text), opt, r.coverage);
    } catch (const std::exception& e) {
      r.finding = Finding{"oracle", "escaped exception", e.what()};
    }
    const std::string s = serialize(r);
    std::size_t off = 0;
    while (off < s.size()) {
      const ssize_t n = write(fds[1], s.data() + off, s.size() - off);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string data;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  Report r = deserialize(data);
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    r.finding = sig == SIGALRM ? Finding{"whole case", "hang",
                                         "no result after " + std::to_string(timeout) + " s"}
                               : Finding{"whole case", "signal " + std::to_string(sig),
                                         std::string("killed by ") + strsignal(sig)};
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    r.finding = Finding{"whole case", "exit " + std::to_string(WEXITSTATUS(status)),
                        "the case exited abnormally (a sanitizer report is above)"};
  }
  return r;
}

void add(std::map<std::string, std::size_t>& to, const std::map<std::string, std::size_t>& from) {
  for (const auto& [k, v] : from) to[k] += v;
}

void table(const char* title, const std::map<std::string, std::size_t>& m, std::size_t programs) {
  std::vector<std::pair<std::string, std::size_t>> rows(m.begin(), m.end());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::printf("%s (%zu): share of programs\n", title, rows.size());
  for (const auto& [k, v] : rows)
    std::printf("  %6.1f%%  %s\n", 100.0 * static_cast<double>(v) / static_cast<double>(programs),
                k.c_str());
}

int usage() {
  std::cerr
      << "usage: pypto_fuzz_passes [--seed S] [--programs N] [--seconds T] [--cpu-every K]\n"
         "                         [--out DIR] [--timeout SEC] [--print SEED] [--check FILE]\n"
         "                         [--quiet]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "--seed")
        opt.seed = std::stoull(value());
      else if (a == "--programs")
        opt.programs = std::stoull(value());
      else if (a == "--seconds")
        opt.seconds = std::stod(value());
      else if (a == "--cpu-every")
        opt.cpu_every = std::stoull(value());
      else if (a == "--out")
        opt.out = value();
      else if (a == "--timeout")
        opt.timeout = static_cast<unsigned>(std::stoul(value()));
      else if (a == "--print")
        opt.print = std::stoull(value());
      else if (a == "--quiet")
        opt.quiet = true;
      else if (a == "--check")
        opt.check = value();
      else
        return usage();
    } catch (const std::exception& e) {
      std::cerr << "pypto_fuzz_passes: " << e.what() << "\n";
      return usage();
    }
  }
  if (opt.print) {
    std::cout << pypto::fuzz::ProgramGenerator(*opt.print).program();
    return 0;
  }
  if (opt.programs == 0 && opt.seconds <= 0) opt.programs = 100;
  if (!opt.check.empty()) {
    std::ifstream in(opt.check, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    pypto::runtime::TempDir dir("pypto-fuzz-check-");
    const Report r = run_isolated(text, opt.cpu_every != 0, dir.path(), opt.timeout);
    if (!r.finding) {
      std::printf("%s: passes every check\n", opt.check.c_str());
      return 0;
    }
    std::printf("%s: %s\n%s\n", opt.check.c_str(), r.finding->signature().c_str(),
                r.finding->message.c_str());
    return 1;
  }

  pypto::runtime::TempDir cache_dir("pypto-fuzz-passes-");
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  Coverage total;
  std::size_t runs = 0, failures = 0, cpu_runs = 0;
  for (std::uint64_t seed = opt.seed;; ++seed) {
    if (opt.programs && runs >= opt.programs) break;
    if (opt.seconds > 0 && elapsed() >= opt.seconds) break;
    const std::string text = pypto::fuzz::ProgramGenerator(seed).program();
    const bool cpu = opt.cpu_every && (seed % opt.cpu_every) == 0;
    // A CPU case also runs the host compiler once per kernel: it gets more time.
    const unsigned timeout = cpu ? 4 * opt.timeout : opt.timeout;
    const Report r = run_isolated(text, cpu, cache_dir.path(), timeout);
    ++runs;
    cpu_runs += cpu ? 1 : 0;
    add(total.node_kinds, r.coverage.node_kinds);
    add(total.ops, r.coverage.ops);
    add(total.passes, r.coverage.passes);
    add(total.notes, r.coverage.notes);
    if (!r.finding) continue;
    ++failures;
    const std::string sig = r.finding->signature();
    std::printf("seed %llu: %s: %s\n", static_cast<unsigned long long>(seed), sig.c_str(),
                r.finding->message.c_str());
    std::fflush(stdout);
    const unsigned quick = std::min(timeout, cpu ? 60u : 10u);  // a candidate may loop for ever
    const std::string small = pypto::fuzz::shrink(text, [&](const std::string& t) {
      const Report c = run_isolated(t, cpu, cache_dir.path(), quick);
      return c.finding && c.finding->signature() == sig && (c.finding->valid || !r.finding->valid);
    });
    const Report again = run_isolated(small, cpu, cache_dir.path(), timeout);
    const std::string base = opt.out + "/fuzz-" + std::to_string(seed);
    std::ofstream(base + ".pl") << "# " << sig << "\n# "
                                << (again.finding ? again.finding->message : r.finding->message)
                                << "\n"
                                << small;
    std::printf("  shrunk to %zu lines: %s.pl\n",
                static_cast<std::size_t>(std::count(small.begin(), small.end(), '\n')),
                base.c_str());
    std::fflush(stdout);
  }
  const double secs = elapsed();
  std::printf("%zu programs in %.1f s (%.2f programs/s), %zu also on the CPU target; %zu failed\n",
              runs, secs, static_cast<double>(runs) / secs, cpu_runs, failures);
  if (!opt.quiet) {
    table("passes reached", total.passes, runs);
    table("node kinds", total.node_kinds, runs);
    table("ops", total.ops, runs);
    std::printf("events:\n");
    for (const auto& [k, v] : total.notes) std::printf("  %6zu  %s\n", v, k.c_str());
  }
  return failures ? 1 : 0;
}
