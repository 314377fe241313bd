// Runs against the accelerated libprotobuf.so.32 (LD_LIBRARY_PATH), built
// against Debian's headers like any user's program: a long packed field is
// stored with one allocation, of exactly its size, on the heap and on an
// arena.

#include <google/protobuf/arena.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "allocation_counter.h"
#include "corpus3.pb.h"

using allocation_counter::allocations;
using allocation_counter::counting;

namespace {

using protoaccel::diff::Packed3;

// A Packed3 holding only `u32`, N values below `bound` (0 for any).
std::string Wire(int n, uint64_t bound) {
  std::mt19937_64 rng(n);
  Packed3 message;
  for (int i = 0; i < n; ++i) {
    const uint32_t v = static_cast<uint32_t>(rng());
    message.add_u32(bound ? v % bound : v);
  }
  return message.SerializeAsString();
}

// The heap allocations made by parsing `wire` into `message`.
long AllocationsToParse(const std::string& wire, Packed3& message) {
  allocations = 0;
  counting = true;
  const bool ok = message.ParseFromString(wire);
  counting = false;
  EXPECT_TRUE(ok);
  return allocations;
}

class DropInTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(DropInTest, OneHeapAllocation) {
  Packed3 message;
  EXPECT_EQ(AllocationsToParse(Wire(10000, GetParam()), message), 1);
  EXPECT_EQ(message.u32_size(), 10000);
  EXPECT_EQ(message.u32().Capacity(), message.u32_size());
}

// 32 one-byte values: the shortest field that is read in runs, where the
// element loop would grow the field several times.
TEST(DropInShortestRunTest, OneHeapAllocation) {
  Packed3 message;
  EXPECT_EQ(AllocationsToParse(Wire(32, 128), message), 1);
  EXPECT_EQ(message.u32_size(), 32);
}

TEST_P(DropInTest, OneArenaAllocation) {
  const std::string wire = Wire(10000, GetParam());
  google::protobuf::Arena arena;
  auto* message = google::protobuf::Arena::CreateMessage<Packed3>(&arena);
  const uint64_t before = arena.SpaceUsed();
  ASSERT_TRUE(message->ParseFromString(wire));
  EXPECT_EQ(message->u32_size(), 10000);
  EXPECT_EQ(message->u32().Capacity(), message->u32_size());
  // One array: RepeatedField's header (the arena pointer) and the values.
  // Every earlier array of a growing field would still count as used.
  EXPECT_EQ(arena.SpaceUsed() - before,
            sizeof(void*) + sizeof(uint32_t) * message->u32().Capacity());
}

INSTANTIATE_TEST_SUITE_P(Values, DropInTest,
                         ::testing::Values(uint64_t{128}, uint64_t{0}),
                         [](const ::testing::TestParamInfo<uint64_t>& info) {
                           return info.param ? "Below128" : "Random";
                         });

}  // namespace
