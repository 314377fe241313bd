// One varint at a time: the scalar decoder, and the tail of every SIMD one.

#ifndef PROTOACCEL_VARINT_DECODE_SCALAR_DECODE_H_
#define PROTOACCEL_VARINT_DECODE_SCALAR_DECODE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "dispatch/kernels.h"
#include "protoaccel/protoaccel.h"

PROTOACCEL_NAMESPACE_BEGIN
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

// The 7-bit groups of the 8 bytes of x, each below 0x80, packed into 56
// bits: pairs, then fours, then all eight, in three shift-and-or steps.
inline uint64_t PackGroups(uint64_t x) {
  x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
  x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
  return (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
}

// Parses a varint of 3 bytes or more at p, 10 bytes being readable there:
// its first 8 bytes as one word, so that it takes the same steps whatever
// its length, where the byte loop takes a step a byte.
inline const char* ParseLongVarint(const char* p, uint64_t* value) {
  uint64_t word;
  std::memcpy(&word, p, 8);
  constexpr uint64_t kTops = 0x8080808080808080ull;
  const uint64_t ends = ~word & kTops;
  if (ends != 0) {
    // 8 * its length: 24 to 64 bits of the word, the rest cleared.
    const int bits = __builtin_ctzll(ends) + 1;
    *value = PackGroups(word & ~kTops & (~uint64_t{0} >> (64 - bits)));
    return p + bits / 8;
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(p);
  const uint64_t low =
      PackGroups(word & ~kTops) | static_cast<uint64_t>(bytes[8] & 0x7f) << 56;
  if (bytes[8] < 0x80) {
    *value = low;
    return p + 9;
  }
  if (bytes[9] >= 0x80) return nullptr;
  *value = low | uint64_t{bytes[9]} << 63;
  return p + 10;
}

// The byte loop of ParseVarint, for a varint that ends within 10 bytes of
// `limit`: out of line, as protobuf's VarintParseSlow, so that the rest
// inlines into the caller's loop (DecodeScalar's did not, with it inside).
inline __attribute__((noinline)) const char* ParseVarintNearLimit(
    const char* p, const char* limit, uint64_t* value) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(p);
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
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (limit - p >= 10) {
    if (bytes[1] < 0x80) {
      *value = (bytes[0] & 0x7f) | uint64_t{bytes[1]} << 7;
      return p + 2;
    }
    return ParseLongVarint(p, value);
  }
#endif
  return ParseVarintNearLimit(p, limit, value);
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

// The kernel of each conversion in a table.
template <typename Conversion>
DecodeFn<typename Conversion::Out> KernelOf(const VarintDecodeKernels& k);
template <>
inline DecodeFn<uint32_t> KernelOf<Low32>(const VarintDecodeKernels& k) { return k.low32; }
template <>
inline DecodeFn<uint64_t> KernelOf<Full64>(const VarintDecodeKernels& k) { return k.full64; }
template <>
inline DecodeFn<int32_t> KernelOf<ZigZag32>(const VarintDecodeKernels& k) { return k.zigzag32; }
template <>
inline DecodeFn<int64_t> KernelOf<ZigZag64>(const VarintDecodeKernels& k) { return k.zigzag64; }
template <>
inline DecodeFn<bool> KernelOf<Boolean>(const VarintDecodeKernels& k) { return k.boolean; }

// The scalar kernel, for the SIMD kernels' tails to call rather than
// inline: its code, compiled on its own, is measurably faster there.
template <typename Conversion>
DecodeFn<typename Conversion::Out> ScalarKernel() {
  return KernelOf<Conversion>(kVarintDecodeScalar);
}

}  // namespace
}  // namespace internal
PROTOACCEL_NAMESPACE_END

#endif  // PROTOACCEL_VARINT_DECODE_SCALAR_DECODE_H_
