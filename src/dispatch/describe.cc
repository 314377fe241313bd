// Describe(): what protoaccel_info prints, and what a library that compiles
// the kernels in (libprotobuf) can hand to a program asking what it runs.

#include <cstdarg>
#include <cstdio>

#include "dispatch/cpu_features.h"
#include "protoaccel/protoaccel.h"

#define PROTOACCEL_STRINGIFY(x) #x
#define PROTOACCEL_STRING(x) PROTOACCEL_STRINGIFY(x)

PROTOACCEL_NAMESPACE_BEGIN
namespace {

// A fixed buffer, not a std::string: trivially destructible, so that a
// static destructor elsewhere may still call Describe().
struct Description {
  char text[1024];
  size_t length;

  void Append(const char* format, ...) __attribute__((format(printf, 2, 3))) {
    if (length >= sizeof(text)) return;
    va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(text + length, sizeof(text) - length, format, args);
    va_end(args);
    if (n > 0) length += static_cast<size_t>(n);
  }
};

Description Make() {
  Description d{};
  d.Append("protoaccel %s (namespace %s)\n", PROTOACCEL_VERSION,
           PROTOACCEL_STRING(PROTOACCEL_NAMESPACE));
  const internal::CpuFeatures& f = internal::DetectCpuFeatures();
#if defined(PROTOACCEL_NO_SIMD)
  d.Append("simd: compiled out (PROTOACCEL_NO_SIMD): scalar kernels only\n");
  // With no SIMD kernel to choose, CPUID is never read.
  d.Append("cpu: not read\n");
#else
  d.Append("cpu: %s family 0x%x model 0x%x\n",
           f.vendor[0] ? f.vendor : "(not x86)", f.family, f.model);
#endif
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
      {"neon", f.neon},
  };
  d.Append("features:");
  for (const auto& feature : features) {
    if (feature.present) d.Append(" %s", feature.name);
  }
  d.Append("\ndetected: %s\n", IsaName(DetectedIsa()));
  if (*ConfigError() != '\0') d.Append("error: %s\n", ConfigError());
  d.Append("max: %s\n", IsaName(MaxIsa()));
  for (int i = 0; i < kFamilyCount; ++i) {
    const auto family = static_cast<Family>(i);
    d.Append("kernel %s: %s (%s)\n", FamilyName(family),
             IsaName(ActiveIsa(family)), ActiveReason(family));
  }
  return d;
}

}  // namespace

const char* Describe() {
  static const Description description = Make();
  return description.text;
}

PROTOACCEL_NAMESPACE_END
