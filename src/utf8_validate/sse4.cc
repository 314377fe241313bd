// UTF-8 validation with SSE4.1 (SSSE3's pshufb and palignr): the lookup
// algorithm of lookup.h, 16 bytes a vector and 64 a step.

#include "dispatch/kernels.h"

#if PROTOACCEL_X86
#include <immintrin.h>

#include "utf8_validate/scalar_utf8.h"

#define PROTOACCEL_KERNEL_TARGET "sse4.1,ssse3,popcnt"

#include "utf8_validate/lookup.h"

#include "dispatch/target.h"

PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

// Below this many bytes the scalar kernel runs instead: on the shortest
// strings the vector path's fixed costs (the tail vector, the constants) are
// most of the time. kernels_bench on Zen 5, median ns per call, scalar /
// this path:
//            ascii        2byte        mixed
//    4 B   2.60/2.16    3.25/2.88    2.17/2.83
//    5 B   2.84/2.16    3.48/2.92    2.57/2.81
//    6 B   3.07/2.17    3.86/2.97    2.79/2.81
//    7 B   2.82/2.15    4.39/2.91    2.99/2.85
//    8 B   1.65/2.37    5.48/2.78    4.01/2.76
//   16 B   2.10/2.12   11.30/2.97    8.34/2.98
//   64 B   2.42/2.28   53.20/7.21   30.70/7.30
// From 6 bytes on the vector path is as fast or faster on each kind of
// text, but for 8 bytes of ASCII: one word to the scalar loop.
constexpr size_t kMinBytes = 6;
static_assert(kMinBytes >= 4, "LoadShort16 reads 4 bytes at least");

struct Sse4 {
  using Vec = __m128i;
  static constexpr size_t kWidth = 16;

  static Vec Load(const void* p) {
    return _mm_loadu_si128(static_cast<const __m128i*>(p));
  }
  static Vec LoadTail(const char* p, size_t r, size_t before) {
    return before + r >= kWidth ? utf8_lookup::LoadEnding16(p, r)
                                : utf8_lookup::LoadShort16(p, r);
  }
  static Vec Zero() { return _mm_setzero_si128(); }
  static Vec Set1(uint8_t b) { return _mm_set1_epi8(static_cast<char>(b)); }
  static Vec Broadcast16(const uint8_t* table) { return Load(table); }
  static Vec Or(Vec a, Vec b) { return _mm_or_si128(a, b); }
  static Vec And(Vec a, Vec b) { return _mm_and_si128(a, b); }
  static Vec Xor(Vec a, Vec b) { return _mm_xor_si128(a, b); }
  static Vec SubSat(Vec a, Vec b) { return _mm_subs_epu8(a, b); }
  static Vec Shr4(Vec v) { return _mm_srli_epi16(v, 4); }
  static Vec Lookup(Vec table, Vec index) {
    return _mm_shuffle_epi8(table, index);
  }
  template <int N>
  static Vec Prev(Vec v, Vec before) {
    return _mm_alignr_epi8(v, before, 16 - N);
  }
  static bool AnyTopBit(Vec v) { return _mm_movemask_epi8(v) != 0; }
  static bool AnyNonZero(Vec v) { return !_mm_testz_si128(v, v); }
};

bool ValidateSse4(const char* p, size_t n) {
  if (IsShortAscii(p, n)) return true;
  if (n < kMinBytes) return ValidPrefixScalar(p, n) == n;
  return utf8_lookup::FirstBadBlock<Sse4, false>(p, n) == utf8_lookup::kValid;
}

size_t ValidPrefixSse4(const char* p, size_t n) {
  if (IsShortAscii(p, n)) return n;
  if (n < kMinBytes) return ValidPrefixScalar(p, n);
  const size_t bad = utf8_lookup::FirstBadBlock<Sse4, true>(p, n);
  return bad == utf8_lookup::kValid ? n : ValidPrefixFromBlock(p, n, bad);
}

}  // namespace

const Utf8Kernels kUtf8Sse4 = {ValidateSse4, ValidPrefixSse4};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_X86
