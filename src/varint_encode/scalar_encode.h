// One varint at a time: the scalar size and encoder, and the tail of every
// SIMD one.

#ifndef PROTOACCEL_VARINT_ENCODE_SCALAR_ENCODE_H_
#define PROTOACCEL_VARINT_ENCODE_SCALAR_ENCODE_H_

#include <cstddef>
#include <cstdint>

#include "dispatch/kernels.h"

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
// Internal linkage: every kernel file compiles these for its own instruction
// set, and the linker must not pick one file's copy for another's.
namespace {

// Bytes of a varint: ceil(significant bits / 7), at least 1. (bits * 9 + 64)
// / 64 computes it without a division (protobuf's VarintSize64 does the same).
inline size_t VarintSize(uint64_t v) {
  const int bits = 64 - __builtin_clzll(v | 1);
  return static_cast<size_t>(bits * 9 + 64) / 64;
}

inline char* WriteVarint(uint64_t v, char* out) {
  while (v >= 0x80) {
    *out++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *out++ = static_cast<char>(v);
  return out;
}

// What protobuf writes for each field type: int32 (and enum) sign-extends,
// so a negative value takes 10 bytes; sint types are ZigZag-encoded.
inline uint64_t WireValueUInt32(uint32_t v) { return v; }
inline uint64_t WireValueInt32(int32_t v) {
  return static_cast<uint64_t>(static_cast<int64_t>(v));
}
inline uint64_t WireValueSInt32(int32_t v) {
  return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
}
inline uint64_t WireValueUInt64(uint64_t v) { return v; }
inline uint64_t WireValueSInt64(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

template <typename T, uint64_t (*Wire)(T)>
size_t PackedSizeScalar(const T* v, size_t n) {
  size_t size = 0;
  for (size_t i = 0; i < n; ++i) size += VarintSize(Wire(v[i]));
  return size;
}

template <typename T, uint64_t (*Wire)(T)>
char* EncodeScalar(const T* v, size_t n, char* out) {
  for (size_t i = 0; i < n; ++i) out = WriteVarint(Wire(v[i]), out);
  return out;
}

// The field types, for the SIMD kernels' templates.
enum class Kind { kUInt32, kInt32, kSInt32, kUInt64, kSInt64 };

// One kind's entries of a kernel table: the AVX2 kernels hand 8 to 15
// values to SSE4.1's, whose block of 8 is faster there.
template <Kind kKind>
struct Entry;
template <>
struct Entry<Kind::kUInt32> {
  static SizeFn<uint32_t> Size(const VarintEncodeKernels& k) { return k.size_uint32; }
  static EncodeFn<uint32_t> Encode(const VarintEncodeKernels& k) { return k.encode_uint32; }
};
template <>
struct Entry<Kind::kInt32> {
  static SizeFn<int32_t> Size(const VarintEncodeKernels& k) { return k.size_int32; }
  static EncodeFn<int32_t> Encode(const VarintEncodeKernels& k) { return k.encode_int32; }
};
template <>
struct Entry<Kind::kSInt32> {
  static SizeFn<int32_t> Size(const VarintEncodeKernels& k) { return k.size_sint32; }
  static EncodeFn<int32_t> Encode(const VarintEncodeKernels& k) { return k.encode_sint32; }
};
template <>
struct Entry<Kind::kUInt64> {
  static SizeFn<uint64_t> Size(const VarintEncodeKernels& k) { return k.size_uint64; }
  static EncodeFn<uint64_t> Encode(const VarintEncodeKernels& k) { return k.encode_uint64; }
};
template <>
struct Entry<Kind::kSInt64> {
  static SizeFn<int64_t> Size(const VarintEncodeKernels& k) { return k.size_sint64; }
  static EncodeFn<int64_t> Encode(const VarintEncodeKernels& k) { return k.encode_sint64; }
};

// The wire value of one kind, for the SIMD kernels' templates.
template <Kind kKind, typename T>
inline uint64_t WireValue(T v) {
  if constexpr (kKind == Kind::kInt32) return WireValueInt32(v);
  if constexpr (kKind == Kind::kSInt32) return WireValueSInt32(v);
  if constexpr (kKind == Kind::kSInt64) return WireValueSInt64(v);
  return static_cast<uint64_t>(v);
}

// The scalar kernels of one kind, for a SIMD kernel's short arrays and
// tails: a copy in each kernel file, compiled for the baseline (this header
// comes before a kernel file's target pragma) and out of line, like the
// scalar kernel itself, which measured faster there than a loop inlined
// into the SIMD kernel. A direct jump, where the kernel table took a load
// and an indirect one: on Zen 4, over kernels_bench's size and encode cases
// at N = 1 to 32, the SIMD kernels' median times fell by 4.3% (SSE4.1),
// 2.3% (AVX2) and 2.3% (AVX-512), geometric means against the table's
// build (5 repetitions, interleaved at random).
template <Kind kKind, typename T>
__attribute__((noinline)) size_t ScalarSize(const T* v, size_t n) {
  return PackedSizeScalar<T, WireValue<kKind, T>>(v, n);
}
template <Kind kKind, typename T>
__attribute__((noinline)) char* ScalarEncode(const T* v, size_t n, char* out) {
  return EncodeScalar<T, WireValue<kKind, T>>(v, n, out);
}

}  // namespace
}  // namespace internal
PROTOACCEL_NAMESPACE_END

#endif  // PROTOACCEL_VARINT_ENCODE_SCALAR_ENCODE_H_
