// The kernels against the system's own libprotobuf (Debian's 3.21.12
// libprotobuf.so.32), which is what "the same as stock" means.
//
// The packed parsers are called directly, on a flat buffer: a length prefix,
// the field's bytes, then at least 16 more bytes (protobuf may read a
// varint on past the field's end). The kernel model of such a call is a
// decode of [field, field + length), the following bytes readable, that
// succeeds if the last varint ends exactly at the field's end. The values
// before a failure count too: protobuf has appended them.

#include <google/protobuf/parse_context.h>
#include <google/protobuf/repeated_field.h>
#include <google/protobuf/stubs/common.h>
#include <google/protobuf/wire_format_lite.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"

namespace protoaccel {
namespace {

namespace pb = ::google::protobuf;
using internal::VarintDecodeKernels;
using testing::RandomValueOfLength;
using testing::Varint;
using testing::VarintOfLength;

template <typename T>
struct Parsed {
  bool ok;
  std::vector<T> values;
  bool operator==(const Parsed& o) const {
    return ok == o.ok && values == o.values;
  }
};

template <typename T>
std::ostream& operator<<(std::ostream& os, const Parsed<T>& p) {
  os << (p.ok ? "ok [" : "fail [");
  for (const T& v : p.values) os << +v << " ";
  return os << "]";
}

// One packed field type: stock's exported parser, and the kernel that
// stands for it (by member, so that it can be taken from any level).
template <typename T, typename Out>
struct PackedType {
  const char* (*stock)(void*, const char*, pb::internal::ParseContext*);
  internal::DecodeFn<Out> VarintDecodeKernels::*kernel;
};

const PackedType<int32_t, uint32_t> kInt32{pb::internal::PackedInt32Parser,
                                           &VarintDecodeKernels::low32};
const PackedType<uint32_t, uint32_t> kUInt32{pb::internal::PackedUInt32Parser,
                                             &VarintDecodeKernels::low32};
const PackedType<int, uint32_t> kEnum{pb::internal::PackedEnumParser,
                                      &VarintDecodeKernels::low32};
const PackedType<int64_t, uint64_t> kInt64{pb::internal::PackedInt64Parser,
                                           &VarintDecodeKernels::full64};
const PackedType<uint64_t, uint64_t> kUInt64{pb::internal::PackedUInt64Parser,
                                             &VarintDecodeKernels::full64};
const PackedType<int32_t, int32_t> kSInt32{pb::internal::PackedSInt32Parser,
                                           &VarintDecodeKernels::zigzag32};
const PackedType<int64_t, int64_t> kSInt64{pb::internal::PackedSInt64Parser,
                                           &VarintDecodeKernels::zigzag64};
const PackedType<bool, bool> kBool{pb::internal::PackedBoolParser,
                                   &VarintDecodeKernels::boolean};

// Length prefix, field, then `after` padded to at least 16 bytes.
struct Input {
  Input(const std::string& field, std::string after) {
    if (after.size() < 16) after.resize(16, '\0');
    const std::string prefix = Varint(field.size());
    bytes = prefix + field + after;
    field_offset = prefix.size();
    field_size = field.size();
  }
  const char* field() const { return bytes.data() + field_offset; }
  const char* field_end() const { return field() + field_size; }
  std::string bytes;
  size_t field_offset, field_size;
};

template <typename T, typename Out>
Parsed<T> ParseWithStock(const PackedType<T, Out>& type, const Input& input) {
  pb::RepeatedField<T> repeated;
  const char* ptr;
  pb::internal::ParseContext ctx(64, false, &ptr, pb::StringPiece(input.bytes));
  ptr = type.stock(&repeated, ptr, &ctx);
  return {ptr == input.field_end(), {repeated.begin(), repeated.end()}};
}

template <typename T, typename Out>
Parsed<T> ParseWithKernel(const PackedType<T, Out>& type,
                          const internal::Kernels& kernels,
                          const Input& input) {
  const char* p = input.field();
  const char* end = input.field_end();
  if (p == end) return {true, {}};
  std::unique_ptr<Out[]> out(new Out[MaxDecodedValues(p, end)]);
  const DecodeResult r = (kernels.varint_decode.*type.kernel)(
      p, end, input.bytes.data() + input.bytes.size(), out.get());
  Parsed<T> parsed{r.ok && r.ptr == end, {}};
  for (size_t i = 0; i < r.count; ++i) {
    parsed.values.push_back(static_cast<T>(out[i]));
  }
  return parsed;
}

class StockOracleTest : public testing::IsaTest {
 protected:
  // Stock, the kernel and (if given) the pinned expectation agree.
  template <typename T, typename Out>
  void Expect(const PackedType<T, Out>& type, const std::string& field,
              const std::string& after, const Parsed<T>* pinned = nullptr) {
    const Input input(field, after);
    const Parsed<T> stock = ParseWithStock(type, input);
    const Parsed<T> kernel = ParseWithKernel(type, kernels(), input);
    if (pinned != nullptr) {
      ASSERT_EQ(stock, *pinned) << "the stock library no longer behaves as pinned";
    }
    ASSERT_EQ(kernel, stock) << "field of " << field.size() << " bytes";
  }
  template <typename T, typename Out>
  void ExpectPinned(const PackedType<T, Out>& type, const std::string& field,
                    bool ok, std::vector<T> values,
                    const std::string& after = "") {
    const Parsed<T> pinned{ok, std::move(values)};
    Expect(type, field, after, &pinned);
  }
};

std::string Varints(std::initializer_list<uint64_t> values) {
  std::string out;
  for (uint64_t v : values) out += Varint(v);
  return out;
}

constexpr uint64_t kAllOnes = ~uint64_t{0};

// Values observed from Debian's libprotobuf.so.32 3.21.12-3+deb12u1, kept
// here so that a change on either side shows.
TEST_P(StockOracleTest, PinnedTenthByte) {
  const std::string nine_ff(9, '\xff');
  ExpectPinned(kUInt64, nine_ff + '\x7f', true, {kAllOnes});
  ExpectPinned(kUInt64, nine_ff + '\x01', true, {kAllOnes});
  ExpectPinned(kUInt64, nine_ff + '\x02', true, {kAllOnes >> 1});
  ExpectPinned(kUInt64, nine_ff + '\x00', true, {kAllOnes >> 1});
  ExpectPinned(kUInt64, std::string(9, '\x80') + '\x00', true, {0});
  ExpectPinned(kUInt64, std::string(9, '\x80') + '\x7e', true, {0});
  ExpectPinned(kSInt64, nine_ff + '\x01', true,
               {std::numeric_limits<int64_t>::min()});
  ExpectPinned(kBool, std::string(9, '\x80') + '\x7e', true, {false});
  ExpectPinned(kBool, std::string(9, '\x80') + '\x01', true, {true});
}

TEST_P(StockOracleTest, PinnedElevenBytes) {
  ExpectPinned(kUInt64, std::string(10, '\x80') + '\x01', false, {});
  ExpectPinned(kUInt64, "\x05" + std::string(10, '\xff') + '\x01', false, {5});
  ExpectPinned(kInt32, "\x01\x02" + std::string(10, '\x81') + '\x00', false,
               {1, 2});
}

TEST_P(StockOracleTest, PinnedConversions) {
  ExpectPinned(kBool, Varints({2, uint64_t{1} << 32, 0, uint64_t{1} << 63}),
               true, {true, true, false, true});
  ExpectPinned(kUInt32, Varints({(uint64_t{1} << 32) + 5}), true, {5u});
  ExpectPinned(kInt32, Varints({0xffffffff}), true, {-1});
  ExpectPinned(kInt32, Varints({kAllOnes}), true, {-1});
  ExpectPinned(kEnum, Varints({kAllOnes, (uint64_t{1} << 32) + 7}), true,
               {-1, 7});
  ExpectPinned(kSInt32, Varints({(uint64_t{1} << 32) + 3}), true, {-2});
  ExpectPinned(kSInt32, Varints({kAllOnes}), true,
               {std::numeric_limits<int32_t>::min()});
  ExpectPinned(kSInt64, Varints({1, 2, 3}), true, {-1, 1, -2});
}

// A varint cut by the field's end is read on from the bytes after it; the
// values before it are kept, and the field fails.
TEST_P(StockOracleTest, PinnedCutAtTheEnd) {
  ExpectPinned(kUInt32, "\x01\x80", false, {1, 0});
  ExpectPinned(kUInt32, "\x01\x81", false, {1, 129}, "\x01");
  ExpectPinned(kUInt32, "", true, {});
}

// Truncation at every byte of a stream of every width.
TEST_P(StockOracleTest, CutAtEveryByte) {
  std::mt19937_64 rng(41);
  std::string stream;
  for (int i = 0; i < 30; ++i) {
    const int length = 1 + static_cast<int>(rng() % 10);
    stream += Varint(RandomValueOfLength(rng, length));
  }
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    const std::string field = stream.substr(0, cut);
    const std::string after = stream.substr(cut);
    Expect(kUInt32, field, after);
    Expect(kInt64, field, after);
    Expect(kSInt32, field, after);
    Expect(kSInt64, field, "");
    Expect(kBool, field, after);
    Expect(kEnum, field, "");
    if (HasFatalFailure()) return;
  }
}

// Random fields of every type, some broken: a cut, an 11-byte varint, or a
// 10th byte with high bits.
TEST_P(StockOracleTest, RandomFields) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 3000; ++round) {
    const int max_length = 1 + round % 10;
    std::string field;
    const size_t n = rng() % (round % 50 == 0 ? 3000 : 40);
    for (size_t i = 0; i < n; ++i) {
      const int length = 1 + static_cast<int>(rng() % max_length);
      if (length == 10 && rng() % 4 == 0) {
        field += std::string(9, '\xff') + static_cast<char>(rng() & 0x7f);
      } else {
        field += VarintOfLength(RandomValueOfLength(rng, length), length);
      }
    }
    switch (rng() % 4) {
      case 0:
        if (!field.empty()) field.resize(rng() % field.size());
        break;
      case 1:
        field.insert(rng() % (field.size() + 1), std::string(10, '\x80') + '\x01');
        break;
      default:
        break;
    }
    std::string after;
    for (int i = 0; i < 16; ++i) after += static_cast<char>(rng());
    Expect(kInt32, field, after);
    Expect(kUInt32, field, after);
    Expect(kEnum, field, after);
    Expect(kInt64, field, after);
    Expect(kUInt64, field, after);
    Expect(kSInt32, field, after);
    Expect(kSInt64, field, after);
    Expect(kBool, field, after);
    if (HasFatalFailure()) return;
  }
}

// UTF-8: IsStructurallyValidUTF8 and UTF8SpnStructurallyValid of the stock
// library on every string of up to three bytes, every four-byte string with
// a four-byte lead, and errors inside long text (past stock's ASCII skip).
class StockUtf8Test : public testing::IsaTest {
 protected:
  ::testing::AssertionResult Same(const char* p, size_t n) {
    const bool stock_valid =
        pb::internal::IsStructurallyValidUTF8(p, static_cast<int>(n));
    const size_t stock_prefix = static_cast<size_t>(
        pb::internal::UTF8SpnStructurallyValid(pb::StringPiece(p, n)));
    const internal::Utf8Kernels& k = kernels().utf8;
    if (k.validate(p, n) != stock_valid || k.valid_prefix(p, n) != stock_prefix) {
      return ::testing::AssertionFailure()
             << "n " << n << ": stock valid " << stock_valid << " prefix "
             << stock_prefix << "; kernel " << k.validate(p, n) << " "
             << k.valid_prefix(p, n);
    }
    return ::testing::AssertionSuccess();
  }
};

TEST_P(StockUtf8Test, AllStringsUpToFourBytes) {
  char s[4];
  for (int a = 0; a < 256; ++a) {
    s[0] = static_cast<char>(a);
    ASSERT_TRUE(Same(s, 1));
    for (int b = 0; b < 256; ++b) {
      s[1] = static_cast<char>(b);
      ASSERT_TRUE(Same(s, 2));
      for (int c = 0; c < 256; ++c) {
        s[2] = static_cast<char>(c);
        ASSERT_TRUE(Same(s, 3));
        if (a < 0xf0 || a > 0xf4) continue;
        for (int d = 0; d < 256; ++d) {
          s[3] = static_cast<char>(d);
          ASSERT_TRUE(Same(s, 4));
        }
      }
    }
  }
}

TEST_P(StockUtf8Test, ErrorsInsideText) {
  std::mt19937_64 rng(43);
  const char* kPieces[] = {"abcdefgh", "x", "\xc3\xa9", "\xe2\x82\xac",
                           "\xf0\x9f\x98\x80"};
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const size_t size = rng() % 200;
    while (text.size() < size) text += kPieces[rng() % 5];
    if (!text.empty() && rng() % 4 != 0) {
      text[rng() % text.size()] = static_cast<char>(rng());
    }
    ASSERT_TRUE(Same(text.data(), text.size())) << "round " << round;
  }
}

// Sizes: WireFormatLite::*Size(const RepeatedField&), out of line in the
// stock library; bytes: stock's inline array writers.
class StockEncodeTest : public testing::IsaTest {};

TEST_P(StockEncodeTest, SizesAndBytes) {
  using WFL = pb::internal::WireFormatLite;
  const internal::VarintEncodeKernels& k = kernels().varint_encode;
  std::mt19937_64 rng(44);
  for (int round = 0; round < 500; ++round) {
    const size_t n = 1 + rng() % 200;
    pb::RepeatedField<uint32_t> u32;
    pb::RepeatedField<int32_t> i32;
    pb::RepeatedField<uint64_t> u64;
    pb::RepeatedField<int64_t> i64;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t v = RandomValueOfLength(rng, 1 + rng() % (1 + round % 10));
      u32.Add(static_cast<uint32_t>(v));
      i32.Add(static_cast<int32_t>(v));
      u64.Add(v);
      i64.Add(static_cast<int64_t>(v));
    }
    ASSERT_EQ(k.size_uint32(u32.data(), n), WFL::UInt32Size(u32));
    ASSERT_EQ(k.size_int32(i32.data(), n), WFL::Int32Size(i32));
    ASSERT_EQ(k.size_sint32(i32.data(), n), WFL::SInt32Size(i32));
    ASSERT_EQ(k.size_uint64(u64.data(), n), WFL::UInt64Size(u64));
    ASSERT_EQ(k.size_uint64(reinterpret_cast<const uint64_t*>(i64.data()), n),
              WFL::Int64Size(i64));
    ASSERT_EQ(k.size_sint64(i64.data(), n), WFL::SInt64Size(i64));

    std::vector<uint8_t> want(10 * n), got(10 * n);
    auto same = [&](uint8_t* want_end, char* got_end) {
      return want_end - want.data() == got_end - reinterpret_cast<char*>(got.data()) &&
             std::memcmp(want.data(), got.data(), want_end - want.data()) == 0;
    };
    char* out = reinterpret_cast<char*>(got.data());
    ASSERT_TRUE(same(WFL::WriteUInt32NoTagToArray(u32, want.data()),
                     k.encode_uint32(u32.data(), n, out)));
    ASSERT_TRUE(same(WFL::WriteInt32NoTagToArray(i32, want.data()),
                     k.encode_int32(i32.data(), n, out)));
    ASSERT_TRUE(same(WFL::WriteSInt32NoTagToArray(i32, want.data()),
                     k.encode_sint32(i32.data(), n, out)));
    ASSERT_TRUE(same(WFL::WriteUInt64NoTagToArray(u64, want.data()),
                     k.encode_uint64(u64.data(), n, out)));
    ASSERT_TRUE(same(WFL::WriteSInt64NoTagToArray(i64, want.data()),
                     k.encode_sint64(i64.data(), n, out)));
  }
}

PROTOACCEL_INSTANTIATE_FOR_EVERY_ISA(StockOracleTest);
PROTOACCEL_INSTANTIATE_FOR_EVERY_ISA(StockUtf8Test);
PROTOACCEL_INSTANTIATE_FOR_EVERY_ISA(StockEncodeTest);

}  // namespace
}  // namespace protoaccel
