// The parts of the SSE4.1 and AVX2 encoders that work on 128 bits: storing
// the varints a block's lanes hold (the block loop is block_loop.h's).
//
// Neither level has a byte compress, so varints are placed by:
//   - one- and two-byte values: a pshufb per 8 values from a 256-entry table
//     (indexed by which values have a second byte), one 16-byte store;
//   - longer ones: each value's bytes built in a 32- or 64-bit lane,
//     continuation bits included, and stored 8 bytes at a time at the
//     value's offset (9- and 10-byte values, negative int32 ones included,
//     store their last two bytes 8 bytes further).
//     A store writes up to 16 bytes past its value's first byte; the next
//     value's store replaces what was not this value's.
// So a block writes at most kOverrun = 16 bytes past its last value's first
// byte, which the block loop leaves room for.
//
// Compiled for the instruction set of the file that includes it
// (PROTOACCEL_KERNEL_TARGET, see dispatch/target.h; scalar_encode.h for
// the internal linkage); only SSE4.1 instructions here.

#ifndef PROTOACCEL_VARINT_ENCODE_LANES_ENCODE_H_
#define PROTOACCEL_VARINT_ENCODE_LANES_ENCODE_H_

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#ifndef PROTOACCEL_KERNEL_TARGET
#error "define PROTOACCEL_KERNEL_TARGET, the instruction set, before including this"
#endif
#include "varint_encode/block_loop.h"
#include "varint_encode/scalar_encode.h"

#include "dispatch/target.h"

PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

// A constant the compiler cannot see into. gcc 12 compiles a signed
// compare with a constant, x > c, as min(x, c + 1) == c + 1: pminsd,
// pcmpeqd and a register copy where one pcmpgtd does. The compares below
// take their bounds through this (clang keeps pcmpgtd either way). On Zen
// 3, kernels_bench at N = 4096, ns a value before / after: size_uint32/u32
// 0.28 / 0.23 (SSE4.1) and 0.135 / 0.100 (AVX2), size_uint64/u64 with
// SSE4.1 0.83 / 0.57, encode_uint32/u32 with SSE4.1 1.06 / 0.93.
template <typename Vector>
inline Vector Opaque(Vector v) {
  asm("" : "+x"(v));
  return v;
}

// Eight values below 2^14, one per 16-bit lane, as 1- or 2-byte varints.
// Returns the varints' bytes (at the front) and sets *mask to the values
// with a second byte.
inline __m128i ShortVarints8(__m128i y, unsigned* mask) {
  const __m128i two = _mm_cmpgt_epi16(y, Opaque(_mm_set1_epi16(0x7f)));
  // Bits 7..13 up one byte: y + (y & 0x3f80); a continuation bit where
  // there is a second byte.
  __m128i b = _mm_add_epi16(y, _mm_and_si128(y, _mm_set1_epi16(0x3f80)));
  b = _mm_or_si128(b, _mm_and_si128(two, _mm_set1_epi16(0x80)));
  *mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_packs_epi16(two, two))) & 0xff;
  return _mm_shuffle_epi8(
      b, _mm_load_si128(reinterpret_cast<const __m128i*>(kShortTable[*mask].data())));
}

// Writes 16 bytes at out.
inline char* StoreShort8(__m128i y, char* out) {
  unsigned mask;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), ShortVarints8(y, &mask));
  return out + 8 + __builtin_popcount(mask);
}

// The high 8 bytes of v at p, any alignment: movhps (gcc's _mm_storeh_pd is
// a plain double store, undefined when unaligned).
inline void StoreHigh(char* p, __m128i v) {
  _mm_storeh_pi(reinterpret_cast<__m64*>(p), _mm_castsi128_ps(v));
}

// Bits 0..27 of each 32-bit lane as four 7-bit groups, one a byte.
inline __m128i Spread28(__m128i x) {
  // Bits 14..27 to 16..29, then bits 7..13 of each half up one.
  __m128i a = _mm_blend_epi16(x, _mm_slli_epi32(x, 2), 0xaa);
  a = _mm_and_si128(a, _mm_set1_epi32(0x3fff3fff));
  return _mm_add_epi16(a, _mm_and_si128(a, _mm_set1_epi16(0x3f80)));
}

// Bits 0..55 of each 64-bit lane as eight 7-bit groups, one a byte.
inline __m128i Spread56(__m128i w) {
  __m128i a = _mm_blend_epi16(w, _mm_slli_epi64(w, 4), 0xcc);
  return Spread28(_mm_and_si128(a, _mm_set1_epi32(0x0fffffff)));
}

// For x ^ 0x80000000 (signed compares as unsigned): the masks of the 32-bit
// lanes at or above 2^7, 2^14, 2^21, 2^28.
inline __m128i AtLeast(__m128i flipped, int bits) {
  return _mm_cmpgt_epi32(flipped, Opaque(_mm_set1_epi32(static_cast<int32_t>(
                                      ((uint32_t{1} << bits) - 1) ^ 0x80000000u))));
}

// Four values below 2^32, one per 32-bit lane: their first four bytes
// (continuation bits set) in *groups, the fifth in *fifth, and their
// lengths as one byte each. kInt32: the lanes are int32 values, and a
// negative one is 10 bytes, sign-extended: its first five are those of its
// 32 bits taken as unsigned (all continuing) but for the fifth's top three
// bits, which an arithmetic shift sets, with the fifth lane's bytes 1 to 3
// (0xff, bytes 5 to 7 of the varint); Store4 writes bytes 8 and 9.
template <bool kInt32 = false>
inline uint32_t Varints4(__m128i x, __m128i* groups, __m128i* fifth) {
  const __m128i flipped = _mm_xor_si128(x, _mm_set1_epi32(INT32_MIN));
  const __m128i m1 = AtLeast(flipped, 7), m2 = AtLeast(flipped, 14),
                m3 = AtLeast(flipped, 21), m4 = AtLeast(flipped, 28);
  // The masks are nested: byte j continues where m(j+1) is set.
  const __m128i more =
      _mm_or_si128(_mm_or_si128(_mm_srli_epi32(m1, 24), _mm_srli_epi32(m2, 16)),
                   _mm_or_si128(_mm_srli_epi32(m3, 8), m4));
  *groups = _mm_or_si128(Spread28(x),
                         _mm_and_si128(more, _mm_set1_epi8(static_cast<char>(0x80))));
  *fifth = kInt32 ? _mm_srai_epi32(x, 28) : _mm_srli_epi32(x, 28);
  __m128i length = _mm_sub_epi32(
      _mm_set1_epi32(1),
      _mm_add_epi32(_mm_add_epi32(m1, m2), _mm_add_epi32(m3, m4)));
  if (kInt32) {
    length = _mm_add_epi32(length, _mm_and_si128(_mm_srai_epi32(x, 31), _mm_set1_epi32(5)));
  }
  return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_shuffle_epi8(
      length, _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                            -1, -1, -1))));
}

// Stores four varints of up to 5 bytes (Varints4), 8 bytes each at its
// offset. kInt32: up to 10 bytes, each value's 8 followed by the last two
// of a negative int32 (0xff 0x01) 8 bytes on, whatever its length. Every
// byte of a value is written by its own stores, after those of the values
// before it, so what theirs left there is replaced; past the last value
// they write at most 10 bytes from its first.
template <bool kInt32 = false>
inline char* Store4(__m128i groups, __m128i fifth, uint32_t lengths, char* out) {
  // Byte k of the product: the end of value k (at most 20, or 40).
  const uint32_t ends = lengths * 0x01010101u;
  const __m128i s01 = _mm_unpacklo_epi32(groups, fifth);
  const __m128i s23 = _mm_unpackhi_epi32(groups, fifth);
  const auto tail = [](char* p) {
    if (kInt32) {
      const uint16_t bytes = 0x01ff;  // little-endian: 0xff, then 0x01
      std::memcpy(p + 8, &bytes, 2);
    }
  };
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), s01);
  tail(out);
  StoreHigh(out + (ends & 0xff), s01);
  tail(out + (ends & 0xff));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out + ((ends >> 8) & 0xff)), s23);
  tail(out + ((ends >> 8) & 0xff));
  StoreHigh(out + ((ends >> 16) & 0xff), s23);
  tail(out + ((ends >> 16) & 0xff));
  return out + (ends >> 24);
}

// Two values, one per 64-bit lane: their first 8 bytes (continuation bits
// set) in *low, bytes 8 and 9 in *high (if kLong; else the values are below
// 2^56), and their lengths minus one in 64-bit lanes.
template <bool kLong>
inline __m128i Varints2(__m128i w, __m128i* low, __m128i* high) {
  const __m128i top = _mm_set1_epi8(static_cast<char>(0x80));
  const __m128i groups = Spread56(w);
  // Byte j continues if a byte above it is not zero: the nonzero marks
  // shifted down one byte and smeared down the lane.
  __m128i more = _mm_srli_epi64(_mm_andnot_si128(_mm_cmpeq_epi8(groups, _mm_setzero_si128()), top), 8);
  more = _mm_or_si128(more, _mm_srli_epi64(more, 8));
  more = _mm_or_si128(more, _mm_srli_epi64(more, 16));
  more = _mm_or_si128(more, _mm_srli_epi64(more, 32));
  __m128i count = _mm_srli_epi64(more, 7);  // one 1 a continuing byte
  if (kLong) {
    // Bits 56..62 in byte 8 and bit 63 in byte 9: h + (h & 0x80).
    __m128i h = _mm_srli_epi64(w, 56);
    h = _mm_add_epi64(h, _mm_and_si128(h, _mm_set1_epi64x(0x80)));
    more = _mm_or_si128(more, _mm_andnot_si128(_mm_cmpeq_epi64(h, _mm_setzero_si128()), top));
    const __m128i tenth = _mm_and_si128(_mm_srli_epi64(h, 1), _mm_set1_epi64x(0x80));
    *high = _mm_or_si128(h, tenth);
    count = _mm_add_epi64(_mm_srli_epi64(more, 7), _mm_srli_epi64(tenth, 7));
  }
  *low = _mm_or_si128(groups, more);
  return _mm_sad_epu8(count, _mm_setzero_si128());
}

// Stores two varints from Varints2, of `first` and `second` bytes, each at
// its offset.
template <bool kLong>
inline char* Store2(__m128i low, __m128i high, unsigned first, unsigned second,
                    char* out) {
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), low);
  if (kLong) _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 8), high);
  out += first;
  StoreHigh(out, low);
  if (kLong) StoreHigh(out + 8, high);
  return out + second;
}

}  // namespace
}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_VARINT_ENCODE_LANES_ENCODE_H_
