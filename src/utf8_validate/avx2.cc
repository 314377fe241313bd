// UTF-8 validation with AVX2: the lookup algorithm of lookup.h, 32 bytes a
// vector and 64 a step.

#include "dispatch/kernels.h"

#if PROTOACCEL_X86
#include <immintrin.h>

#include "utf8_validate/scalar_utf8.h"

#define PROTOACCEL_KERNEL_TARGET "avx2,bmi,lzcnt,popcnt"

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
//    4 B   2.60/2.66    3.25/3.13    2.17/3.08
//    6 B   3.07/2.60    3.86/3.13    2.79/3.07
//    7 B   2.82/2.60    4.39/3.11    2.99/3.08
//    8 B   1.65/2.40    5.48/2.89    4.01/2.81
//   16 B   2.10/2.15   11.30/2.64    8.34/2.60
//   32 B   2.25/2.14   22.30/3.12   15.10/3.06
//   64 B   2.42/2.14   53.20/3.83   30.70/3.77
// From 8 bytes on the vector path is faster on text with any non-ASCII
// character (1.2 ns at 8 bytes, more above), slower only on 8 bytes of
// ASCII, one word to the scalar loop (0.75 ns).
constexpr size_t kMinBytes = 8;
static_assert(kMinBytes >= 4, "LoadShort16 reads 4 bytes at least");

struct Avx2 {
  using Vec = __m256i;
  static constexpr size_t kWidth = 32;

  static Vec Load(const void* p) {
    return _mm256_loadu_si256(static_cast<const __m256i*>(p));
  }
  static Vec LoadTail(const char* p, size_t r, size_t before) {
    using utf8_lookup::LoadEnding16;
    if (r >= 16) {
      const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const __m128i high =
          r == 16 ? _mm_setzero_si128() : LoadEnding16(p + 16, r - 16);
      return _mm256_set_m128i(high, low);
    }
    return _mm256_zextsi128_si256(before + r >= 16
                                      ? LoadEnding16(p, r)
                                      : utf8_lookup::LoadShort16(p, r));
  }
  static Vec Zero() { return _mm256_setzero_si256(); }
  static Vec Set1(uint8_t b) { return _mm256_set1_epi8(static_cast<char>(b)); }
  static Vec Broadcast16(const uint8_t* table) {
    return _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(table)));
  }
  static Vec Or(Vec a, Vec b) { return _mm256_or_si256(a, b); }
  static Vec And(Vec a, Vec b) { return _mm256_and_si256(a, b); }
  static Vec Xor(Vec a, Vec b) { return _mm256_xor_si256(a, b); }
  static Vec SubSat(Vec a, Vec b) { return _mm256_subs_epu8(a, b); }
  static Vec Shr4(Vec v) { return _mm256_srli_epi16(v, 4); }
  static Vec Lookup(Vec table, Vec index) {
    return _mm256_shuffle_epi8(table, index);
  }
  // palignr works within 128-bit lanes: line up the previous lane first.
  template <int N>
  static Vec Prev(Vec v, Vec before) {
    return _mm256_alignr_epi8(v, _mm256_permute2x128_si256(before, v, 0x21),
                              16 - N);
  }
  static bool AnyTopBit(Vec v) { return _mm256_movemask_epi8(v) != 0; }
  static bool AnyNonZero(Vec v) { return !_mm256_testz_si256(v, v); }
};

bool ValidateAvx2(const char* p, size_t n) {
  if (IsShortAscii(p, n)) return true;
  if (n < kMinBytes) return ValidPrefixScalar(p, n) == n;
  return utf8_lookup::FirstBadBlock<Avx2, false>(p, n) == utf8_lookup::kValid;
}

size_t ValidPrefixAvx2(const char* p, size_t n) {
  if (IsShortAscii(p, n)) return n;
  if (n < kMinBytes) return ValidPrefixScalar(p, n);
  const size_t bad = utf8_lookup::FirstBadBlock<Avx2, true>(p, n);
  return bad == utf8_lookup::kValid ? n : ValidPrefixFromBlock(p, n, bad);
}

}  // namespace

const Utf8Kernels kUtf8Avx2 = {ValidateAvx2, ValidPrefixAvx2};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_X86
