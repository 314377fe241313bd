// Varint decode with SSE4.1: 16-byte blocks (see block_decode.h).

#include <immintrin.h>

#include <cstring>

#include "dispatch/kernels.h"
#include "varint_decode/block_decode.h"

#pragma GCC target("sse4.1,ssse3,popcnt")

namespace protoaccel {
namespace internal {
namespace {

struct Sse4Block {
  static constexpr int kSize = 16;

  static uint32_t Terminators(const char* p) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return ~static_cast<uint32_t>(_mm_movemask_epi8(v)) & 0xffff;
  }

  template <typename Conversion>
  static void StoreOneByteValues(const char* p, typename Conversion::Out* out);
};

__m128i Load(const char* p, int bytes) {
  int64_t x = 0;
  std::memcpy(&x, p, bytes);
  return _mm_cvtsi64_si128(x);
}
void Store(void* out, __m128i v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), v);
}
__m128i ZigZag32x4(__m128i x) {
  return _mm_xor_si128(_mm_srli_epi32(x, 1),
                       _mm_sub_epi32(_mm_setzero_si128(),
                                     _mm_and_si128(x, _mm_set1_epi32(1))));
}
__m128i ZigZag64x2(__m128i x) {
  return _mm_xor_si128(_mm_srli_epi64(x, 1),
                       _mm_sub_epi64(_mm_setzero_si128(),
                                     _mm_and_si128(x, _mm_set1_epi64x(1))));
}

template <>
void Sse4Block::StoreOneByteValues<Low32>(const char* p, uint32_t* out) {
  for (int i = 0; i < 4; ++i) Store(out + 4 * i, _mm_cvtepu8_epi32(Load(p + 4 * i, 4)));
}
template <>
void Sse4Block::StoreOneByteValues<ZigZag32>(const char* p, int32_t* out) {
  for (int i = 0; i < 4; ++i) {
    Store(out + 4 * i, ZigZag32x4(_mm_cvtepu8_epi32(Load(p + 4 * i, 4))));
  }
}
template <>
void Sse4Block::StoreOneByteValues<Full64>(const char* p, uint64_t* out) {
  for (int i = 0; i < 8; ++i) Store(out + 2 * i, _mm_cvtepu8_epi64(Load(p + 2 * i, 2)));
}
template <>
void Sse4Block::StoreOneByteValues<ZigZag64>(const char* p, int64_t* out) {
  for (int i = 0; i < 8; ++i) {
    Store(out + 2 * i, ZigZag64x2(_mm_cvtepu8_epi64(Load(p + 2 * i, 2))));
  }
}
template <>
void Sse4Block::StoreOneByteValues<Boolean>(const char* p, bool* out) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  Store(out, _mm_min_epu8(v, _mm_set1_epi8(1)));
}

}  // namespace

const VarintDecodeKernels kVarintDecodeSse4 = {
    DecodeBlocks<Sse4Block, Low32>,    DecodeBlocks<Sse4Block, Full64>,
    DecodeBlocks<Sse4Block, ZigZag32>, DecodeBlocks<Sse4Block, ZigZag64>,
    DecodeBlocks<Sse4Block, Boolean>,
};

}  // namespace internal
}  // namespace protoaccel
