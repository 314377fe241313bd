// What the SSE4.1 and AVX2 blocks of the block loop (block_loop.h) share:
// the short path's 16-bit slots, packed with pmaddubsw and a pshufb from
// kPackTable, and the 16-byte steps of one-byte varints.
// Compiled for the instruction set of the file that includes it
// (PROTOACCEL_KERNEL_TARGET, see dispatch/target.h), so that the intrinsics
// compile for its instruction set.

#ifndef PROTOACCEL_VARINT_DECODE_BLOCK_DECODE_H_
#define PROTOACCEL_VARINT_DECODE_BLOCK_DECODE_H_

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#ifndef PROTOACCEL_KERNEL_TARGET
#error "define PROTOACCEL_KERNEL_TARGET, the instruction set, before including this"
#endif
#include "varint_decode/block_loop.h"
#include "varint_decode/scalar_decode.h"

#include "dispatch/target.h"

PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
// Internal linkage: each kernel file compiles this for its own instruction
// set (see scalar_decode.h).
namespace {

// Stores the 8 values in 16-bit slots, converted: all 8, even where fewer
// are valid (the caller leaves room).
template <typename Conversion>
inline void StoreShort8(__m128i v, typename Conversion::Out* out);

inline void Store128(void* out, __m128i v) {
  _mm_storeu_si128(static_cast<__m128i*>(out), v);
}
inline __m128i ZigZag16(__m128i v) {  // equals ZigZag32/64 below 2^16
  return _mm_xor_si128(_mm_srli_epi16(v, 1),
                       _mm_sub_epi16(_mm_setzero_si128(),
                                     _mm_and_si128(v, _mm_set1_epi16(1))));
}
template <>
inline void StoreShort8<Low32>(__m128i v, uint32_t* out) {
  Store128(out, _mm_cvtepu16_epi32(v));
  Store128(out + 4, _mm_cvtepu16_epi32(_mm_srli_si128(v, 8)));
}
template <>
inline void StoreShort8<ZigZag32>(__m128i v, int32_t* out) {
  const __m128i z = ZigZag16(v);
  Store128(out, _mm_cvtepi16_epi32(z));
  Store128(out + 4, _mm_cvtepi16_epi32(_mm_srli_si128(z, 8)));
}
template <>
inline void StoreShort8<Full64>(__m128i v, uint64_t* out) {
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    Store128(out + 2 * i, _mm_cvtepu16_epi64(v));
    v = _mm_srli_si128(v, 4);
  }
}
template <>
inline void StoreShort8<ZigZag64>(__m128i v, int64_t* out) {
  __m128i z = ZigZag16(v);
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    Store128(out + 2 * i, _mm_cvtepi16_epi64(z));
    z = _mm_srli_si128(z, 4);
  }
}
template <>
inline void StoreShort8<Boolean>(__m128i v, bool* out) {
  const __m128i bytes = _mm_packus_epi16(v, v);  // values are below 2^14
  _mm_storel_epi64(static_cast<__m128i*>(static_cast<void*>(out)),
                   _mm_min_epu8(bytes, _mm_set1_epi8(1)));
}

// The low 4 or 2 bytes of a vector, loaded so that the widening below
// takes them from memory (pmovzx m32/m16): no move from a general register,
// which made 16 one-byte 64-bit values slower than the scalar loop.
inline __m128i Load4(const char* p) { return _mm_loadu_si32(p); }
inline __m128i Load2(const char* p) { return _mm_loadu_si16(p); }
inline __m128i ZigZag32x4(__m128i x) {
  return _mm_xor_si128(_mm_srli_epi32(x, 1),
                       _mm_sub_epi32(_mm_setzero_si128(),
                                     _mm_and_si128(x, _mm_set1_epi32(1))));
}
inline __m128i ZigZag64x2(__m128i x) {
  return _mm_xor_si128(_mm_srli_epi64(x, 1),
                       _mm_sub_epi64(_mm_setzero_si128(),
                                     _mm_and_si128(x, _mm_set1_epi64x(1))));
}

// 16 one-byte varints at p, widened.
template <typename Conversion>
inline void StoreOneByte16(const char* p, typename Conversion::Out* out);
template <>
inline void StoreOneByte16<Low32>(const char* p, uint32_t* out) {
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) Store128(out + 4 * i, _mm_cvtepu8_epi32(Load4(p + 4 * i)));
}
template <>
inline void StoreOneByte16<ZigZag32>(const char* p, int32_t* out) {
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    Store128(out + 4 * i, ZigZag32x4(_mm_cvtepu8_epi32(Load4(p + 4 * i))));
  }
}
template <>
inline void StoreOneByte16<Full64>(const char* p, uint64_t* out) {
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) Store128(out + 2 * i, _mm_cvtepu8_epi64(Load2(p + 2 * i)));
}
template <>
inline void StoreOneByte16<ZigZag64>(const char* p, int64_t* out) {
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    Store128(out + 2 * i, ZigZag64x2(_mm_cvtepu8_epi64(Load2(p + 2 * i))));
  }
}
template <>
inline void StoreOneByte16<Boolean>(const char* p, bool* out) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  Store128(out, _mm_min_epu8(v, _mm_set1_epi8(1)));
}


// Stores the 8 slots' values whose bit is set in `mask`, in order, with
// kStore (which writes all 8 slots). Returns how many.
template <typename Conversion, void (*kStore)(__m128i, typename Conversion::Out*)>
inline int StorePacked8(__m128i slots, uint32_t mask, typename Conversion::Out* out) {
  const __m128i control =
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(kPackTable[mask].data()));
  kStore(_mm_shuffle_epi8(slots, control), out);
  return __builtin_popcount(mask);
}

// 16 bytes of one- and two-byte varints: stores the values that end in
// `bytes` (bit i of `ends` for byte i); `before` holds the byte before each.
// Returns how many.
template <typename Conversion>
inline int DecodeShort16(__m128i bytes, __m128i before, uint32_t ends,
                         typename Conversion::Out* out) {
  // Where the byte before continues a varint, the pair (its low 7 bits,
  // the byte); elsewhere (the byte, 0). Slot i of the pairs, weighted 1 and
  // 128 by pmaddubsw (the weights the unsigned operand), is then the value
  // of a varint that ends at byte i: at most 2^14 - 1, no saturation. The
  // other slots, whatever they hold, are not moved to the output.
  const __m128i continues = _mm_cmplt_epi8(before, _mm_setzero_si128());
  const __m128i first = _mm_blendv_epi8(
      bytes, _mm_and_si128(before, _mm_set1_epi8(0x7f)), continues);
  const __m128i second = _mm_and_si128(bytes, continues);
  int count = 0;
#pragma GCC unroll 2
  for (int half = 0; half < 2; ++half) {
    const __m128i pairs = half == 0 ? _mm_unpacklo_epi8(first, second)
                                    : _mm_unpackhi_epi8(first, second);
    const __m128i v =
        _mm_maddubs_epi16(_mm_set1_epi16(static_cast<int16_t>(0x8001)), pairs);
    count += StorePacked8<Conversion, StoreShort8<Conversion>>(
        v, (ends >> (8 * half)) & 0xff, out + count);
  }
  return count;
}

// The 16-byte steps of the block loop, before and after the blocks.
struct X86Block {
  static bool IsOneByteRun16(const char* p) {
    return _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))) == 0;
  }
  template <typename Conversion>
  static void StoreOneByteRun16(const char* p, typename Conversion::Out* out) {
    StoreOneByte16<Conversion>(p, out);
  }
};

}  // namespace
}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_VARINT_DECODE_BLOCK_DECODE_H_
