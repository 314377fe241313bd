#include "dispatch/cpu_features.h"

#include <cstring>

#include "dispatch/kernels.h"  // PROTOACCEL_X86

#if PROTOACCEL_X86
#include <cpuid.h>
#endif

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

#if PROTOACCEL_X86

struct Regs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Regs Cpuid(unsigned leaf, unsigned subleaf) {
  Regs r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

// XCR0: which register states the OS saves on a context switch. Read with
// the raw opcode so that this file needs no -mxsave.
unsigned long long Xcr0() {
  unsigned eax, edx;
  __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}

bool Bit(unsigned reg, int bit) { return (reg >> bit) & 1; }

CpuFeatures Detect() {
  CpuFeatures f{};
  const unsigned max_leaf = __get_cpuid_max(0, nullptr);
  if (max_leaf < 1) return f;

  const Regs v = Cpuid(0, 0);
  std::memcpy(f.vendor + 0, &v.ebx, 4);
  std::memcpy(f.vendor + 4, &v.edx, 4);
  std::memcpy(f.vendor + 8, &v.ecx, 4);
  f.vendor[12] = '\0';

  const Regs l1 = Cpuid(1, 0);
  const int base_family = (l1.eax >> 8) & 0xf;
  const int base_model = (l1.eax >> 4) & 0xf;
  f.family = base_family == 0xf ? base_family + ((l1.eax >> 20) & 0xff)
                                : base_family;
  f.model = (base_family == 0xf || base_family == 0x6)
                ? base_model + (((l1.eax >> 16) & 0xf) << 4)
                : base_model;
  f.sse41 = Bit(l1.ecx, 19);
  f.ssse3 = Bit(l1.ecx, 9);
  f.popcnt = Bit(l1.ecx, 23);

  const bool osxsave = Bit(l1.ecx, 27);
  const unsigned long long xcr0 = osxsave ? Xcr0() : 0;
  const bool os_ymm = osxsave && Bit(l1.ecx, 28) && (xcr0 & 0x6) == 0x6;
  // Opmask, upper ZMM0-15 and ZMM16-31 states, on top of YMM.
  const bool os_zmm = os_ymm && (xcr0 & 0xe0) == 0xe0;

  if (max_leaf >= 7) {
    const Regs l7 = Cpuid(7, 0);
    f.avx2 = os_ymm && Bit(l7.ebx, 5);
    f.bmi1 = Bit(l7.ebx, 3);
    f.bmi2 = Bit(l7.ebx, 8);
    f.avx512f = os_zmm && Bit(l7.ebx, 16);
    f.avx512cd = os_zmm && Bit(l7.ebx, 28);
    f.avx512bw = os_zmm && Bit(l7.ebx, 30);
    f.avx512vl = os_zmm && Bit(l7.ebx, 31);
    f.avx512vbmi = os_zmm && Bit(l7.ecx, 1);
    f.avx512vbmi2 = os_zmm && Bit(l7.ecx, 6);
  }
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000, nullptr)) >= 0x80000001u) {
    f.lzcnt = Bit(Cpuid(0x80000001, 0).ecx, 5);
  }

  const bool amd_like = std::strcmp(f.vendor, "AuthenticAMD") == 0 ||
                        std::strcmp(f.vendor, "HygonGenuine") == 0;
  // Zen 3 is family 0x19; Zen 1/2 (0x17) and Hygon (0x18) microcode PDEP.
  f.fast_pdep = f.bmi2 && (!amd_like || f.family >= 0x19);
  return f;
}

#else  // !PROTOACCEL_X86

// AArch64 always has NEON (Advanced SIMD): the Linux ABI and Debian's
// arm64 baseline assume it, and the compiler uses it in scalar code.
CpuFeatures Detect() {
  CpuFeatures f{};
  f.neon = PROTOACCEL_ARM64 != 0;
  return f;
}

#endif

}  // namespace

const CpuFeatures& DetectCpuFeatures() {
  static const CpuFeatures features = Detect();
  return features;
}

Isa BestIsa(const CpuFeatures& f) {
  if (f.neon) return Isa::kNeon;
  const bool sse4 = f.sse41 && f.ssse3 && f.popcnt;
  const bool avx2 = sse4 && f.avx2 && f.bmi1 && f.lzcnt;
  // Kernels at this level may use PDEP/PEXT, fast on every CPU with this set.
  const bool avx512 = avx2 && f.avx512f && f.avx512bw && f.avx512vl &&
                      f.avx512cd && f.avx512vbmi && f.avx512vbmi2 &&
                      f.fast_pdep;
  if (avx512) return Isa::kAvx512;
  if (avx2) return Isa::kAvx2;
  if (sse4) return Isa::kSse4;
  return Isa::kScalar;
}

}  // namespace internal
PROTOACCEL_NAMESPACE_END
