// UTF-8 validation with AVX-512 (F, BW, VBMI): the lookup algorithm of
// lookup.h, 64 bytes a vector, the tail through a masked load.
//
// VBMI's vpermb does the work of palignr across the whole vector (the bytes
// before each one, taken from this vector and the one before, in one
// instruction each) and of pshufb for the table lookups, with no masking of
// the index: it reads six bits, and the 16-byte tables are repeated four
// times, so the two bits above the nibble make no difference.

#include "dispatch/kernels.h"

#if PROTOACCEL_X86
#include <immintrin.h>

#include "utf8_validate/scalar_utf8.h"

#define PROTOACCEL_KERNEL_TARGET "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi,bmi2,lzcnt,popcnt"
// gcc 12's AVX-512 headers start some intrinsics from an "undefined" vector
// and then warn about it.
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "utf8_validate/lookup.h"

#include "dispatch/target.h"

PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

using utf8_lookup::kByte1High;
using utf8_lookup::kByte1Low;
using utf8_lookup::kByte2High;
using utf8_lookup::kFourthByteBias;
using utf8_lookup::kIncompleteMax;
using utf8_lookup::kThirdByteBias;
using utf8_lookup::kValid;

// Below this many bytes the scalar kernel runs instead. With a masked load
// for the tail and the constants loaded only past the ASCII test, the vector
// path costs little even on the shortest strings. kernels_bench on Zen 5,
// median ns per call, scalar / this path:
//            ascii        2byte        mixed
//    1 B   1.42/1.67    1.63/1.67    1.47/1.68
//    2 B   1.98/1.68    2.12/2.16    1.94/1.36
//    4 B   2.60/1.66    3.25/2.22    2.17/2.14
//    8 B   1.65/1.34    5.48/2.16    4.01/2.14
//   16 B   2.10/1.32   11.30/2.16    8.34/2.14
//   64 B   2.42/1.91   53.20/2.86   30.70/2.87
// Only a single byte is faster with the scalar loop.
constexpr size_t kMinBytes = 2;

// vpermt2b indexes for the bytes N places back, from the vector before
// (0..63) and this one (64..127): read 64 bytes from kIndexes + 64 - N.
alignas(64) constexpr uint8_t kIndexes[128] = {
    0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,  11,  12,  13,
    14,  15,  16,  17,  18,  19,  20,  21,  22,  23,  24,  25,  26,  27,
    28,  29,  30,  31,  32,  33,  34,  35,  36,  37,  38,  39,  40,  41,
    42,  43,  44,  45,  46,  47,  48,  49,  50,  51,  52,  53,  54,  55,
    56,  57,  58,  59,  60,  61,  62,  63,  64,  65,  66,  67,  68,  69,
    70,  71,  72,  73,  74,  75,  76,  77,  78,  79,  80,  81,  82,  83,
    84,  85,  86,  87,  88,  89,  90,  91,  92,  93,  94,  95,  96,  97,
    98,  99,  100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111,
    112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125,
    126, 127};

inline __m512i Load64(const void* p) { return _mm512_loadu_si512(p); }
// A tail, 1 to 63 bytes, then zeros. Masked-off bytes are not read.
inline __m512i LoadTail(const char* p, size_t r) {
  return _mm512_maskz_loadu_epi8((uint64_t{1} << r) - 1, p);
}

inline bool AnyTopBit(__m512i v) { return _mm512_movepi8_mask(v) != 0; }

// A 16-byte table four times over, for vpermb.
struct Table64 {
  alignas(64) uint8_t bytes[64];
};
constexpr Table64 Repeat4(const uint8_t (&table)[16]) {
  Table64 t{};
  for (int i = 0; i < 64; ++i) t.bytes[i] = table[i % 16];
  return t;
}
constexpr Table64 kByte1High64 = Repeat4(kByte1High);
constexpr Table64 kByte1Low64 = Repeat4(kByte1Low);
constexpr Table64 kByte2High64 = Repeat4(kByte2High);

// v, which gcc can no longer see is a constant: it keeps it in a register
// instead of broadcasting it again in every iteration.
inline __m512i Opaque(__m512i v) {
  __asm__("" : "+v"(v));
  return v;
}

// Ternary-logic immediates, from A = 0xF0, B = 0xCC, C = 0xAA.
constexpr int kAnd3 = 0x80;          // A & B & C
constexpr int kOrThenAnd = 0xa8;     // (A | B) & C
constexpr int kOrXor = 0xf6;         // A | (B ^ C)

class Checker {
 public:
  Checker()
      : byte_1_high_(Load64(kByte1High64.bytes)),
        byte_1_low_(Load64(kByte1Low64.bytes)),
        byte_2_high_(Load64(kByte2High64.bytes)),
        back1_(Load64(kIndexes + 63)),
        back2_(Load64(kIndexes + 62)),
        back3_(Load64(kIndexes + 61)),
        third_(Opaque(_mm512_set1_epi8(static_cast<char>(kThirdByteBias)))),
        fourth_(Opaque(_mm512_set1_epi8(static_cast<char>(kFourthByteBias)))),
        top_(Opaque(_mm512_set1_epi8(static_cast<char>(0x80)))),
        incomplete_max_(Load64(kIncompleteMax)),
        error_(_mm512_setzero_si512()),
        prev_(_mm512_setzero_si512()),
        prev_incomplete_(_mm512_setzero_si512()) {}

  // As utf8_lookup::Checker::Next, one vector at a time.
  void Next(__m512i input) {
    if (!AnyTopBit(input)) {
      error_ = _mm512_or_si512(error_, prev_incomplete_);
      return;
    }
    const __m512i prev1 = _mm512_permutex2var_epi8(prev_, back1_, input);
    const __m512i special = _mm512_ternarylogic_epi64(
        _mm512_permutexvar_epi8(_mm512_srli_epi16(prev1, 4), byte_1_high_),
        _mm512_permutexvar_epi8(prev1, byte_1_low_),
        _mm512_permutexvar_epi8(_mm512_srli_epi16(input, 4), byte_2_high_),
        kAnd3);
    const __m512i prev2 = _mm512_permutex2var_epi8(prev_, back2_, input);
    const __m512i prev3 = _mm512_permutex2var_epi8(prev_, back3_, input);
    const __m512i must_be_continuation = _mm512_ternarylogic_epi64(
        _mm512_subs_epu8(prev2, third_), _mm512_subs_epu8(prev3, fourth_),
        top_, kOrThenAnd);
    error_ = _mm512_ternarylogic_epi64(error_, must_be_continuation, special,
                                       kOrXor);
    prev_incomplete_ = _mm512_subs_epu8(input, incomplete_max_);
    prev_ = input;
  }

  void End() { error_ = _mm512_or_si512(error_, prev_incomplete_); }

  bool Failed() const { return _mm512_test_epi8_mask(error_, error_) != 0; }

 private:
  const __m512i byte_1_high_, byte_1_low_, byte_2_high_;
  const __m512i back1_, back2_, back3_;
  const __m512i third_, fourth_, top_, incomplete_max_;
  __m512i error_, prev_, prev_incomplete_;
};

// As utf8_lookup::CheckFrom.
template <bool kPrefix>
__attribute__((always_inline)) inline size_t CheckFrom(const char* p,
                                                       size_t n, size_t i) {
  Checker checker;
  for (; i + 64 <= n; i += 64) {
    checker.Next(Load64(p + i));
    if (kPrefix && checker.Failed()) return i;
  }
  if (i < n) {
    // The zeros after the last byte are ASCII: a character cut off by the
    // end fails like one cut off by ASCII.
    checker.Next(LoadTail(p + i, n - i));
  } else {
    checker.End();
  }
  if (checker.Failed()) return kPrefix ? i : 0;
  return kValid;
}

// As utf8_lookup::FirstBadBlock.
template <bool kPrefix>
__attribute__((always_inline)) inline size_t FirstBadBlock(const char* p,
                                                           size_t n) {
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    if (AnyTopBit(_mm512_or_si512(Load64(p + i), Load64(p + i + 64)))) {
      return CheckFrom<kPrefix>(p, n, i);
    }
  }
  if (i + 64 <= n) {
    if (AnyTopBit(Load64(p + i))) return CheckFrom<kPrefix>(p, n, i);
    i += 64;
  }
  if (i == n) return kValid;
  const __m512i tail = LoadTail(p + i, n - i);
  if (!AnyTopBit(tail)) return kValid;
  Checker checker;
  checker.Next(tail);
  if (checker.Failed()) return kPrefix ? i : 0;
  return kValid;
}

bool ValidateAvx512(const char* p, size_t n) {
  if (IsShortAscii(p, n)) return true;
  if (n < kMinBytes) return ValidPrefixScalar(p, n) == n;
  return FirstBadBlock<false>(p, n) == kValid;
}

size_t ValidPrefixAvx512(const char* p, size_t n) {
  if (IsShortAscii(p, n)) return n;
  if (n < kMinBytes) return ValidPrefixScalar(p, n);
  const size_t bad = FirstBadBlock<true>(p, n);
  return bad == kValid ? n : ValidPrefixFromBlock(p, n, bad);
}

}  // namespace

const Utf8Kernels kUtf8Avx512 = {ValidateAvx512, ValidPrefixAvx512};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_X86
