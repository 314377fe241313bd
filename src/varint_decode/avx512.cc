// Varint decode with AVX-512 (F, BW, VL, VBMI, VBMI2) and BMI2 (PDEP/PEXT,
// fast on every CPU with this AVX-512 set).
//
// 64 bytes at a time. The terminator mask (bytes with the top bit clear)
// marks where each varint ends. A block of 64 one-byte varints is a widening
// copy. Otherwise the start positions, compressed out of an index vector
// (vpcompressb), let vpermb line up eight varints at a time, one per 64-bit
// lane; the bytes after each lane's first terminator are cleared and the
// 7-bit groups packed with three shift-and-blend steps. Varints of 9 or 10
// bytes (64-bit values) take their last bits from a second vpermb. Blocks of
// one- and two-byte varints, common in real data, take a shorter path:
// vpexpandb spreads 32 of them at a time into 16-bit slots.
//
// Only bytes below `limit` are loaded (masked loads in the tail), and only
// as many values as the block holds are stored (masked stores for partial
// groups), so neither side is touched out of bounds. A block that holds an 11-byte varint, or a
// varint that runs into `limit`, goes to the scalar decoder, whose errors
// are protobuf's.

#include <immintrin.h>

#include <type_traits>

#include "dispatch/kernels.h"
#include "varint_decode/scalar_decode.h"

#pragma GCC target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi,bmi2,lzcnt,popcnt")
// gcc 12's AVX-512 headers start some intrinsics from an "undefined" vector
// and then warn about it.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace protoaccel {
namespace internal {
namespace {

// Below this many bytes the scalar kernel runs instead: the block setup
// (constants, compress, permutes) costs more than it saves. Measured with
// kernels_bench on Zen 5: 16 one-byte values tie, 16 two-byte values (32
// bytes) are 1.2x faster here.
constexpr ptrdiff_t kMinBytes = 32;

inline uint64_t LowBits(int n) {  // bits [0, n), n in [0, 64]
  return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
}

// Eight varints, one per 64-bit lane, each lane holding the varint's first
// bytes (and, beyond its end, anything): the values' low 56 bits.
inline __m512i PackLow56(__m512i bytes) {
  const __m512i top = _mm512_set1_epi8(static_cast<char>(0x80));
  // x ^ (x - 1) keeps each lane up to and including its first terminator's
  // top bit; with no terminator in the lane (x == 0), all of it.
  const __m512i ends = _mm512_andnot_si512(bytes, top);
  const __m512i keep =
      _mm512_xor_si512(ends, _mm512_sub_epi64(ends, _mm512_set1_epi64(1)));
  // bytes & keep & 0x7f...: imm 0x40 is A & B & ~C with C = top.
  __m512i v = _mm512_ternarylogic_epi64(bytes, keep, top, 0x40);
  // Pack 7-bit groups: pairs in 16-bit lanes, then 32, then 64.
  // Each step is (mask ? x : x >> s), imm 0xCA = A ? B : C.
  v = _mm512_ternarylogic_epi64(_mm512_set1_epi16(0x007f), v,
                                _mm512_srli_epi16(v, 1), 0xCA);
  v = _mm512_ternarylogic_epi64(_mm512_set1_epi32(0x3fff), v,
                                _mm512_srli_epi32(v, 2), 0xCA);
  v = _mm512_ternarylogic_epi64(_mm512_set1_epi64(0x0fffffff), v,
                                _mm512_srli_epi64(v, 4), 0xCA);
  return v;
}

// Bits 56..63 of varints longer than 8 bytes: 7 bits of the 9th byte and,
// if the 9th continues, bit 0 of the 10th (protobuf drops its bits 1-6).
// `next` holds each lane's bytes 8.. at its bottom.
inline __m512i High8(__m512i next) {
  const __m512i top = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i ends = _mm512_andnot_si512(next, top);
  const __m512i keep =
      _mm512_xor_si512(ends, _mm512_sub_epi64(ends, _mm512_set1_epi64(1)));
  const __m512i b = _mm512_ternarylogic_epi64(next, keep, top, 0x40);
  const __m512i bit56 = _mm512_slli_epi64(
      _mm512_and_si512(b, _mm512_set1_epi64(0x7f)), 56);
  const __m512i bit63 = _mm512_slli_epi64(
      _mm512_and_si512(b, _mm512_set1_epi64(0x100)), 55);
  return _mm512_or_si512(bit56, bit63);
}

// ZigZag decoding, (x >> 1) ^ -(x & 1), per lane.
inline __m256i ZigZag32x8(__m256i x) {
  return _mm256_xor_si256(
      _mm256_srli_epi32(x, 1),
      _mm256_sub_epi32(_mm256_setzero_si256(),
                       _mm256_and_si256(x, _mm256_set1_epi32(1))));
}
inline __m512i ZigZag32x16(__m512i x) {
  return _mm512_xor_si512(
      _mm512_srli_epi32(x, 1),
      _mm512_sub_epi32(_mm512_setzero_si512(),
                       _mm512_and_si512(x, _mm512_set1_epi32(1))));
}
inline __m512i ZigZag64x8(__m512i x) {
  return _mm512_xor_si512(
      _mm512_srli_epi64(x, 1),
      _mm512_sub_epi64(_mm512_setzero_si512(),
                       _mm512_and_si512(x, _mm512_set1_epi64(1))));
}

// Stores the first n (1..8) lanes: a full group unmasked, since masked
// stores measured slower on Zen 4/5.
inline void Store8(void* out, int n, __m256i v) {
  if (n == 8) {
    _mm256_storeu_si256(static_cast<__m256i*>(out), v);
  } else {
    _mm256_mask_storeu_epi32(out, static_cast<__mmask8>(LowBits(n)), v);
  }
}
inline void Store8(void* out, int n, __m512i v) {
  if (n == 8) {
    _mm512_storeu_si512(out, v);
  } else {
    _mm512_mask_storeu_epi64(out, static_cast<__mmask8>(LowBits(n)), v);
  }
}

// Stores `n` (1..8) values of one group, converted.
template <typename Conversion>
inline void StoreGroup(__m512i v, int n, typename Conversion::Out* out);

template <>
inline void StoreGroup<Low32>(__m512i v, int n, uint32_t* out) {
  Store8(out, n, _mm512_cvtepi64_epi32(v));
}
template <>
inline void StoreGroup<Full64>(__m512i v, int n, uint64_t* out) {
  Store8(out, n, v);
}
template <>
inline void StoreGroup<ZigZag32>(__m512i v, int n, int32_t* out) {
  Store8(out, n, ZigZag32x8(_mm512_cvtepi64_epi32(v)));
}
template <>
inline void StoreGroup<ZigZag64>(__m512i v, int n, int64_t* out) {
  Store8(out, n, ZigZag64x8(v));
}
template <>
inline void StoreGroup<Boolean>(__m512i v, int n, bool* out) {
  const __mmask8 nonzero = _mm512_test_epi64_mask(v, v);
  _mm_mask_storeu_epi8(out, static_cast<__mmask16>(LowBits(n)),
                       _mm_maskz_set1_epi8(nonzero, 1));
}

// 64 one-byte varints at p, widened (`bytes` holds the same 64 bytes).
template <typename Conversion>
inline void StoreOneByteValues(const char* p, __m512i bytes,
                               typename Conversion::Out* out);

inline __m128i Load16(const char* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
inline __m128i Load8(const char* p) {
  return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
}

template <>
inline void StoreOneByteValues<Low32>(const char* p, __m512i, uint32_t* out) {
  for (int i = 0; i < 4; ++i) {
    _mm512_storeu_si512(out + 16 * i, _mm512_cvtepu8_epi32(Load16(p + 16 * i)));
  }
}
template <>
inline void StoreOneByteValues<Full64>(const char* p, __m512i, uint64_t* out) {
  for (int i = 0; i < 8; ++i) {
    _mm512_storeu_si512(out + 8 * i, _mm512_cvtepu8_epi64(Load8(p + 8 * i)));
  }
}
template <>
inline void StoreOneByteValues<ZigZag32>(const char* p, __m512i, int32_t* out) {
  for (int i = 0; i < 4; ++i) {
    _mm512_storeu_si512(out + 16 * i,
                        ZigZag32x16(_mm512_cvtepu8_epi32(Load16(p + 16 * i))));
  }
}
template <>
inline void StoreOneByteValues<ZigZag64>(const char* p, __m512i, int64_t* out) {
  for (int i = 0; i < 8; ++i) {
    _mm512_storeu_si512(out + 8 * i,
                        ZigZag64x8(_mm512_cvtepu8_epi64(Load8(p + 8 * i))));
  }
}
template <>
inline void StoreOneByteValues<Boolean>(const char*, __m512i bytes, bool* out) {
  _mm512_storeu_si512(out, _mm512_min_epu8(bytes, _mm512_set1_epi8(1)));
}

// The first n (< 64) of 64 one-byte varints, widened, with masked stores.
template <typename Conversion>
inline void StoreOneByteTail(__m512i bytes, int n,
                             typename Conversion::Out* out) {
  const __m128i quarters[4] = {
      _mm512_extracti32x4_epi32(bytes, 0), _mm512_extracti32x4_epi32(bytes, 1),
      _mm512_extracti32x4_epi32(bytes, 2), _mm512_extracti32x4_epi32(bytes, 3)};
  for (int i = 0; i < 8 && 8 * i < n; ++i) {
    const __m128i eight = i % 2 ? _mm_srli_si128(quarters[i / 2], 8)
                                : quarters[i / 2];
    // Through the group path's converter: the values are whole.
    StoreGroup<Conversion>(_mm512_cvtepu8_epi64(eight), n - 8 * i < 8 ? n - 8 * i : 8,
                           out + 8 * i);
  }
}

// Stores the first n (1..32) of 32 values in 16-bit lanes, converted.
template <typename Conversion>
inline void StoreShortValues(__m512i v, int n, typename Conversion::Out* out) {
  const __m256i halves[2] = {_mm512_castsi512_si256(v),
                             _mm512_extracti64x4_epi64(v, 1)};
  for (int j = 0; j < 4 && 8 * j < n; ++j) {
    const __m128i quarter = j % 2 ? _mm256_extracti128_si256(halves[j / 2], 1)
                                  : _mm256_castsi256_si128(halves[j / 2]);
    StoreGroup<Conversion>(_mm512_cvtepu16_epi64(quarter),
                           n - 8 * j < 8 ? n - 8 * j : 8, out + 8 * j);
  }
}

// 32-bit outputs widen 16 lanes at a time.
inline void Store16(void* out, int n, __m512i v) {
  if (n >= 16) {
    _mm512_storeu_si512(out, v);
  } else if (n > 0) {
    _mm512_mask_storeu_epi32(out, static_cast<__mmask16>(LowBits(n)), v);
  }
}
template <>
inline void StoreShortValues<Low32>(__m512i v, int n, uint32_t* out) {
  Store16(out, n, _mm512_cvtepu16_epi32(_mm512_castsi512_si256(v)));
  Store16(out + 16, n - 16, _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(v, 1)));
}
template <>
inline void StoreShortValues<ZigZag32>(__m512i v, int n, int32_t* out) {
  // ZigZag in 16 bits equals ZigZag in 32 for values below 2^16.
  const __m512i sign = _mm512_sub_epi16(
      _mm512_setzero_si512(), _mm512_and_si512(v, _mm512_set1_epi16(1)));
  const __m512i z = _mm512_xor_si512(_mm512_srli_epi16(v, 1), sign);
  Store16(out, n, _mm512_cvtepi16_epi32(_mm512_castsi512_si256(z)));
  Store16(out + 16, n - 16, _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(z, 1)));
}

// Varints of one or two bytes, 32 at a time, one per 16-bit slot: the
// expand mask has a 1 for each first byte and, above it, a 1 if that byte
// continues, so vpexpandb drops each varint's bytes into its slot; one
// shift-and-blend packs the two 7-bit groups. `starts` and `continues`
// mark the varints' first bytes and the continuation bytes in `bytes`.
template <typename Conversion>
inline void DecodeShortValues(__m512i bytes, uint64_t starts,
                              uint64_t continues, int values,
                              typename Conversion::Out* out) {
  // Bit k: the k-th varint has two bytes.
  const uint64_t two_bytes = _pext_u64(continues, starts);
  for (int done = 0; done < values; done += 32) {
    const uint64_t pairs = (two_bytes >> done) & 0xffffffff;
    const uint64_t expand =
        _pdep_u64(pairs, 0xaaaaaaaaaaaaaaaa) | 0x5555555555555555;
    const __m512i x = _mm512_maskz_expand_epi8(expand, bytes);
    const __m512i v = _mm512_ternarylogic_epi64(
        _mm512_set1_epi16(0x007f), x, _mm512_srli_epi16(x, 1), 0xCA);
    const int n = values - done < 32 ? values - done : 32;
    StoreShortValues<Conversion>(v, n, out + done);
    // On to the bytes of the next 32 varints.
    const int consumed = 32 + __builtin_popcountll(pairs);
    if (n == 32 && consumed < 64) {
      bytes = _mm512_maskz_compress_epi8(~uint64_t{0} << consumed, bytes);
    }
  }
}

template <typename Conversion>
constexpr bool kNeedsHighBits = !std::is_same<Conversion, Low32>::value &&
                                !std::is_same<Conversion, ZigZag32>::value;

template <typename Conversion>
DecodeResult DecodeAvx512(const char* p, const char* end, const char* limit,
                          typename Conversion::Out* out) {
  if (end - p < kMinBytes) return ScalarKernel<Conversion>()(p, end, limit, out);
  const __m512i iota = _mm512_set_epi8(
      63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46,
      45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28,
      27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10,
      9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  // Byte i of a lane-spreading index: which of 8 values lane i / 8 takes.
  const __m512i lane_of_byte = _mm512_set_epi64(
      0x0707070707070707, 0x0606060606060606, 0x0505050505050505,
      0x0404040404040404, 0x0303030303030303, 0x0202020202020202,
      0x0101010101010101, 0x0000000000000000);
  const __m512i byte_in_lane = _mm512_set1_epi64(0x0706050403020100);
  const __m512i eight = _mm512_set1_epi8(8);

  size_t count = 0;
  while (end - p >= kMinBytes) {
    const ptrdiff_t e = end - p < 64 ? end - p : 64;  // starts allowed below e
    const ptrdiff_t avail = limit - p < 64 ? limit - p : 64;
    const uint64_t loaded = LowBits(static_cast<int>(avail));
    const __m512i bytes = avail == 64 ? _mm512_loadu_si512(p)
                                      : _mm512_maskz_loadu_epi8(loaded, p);
    const uint64_t terminators = ~_mm512_movepi8_mask(bytes) & loaded;
    if (e == 64 && terminators == ~uint64_t{0}) {
      StoreOneByteValues<Conversion>(p, bytes, out + count);
      count += 64;
      p += 64;
      continue;
    }
    if (terminators == LowBits(static_cast<int>(e))) {  // a short 1-byte run
      StoreOneByteTail<Conversion>(bytes, static_cast<int>(e), out + count);
      count += e;
      p += e;
      continue;
    }
    // The varints to decode end at `used`: those that start below e.
    uint64_t used = terminators & LowBits(static_cast<int>(e));
    if (e < 64 && ((terminators >> (e - 1)) & 1) == 0) {
      // The varint at e - 1 runs past e: take it whole, if it is loaded.
      const uint64_t after = terminators & ~LowBits(static_cast<int>(e));
      if (after == 0) break;  // it runs into limit: the scalar loop decides
      used |= after & (0 - after);
    }
    if (used == 0) break;  // no terminator in 64 bytes: malformed
    const int last = 63 - __builtin_clzll(used);
    const uint64_t span = LowBits(last + 1);
    // A run of 10 continuation bytes is an 11-byte varint (an error).
    uint64_t runs = ~terminators & span;
    runs &= runs >> 1;
    runs &= runs >> 2;
    runs &= runs >> 4;
    if (runs & (runs >> 2)) break;
    const uint64_t starts = ((used << 1) | 1) & span;
    const int values = __builtin_popcountll(used);
    const uint64_t continues = ~terminators & span;
    if ((continues & (continues >> 1)) == 0) {  // no varint over 2 bytes
      DecodeShortValues<Conversion>(bytes, starts, continues, values,
                                    out + count);
      count += values;
      p += last + 1;
      continue;
    }
    const __m512i start_of = _mm512_maskz_compress_epi8(starts, iota);
    __m512i group = lane_of_byte;
    for (int g = 0; g < values; g += 8) {
      const __m512i first = _mm512_permutexvar_epi8(group, start_of);
      const __m512i index = _mm512_add_epi8(first, byte_in_lane);
      const __m512i lanes = _mm512_permutexvar_epi8(index, bytes);
      __m512i v = PackLow56(lanes);
      if (kNeedsHighBits<Conversion>) {
        // Lanes with no terminator in their first 8 bytes are 9 or 10 long.
        const __mmask8 long_lanes = _mm512_testn_epi64_mask(
            _mm512_andnot_si512(lanes, _mm512_set1_epi8(static_cast<char>(0x80))),
            _mm512_set1_epi8(static_cast<char>(0x80)));
        if (long_lanes) {
          const __m512i next = _mm512_permutexvar_epi8(
              _mm512_add_epi8(index, eight), bytes);
          v = _mm512_mask_or_epi64(v, long_lanes, v, High8(next));
        }
      }
      const int n = values - g < 8 ? values - g : 8;
      StoreGroup<Conversion>(v, n, out + count + g);
      group = _mm512_add_epi8(group, eight);
    }
    count += values;
    p += last + 1;
  }
  const DecodeResult tail =
      ScalarKernel<Conversion>()(p, end, limit, out + count);
  return {tail.ptr, count + tail.count, tail.ok};
}

}  // namespace

const VarintDecodeKernels kVarintDecodeAvx512 = {
    DecodeAvx512<Low32>,    DecodeAvx512<Full64>,  DecodeAvx512<ZigZag32>,
    DecodeAvx512<ZigZag64>, DecodeAvx512<Boolean>,
};

}  // namespace internal
}  // namespace protoaccel
