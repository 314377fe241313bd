#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "dispatch/cpu_features.h"
#include "dispatch/kernels.h"
#include "protoaccel/protoaccel.h"

namespace protoaccel {
namespace {

TEST(DispatchTest, NamesRoundTrip) {
  for (int i = 0; i < kIsaCount; ++i) {
    Isa parsed;
    ASSERT_TRUE(internal::ParseIsa(IsaName(static_cast<Isa>(i)), &parsed));
    EXPECT_EQ(static_cast<int>(parsed), i);
  }
  Isa parsed;
  for (const char* bad : {"", "bogus", "AVX2", "avx-512", "sse4.1", "avx2 "}) {
    EXPECT_FALSE(internal::ParseIsa(bad, &parsed)) << bad;
  }
}

// The levels of the architecture this test was built for.
bool OfThisArchitecture(Isa isa) {
#if defined(__x86_64__) || defined(__i386__)
  return isa != Isa::kNeon;
#elif defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return isa == Isa::kScalar || isa == Isa::kNeon;
#else
  return isa == Isa::kScalar;
#endif
}

TEST(DispatchTest, LevelsFollowTheCpu) {
  const Isa detected = DetectedIsa();
  EXPECT_EQ(detected, internal::BestIsa(internal::DetectCpuFeatures()));
  EXPECT_TRUE(OfThisArchitecture(detected)) << IsaName(detected);
  for (int i = 0; i < kIsaCount; ++i) {
    const Isa isa = static_cast<Isa>(i);
    const internal::Kernels* k = internal::KernelsFor(isa);
    EXPECT_EQ(internal::Runs(isa), k != nullptr) << IsaName(isa);
    if (isa > detected || !OfThisArchitecture(isa)) {
      EXPECT_EQ(k, nullptr) << IsaName(isa);
      continue;
    }
    ASSERT_NE(k, nullptr) << IsaName(isa);
    for (int f = 0; f < kFamilyCount; ++f) EXPECT_LE(k->isa[f], isa);
  }
}

// PROTOACCEL_ISA forces one level on every family; unset, each family takes
// the level this CPU prefers. ctest runs this binary once per value of
// PROTOACCEL_ISA, and once without it.
TEST(DispatchTest, EnvironmentForcesALevel) {
  const char* cap = std::getenv("PROTOACCEL_ISA");
  EXPECT_STREQ(ConfigError(), "");
  const bool forced = cap != nullptr && *cap != '\0';
  Isa expected = DetectedIsa();
  Isa parsed;
  if (forced) {
    ASSERT_TRUE(internal::ParseIsa(cap, &parsed));
    // Another architecture's level caps at scalar.
    if (!OfThisArchitecture(parsed)) {
      expected = Isa::kScalar;
    } else if (parsed < expected) {
      expected = parsed;
    }
  }
  EXPECT_EQ(MaxIsa(), expected);
  for (int f = 0; f < kFamilyCount; ++f) {
    const auto family = static_cast<Family>(f);
    const char* why = "the best level this CPU has";
    const Isa level =
        forced ? expected
               : internal::PreferredLevel(internal::DetectCpuFeatures(), family,
                                          expected, &why);
    EXPECT_EQ(ActiveIsa(family), internal::KernelsFor(level)->isa[f])
        << FamilyName(family);
    if (forced) {
      EXPECT_EQ(std::string(ActiveReason(family)),
                std::string("PROTOACCEL_ISA=") + cap);
    } else {
      EXPECT_STREQ(ActiveReason(family), why);
    }
  }
}

internal::CpuFeatures Cpu(const char* vendor, int family, int model) {
  internal::CpuFeatures cpu{};
  std::snprintf(cpu.vendor, sizeof(cpu.vendor), "%s", vendor);
  cpu.family = family;
  cpu.model = model;
  return cpu;
}

// The preference table: Zen 1 (AMD 17h below model 30h) and Hygon's Zen 1
// encode with SSE4.1; Intel's Ice Lake and Tiger Lake, whose clock drops
// with 512-bit registers, run every family at AVX2; Zen 2, later AMD and
// other Intel cores keep their best level, as do the other families; a
// preference never raises a level.
TEST(DispatchTest, PreferencesNameTheirMicroarchitectures) {
  struct Case {
    internal::CpuFeatures cpu;
    Isa level, encoder, others;
    const char* why;  // of a lowered level
  } cases[] = {
      {Cpu("AuthenticAMD", 0x17, 0x01), Isa::kAvx2, Isa::kSse4, Isa::kAvx2, "SSE4.1"},  // Zen
      {Cpu("AuthenticAMD", 0x17, 0x08), Isa::kAvx2, Isa::kSse4, Isa::kAvx2, "SSE4.1"},  // Zen+
      {Cpu("AuthenticAMD", 0x17, 0x2f), Isa::kAvx2, Isa::kSse4, Isa::kAvx2, "SSE4.1"},
      {Cpu("AuthenticAMD", 0x17, 0x31), Isa::kAvx2, Isa::kAvx2, Isa::kAvx2, ""},  // Zen 2
      {Cpu("AuthenticAMD", 0x19, 0x11), Isa::kAvx512, Isa::kAvx512, Isa::kAvx512, ""},  // Zen 4
      {Cpu("HygonGenuine", 0x18, 0x00), Isa::kAvx2, Isa::kSse4, Isa::kAvx2, "SSE4.1"},
      {Cpu("GenuineIntel", 0x06, 0x55), Isa::kAvx2, Isa::kAvx2, Isa::kAvx2, ""},  // Skylake-X
      {Cpu("GenuineIntel", 0x06, 0x6a), Isa::kAvx512, Isa::kAvx2, Isa::kAvx2, "512-bit"},  // Ice Lake-X
      {Cpu("GenuineIntel", 0x06, 0x6c), Isa::kAvx512, Isa::kAvx2, Isa::kAvx2, "512-bit"},  // Ice Lake-D
      {Cpu("GenuineIntel", 0x06, 0x7d), Isa::kAvx512, Isa::kAvx2, Isa::kAvx2, "512-bit"},  // Ice Lake
      {Cpu("GenuineIntel", 0x06, 0x7e), Isa::kAvx512, Isa::kAvx2, Isa::kAvx2, "512-bit"},
      {Cpu("GenuineIntel", 0x06, 0x9d), Isa::kAvx512, Isa::kAvx2, Isa::kAvx2, "512-bit"},
      {Cpu("GenuineIntel", 0x06, 0x8c), Isa::kAvx512, Isa::kAvx2, Isa::kAvx2, "512-bit"},  // Tiger Lake
      {Cpu("GenuineIntel", 0x06, 0x8d), Isa::kAvx512, Isa::kAvx2, Isa::kAvx2, "512-bit"},
      {Cpu("GenuineIntel", 0x06, 0x7e), Isa::kSse4, Isa::kSse4, Isa::kSse4, ""},
      {Cpu("GenuineIntel", 0x06, 0xa7), Isa::kAvx512, Isa::kAvx512, Isa::kAvx512, ""},  // Rocket Lake
      {Cpu("GenuineIntel", 0x06, 0x8f), Isa::kAvx512, Isa::kAvx512, Isa::kAvx512, ""},  // Sapphire Rapids
      {Cpu("AuthenticAMD", 0x06, 0x7e), Isa::kAvx512, Isa::kAvx512, Isa::kAvx512, ""},
      {Cpu("AuthenticAMD", 0x17, 0x01), Isa::kSse4, Isa::kSse4, Isa::kSse4, ""},
      {Cpu("AuthenticAMD", 0x17, 0x01), Isa::kScalar, Isa::kScalar, Isa::kScalar, ""},
  };
  for (const Case& c : cases) {
    for (int f = 0; f < kFamilyCount; ++f) {
      const auto family = static_cast<Family>(f);
      const char* const kUnset = "unset";
      const char* why = kUnset;
      const Isa want = family == Family::kVarintEncode ? c.encoder : c.others;
      EXPECT_EQ(internal::PreferredLevel(c.cpu, family, c.level, &why), want)
          << c.cpu.vendor << " " << c.cpu.family << "/" << c.cpu.model << " "
          << FamilyName(family);
      if (want == c.level) {
        EXPECT_EQ(why, kUnset);
      } else {
        EXPECT_NE(std::strstr(why, c.why), nullptr) << why;
      }
    }
  }
}

TEST(DispatchTest, FeatureImplications) {
  const internal::CpuFeatures& f = internal::DetectCpuFeatures();
  const Isa isa = DetectedIsa();
  EXPECT_EQ(isa == Isa::kNeon, f.neon);
  if (isa == Isa::kNeon) return;  // no other features off x86
  if (isa >= Isa::kSse4) EXPECT_TRUE(f.sse41 && f.ssse3 && f.popcnt);
  if (isa >= Isa::kAvx2) EXPECT_TRUE(f.avx2 && f.bmi1 && f.lzcnt);
  if (isa >= Isa::kAvx512) {
    EXPECT_TRUE(f.avx512f && f.avx512bw && f.avx512vl && f.avx512cd &&
                f.avx512vbmi && f.avx512vbmi2 && f.fast_pdep);
  }
  if (f.fast_pdep) EXPECT_TRUE(f.bmi2);
  if (std::strcmp(f.vendor, "AuthenticAMD") == 0 && f.family < 0x19) {
    EXPECT_FALSE(f.fast_pdep);
  }
}

// The public functions reach the active kernels.
TEST(DispatchTest, PublicApiWorks) {
  const char bytes[] = "\x96\x01\x05\x80";
  uint32_t out[3];
  const DecodeResult r = DecodeUInt32(bytes, bytes + 3, bytes + 3, out);
  EXPECT_TRUE(r.ok);
  ASSERT_EQ(r.count, 2u);
  EXPECT_EQ(out[0], 150u);
  EXPECT_EQ(out[1], 5u);
  EXPECT_EQ(CountVarints(bytes, 4), 2u);
  EXPECT_EQ(MaxDecodedValues(bytes, bytes + 4), 3u);
  EXPECT_TRUE(IsValidUtf8("\xc3\xa9", 2));
  EXPECT_EQ(ValidUtf8Prefix("a\xc3", 2), 1u);
  const int32_t minus_one = -1;
  char wire[10];
  EXPECT_EQ(PackedSizeInt32(&minus_one, 1), 10u);
  EXPECT_EQ(EncodeInt32(&minus_one, 1, wire), wire + 10);
  EXPECT_EQ(PackedSizeSInt32(&minus_one, 1), 1u);
}

}  // namespace
}  // namespace protoaccel
