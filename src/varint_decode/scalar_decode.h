// One varint at a time: the scalar decoder, and the tail of every SIMD one.

#ifndef PROTOACCEL_VARINT_DECODE_SCALAR_DECODE_H_
#define PROTOACCEL_VARINT_DECODE_SCALAR_DECODE_H_

#include <cstddef>
#include <cstdint>

#include "dispatch/kernels.h"
#include "protoaccel/protoaccel.h"

namespace protoaccel {
namespace internal {
// Internal linkage: every kernel file compiles these for its own instruction
// set, and the linker must not pick one file's copy for another's.
namespace {

// Conversions of the 64-bit varint value, as protobuf 3.21's VarintParser<T>
// and ZigZagDecode make them: 32-bit fields keep the low 32 bits (no error),
// sint32 decodes ZigZag from those bits, bool tests all 64.
struct Low32 {
  using Out = uint32_t;
  static uint32_t Convert(uint64_t v) { return static_cast<uint32_t>(v); }
};
struct Full64 {
  using Out = uint64_t;
  static uint64_t Convert(uint64_t v) { return v; }
};
struct ZigZag32 {
  using Out = int32_t;
  static int32_t Convert(uint64_t v) {
    const uint32_t n = static_cast<uint32_t>(v);
    return static_cast<int32_t>((n >> 1) ^ (0u - (n & 1)));
  }
};
struct ZigZag64 {
  using Out = int64_t;
  static int64_t Convert(uint64_t v) {
    return static_cast<int64_t>((v >> 1) ^ (0ull - (v & 1)));
  }
};
struct Boolean {
  using Out = bool;
  static bool Convert(uint64_t v) { return v != 0; }
};

// Parses the varint at p (p < limit), reading nothing at or past `limit`.
// Returns the byte after it, or nullptr if it has no terminator within 10
// bytes and before `limit`. The 10th byte contributes only its bit 0: the
// shift by 63 drops the rest, as VarintParseSlow64's does.
inline const char* ParseVarint(const char* p, const char* limit,
                               uint64_t* value) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(p);
  if (bytes[0] < 0x80) {
    *value = bytes[0];
    return p + 1;
  }
  const size_t available = static_cast<size_t>(limit - p);
  const size_t max_bytes = available < 10 ? available : 10;
  uint64_t result = bytes[0] & 0x7f;
  for (size_t i = 1; i < max_bytes; ++i) {
    const uint64_t byte = bytes[i];
    result |= (byte & 0x7f) << (7 * i);
    if (byte < 0x80) {
      *value = result;
      return p + i + 1;
    }
  }
  return nullptr;
}

// Decodes the varints that start in [p, end); see DecodeUInt32().
template <typename Conversion>
DecodeResult DecodeScalar(const char* p, const char* end, const char* limit,
                          typename Conversion::Out* out) {
  size_t count = 0;
  while (p < end) {
    uint64_t value;
    const char* next = ParseVarint(p, limit, &value);
    if (next == nullptr) return {p, count, false};
    out[count++] = Conversion::Convert(value);
    p = next;
  }
  return {p, count, true};
}

// The scalar kernel of each conversion, for SIMD kernels to call rather
// than inline: its code, compiled on its own, is measurably faster there.
template <typename Conversion>
DecodeFn<typename Conversion::Out> ScalarKernel();
template <>
inline DecodeFn<uint32_t> ScalarKernel<Low32>() { return kVarintDecodeScalar.low32; }
template <>
inline DecodeFn<uint64_t> ScalarKernel<Full64>() { return kVarintDecodeScalar.full64; }
template <>
inline DecodeFn<int32_t> ScalarKernel<ZigZag32>() { return kVarintDecodeScalar.zigzag32; }
template <>
inline DecodeFn<int64_t> ScalarKernel<ZigZag64>() { return kVarintDecodeScalar.zigzag64; }
template <>
inline DecodeFn<bool> ScalarKernel<Boolean>() { return kVarintDecodeScalar.boolean; }

}  // namespace
}  // namespace internal
}  // namespace protoaccel

#endif  // PROTOACCEL_VARINT_DECODE_SCALAR_DECODE_H_
