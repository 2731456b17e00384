// benchmarks/pass_cpu_time.hpp — timing one pass on one program, CPU time only.
//
// The machine these benchmarks run on is shared: wall time swings with the load, the thread's
// CPU time much less. pass_cpu_ns runs the benchmark loop over `pass(program)` and returns the
// mean CPU nanoseconds of one call; releasing the result is not timed.
#pragma once

#include <benchmark/benchmark.h>
#include <time.h>  // clock_gettime (POSIX)

#include <pypto/ir/program.hpp>
#include <pypto/transforms/pass.hpp>

namespace pypto_bench {

inline double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

/// Mean CPU ns of one `pass(program)` over the benchmark's iterations.
inline double pass_cpu_ns(benchmark::State& state, const pypto::transforms::Pass& pass,
                          const pypto::ir::Program& program) {
  double total_ns = 0;
  for (auto _ : state) {
    const double begin = thread_cpu_ns();
    pypto::ir::ProgramRef result = pass(program);
    total_ns += thread_cpu_ns() - begin;
    benchmark::DoNotOptimize(result);
  }
  return total_ns / static_cast<double>(state.iterations());
}

}  // namespace pypto_bench
