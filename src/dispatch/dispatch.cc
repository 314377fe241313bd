// Chooses the kernels once and forwards the public API to them.

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dispatch/cpu_features.h"
#include "dispatch/kernels.h"
#include "protoaccel/protoaccel.h"

namespace protoaccel {
namespace internal {
namespace {

constexpr const char* kIsaNames[kIsaCount] = {"scalar", "sse4", "avx2",
                                              "avx512"};
constexpr const char* kFamilyNames[kFamilyCount] = {
    "varint_count", "varint_decode", "utf8_validate", "varint_encode"};

// The implementations of each family, indexed by level; nullptr where a level
// has none of its own (it then uses the best one below it).
#if PROTOACCEL_X86
#define X86_ONLY(kernels) &kernels
#else
#define X86_ONLY(kernels) nullptr
#endif
constexpr const VarintCountKernels* kVarintCountByIsa[kIsaCount] = {
    &kVarintCountScalar, X86_ONLY(kVarintCountSse4),
    X86_ONLY(kVarintCountAvx2), X86_ONLY(kVarintCountAvx512)};
constexpr const VarintDecodeKernels* kVarintDecodeByIsa[kIsaCount] = {
    &kVarintDecodeScalar, X86_ONLY(kVarintDecodeSse4),
    X86_ONLY(kVarintDecodeAvx2), X86_ONLY(kVarintDecodeAvx512)};
constexpr const Utf8Kernels* kUtf8ByIsa[kIsaCount] = {
    &kUtf8Scalar, X86_ONLY(kUtf8Sse4), X86_ONLY(kUtf8Avx2),
    X86_ONLY(kUtf8Avx512)};
constexpr const VarintEncodeKernels* kVarintEncodeByIsa[kIsaCount] = {
    &kVarintEncodeScalar, X86_ONLY(kVarintEncodeSse4),
    X86_ONLY(kVarintEncodeAvx2), X86_ONLY(kVarintEncodeAvx512)};
#undef X86_ONLY

template <typename Table>
const Table& Best(const Table* const (&by_isa)[kIsaCount], int level,
                  Isa* chosen) {
  for (int i = level; i > 0; --i) {
    if (by_isa[i] != nullptr) {
      *chosen = static_cast<Isa>(i);
      return *by_isa[i];
    }
  }
  *chosen = Isa::kScalar;
  return *by_isa[0];
}

Kernels Compose(Isa level) {
  const int l = static_cast<int>(level);
  Kernels k;
  k.varint_count = Best(kVarintCountByIsa, l, &k.isa[0]);
  k.varint_decode = Best(kVarintDecodeByIsa, l, &k.isa[1]);
  k.utf8 = Best(kUtf8ByIsa, l, &k.isa[2]);
  k.varint_encode = Best(kVarintEncodeByIsa, l, &k.isa[3]);
  return k;
}

// Trivially destructible: MaxIsa() and ConfigError() may be called from
// other objects' static destructors, after a std::string here would have
// been destroyed. The message is cut to fit; the cap in it rarely is.
struct Config {
  Isa max_isa;
  char error[128];
};

Config ReadConfig() {
  Config config{DetectedIsa(), ""};
  const char* cap = std::getenv("PROTOACCEL_ISA");
  if (cap == nullptr || *cap == '\0') return config;
  Isa isa;
  if (!ParseIsa(cap, &isa)) {
    std::snprintf(config.error, sizeof(config.error),
                  "PROTOACCEL_ISA=\"%.60s\" is not one of: scalar, sse4, avx2, avx512",
                  cap);
    config.max_isa = Isa::kScalar;
    std::fprintf(stderr, "protoaccel: %s; using scalar kernels\n", config.error);
  } else if (isa < config.max_isa) {
    config.max_isa = isa;
  }
  return config;
}

const Config& GetConfig() {
  static const Config config = ReadConfig();
  return config;
}

}  // namespace

bool ParseIsa(const char* name, Isa* isa) {
  for (int i = 0; i < kIsaCount; ++i) {
    if (std::strcmp(name, kIsaNames[i]) == 0) {
      *isa = static_cast<Isa>(i);
      return true;
    }
  }
  return false;
}

namespace {

// Set once the kernels are chosen. Each entry point below inlines Active():
// with the function-local static read there, gcc saved three registers
// around its guard on every call, and a UTF-8 check took 14 instructions to
// reach its kernel; reading a pointer, it takes 4.
std::atomic<const Kernels*> active_kernels{nullptr};

#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
const Kernels& ChooseKernels() {
  static const Kernels active = Compose(GetConfig().max_isa);
  active_kernels.store(&active, std::memory_order_release);
  return active;
}

}  // namespace

const Kernels& Active() {
  const Kernels* kernels = active_kernels.load(std::memory_order_acquire);
  return kernels != nullptr ? *kernels : ChooseKernels();
}

const Kernels* KernelsFor(Isa isa) {
  static const struct ByIsa {
    Kernels k[kIsaCount];
    ByIsa() {
      for (int i = 0; i < kIsaCount; ++i) k[i] = Compose(static_cast<Isa>(i));
    }
  } by_isa;
  if (isa > DetectedIsa()) return nullptr;
  return &by_isa.k[static_cast<int>(isa)];
}

}  // namespace internal

using internal::Active;

const char* IsaName(Isa isa) {
  const int i = static_cast<int>(isa);
  return i >= 0 && i < kIsaCount ? internal::kIsaNames[i] : "unknown";
}

const char* FamilyName(Family family) {
  const int i = static_cast<int>(family);
  return i >= 0 && i < kFamilyCount ? internal::kFamilyNames[i] : "unknown";
}

Isa DetectedIsa() {
  static const Isa isa = internal::BestIsa(internal::DetectCpuFeatures());
  return isa;
}

Isa MaxIsa() { return internal::GetConfig().max_isa; }

Isa ActiveIsa(Family family) {
  return Active().isa[static_cast<int>(family)];
}

const char* ConfigError() { return internal::GetConfig().error; }

size_t CountVarints(const char* p, size_t n) {
  return Active().varint_count.count(p, n);
}

// int32_t and uint32_t (and the 64-bit pair) may alias, so the signed
// decoders share the unsigned kernels.
DecodeResult DecodeUInt32(const char* p, const char* end, const char* limit,
                          uint32_t* out) {
  return Active().varint_decode.low32(p, end, limit, out);
}
DecodeResult DecodeInt32(const char* p, const char* end, const char* limit,
                         int32_t* out) {
  return Active().varint_decode.low32(p, end, limit,
                                      reinterpret_cast<uint32_t*>(out));
}
DecodeResult DecodeSInt32(const char* p, const char* end, const char* limit,
                          int32_t* out) {
  return Active().varint_decode.zigzag32(p, end, limit, out);
}
DecodeResult DecodeUInt64(const char* p, const char* end, const char* limit,
                          uint64_t* out) {
  return Active().varint_decode.full64(p, end, limit, out);
}
DecodeResult DecodeInt64(const char* p, const char* end, const char* limit,
                         int64_t* out) {
  return Active().varint_decode.full64(p, end, limit,
                                       reinterpret_cast<uint64_t*>(out));
}
DecodeResult DecodeSInt64(const char* p, const char* end, const char* limit,
                          int64_t* out) {
  return Active().varint_decode.zigzag64(p, end, limit, out);
}
DecodeResult DecodeBool(const char* p, const char* end, const char* limit,
                        bool* out) {
  return Active().varint_decode.boolean(p, end, limit, out);
}

bool IsValidUtf8(const char* p, size_t n) {
  return Active().utf8.validate(p, n);
}
size_t ValidUtf8Prefix(const char* p, size_t n) {
  return Active().utf8.valid_prefix(p, n);
}

size_t PackedSizeUInt32(const uint32_t* v, size_t n) {
  return Active().varint_encode.size_uint32(v, n);
}
size_t PackedSizeInt32(const int32_t* v, size_t n) {
  return Active().varint_encode.size_int32(v, n);
}
size_t PackedSizeSInt32(const int32_t* v, size_t n) {
  return Active().varint_encode.size_sint32(v, n);
}
size_t PackedSizeUInt64(const uint64_t* v, size_t n) {
  return Active().varint_encode.size_uint64(v, n);
}
size_t PackedSizeInt64(const int64_t* v, size_t n) {
  return Active().varint_encode.size_uint64(
      reinterpret_cast<const uint64_t*>(v), n);
}
size_t PackedSizeSInt64(const int64_t* v, size_t n) {
  return Active().varint_encode.size_sint64(v, n);
}

char* EncodeUInt32(const uint32_t* v, size_t n, char* out) {
  return Active().varint_encode.encode_uint32(v, n, out);
}
char* EncodeInt32(const int32_t* v, size_t n, char* out) {
  return Active().varint_encode.encode_int32(v, n, out);
}
char* EncodeSInt32(const int32_t* v, size_t n, char* out) {
  return Active().varint_encode.encode_sint32(v, n, out);
}
char* EncodeUInt64(const uint64_t* v, size_t n, char* out) {
  return Active().varint_encode.encode_uint64(v, n, out);
}
char* EncodeInt64(const int64_t* v, size_t n, char* out) {
  return Active().varint_encode.encode_uint64(
      reinterpret_cast<const uint64_t*>(v), n, out);
}
char* EncodeSInt64(const int64_t* v, size_t n, char* out) {
  return Active().varint_encode.encode_sint64(v, n, out);
}

}  // namespace protoaccel
