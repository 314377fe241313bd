// Prints what protoaccel detected and which kernel each family uses.
// Exits 2 if PROTOACCEL_ISA holds something other than a level's name.

#include <cstdio>

#include "dispatch/cpu_features.h"
#include "protoaccel/protoaccel.h"

int main() {
  using namespace protoaccel;
  const internal::CpuFeatures& f = internal::DetectCpuFeatures();
  std::printf("cpu: %s family 0x%x model 0x%x\n",
              f.vendor[0] ? f.vendor : "(not x86)", f.family, f.model);
  const struct {
    const char* name;
    bool present;
  } features[] = {
      {"sse4.1", f.sse41},         {"ssse3", f.ssse3},
      {"popcnt", f.popcnt},        {"avx2", f.avx2},
      {"bmi1", f.bmi1},            {"bmi2", f.bmi2},
      {"lzcnt", f.lzcnt},          {"fast-pdep", f.fast_pdep},
      {"avx512f", f.avx512f},      {"avx512bw", f.avx512bw},
      {"avx512vl", f.avx512vl},    {"avx512cd", f.avx512cd},
      {"avx512vbmi", f.avx512vbmi}, {"avx512vbmi2", f.avx512vbmi2},
  };
  std::printf("features:");
  for (const auto& feature : features) {
    if (feature.present) std::printf(" %s", feature.name);
  }
  std::printf("\ndetected: %s\n", IsaName(DetectedIsa()));

  // The library has already said what is wrong with PROTOACCEL_ISA.
  if (*ConfigError() != '\0') return 2;
  std::printf("max: %s\n", IsaName(MaxIsa()));
  for (int i = 0; i < kFamilyCount; ++i) {
    const auto family = static_cast<Family>(i);
    std::printf("kernel %s: %s (%s)\n", FamilyName(family),
                IsaName(ActiveIsa(family)), ActiveReason(family));
  }
  return 0;
}
