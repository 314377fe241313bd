// The "lookup" UTF-8 validator of Keiser and Lemire ("Validating UTF-8 in
// less than one instruction per byte", 2021), as simdjson and simdutf have
// it: the block loop of the SSE4.1, AVX2 and NEON kernels, and the tables
// of all four.
//
// Every byte is checked against the three before it. Three 16-entry tables,
// indexed by the high and the low nibble of the byte before and by the high
// nibble of the byte itself, give a bit per kind of error that pair can
// show; their AND keeps the kinds all three agree on. The pairs cover every
// error but one: whether a continuation byte after a continuation byte is
// allowed depends on the second and third bytes back (a three- or four-byte
// lead), checked apart. A character cut off by the end of the input shows
// in its last three bytes (kIncompleteMax).
//
// Leading ASCII is skipped before any of this is set up, and later ASCII
// is tested for 64 bytes at a time and needs only the check that no
// character was cut off before it.
//
// On x86, compiled for the instruction set of the file that includes it
// (PROTOACCEL_KERNEL_TARGET, see dispatch/target.h), so that the loop is
// compiled for that file's instruction set and inlines its vector helpers.
// arm64's NEON is its baseline and needs no target.

#ifndef PROTOACCEL_UTF8_VALIDATE_LOOKUP_H_
#define PROTOACCEL_UTF8_VALIDATE_LOOKUP_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "dispatch/kernels.h"  // PROTOACCEL_X86
#include "utf8_validate/scalar_utf8.h"

#if PROTOACCEL_X86
#include <immintrin.h>

#include "dispatch/target.h"

#ifndef PROTOACCEL_KERNEL_TARGET
#error "define PROTOACCEL_KERNEL_TARGET, the instruction set, before including this"
#endif
PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)
#endif

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
// Internal linkage: each kernel file compiles this for its own instruction
// set (see scalar_utf8.h).
namespace {
namespace utf8_lookup {

// The error kinds, one bit each, for a pair (byte before, byte).
constexpr uint8_t kTooShort = 1 << 0;   // 11______ then 0_______ or 11______
constexpr uint8_t kTooLong = 1 << 1;    // 0_______ then 10______
constexpr uint8_t kOverlong3 = 1 << 2;  // 11100000 then 100_____
constexpr uint8_t kTooLarge = 1 << 3;   // 11110100 then 1001____ or 101_____,
                                        // 11110101..11111111 then 1001____..
constexpr uint8_t kSurrogate = 1 << 4;  // 11101101 then 101_____
constexpr uint8_t kOverlong2 = 1 << 5;  // 1100000_ then 10______
// 11110000 then 1000____ (overlong), or 11110101..11111111 then 1000____
// (too large): one bit serves both, as the tables never mix them up.
constexpr uint8_t kOverlong4 = 1 << 6;
constexpr uint8_t kTooLarge1000 = 1 << 6;
// 10______ then 10______: an error unless the byte is the third or fourth
// of its character, which the check on the bytes further back decides. The
// top bit, so that it lines up with that check's result.
constexpr uint8_t kTwoConts = 1 << 7;
// Kinds decided by the high nibble of the byte before alone.
constexpr uint8_t kCarry = kTooShort | kTooLong | kTwoConts;

// Indexed by the high nibble of the byte before.
alignas(16) constexpr uint8_t kByte1High[16] = {
    // 0_______: ASCII
    kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong,
    kTooLong,
    // 10______: continuation
    kTwoConts, kTwoConts, kTwoConts, kTwoConts,
    // 1100____, 1101____: two-byte lead
    kTooShort | kOverlong2, kTooShort,
    // 1110____: three-byte lead
    kTooShort | kOverlong3 | kSurrogate,
    // 1111____: four-byte lead, or none
    kTooShort | kTooLarge | kTooLarge1000 | kOverlong4};

// Indexed by the low nibble of the byte before.
alignas(16) constexpr uint8_t kByte1Low[16] = {
    kCarry | kOverlong3 | kOverlong2 | kOverlong4,  // ____0000
    kCarry | kOverlong2,                            // ____0001
    kCarry,                                         // ____0010
    kCarry,                                         // ____0011
    kCarry | kTooLarge,                             // ____0100
    kCarry | kTooLarge | kTooLarge1000,             // ____0101
    kCarry | kTooLarge | kTooLarge1000,             // ____0110
    kCarry | kTooLarge | kTooLarge1000,             // ____0111
    kCarry | kTooLarge | kTooLarge1000,             // ____1000
    kCarry | kTooLarge | kTooLarge1000,             // ____1001
    kCarry | kTooLarge | kTooLarge1000,             // ____1010
    kCarry | kTooLarge | kTooLarge1000,             // ____1011
    kCarry | kTooLarge | kTooLarge1000,             // ____1100
    kCarry | kTooLarge | kTooLarge1000 | kSurrogate,  // ____1101
    kCarry | kTooLarge | kTooLarge1000,             // ____1110
    kCarry | kTooLarge | kTooLarge1000,             // ____1111
};

// Indexed by the high nibble of the byte itself.
alignas(16) constexpr uint8_t kByte2High[16] = {
    // 0_______: ASCII
    kTooShort, kTooShort, kTooShort, kTooShort, kTooShort, kTooShort,
    kTooShort, kTooShort,
    // 1000____
    kTooLong | kOverlong2 | kTwoConts | kOverlong3 | kTooLarge1000 |
        kOverlong4,
    // 1001____
    kTooLong | kOverlong2 | kTwoConts | kOverlong3 | kTooLarge,
    // 101_____
    kTooLong | kOverlong2 | kTwoConts | kSurrogate | kTooLarge,
    kTooLong | kOverlong2 | kTwoConts | kSurrogate | kTooLarge,
    // 11______: a lead
    kTooShort, kTooShort, kTooShort, kTooShort};

// With a saturating subtraction, these leave the top bit set exactly in a
// byte two places after a three- or four-byte lead (>= 0xE0) and three
// places after a four-byte one (>= 0xF0): bytes that must be continuations.
constexpr uint8_t kThirdByteBias = 0xe0 - 0x80;
constexpr uint8_t kFourthByteBias = 0xf0 - 0x80;

// The largest allowed value of each of a block's last three bytes if the
// input ends there (a saturating subtraction of these is nonzero where a
// character is cut off): no lead of four bytes three back, of three or four
// two back, of any length last. Read as the last kWidth bytes.
alignas(64) constexpr uint8_t kIncompleteMax[64] = {
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
    255, 255, 255, 255, 255, 255, 255, 255, 255, 0xf0 - 1, 0xe0 - 1,
    0xc0 - 1};

// The loop tests kStride bytes (four SSE or NEON vectors, two AVX2 ones)
// for ASCII at a time.
constexpr size_t kStride = 64;

// Returned by FirstBadBlock when the input is valid.
constexpr size_t kValid = ~size_t{0};

// The r in [4, 16) bytes at p, then zeros, as two words, reading nothing
// else: for inputs shorter than a vector (and not shorter than the
// kernels' kMinBytes). Overlapping loads of 8 or 4 bytes, no stores: a copy
// through a zeroed buffer would cost a failed store forwarding.
inline void LoadShortWords(const char* p, size_t r, uint64_t* low, uint64_t* high) {
  *high = 0;
  if (r >= 8) {
    std::memcpy(low, p, 8);
    if (r > 8) {
      std::memcpy(high, p + r - 8, 8);
      *high >>= 8 * (16 - r);
    }
  } else {
    uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + r - 4, 4);
    *low = a | (uint64_t{b} << (8 * (r - 4)));
  }
}

#if PROTOACCEL_X86
// pshufb indexes that move a 16-byte vector down by 16 - r bytes and clear
// the top 16 - r: the 16 bytes at kMoveDown + 16 - r.
alignas(32) constexpr int8_t kMoveDown[32] = {
    0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    10,
    11,   12,   13,   14,   15,   -128, -128, -128, -128, -128, -128,
    -128, -128, -128, -128, -128, -128, -128, -128, -128, -128};

// The r in [1, 16] bytes at p, then zeros, from the 16 bytes that end at
// p + r (the caller knows they are there).
inline __m128i LoadEnding16(const char* p, size_t r) {
  const __m128i last =
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + r - 16));
  return _mm_shuffle_epi8(last, _mm_loadu_si128(reinterpret_cast<const __m128i*>(
                                    kMoveDown + 16 - r)));
}

// LoadShortWords in a vector.
inline __m128i LoadShort16(const char* p, size_t r) {
  uint64_t low, high;
  LoadShortWords(p, r, &low, &high);
  return _mm_set_epi64x(static_cast<int64_t>(high), static_cast<int64_t>(low));
}
#endif  // PROTOACCEL_X86

// The validator's state between vectors, and the checks, over one vector
// type. V (SSE4.1, AVX2 or NEON) provides:
//   Vec, kWidth (bytes in a Vec)
//   Load(p), LoadTail(p, r, before) (the r in [1, kWidth) bytes at p, then
//     zeros; reads nothing past p + r, and nothing before p but the
//     `before` bytes there), Zero(), Set1(b), Broadcast16(table16)
//   Or, And, Xor, SubSat (unsigned saturating), Shr4 (each byte >> 4)
//   Lookup(table, index): a pshufb or tbl (every index here is below 16)
//   Prev<N>(v, before): v moved up N bytes, the last N of `before` below
//   AnyTopBit(v), AnyNonZero(v)
template <typename V>
class Checker {
 public:
  using Vec = typename V::Vec;

  Checker()
      : byte_1_high_(V::Broadcast16(kByte1High)),
        byte_1_low_(V::Broadcast16(kByte1Low)),
        byte_2_high_(V::Broadcast16(kByte2High)),
        low_nibble_(V::Set1(0x0f)),
        third_(V::Set1(kThirdByteBias)),
        fourth_(V::Set1(kFourthByteBias)),
        top_(V::Set1(0x80)),
        incomplete_max_(V::Load(reinterpret_cast<const char*>(kIncompleteMax) +
                                64 - V::kWidth)),
        error_(V::Zero()),
        prev_(V::Zero()),
        prev_incomplete_(V::Zero()) {}

  // The next K vectors of input. An ASCII stretch only needs the check that
  // no character was cut off before it; `prev_` then stays as it was, which
  // is as good as ASCII: a previous vector that ends with no character cut
  // off leaves no lead in its last bytes for the checks to see.
  template <int K>
  void Next(const Vec (&v)[K]) {
    Vec any = v[0];
#pragma GCC unroll 4
    for (int k = 1; k < K; ++k) any = V::Or(any, v[k]);
    if (!V::AnyTopBit(any)) {
      error_ = V::Or(error_, prev_incomplete_);
      return;
    }
    Check(v[0], prev_);
#pragma GCC unroll 4
    for (int k = 1; k < K; ++k) Check(v[k], v[k - 1]);
    prev_incomplete_ = V::SubSat(v[K - 1], incomplete_max_);
    prev_ = v[K - 1];
  }

  // The end of the input comes after the last vector given to Next.
  void End() { error_ = V::Or(error_, prev_incomplete_); }

  bool Failed() const { return V::AnyNonZero(error_); }

 private:
  void Check(Vec input, Vec before) {
    const Vec prev1 = V::template Prev<1>(input, before);
    const Vec special = V::And(
        V::And(V::Lookup(byte_1_high_, V::And(V::Shr4(prev1), low_nibble_)),
               V::Lookup(byte_1_low_, V::And(prev1, low_nibble_))),
        V::Lookup(byte_2_high_, V::And(V::Shr4(input), low_nibble_)));
    const Vec prev2 = V::template Prev<2>(input, before);
    const Vec prev3 = V::template Prev<3>(input, before);
    const Vec must_be_continuation =
        V::And(V::Or(V::SubSat(prev2, third_), V::SubSat(prev3, fourth_)),
               top_);
    error_ = V::Or(error_, V::Xor(must_be_continuation, special));
  }

  const Vec byte_1_high_, byte_1_low_, byte_2_high_;
  const Vec low_nibble_, third_, fourth_, top_, incomplete_max_;
  Vec error_, prev_, prev_incomplete_;
};

// Where the validator first saw an error: the start of the block (kStride
// bytes, or a vector in the tail) whose check failed, or kValid. Only the
// first error matters to kPrefix; without it the checks run to the end and
// the result is 0 or kValid. Checks from i, after ASCII (or nothing), as
// the checker's initial zeros stand for.
template <typename V, bool kPrefix>
__attribute__((always_inline)) inline size_t CheckFrom(const char* p,
                                                       size_t n, size_t i) {
  constexpr size_t kW = V::kWidth;
  constexpr int kPerStride = kStride / kW;
  Checker<V> checker;
  for (; i + kStride <= n; i += kStride) {
    typename V::Vec v[kPerStride];
#pragma GCC unroll 4
    for (int k = 0; k < kPerStride; ++k) v[k] = V::Load(p + i + k * kW);
    checker.Next(v);
    if (kPrefix && checker.Failed()) return i;
  }
  for (; i + kW <= n; i += kW) {
    const typename V::Vec v[1] = {V::Load(p + i)};
    checker.Next(v);
    if (kPrefix && checker.Failed()) return i;
  }
  if (i < n) {
    // The zeros after the last byte are ASCII: a character cut off by the
    // end fails like one cut off by ASCII.
    const typename V::Vec v[1] = {V::LoadTail(p + i, n - i, i)};
    checker.Next(v);
  } else {
    checker.End();
  }
  if (checker.Failed()) return kPrefix ? i : 0;
  return kValid;
}

// The same over the whole input. Leading ASCII, common in text (and all of
// most short strings), is skipped first: it needs none of the checks'
// constants. A tail that is the first non-ASCII vector is checked as it is,
// not loaded again.
// True if any of the kBytes at p has its top bit set.
template <typename V, size_t kBytes>
__attribute__((always_inline)) inline bool AnyNonAscii(const char* p) {
  typename V::Vec any = V::Load(p);
#pragma GCC unroll 8
  for (size_t k = V::kWidth; k < kBytes; k += V::kWidth) {
    any = V::Or(any, V::Load(p + k));
  }
  return V::AnyTopBit(any);
}

template <typename V, bool kPrefix>
__attribute__((always_inline)) inline size_t FirstBadBlock(const char* p,
                                                           size_t n) {
  constexpr size_t kW = V::kWidth;
  size_t i = 0;
  // Two strides a test while the text is ASCII: the loop's own overhead
  // (compare, branch, top-bit test) is then spread over 128 bytes.
  for (; i + 2 * kStride <= n; i += 2 * kStride) {
    if (AnyNonAscii<V, 2 * kStride>(p + i)) return CheckFrom<V, kPrefix>(p, n, i);
  }
  if (i + kStride <= n) {
    if (AnyNonAscii<V, kStride>(p + i)) return CheckFrom<V, kPrefix>(p, n, i);
    i += kStride;
  }
  for (; i + kW <= n; i += kW) {
    if (V::AnyTopBit(V::Load(p + i))) return CheckFrom<V, kPrefix>(p, n, i);
  }
  if (i == n) return kValid;
  const typename V::Vec tail[1] = {V::LoadTail(p + i, n - i, i)};
  if (!V::AnyTopBit(tail[0])) return kValid;
  Checker<V> checker;
  checker.Next(tail);
  if (checker.Failed()) return kPrefix ? i : 0;
  return kValid;
}

}  // namespace utf8_lookup
}  // namespace
}  // namespace internal
PROTOACCEL_NAMESPACE_END

#if PROTOACCEL_X86
PROTOACCEL_TARGET_END
#endif

#endif  // PROTOACCEL_UTF8_VALIDATE_LOOKUP_H_
