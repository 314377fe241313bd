// The kernel tables behind protoaccel's public functions: one table per
// family and instruction set, composed per level and chosen once.
//
// Internal to protoaccel; the tests and benchmarks use it to run every
// implementation the CPU has in one process.

#ifndef PROTOACCEL_DISPATCH_KERNELS_H_
#define PROTOACCEL_DISPATCH_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "protoaccel/protoaccel.h"

// The SSE4.1, AVX2 and AVX-512 kernels, and CPUID, exist only on x86 (64-
// and 32-bit), the NEON kernels only on little-endian arm64 (their loads
// of short inputs assume its byte order); elsewhere those files compile to
// nothing. Other architectures run every family scalar, as every one does
// with PROTOACCEL_NO_SIMD defined (CMake: -DPROTOACCEL_SIMD=OFF): the off
// switch for a library that carries the kernels and wants none of their
// instruction sets.
#if defined(PROTOACCEL_NO_SIMD)
#define PROTOACCEL_X86 0
#elif defined(__x86_64__) || defined(__i386__)
#define PROTOACCEL_X86 1
#else
#define PROTOACCEL_X86 0
#endif
#if !defined(PROTOACCEL_NO_SIMD) && defined(__aarch64__) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PROTOACCEL_ARM64 1
#else
#define PROTOACCEL_ARM64 0
#endif

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {

struct VarintCountKernels {
  size_t (*count)(const char* p, size_t n);
};

template <typename T>
using DecodeFn = DecodeResult (*)(const char* p, const char* end,
                                  const char* limit, T* out);

struct VarintDecodeKernels {
  DecodeFn<uint32_t> low32;  // uint32, int32, enum
  DecodeFn<uint64_t> full64;  // uint64, int64
  DecodeFn<int32_t> zigzag32;
  DecodeFn<int64_t> zigzag64;
  DecodeFn<bool> boolean;
};

struct Utf8Kernels {
  bool (*validate)(const char* p, size_t n);
  size_t (*valid_prefix)(const char* p, size_t n);
};

template <typename T>
using SizeFn = size_t (*)(const T* v, size_t n);
template <typename T>
using EncodeFn = char* (*)(const T* v, size_t n, char* out);

struct VarintEncodeKernels {
  SizeFn<uint32_t> size_uint32;
  SizeFn<int32_t> size_int32;  // sign-extended
  SizeFn<int32_t> size_sint32;
  SizeFn<uint64_t> size_uint64;  // also int64
  SizeFn<int64_t> size_sint64;
  EncodeFn<uint32_t> encode_uint32;
  EncodeFn<int32_t> encode_int32;
  EncodeFn<int32_t> encode_sint32;
  EncodeFn<uint64_t> encode_uint64;
  EncodeFn<int64_t> encode_sint64;
};

// One implementation per family and level. Adding an instruction set to a
// family is a new file defining its table, declared here and listed in
// dispatch.cc.
extern const VarintCountKernels kVarintCountScalar;
extern const VarintCountKernels kVarintCountSse4;
extern const VarintCountKernels kVarintCountAvx2;
extern const VarintCountKernels kVarintCountAvx512;
extern const VarintCountKernels kVarintCountNeon;
extern const VarintDecodeKernels kVarintDecodeScalar;
extern const VarintDecodeKernels kVarintDecodeSse4;
extern const VarintDecodeKernels kVarintDecodeAvx2;
extern const VarintDecodeKernels kVarintDecodeAvx512;
extern const VarintDecodeKernels kVarintDecodeNeon;
extern const Utf8Kernels kUtf8Scalar;
extern const Utf8Kernels kUtf8Sse4;
extern const Utf8Kernels kUtf8Avx2;
extern const Utf8Kernels kUtf8Avx512;
extern const Utf8Kernels kUtf8Neon;
extern const VarintEncodeKernels kVarintEncodeScalar;
extern const VarintEncodeKernels kVarintEncodeSse4;
extern const VarintEncodeKernels kVarintEncodeAvx2;
extern const VarintEncodeKernels kVarintEncodeAvx512;
extern const VarintEncodeKernels kVarintEncodeNeon;

// The best kernel of each family at or below one level.
struct Kernels {
  Isa isa[kFamilyCount];  // the level each family's kernel comes from
  const char* why[kFamilyCount];  // and why that level: see ActiveReason()
  VarintCountKernels varint_count;
  VarintDecodeKernels varint_decode;
  Utf8Kernels utf8;
  VarintEncodeKernels varint_encode;
};

// The kernels in use (MaxIsa()), chosen on the first call.
const Kernels& Active();

// True if this CPU runs `isa`: scalar, and the levels of its own
// architecture up to DetectedIsa().
bool Runs(Isa isa);

// The kernels of one level, or nullptr if this CPU cannot run that level.
const Kernels* KernelsFor(Isa isa);

struct CpuFeatures;
// The level `family` takes on `cpu` when `level` is the best it may use:
// `level`, or a lower one that the table in dispatch.cc prefers there, in
// which case *why says why (and is left alone otherwise).
Isa PreferredLevel(const CpuFeatures& cpu, Family family, Isa level,
                   const char** why);

// Parses a PROTOACCEL_ISA value. Returns false for anything but the names
// IsaName() gives.
bool ParseIsa(const char* name, Isa* isa);

}  // namespace internal
PROTOACCEL_NAMESPACE_END

#endif  // PROTOACCEL_DISPATCH_KERNELS_H_
