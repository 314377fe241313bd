// Varint size and encode with SSE4.1.
//
// Size: one signed compare per length threshold (2^7, 2^14, ..., 2^28) on
// 32-bit values with their top bit flipped, which orders them as unsigned;
// the masks (-1 each) summed in the lanes. 64-bit values (SSE4.1 has no
// 64-bit compare) the same way on their 32-bit halves, four at a time.
//
// Encode: blocks of 8 values (see lanes_encode.h for the stores and the
// tail): all below 2^7 packed to bytes; all below 2^14 one pshufb; below
// 2^32, or int32 values with a negative one, four values at a time in
// 32-bit lanes; else two at a time in 64-bit lanes.

#include "dispatch/kernels.h"

#if PROTOACCEL_X86
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#define PROTOACCEL_KERNEL_TARGET "sse4.1,ssse3,popcnt"

#include "varint_encode/lanes_encode.h"

#include "dispatch/target.h"

PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

inline __m128i Load(const void* p) {
  return _mm_loadu_si128(static_cast<const __m128i*>(p));
}
inline __m128i ZigZag32(__m128i x) {
  return _mm_xor_si128(_mm_slli_epi32(x, 1), _mm_srai_epi32(x, 31));
}
inline __m128i ZigZag64(__m128i x) {
  // No 64-bit arithmetic shift: the high half's sign, copied to both halves.
  const __m128i sign = _mm_shuffle_epi32(_mm_srai_epi32(x, 31), 0xf5);
  return _mm_xor_si128(_mm_slli_epi64(x, 1), sign);
}
// The low and high 32-bit halves of four 64-bit values, in order.
inline __m128i Low32(__m128i a, __m128i b) {
  return _mm_castps_si128(
      _mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b), 0x88));
}
inline __m128i High32(__m128i a, __m128i b) {
  return _mm_castps_si128(
      _mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b), 0xdd));
}
inline bool NoneOf(__m128i x, int64_t bits) {
  return _mm_testz_si128(x, _mm_set1_epi64x(bits)) != 0;
}

// ---------------------------------------------------------------------------
// Size

// length - 1 of four 64-bit values, from their halves: at or above 2^7k
// for k <= 4 where the high half is not zero or the low half is, for k >= 5
// where the high half is at or above 2^(7k - 32). Not a lookup by the top
// bit, as AVX2 does: without lzcnt that takes bsr, which AMD decodes to
// several micro-ops (on Zen 3, kernels_bench's size_uint64/u64/4096: 1.38
// ns a value by the lookup, 0.57 by these compares, 0.52 by AVX2's lzcnt).
template <Kind kKind>
inline __m128i ExtraBytes64x4(__m128i a, __m128i b) {
  if (kKind == Kind::kSInt64) {
    a = ZigZag64(a);
    b = ZigZag64(b);
  }
  const __m128i flip = _mm_set1_epi32(INT32_MIN);
  const __m128i high = _mm_xor_si128(High32(a, b), flip);
  // The low half, all ones where the high half is not zero (at or above 2^0).
  const __m128i low =
      _mm_xor_si128(_mm_or_si128(Low32(a, b), AtLeast(high, 0)), flip);
  const __m128i masks = _mm_add_epi32(
      _mm_add_epi32(_mm_add_epi32(AtLeast(low, 7), AtLeast(low, 14)),
                    _mm_add_epi32(AtLeast(low, 21), AtLeast(low, 28))),
      _mm_add_epi32(_mm_add_epi32(AtLeast(high, 35 - 32), AtLeast(high, 42 - 32)),
                    _mm_add_epi32(_mm_add_epi32(AtLeast(high, 49 - 32),
                                                AtLeast(high, 56 - 32)),
                                  AtLeast(high, 63 - 32))));
  return _mm_sub_epi32(_mm_setzero_si128(), masks);
}

// The sums of (length - 1) over 4 values per lane, for each kind.
template <Kind kKind>
inline __m128i ExtraBytes32x4(__m128i x) {
  if (kKind == Kind::kSInt32) x = ZigZag32(x);
  if (kKind == Kind::kInt32) {
    // Signed compares as they are; a negative value takes 9 more bytes.
    const __m128i m = _mm_add_epi32(
        _mm_add_epi32(_mm_cmpgt_epi32(x, Opaque(_mm_set1_epi32((1 << 7) - 1))),
                      _mm_cmpgt_epi32(x, Opaque(_mm_set1_epi32((1 << 14) - 1)))),
        _mm_add_epi32(_mm_cmpgt_epi32(x, Opaque(_mm_set1_epi32((1 << 21) - 1))),
                      _mm_cmpgt_epi32(x, Opaque(_mm_set1_epi32((1 << 28) - 1)))));
    return _mm_sub_epi32(_mm_and_si128(_mm_srai_epi32(x, 31), _mm_set1_epi32(9)), m);
  }
  const __m128i f = _mm_xor_si128(x, _mm_set1_epi32(INT32_MIN));
  return _mm_sub_epi32(
      _mm_setzero_si128(),
      _mm_add_epi32(_mm_add_epi32(AtLeast(f, 7), AtLeast(f, 14)),
                    _mm_add_epi32(AtLeast(f, 21), AtLeast(f, 28))));
}

// The same for the 4 values at v, of either width.
template <Kind kKind, typename T>
inline __m128i ExtraBytes4(const T* v) {
  if constexpr (sizeof(T) == 8) {
    return ExtraBytes64x4<kKind>(Load(v), Load(v + 2));
  } else {
    return ExtraBytes32x4<kKind>(Load(v));
  }
}

inline size_t Sum32(__m128i x) {
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4e));
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xb1));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(x));
}

// Values between flushes of the lanes' sums: a lane gains at most 9 a step
// (9 extra bytes of an int32 or a 64-bit value), so it stays below 2^32.
constexpr size_t kFlush = size_t{1} << 24;

template <Kind kKind, typename T>
__attribute__((noinline)) size_t SizeLoop(const T* v, size_t n) {
  size_t size = 0;  // the lanes' extra bytes over one a value
  size_t i = 0;
  while (n - i >= 8) {
    const size_t stop = n - i > kFlush ? i + kFlush : n;
    __m128i a = _mm_setzero_si128(), b = a;
    for (; i + 8 <= stop; i += 8) {
      a = _mm_add_epi32(a, ExtraBytes4<kKind>(v + i));
      b = _mm_add_epi32(b, ExtraBytes4<kKind>(v + i + 4));
    }
    size += Sum32(_mm_add_epi32(a, b));
  }
  size += i;
  return i == n ? size : size + ScalarSize<kKind>(v + i, n - i);
}

// Fewer than 8 values to the scalar kernel (32-bit values, N = 8: 5.0 ns
// there, 2.9 here; N = 4: 2.7 and 2.8).
template <Kind kKind, typename T>
size_t SizeSse4(const T* v, size_t n) {
  if (n < 8) return ScalarSize<kKind>(v, n);
  return SizeLoop<kKind>(v, n);
}

// ---------------------------------------------------------------------------
// Encode

struct Sse4Block {
  static constexpr size_t kSize = 8;
  // Fewer values than a block: the scalar kernel. From one block on this
  // is faster: kernels_bench on Zen 5, N = 8, ns scalar / this (median of
  // 3): encode_uint32/1B 4.5 / 4.1, 2B 4.6 / 4.0, u32 10.7 / 9.5,
  // encode_uint64/u64 19.8 / 14.9, encode_int32/neg 21.3 / 14.6.
  template <Kind kKind, typename T>
  static char* Short(const T* v, size_t n, char* out) {
    return ScalarEncode<kKind>(v, n, out);
  }

  template <Kind kKind, typename T>
  __attribute__((always_inline)) static char* Encode(const T* v, char* out);
};

// Eight values below 2^32 (or int32 values, as Varints4<true>), four at a
// time.
template <bool kInt32 = false>
__attribute__((always_inline)) inline char* EncodeLanes(__m128i a, __m128i b, char* out) {
  __m128i groups, fifth;
  uint32_t lengths = Varints4<kInt32>(a, &groups, &fifth);
  out = Store4<kInt32>(groups, fifth, lengths, out);
  lengths = Varints4<kInt32>(b, &groups, &fifth);
  return Store4<kInt32>(groups, fifth, lengths, out);
}

// Eight values below 2^32, four per vector.
__attribute__((always_inline)) inline char* Encode32(__m128i a, __m128i b, char* out) {
  const __m128i any = _mm_or_si128(a, b);
  if (_mm_testz_si128(any, _mm_set1_epi32(~0x7f))) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out),
                     _mm_packus_epi16(_mm_packus_epi32(a, b), _mm_setzero_si128()));
    return out + 8;
  }
  if (_mm_testz_si128(any, _mm_set1_epi32(~0x3fff))) {
    return StoreShort8(_mm_packus_epi32(a, b), out);
  }
  return EncodeLanes(a, b, out);
}

// Eight 64-bit values, two per vector.
template <bool kLong>
__attribute__((always_inline)) inline char* Encode64(const __m128i (&w)[4], char* out) {
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) {
    __m128i low, high;
    const __m128i counts = Varints2<kLong>(w[q], &low, &high);
    out = Store2<kLong>(low, high, 1 + static_cast<unsigned>(_mm_cvtsi128_si32(counts)),
                        1 + static_cast<unsigned>(_mm_extract_epi16(counts, 4)), out);
  }
  return out;
}

template <Kind kKind, typename T>
inline char* Sse4Block::Encode(const T* v, char* out) {
  if constexpr (sizeof(T) == 4) {
    __m128i a = Load(v), b = Load(v + 4);
    if (kKind == Kind::kSInt32) {
      a = ZigZag32(a);
      b = ZigZag32(b);
    }
    if (kKind == Kind::kInt32 &&
        _mm_movemask_ps(_mm_castsi128_ps(_mm_or_si128(a, b))) != 0) {
      // A negative value: 10 bytes, of which the last five are the same
      // for every negative int32 (Varints4<true>). On Zen 3, kernels_bench's
      // encode_int32/neg/256: 1.38 ns a value, where sign-extending to 64
      // bits and encoding two a step took 2.29 (AVX2: 0.89 and 1.49).
      return EncodeLanes<true>(a, b, out);
    }
    return Encode32(a, b, out);
  } else {
    __m128i w[4] = {Load(v), Load(v + 2), Load(v + 4), Load(v + 6)};
    if (kKind == Kind::kSInt64) {
#pragma GCC unroll 4
      for (auto& x : w) x = ZigZag64(x);
    }
    const __m128i any = _mm_or_si128(_mm_or_si128(w[0], w[1]), _mm_or_si128(w[2], w[3]));
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

const VarintEncodeKernels kVarintEncodeSse4 = {
    SizeSse4<Kind::kUInt32, uint32_t>,
    SizeSse4<Kind::kInt32, int32_t>,
    SizeSse4<Kind::kSInt32, int32_t>,
    SizeSse4<Kind::kUInt64, uint64_t>,
    SizeSse4<Kind::kSInt64, int64_t>,
    EncodeBlocks<Sse4Block, Kind::kUInt32, uint32_t>,
    EncodeBlocks<Sse4Block, Kind::kInt32, int32_t>,
    EncodeBlocks<Sse4Block, Kind::kSInt32, int32_t>,
    EncodeBlocks<Sse4Block, Kind::kUInt64, uint64_t>,
    EncodeBlocks<Sse4Block, Kind::kSInt64, int64_t>,
};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_X86
