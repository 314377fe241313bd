// Varint decode with AVX2: 32-byte blocks (see block_decode.h).

#include <immintrin.h>

#include <cstring>

#include "dispatch/kernels.h"
#include "varint_decode/block_decode.h"

#pragma GCC target("avx2,bmi,lzcnt,popcnt")

namespace protoaccel {
namespace internal {
namespace {

struct Avx2Block {
  static constexpr int kSize = 32;

  static uint32_t Terminators(const char* p) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return ~static_cast<uint32_t>(_mm256_movemask_epi8(v));
  }

  template <typename Conversion>
  static void StoreOneByteValues(const char* p, typename Conversion::Out* out);
};

__m128i Load8(const char* p) {
  return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
}
__m128i Load4(const char* p) {
  int32_t x;
  std::memcpy(&x, p, 4);
  return _mm_cvtsi32_si128(x);
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
  for (int i = 0; i < 4; ++i) Store(out + 8 * i, _mm256_cvtepu8_epi32(Load8(p + 8 * i)));
}
template <>
void Avx2Block::StoreOneByteValues<ZigZag32>(const char* p, int32_t* out) {
  for (int i = 0; i < 4; ++i) {
    Store(out + 8 * i, ZigZag32x8(_mm256_cvtepu8_epi32(Load8(p + 8 * i))));
  }
}
template <>
void Avx2Block::StoreOneByteValues<Full64>(const char* p, uint64_t* out) {
  for (int i = 0; i < 8; ++i) Store(out + 4 * i, _mm256_cvtepu8_epi64(Load4(p + 4 * i)));
}
template <>
void Avx2Block::StoreOneByteValues<ZigZag64>(const char* p, int64_t* out) {
  for (int i = 0; i < 8; ++i) {
    Store(out + 4 * i, ZigZag64x4(_mm256_cvtepu8_epi64(Load4(p + 4 * i))));
  }
}
template <>
void Avx2Block::StoreOneByteValues<Boolean>(const char* p, bool* out) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  Store(out, _mm256_min_epu8(v, _mm256_set1_epi8(1)));
}

}  // namespace

const VarintDecodeKernels kVarintDecodeAvx2 = {
    DecodeBlocks<Avx2Block, Low32>,    DecodeBlocks<Avx2Block, Full64>,
    DecodeBlocks<Avx2Block, ZigZag32>, DecodeBlocks<Avx2Block, ZigZag64>,
    DecodeBlocks<Avx2Block, Boolean>,
};

}  // namespace internal
}  // namespace protoaccel
