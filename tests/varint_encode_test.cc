// Every packed size and encoder of every level against the reference.
//
// Each check copies the values to the end of a page followed by an
// inaccessible one, so a kernel that reads past v + n faults, and encodes
// to exactly PackedSize() bytes before another inaccessible page, so a
// kernel that writes at or past the room the API promises faults (the room
// of 5 or 10 bytes a value that callers may give is larger still); the bytes
// before `out` are sentinels that must stay.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "reference.h"
#include "test_util.h"

namespace protoaccel {
namespace {

using internal::EncodeFn;
using internal::SizeFn;
using testing::GuardedArena;
using testing::RandomValueOfLength;

GuardedArena& InputArena() {
  static GuardedArena arena;
  return arena;
}

constexpr char kSentinel = '\x5a';
constexpr size_t kSentinels = 64;

// One kernel pair against the reference (and the sizes against the bytes).
template <typename T>
::testing::AssertionResult SameAsReference(SizeFn<T> size, EncodeFn<T> encode,
                                           uint64_t (*wire)(T),
                                           const std::vector<T>& values) {
  const size_t n = values.size();
  const std::string want = reference::Encode(values, wire);
  T* in = reinterpret_cast<T*>(InputArena().EndingAt(n * sizeof(T)));
  if (n > 0) std::memcpy(in, values.data(), n * sizeof(T));

  const size_t got_size = size(in, n);
  if (got_size != want.size()) {
    return ::testing::AssertionFailure()
           << n << " values: size " << got_size << ", want " << want.size();
  }
  // Exactly the promised room, sentinels before it, the guard page after.
  char* room = testing::OutputArena().EndingAt(want.size() + kSentinels);
  std::memset(room, kSentinel, want.size() + kSentinels);
  char* out = room + kSentinels;
  char* end = encode(in, n, out);
  if (end != out + want.size()) {
    return ::testing::AssertionFailure()
           << n << " values: wrote " << (end - out) << " bytes, want "
           << want.size();
  }
  for (size_t i = 0; i < want.size(); ++i) {
    if (out[i] != want[i]) {
      return ::testing::AssertionFailure()
             << n << " values: byte " << i << " is 0x" << std::hex
             << (out[i] & 0xff) << ", want 0x" << (want[i] & 0xff);
    }
  }
  for (size_t i = 0; i < kSentinels; ++i) {
    if (room[i] != kSentinel) {
      return ::testing::AssertionFailure()
             << n << " values: wrote " << (kSentinels - i)
             << " bytes before out";
    }
  }
  return ::testing::AssertionSuccess();
}

// The five kernel pairs, each with its reference wire function, and the
// inverse: a value of the type whose wire value is w, if there is one.
enum class Type { kUInt32, kInt32, kSInt32, kUInt64, kSInt64 };
constexpr Type kTypes[] = {Type::kUInt32, Type::kInt32, Type::kSInt32,
                           Type::kUInt64, Type::kSInt64};

const char* TypeName(Type t) {
  switch (t) {
    case Type::kUInt32: return "uint32";
    case Type::kInt32: return "int32";
    case Type::kSInt32: return "sint32";
    case Type::kUInt64: return "uint64";
    case Type::kSInt64: return "sint64";
  }
  return "?";
}

// Whether some value of type t has wire value w.
bool Representable(Type t, uint64_t w) {
  switch (t) {
    case Type::kUInt32:
    case Type::kSInt32:
      return w >> 32 == 0;
    case Type::kInt32:  // non-negative, or sign-extended negative
      return w >> 31 == 0 || w >> 31 == (~uint64_t{0} >> 31);
    default:
      return true;
  }
}

int64_t UnZigZag(uint64_t z) {
  return static_cast<int64_t>((z >> 1) ^ (0 - (z & 1)));
}

// The wire lengths a type has.
std::vector<int> Widths(Type t) {
  switch (t) {
    case Type::kUInt32:
    case Type::kSInt32:
      return {1, 2, 3, 4, 5};
    case Type::kInt32:
      return {1, 2, 3, 4, 5, 10};
    default:
      return {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  }
}

// A random wire value of exactly `length` bytes that type t has.
uint64_t WireOfLength(std::mt19937_64& rng, Type t, int length) {
  if (t == Type::kInt32) {
    if (length == 10) return static_cast<uint64_t>(int64_t{-1} - (rng() >> 33));
    if (length == 5) return (uint64_t{1} << 28) | (rng() & 0x7fffffff);
  }
  if ((t == Type::kUInt32 || t == Type::kSInt32) && length == 5) {
    return (uint64_t{1} << 28) | (rng() & 0xffffffff);
  }
  return RandomValueOfLength(rng, length);
}

class VarintEncodeTest : public testing::IsaTest {
 protected:
  // The kernels of type t on the values whose wire values are `wire`
  // (each representable in t).
  ::testing::AssertionResult Check(Type t, const std::vector<uint64_t>& wire) {
    const internal::VarintEncodeKernels& k = kernels().varint_encode;
    ::testing::AssertionResult r = ::testing::AssertionSuccess();
    switch (t) {
      case Type::kUInt32: {
        std::vector<uint32_t> v(wire.begin(), wire.end());
        r = SameAsReference(k.size_uint32, k.encode_uint32,
                            reference::WireUInt32, v);
        break;
      }
      case Type::kInt32: {
        std::vector<int32_t> v;
        for (uint64_t w : wire) v.push_back(static_cast<int32_t>(w));
        r = SameAsReference(k.size_int32, k.encode_int32, reference::WireInt32, v);
        break;
      }
      case Type::kSInt32: {
        std::vector<int32_t> v;
        for (uint64_t w : wire) v.push_back(static_cast<int32_t>(UnZigZag(w)));
        r = SameAsReference(k.size_sint32, k.encode_sint32,
                            reference::WireSInt32, v);
        break;
      }
      case Type::kUInt64:
        r = SameAsReference(k.size_uint64, k.encode_uint64,
                            reference::WireUInt64, wire);
        break;
      case Type::kSInt64: {
        std::vector<int64_t> v;
        for (uint64_t w : wire) v.push_back(UnZigZag(w));
        r = SameAsReference(k.size_sint64, k.encode_sint64,
                            reference::WireSInt64, v);
        break;
      }
    }
    if (!r) r << " (" << TypeName(t) << ")";
    return r;
  }

  // Every type for which all of `wire` is representable.
  ::testing::AssertionResult CheckAll(const std::vector<uint64_t>& wire) {
    for (Type t : kTypes) {
      bool all = true;
      for (uint64_t w : wire) all = all && Representable(t, w);
      if (!all) continue;
      ::testing::AssertionResult r = Check(t, wire);
      if (!r) return r;
    }
    return ::testing::AssertionSuccess();
  }
};

// One value of each wire length in an array of one-byte values, at every
// position of every length up to 130 (four blocks of 32 and a tail).
TEST_P(VarintEncodeTest, EveryWidthAtEveryPosition) {
  std::mt19937_64 rng(31);
  for (Type t : kTypes) {
    for (int length : Widths(t)) {
      for (size_t n = 0; n <= 130; ++n) {
        for (size_t at = 0; at < n; ++at) {
          std::vector<uint64_t> wire(n);
          for (auto& w : wire) w = rng() & 0x7f;
          wire[at] = WireOfLength(rng, t, length);
          ASSERT_TRUE(Check(t, wire)) << "length " << length << " at " << at;
        }
      }
    }
  }
}

// Arrays of one wire length throughout (each path of the block kernels on
// whole blocks, then the tails), and arrays of two alternating lengths.
TEST_P(VarintEncodeTest, UniformArrays) {
  std::mt19937_64 rng(33);
  for (Type t : kTypes) {
    for (int length : Widths(t)) {
      for (size_t n = 0; n <= 300; ++n) {
        std::vector<uint64_t> wire(n);
        for (auto& w : wire) w = WireOfLength(rng, t, length);
        ASSERT_TRUE(Check(t, wire)) << "length " << length << ", n " << n;
      }
    }
    for (int a : Widths(t)) {
      for (int b : Widths(t)) {
        for (size_t n : {31, 32, 33, 64, 100, 257}) {
          std::vector<uint64_t> wire(n);
          for (size_t i = 0; i < n; ++i) {
            wire[i] = WireOfLength(rng, t, i % 2 ? a : b);
          }
          ASSERT_TRUE(Check(t, wire)) << "lengths " << a << ", " << b;
        }
      }
    }
  }
}

// The smallest and largest value of each type, all the array long.
TEST_P(VarintEncodeTest, AllOneByteAndAllMax) {
  const internal::VarintEncodeKernels& k = kernels().varint_encode;
  for (size_t n = 0; n <= 300; ++n) {
    ASSERT_TRUE(SameAsReference(k.size_uint32, k.encode_uint32,
                                reference::WireUInt32,
                                std::vector<uint32_t>(n, 0)));
    ASSERT_TRUE(SameAsReference(k.size_uint32, k.encode_uint32,
                                reference::WireUInt32,
                                std::vector<uint32_t>(n, UINT32_MAX)));
    for (int32_t x : {0, 127, -1, INT32_MIN, INT32_MAX}) {
      ASSERT_TRUE(SameAsReference(k.size_int32, k.encode_int32,
                                  reference::WireInt32,
                                  std::vector<int32_t>(n, x)));
    }
    for (int32_t x : {0, -64, 63, INT32_MIN, INT32_MAX}) {
      ASSERT_TRUE(SameAsReference(k.size_sint32, k.encode_sint32,
                                  reference::WireSInt32,
                                  std::vector<int32_t>(n, x)));
    }
    for (uint64_t x : {uint64_t{0}, uint64_t{127}, UINT64_MAX}) {
      ASSERT_TRUE(SameAsReference(k.size_uint64, k.encode_uint64,
                                  reference::WireUInt64,
                                  std::vector<uint64_t>(n, x)));
    }
    for (int64_t x : {int64_t{0}, int64_t{-64}, INT64_MIN, INT64_MAX}) {
      ASSERT_TRUE(SameAsReference(k.size_sint64, k.encode_sint64,
                                  reference::WireSInt64,
                                  std::vector<int64_t>(n, x)));
    }
  }
}

// The wire values where the length changes (2^7k - 1 and 2^7k), the top
// bits of each half, and every power of two and its neighbours; for the
// signed types they come out as INT32_MIN, -1, INT64_MIN, the ZigZag
// boundaries -2^(7k-1) and 2^(7k-1), and so on.
std::vector<uint64_t> BoundaryWires() {
  std::vector<uint64_t> wire = {0, 1, 0x7f, 0x80, 0x3fff, 0x4000,
                                0x7fffffff, 0x80000000, 0xffffffff,
                                0x100000000, UINT64_MAX, UINT64_MAX - 1,
                                uint64_t{1} << 63, (uint64_t{1} << 63) - 1,
                                0xffffffff80000000};  // INT32_MIN, sign-extended
  for (int k = 1; k <= 9; ++k) {
    wire.push_back((uint64_t{1} << (7 * k)) - 1);
    wire.push_back(uint64_t{1} << (7 * k));
  }
  for (int bits = 1; bits <= 64; ++bits) {
    const uint64_t top = uint64_t{1} << (bits - 1);
    wire.push_back(top);
    wire.push_back(top - 1);
    wire.push_back(top | (top - 1));
    wire.push_back(~top);
  }
  std::sort(wire.begin(), wire.end());
  wire.erase(std::unique(wire.begin(), wire.end()), wire.end());
  return wire;
}

TEST_P(VarintEncodeTest, BoundaryValues) {
  const std::vector<uint64_t> all = BoundaryWires();
  for (Type t : kTypes) {
    std::vector<uint64_t> wire;
    for (uint64_t w : all) {
      if (Representable(t, w)) wire.push_back(w);
    }
    // Every prefix of the list, so each value ends an array once.
    for (size_t n = 0; n <= wire.size(); ++n) {
      ASSERT_TRUE(Check(t, std::vector<uint64_t>(wire.begin(), wire.begin() + n)));
    }
    // Each value at every position of arrays around the block sizes, among
    // zeros and among copies of the largest value of the type.
    const uint64_t largest =
        t == Type::kUInt32 || t == Type::kSInt32 ? 0xffffffff : UINT64_MAX;
    for (uint64_t w : wire) {
      for (size_t n : {1, 9, 33, 65}) {
        for (size_t at = 0; at < n; ++at) {
          std::vector<uint64_t> zeros(n, 0);
          zeros[at] = w;
          ASSERT_TRUE(Check(t, zeros)) << std::hex << w << " at " << at;
          std::vector<uint64_t> large(n, largest);
          large[at] = w;
          ASSERT_TRUE(Check(t, large)) << std::hex << w << " at " << at;
        }
      }
    }
  }
}

// Random arrays: over a million values per type, of every length mix.
TEST_P(VarintEncodeTest, RandomArrays) {
  std::mt19937_64 rng(32);
  for (Type t : kTypes) {
    const std::vector<int> widths = Widths(t);
    size_t values = 0;
    for (int round = 0; values < 1200000; ++round) {
      // Mostly short arrays (the tails), some long ones (the block loops).
      const size_t n = rng() % (round % 4 != 3 ? 300 : 30000);
      // Lengths up to a maximum, or mostly short with a few long values.
      const size_t max_width = 1 + round % widths.size();
      const bool sparse = round % 3 == 0;
      std::vector<uint64_t> wire(n);
      for (auto& w : wire) {
        size_t i = rng() % max_width;
        if (sparse && rng() % 16 != 0) i = 0;
        w = WireOfLength(rng, t, widths[i]);
      }
      ASSERT_TRUE(Check(t, wire)) << "round " << round;
      values += n;
    }
  }
}

// The public functions (on the level in use), including the two that share
// another type's kernel: Int64 on the UInt64 one.
TEST(VarintEncodeApiTest, PublicFunctions) {
  std::mt19937_64 rng(34);
  for (size_t n : {0, 1, 5, 40, 1000}) {
    std::vector<uint64_t> wire(n);
    for (auto& w : wire) w = RandomValueOfLength(rng, 1 + rng() % 10);
    const std::vector<int64_t> i64(wire.begin(), wire.end());
    std::vector<int32_t> i32;
    for (uint64_t w : wire) i32.push_back(static_cast<int32_t>(w));
    const std::vector<uint32_t> u32(i32.begin(), i32.end());

    std::string want = reference::Encode(wire, reference::WireUInt64);
    std::vector<char> out(10 * n + 1);
    EXPECT_EQ(PackedSizeUInt64(wire.data(), n), want.size());
    EXPECT_EQ(std::string(out.data(), EncodeUInt64(wire.data(), n, out.data())), want);

    auto int64_wire = [](int64_t v) { return static_cast<uint64_t>(v); };
    want = reference::Encode<int64_t>(i64, int64_wire);
    EXPECT_EQ(PackedSizeInt64(i64.data(), n), want.size());
    EXPECT_EQ(std::string(out.data(), EncodeInt64(i64.data(), n, out.data())), want);

    want = reference::Encode(i64, reference::WireSInt64);
    EXPECT_EQ(PackedSizeSInt64(i64.data(), n), want.size());
    EXPECT_EQ(std::string(out.data(), EncodeSInt64(i64.data(), n, out.data())), want);

    want = reference::Encode(u32, reference::WireUInt32);
    EXPECT_EQ(PackedSizeUInt32(u32.data(), n), want.size());
    EXPECT_EQ(std::string(out.data(), EncodeUInt32(u32.data(), n, out.data())), want);

    want = reference::Encode(i32, reference::WireInt32);
    EXPECT_EQ(PackedSizeInt32(i32.data(), n), want.size());
    EXPECT_EQ(std::string(out.data(), EncodeInt32(i32.data(), n, out.data())), want);

    want = reference::Encode(i32, reference::WireSInt32);
    EXPECT_EQ(PackedSizeSInt32(i32.data(), n), want.size());
    EXPECT_EQ(std::string(out.data(), EncodeSInt32(i32.data(), n, out.data())), want);
  }
}

PROTOACCEL_INSTANTIATE_FOR_EVERY_ISA(VarintEncodeTest);

}  // namespace
}  // namespace protoaccel
