// UTF-8 validation with NEON (arm64): the lookup algorithm of lookup.h, 16
// bytes a vector and 64 a step, as simdutf's arm64 kernel has it. tbl
// stands in for pshufb, ext for palignr, and an across-lanes maximum
// (umaxv) for movemask.

#include "dispatch/kernels.h"

#if PROTOACCEL_ARM64
#include <arm_neon.h>

#include "utf8_validate/lookup.h"
#include "utf8_validate/scalar_utf8.h"

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

// Below this many bytes the scalar kernel runs instead, as for SSE4.1 and
// AVX2 (whose crossover, 6 to 8 bytes, was measured on x86; not measured
// here: no arm64 hardware).
constexpr size_t kMinBytes = 8;
static_assert(kMinBytes >= 4, "LoadShortWords reads 4 bytes at least");

struct Neon {
  using Vec = uint8x16_t;
  static constexpr size_t kWidth = 16;

  static Vec Load(const void* p) { return vld1q_u8(static_cast<const uint8_t*>(p)); }
  static Vec LoadTail(const char* p, size_t r, size_t before) {
    if (before + r >= kWidth) {
      // The 16 bytes that end at p + r, moved down by 16 - r: byte j takes
      // index j + 16 - r, which tbl turns to 0 from 16 on (j >= r).
      constexpr uint8_t kIota[16] = {0, 1, 2,  3,  4,  5,  6,  7,
                                     8, 9, 10, 11, 12, 13, 14, 15};
      const Vec index = vaddq_u8(vld1q_u8(kIota), vdupq_n_u8(static_cast<uint8_t>(16 - r)));
      return vqtbl1q_u8(Load(p + r - 16), index);
    }
    uint64_t low, high;
    utf8_lookup::LoadShortWords(p, r, &low, &high);
    return vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(low), vcreate_u64(high)));
  }
  static Vec Zero() { return vdupq_n_u8(0); }
  static Vec Set1(uint8_t b) { return vdupq_n_u8(b); }
  static Vec Broadcast16(const uint8_t* table) { return vld1q_u8(table); }
  static Vec Or(Vec a, Vec b) { return vorrq_u8(a, b); }
  static Vec And(Vec a, Vec b) { return vandq_u8(a, b); }
  static Vec Xor(Vec a, Vec b) { return veorq_u8(a, b); }
  static Vec SubSat(Vec a, Vec b) { return vqsubq_u8(a, b); }
  static Vec Shr4(Vec v) { return vshrq_n_u8(v, 4); }
  static Vec Lookup(Vec table, Vec index) { return vqtbl1q_u8(table, index); }
  template <int N>
  static Vec Prev(Vec v, Vec before) {
    return vextq_u8(before, v, 16 - N);
  }
  static bool AnyTopBit(Vec v) { return vmaxvq_u8(v) >= 0x80; }
  static bool AnyNonZero(Vec v) { return vmaxvq_u8(v) != 0; }
};

bool ValidateNeon(const char* p, size_t n) {
  if (IsShortAscii(p, n)) return true;
  if (n < kMinBytes) return ValidPrefixScalar(p, n) == n;
  return utf8_lookup::FirstBadBlock<Neon, false>(p, n) == utf8_lookup::kValid;
}

size_t ValidPrefixNeon(const char* p, size_t n) {
  if (IsShortAscii(p, n)) return n;
  if (n < kMinBytes) return ValidPrefixScalar(p, n);
  const size_t bad = utf8_lookup::FirstBadBlock<Neon, true>(p, n);
  return bad == utf8_lookup::kValid ? n : ValidPrefixFromBlock(p, n, bad);
}

}  // namespace

const Utf8Kernels kUtf8Neon = {ValidateNeon, ValidPrefixNeon};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

#endif  // PROTOACCEL_ARM64
