// Varint size and encode with AVX2: the SSE4.1 kernels (see sse4.cc) at
// twice the width, in blocks of 16 values. The continuation bits of 32-bit
// values come from one variable shift (vpsrlvd) of 0x80808080 by their
// length; no BMI2 (PDEP is slow on AMD before Zen 3).

#include "dispatch/kernels.h"

#if PROTOACCEL_X86
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#define PROTOACCEL_KERNEL_TARGET "avx2,bmi,lzcnt,popcnt"

#include "varint_encode/lanes_encode.h"

#include "dispatch/target.h"

PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

inline __m256i Load(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}
inline __m256i ZigZag32(__m256i x) {
  return _mm256_xor_si256(_mm256_slli_epi32(x, 1), _mm256_srai_epi32(x, 31));
}
inline __m256i ZigZag64(__m256i x) {
  return _mm256_xor_si256(_mm256_slli_epi64(x, 1),
                          _mm256_cmpgt_epi64(_mm256_setzero_si256(), x));
}
// The low 32-bit halves of eight 64-bit values, in order.
inline __m256i Low32(__m256i a, __m256i b) {
  const __m256 lows = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), 0x88);
  return _mm256_permute4x64_epi64(_mm256_castps_si256(lows), 0xd8);
}
inline bool NoneOf(__m256i x, int64_t bits) {
  return _mm256_testz_si256(x, _mm256_set1_epi64x(bits)) != 0;
}
// kOpaque: the bound through Opaque (lanes_encode.h), for the sizes. Not in
// the encoder's block loop: there the four bounds, held in registers,
// crowded out the block tests' masks, which were then built again every
// block (encode_uint32/1B: 21% more instructions).
template <bool kOpaque = false>
inline __m256i AtLeast(__m256i flipped, int bits) {
  const __m256i bound =
      _mm256_set1_epi32(static_cast<int32_t>(((uint32_t{1} << bits) - 1) ^ 0x80000000u));
  return _mm256_cmpgt_epi32(flipped, kOpaque ? Opaque(bound) : bound);
}

// ---------------------------------------------------------------------------
// Size (as in sse4.cc)

template <Kind kKind>
inline __m256i ExtraBytes8(__m256i x) {
  if (kKind == Kind::kSInt32) x = ZigZag32(x);
  if (kKind == Kind::kInt32) {
    const __m256i m = _mm256_add_epi32(
        _mm256_add_epi32(_mm256_cmpgt_epi32(x, Opaque(_mm256_set1_epi32((1 << 7) - 1))),
                         _mm256_cmpgt_epi32(x, Opaque(_mm256_set1_epi32((1 << 14) - 1)))),
        _mm256_add_epi32(_mm256_cmpgt_epi32(x, Opaque(_mm256_set1_epi32((1 << 21) - 1))),
                         _mm256_cmpgt_epi32(x, Opaque(_mm256_set1_epi32((1 << 28) - 1)))));
    return _mm256_sub_epi32(
        _mm256_and_si256(_mm256_srai_epi32(x, 31), _mm256_set1_epi32(9)), m);
  }
  const __m256i f = _mm256_xor_si256(x, _mm256_set1_epi32(INT32_MIN));
  return _mm256_sub_epi32(
      _mm256_setzero_si256(),
      _mm256_add_epi32(_mm256_add_epi32(AtLeast<true>(f, 7), AtLeast<true>(f, 14)),
                       _mm256_add_epi32(AtLeast<true>(f, 21), AtLeast<true>(f, 28))));
}

inline size_t Sum32(__m256i x) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(s));
}

// Values between flushes of the lanes' sums: a lane gains at most 9 a step
// (9 extra bytes of an int32), so it stays below 2^32.
constexpr size_t kFlush = size_t{1} << 24;

template <Kind kKind, typename T>
__attribute__((noinline)) size_t SizeLoop(const T* v, size_t n) {
  size_t size = 0;  // the lanes' extra bytes over one a value
  size_t i = 0;
  while (n - i >= 16) {
    const size_t stop = n - i > kFlush ? i + kFlush : n;
    __m256i a = _mm256_setzero_si256(), b = a;
    for (; i + 16 <= stop; i += 16) {
      a = _mm256_add_epi32(a, ExtraBytes8<kKind>(Load(v + i)));
      b = _mm256_add_epi32(b, ExtraBytes8<kKind>(Load(v + i + 8)));
    }
    size += Sum32(_mm256_add_epi32(a, b));
  }
  size += i;
  if (i == n) return size;
  return size + (n - i < 8 ? ScalarSize<kKind>(v + i, n - i)
                            : Entry<kKind>::Size(kVarintEncodeSse4)(v + i, n - i));
}

// 32-bit values: fewer than 16 go to the SSE4.1 kernel (8 at a time), fewer
// than 8 to the scalar one. 64-bit values: a lookup a value (lzcnt here).
template <Kind kKind, typename T>
size_t SizeAvx2(const T* v, size_t n) {
  if constexpr (sizeof(T) == 8) {
    return SizeByTopBit<kKind>(v, n);
  } else {
    if (n < 8) return ScalarSize<kKind>(v, n);  // first: scalar's count + 3
    if (n < 16) return Entry<kKind>::Size(kVarintEncodeSse4)(v, n);
    return SizeLoop<kKind>(v, n);
  }
}

// ---------------------------------------------------------------------------
// Encode

struct Avx2Block {
  static constexpr size_t kSize = 16;
  // Fewer values than a block: the SSE4.1 kernel (blocks of 8), or for
  // fewer than 8 the scalar one. From one block on this is faster:
  // kernels_bench on Zen 5, N = 16, ns scalar / SSE4.1 / this (median of
  // 3): encode_uint32/1B 15.6 / 5.8 / 4.7, 2B 8.8 / 6.6 / 7.7 (SSE4.1 is
  // ahead on two-byte values up to N = 64, level at 4096), u32 21.3 /
  // 17.6 / 12.5, encode_uint64/u64 39.5 / 28.5 / 19.6.
  template <Kind kKind, typename T>
  static char* Short(const T* v, size_t n, char* out) {
    return n < 8 ? ScalarEncode<kKind>(v, n, out)
                 : Entry<kKind>::Encode(kVarintEncodeSse4)(v, n, out);
  }

  template <Kind kKind, typename T>
  __attribute__((always_inline)) static char* Encode(const T* v, char* out);
};

// Eight values below 2^32 (as Varints4 in lanes_encode.h, kInt32 too), the
// continuation bits by vpsrlvd: 0x80808080 >> (32 - 8 * (length - 1)).
template <bool kInt32 = false>
inline void Varints8(__m256i x, __m256i* groups, __m256i* fifth,
                     uint32_t* first, uint32_t* second) {
  const __m256i flipped = _mm256_xor_si256(x, _mm256_set1_epi32(INT32_MIN));
  const __m256i minus = _mm256_add_epi32(
      _mm256_add_epi32(AtLeast(flipped, 7), AtLeast(flipped, 14)),
      _mm256_add_epi32(AtLeast(flipped, 21), AtLeast(flipped, 28)));  // 1 - length
  const __m256i more = _mm256_srlv_epi32(
      _mm256_set1_epi32(static_cast<int32_t>(0x80808080)),
      _mm256_add_epi32(_mm256_slli_epi32(minus, 3), _mm256_set1_epi32(32)));
  // Bits 14..27 to 16..29, then bits 7..13 of each half up one.
  __m256i a = _mm256_blend_epi16(x, _mm256_slli_epi32(x, 2), 0xaa);
  a = _mm256_and_si256(a, _mm256_set1_epi32(0x3fff3fff));
  a = _mm256_add_epi16(a, _mm256_and_si256(a, _mm256_set1_epi16(0x3f80)));
  *groups = _mm256_or_si256(a, more);
  *fifth = kInt32 ? _mm256_srai_epi32(x, 28) : _mm256_srli_epi32(x, 28);
  __m256i length = _mm256_sub_epi32(_mm256_set1_epi32(1), minus);
  if (kInt32) {
    length = _mm256_add_epi32(
        length, _mm256_and_si256(_mm256_srai_epi32(x, 31), _mm256_set1_epi32(5)));
  }
  const __m256i gathered = _mm256_shuffle_epi8(
      length,
      _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                       0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
  *first = static_cast<uint32_t>(_mm256_extract_epi32(gathered, 0));
  *second = static_cast<uint32_t>(_mm256_extract_epi32(gathered, 4));
}

// Sixteen values below 2^32 (or int32 values, as Varints8<true>), eight at a
// time.
template <bool kInt32 = false>
__attribute__((always_inline)) inline char* EncodeLanes(__m256i a, __m256i b, char* out) {
#pragma GCC unroll 2
  for (__m256i x : {a, b}) {
    __m256i groups, fifth;
    uint32_t first, second;
    Varints8<kInt32>(x, &groups, &fifth, &first, &second);
    out = Store4<kInt32>(_mm256_castsi256_si128(groups), _mm256_castsi256_si128(fifth),
                         first, out);
    out = Store4<kInt32>(_mm256_extracti128_si256(groups, 1),
                         _mm256_extracti128_si256(fifth, 1), second, out);
  }
  return out;
}

// Sixteen values below 2^32, eight per vector. Inlined: called out of line
// with its ymm arguments, it returned with the upper halves dirty and gcc
// put no vzeroupper after it, which made the SSE4.1 kernel the block loop
// hands its tail to 4x slower (8 values: 3 ns, then 12 ns).
__attribute__((always_inline)) inline char* Encode32(__m256i a, __m256i b, char* out) {
  const __m256i any = _mm256_or_si256(a, b);
  if (NoneOf(any, ~int64_t{0x0000007f0000007f})) {
    // Packing in lanes leaves the four values of a, then four of b, in
    // each half: one unpack orders them, where a vpermq a pack took two.
    const __m256i words = _mm256_packus_epi32(a, b);
    const __m256i bytes = _mm256_packus_epi16(words, words);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                     _mm_unpacklo_epi32(_mm256_castsi256_si128(bytes),
                                        _mm256_extracti128_si256(bytes, 1)));
    return out + 16;
  }
  if (NoneOf(any, ~int64_t{0x00003fff00003fff})) {
    const __m256i y = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xd8);
    const __m256i two = _mm256_cmpgt_epi16(y, _mm256_set1_epi16(0x7f));
    __m256i bytes = _mm256_add_epi16(y, _mm256_and_si256(y, _mm256_set1_epi16(0x3f80)));
    bytes = _mm256_or_si256(bytes, _mm256_and_si256(two, _mm256_set1_epi16(0x80)));
    const uint32_t mask =
        static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_packs_epi16(two, two)));
    const unsigned m0 = mask & 0xff, m1 = (mask >> 16) & 0xff;
    const __m256i control = _mm256_inserti128_si256(
        _mm256_castsi128_si256(
            _mm_load_si128(reinterpret_cast<const __m128i*>(kShortTable[m0].data()))),
        _mm_load_si128(reinterpret_cast<const __m128i*>(kShortTable[m1].data())), 1);
    bytes = _mm256_shuffle_epi8(bytes, control);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(bytes));
    out += 8 + __builtin_popcount(m0);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_extracti128_si256(bytes, 1));
    return out + 8 + __builtin_popcount(m1);
  }
  return EncodeLanes(a, b, out);
}

// Four 64-bit values (as Varints2 in lanes_encode.h): their lengths minus
// one in 64-bit lanes.
template <bool kLong>
inline __m256i Varints4x64(__m256i w, __m256i* low, __m256i* high) {
  const __m256i top = _mm256_set1_epi8(static_cast<char>(0x80));
  __m256i a = _mm256_blend_epi16(w, _mm256_slli_epi64(w, 4), 0xcc);
  a = _mm256_and_si256(a, _mm256_set1_epi32(0x0fffffff));
  a = _mm256_blend_epi16(a, _mm256_slli_epi32(a, 2), 0xaa);
  a = _mm256_and_si256(a, _mm256_set1_epi32(0x3fff3fff));
  const __m256i groups =
      _mm256_add_epi16(a, _mm256_and_si256(a, _mm256_set1_epi16(0x3f80)));
  __m256i more = _mm256_srli_epi64(
      _mm256_andnot_si256(_mm256_cmpeq_epi8(groups, _mm256_setzero_si256()), top), 8);
  more = _mm256_or_si256(more, _mm256_srli_epi64(more, 8));
  more = _mm256_or_si256(more, _mm256_srli_epi64(more, 16));
  more = _mm256_or_si256(more, _mm256_srli_epi64(more, 32));
  __m256i count = _mm256_srli_epi64(more, 7);
  if (kLong) {
    __m256i h = _mm256_srli_epi64(w, 56);
    h = _mm256_add_epi64(h, _mm256_and_si256(h, _mm256_set1_epi64x(0x80)));
    more = _mm256_or_si256(
        more, _mm256_andnot_si256(_mm256_cmpeq_epi64(h, _mm256_setzero_si256()), top));
    const __m256i tenth =
        _mm256_and_si256(_mm256_srli_epi64(h, 1), _mm256_set1_epi64x(0x80));
    *high = _mm256_or_si256(h, tenth);
    count = _mm256_add_epi64(_mm256_srli_epi64(more, 7), _mm256_srli_epi64(tenth, 7));
  }
  *low = _mm256_or_si256(groups, more);
  return _mm256_sad_epu8(count, _mm256_setzero_si256());
}

// Sixteen 64-bit values, four per vector.
template <bool kLong>
__attribute__((always_inline)) inline char* Encode64(const __m256i (&w)[4], char* out) {
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    __m256i low, high = _mm256_setzero_si256();
    const __m256i counts = Varints4x64<kLong>(w[q], &low, &high);
    // Lengths minus one: bytes 0 and 8 of each half, to bytes 0 and 1.
    const __m256i pairs = _mm256_shuffle_epi8(
        counts, _mm256_setr_epi8(0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                 0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
    const unsigned p0 = static_cast<unsigned>(_mm256_extract_epi16(pairs, 0));
    const unsigned p1 = static_cast<unsigned>(_mm256_extract_epi16(pairs, 8));
    out = Store2<kLong>(_mm256_castsi256_si128(low), _mm256_castsi256_si128(high),
                        1 + (p0 & 0xff), 1 + (p0 >> 8), out);
    out = Store2<kLong>(_mm256_extracti128_si256(low, 1), _mm256_extracti128_si256(high, 1),
                        1 + (p1 & 0xff), 1 + (p1 >> 8), out);
  }
  return out;
}

template <Kind kKind, typename T>
inline char* Avx2Block::Encode(const T* v, char* out) {
  if constexpr (sizeof(T) == 4) {
    __m256i a = Load(v), b = Load(v + 8);
    if (kKind == Kind::kSInt32) {
      a = ZigZag32(a);
      b = ZigZag32(b);
    }
    if (kKind == Kind::kInt32 &&
        _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_or_si256(a, b))) != 0) {
      // A negative value: 10 bytes, as in sse4.cc.
      return EncodeLanes<true>(a, b, out);
    }
    return Encode32(a, b, out);
  } else {
    __m256i w[4] = {Load(v), Load(v + 4), Load(v + 8), Load(v + 12)};
    if (kKind == Kind::kSInt64) {
#pragma GCC unroll 4
      for (auto& x : w) x = ZigZag64(x);
    }
    const __m256i any =
        _mm256_or_si256(_mm256_or_si256(w[0], w[1]), _mm256_or_si256(w[2], w[3]));
    if (NoneOf(any, static_cast<int64_t>(0xffffffff00000000))) {
      return Encode32(Low32(w[0], w[1]), Low32(w[2], w[3]), out);
    }
    if (NoneOf(any, static_cast<int64_t>(0xff00000000000000))) {
      return Encode64<false>(w, out);
    }
    return Encode64<true>(w, out);
  }
}

}  // namespace

const VarintEncodeKernels kVarintEncodeAvx2 = {
    SizeAvx2<Kind::kUInt32, uint32_t>,
    SizeAvx2<Kind::kInt32, int32_t>,
    SizeAvx2<Kind::kSInt32, int32_t>,
    SizeAvx2<Kind::kUInt64, uint64_t>,
    SizeAvx2<Kind::kSInt64, int64_t>,
    EncodeBlocks<Avx2Block, Kind::kUInt32, uint32_t>,
    EncodeBlocks<Avx2Block, Kind::kInt32, int32_t>,
    EncodeBlocks<Avx2Block, Kind::kSInt32, int32_t>,
    EncodeBlocks<Avx2Block, Kind::kUInt64, uint64_t>,
    EncodeBlocks<Avx2Block, Kind::kSInt64, int64_t>,
};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_X86
