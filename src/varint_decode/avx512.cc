// Varint decode with AVX-512 (F, BW, VL, VBMI, VBMI2).
//
// Blocks of 64 bytes are read at fixed steps, whatever the varints'
// lengths: only `pending`, the bytes of an unfinished varint carried into
// the next block, depends on the data, and it comes from the block's own
// terminator mask (bytes with the top bit clear). Advancing by the last
// terminator instead chained each block's load to the one before and
// measured 1.4x slower on Zen 5 for 10-byte varints. A block of 64 one-byte
// varints is a widening copy. A block of one- and two-byte varints, common
// in real data, computes each terminator's value in a 16-bit slot from it
// and the byte before, and vpcompressw packs those to the front. Any other
// block compresses its terminator positions (vpcompressb) into each
// varint's start; vpermb over the previous and current block lines up
// eight varints at a time, one per 64-bit lane, so a varint straddling the
// two is gathered whole; the bytes after each lane's first terminator are
// cleared and the 7-bit groups packed with three shift-and-blend steps.
// Varints of 9 or 10 bytes (64-bit values) take their last bits from a
// second vpermb. A run of 10-byte varints (negative int32 and int64
// values) is taken eight at a time, 80 bytes, by a fixed permutation.
//
// Only bytes below `limit` are loaded (a masked load for the last block),
// and only as many values as the blocks hold are stored (masked stores for
// partial groups). A block holding an 11-byte varint, and whatever follows
// the last block, go to the scalar decoder, whose errors are protobuf's.

#include "dispatch/kernels.h"

#if PROTOACCEL_X86
#include <immintrin.h>

#include <type_traits>

#include "varint_decode/scalar_decode.h"

#define PROTOACCEL_KERNEL_TARGET "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi,lzcnt,popcnt"
// gcc 12's AVX-512 headers start some intrinsics from an "undefined" vector
// and then warn about it.
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "dispatch/target.h"

PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

// Below kMinBytes the scalar kernel runs, and below a block too unless the
// input starts with 16 one-byte varints, which go to the AVX2 kernel: the
// block setup (constants, compress, permutes, masked stores) costs more
// than it saves there. kernels_bench on Zen 4, ns, scalar / AVX2 / the
// block path: decode_uint64/1B N=16 7.4 / 8.5 / 10.8, decode_uint64/u64
// N=4 (36 bytes) 11.3 / 11.3 / 17.0 (on Zen 5, message_bench had found 16
// one-byte values 1.1x faster through the block path than scalar).
constexpr ptrdiff_t kMinBytes = 16;

inline uint64_t LowBits(int n) {  // bits [0, n), n in [0, 64]
  return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
}

// Each lane's 7-bit groups, bytes with their top bits cleared, packed into
// its low 56 bits: pairs in 16-bit lanes, then 32, then 64. Each step is
// (mask ? x : x >> s), imm 0xCA = A ? B : C.
inline __m512i Pack7BitGroups(__m512i v) {
  v = _mm512_ternarylogic_epi64(_mm512_set1_epi16(0x007f), v,
                                _mm512_srli_epi16(v, 1), 0xCA);
  v = _mm512_ternarylogic_epi64(_mm512_set1_epi32(0x3fff), v,
                                _mm512_srli_epi32(v, 2), 0xCA);
  v = _mm512_ternarylogic_epi64(_mm512_set1_epi64(0x0fffffff), v,
                                _mm512_srli_epi64(v, 4), 0xCA);
  return v;
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
  return Pack7BitGroups(_mm512_ternarylogic_epi64(bytes, keep, top, 0x40));
}

// Bits 56..63 from a lane's 9th and 10th bytes, at its bottom, of a varint
// that continues past its 9th: 7 bits of the 9th and bit 0 of the 10th
// (protobuf drops its bits 1-6).
inline __m512i HighBitsOfTen(__m512i next) {
  const __m512i bit56 = _mm512_slli_epi64(
      _mm512_and_si512(next, _mm512_set1_epi64(0x7f)), 56);
  const __m512i bit63 = _mm512_slli_epi64(
      _mm512_and_si512(next, _mm512_set1_epi64(0x100)), 55);
  return _mm512_or_si512(bit56, bit63);
}

// Bits 56..63 of varints longer than 8 bytes; `next` holds each lane's
// bytes 8.. at its bottom. Bytes past a 9-byte varint's end are cleared.
inline __m512i High8(__m512i next) {
  const __m512i top = _mm512_set1_epi8(static_cast<char>(0x80));
  const __m512i ends = _mm512_andnot_si512(next, top);
  const __m512i keep =
      _mm512_xor_si512(ends, _mm512_sub_epi64(ends, _mm512_set1_epi64(1)));
  return HighBitsOfTen(_mm512_ternarylogic_epi64(next, keep, top, 0x40));
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
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    _mm512_storeu_si512(out + 16 * i, _mm512_cvtepu8_epi32(Load16(p + 16 * i)));
  }
}
template <>
inline void StoreOneByteValues<Full64>(const char* p, __m512i, uint64_t* out) {
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    _mm512_storeu_si512(out + 8 * i, _mm512_cvtepu8_epi64(Load8(p + 8 * i)));
  }
}
template <>
inline void StoreOneByteValues<ZigZag32>(const char* p, __m512i, int32_t* out) {
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    _mm512_storeu_si512(out + 16 * i,
                        ZigZag32x16(_mm512_cvtepu8_epi32(Load16(p + 16 * i))));
  }
}
template <>
inline void StoreOneByteValues<ZigZag64>(const char* p, __m512i, int64_t* out) {
#pragma GCC unroll 8
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

// 32-bit outputs widen 16 lanes at a time. `out` + `first` is formed only
// where a value is stored: past the room it would be out of bounds.
template <typename T>  // uint32_t or int32_t
inline void Store16(T* out, int first, int n, __m512i v) {
  n -= first;
  if (n >= 16) {
    _mm512_storeu_si512(out + first, v);
  } else if (n > 0) {
    _mm512_mask_storeu_epi32(out + first, static_cast<__mmask16>(LowBits(n)), v);
  }
}
template <>
inline void StoreShortValues<Low32>(__m512i v, int n, uint32_t* out) {
  Store16(out, 0, n, _mm512_cvtepu16_epi32(_mm512_castsi512_si256(v)));
  Store16(out, 16, n, _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(v, 1)));
}
template <>
inline void StoreShortValues<ZigZag32>(__m512i v, int n, int32_t* out) {
  // ZigZag in 16 bits equals ZigZag in 32 for values below 2^16.
  const __m512i sign = _mm512_sub_epi16(
      _mm512_setzero_si512(), _mm512_and_si512(v, _mm512_set1_epi16(1)));
  const __m512i z = _mm512_xor_si512(_mm512_srli_epi16(v, 1), sign);
  Store16(out, 0, n, _mm512_cvtepi16_epi32(_mm512_castsi512_si256(z)));
  Store16(out, 16, n, _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(z, 1)));
}

template <typename Conversion>
constexpr bool kNeedsHighBits = !std::is_same<Conversion, Low32>::value &&
                                !std::is_same<Conversion, ZigZag32>::value;

// A vpermt2b index that shifts its first source up one byte, taking byte 0
// from the second source's last byte (index 127).
inline __m512i ShiftUpIndex() {
  return _mm512_set_epi8(
      62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45,
      44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27,
      26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8,
      7, 6, 5, 4, 3, 2, 1, 0, 127);
}

// One half (32 bytes) of a block whose varints have one or two bytes: each
// terminator's value is itself, or, if the byte before it continues, that
// byte's 7 bits below its own. Those values, one per 16-bit slot, are
// compressed down to the terminators. `before` holds the byte before each.
template <typename Conversion>
inline void DecodeShortHalf(__m256i bytes, __m256i before, uint32_t ends,
                            typename Conversion::Out* out) {
  const __m512i last = _mm512_cvtepu8_epi16(bytes);
  const __m512i first = _mm512_cvtepu8_epi16(before);
  const __mmask32 two_bytes =
      _mm512_test_epi16_mask(first, _mm512_set1_epi16(0x80));
  // (first & 0x7f) | (last << 7): imm 0xEA is (A & B) | C.
  const __m512i pair = _mm512_ternarylogic_epi32(
      first, _mm512_set1_epi16(0x7f), _mm512_slli_epi16(last, 7), 0xEA);
  const __m512i v = _mm512_mask_mov_epi16(last, two_bytes, pair);
  StoreShortValues<Conversion>(_mm512_maskz_compress_epi16(ends, v),
                               __builtin_popcount(ends), out);
}

// A block whose varints all have one or two bytes (the first may have
// begun in prev): both halves.
template <typename Conversion>
inline void DecodeShortBlock(__m512i prev, __m512i cur, uint64_t ends,
                             typename Conversion::Out* out) {
  const __m512i before = _mm512_permutex2var_epi8(cur, ShiftUpIndex(), prev);
  DecodeShortHalf<Conversion>(_mm512_castsi512_si256(cur),
                              _mm512_castsi512_si256(before),
                              static_cast<uint32_t>(ends), out);
  DecodeShortHalf<Conversion>(
      _mm512_extracti64x4_epi64(cur, 1), _mm512_extracti64x4_epi64(before, 1),
      static_cast<uint32_t>(ends >> 32),
      out + __builtin_popcount(static_cast<uint32_t>(ends)));
}

// Decodes the varints that end at the set bits of `ends` (a mask over cur),
// the first of which began `pending` (0..9) bytes before cur, in prev.
// Positions index the 128 bytes of prev and cur together, so a varint that
// straddles the two is gathered whole by one two-source vpermb.
template <typename Conversion>
inline void DecodeEnds(__m512i prev, __m512i cur, uint64_t ends, int pending,
                       typename Conversion::Out* out) {
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
  const int values = __builtin_popcountll(ends);
  // Value k starts after value k - 1's terminator; value 0 at -pending. So
  // shift the terminator positions up one slot, putting -1 - pending in
  // slot 0, and add 1 + 64 (cur's offset in the pair). Past the last value
  // this may reach 128, which vpermb wraps: those slots are never stored.
  const __m512i end_at = _mm512_maskz_compress_epi8(ends, iota);
  const __m512i start_of = _mm512_add_epi8(
      _mm512_permutex2var_epi8(end_at, ShiftUpIndex(),
                               _mm512_set1_epi8(static_cast<char>(-1 - pending))),
      _mm512_set1_epi8(65));
  __m512i group = lane_of_byte;
  for (int g = 0; g < values; g += 8) {
    // Each lane's 8 bytes (16 for long values) from its start; what lies
    // past the varint's end, even bytes wrapped round to prev, is cleared.
    const __m512i first = _mm512_permutexvar_epi8(group, start_of);
    const __m512i index = _mm512_add_epi8(first, byte_in_lane);
    const __m512i lanes = _mm512_permutex2var_epi8(prev, index, cur);
    __m512i v = PackLow56(lanes);
    if (kNeedsHighBits<Conversion>) {
      // Lanes with no terminator in their first 8 bytes are 9 or 10 long.
      const __mmask8 long_lanes = _mm512_testn_epi64_mask(
          _mm512_andnot_si512(lanes, _mm512_set1_epi8(static_cast<char>(0x80))),
          _mm512_set1_epi8(static_cast<char>(0x80)));
      if (long_lanes) {
        const __m512i next = _mm512_permutex2var_epi8(
            prev, _mm512_add_epi8(index, eight), cur);
        v = _mm512_mask_or_epi64(v, long_lanes, v, High8(next));
      }
    }
    StoreGroup<Conversion>(v, values - g < 8 ? values - g : 8, out + g);
    group = _mm512_add_epi8(group, eight);
  }
}

// Eight 10-byte varints at p, if the 80 bytes there are exactly that:
// negative int32 and int64 values always take 10 bytes, and a run of them
// spaces its terminators 10 apart, so the lanes are gathered by a fixed
// permutation, with no compress and no partial groups.
template <typename Conversion>
inline bool DecodeTenByteGroup(const char* p, typename Conversion::Out* out) {
  // Terminators at bytes 9, 19, ..., 59 of the first 64; 69 and 79 after.
  constexpr uint64_t kEnds64 = 0x0802008020080200;
  constexpr uint32_t kEnds16 = 0x8020;
  const __m512i head = _mm512_loadu_si512(p);
  const __m128i tail = Load16(p + 64);
  if (_mm512_movepi8_mask(head) != ~kEnds64 ||
      static_cast<uint32_t>(_mm_movemask_epi8(tail)) != (~kEnds16 & 0xffff)) {
    return false;
  }
  // Lane k takes bytes 10k..10k+7 (index 64.. is `tail`).
  constexpr int64_t kEveryByte = 0x0101010101010101;
  const __m512i index = _mm512_add_epi8(
      _mm512_set_epi64(70 * kEveryByte, 60 * kEveryByte, 50 * kEveryByte,
                       40 * kEveryByte, 30 * kEveryByte, 20 * kEveryByte,
                       10 * kEveryByte, 0),
      _mm512_set1_epi64(0x0706050403020100));
  // No lane ends in its first 8 bytes, so there is no terminator to look
  // for (PackLow56's x - 1): at -O2 gcc made its all-ones operand in the
  // loop with a vpternlogd that Zen does not see as independent of the
  // register's last value, chaining the groups (about 3x slower).
  const __m512i rest = _mm512_zextsi128_si512(tail);
  const __m512i lanes = _mm512_permutex2var_epi8(head, index, rest);
  __m512i v = Pack7BitGroups(
      _mm512_and_si512(lanes, _mm512_set1_epi8(0x7f)));
  if (kNeedsHighBits<Conversion>) {
    const __m512i next = _mm512_permutex2var_epi8(
        head, _mm512_add_epi8(index, _mm512_set1_epi8(8)), rest);
    v = _mm512_or_si512(v, HighBitsOfTen(next));
  }
  StoreGroup<Conversion>(v, 8, out);
  return true;
}

// True if `ends` (a block's terminators) is spaced 10 apart from its first,
// as in a run of 10-byte varints: a hint to try DecodeTenByteGroup.
inline bool LooksLikeTenByteRun(uint64_t ends) {
  // At most 7 terminators fit 10 apart in 64 bytes. The count, which the
  // caller computes anyway, keeps blocks of shorter varints from the rest.
  if (__builtin_popcountll(ends) > 7) return false;
  // Bits 0, 10, ..., 60.
  constexpr uint64_t kEveryTenth = 0x1004010040100401;
  const int first = __builtin_ctzll(ends);
  return first < 10 && ends == kEveryTenth << first;
}

// True if the varints ending at `ends` all have at most 10 bytes, the first
// having begun `pending` bytes before the mask. Protobuf rejects longer ones.
inline bool NoneTooLong(uint64_t ends, int pending) {
  if (pending + __builtin_ctzll(ends) >= 10) return false;
  // Bit i of runs: bytes i..i+9 all continue, below the last end.
  uint64_t runs = ~ends & LowBits(64 - __builtin_clzll(ends));
  runs &= runs >> 1;
  runs &= runs >> 2;
  runs &= runs >> 4;
  return (runs & (runs >> 2)) == 0;
}

// Out of line, so that the short inputs DecodeAvx512() below sends to the
// scalar or AVX2 kernel pay for none of its frame (64-byte aligned, for
// spills). Requires end - p >= 64.
template <typename Conversion>
__attribute__((noinline)) DecodeResult DecodeBlocks(
    const char* p, const char* end, const char* limit,
    typename Conversion::Out* out) {
  // Blocks are read at fixed 64-byte steps, whatever the varints' lengths:
  // only `pending`, the bytes of an unfinished varint carried from one
  // block to the next, depends on the data, and it is computed from the
  // block's own terminator mask. Advancing by the last terminator instead
  // chained each block's load to the one before (about 15 cycles a block).
  size_t count = 0;
  int pending = 0;
  __m512i prev = _mm512_setzero_si512();
  const char* q = p;
  while (end - q >= 64) {
    const __m512i cur = _mm512_loadu_si512(q);
    const uint64_t ends = ~_mm512_movepi8_mask(cur);
    if (ends == ~uint64_t{0} && pending == 0) {
      StoreOneByteValues<Conversion>(q, cur, out + count);
      count += 64;
    } else {
      if (ends == 0 || !NoneTooLong(ends, pending)) break;
      const uint64_t continues = ~ends;
      if (pending <= 1 &&
          (continues & ((continues << 1) | static_cast<uint64_t>(pending))) == 0) {
        // Every varint has one or two bytes.
        DecodeShortBlock<Conversion>(prev, cur, ends, out + count);
      } else {
        DecodeEnds<Conversion>(prev, cur, ends, pending, out + count);
        if (LooksLikeTenByteRun(ends)) {
          // Groups of eight 10-byte varints from the unfinished one's
          // start; then blocks again, from a varint's start (so prev,
          // holding no part of it, is cleared).
          const char* s = q + 64 - __builtin_clzll(ends);
          size_t groups = 0;
          while (end - s >= 80 &&
                 DecodeTenByteGroup<Conversion>(
                     s, out + count + __builtin_popcountll(ends) + 8 * groups)) {
            s += 80;
            ++groups;
          }
          if (groups != 0) {
            count += __builtin_popcountll(ends) + 8 * groups;
            pending = 0;
            prev = _mm512_setzero_si512();
            q = s;
            continue;
          }
        }
      }
      count += __builtin_popcountll(ends);
      pending = __builtin_clzll(ends);
    }
    prev = cur;
    q += 64;
  }
  p = q - pending;
  // The last, partial block: varints that start below `end`, the last of
  // which may run past it (up to `limit`). Bytes at or past `limit` are not
  // loaded.
  const ptrdiff_t e = end - q;
  if (e > 0 && e < 64) {  // not after a break
    const ptrdiff_t avail = limit - q < 64 ? limit - q : 64;
    const uint64_t loaded = LowBits(static_cast<int>(avail));
    const __m512i cur = _mm512_maskz_loadu_epi8(loaded, q);
    const uint64_t terminators = ~_mm512_movepi8_mask(cur) & loaded;
    uint64_t ends = terminators & LowBits(static_cast<int>(e));
    if (((terminators >> (e - 1)) & 1) == 0) {
      // The varint at e - 1 runs past `end`: take it whole if it is loaded.
      const uint64_t after = terminators & ~LowBits(static_cast<int>(e));
      ends |= after & (0 - after);
    }
    const bool one_byte_run = pending == 0 && ends == LowBits(static_cast<int>(e));
    if (ends != 0 && NoneTooLong(ends, pending)) {
      const uint64_t continues = ~ends & LowBits(64 - __builtin_clzll(ends));
      if (one_byte_run) {
        StoreOneByteTail<Conversion>(cur, static_cast<int>(e), out + count);
      } else if (pending <= 1 &&
                 (continues & ((continues << 1) | static_cast<uint64_t>(pending))) == 0) {
        DecodeShortBlock<Conversion>(prev, cur, ends, out + count);
      } else {
        DecodeEnds<Conversion>(prev, cur, ends, pending, out + count);
      }
      count += __builtin_popcountll(ends);
      p = q + 64 - __builtin_clzll(ends);
    }
  }
  // Whatever the blocks could not take, errors included.
  const DecodeResult tail =
      ScalarKernel<Conversion>()(p, end, limit, out + count);
  return {tail.ptr, count + tail.count, tail.ok};
}

template <typename Conversion>
DecodeResult DecodeAvx512(const char* p, const char* end, const char* limit,
                          typename Conversion::Out* out) {
  if (end - p < kMinBytes ||
      (end - p < 64 && _mm_movemask_epi8(Load16(p)) != 0)) {
    return DecodeScalar<Conversion>(p, end, limit, out);
  }
  // A run of one-byte varints first: the AVX2 kernel widens it 16 at a time.
  if (end - p < 64) return KernelOf<Conversion>(kVarintDecodeAvx2)(p, end, limit, out);
  return DecodeBlocks<Conversion>(p, end, limit, out);
}

}  // namespace

const VarintDecodeKernels kVarintDecodeAvx512 = {
    DecodeAvx512<Low32>,    DecodeAvx512<Full64>,  DecodeAvx512<ZigZag32>,
    DecodeAvx512<ZigZag64>, DecodeAvx512<Boolean>,
};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_X86
