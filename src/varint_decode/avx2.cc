// Varint decode with AVX2: 32-byte blocks for the one-byte path (see block_loop.h).

#include "dispatch/kernels.h"

#if PROTOACCEL_X86
#include <immintrin.h>

#include <cstring>

#define PROTOACCEL_KERNEL_TARGET "avx2,bmi,lzcnt,popcnt"

#include "varint_decode/block_decode.h"

#include "dispatch/target.h"

PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

struct Avx2Block : X86Block {
  static constexpr int kSize = 32;

  static uint32_t Terminators(const char* p) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return ~static_cast<uint32_t>(_mm256_movemask_epi8(v));
  }

  template <typename Conversion>
  static void StoreOneByteValues(const char* p, typename Conversion::Out* out);

  template <typename Conversion>
  static void DecodeShort(const char* q, bool at_start, uint64_t ends,
                          typename Conversion::Out* out);

  template <typename Conversion>
  static constexpr int kGroup = 4;
  template <typename Conversion>
  static void DecodeGroup(const char* const* starts,
                          typename Conversion::Out* out);
};

__m128i Load8(const char* p) {
  return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
}
void Store(void* out, __m256i v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v);
}
__m256i ZigZag32x8(__m256i x) {
  return _mm256_xor_si256(
      _mm256_srli_epi32(x, 1),
      _mm256_sub_epi32(_mm256_setzero_si256(),
                       _mm256_and_si256(x, _mm256_set1_epi32(1))));
}
__m256i ZigZag64x4(__m256i x) {
  return _mm256_xor_si256(
      _mm256_srli_epi64(x, 1),
      _mm256_sub_epi64(_mm256_setzero_si256(),
                       _mm256_and_si256(x, _mm256_set1_epi64x(1))));
}

template <>
void Avx2Block::StoreOneByteValues<Low32>(const char* p, uint32_t* out) {
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) Store(out + 8 * i, _mm256_cvtepu8_epi32(Load8(p + 8 * i)));
}
template <>
void Avx2Block::StoreOneByteValues<ZigZag32>(const char* p, int32_t* out) {
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    Store(out + 8 * i, ZigZag32x8(_mm256_cvtepu8_epi32(Load8(p + 8 * i))));
  }
}
template <>
void Avx2Block::StoreOneByteValues<Full64>(const char* p, uint64_t* out) {
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) Store(out + 4 * i, _mm256_cvtepu8_epi64(Load4(p + 4 * i)));
}
template <>
void Avx2Block::StoreOneByteValues<ZigZag64>(const char* p, int64_t* out) {
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    Store(out + 4 * i, ZigZag64x4(_mm256_cvtepu8_epi64(Load4(p + 4 * i))));
  }
}
template <>
void Avx2Block::StoreOneByteValues<Boolean>(const char* p, bool* out) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  Store(out, _mm256_min_epu8(v, _mm256_set1_epi8(1)));
}

// Stores 8 values from 16-bit slots, converted: all 8, as StoreShort8.
template <typename Conversion>
void StoreShort8x(__m128i v, typename Conversion::Out* out);
template <>
void StoreShort8x<Low32>(__m128i v, uint32_t* out) {
  Store(out, _mm256_cvtepu16_epi32(v));
}
template <>
void StoreShort8x<ZigZag32>(__m128i v, int32_t* out) {
  Store(out, _mm256_cvtepi16_epi32(ZigZag16(v)));
}
template <>
void StoreShort8x<Full64>(__m128i v, uint64_t* out) {
  Store(out, _mm256_cvtepu16_epi64(v));
  Store(out + 4, _mm256_cvtepu16_epi64(_mm_srli_si128(v, 8)));
}
template <>
void StoreShort8x<ZigZag64>(__m128i v, int64_t* out) {
  const __m128i z = ZigZag16(v);
  Store(out, _mm256_cvtepi16_epi64(z));
  Store(out + 4, _mm256_cvtepi16_epi64(_mm_srli_si128(z, 8)));
}
template <>
void StoreShort8x<Boolean>(__m128i v, bool* out) {
  StoreShort8<Boolean>(v, out);
}

// As DecodeShort16 (block_decode.h), 32 bytes at a time: 8-slot groups
// come in the order lane 0 of the low unpack, lane 0 of the high, then
// lane 1 of each.
template <typename Conversion>
void Avx2Block::DecodeShort(const char* q, bool at_start, uint64_t ends,
                            typename Conversion::Out* out) {
#pragma GCC unroll 2
  for (int i = 0; i < 64; i += 32) {
    const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i));
    // The byte before each: a load, not the two shuffles that move bytes
    // across lanes, but for the first, which has none.
    const __m256i before =
        i == 0 && at_start
            ? _mm256_alignr_epi8(bytes, _mm256_permute2x128_si256(bytes, bytes, 0x08), 15)
            : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i - 1));
    const __m256i continues = _mm256_cmpgt_epi8(_mm256_setzero_si256(), before);
    const __m256i first = _mm256_blendv_epi8(
        bytes, _mm256_and_si256(before, _mm256_set1_epi8(0x7f)), continues);
    const __m256i second = _mm256_and_si256(bytes, continues);
    const __m256i weights = _mm256_set1_epi16(static_cast<int16_t>(0x8001));
    const __m256i low = _mm256_maddubs_epi16(weights, _mm256_unpacklo_epi8(first, second));
    const __m256i high = _mm256_maddubs_epi16(weights, _mm256_unpackhi_epi8(first, second));
    const __m128i slots[4] = {
        _mm256_castsi256_si128(low), _mm256_castsi256_si128(high),
        _mm256_extracti128_si256(low, 1), _mm256_extracti128_si256(high, 1)};
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      out += StorePacked8<Conversion, StoreShort8x<Conversion>>(
          slots[k], static_cast<uint32_t>(ends >> (i + 8 * k)) & 0xff, out);
    }
  }
}

// Four varints, one per 64-bit lane of x (their first 8 bytes; `next`, the
// 8 after): their values. As the SSE4.1 kernel's PackHalves and
// PackLanes, twice as wide.
inline __m256i PackLanes(__m256i x, __m256i next, bool high_bits) {
  const __m256i top = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i ends = _mm256_andnot_si256(x, top);
  __m256i v = _mm256_and_si256(x, _mm256_sub_epi64(ends, _mm256_set1_epi64x(1)));
  v = _mm256_and_si256(v, _mm256_set1_epi8(0x7f));
  v = _mm256_maddubs_epi16(_mm256_set1_epi16(static_cast<int16_t>(0x8001)), v);
  v = _mm256_madd_epi16(v, _mm256_set1_epi32(0x40000001));
  v = _mm256_or_si256(_mm256_blend_epi16(v, _mm256_setzero_si256(), 0xcc),
                      _mm256_slli_epi64(_mm256_srli_epi64(v, 32), 28));
  if (high_bits) {
    const __m256i is_long = _mm256_cmpeq_epi64(ends, _mm256_setzero_si256());
    const __m256i bits56 =
        _mm256_slli_epi64(_mm256_and_si256(next, _mm256_set1_epi64x(0x7f)), 56);
    const __m256i bit63 = _mm256_slli_epi64(
        _mm256_and_si256(_mm256_srli_epi64(next, 7), _mm256_srli_epi64(next, 8)),
        63);
    v = _mm256_or_si256(v,
                        _mm256_and_si256(is_long, _mm256_or_si256(bits56, bit63)));
  }
  return v;
}

// Stores four values from 64-bit lanes, converted.
template <typename Conversion>
void StoreLanes(__m256i v, typename Conversion::Out* out);
inline __m128i LowHalves(__m256i v) {
  return _mm256_castsi256_si128(
      _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}
template <>
void StoreLanes<Low32>(__m256i v, uint32_t* out) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), LowHalves(v));
}
template <>
void StoreLanes<ZigZag32>(__m256i v, int32_t* out) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                   _mm256_castsi256_si128(ZigZag32x8(_mm256_castsi128_si256(LowHalves(v)))));
}
template <>
void StoreLanes<Full64>(__m256i v, uint64_t* out) {
  Store(out, v);
}
template <>
void StoreLanes<ZigZag64>(__m256i v, int64_t* out) {
  Store(out, ZigZag64x4(v));
}
template <>
void StoreLanes<Boolean>(__m256i v, bool* out) {
  const int zero = _mm256_movemask_pd(
      _mm256_castsi256_pd(_mm256_cmpeq_epi64(v, _mm256_setzero_si256())));
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) out[i] = ((zero >> i) & 1) == 0;
}

template <typename Conversion>
void Avx2Block::DecodeGroup(const char* const* starts,
                            typename Conversion::Out* out) {
  __m128i in[4];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    in[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(starts[i]));
  }
  const __m256i low = _mm256_setr_m128i(_mm_unpacklo_epi64(in[0], in[1]),
                                        _mm_unpacklo_epi64(in[2], in[3]));
  const __m256i next = _mm256_setr_m128i(_mm_unpackhi_epi64(in[0], in[1]),
                                         _mm_unpackhi_epi64(in[2], in[3]));
  StoreLanes<Conversion>(PackLanes(low, next, kNeedsHighBits<Conversion>), out);
}

}  // namespace

const VarintDecodeKernels kVarintDecodeAvx2 = {
    DecodeBlocks<Avx2Block, Low32>,    DecodeBlocks<Avx2Block, Full64>,
    DecodeBlocks<Avx2Block, ZigZag32>, DecodeBlocks<Avx2Block, ZigZag64>,
    DecodeBlocks<Avx2Block, Boolean>,
};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_X86
