// Varint decode with NEON (arm64): the block loop of block_loop.h, 64
// bytes at a time. One-byte varints are widened; one- and two-byte ones
// are computed in 16-bit slots and packed to the front by a tbl from
// kPackTable; longer ones are loaded one per 64-bit lane, and their 7-bit
// groups packed by three shift-and-select steps (NEON has no pmaddubsw).

#include "dispatch/kernels.h"

#if PROTOACCEL_ARM64
#include <arm_neon.h>

#include "varint_decode/block_loop.h"
#include "varint_decode/scalar_decode.h"

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

// Stores the 8 values in 16-bit slots, converted: all 8, even where fewer
// are valid (the block loop leaves room). Values are below 2^14.
template <typename Conversion>
void StoreShort8(uint16x8_t v, typename Conversion::Out* out);

template <>
void StoreShort8<Low32>(uint16x8_t v, uint32_t* out) {
  vst1q_u32(out, vmovl_u16(vget_low_u16(v)));
  vst1q_u32(out + 4, vmovl_high_u16(v));
}

template <>
void StoreShort8<Full64>(uint16x8_t v, uint64_t* out) {
  const uint32x4_t low = vmovl_u16(vget_low_u16(v)), high = vmovl_high_u16(v);
  vst1q_u64(out, vmovl_u32(vget_low_u32(low)));
  vst1q_u64(out + 2, vmovl_high_u32(low));
  vst1q_u64(out + 4, vmovl_u32(vget_low_u32(high)));
  vst1q_u64(out + 6, vmovl_high_u32(high));
}

// ZigZag of a value below 2^14, in 16 bits; it sign-extends to the wider
// types.
inline int16x8_t ZigZag16(uint16x8_t v) {
  return vreinterpretq_s16_u16(veorq_u16(vshrq_n_u16(v, 1), vtstq_u16(v, vdupq_n_u16(1))));
}

template <>
void StoreShort8<ZigZag32>(uint16x8_t v, int32_t* out) {
  const int16x8_t z = ZigZag16(v);
  vst1q_s32(out, vmovl_s16(vget_low_s16(z)));
  vst1q_s32(out + 4, vmovl_high_s16(z));
}

template <>
void StoreShort8<ZigZag64>(uint16x8_t v, int64_t* out) {
  const int16x8_t z = ZigZag16(v);
  const int32x4_t low = vmovl_s16(vget_low_s16(z)), high = vmovl_high_s16(z);
  vst1q_s64(out, vmovl_s32(vget_low_s32(low)));
  vst1q_s64(out + 2, vmovl_high_s32(low));
  vst1q_s64(out + 4, vmovl_s32(vget_low_s32(high)));
  vst1q_s64(out + 6, vmovl_high_s32(high));
}

template <>
void StoreShort8<Boolean>(uint16x8_t v, bool* out) {
  // Saturating: a plain narrowing would make 256 false.
  vst1_u8(reinterpret_cast<uint8_t*>(out), vmin_u8(vqmovn_u16(v), vdup_n_u8(1)));
}

// 16 one-byte varints (bytes below 0x80), converted and stored: widened
// to two sets of 16-bit slots, but for booleans, which stay bytes.
template <typename Conversion>
void StoreOneByte16(uint8x16_t v, typename Conversion::Out* out) {
  StoreShort8<Conversion>(vmovl_u8(vget_low_u8(v)), out);
  StoreShort8<Conversion>(vmovl_high_u8(v), out + 8);
}

template <>
void StoreOneByte16<Boolean>(uint8x16_t v, bool* out) {
  vst1q_u8(reinterpret_cast<uint8_t*>(out), vminq_u8(v, vdupq_n_u8(1)));
}

// Stores the values of the 8 slots whose bit is set in `mask`, in order.
// Returns how many.
template <typename Conversion>
int StorePacked8(uint16x8_t slots, uint32_t mask, typename Conversion::Out* out) {
  const uint8x16_t control = vld1q_u8(kPackTable[mask].data());
  StoreShort8<Conversion>(
      vreinterpretq_u16_u8(vqtbl1q_u8(vreinterpretq_u8_u16(slots), control)), out);
  return __builtin_popcount(mask);
}

// 0x80 in each byte of x that ends a varint (its top bit clear), else 0.
inline uint8x16_t Ends(uint8x16_t x) { return vbicq_u8(vdupq_n_u8(0x80), x); }

// The varints of x, one per 64-bit lane (their first 8 bytes), cut after
// their first terminator, their 7-bit groups packed into 56 bits.
inline uint64x2_t PackLanes56(uint8x16_t x) {
  // Ends(x) - 1 has each lane's bytes below its first terminator all ones,
  // the terminator's 0x7f and, above, Ends' own bytes, which x's clear: so
  // it keeps the varint's bytes; with no terminator in the lane, all of them.
  const uint64x2_t keep = vsubq_u64(vreinterpretq_u64_u8(Ends(x)), vdupq_n_u64(1));
  const uint8x16_t groups = vandq_u8(vandq_u8(x, vreinterpretq_u8_u64(keep)), vdupq_n_u8(0x7f));
  // As PackGroups (scalar_decode.h): each step keeps the low group of a
  // pair and takes the high one from the pair shifted right, which moves
  // it down to meet the low one.
  uint16x8_t v16 = vreinterpretq_u16_u8(groups);
  v16 = vbslq_u16(vdupq_n_u16(0x007f), v16, vshrq_n_u16(v16, 1));
  uint32x4_t v32 = vreinterpretq_u32_u16(v16);
  v32 = vbslq_u32(vdupq_n_u32(0x3fff), v32, vshrq_n_u32(v32, 2));
  const uint64x2_t v64 = vreinterpretq_u64_u32(v32);
  return vbslq_u64(vdupq_n_u64(0x0fffffff), v64, vshrq_n_u64(v64, 4));
}

// Two varints, one per 64-bit lane of x (their first 8 bytes; `next`, the
// 8 after): their values.
inline uint64x2_t PackLanes(uint8x16_t x, uint8x16_t next) {
  // Lanes with no terminator in their first 8 bytes have 9 or 10: the 9th
  // byte's 7 bits, and bit 0 of the 10th if the 9th continues.
  const uint64x2_t is_long = vceqzq_u64(vreinterpretq_u64_u8(Ends(x)));
  const uint64x2_t n = vreinterpretq_u64_u8(next);
  const uint64x2_t bits56 = vshlq_n_u64(vandq_u64(n, vdupq_n_u64(0x7f)), 56);
  const uint64x2_t bit63 = vshlq_n_u64(vandq_u64(vshrq_n_u64(n, 7), vshrq_n_u64(n, 8)), 63);
  return vorrq_u64(PackLanes56(x), vandq_u64(is_long, vorrq_u64(bits56, bit63)));
}

// Stores four values from 32-bit lanes, or two from 64-bit ones, converted.
inline void StoreLanes(uint32x4_t v, uint32_t* out) { vst1q_u32(out, v); }
inline void StoreLanes(uint32x4_t v, int32_t* out) {
  vst1q_u32(reinterpret_cast<uint32_t*>(out),
            veorq_u32(vshrq_n_u32(v, 1), vtstq_u32(v, vdupq_n_u32(1))));
}
inline void StoreLanes(uint64x2_t v, uint64_t* out) { vst1q_u64(out, v); }
inline void StoreLanes(uint64x2_t v, int64_t* out) {
  vst1q_u64(reinterpret_cast<uint64_t*>(out),
            veorq_u64(vshrq_n_u64(v, 1), vtstq_u64(v, vdupq_n_u64(1))));
}
inline void StoreLanes(uint64x2_t v, bool* out) {
  out[0] = vgetq_lane_u64(v, 0) != 0;
  out[1] = vgetq_lane_u64(v, 1) != 0;
}

struct NeonBlock {
  // Masks are made 64 bytes at a time: four vectors' terminator bits summed
  // in pairs (NEON has no movemask).
  static constexpr int kSize = 64;

  static uint64_t Terminators(const char* p) {
    static constexpr uint8_t kBits[16] = {1, 2, 4, 8, 16, 32, 64, 128,
                                          1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t bits = vld1q_u8(kBits);
    uint8x16_t t[4];
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
      const uint8x16_t v = vld1q_u8(reinterpret_cast<const uint8_t*>(p) + 16 * i);
      t[i] = vandq_u8(vcltq_u8(v, vdupq_n_u8(0x80)), bits);
    }
    uint8x16_t sum = vpaddq_u8(vpaddq_u8(t[0], t[1]), vpaddq_u8(t[2], t[3]));
    sum = vpaddq_u8(sum, sum);
    return vgetq_lane_u64(vreinterpretq_u64_u8(sum), 0);
  }

  template <typename Conversion>
  static void StoreOneByteValues(const char* p, typename Conversion::Out* out) {
#pragma GCC unroll 4
    for (int i = 0; i < 64; i += 16) StoreOneByteRun16<Conversion>(p + i, out + i);
  }

  static bool IsOneByteRun16(const char* p) {
    return vmaxvq_u8(vld1q_u8(reinterpret_cast<const uint8_t*>(p))) < 0x80;
  }
  template <typename Conversion>
  static void StoreOneByteRun16(const char* p, typename Conversion::Out* out) {
    StoreOneByte16<Conversion>(vld1q_u8(reinterpret_cast<const uint8_t*>(p)), out);
  }

  template <typename Conversion>
  static void DecodeShort(const char* q, bool at_start, uint64_t ends,
                          typename Conversion::Out* out) {
#pragma GCC unroll 4
    for (int i = 0; i < 64; i += 16) {
      const auto* bytes_at = reinterpret_cast<const uint8_t*>(q + i);
      const uint8x16_t bytes = vld1q_u8(bytes_at);
      // The byte before each, but for the first, which has none.
      const uint8x16_t before = i == 0 && at_start ? vextq_u8(vdupq_n_u8(0), bytes, 15)
                                                   : vld1q_u8(bytes_at - 1);
      // Where the byte before continues a varint, the pair (its low 7 bits,
      // the byte); elsewhere (the byte, 0). Slot i, first + 128 * second,
      // is then the value of a varint that ends at byte i: at most
      // 2^14 - 1. The other slots are not moved to the output.
      const uint8x16_t continues = vcltzq_s8(vreinterpretq_s8_u8(before));
      const uint8x16_t first = vbslq_u8(continues, vandq_u8(before, vdupq_n_u8(0x7f)), bytes);
      const uint8x16_t second = vandq_u8(bytes, continues);
      const uint16x8_t low = vaddw_u8(vshll_n_u8(vget_low_u8(second), 7), vget_low_u8(first));
      const uint16x8_t high = vaddw_high_u8(vshll_high_n_u8(second, 7), first);
      out += StorePacked8<Conversion>(low, static_cast<uint32_t>(ends >> i) & 0xff, out);
      out += StorePacked8<Conversion>(high, static_cast<uint32_t>(ends >> (i + 8)) & 0xff, out);
    }
  }

  // Four 32-bit values fill a vector, as two 64-bit ones do.
  template <typename Conversion>
  static constexpr int kGroup = kNeedsHighBits<Conversion> ? 2 : 4;

  template <typename Conversion>
  static void DecodeGroup(const char* const* starts, typename Conversion::Out* out) {
    constexpr int kGroup = NeonBlock::kGroup<Conversion>;
    uint64x2_t in[kGroup];
#pragma GCC unroll 4
    for (int i = 0; i < kGroup; ++i) {
      in[i] = vreinterpretq_u64_u8(vld1q_u8(reinterpret_cast<const uint8_t*>(starts[i])));
    }
    if constexpr (kGroup == 2) {
      StoreLanes(PackLanes(vreinterpretq_u8_u64(vzip1q_u64(in[0], in[1])),
                           vreinterpretq_u8_u64(vzip2q_u64(in[0], in[1]))),
                 out);
    } else {
      // The low 32 bits of each: bytes 0-4 of each varint, never 6-10.
      const uint64x2_t low = PackLanes56(vreinterpretq_u8_u64(vzip1q_u64(in[0], in[1])));
      const uint64x2_t high = PackLanes56(vreinterpretq_u8_u64(vzip1q_u64(in[2], in[3])));
      StoreLanes(vmovn_high_u64(vmovn_u64(low), high), out);
    }
  }
};

}  // namespace

const VarintDecodeKernels kVarintDecodeNeon = {
    DecodeBlocks<NeonBlock, Low32>,    DecodeBlocks<NeonBlock, Full64>,
    DecodeBlocks<NeonBlock, ZigZag32>, DecodeBlocks<NeonBlock, ZigZag64>,
    DecodeBlocks<NeonBlock, Boolean>,
};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

#endif  // PROTOACCEL_ARM64
