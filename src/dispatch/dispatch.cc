// Chooses the kernels once and forwards the public API to them.

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dispatch/cpu_features.h"
#include "dispatch/kernels.h"
#include "protoaccel/protoaccel.h"

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

constexpr const char* kIsaNames[kIsaCount] = {"scalar", "sse4", "avx2",
                                              "avx512", "neon"};
constexpr const char* kFamilyNames[kFamilyCount] = {
    "varint_count", "varint_decode", "utf8_validate", "varint_encode"};

// The implementations of each family, indexed by level; nullptr where a level
// has none of its own (it then uses the best one below it).
#if PROTOACCEL_X86
#define X86_ONLY(kernels) &kernels
#else
#define X86_ONLY(kernels) nullptr
#endif
#if PROTOACCEL_ARM64
#define ARM64_ONLY(kernels) &kernels
#else
#define ARM64_ONLY(kernels) nullptr
#endif
constexpr const VarintCountKernels* kVarintCountByIsa[kIsaCount] = {
    &kVarintCountScalar, X86_ONLY(kVarintCountSse4),
    X86_ONLY(kVarintCountAvx2), X86_ONLY(kVarintCountAvx512),
    ARM64_ONLY(kVarintCountNeon)};
constexpr const VarintDecodeKernels* kVarintDecodeByIsa[kIsaCount] = {
    &kVarintDecodeScalar, X86_ONLY(kVarintDecodeSse4),
    X86_ONLY(kVarintDecodeAvx2), X86_ONLY(kVarintDecodeAvx512),
    ARM64_ONLY(kVarintDecodeNeon)};
constexpr const Utf8Kernels* kUtf8ByIsa[kIsaCount] = {
    &kUtf8Scalar, X86_ONLY(kUtf8Sse4), X86_ONLY(kUtf8Avx2),
    X86_ONLY(kUtf8Avx512), ARM64_ONLY(kUtf8Neon)};
constexpr const VarintEncodeKernels* kVarintEncodeByIsa[kIsaCount] = {
    &kVarintEncodeScalar, X86_ONLY(kVarintEncodeSse4),
    X86_ONLY(kVarintEncodeAvx2), X86_ONLY(kVarintEncodeAvx512),
    ARM64_ONLY(kVarintEncodeNeon)};
#undef X86_ONLY
#undef ARM64_ONLY

// The levels of this architecture's ladder (and scalar, on every one).
bool OfThisArchitecture(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return true;
    case Isa::kSse4:
    case Isa::kAvx2:
    case Isa::kAvx512:
      return PROTOACCEL_X86 != 0;
    case Isa::kNeon:
      return PROTOACCEL_ARM64 != 0;
  }
  return false;
}

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

// Where a family's best level is not its fastest kernel on a CPU, the
// family takes a lower level's kernel there, as glibc's cpu_features
// preferences (Prefer_No_AVX512 and the like) do. Each entry is a
// measurement, or says whose list it follows; a family not listed takes
// its best level everywhere. Checked
// and not listed: on Zen 4 (family 19h, AVX-512 as two 256-bit halves) the
// AVX-512 decoder is slower than AVX2 for 64-bit varints of 9 or 10 bytes
// (1.2x at 4,096 values, 1.3x at 65,536) but faster for 32-bit ones (up to
// 3x), so the family keeps it. Zen 5 (family 1Ah, full 512-bit units) is
// alike: AVX2 is faster for random uint64 from a few hundred values (1.08x
// to 1.14x at 4,096, 1.18x at 65,536), for mixed 64-bit lengths (1.10x at
// 65,536) and zigzag int32 at 65,536 (1.06x), AVX-512 at 64 values (mixed
// 64-bit 1.15x, zigzag int32 1.48x) and for the other 32-bit shapes
// (negative int32 4.7x at 65,536), so it keeps AVX-512 for every family.
struct Preference {
  const char* vendor;
  int family;  // display family and model range
  int first_model, last_model;
  unsigned kernels;  // the families, a bit each (FamilyBit)
  Isa level;
  const char* why;
};
constexpr unsigned FamilyBit(Family f) { return 1u << static_cast<int>(f); }
constexpr unsigned kEveryFamily = (1u << kFamilyCount) - 1;

// Intel cores that lower their clock while 512-bit registers are in use,
// for the whole core and for a while after (the cost raised against
// AVX-512 in protobuf, #8731 and #13256), as Linux lists them for
// X86_FEATURE_PREFER_YMM (arch/x86/kernel/cpu/intel.c,
// zmm_exclusion_list): of those, the ones with AVX-512 VBMI2, which
// protoaccel's AVX-512 level needs, are Ice Lake and Tiger Lake (Skylake-X
// lacks it). Every family takes AVX2 there, as Linux's own 512-bit code
// does; Rocket Lake, Sapphire Rapids and later, and AMD's Zen 4 and 5,
// keep AVX-512. Linux's list, not a measurement: no such CPU was at hand.
constexpr const char* kZmmDownclocks =
    "preferred on Intel Ice Lake and Tiger Lake, whose clock drops while "
    "512-bit registers are in use (Linux's zmm_exclusion_list)";

constexpr Preference kPreferences[] = {
    {"GenuineIntel", 6, 0x6a, 0x6a, kEveryFamily, Isa::kAvx2, kZmmDownclocks},  // Ice Lake-X
    {"GenuineIntel", 6, 0x6c, 0x6c, kEveryFamily, Isa::kAvx2, kZmmDownclocks},  // Ice Lake-D
    {"GenuineIntel", 6, 0x7d, 0x7e, kEveryFamily, Isa::kAvx2, kZmmDownclocks},  // Ice Lake
    {"GenuineIntel", 6, 0x9d, 0x9d, kEveryFamily, Isa::kAvx2, kZmmDownclocks},  // Ice Lake NNPI
    {"GenuineIntel", 6, 0x8c, 0x8d, kEveryFamily, Isa::kAvx2, kZmmDownclocks},  // Tiger Lake
    // Zen and Zen+ (family 17h models 00h-2Fh) and Hygon's Dhyana (a Zen)
    // execute each 256-bit operation as two 128-bit halves; Zen 2 (17h from
    // model 30h) does not. On an EPYC of the first kind the AVX2 encoder
    // took 0.44 ns a one-byte value against SSE4.1's 0.17, and 0.72 against
    // 0.36 for two-byte ones (kernels_bench). Sizing was not measured there;
    // its AVX2 kernel halves in the same way.
    {"AuthenticAMD", 0x17, 0x00, 0x2f, FamilyBit(Family::kVarintEncode), Isa::kSse4,
     "preferred on Zen 1, which splits 256-bit operations: its AVX2 encoder "
     "ran at half the speed of SSE4.1"},
    {"HygonGenuine", 0x18, 0x00, 0xff, FamilyBit(Family::kVarintEncode), Isa::kSse4,
     "preferred on Hygon Dhyana (a Zen 1), which splits 256-bit operations: "
     "its AVX2 encoder ran at half the speed of SSE4.1"},
};

// The kernels of `level` for every family, or, given a CPU, of the level
// each family prefers there (at most `level`), and why.
Kernels Compose(Isa level, const CpuFeatures* cpu, const char* why) {
  int l[kFamilyCount];
  Kernels k;
  for (int f = 0; f < kFamilyCount; ++f) {
    k.why[f] = why;
    l[f] = static_cast<int>(
        cpu == nullptr ? level
                       : PreferredLevel(*cpu, static_cast<Family>(f), level,
                                        &k.why[f]));
  }
  k.varint_count = Best(kVarintCountByIsa, l[0], &k.isa[0]);
  k.varint_decode = Best(kVarintDecodeByIsa, l[1], &k.isa[1]);
  k.utf8 = Best(kUtf8ByIsa, l[2], &k.isa[2]);
  k.varint_encode = Best(kVarintEncodeByIsa, l[3], &k.isa[3]);
  return k;
}

// Trivially destructible: MaxIsa() and ConfigError() may be called from
// other objects' static destructors, after a std::string here would have
// been destroyed. The message is cut to fit; the cap in it rarely is.
struct Config {
  Isa max_isa;
  bool forced;  // by PROTOACCEL_ISA, valid or not
  char why[48];
  char error[128];
};

Config ReadConfig() {
  Config config{DetectedIsa(), false, "", ""};
  const char* cap = std::getenv("PROTOACCEL_ISA");
  if (cap == nullptr || *cap == '\0') return config;
  config.forced = true;
  std::snprintf(config.why, sizeof(config.why), "PROTOACCEL_ISA=%.20s", cap);
  Isa isa;
  if (!ParseIsa(cap, &isa)) {
    std::snprintf(config.error, sizeof(config.error),
                  "PROTOACCEL_ISA=\"%.60s\" is not one of: scalar, sse4, avx2, avx512, neon",
                  cap);
    config.max_isa = Isa::kScalar;
    std::fprintf(stderr, "protoaccel: %s; using scalar kernels\n", config.error);
  } else if (!OfThisArchitecture(isa)) {
    // Not an error: one setting may serve a fleet of both architectures.
    config.max_isa = Isa::kScalar;
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

Isa PreferredLevel(const CpuFeatures& cpu, Family family, Isa level,
                   const char** why) {
  for (const Preference& p : kPreferences) {
    if ((p.kernels & FamilyBit(family)) != 0 && p.level < level &&
        std::strcmp(cpu.vendor, p.vendor) == 0 && cpu.family == p.family &&
        cpu.model >= p.first_model && cpu.model <= p.last_model) {
      *why = p.why;
      return p.level;
    }
  }
  return level;
}

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

// Set once the kernels are chosen. Each entry point below inlines
// ActiveKernels(): with the function-local static read there, gcc saved
// three registers around its guard on every call, and a UTF-8 check took 14
// instructions to reach its kernel; reading a pointer, it takes 4.
std::atomic<const Kernels*> active_kernels{nullptr};

#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
const Kernels& ChooseKernels() {
  // PROTOACCEL_ISA forces a level, exactly (tests, A/B); without it each
  // family takes the level this CPU prefers.
  const Config& config = GetConfig();
  static const Kernels active =
      config.forced ? Compose(config.max_isa, nullptr, config.why)
                    : Compose(config.max_isa, &DetectCpuFeatures(),
                              "the best level this CPU has");
  active_kernels.store(&active, std::memory_order_release);
  return active;
}

// Internal linkage, so that it is inlined whatever the build's visibility:
// libprotobuf 3.21 compiles with -fPIC and default visibility (a version
// script limits its exports), and there gcc inlines no function that another
// library could interpose. Called through the external Active(), a UTF-8
// check of a short string cost a call and two saved registers more, and
// Order's serialization was 7% slower than stock on Zen 5.
inline const Kernels& ActiveKernels() {
  const Kernels* kernels = active_kernels.load(std::memory_order_acquire);
  return kernels != nullptr ? *kernels : ChooseKernels();
}

}  // namespace

const Kernels& Active() { return ActiveKernels(); }

const Kernels* KernelsFor(Isa isa) {
  static const struct ByIsa {
    Kernels k[kIsaCount];
    ByIsa() {
      for (int i = 0; i < kIsaCount; ++i) {
        k[i] = Compose(static_cast<Isa>(i), nullptr, "the level asked for");
      }
    }
  } by_isa;
  if (!Runs(isa)) return nullptr;
  return &by_isa.k[static_cast<int>(isa)];
}

bool Runs(Isa isa) { return OfThisArchitecture(isa) && isa <= DetectedIsa(); }

}  // namespace internal

using internal::ActiveKernels;

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
  return ActiveKernels().isa[static_cast<int>(family)];
}

const char* ActiveReason(Family family) {
  return ActiveKernels().why[static_cast<int>(family)];
}

const char* ConfigError() { return internal::GetConfig().error; }

size_t CountVarints(const char* p, size_t n) {
  return ActiveKernels().varint_count.count(p, n);
}

// int32_t and uint32_t (and the 64-bit pair) may alias, so the signed
// decoders share the unsigned kernels.
DecodeResult DecodeUInt32(const char* p, const char* end, const char* limit,
                          uint32_t* out) {
  return ActiveKernels().varint_decode.low32(p, end, limit, out);
}
DecodeResult DecodeInt32(const char* p, const char* end, const char* limit,
                         int32_t* out) {
  return ActiveKernels().varint_decode.low32(p, end, limit,
                                      reinterpret_cast<uint32_t*>(out));
}
DecodeResult DecodeSInt32(const char* p, const char* end, const char* limit,
                          int32_t* out) {
  return ActiveKernels().varint_decode.zigzag32(p, end, limit, out);
}
DecodeResult DecodeUInt64(const char* p, const char* end, const char* limit,
                          uint64_t* out) {
  return ActiveKernels().varint_decode.full64(p, end, limit, out);
}
DecodeResult DecodeInt64(const char* p, const char* end, const char* limit,
                         int64_t* out) {
  return ActiveKernels().varint_decode.full64(p, end, limit,
                                       reinterpret_cast<uint64_t*>(out));
}
DecodeResult DecodeSInt64(const char* p, const char* end, const char* limit,
                          int64_t* out) {
  return ActiveKernels().varint_decode.zigzag64(p, end, limit, out);
}
DecodeResult DecodeBool(const char* p, const char* end, const char* limit,
                        bool* out) {
  return ActiveKernels().varint_decode.boolean(p, end, limit, out);
}

bool IsValidUtf8(const char* p, size_t n) {
  return ActiveKernels().utf8.validate(p, n);
}
size_t ValidUtf8Prefix(const char* p, size_t n) {
  return ActiveKernels().utf8.valid_prefix(p, n);
}

size_t PackedSizeUInt32(const uint32_t* v, size_t n) {
  return ActiveKernels().varint_encode.size_uint32(v, n);
}
size_t PackedSizeInt32(const int32_t* v, size_t n) {
  return ActiveKernels().varint_encode.size_int32(v, n);
}
size_t PackedSizeSInt32(const int32_t* v, size_t n) {
  return ActiveKernels().varint_encode.size_sint32(v, n);
}
size_t PackedSizeUInt64(const uint64_t* v, size_t n) {
  return ActiveKernels().varint_encode.size_uint64(v, n);
}
size_t PackedSizeInt64(const int64_t* v, size_t n) {
  return ActiveKernels().varint_encode.size_uint64(
      reinterpret_cast<const uint64_t*>(v), n);
}
size_t PackedSizeSInt64(const int64_t* v, size_t n) {
  return ActiveKernels().varint_encode.size_sint64(v, n);
}

char* EncodeUInt32(const uint32_t* v, size_t n, char* out) {
  return ActiveKernels().varint_encode.encode_uint32(v, n, out);
}
char* EncodeInt32(const int32_t* v, size_t n, char* out) {
  return ActiveKernels().varint_encode.encode_int32(v, n, out);
}
char* EncodeSInt32(const int32_t* v, size_t n, char* out) {
  return ActiveKernels().varint_encode.encode_sint32(v, n, out);
}
char* EncodeUInt64(const uint64_t* v, size_t n, char* out) {
  return ActiveKernels().varint_encode.encode_uint64(v, n, out);
}
char* EncodeInt64(const int64_t* v, size_t n, char* out) {
  return ActiveKernels().varint_encode.encode_uint64(
      reinterpret_cast<const uint64_t*>(v), n, out);
}
char* EncodeSInt64(const int64_t* v, size_t n, char* out) {
  return ActiveKernels().varint_encode.encode_sint64(v, n, out);
}

PROTOACCEL_NAMESPACE_END
