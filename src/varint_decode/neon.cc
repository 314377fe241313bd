// Varint decode with NEON (arm64): runs of 16 one-byte varints, the common
// case of small values, widened a vector at a time; every other varint by
// the scalar kernel's parser, 16 bytes' worth between two tests for a run.
// (The x86 kernels' multi-byte path, varints gathered into lanes and their
// 7-bit groups packed by multiplies, is not ported: a tbl-based one is the
// next step.)

#include "dispatch/kernels.h"

#if PROTOACCEL_ARM64
#include <arm_neon.h>

#include "varint_decode/scalar_decode.h"

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

// 16 one-byte varints (bytes below 0x80), converted and stored.
template <typename Conversion>
void StoreOneByte16(uint8x16_t v, typename Conversion::Out* out);

template <>
void StoreOneByte16<Low32>(uint8x16_t v, uint32_t* out) {
  const uint16x8_t low = vmovl_u8(vget_low_u8(v)), high = vmovl_high_u8(v);
  vst1q_u32(out, vmovl_u16(vget_low_u16(low)));
  vst1q_u32(out + 4, vmovl_high_u16(low));
  vst1q_u32(out + 8, vmovl_u16(vget_low_u16(high)));
  vst1q_u32(out + 12, vmovl_high_u16(high));
}

template <>
void StoreOneByte16<Full64>(uint8x16_t v, uint64_t* out) {
  const uint16x8_t halves[2] = {vmovl_u8(vget_low_u8(v)), vmovl_high_u8(v)};
  for (int h = 0; h < 2; ++h) {
    const uint32x4_t low = vmovl_u16(vget_low_u16(halves[h]));
    const uint32x4_t high = vmovl_high_u16(halves[h]);
    vst1q_u64(out + 8 * h, vmovl_u32(vget_low_u32(low)));
    vst1q_u64(out + 8 * h + 2, vmovl_high_u32(low));
    vst1q_u64(out + 8 * h + 4, vmovl_u32(vget_low_u32(high)));
    vst1q_u64(out + 8 * h + 6, vmovl_high_u32(high));
  }
}

// ZigZag of a value below 2^7, in its byte: (x >> 1) ^ -(x & 1), which is
// in [-64, 63] and sign-extends to the wider types. vtst gives the -(x & 1).
inline int8x16_t ZigZag8(uint8x16_t v) {
  return vreinterpretq_s8_u8(veorq_u8(vshrq_n_u8(v, 1), vtstq_u8(v, vdupq_n_u8(1))));
}

template <>
void StoreOneByte16<ZigZag32>(uint8x16_t v, int32_t* out) {
  const int8x16_t z = ZigZag8(v);
  const int16x8_t low = vmovl_s8(vget_low_s8(z)), high = vmovl_high_s8(z);
  vst1q_s32(out, vmovl_s16(vget_low_s16(low)));
  vst1q_s32(out + 4, vmovl_high_s16(low));
  vst1q_s32(out + 8, vmovl_s16(vget_low_s16(high)));
  vst1q_s32(out + 12, vmovl_high_s16(high));
}

template <>
void StoreOneByte16<ZigZag64>(uint8x16_t v, int64_t* out) {
  const int8x16_t z = ZigZag8(v);
  const int16x8_t halves[2] = {vmovl_s8(vget_low_s8(z)), vmovl_high_s8(z)};
  for (int h = 0; h < 2; ++h) {
    const int32x4_t low = vmovl_s16(vget_low_s16(halves[h]));
    const int32x4_t high = vmovl_high_s16(halves[h]);
    vst1q_s64(out + 8 * h, vmovl_s32(vget_low_s32(low)));
    vst1q_s64(out + 8 * h + 2, vmovl_high_s32(low));
    vst1q_s64(out + 8 * h + 4, vmovl_s32(vget_low_s32(high)));
    vst1q_s64(out + 8 * h + 6, vmovl_high_s32(high));
  }
}

template <>
void StoreOneByte16<Boolean>(uint8x16_t v, bool* out) {
  vst1q_u8(reinterpret_cast<uint8_t*>(out), vminq_u8(v, vdupq_n_u8(1)));
}

template <typename Conversion>
DecodeResult DecodeNeon(const char* p, const char* end, const char* limit,
                        typename Conversion::Out* out) {
  size_t count = 0;
  // Each step reads the 16 bytes at p, all before `end` (so before
  // `limit`), and writes one value for each varint that starts in them.
  while (end - p >= 16) {
    const uint8x16_t v = vld1q_u8(reinterpret_cast<const uint8_t*>(p));
    if (vmaxvq_u8(v) < 0x80) {
      StoreOneByte16<Conversion>(v, out + count);
      count += 16;
      p += 16;
      continue;
    }
    const char* const stop = p + 16;
    do {
      uint64_t value;
      const char* next = ParseVarint(p, limit, &value);
      if (next == nullptr) return {p, count, false};
      out[count++] = Conversion::Convert(value);
      p = next;
    } while (p < stop);
  }
  const DecodeResult tail = DecodeScalar<Conversion>(p, end, limit, out + count);
  return {tail.ptr, count + tail.count, tail.ok};
}

}  // namespace

const VarintDecodeKernels kVarintDecodeNeon = {
    DecodeNeon<Low32>,    DecodeNeon<Full64>, DecodeNeon<ZigZag32>,
    DecodeNeon<ZigZag64>, DecodeNeon<Boolean>,
};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

#endif  // PROTOACCEL_ARM64
