// Runs against the accelerated libprotobuf.so.32 (LD_LIBRARY_PATH), built
// against Debian's headers like any user's program: a long packed field is
// stored with one allocation, of exactly its size, on the heap and on an
// arena; and written into an array too small for it, it goes no further
// past the array's end than stock's loop does. The stale-size tests run
// against stock too.

#include <google/protobuf/arena.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "allocation_counter.h"
#include "corpus2.pb.h"
#include "corpus3.pb.h"

using allocation_counter::allocations;
using allocation_counter::counting;

namespace {

using protoaccel::diff::Packed2;
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

// A message that grew after it was sized, serialized into an array of the old
// size (a caller's bug). Stock checks for room before each value, so it
// writes at most one value past the array's end and then goes on in a buffer
// of its own; the out-of-line writer of long packed fields, which the
// library's reflection reaches, must not write further either.
TEST(DropInStaleSizeTest, ArrayEndHolds) {
  constexpr uint8_t kUntouched = 0xAA;
  constexpr size_t kSlopBytes = 16;  // EpsCopyOutputStream's
  google::protobuf::DynamicMessageFactory factory;
  std::unique_ptr<google::protobuf::Message> message(
      factory.GetPrototype(Packed3::descriptor())->New());
  const auto* field = Packed3::descriptor()->FindFieldByName("u32");
  const auto* reflection = message->GetReflection();
  std::mt19937 rng(1);
  for (int i = 0; i < 100; ++i) reflection->AddUInt32(message.get(), field, rng());
  const size_t size = message->ByteSizeLong();  // cached, and soon stale
  constexpr int kAdded = 1000;
  for (int i = 0; i < kAdded; ++i) reflection->AddUInt32(message.get(), field, rng());
  // Room for every value past the array too, so that an overrun shows here
  // rather than in the heap.
  std::vector<uint8_t> buffer(size + 5 * kAdded + 64, kUntouched);
  // What SerializeWithCachedSizesToArray does, without its debug check that
  // the stale size was met (Debian builds without NDEBUG, so it would throw
  // on stock too before the bytes could be looked at).
  google::protobuf::io::EpsCopyOutputStream stream(buffer.data(), static_cast<int>(size),
                                                   /*deterministic=*/false);
  message->_InternalSerialize(buffer.data(), &stream);
  for (size_t i = size + kSlopBytes; i < buffer.size(); ++i) {
    ASSERT_EQ(buffer[i], kUntouched) << "written " << i - size << " bytes past the array";
  }
}

// The same through a packed extension, which the library serializes itself.
TEST(DropInStaleSizeTest, ExtensionArrayEndHolds) {
  constexpr uint8_t kUntouched = 0xAA;
  constexpr size_t kSlopBytes = 16;
  Packed2 message;
  std::mt19937 rng(1);
  for (int i = 0; i < 100; ++i) message.AddExtension(protoaccel::diff::x_u32, rng());
  const size_t size = message.ByteSizeLong();
  constexpr int kAdded = 1000;
  for (int i = 0; i < kAdded; ++i) message.AddExtension(protoaccel::diff::x_u32, rng());
  std::vector<uint8_t> buffer(size + 5 * kAdded + 64, kUntouched);
  google::protobuf::io::EpsCopyOutputStream stream(buffer.data(), static_cast<int>(size),
                                                   /*deterministic=*/false);
  message._InternalSerialize(buffer.data(), &stream);
  for (size_t i = size + kSlopBytes; i < buffer.size(); ++i) {
    ASSERT_EQ(buffer[i], kUntouched) << "written " << i - size << " bytes past the array";
  }
}

// A packed extension emptied after it was sized keeps its old length, so
// stock writes its tag and that length and no values. The inline writers
// that take its values otherwise read one before they test for the end.
// Also run against stock, which this describes.
TEST(DropInStaleSizeTest, EmptiedExtensionWritesWhatStockWrites) {
  for (int n : {1, 3, 20, 100}) {
    Packed2 message;
    for (int i = 0; i < n; ++i) message.AddExtension(protoaccel::diff::x_i32, i % 100);
    const std::string sized = message.SerializeAsString();  // caches the sizes
    message.ClearExtension(protoaccel::diff::x_i32);
    std::vector<uint8_t> buffer(sized.size(), 0);
    google::protobuf::io::EpsCopyOutputStream stream(
        buffer.data(), static_cast<int>(buffer.size()), /*deterministic=*/false);
    const uint8_t* end = message._InternalSerialize(buffer.data(), &stream);
    // One byte per value: the bytes before them stay.
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(buffer.data()), end - buffer.data()),
              sized.substr(0, sized.size() - n))
        << n << " values";
  }
}

// The first heap overflow found (the SSE4.1 and AVX2 decoders, on Zen 1): a
// packed field of 56 one-byte and 4 two-byte varints, then 40 continuation
// bytes, in a 124-byte message (0a 68, the field, 12 10 and 16 bytes;
// the report counted 126). Stock fails the parse with the 60 values
// before the bad varint appended; so must every instruction set, flat,
// chunked and over a CodedInputStream (ci/test-libprotobuf.sh runs this on
// stock, and on accel under valgrind for each level, to see that it also
// writes nothing past the field's storage). Also run against stock.
TEST(DropInMalformedTest, TerminatorPoorTailFailsAsStock) {
  std::string field(56, '\x01');
  for (int i = 0; i < 4; ++i) field += "\x81\x01";
  field += std::string(40, '\x80');
  const std::string wire = "\x0a" + std::string(1, static_cast<char>(field.size())) +
                           field + "\x12\x10" + std::string(16, 'p');
  ASSERT_EQ(wire.size(), 124u);
  auto expect_prefix = [](const protoaccel::diff::PackedThenBytes& message) {
    ASSERT_EQ(message.f_size(), 60);
    for (int i = 0; i < 60; ++i) EXPECT_EQ(message.f(i), i < 56 ? 1u : 129u) << i;
    EXPECT_EQ(message.pad(), "");
  };
  for (int chunk : {0, 1, 7, 64, 100}) {
    protoaccel::diff::PackedThenBytes message;
    google::protobuf::io::ArrayInputStream stream(wire.data(), static_cast<int>(wire.size()),
                                                  chunk == 0 ? -1 : chunk);
    EXPECT_FALSE(chunk == 0 ? message.ParseFromString(wire)
                            : message.ParseFromZeroCopyStream(&stream))
        << "chunk " << chunk;
    expect_prefix(message);
  }
  google::protobuf::DynamicMessageFactory factory;
  std::unique_ptr<google::protobuf::Message> dynamic(
      factory.GetPrototype(protoaccel::diff::PackedThenBytes::descriptor())->New());
  google::protobuf::io::ArrayInputStream stream(wire.data(), static_cast<int>(wire.size()));
  google::protobuf::io::CodedInputStream input(&stream);
  EXPECT_FALSE(google::protobuf::internal::WireFormat::ParseAndMergePartial(&input, dynamic.get()));
  protoaccel::diff::PackedThenBytes message;
  message.CopyFrom(*dynamic);
  expect_prefix(message);
}

INSTANTIATE_TEST_SUITE_P(Values, DropInTest,
                         ::testing::Values(uint64_t{128}, uint64_t{0}),
                         [](const ::testing::TestParamInfo<uint64_t>& info) {
                           return info.param ? "Below128" : "Random";
                         });

}  // namespace
