#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "reference.h"
#include "test_util.h"

namespace protoaccel {
namespace {

using testing::GuardedBuffer;

class VarintCountTest : public testing::IsaTest {};

// Every length 0..300 at every alignment of a 64-byte line and against a
// guard page, over bytes of every kind and of skewed mixes.
TEST_P(VarintCountTest, EveryLengthAndAlignment) {
  auto count = kernels().varint_count.count;
  std::mt19937_64 rng(11);
  for (int density : {0, 1, 2, 8, 64, 255, 256}) {  // in 256ths of top bits
    std::vector<char> bytes(300 + 64);
    for (auto& c : bytes) {
      const bool top = static_cast<int>(rng() % 256) < density;
      c = static_cast<char>((rng() & 0x7f) | (top ? 0x80 : 0));
    }
    for (size_t n = 0; n <= 300; ++n) {
      for (size_t shift = 0; shift < 64; ++shift) {
        ASSERT_EQ(count(bytes.data() + shift, n),
                  reference::CountVarints(bytes.data() + shift, n))
            << "n " << n << " shift " << shift << " density " << density;
      }
      GuardedBuffer guarded(bytes.data(), n);
      ASSERT_EQ(count(guarded.data(), n),
                reference::CountVarints(guarded.data(), n));
    }
  }
}

TEST_P(VarintCountTest, LargeRandom) {
  auto count = kernels().varint_count.count;
  std::mt19937_64 rng(12);
  std::string bytes(1 << 20, '\0');
  for (auto& c : bytes) c = static_cast<char>(rng());
  EXPECT_EQ(count(bytes.data(), bytes.size()),
            reference::CountVarints(bytes.data(), bytes.size()));
}

PROTOACCEL_INSTANTIATE_FOR_EVERY_ISA(VarintCountTest);

}  // namespace
}  // namespace protoaccel
