// Shared by the kernel fuzzers: every level this CPU runs, and a failure
// that stops the fuzzer (or the replay) with what differed.

#ifndef PROTOACCEL_FUZZ_FUZZ_UTIL_H_
#define PROTOACCEL_FUZZ_FUZZ_UTIL_H_

#include <cstdio>
#include <cstdlib>

#include "dispatch/kernels.h"
#include "protoaccel/protoaccel.h"

namespace protoaccel {
namespace fuzz {

// Calls f(level, kernels) for each level above scalar that this CPU runs;
// scalar is the reference each is compared with.
template <typename F>
void ForEachSimdLevel(F f) {
  for (int i = 1; i <= static_cast<int>(DetectedIsa()); ++i) {
    const Isa isa = static_cast<Isa>(i);
    f(isa, *internal::KernelsFor(isa));
  }
}

inline const internal::Kernels& Scalar() { return *internal::KernelsFor(Isa::kScalar); }

[[noreturn]] inline void Fail(const char* what, Isa isa) {
  std::fprintf(stderr, "protoaccel fuzz: %s differs from scalar at level %s\n", what,
               IsaName(isa));
  std::abort();
}

}  // namespace fuzz
}  // namespace protoaccel

#endif  // PROTOACCEL_FUZZ_FUZZ_UTIL_H_
