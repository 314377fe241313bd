// Shared by the kernel tests: the levels to test, buffers that fault on an
// over-read or over-write (guarded_memory.h), and deterministic random data.

#ifndef PROTOACCEL_TESTS_TEST_UTIL_H_
#define PROTOACCEL_TESTS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "dispatch/kernels.h"
#include "guarded_memory.h"
#include "protoaccel/protoaccel.h"


namespace protoaccel {

// So that gtest names the level in a failure rather than its bytes.
inline void PrintTo(Isa isa, std::ostream* os) { *os << IsaName(isa); }

namespace testing {

// Every level this CPU can run: each is tested against the references.
inline std::vector<Isa> AvailableIsas() {
  std::vector<Isa> isas;
  for (int i = 0; i < kIsaCount; ++i) {
    if (internal::Runs(static_cast<Isa>(i))) isas.push_back(static_cast<Isa>(i));
  }
  return isas;
}

inline std::string IsaParamName(const ::testing::TestParamInfo<Isa>& info) {
  return IsaName(info.param);
}

// A test fixture parameterized by level, with that level's kernels.
class IsaTest : public ::testing::TestWithParam<Isa> {
 protected:
  const internal::Kernels& kernels() const {
    const internal::Kernels* k = internal::KernelsFor(GetParam());
    EXPECT_NE(k, nullptr);
    return *k;
  }
};

#define PROTOACCEL_INSTANTIATE_FOR_EVERY_ISA(suite)                  \
  INSTANTIATE_TEST_SUITE_P(                                          \
      Isa, suite, ::testing::ValuesIn(protoaccel::testing::AvailableIsas()), \
      protoaccel::testing::IsaParamName)

// A varint of exactly `length` bytes (1..10) carrying `value`'s low bits,
// with the continuation bits set as the encoding requires. A value too large
// for the length loses its high bits; a length larger than needed pads with
// 0x80 bytes (a valid, non-minimal varint, which protobuf accepts).
inline std::string VarintOfLength(uint64_t value, int length) {
  std::string out;
  for (int i = 0; i < length; ++i) {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    if (i + 1 < length) byte |= 0x80;
    out.push_back(static_cast<char>(byte));
  }
  return out;
}

inline int MinimalLength(uint64_t value) {
  int length = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++length;
  }
  return length;
}

inline std::string Varint(uint64_t value) {
  return VarintOfLength(value, MinimalLength(value));
}

// A value whose minimal varint has exactly `length` bytes.
inline uint64_t RandomValueOfLength(std::mt19937_64& rng, int length) {
  if (length == 1) return rng() & 0x7f;
  if (length == 10) return rng() | (uint64_t{1} << 63);
  const uint64_t low = uint64_t{1} << (7 * (length - 1));
  return low | (rng() & (low * 128 - 1));
}

}  // namespace testing
}  // namespace protoaccel

#endif  // PROTOACCEL_TESTS_TEST_UTIL_H_
