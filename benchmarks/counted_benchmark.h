// Benchmark cases whose instructions callgrind counts one case at a time,
// for benchmarks/instructions.py (message_bench) and
// benchmarks/kernel_instructions.py (kernels_bench).

#ifndef PROTOACCEL_BENCHMARKS_COUNTED_BENCHMARK_H_
#define PROTOACCEL_BENCHMARKS_COUNTED_BENCHMARK_H_

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else  // no counts per case: the scripts say so
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(label) static_cast<void>(label)
#endif

namespace protoaccel_bench {

// benchmark::RegisterBenchmark. With PROTOACCEL_BENCH_ITERATIONS=K every
// case runs exactly K times, without calibration runs, and under callgrind
// each run of a case is counted on its own: the counts are zeroed as it
// starts and dumped, labelled with its family's name, as it ends, so that
// one process counts every case (outside valgrind the two requests cost a
// few instructions, outside the timed loop).
template <typename Fn, typename... Args>
benchmark::internal::Benchmark* Register(const std::string& name, Fn fn, Args... args) {
  static const long fixed_iterations = [] {
    const char* env = std::getenv("PROTOACCEL_BENCH_ITERATIONS");
    return env != nullptr ? std::atol(env) : 0L;
  }();
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    CALLGRIND_ZERO_STATS;
    fn(state, args...);
    CALLGRIND_DUMP_STATS_AT(name.c_str());
  });
  if (fixed_iterations > 0) b->Iterations(fixed_iterations);
  return b;
}

}  // namespace protoaccel_bench

#endif  // PROTOACCEL_BENCHMARKS_COUNTED_BENCHMARK_H_
