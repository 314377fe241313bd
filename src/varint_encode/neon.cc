// Varint size and encode with NEON (arm64).
//
// Size, 32-bit values: one compare per length threshold (2^7, 2^14, 2^21,
// 2^28; unsigned, or signed for int32, whose negatives take 10 bytes),
// the masks (-1 each) summed in the lanes and added into 64-bit sums
// (uadalp), which no count can overflow. 64-bit values by a table lookup
// a value (SizeByTopBit, block_loop.h): NEON has no 64-bit count of
// leading zeros, and nine 64-bit compares a value would cost more.
//
// Encode: blocks of 8 values in the block loop of block_loop.h, as the
// SSE4.1 kernel's: all below 2^7 narrowed to bytes; all below 2^14 placed
// by a tbl from kShortTable; below 2^32 four values at a time in 32-bit
// lanes; else two at a time in 64-bit lanes. A value's bytes are built in
// its lane, continuation bits included, and stored 8 bytes at a time at
// its offset: at most kOverrun bytes past the block's last value's first
// byte, which the block loop leaves room for.

#include "dispatch/kernels.h"

#if PROTOACCEL_ARM64
#include <arm_neon.h>

#include "varint_encode/block_loop.h"
#include "varint_encode/scalar_encode.h"

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

inline uint32x4_t ZigZag32(uint32x4_t x) {
  return veorq_u32(vshlq_n_u32(x, 1),
                   vreinterpretq_u32_s32(vshrq_n_s32(vreinterpretq_s32_u32(x), 31)));
}

// ---------------------------------------------------------------------------
// Size

// The extra bytes (length - 1) of four 32-bit values of one kind.
template <Kind kKind>
inline uint32x4_t ExtraBytes4(uint32x4_t x) {
  if (kKind == Kind::kSInt32) x = ZigZag32(x);
  if (kKind == Kind::kInt32) {
    // Signed compares; a negative value has 9 extra bytes.
    const int32x4_t s = vreinterpretq_s32_u32(x);
    const uint32x4_t m = vaddq_u32(
        vaddq_u32(vcgtq_s32(s, vdupq_n_s32((1 << 7) - 1)),
                  vcgtq_s32(s, vdupq_n_s32((1 << 14) - 1))),
        vaddq_u32(vcgtq_s32(s, vdupq_n_s32((1 << 21) - 1)),
                  vcgtq_s32(s, vdupq_n_s32((1 << 28) - 1))));
    const uint32x4_t negative = vandq_u32(vcltzq_s32(s), vdupq_n_u32(9));
    return vsubq_u32(negative, m);
  }
  const uint32x4_t m = vaddq_u32(
      vaddq_u32(vcgtq_u32(x, vdupq_n_u32((1u << 7) - 1)),
                vcgtq_u32(x, vdupq_n_u32((1u << 14) - 1))),
      vaddq_u32(vcgtq_u32(x, vdupq_n_u32((1u << 21) - 1)),
                vcgtq_u32(x, vdupq_n_u32((1u << 28) - 1))));
  return vreinterpretq_u32_s32(vnegq_s32(vreinterpretq_s32_u32(m)));
}

template <Kind kKind, typename T>
size_t SizeNeon(const T* v, size_t n) {
  if constexpr (sizeof(T) == 8) {
    return SizeByTopBit<kKind>(v, n);
  } else {
    // Below two steps the scalar loop.
    if (n < 8) return ScalarSize<kKind>(v, n);
    const auto* u = reinterpret_cast<const uint32_t*>(v);
    uint64x2_t a = vdupq_n_u64(0), b = a;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      a = vpadalq_u32(a, ExtraBytes4<kKind>(vld1q_u32(u + i)));
      b = vpadalq_u32(b, ExtraBytes4<kKind>(vld1q_u32(u + i + 4)));
    }
    const size_t extra = static_cast<size_t>(vaddvq_u64(vaddq_u64(a, b)));
    return i + extra + ScalarSize<kKind>(v + i, n - i);
  }
}

// ---------------------------------------------------------------------------
// Encode

inline void Store8(char* out, uint8x8_t bytes) {
  vst1_u8(reinterpret_cast<uint8_t*>(out), bytes);
}

// Eight values below 2^14, one per 16-bit lane, as 1- or 2-byte varints:
// 16 bytes written at out.
inline char* StoreShort8(uint16x8_t y, char* out) {
  static constexpr uint16_t kBits[8] = {1, 2, 4, 8, 16, 32, 64, 128};
  const uint16x8_t two = vcgtq_u16(y, vdupq_n_u16(0x7f));
  // Bits 7..13 up one byte: y + (y & 0x3f80); a continuation bit where
  // there is a second byte.
  uint16x8_t b = vaddq_u16(y, vandq_u16(y, vdupq_n_u16(0x3f80)));
  b = vorrq_u16(b, vandq_u16(two, vdupq_n_u16(0x80)));
  const unsigned mask = vaddvq_u16(vandq_u16(two, vld1q_u16(kBits)));
  const uint8x16_t bytes = vqtbl1q_u8(vreinterpretq_u8_u16(b), vld1q_u8(kShortTable[mask].data()));
  vst1q_u8(reinterpret_cast<uint8_t*>(out), bytes);
  return out + 8 + __builtin_popcount(mask);
}

// Bits 0..27 of each 32-bit lane as four 7-bit groups, one a byte: 14-bit
// halves into the 16-bit halves, then 7-bit groups into their bytes, each
// by a shift and a shift-insert.
inline uint32x4_t Spread28(uint32x4_t x) {
  const uint32x4_t halves =
      vandq_u32(vsliq_n_u32(x, vshrq_n_u32(x, 14), 16), vdupq_n_u32(0x3fff3fff));
  const uint16x8_t h = vreinterpretq_u16_u32(halves);
  return vreinterpretq_u32_u16(
      vandq_u16(vsliq_n_u16(h, vshrq_n_u16(h, 7), 8), vdupq_n_u16(0x7f7f)));
}

// Four values below 2^32, one per 32-bit lane: each one's first four bytes
// (continuation bits set) and its fifth, in the low and high halves of a
// 64-bit lane (a, the first two values; b, the last two); their lengths
// one a byte.
inline uint32_t Varints4(uint32x4_t x, uint32x4_t* a, uint32x4_t* b) {
  const uint32x4_t m1 = vcgtq_u32(x, vdupq_n_u32((1u << 7) - 1));
  const uint32x4_t m2 = vcgtq_u32(x, vdupq_n_u32((1u << 14) - 1));
  const uint32x4_t m3 = vcgtq_u32(x, vdupq_n_u32((1u << 21) - 1));
  const uint32x4_t m4 = vcgtq_u32(x, vdupq_n_u32((1u << 28) - 1));
  // Byte j continues where m(j+1) is set.
  const uint32x4_t more = vbslq_u32(
      vdupq_n_u32(0x000000ff), m1,
      vbslq_u32(vdupq_n_u32(0x0000ff00), m2, vbslq_u32(vdupq_n_u32(0x00ff0000), m3, m4)));
  const uint32x4_t groups = vorrq_u32(Spread28(x), vandq_u32(more, vdupq_n_u32(0x80808080)));
  const uint32x4_t fifth = vshrq_n_u32(x, 28);
  *a = vzip1q_u32(groups, fifth);
  *b = vzip2q_u32(groups, fifth);
  // 1 + the masks' count, -1 each; narrowed to a byte a value.
  const uint32x4_t length =
      vsubq_u32(vdupq_n_u32(1), vaddq_u32(vaddq_u32(m1, m2), vaddq_u32(m3, m4)));
  const uint16x4_t narrow = vmovn_u32(length);
  return vget_lane_u32(vreinterpret_u32_u8(vmovn_u16(vcombine_u16(narrow, narrow))), 0);
}

// Stores four varints of up to 5 bytes (Varints4), 8 bytes each at its
// offset.
inline char* Store4(uint32x4_t a, uint32x4_t b, uint32_t lengths, char* out) {
  // Byte k of the product: the end of value k (at most 20).
  const uint32_t ends = lengths * 0x01010101u;
  Store8(out, vget_low_u8(vreinterpretq_u8_u32(a)));
  Store8(out + (ends & 0xff), vget_high_u8(vreinterpretq_u8_u32(a)));
  Store8(out + ((ends >> 8) & 0xff), vget_low_u8(vreinterpretq_u8_u32(b)));
  Store8(out + ((ends >> 16) & 0xff), vget_high_u8(vreinterpretq_u8_u32(b)));
  return out + (ends >> 24);
}

// Eight values below 2^32, four per vector.
__attribute__((always_inline)) inline char* Encode32(uint32x4_t x, uint32x4_t y, char* out) {
  const uint32_t top = vmaxvq_u32(vorrq_u32(x, y));
  if (top < 0x80) {
    Store8(out, vmovn_u16(vcombine_u16(vmovn_u32(x), vmovn_u32(y))));
    return out + 8;
  }
  if (top < 0x4000) return StoreShort8(vcombine_u16(vmovn_u32(x), vmovn_u32(y)), out);
  uint32x4_t a, b;
  uint32_t lengths = Varints4(x, &a, &b);
  out = Store4(a, b, lengths, out);
  lengths = Varints4(y, &a, &b);
  return Store4(a, b, lengths, out);
}

// Two values, one per 64-bit lane, stored each at its offset: its first 8
// bytes (continuation bits set) and, if kLong, bytes 8 and 9 after them
// (else the values are below 2^56).
template <bool kLong>
__attribute__((always_inline)) inline char* Encode2(uint64x2_t w, char* out) {
  // 28-bit halves into the 32-bit halves, then as Spread28.
  const uint64x2_t halves =
      vandq_u64(vsliq_n_u64(w, vshrq_n_u64(w, 28), 32), vdupq_n_u64(0x0fffffff0fffffff));
  const uint8x16_t groups = vreinterpretq_u8_u32(Spread28(vreinterpretq_u32_u64(halves)));
  // Byte j continues if a byte above it is not zero: the nonzero marks
  // shifted down one byte and smeared down the lane.
  uint64x2_t more = vshrq_n_u64(vreinterpretq_u64_u8(vtstq_u8(groups, groups)), 8);
  more = vorrq_u64(more, vshrq_n_u64(more, 8));
  more = vorrq_u64(more, vshrq_n_u64(more, 16));
  more = vorrq_u64(more, vshrq_n_u64(more, 32));
  uint8x16_t high = vdupq_n_u8(0), ones;
  if (kLong) {
    // Bits 56..62 in byte 8 and bit 63 in byte 9: h + (h & 0x80).
    uint64x2_t h = vshrq_n_u64(w, 56);
    h = vaddq_u64(h, vandq_u64(h, vdupq_n_u64(0x80)));
    more = vorrq_u64(more, vtstq_u64(h, h));
    const uint64x2_t tenth = vandq_u64(vshrq_n_u64(h, 1), vdupq_n_u64(0x80));
    high = vreinterpretq_u8_u64(vorrq_u64(h, tenth));
    // A one a continuing byte, the 10th's included.
    ones = vaddq_u8(vshrq_n_u8(vreinterpretq_u8_u64(more), 7),
                    vshrq_n_u8(vreinterpretq_u8_u64(tenth), 7));
  } else {
    ones = vshrq_n_u8(vreinterpretq_u8_u64(more), 7);
  }
  const uint8x16_t low =
      vorrq_u8(groups, vandq_u8(vreinterpretq_u8_u64(more), vdupq_n_u8(0x80)));
  const unsigned first = 1 + vaddv_u8(vget_low_u8(ones));
  const unsigned second = 1 + vaddv_u8(vget_high_u8(ones));
  Store8(out, vget_low_u8(low));
  if (kLong) Store8(out + 8, vget_low_u8(high));
  out += first;
  Store8(out, vget_high_u8(low));
  if (kLong) Store8(out + 8, vget_high_u8(high));
  return out + second;
}

template <bool kLong>
__attribute__((always_inline)) inline char* Encode64(const uint64x2_t (&w)[4], char* out) {
#pragma GCC unroll 4
  for (int q = 0; q < 4; ++q) out = Encode2<kLong>(w[q], out);
  return out;
}

struct NeonBlock {
  static constexpr size_t kSize = 8;

  // Fewer values than a block: the scalar kernel.
  template <Kind kKind, typename T>
  static char* Short(const T* v, size_t n, char* out) {
    return ScalarEncode<kKind>(v, n, out);
  }

  template <Kind kKind, typename T>
  __attribute__((always_inline)) static char* Encode(const T* v, char* out) {
    if constexpr (sizeof(T) == 4) {
      const auto* u = reinterpret_cast<const uint32_t*>(v);
      uint32x4_t x = vld1q_u32(u), y = vld1q_u32(u + 4);
      if (kKind == Kind::kSInt32) {
        x = ZigZag32(x);
        y = ZigZag32(y);
      }
      if (kKind == Kind::kInt32 && vmaxvq_u32(vorrq_u32(x, y)) >= 0x80000000u) {
        // A negative value: all of them sign-extended to 64 bits.
        const int32x4_t sx = vreinterpretq_s32_u32(x), sy = vreinterpretq_s32_u32(y);
        const uint64x2_t w[4] = {vreinterpretq_u64_s64(vmovl_s32(vget_low_s32(sx))),
                                 vreinterpretq_u64_s64(vmovl_high_s32(sx)),
                                 vreinterpretq_u64_s64(vmovl_s32(vget_low_s32(sy))),
                                 vreinterpretq_u64_s64(vmovl_high_s32(sy))};
        return Encode64<true>(w, out);
      }
      return Encode32(x, y, out);
    } else {
      const auto* u = reinterpret_cast<const uint64_t*>(v);
      uint64x2_t w[4];
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
        w[q] = vld1q_u64(u + 2 * q);
        if (kKind == Kind::kSInt64) {
          w[q] = veorq_u64(vshlq_n_u64(w[q], 1),
                           vreinterpretq_u64_s64(vshrq_n_s64(vreinterpretq_s64_u64(w[q]), 63)));
        }
      }
      const uint64x2_t any = vorrq_u64(vorrq_u64(w[0], w[1]), vorrq_u64(w[2], w[3]));
      const uint64_t top = vgetq_lane_u64(any, 0) | vgetq_lane_u64(any, 1);
      if (top >> 32 == 0) {
        return Encode32(vcombine_u32(vmovn_u64(w[0]), vmovn_u64(w[1])),
                        vcombine_u32(vmovn_u64(w[2]), vmovn_u64(w[3])), out);
      }
      if (top >> 56 == 0) return Encode64<false>(w, out);
      return Encode64<true>(w, out);
    }
  }
};

}  // namespace

const VarintEncodeKernels kVarintEncodeNeon = {
    SizeNeon<Kind::kUInt32, uint32_t>,
    SizeNeon<Kind::kInt32, int32_t>,
    SizeNeon<Kind::kSInt32, int32_t>,
    SizeNeon<Kind::kUInt64, uint64_t>,
    SizeNeon<Kind::kSInt64, int64_t>,
    EncodeBlocks<NeonBlock, Kind::kUInt32, uint32_t>,
    EncodeBlocks<NeonBlock, Kind::kInt32, int32_t>,
    EncodeBlocks<NeonBlock, Kind::kSInt32, int32_t>,
    EncodeBlocks<NeonBlock, Kind::kUInt64, uint64_t>,
    EncodeBlocks<NeonBlock, Kind::kSInt64, int64_t>,
};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

#endif  // PROTOACCEL_ARM64
