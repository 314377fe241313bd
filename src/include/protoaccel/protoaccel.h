// protoaccel: kernels for the variable-length parts of the protobuf wire
// format (packed varints and UTF-8), chosen at run time for the CPU.
//
// The kernels know nothing of protobuf's classes; they work on byte ranges
// and plain arrays. Their semantics are those of protobuf 3.21.12's packed
// parsers, UTF-8 check and size functions, which the tests pin down.
//
// Every function is thread-safe. The kernel set is chosen on the first call
// (CPUID + XGETBV on x86; NEON is arm64's baseline), capped by the
// environment variable PROTOACCEL_ISA=scalar|sse4|avx2|avx512|neon.

#ifndef PROTOACCEL_PROTOACCEL_H_
#define PROTOACCEL_PROTOACCEL_H_

#include <cstddef>
#include <cstdint>

// This release, "MAJOR.MINOR.PATCH" (also the CMake package's version).
#define PROTOACCEL_VERSION "0.1.0"

// Every symbol is in protoaccel::PROTOACCEL_NAMESPACE, an inline namespace:
// code names them protoaccel::X. A library that compiles the kernels into
// itself names it differently (libprotobuf's build: in_libprotobuf), so that
// its copy and a program's own libprotoaccel.a, linked side by side, define
// no symbol twice.
#ifndef PROTOACCEL_NAMESPACE
#define PROTOACCEL_NAMESPACE v1
#endif
#define PROTOACCEL_NAMESPACE_BEGIN \
  namespace protoaccel {           \
  inline namespace PROTOACCEL_NAMESPACE {
#define PROTOACCEL_NAMESPACE_END \
  }                              \
  }

PROTOACCEL_NAMESPACE_BEGIN

// ---------------------------------------------------------------------------
// Varint count

// The number of bytes in [p, p + n) whose top bit is clear, i.e. the number
// of varints that end in the range.
size_t CountVarints(const char* p, size_t n);

// An upper bound on the number of values a decoder below writes for
// [p, end): the varints that end in the range plus the one that starts in it
// and runs past `end`, if any. It never exceeds end - p, so an array of this
// size can be reserved from the bytes in hand. Requires p < end.
inline size_t MaxDecodedValues(const char* p, const char* end) {
  return CountVarints(p, static_cast<size_t>(end - p)) +
         (static_cast<unsigned char>(end[-1]) >> 7);
}

// ---------------------------------------------------------------------------
// Varint decode
//
// Decodes every varint that starts in [p, end), exactly as protobuf's packed
// parsers do:
//  - a varint has at most 10 bytes; a continuation bit on the 10th byte is an
//    error, and of the 10th byte only bit 0 is kept (bits 1-6 are dropped);
//  - the last varint may run past `end` (protobuf reads it from the slop
//    bytes of its buffer); the caller checks `ptr` against `end`;
//  - nothing at or past `limit` is read (limit >= end). A varint that reaches
//    `limit` unterminated, before its 10th byte, is an error.
// The 32-bit conversions keep the low 32 bits of the 64-bit value (SInt32 is
// the ZigZag decoding of those bits); Bool is "any of the 64 bits set".
//
// `out` must have room for MaxDecodedValues(p, end) values. On success, `ptr`
// is one past the last varint; on error, `ptr` is the start of the varint
// that failed and `count` values before it were written (protobuf appends
// those too before it fails).
struct DecodeResult {
  const char* ptr;
  size_t count;
  bool ok;
};

DecodeResult DecodeUInt32(const char* p, const char* end, const char* limit,
                          uint32_t* out);
DecodeResult DecodeInt32(const char* p, const char* end, const char* limit,
                         int32_t* out);  // also enums
DecodeResult DecodeSInt32(const char* p, const char* end, const char* limit,
                          int32_t* out);
DecodeResult DecodeUInt64(const char* p, const char* end, const char* limit,
                          uint64_t* out);
DecodeResult DecodeInt64(const char* p, const char* end, const char* limit,
                         int64_t* out);
DecodeResult DecodeSInt64(const char* p, const char* end, const char* limit,
                          int64_t* out);
DecodeResult DecodeBool(const char* p, const char* end, const char* limit,
                        bool* out);

// ---------------------------------------------------------------------------
// UTF-8 validation: exactly the strings protobuf 3.21.12's
// IsStructurallyValidUTF8 accepts (RFC 3629: shortest form, no surrogates,
// nothing above U+10FFFF, no truncated sequence at the end).

bool IsValidUtf8(const char* p, size_t n);

// The length of the longest prefix of [p, p + n) made of whole valid
// characters, as protobuf's UTF8SpnStructurallyValid returns it.
size_t ValidUtf8Prefix(const char* p, size_t n);

// ---------------------------------------------------------------------------
// Varint size and encode of arrays, as protobuf writes packed fields: Int32
// (and enum) values are sign-extended to 64 bits, so a negative one takes
// 10 bytes; SInt32/SInt64 are ZigZag-encoded first.

size_t PackedSizeUInt32(const uint32_t* v, size_t n);
size_t PackedSizeInt32(const int32_t* v, size_t n);
size_t PackedSizeSInt32(const int32_t* v, size_t n);
size_t PackedSizeUInt64(const uint64_t* v, size_t n);
size_t PackedSizeInt64(const int64_t* v, size_t n);
size_t PackedSizeSInt64(const int64_t* v, size_t n);

// Each writes the varints of v[0..n) to `out`, which must have room for the
// matching PackedSize*() bytes, and returns one past the last byte written.
char* EncodeUInt32(const uint32_t* v, size_t n, char* out);
char* EncodeInt32(const int32_t* v, size_t n, char* out);
char* EncodeSInt32(const int32_t* v, size_t n, char* out);
char* EncodeUInt64(const uint64_t* v, size_t n, char* out);
char* EncodeInt64(const int64_t* v, size_t n, char* out);
char* EncodeSInt64(const int64_t* v, size_t n, char* out);

// ---------------------------------------------------------------------------
// Dispatch

// Instruction-set levels. Those of one architecture form a ladder, each a
// superset of the one below: scalar, sse4, avx2, avx512 on x86; scalar,
// neon on arm64, which always has NEON. kAvx512 means the Ice Lake set (F,
// BW, VL, CD, VBMI, VBMI2) with fast PDEP/PEXT, which leaves out the
// Skylake-X parts that downclock.
enum class Isa : int { kScalar = 0, kSse4 = 1, kAvx2 = 2, kAvx512 = 3, kNeon = 4 };
constexpr int kIsaCount = 5;

// "scalar", "sse4", "avx2", "avx512", "neon": also the values of
// PROTOACCEL_ISA.
const char* IsaName(Isa isa);

enum class Family : int {
  kVarintCount = 0,
  kVarintDecode = 1,
  kUtf8Validate = 2,
  kVarintEncode = 3,
};
constexpr int kFamilyCount = 4;
const char* FamilyName(Family family);

// The best level this CPU and OS support, ignoring PROTOACCEL_ISA.
Isa DetectedIsa();

// The level kernels are chosen up to: DetectedIsa() capped by PROTOACCEL_ISA
// (where that names another architecture's level, scalar).
Isa MaxIsa();

// The level of the kernel in use for `family`. With PROTOACCEL_ISA set, the
// best one implemented at or below MaxIsa(), for every family alike (tests
// and A/B runs force a level so). Unset, the one this CPU runs fastest: the
// best level, unless a measured preference for the CPU's microarchitecture
// names a lower one (AMD Zen 1 encodes faster with SSE4.1 than with AVX2).
Isa ActiveIsa(Family family);

// Why ActiveIsa(family) is that level, in words: "the best level this CPU
// has", a preference and its reason, or "PROTOACCEL_ISA=...".
const char* ActiveReason(Family family);

// Empty if PROTOACCEL_ISA is unset or valid; otherwise a message naming the
// valid values. The kernels then fall back to scalar: a misspelt cap must not
// take a program down, and scalar is always exact.
const char* ConfigError();

// All of the above, a line each, as protoaccel_info prints it:
//   protoaccel 0.1.0 (namespace v1)
//   cpu: AuthenticAMD family 0x19 model 0x11
//   features: sse4.1 ssse3 popcnt avx2 ...
//   detected: avx512
//   error: ...                      (only if ConfigError() is not empty)
//   max: avx512
//   kernel varint_count: avx512 (the best level this CPU has)
//   ...
// The namespace tells which copy answers: a library that compiles the
// kernels in names its own (see PROTOACCEL_NAMESPACE).
const char* Describe();

PROTOACCEL_NAMESPACE_END

#endif  // PROTOACCEL_PROTOACCEL_H_
