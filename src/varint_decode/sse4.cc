// Varint decode with SSE4.1: 16-byte blocks for the one-byte path (see block_loop.h).

#include "dispatch/kernels.h"

#if PROTOACCEL_X86
#include <immintrin.h>

#include <cstring>

#define PROTOACCEL_KERNEL_TARGET "sse4.1,ssse3,popcnt"

#include "varint_decode/block_decode.h"

#include "dispatch/target.h"

PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

struct Sse4Block : X86Block {
  static constexpr int kSize = 16;

  static uint32_t Terminators(const char* p) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return ~static_cast<uint32_t>(_mm_movemask_epi8(v)) & 0xffff;
  }

  template <typename Conversion>
  static void StoreOneByteValues(const char* p, typename Conversion::Out* out);

  template <typename Conversion>
  static void DecodeShort(const char* q, bool at_start, uint64_t ends,
                          typename Conversion::Out* out);

  // Four 32-bit values fill a vector (PackLow32), as two 64-bit ones do.
  template <typename Conversion>
  static constexpr int kGroup = kNeedsHighBits<Conversion> ? 2 : 4;
  template <typename Conversion>
  static void DecodeGroup(const char* const* starts,
                          typename Conversion::Out* out);
};

template <typename Conversion>
void Sse4Block::StoreOneByteValues(const char* p, typename Conversion::Out* out) {
  StoreOneByte16<Conversion>(p, out);
}

template <typename Conversion>
void Sse4Block::DecodeShort(const char* q, bool at_start, uint64_t ends,
                            typename Conversion::Out* out) {
#pragma GCC unroll 4
  for (int i = 0; i < 64; i += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i));
    // The byte before each: a load, not a palignr (shuffle ports are the
    // scarcer here), but for the first, which has none.
    const __m128i before =
        i == 0 && at_start
            ? _mm_slli_si128(bytes, 1)
            : _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i - 1));
    out += DecodeShort16<Conversion>(bytes, before,
                                     static_cast<uint32_t>(ends >> i) & 0xffff, out);
  }
}

// 0x80 in each byte of x that ends a varint (its top bit clear), else 0.
inline __m128i Ends(__m128i x) {
  return _mm_andnot_si128(x, _mm_set1_epi8(static_cast<char>(0x80)));
}

// The varints of x, one per 64-bit lane (their first 8 bytes), cut after
// their first terminator and packed 28 bits to a 32-bit element: bytes 0-3
// of a lane in its low element, bytes 4-7 in its high one.
inline __m128i PackHalves(__m128i x) {
  // Ends(x) - 1 has each lane's bytes below its first terminator all ones,
  // the terminator's 0x7f and, above, Ends' own bytes, which x's clear: so
  // it keeps the varint's bytes; with no terminator in the lane, all of them.
  __m128i v = _mm_and_si128(x, _mm_sub_epi64(Ends(x), _mm_set1_epi64x(1)));
  v = _mm_and_si128(v, _mm_set1_epi8(0x7f));
  // Pack 7-bit groups: pairs into 14 bits (b0 + 128 b1, the unsigned
  // operand first), pairs of those into 28.
  v = _mm_maddubs_epi16(_mm_set1_epi16(static_cast<int16_t>(0x8001)), v);
  return _mm_madd_epi16(v, _mm_set1_epi32(0x40000001));
}

// Four varints, one per 64-bit lane of x and y: the low 32 bits of their
// values. A varint's 6th byte on reaches bits 35 and up: its 9th and 10th
// bytes are never looked at.
inline __m128i PackLow32(__m128i x, __m128i y) {
  const __m128 lo = _mm_castsi128_ps(PackHalves(x));
  const __m128 hi = _mm_castsi128_ps(PackHalves(y));
  const __m128i low28 = _mm_castps_si128(_mm_shuffle_ps(lo, hi, 0x88));
  const __m128i high28 = _mm_castps_si128(_mm_shuffle_ps(lo, hi, 0xdd));
  return _mm_or_si128(low28, _mm_slli_epi32(high28, 28));
}

// Two varints, one per 64-bit lane of x (their first 8 bytes; `next`, the
// 8 after): their values.
inline __m128i PackLanes(__m128i x, __m128i next) {
  __m128i v = PackHalves(x);
  v = _mm_or_si128(_mm_blend_epi16(v, _mm_setzero_si128(), 0xcc),
                   _mm_slli_epi64(_mm_srli_epi64(v, 32), 28));
  // Lanes with no terminator in their first 8 bytes have 9 or 10: the 9th
  // byte's 7 bits, and bit 0 of the 10th if the 9th continues.
  const __m128i is_long = _mm_cmpeq_epi64(Ends(x), _mm_setzero_si128());
  const __m128i bits56 =
      _mm_slli_epi64(_mm_and_si128(next, _mm_set1_epi64x(0x7f)), 56);
  const __m128i bit63 = _mm_slli_epi64(
      _mm_and_si128(_mm_srli_epi64(next, 7), _mm_srli_epi64(next, 8)), 63);
  return _mm_or_si128(v, _mm_and_si128(is_long, _mm_or_si128(bits56, bit63)));
}

// Stores four values from 32-bit lanes, or two from 64-bit ones, converted.
template <typename Conversion>
void StoreLanes(__m128i v, typename Conversion::Out* out);
template <>
void StoreLanes<Low32>(__m128i v, uint32_t* out) {
  Store128(out, v);
}
template <>
void StoreLanes<ZigZag32>(__m128i v, int32_t* out) {
  Store128(out, ZigZag32x4(v));
}
template <>
void StoreLanes<Full64>(__m128i v, uint64_t* out) {
  Store128(out, v);
}
template <>
void StoreLanes<ZigZag64>(__m128i v, int64_t* out) {
  Store128(out, ZigZag64x2(v));
}
template <>
void StoreLanes<Boolean>(__m128i v, bool* out) {
  const int zero = _mm_movemask_pd(
      _mm_castsi128_pd(_mm_cmpeq_epi64(v, _mm_setzero_si128())));
  out[0] = (zero & 1) == 0;
  out[1] = (zero & 2) == 0;
}

template <typename Conversion>
void Sse4Block::DecodeGroup(const char* const* starts,
                            typename Conversion::Out* out) {
  constexpr int kGroup = Sse4Block::kGroup<Conversion>;
  __m128i in[kGroup];
#pragma GCC unroll 4
  for (int i = 0; i < kGroup; ++i) {
    in[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(starts[i]));
  }
  if constexpr (kGroup == 2) {
    StoreLanes<Conversion>(PackLanes(_mm_unpacklo_epi64(in[0], in[1]),
                                     _mm_unpackhi_epi64(in[0], in[1])),
                           out);
  } else {
    static_assert(kGroup == 4, "PackLow32 takes four");
    StoreLanes<Conversion>(PackLow32(_mm_unpacklo_epi64(in[0], in[1]),
                                     _mm_unpacklo_epi64(in[2], in[3])),
                           out);
  }
}

}  // namespace

const VarintDecodeKernels kVarintDecodeSse4 = {
    DecodeBlocks<Sse4Block, Low32>,    DecodeBlocks<Sse4Block, Full64>,
    DecodeBlocks<Sse4Block, ZigZag32>, DecodeBlocks<Sse4Block, ZigZag64>,
    DecodeBlocks<Sse4Block, Boolean>,
};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_X86
