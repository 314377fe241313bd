// What the CPU and the OS let protoaccel use, read once with CPUID and
// XGETBV on x86. A feature counts only if the OS also saves the registers
// it needs.

#ifndef PROTOACCEL_DISPATCH_CPU_FEATURES_H_
#define PROTOACCEL_DISPATCH_CPU_FEATURES_H_

#include "protoaccel/protoaccel.h"

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {

struct CpuFeatures {
  char vendor[13];  // "GenuineIntel", "AuthenticAMD", ...; empty off x86
  int family;       // display family (base + extended)
  int model;        // display model
  bool sse41, ssse3, popcnt;
  bool avx2, bmi1, bmi2, lzcnt;  // avx2 implies the OS saves YMM state
  bool avx512f, avx512bw, avx512vl, avx512cd, avx512vbmi, avx512vbmi2;
  // PDEP/PEXT are microcoded (hundreds of cycles) on AMD before Zen 3, so
  // kernels may use them only where this is set.
  bool fast_pdep;
  bool neon;  // arm64
};

const CpuFeatures& DetectCpuFeatures();

// The highest level whose every feature is present.
Isa BestIsa(const CpuFeatures& cpu);

}  // namespace internal
PROTOACCEL_NAMESPACE_END

#endif  // PROTOACCEL_DISPATCH_CPU_FEATURES_H_
