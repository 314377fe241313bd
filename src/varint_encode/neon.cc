// Varint size and encode with NEON (arm64).
//
// Size, 32-bit values: one compare per length threshold (2^7, 2^14, 2^21,
// 2^28; unsigned, or signed for int32, whose negatives take 10 bytes),
// the masks (-1 each) summed in the lanes and added into 64-bit sums
// (uadalp), which no count can overflow. 64-bit values take the scalar
// formula: NEON has no 64-bit count of leading zeros, and nine 64-bit
// compares a value would cost more.
//
// Encode: blocks of 16 values that are all one-byte varints, the common
// case of small values and enums, are narrowed to 16 bytes and stored;
// other blocks, and the last values, are encoded one value at a time by
// the scalar code. Every store is of output bytes: nothing past the end.
// (The x86 kernels' multi-byte paths are not ported yet.)

#include "dispatch/kernels.h"

#if PROTOACCEL_ARM64
#include <arm_neon.h>

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
    return ScalarSize<kKind>(v, n);
  } else {
    // Below two steps the scalar loop (not measured on arm64).
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

// The wire values of 16 values, if all are below 2^7, as 16 bytes.
template <Kind kKind, typename T>
inline bool OneByteValues16(const T* v, uint8x16_t* bytes) {
  if constexpr (sizeof(T) == 4) {
    const auto* u = reinterpret_cast<const uint32_t*>(v);
    uint32x4_t x[4];
    for (int q = 0; q < 4; ++q) {
      x[q] = vld1q_u32(u + 4 * q);
      if (kKind == Kind::kSInt32) x[q] = ZigZag32(x[q]);
    }
    // int32's negatives have their top bit set: no exception needed.
    const uint32x4_t any = vorrq_u32(vorrq_u32(x[0], x[1]), vorrq_u32(x[2], x[3]));
    if (vmaxvq_u32(any) >= 0x80) return false;
    const uint16x8_t low = vcombine_u16(vmovn_u32(x[0]), vmovn_u32(x[1]));
    const uint16x8_t high = vcombine_u16(vmovn_u32(x[2]), vmovn_u32(x[3]));
    *bytes = vcombine_u8(vmovn_u16(low), vmovn_u16(high));
    return true;
  } else {
    const auto* u = reinterpret_cast<const uint64_t*>(v);
    uint64x2_t x[8];
    uint64x2_t any = vdupq_n_u64(0);
    for (int q = 0; q < 8; ++q) {
      x[q] = vld1q_u64(u + 2 * q);
      if (kKind == Kind::kSInt64) {
        x[q] = veorq_u64(vshlq_n_u64(x[q], 1),
                         vreinterpretq_u64_s64(vshrq_n_s64(vreinterpretq_s64_u64(x[q]), 63)));
      }
      any = vorrq_u64(any, x[q]);
    }
    if ((vgetq_lane_u64(any, 0) | vgetq_lane_u64(any, 1)) >= 0x80) return false;
    uint16x8_t words[2];
    for (int h = 0; h < 2; ++h) {
      const uint32x4_t low = vcombine_u32(vmovn_u64(x[4 * h]), vmovn_u64(x[4 * h + 1]));
      const uint32x4_t high = vcombine_u32(vmovn_u64(x[4 * h + 2]), vmovn_u64(x[4 * h + 3]));
      words[h] = vcombine_u16(vmovn_u32(low), vmovn_u32(high));
    }
    *bytes = vcombine_u8(vmovn_u16(words[0]), vmovn_u16(words[1]));
    return true;
  }
}

template <Kind kKind, typename T>
char* EncodeNeon(const T* v, size_t n, char* out) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t bytes;
    if (OneByteValues16<kKind>(v + i, &bytes)) {
      vst1q_u8(reinterpret_cast<uint8_t*>(out), bytes);
      out += 16;
    } else {
      out = ScalarEncode<kKind>(v + i, 16, out);
    }
  }
  return i == n ? out : ScalarEncode<kKind>(v + i, n - i, out);
}

}  // namespace

const VarintEncodeKernels kVarintEncodeNeon = {
    SizeNeon<Kind::kUInt32, uint32_t>,
    SizeNeon<Kind::kInt32, int32_t>,
    SizeNeon<Kind::kSInt32, int32_t>,
    SizeNeon<Kind::kUInt64, uint64_t>,
    SizeNeon<Kind::kSInt64, int64_t>,
    EncodeNeon<Kind::kUInt32, uint32_t>,
    EncodeNeon<Kind::kInt32, int32_t>,
    EncodeNeon<Kind::kSInt32, int32_t>,
    EncodeNeon<Kind::kUInt64, uint64_t>,
    EncodeNeon<Kind::kSInt64, int64_t>,
};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

#endif  // PROTOACCEL_ARM64
