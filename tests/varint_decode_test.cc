// Every decoder of every level against the reference transcription of
// protobuf 3.21.12's packed loop.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "reference.h"
#include "test_util.h"

namespace protoaccel {
namespace {

using internal::DecodeFn;
using testing::GuardedBuffer;
using testing::RandomValueOfLength;
using testing::Varint;
using testing::VarintOfLength;

std::string Hex(const char* p, const char* end) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (; p < end && out.size() < 3 * 96; ++p) {
    out += kDigits[static_cast<uint8_t>(*p) >> 4];
    out += kDigits[static_cast<uint8_t>(*p) & 15];
    out += ' ';
  }
  if (p < end) out += "...";
  return out;
}

// Runs one decoder on [p, end) and compares everything it promises with the
// reference: status, position, count, values, and no write past the room
// MaxDecodedValues() asks for (the output ends at a guard page).
template <typename T>
::testing::AssertionResult SameAsReference(DecodeFn<T> decode,
                                           T (*convert)(uint64_t),
                                           const char* type, const char* p,
                                           const char* end, const char* limit) {
  const reference::Decoded want = reference::Decode(p, end, limit);
  const size_t room =
      p < end ? reference::CountVarints(p, end - p) +
                    (static_cast<uint8_t>(end[-1]) >> 7)
              : 0;
  // Exactly that room, then the guard: a write past it faults.
  T* out = reinterpret_cast<T*>(testing::OutputArena().EndingAt(room * sizeof(T)));

  const DecodeResult got = decode(p, end, limit, out);
  auto fail = [&]() {
    return ::testing::AssertionFailure()
           << type << " on " << (end - p) << " bytes (limit +" << (limit - end)
           << "): " << Hex(p, limit) << "\n  ";
  };
  if (got.ok != want.ok) return fail() << "ok " << got.ok << ", want " << want.ok;
  if (got.ptr != want.ptr) {
    return fail() << "ptr at " << (got.ptr - p) << ", want " << (want.ptr - p);
  }
  if (got.count != want.values.size()) {
    return fail() << "count " << got.count << ", want " << want.values.size();
  }
  for (size_t i = 0; i < got.count; ++i) {
    if (!(out[i] == convert(want.values[i]))) {
      return fail() << "value " << i << " is " << +out[i] << ", want "
                    << +convert(want.values[i]) << " (varint "
                    << want.values[i] << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

class VarintDecodeTest : public testing::IsaTest {
 protected:
  // All five kernels (every output type) on the same bytes.
  ::testing::AssertionResult Check(const char* p, const char* end,
                                   const char* limit) {
    const internal::VarintDecodeKernels& k = kernels().varint_decode;
    ::testing::AssertionResult r =
        SameAsReference(k.low32, reference::AsUInt32, "uint32", p, end, limit);
    if (r) r = SameAsReference(k.full64, reference::AsUInt64, "uint64", p, end, limit);
    if (r) r = SameAsReference(k.zigzag32, reference::AsSInt32, "sint32", p, end, limit);
    if (r) r = SameAsReference(k.zigzag64, reference::AsSInt64, "sint64", p, end, limit);
    if (r) r = SameAsReference(k.boolean, reference::AsBool, "bool", p, end, limit);
    return r;
  }

  // The bytes placed against a guard page, decoded with limit == end.
  ::testing::AssertionResult CheckGuarded(const std::string& bytes) {
    GuardedBuffer buffer(bytes);
    return Check(buffer.data(), buffer.end(), buffer.end());
  }

  // The bytes at every alignment of a 64-byte line, with `slop` readable
  // bytes past the end, as protobuf's buffers have.
  ::testing::AssertionResult CheckAligned(const std::string& bytes,
                                          size_t slop, std::mt19937_64& rng) {
    std::vector<char> storage(bytes.size() + slop + 128);
    for (auto& c : storage) c = static_cast<char>(rng());
    const uintptr_t base = reinterpret_cast<uintptr_t>(storage.data());
    char* aligned = storage.data() + ((64 - base % 64) % 64);
    for (size_t shift = 0; shift < 64; shift += 7) {
      std::memcpy(aligned + shift, bytes.data(), bytes.size());
      const char* p = aligned + shift;
      auto r = Check(p, p + bytes.size(), p + bytes.size() + slop);
      if (!r) return r << " (alignment " << shift << ")";
    }
    return ::testing::AssertionSuccess();
  }
};

TEST_P(VarintDecodeTest, EmptyRange) {
  const char byte = 0;
  const internal::VarintDecodeKernels& k = kernels().varint_decode;
  uint32_t out;
  const DecodeResult r = k.low32(&byte, &byte, &byte + 1, &out);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.ptr, &byte);
  EXPECT_EQ(r.count, 0u);
}

// A varint of each length, minimal and padded, after and before runs of
// one-byte varints of every length that matters to a 16-, 32- or 64-byte
// block.
TEST_P(VarintDecodeTest, EveryLengthAtEveryOffset) {
  std::mt19937_64 rng(1);
  const int kSuffixes[] = {0, 1, 2, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65};
  for (int length = 1; length <= 10; ++length) {
    for (int prefix = 0; prefix <= 70; ++prefix) {
      for (int suffix : kSuffixes) {
        std::string bytes;
        for (int i = 0; i < prefix; ++i) bytes += Varint(rng() & 0x7f);
        bytes += VarintOfLength(RandomValueOfLength(rng, length), length);
        for (int i = 0; i < suffix; ++i) bytes += Varint(rng() & 0x7f);
        ASSERT_TRUE(CheckGuarded(bytes)) << "length " << length;
      }
      std::string bytes(prefix, '\x01');
      bytes += VarintOfLength(rng(), length);  // non-minimal when high bits are 0
      ASSERT_TRUE(CheckAligned(bytes, 16, rng));
    }
  }
}

// Every buffer length 0..256 of mixed widths, the last varint usually cut:
// with limit == end it fails as truncated, with slop it runs past `end`.
TEST_P(VarintDecodeTest, EveryBufferLength) {
  std::mt19937_64 rng(2);
  for (int max_length : {1, 2, 3, 5, 10}) {
    for (size_t size = 0; size <= 256; ++size) {
      std::string bytes;
      while (bytes.size() < size) {
        const int length = 1 + static_cast<int>(rng() % max_length);
        bytes += Varint(RandomValueOfLength(rng, length));
      }
      bytes.resize(size);
      ASSERT_TRUE(CheckGuarded(bytes)) << "size " << size;
      ASSERT_TRUE(CheckAligned(bytes, 16, rng)) << "size " << size;
    }
  }
}

// An 11-byte varint (a continuation bit on the 10th byte) at every position:
// the values before it are written, then the error.
TEST_P(VarintDecodeTest, ElevenBytesAtEveryPosition) {
  std::mt19937_64 rng(3);
  for (int width : {1, 2, 5, 10}) {
    for (int position = 0; position <= 80; ++position) {
      std::string bytes;
      for (int i = 0; i < position; ++i) {
        bytes += Varint(RandomValueOfLength(rng, width));
      }
      bytes += std::string(10, '\x80') + '\x01';
      for (int i = 0; i < 20; ++i) bytes += Varint(rng() & 0x7f);
      ASSERT_TRUE(CheckGuarded(bytes));
      ASSERT_TRUE(CheckAligned(bytes, 16, rng));
    }
  }
}

// Runs of 10-byte varints (negative int32s), which AVX-512 takes eight at
// a time, broken by one varint of every other length (or 11 bytes, an
// error) at every position, so that a run ends and resumes at every offset
// of its groups and blocks; then the same runs cut at every byte.
TEST_P(VarintDecodeTest, TenByteRunsBroken) {
  std::mt19937_64 rng(8);
  for (int other = 1; other <= 11; ++other) {
    for (int position = 0; position <= 40; ++position) {
      std::string bytes;
      for (int i = 0; i < 48; ++i) {
        if (i == position) {
          bytes += other == 11 ? std::string(10, '\x80') + '\x01'
                               : VarintOfLength(RandomValueOfLength(rng, other), other);
        }
        // Padded to 10 bytes, bits 1-6 of the 10th (which count for
        // nothing) set at random.
        std::string varint = VarintOfLength(RandomValueOfLength(rng, 1 + rng() % 10), 10);
        varint[9] = static_cast<char>(varint[9] | (rng() & 0x7e));
        bytes += varint;
      }
      ASSERT_TRUE(CheckGuarded(bytes)) << "other " << other << " at " << position;
      ASSERT_TRUE(CheckAligned(bytes, 16, rng)) << "other " << other << " at " << position;
    }
  }
  std::string run;
  for (int i = 0; i < 40; ++i) run += Varint(static_cast<uint64_t>(-1 - i));
  for (size_t cut = 0; cut <= run.size(); ++cut) {
    ASSERT_TRUE(CheckGuarded(run.substr(0, cut))) << "cut " << cut;
    ASSERT_TRUE(CheckAligned(run.substr(0, cut), 16, rng)) << "cut " << cut;
  }
}

// Valid data puts a terminator in every 10 bytes; malformed data need not.
// A block of any kind (one-byte, one- and two-byte, longer varints) ending
// at every offset, then a tail with 0 to 4 terminators among 9 to 80
// continuation bytes: a decoder that writes spare slots past a block's last
// value, counting on the varints that valid data would have after it, runs
// off the room (the first reproducer: 56 x 01, 4 x 81 01, 40 x 80).
TEST_P(VarintDecodeTest, TerminatorPoorTails) {
  std::mt19937_64 rng(9);
  const int kRuns[] = {9, 10, 39, 40, 41, 63, 64, 80};
  const std::string first = std::string(56, '\x01') + "\x81\x01\x81\x01\x81\x01\x81\x01";
  ASSERT_TRUE(CheckGuarded(first + std::string(40, '\x80')));
  for (int width : {1, 2, 3, 5, 10, 0}) {  // 0: one or two bytes, mixed
    for (int head = 0; head <= 140; ++head) {
      std::string bytes;
      while (static_cast<int>(bytes.size()) < head) {
        const int length = width != 0 ? width : 1 + static_cast<int>(rng() % 2);
        bytes += Varint(RandomValueOfLength(rng, length));
      }
      bytes.resize(head);  // a cut varint continues into the tail
      for (int run : kRuns) {
        for (int terminators = 0; terminators <= 4; ++terminators) {
          std::string tail(run, '\x80');
          for (int i = 0; i < terminators; ++i) tail[rng() % run] = '\x01';
          ASSERT_TRUE(CheckGuarded(bytes + tail))
              << "width " << width << ", head " << head << ", run " << run;
          ASSERT_TRUE(CheckAligned(bytes + tail, 16, rng));
        }
      }
    }
  }
}

// Cut a stream at every byte: whatever was whole is decoded, then the cut
// varint fails (limit == end) or reads on into the slop.
TEST_P(VarintDecodeTest, CutAtEveryByte) {
  std::mt19937_64 rng(4);
  std::string stream;
  for (int i = 0; i < 40; ++i) {
    const int length = 1 + static_cast<int>(rng() % 10);
    stream += Varint(RandomValueOfLength(rng, length));
  }
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    const std::string bytes = stream.substr(0, cut);
    ASSERT_TRUE(CheckGuarded(bytes)) << "cut " << cut;
    ASSERT_TRUE(CheckAligned(bytes, 16, rng)) << "cut " << cut;
  }
}

// Of the 10th byte only bit 0 counts; with its top bit set it is an error.
TEST_P(VarintDecodeTest, TenthByte) {
  std::mt19937_64 rng(5);
  for (int tenth = 0; tenth < 256; ++tenth) {
    for (char fill : {'\x80', '\xff', '\xaa'}) {
      std::string bytes = "\x05" + std::string(9, fill) +
                          static_cast<char>(tenth) + "\x07";
      ASSERT_TRUE(CheckGuarded(bytes)) << "tenth byte " << tenth;
      ASSERT_TRUE(CheckAligned(bytes, 16, rng)) << "tenth byte " << tenth;
    }
  }
}

// The last varint starts before `end` and ends after it, in the slop: it is
// decoded and `ptr` lands past `end`, as in protobuf's segment loop.
TEST_P(VarintDecodeTest, OvershootIntoSlop) {
  std::mt19937_64 rng(6);
  for (int length = 2; length <= 10; ++length) {
    for (int inside = 1; inside < length; ++inside) {
      for (int prefix : {0, 3, 15, 16, 31, 63, 64}) {
        std::string bytes;
        for (int i = 0; i < prefix; ++i) bytes += Varint(rng() & 0x7f);
        bytes += VarintOfLength(RandomValueOfLength(rng, length), length);
        const size_t end = bytes.size() - (length - inside);
        while (bytes.size() < end + 16) bytes += Varint(rng() & 0x7f);
        GuardedBuffer buffer(bytes);
        ASSERT_TRUE(Check(buffer.data(), buffer.data() + end, buffer.end()));
      }
    }
  }
}

// Long random streams, cut into segments at random points as protobuf's
// chunked input cuts them, each with up to 16 readable bytes after it; the
// stream ends against a guard page. Ten million values per level.
TEST_P(VarintDecodeTest, RandomSegments) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 500; ++round) {
    const int max_length = 1 + round % 10;
    const bool mixed = round % 3 == 0;
    std::string stream;
    for (int i = 0; i < 20000; ++i) {
      const int length = mixed ? 1 + static_cast<int>(rng() % max_length)
                               : max_length;
      stream += Varint(RandomValueOfLength(rng, length));
    }
    GuardedBuffer buffer(stream);
    const char* p = buffer.data();
    while (p < buffer.end()) {
      const char* end = std::min(buffer.end(), p + 1 + rng() % 3000);
      const char* limit = std::min(buffer.end(), end + 16);
      ASSERT_TRUE(Check(p, end, limit)) << "round " << round;
      const reference::Decoded want = reference::Decode(p, end, limit);
      if (!want.ok) break;  // the last varint runs into the guard page
      p = want.ptr;
    }
  }
}

PROTOACCEL_INSTANTIATE_FOR_EVERY_ISA(VarintDecodeTest);

}  // namespace
}  // namespace protoaccel
