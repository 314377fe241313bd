// Varint size and encode with AVX-512 (F, BW, VL, CD, VBMI, VBMI2).
//
// Size: vplzcnt of each value, then a vpermb lookup from leading zeros to
// varint length, summed in the lanes.
//
// Encode: blocks of 32 values, each taking one of four paths chosen from the
// OR of the block:
//   - all below 2^7: narrowed to bytes (vpmovdb/vpmovqb);
//   - all below 2^14: each value's two bytes computed in a 16-bit slot
//     (x + (x & 0x3f80) moves bits 7..13 up by one), the second byte kept
//     only where it is not zero, and vpcompressb packs the kept bytes;
//   - all below 2^56: eight values at a time, one per 64-bit lane;
//     vpmultishiftqb takes the 7-bit groups to bytes in one step (byte j
//     = bits 7j..7j+7 of the lane), a lookup from vplzcntq gives the
//     length, and vpcompressb packs the first `length` bytes of each lane;
//   - otherwise: four values at a time, each in a 16-byte slot (bits 0..55
//     in its first 8 bytes, bits 56..63 in the next 2), packed the same way.
//
// Writes: every store is either exact (a masked store of the bytes that
// belong to the output) or an unmasked 64-byte store at p whose 64 bytes are
// all below the end of the output, which is at least p + (this group's
// bytes) + (one byte for each value after the group). So nothing is written
// at or past out + PackedSize(v, n), the room the API promises; nothing is
// read at or past v + n either (masked loads for the last block).

#include "dispatch/kernels.h"

#if PROTOACCEL_X86
#include <immintrin.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "varint_encode/scalar_encode.h"

#define PROTOACCEL_KERNEL_TARGET "avx512f,avx512bw,avx512vl,avx512cd,avx512vbmi,avx512vbmi2,bmi,bmi2,lzcnt,popcnt"
// gcc 12's AVX-512 headers start some intrinsics from an "undefined" vector
// and then warn about it (the shifts by an immediate, -Wuninitialized).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "dispatch/target.h"

PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

constexpr size_t kBlock = 32;

// Below these many values the scalar kernels run instead: kernels_bench on
// Zen 5, ns for N values, scalar / this (median of 3):
//   encode_uint32/2B  N=4: 2.4 / 4.7   N=8:  4.5 / 4.2
//   encode_uint32/u32 N=4: 5.2 / 5.9   N=8: 10.5 / 5.7
//   encode_uint64/u64 N=1: 2.9 / 7.8   N=4:  9.8 / 8.1
//   size_uint32/1B    N=1: 1.4 / 2.4   N=4:  2.7 / 2.4
// (masked loads and stores carry the short blocks; they cost more than the
// scalar loop's few iterations). On Zen 4 the size crossover is higher:
//   size_uint32/u32   N=4: 4.5 / 5.8   N=6:  6.1 / 5.8
// so N = 4 and 5 take scalar on both (Zen 5 loses 0.3 ns there).
constexpr size_t kMinEncode32 = 8;
constexpr size_t kMinEncode64 = 4;
constexpr size_t kMinSize = 6;

inline uint64_t LowBits(unsigned n) {  // bits [0, n), n in [0, 64]
  return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
}

// Varint length by the leading zeros of a value | 1, for vpermb (which
// reads the low 6 bits of each index byte). For 32-bit lanes, lz 0 is a
// negative int32 (10 bytes, sign-extended) or a uint32 of 32 bits (5).
using ByteTable = std::array<uint8_t, 64>;
constexpr ByteTable MakeLengths(int width, int lz0) {
  ByteTable t{};
  for (int lz = 0; lz < 64; ++lz) {
    const int bits = width - lz;
    t[lz] = static_cast<uint8_t>(bits <= 7 ? 1 : (bits + 6) / 7);
  }
  t[0] = static_cast<uint8_t>(lz0);
  return t;
}
constexpr ByteTable kLengths64 = MakeLengths(64, 10);
constexpr ByteTable kLengthsU32 = MakeLengths(32, 5);
constexpr ByteTable kLengthsI32 = MakeLengths(32, 10);

inline __m512i LoadTable(const ByteTable& t) { return _mm512_loadu_si512(t.data()); }

inline __m512i ZigZag32(__m512i x) {
  return _mm512_xor_si512(_mm512_slli_epi32(x, 1), _mm512_srai_epi32(x, 31));
}
inline __m512i ZigZag64(__m512i x) {
  return _mm512_xor_si512(_mm512_slli_epi64(x, 1), _mm512_srai_epi64(x, 63));
}

// ---------------------------------------------------------------------------
// Size

// Sums the lengths of 16 (32-bit) or 8 (64-bit) values a vector; the sums
// stay in 32- or 64-bit lanes (a lane gains at most 10 per step).
// The sixteen 32-bit lanes of x widened to 64 bits, lane i added to i + 8.
inline __m512i PairSums(__m512i x) {
  return _mm512_add_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(x)),
                          _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(x, 1)));
}

template <Kind kKind, typename T>
__attribute__((noinline)) size_t SizeLoop(const T* v, size_t n) {
  constexpr bool kZigZag = kKind == Kind::kSInt32 || kKind == Kind::kSInt64;
  constexpr bool kSigned32 = kKind == Kind::kInt32;
  const __m512i one = _mm512_set1_epi32(1);
  if constexpr (sizeof(T) == 4) {
    const __m512i table = LoadTable(kSigned32 ? kLengthsI32 : kLengthsU32);
    constexpr __mmask64 kLow = 0x1111111111111111;  // byte 0 of each dword
    auto lengths = [&](__m512i x) {
      if (kZigZag) x = ZigZag32(x);
      return _mm512_maskz_permutexvar_epi8(
          kLow, _mm512_lzcnt_epi32(_mm512_or_si512(x, one)), table);
    };
    __m512i a = _mm512_setzero_si512(), b = a, c = a, d = a;
    size_t i = 0;
    // Four independent sums: one vpermb each, so the adds do not chain.
    for (; i + 64 <= n; i += 64) {
      a = _mm512_add_epi32(a, lengths(_mm512_loadu_si512(v + i)));
      b = _mm512_add_epi32(b, lengths(_mm512_loadu_si512(v + i + 16)));
      c = _mm512_add_epi32(c, lengths(_mm512_loadu_si512(v + i + 32)));
      d = _mm512_add_epi32(d, lengths(_mm512_loadu_si512(v + i + 48)));
    }
    for (; i + 16 <= n; i += 16) {
      a = _mm512_add_epi32(a, lengths(_mm512_loadu_si512(v + i)));
    }
    if (i < n) {
      const __mmask16 m = static_cast<__mmask16>(LowBits(n - i));
      const __m512i len = lengths(_mm512_maskz_loadu_epi32(m, v + i));
      b = _mm512_add_epi32(b, _mm512_maskz_mov_epi32(m, len));
    }
    // A lane of each sum gains at most 10 per 64 values, so it fits 32 bits
    // for any n below 2^34; their total may not (4 sums of 10 bytes a value
    // wrap from n = 2^32 / 0.625), so the sums are widened before they are
    // added.
    return static_cast<size_t>(_mm512_reduce_add_epi64(_mm512_add_epi64(
        _mm512_add_epi64(PairSums(a), PairSums(b)),
        _mm512_add_epi64(PairSums(c), PairSums(d)))));
  } else {
    const __m512i table = LoadTable(kLengths64);
    const __m512i one64 = _mm512_set1_epi64(1);
    constexpr __mmask64 kLow = 0x0101010101010101;  // byte 0 of each qword
    auto lengths = [&](__m512i x) {
      if (kZigZag) x = ZigZag64(x);
      return _mm512_maskz_permutexvar_epi8(
          kLow, _mm512_lzcnt_epi64(_mm512_or_si512(x, one64)), table);
    };
    __m512i a = _mm512_setzero_si512(), b = a, c = a, d = a;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
      a = _mm512_add_epi64(a, lengths(_mm512_loadu_si512(v + i)));
      b = _mm512_add_epi64(b, lengths(_mm512_loadu_si512(v + i + 8)));
      c = _mm512_add_epi64(c, lengths(_mm512_loadu_si512(v + i + 16)));
      d = _mm512_add_epi64(d, lengths(_mm512_loadu_si512(v + i + 24)));
    }
    for (; i + 8 <= n; i += 8) {
      a = _mm512_add_epi64(a, lengths(_mm512_loadu_si512(v + i)));
    }
    if (i < n) {
      const __mmask8 m = static_cast<__mmask8>(LowBits(n - i));
      const __m512i len = lengths(_mm512_maskz_loadu_epi64(m, v + i));
      b = _mm512_add_epi64(b, _mm512_maskz_mov_epi64(m, len));
    }
    const __m512i sum = _mm512_add_epi64(_mm512_add_epi64(a, b),
                                         _mm512_add_epi64(c, d));
    return static_cast<size_t>(_mm512_reduce_add_epi64(sum));
  }
}

// ---------------------------------------------------------------------------
// Encode

// Stores the `bytes` bytes of v that belong to the output at p. `after` is
// the number of values after them, each at least one more byte of output.
inline void Store64(char* p, __m512i v, unsigned bytes, size_t after) {
  if (bytes + after >= 64) {
    _mm512_storeu_si512(p, v);
  } else {
    _mm512_mask_storeu_epi8(p, LowBits(bytes), v);
  }
}

// The constants of one slot layout: 8-byte slots (one value per 64-bit
// lane, below 2^56) or 16-byte slots (one value per 128-bit lane, its
// 64 bits duplicated into both halves).
struct Slots {
  __m512i shifts;     // vpmultishiftqb controls: byte j takes bits at 7j
  __m512i low7;       // the bits of each byte that are value bits
  __m512i broadcast;  // vpshufb: the slot's first byte (its lzcnt) to all
  __m512i iota;       // a byte's index in its slot
  __m512i iota1;      // iota + 1
  __m512i lengths;    // kLengths64
};

inline Slots Slots8() {
  return {_mm512_set1_epi64(0x312a231c150e0700),
          _mm512_set1_epi8(0x7f),
          _mm512_set_epi64(0x0808080808080808, 0, 0x0808080808080808, 0,
                           0x0808080808080808, 0, 0x0808080808080808, 0),
          _mm512_set1_epi64(0x0706050403020100),
          _mm512_set1_epi64(0x0807060504030201),
          LoadTable(kLengths64)};
}

inline Slots Slots16() {
  // The second half of a slot takes bits 56..62 (byte 8) and bit 63 (byte
  // 9; vpmultishiftqb rotates, so bits 0..6 above it are masked off).
  return {_mm512_set_epi64(0x3f38, 0x312a231c150e0700, 0x3f38,
                           0x312a231c150e0700, 0x3f38, 0x312a231c150e0700,
                           0x3f38, 0x312a231c150e0700),
          _mm512_set_epi64(0x017f, 0x7f7f7f7f7f7f7f7f, 0x017f,
                           0x7f7f7f7f7f7f7f7f, 0x017f, 0x7f7f7f7f7f7f7f7f,
                           0x017f, 0x7f7f7f7f7f7f7f7f),
          _mm512_setzero_si512(),
          _mm512_set_epi64(0x0f0e0d0c0b0a0908, 0x0706050403020100,
                           0x0f0e0d0c0b0a0908, 0x0706050403020100,
                           0x0f0e0d0c0b0a0908, 0x0706050403020100,
                           0x0f0e0d0c0b0a0908, 0x0706050403020100),
          _mm512_set_epi64(0x100f0e0d0c0b0a09, 0x0807060504030201,
                           0x100f0e0d0c0b0a09, 0x0807060504030201,
                           0x100f0e0d0c0b0a09, 0x0807060504030201,
                           0x100f0e0d0c0b0a09, 0x0807060504030201),
          LoadTable(kLengths64)};
}

// The values in the slots of w (each slot's lanes holding its value), only
// the slots whose bytes are in `valid`: their varints, packed to `out`.
inline char* EncodeSlots(const Slots& s, __m512i w, uint64_t valid,
                         size_t after, char* out) {
  const __m512i lz =
      _mm512_lzcnt_epi64(_mm512_or_si512(w, _mm512_set1_epi64(1)));
  const __m512i length = _mm512_permutexvar_epi8(
      _mm512_shuffle_epi8(lz, s.broadcast), s.lengths);
  const uint64_t keep = _mm512_cmplt_epu8_mask(s.iota, length) & valid;
  const __mmask64 more = _mm512_cmplt_epu8_mask(s.iota1, length);
  const __m512i groups = _mm512_multishift_epi64_epi8(s.shifts, w);
  // (groups & low7) | continuation bits; imm 0xEA = (A & B) | C.
  const __m512i bytes = _mm512_ternarylogic_epi64(
      groups, s.low7,
      _mm512_maskz_mov_epi8(more, _mm512_set1_epi8(static_cast<char>(0x80))),
      0xEA);
  const unsigned count = static_cast<unsigned>(__builtin_popcountll(keep));
  Store64(out, _mm512_maskz_compress_epi8(keep, bytes), count, after);
  return out + count;
}

// 32 values below 2^14, one per 16-bit lane; the first c valid.
inline char* EncodeShort(__m512i x, size_t c, size_t rest, char* out) {
  // Byte 0 = bits 0..6, byte 1 = bits 7..13.
  __m512i y = _mm512_add_epi16(x, _mm512_and_si512(x, _mm512_set1_epi16(0x3f80)));
  const __mmask64 second = _mm512_test_epi8_mask(y, _mm512_set1_epi16(0x7f00));
  // A second byte means a continuation bit on the first.
  y = _mm512_or_si512(
      y, _mm512_maskz_mov_epi8(second >> 1,
                               _mm512_set1_epi8(static_cast<char>(0x80))));
  const uint64_t keep = (second | 0x5555555555555555) & LowBits(2 * c);
  const unsigned count = static_cast<unsigned>(__builtin_popcountll(keep));
  Store64(out, _mm512_maskz_compress_epi8(keep, y), count, rest - c);
  return out + count;
}

// Up to 32 64-bit wire values in w[0..3], the first c valid; `rest` values
// from the first to the end of the array.
__attribute__((always_inline)) inline char* EncodeBlock64(const __m512i (&w)[4], size_t c, size_t rest,
                           char* out) {
  const __m512i any = _mm512_or_si512(_mm512_or_si512(w[0], w[1]),
                                      _mm512_or_si512(w[2], w[3]));
  if (_mm512_test_epi64_mask(any, _mm512_set1_epi64(~int64_t{0x7f})) == 0) {
    const __m128i lo = _mm_unpacklo_epi64(_mm512_cvtepi64_epi8(w[0]),
                                          _mm512_cvtepi64_epi8(w[1]));
    const __m128i hi = _mm_unpacklo_epi64(_mm512_cvtepi64_epi8(w[2]),
                                          _mm512_cvtepi64_epi8(w[3]));
    const __m256i b = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
    if (c == kBlock) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), b);
    } else {
      _mm256_mask_storeu_epi8(out, static_cast<__mmask32>(LowBits(c)), b);
    }
    return out + c;
  }
  if (_mm512_test_epi64_mask(any, _mm512_set1_epi64(~int64_t{0x3fff})) == 0) {
    // Word 0 of each 64-bit lane, 16 lanes from two vectors at a time.
    const __m512i words = _mm512_set_epi16(
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  //
        60, 56, 52, 48, 44, 40, 36, 32, 28, 24, 20, 16, 12, 8, 4, 0);
    const __m512i lo = _mm512_permutex2var_epi16(w[0], words, w[1]);
    const __m512i hi = _mm512_permutex2var_epi16(w[2], words, w[3]);
    return EncodeShort(
        _mm512_inserti64x4(lo, _mm512_castsi512_si256(hi), 1), c, rest, out);
  }
  if (_mm512_test_epi64_mask(any, _mm512_set1_epi64(static_cast<int64_t>(0xff00000000000000))) == 0) {
    const Slots s = Slots8();
#pragma GCC unroll 4
    for (size_t q = 0; q < 4; ++q) {
      if (8 * q >= c) break;
      const size_t valid = c - 8 * q < 8 ? c - 8 * q : 8;
      out = EncodeSlots(s, w[q], LowBits(static_cast<unsigned>(8 * valid)),
                        rest - 8 * q - valid, out);
    }
    return out;
  }
  const Slots s = Slots16();
  const __m512i first = _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0);
  const __m512i second = _mm512_set_epi64(7, 7, 6, 6, 5, 5, 4, 4);
#pragma GCC unroll 8
  for (size_t q = 0; q < 8; ++q) {
    if (4 * q >= c) break;
    const size_t valid = c - 4 * q < 4 ? c - 4 * q : 4;
    const __m512i d =
        _mm512_permutexvar_epi64((q & 1) ? second : first, w[q / 2]);
    out = EncodeSlots(s, d, LowBits(static_cast<unsigned>(16 * valid)),
                      rest - 4 * q - valid, out);
  }
  return out;
}

// The 32-bit kinds' block: up to kBlock values, c valid, `rest` from the
// first to the end of the array.
template <Kind kKind, bool kFull, typename T>
__attribute__((always_inline)) inline char* EncodeBlock32(const T* v, size_t c, size_t rest, char* out) {
  __m512i x0, x1;
  if (kFull) {
    x0 = _mm512_loadu_si512(v);
    x1 = _mm512_loadu_si512(v + 16);
  } else {
    x0 = _mm512_maskz_loadu_epi32(static_cast<__mmask16>(LowBits(c < 16 ? c : 16)), v);
    x1 = _mm512_maskz_loadu_epi32(
        static_cast<__mmask16>(LowBits(c > 16 ? static_cast<unsigned>(c - 16) : 0)),
        v + 16);
  }
  if (kKind == Kind::kSInt32) {
    x0 = ZigZag32(x0);
    x1 = ZigZag32(x1);
  }
  const __m512i any = _mm512_or_si512(x0, x1);
  if (kKind == Kind::kInt32 &&
      _mm512_movepi8_mask(any) & 0x8888888888888888) {  // a negative: sign-extend
    const __m512i w[4] = {
        _mm512_cvtepi32_epi64(_mm512_castsi512_si256(x0)),
        _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(x0, 1)),
        _mm512_cvtepi32_epi64(_mm512_castsi512_si256(x1)),
        _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(x1, 1))};
    return EncodeBlock64(w, c, rest, out);
  }
  if (_mm512_test_epi32_mask(any, _mm512_set1_epi32(~0x7f)) == 0) {
    const __m256i b = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm512_cvtepi32_epi8(x0)),
        _mm512_cvtepi32_epi8(x1), 1);
    if (kFull) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), b);
    } else {
      _mm256_mask_storeu_epi8(out, static_cast<__mmask32>(LowBits(c)), b);
    }
    return out + c;
  }
  if (_mm512_test_epi32_mask(any, _mm512_set1_epi32(~0x3fff)) == 0) {
    const __m512i words = _mm512_set_epi16(
        62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36, 34, 32,  //
        30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    return EncodeShort(_mm512_permutex2var_epi16(x0, words, x1), c, rest, out);
  }
  const Slots s = Slots8();
  const __m256i halves[4] = {
      _mm512_castsi512_si256(x0), _mm512_extracti64x4_epi64(x0, 1),
      _mm512_castsi512_si256(x1), _mm512_extracti64x4_epi64(x1, 1)};
#pragma GCC unroll 4
  for (size_t q = 0; q < 4; ++q) {
    if (8 * q >= c) break;
    const size_t valid = c - 8 * q < 8 ? c - 8 * q : 8;
    out = EncodeSlots(s, _mm512_cvtepu32_epi64(halves[q]),
                      LowBits(static_cast<unsigned>(8 * valid)),
                      rest - 8 * q - valid, out);
  }
  return out;
}

// One block of up to kBlock values: c of them valid, `rest` from the first
// to the end of the array.
template <Kind kKind, typename T, bool kFull>
__attribute__((always_inline)) inline char* EncodeBlock(const T* v, size_t c, size_t rest, char* out) {
  if constexpr (sizeof(T) == 8) {
    __m512i w[4];
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
      if (kFull) {
        w[q] = _mm512_loadu_si512(v + 8 * q);
      } else {
        const size_t have = c > 8u * q ? c - 8u * q : 0;
        w[q] = _mm512_maskz_loadu_epi64(
            static_cast<__mmask8>(LowBits(have > 8 ? 8 : static_cast<unsigned>(have))),
            v + 8 * q);
      }
      if (kKind == Kind::kSInt64) w[q] = ZigZag64(w[q]);
    }
    return EncodeBlock64(w, c, rest, out);
  } else {
    return EncodeBlock32<kKind, kFull>(v, c, rest, out);
  }
}

template <Kind kKind, typename T>
__attribute__((noinline)) char* EncodeLoop(const T* v, size_t n, char* out) {
  size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    out = EncodeBlock<kKind, T, true>(v + i, kBlock, n - i, out);
  }
  if (i < n) out = EncodeBlock<kKind, T, false>(v + i, n - i, n - i, out);
  return out;
}

// Short arrays to the scalar kernel, the rest to the loops above (out of
// line, so that short arrays pay for none of their frames).
template <Kind kKind, typename T>
size_t SizeAvx512(const T* v, size_t n) {
  if (n < kMinSize) return ScalarSize<kKind>(v, n);
  return SizeLoop<kKind>(v, n);
}

template <Kind kKind, typename T>
char* EncodeAvx512(const T* v, size_t n, char* out) {
  if (n < (sizeof(T) == 4 ? kMinEncode32 : kMinEncode64)) {
    return ScalarEncode<kKind>(v, n, out);
  }
  return EncodeLoop<kKind>(v, n, out);
}

}  // namespace

const VarintEncodeKernels kVarintEncodeAvx512 = {
    SizeAvx512<Kind::kUInt32, uint32_t>,
    SizeAvx512<Kind::kInt32, int32_t>,
    SizeAvx512<Kind::kSInt32, int32_t>,
    SizeAvx512<Kind::kUInt64, uint64_t>,
    SizeAvx512<Kind::kSInt64, int64_t>,
    EncodeAvx512<Kind::kUInt32, uint32_t>,
    EncodeAvx512<Kind::kInt32, int32_t>,
    EncodeAvx512<Kind::kSInt32, int32_t>,
    EncodeAvx512<Kind::kUInt64, uint64_t>,
    EncodeAvx512<Kind::kSInt64, int64_t>,
};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_X86
