#include <gtest/gtest.h>

#include <cstring>

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

TEST(DispatchTest, LevelsFollowTheCpu) {
  const Isa detected = DetectedIsa();
  EXPECT_EQ(detected, internal::BestIsa(internal::DetectCpuFeatures()));
  for (int i = 0; i < kIsaCount; ++i) {
    const Isa isa = static_cast<Isa>(i);
    const internal::Kernels* k = internal::KernelsFor(isa);
    if (isa > detected) {
      EXPECT_EQ(k, nullptr) << IsaName(isa);
      continue;
    }
    ASSERT_NE(k, nullptr) << IsaName(isa);
    for (int f = 0; f < kFamilyCount; ++f) EXPECT_LE(k->isa[f], isa);
  }
}

// The cap applies to every family; ctest runs this binary once per value of
// PROTOACCEL_ISA.
TEST(DispatchTest, EnvironmentCapsTheChoice) {
  const char* cap = std::getenv("PROTOACCEL_ISA");
  EXPECT_STREQ(ConfigError(), "");
  Isa expected = DetectedIsa();
  Isa parsed;
  if (cap != nullptr && *cap != '\0') {
    ASSERT_TRUE(internal::ParseIsa(cap, &parsed));
    if (parsed < expected) expected = parsed;
  }
  EXPECT_EQ(MaxIsa(), expected);
  for (int f = 0; f < kFamilyCount; ++f) {
    EXPECT_LE(ActiveIsa(static_cast<Family>(f)), expected);
  }
}

TEST(DispatchTest, FeatureImplications) {
  const internal::CpuFeatures& f = internal::DetectCpuFeatures();
  const Isa isa = DetectedIsa();
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
