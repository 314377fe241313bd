// Every UTF-8 validator of every level against the code-point reference.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "reference.h"
#include "test_util.h"

namespace protoaccel {
namespace {

using testing::GuardedBuffer;

class Utf8ValidateTest : public testing::IsaTest {
 protected:
  ::testing::AssertionResult Check(const char* p, size_t n) {
    const internal::Utf8Kernels& k = kernels().utf8;
    const size_t want = reference::ValidUtf8Prefix(p, n);
    const size_t prefix = k.valid_prefix(p, n);
    const bool valid = k.validate(p, n);
    if (prefix != want || valid != (want == n)) {
      return ::testing::AssertionFailure()
             << "n " << n << ": prefix " << prefix << " want " << want
             << ", valid " << valid;
    }
    return ::testing::AssertionSuccess();
  }
  ::testing::AssertionResult CheckGuarded(const std::string& s) {
    GuardedBuffer buffer(s);
    return Check(buffer.data(), buffer.size());
  }
};

// Every string of one, two and three bytes.
TEST_P(Utf8ValidateTest, AllShortStrings) {
  char s[3];
  for (int a = 0; a < 256; ++a) {
    s[0] = static_cast<char>(a);
    ASSERT_TRUE(Check(s, 1));
    for (int b = 0; b < 256; ++b) {
      s[1] = static_cast<char>(b);
      ASSERT_TRUE(Check(s, 2));
      for (int c = 0; c < 256; ++c) {
        s[2] = static_cast<char>(c);
        ASSERT_TRUE(Check(s, 3)) << a << " " << b << " " << c;
      }
    }
  }
}

// Every four-byte string whose first byte may lead a four-byte character,
// and around each the bytes just outside that range.
TEST_P(Utf8ValidateTest, AllFourByteSequences) {
  char s[4];
  for (int a : {0xef, 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5}) {
    s[0] = static_cast<char>(a);
    for (int b = 0; b < 256; ++b) {
      s[1] = static_cast<char>(b);
      for (int c = 0; c < 256; ++c) {
        s[2] = static_cast<char>(c);
        for (int d = 0; d < 256; ++d) {
          s[3] = static_cast<char>(d);
          ASSERT_TRUE(Check(s, 4)) << a << " " << b << " " << c << " " << d;
        }
      }
    }
  }
}

// Each class of error, at every position of buffers of 1..130 bytes, so
// that it falls at every place of a 16-, 32- and 64-byte block and across
// their boundaries; the rest is valid text of each kind.
TEST_P(Utf8ValidateTest, EveryErrorAtEveryPosition) {
  const std::vector<std::string> kErrors = {
      "\xc0\x80",          "\xc1\xbf",         "\xe0\x80\x80",
      "\xe0\x9f\xbf",      "\xed\xa0\x80",     "\xed\xbf\xbf",
      "\xf0\x80\x80\x80",  "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80",
      "\xf5\x80\x80\x80",  "\xff",             "\xfe",
      "\x80",              "\xbf",             "\xc2",
      "\xe1\x80",          "\xf1\x80\x80",     "\xc2\x41",
      "\xe1\x80\x41",      "\xf1\x80\x80\x41", "\xf8\x88\x80\x80\x80",
  };
  const std::vector<std::string> kFillers = {"a", "\xc3\xa9", "\xe2\x82\xac",
                                             "\xf0\x9f\x98\x80"};
  for (const std::string& filler : kFillers) {
    for (size_t size = 1; size <= 130; ++size) {
      std::string text;
      while (text.size() < size) text += filler;
      text.resize(size - size % filler.size());
      ASSERT_TRUE(CheckGuarded(text));
      for (const std::string& error : kErrors) {
        for (size_t at = 0; at + error.size() <= size; at += filler.size()) {
          std::string bad = text.substr(0, at) + error;
          while (bad.size() < size) bad += 'z';
          bad.resize(size);
          ASSERT_TRUE(CheckGuarded(bad)) << "error at " << at;
        }
      }
    }
  }
}

// Long valid text of mixed widths with one byte corrupted, at every
// alignment.
TEST_P(Utf8ValidateTest, LongTextWithOneBadByte) {
  std::mt19937_64 rng(21);
  const char* kPieces[] = {"a", "Z", "\xc3\xa9", "\xd0\x96", "\xe2\x82\xac",
                           "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf"};
  for (int round = 0; round < 300; ++round) {
    std::string text;
    const size_t size = 1 + rng() % 4096;
    const int widths = 1 + round % 8;
    while (text.size() < size) text += kPieces[rng() % widths];
    ASSERT_TRUE(CheckGuarded(text));
    std::string bad = text;
    bad[rng() % bad.size()] = static_cast<char>(rng());
    ASSERT_TRUE(CheckGuarded(bad));
    for (size_t shift = 0; shift < 64; shift += 13) {
      std::vector<char> storage(bad.size() + 64);
      std::memcpy(storage.data() + shift, bad.data(), bad.size());
      ASSERT_TRUE(Check(storage.data() + shift, bad.size()));
    }
  }
}

TEST_P(Utf8ValidateTest, RandomBytes) {
  std::mt19937_64 rng(22);
  for (int round = 0; round < 20000; ++round) {
    std::string s(rng() % 40, '\0');
    for (auto& c : s) c = static_cast<char>(0x80 | rng());
    ASSERT_TRUE(CheckGuarded(s));
  }
}

PROTOACCEL_INSTANTIATE_FOR_EVERY_ISA(Utf8ValidateTest);

}  // namespace
}  // namespace protoaccel
