// Every packed size and encoder of every level against the reference.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "reference.h"
#include "test_util.h"

namespace protoaccel {
namespace {

using internal::EncodeFn;
using internal::SizeFn;
using testing::RandomValueOfLength;

template <typename T>
::testing::AssertionResult SameAsReference(SizeFn<T> size, EncodeFn<T> encode,
                                           uint64_t (*wire)(T),
                                           const std::vector<T>& values) {
  const std::string want = reference::Encode(values, wire);
  const size_t got_size = size(values.data(), values.size());
  if (got_size != want.size()) {
    return ::testing::AssertionFailure()
           << values.size() << " values: size " << got_size << ", want "
           << want.size();
  }
  // Exactly the promised room, then sentinels that must stay.
  constexpr size_t kSentinels = 64;
  std::vector<char> out(want.size() + kSentinels, '\x5a');
  char* end = encode(values.data(), values.size(), out.data());
  if (end != out.data() + want.size()) {
    return ::testing::AssertionFailure()
           << values.size() << " values: wrote " << (end - out.data())
           << " bytes, want " << want.size();
  }
  if (std::memcmp(out.data(), want.data(), want.size()) != 0) {
    return ::testing::AssertionFailure() << values.size() << " values: bytes differ";
  }
  for (size_t i = want.size(); i < out.size(); ++i) {
    if (out[i] != '\x5a') {
      return ::testing::AssertionFailure() << "wrote past the promised room";
    }
  }
  return ::testing::AssertionSuccess();
}

// A value of each wire width (1..10 bytes) for each type.
uint64_t WireValueOfLength(std::mt19937_64& rng, int length) {
  return RandomValueOfLength(rng, length);
}

class VarintEncodeTest : public testing::IsaTest {
 protected:
  // The five kernels on values built from the same wire values.
  ::testing::AssertionResult CheckAll(const std::vector<uint64_t>& wire) {
    const internal::VarintEncodeKernels& k = kernels().varint_encode;
    std::vector<uint32_t> u32;
    std::vector<int32_t> i32;
    std::vector<int64_t> s64;
    for (uint64_t w : wire) {
      u32.push_back(static_cast<uint32_t>(w));
      i32.push_back(static_cast<int32_t>(w));
      s64.push_back(static_cast<int64_t>(w));
    }
    ::testing::AssertionResult r = SameAsReference(
        k.size_uint32, k.encode_uint32, reference::WireUInt32, u32);
    if (r) r = SameAsReference(k.size_int32, k.encode_int32, reference::WireInt32, i32);
    if (r) r = SameAsReference(k.size_sint32, k.encode_sint32, reference::WireSInt32, i32);
    if (r) r = SameAsReference(k.size_uint64, k.encode_uint64, reference::WireUInt64, wire);
    if (r) r = SameAsReference(k.size_sint64, k.encode_sint64, reference::WireSInt64, s64);
    return r;
  }
};

TEST_P(VarintEncodeTest, EveryWidthAtEveryPosition) {
  std::mt19937_64 rng(31);
  for (int length = 1; length <= 10; ++length) {
    for (size_t n = 1; n <= 70; ++n) {
      for (size_t at = 0; at < n; ++at) {
        std::vector<uint64_t> wire(n);
        for (auto& w : wire) w = rng() & 0x7f;
        wire[at] = WireValueOfLength(rng, length);
        ASSERT_TRUE(CheckAll(wire)) << "length " << length << " at " << at;
      }
    }
  }
}

TEST_P(VarintEncodeTest, BoundaryValues) {
  std::vector<uint64_t> wire = {0, 1, 0x7f, 0x80, 0x3fff, 0x4000};
  for (int bits = 1; bits <= 64; ++bits) {
    const uint64_t top = uint64_t{1} << (bits - 1);
    wire.push_back(top);
    wire.push_back(top - 1);
    wire.push_back(top | (top - 1));
    wire.push_back(~top);
  }
  for (size_t n = 0; n <= wire.size(); ++n) {
    ASSERT_TRUE(CheckAll(std::vector<uint64_t>(wire.begin(), wire.begin() + n)));
  }
}

TEST_P(VarintEncodeTest, RandomArrays) {
  std::mt19937_64 rng(32);
  for (int round = 0; round < 400; ++round) {
    const size_t n = rng() % (round < 300 ? 300 : 20000);
    const int max_length = 1 + round % 10;
    std::vector<uint64_t> wire(n);
    for (auto& w : wire) {
      w = WireValueOfLength(rng, 1 + static_cast<int>(rng() % max_length));
    }
    ASSERT_TRUE(CheckAll(wire)) << "round " << round;
  }
}

PROTOACCEL_INSTANTIATE_FOR_EVERY_ISA(VarintEncodeTest);

}  // namespace
}  // namespace protoaccel
