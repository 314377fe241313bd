// Message-level benchmarks, built against the system's protobuf headers and
// run against each library through LD_LIBRARY_PATH (ci/ab.sh): parsing a
// message with one packed field, by type, value shape and count.
// allocs/op counts every operator new of the parse.

#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "allocation_counter.h"
#include "corpus3.pb.h"

using allocation_counter::allocations;
using allocation_counter::counting;

namespace {

using protoaccel::diff::Packed3;

uint64_t Value(std::mt19937_64& rng, const std::string& shape) {
  if (shape == "lt128") return rng() % 128;
  if (shape == "lt16384") return rng() % 16384;
  if (shape == "neg") return static_cast<uint64_t>(-1 - static_cast<int64_t>(rng() % 1000));
  if (shape == "rand64") return rng();
  return static_cast<uint32_t>(rng());  // rand32
}

// A Packed3 holding only `field`, with n values of `shape`.
std::string Wire(const std::string& field, const std::string& shape, int n) {
  std::mt19937_64 rng(n);
  Packed3 m;
  for (int i = 0; i < n; ++i) {
    const uint64_t v = Value(rng, shape);
    if (field == "uint32") m.add_u32(static_cast<uint32_t>(v));
    if (field == "int32") m.add_i32(static_cast<int32_t>(v));
    if (field == "sint32") m.add_s32(static_cast<int32_t>(v));
    if (field == "uint64") m.add_u64(v);
    if (field == "fixed32") m.add_f32(static_cast<uint32_t>(v));
  }
  return m.SerializeAsString();
}

void Parse(benchmark::State& state, std::string field, std::string shape) {
  const int n = static_cast<int>(state.range(0));
  const std::string wire = Wire(field, shape, n);
  long allocs = 0;
  for (auto _ : state) {
    // A fresh message each time: Clear() would keep the field's capacity.
    Packed3 fresh;
    counting = true;
    const long before = allocations;
    benchmark::DoNotOptimize(fresh.ParseFromString(wire));
    allocs += allocations - before;
    counting = false;
  }
  state.counters["allocs/op"] = benchmark::Counter(
      static_cast<double>(allocs), benchmark::Counter::kAvgIterations);
  state.counters["ns/value"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                  benchmark::Counter::kInvert);
  state.SetBytesProcessed(state.iterations() * wire.size());
}

void RegisterAll() {
  const std::vector<int64_t> counts = {1, 4, 16, 64, 256, 1024, 10000};
  const char* cases[][2] = {{"uint32", "lt128"},  {"uint32", "lt16384"},
                            {"uint32", "rand32"}, {"uint64", "rand64"},
                            {"int32", "neg"},     {"sint32", "rand32"},
                            {"fixed32", "rand32"}};
  for (const auto& c : cases) {
    benchmark::RegisterBenchmark(
        ("parse/" + std::string(c[0]) + "/" + c[1]).c_str(), Parse, c[0], c[1])
        ->ArgsProduct({counts});
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
