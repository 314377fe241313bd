// Shared by the kernel fuzzers: every level this CPU runs, guarded input,
// and a failure that stops the fuzzer (or the replay) with what differed.

#ifndef PROTOACCEL_FUZZ_FUZZ_UTIL_H_
#define PROTOACCEL_FUZZ_FUZZ_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dispatch/kernels.h"
#include "guarded_memory.h"
#include "protoaccel/protoaccel.h"

namespace protoaccel {
namespace fuzz {

// Calls f(level, kernels) for scalar and each level above it that this CPU
// runs, whatever PROTOACCEL_ISA says: one fuzzing run covers them all. Each
// is checked against tests/reference.h, not against scalar, so that a bug
// scalar shares with a SIMD level is not taken for the truth.
template <typename F>
void ForEachLevel(F f) {
  for (int i = 0; i < kIsaCount; ++i) {
    const Isa isa = static_cast<Isa>(i);
    if (internal::Runs(isa)) f(isa, *internal::KernelsFor(isa));
  }
}

// A copy of the input that ends where the guard page starts, so that a
// kernel reading past it faults; valid until the next call.
inline const char* GuardedInput(const uint8_t* data, size_t size) {
  static testing::GuardedArena arena;
  char* p = arena.EndingAt(size);
  if (size > 0) std::memcpy(p, data, size);
  return p;
}

// abort() rather than a return: libFuzzer and the replay's ctest both treat
// it as a crash, and libFuzzer then saves the input.
[[noreturn]] inline void Fail(const char* message) {
  std::fprintf(stderr, "protoaccel fuzz: %s\n", message);
  std::abort();
}
[[noreturn]] inline void Fail(const char* what, Isa isa) {
  std::fprintf(stderr, "protoaccel fuzz: %s differs from the reference at level %s\n",
               what, IsaName(isa));
  std::abort();
}

}  // namespace fuzz
}  // namespace protoaccel

#endif  // PROTOACCEL_FUZZ_FUZZ_UTIL_H_
