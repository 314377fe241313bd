// Every UTF-8 validator of every level against the code-point reference.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "reference.h"
#include "test_util.h"

namespace protoaccel {
namespace {

using testing::GuardedBuffer;

// One guarded mapping for many inputs: each is copied to end where the
// inaccessible page begins, as GuardedBuffer places it, without a mapping
// (three system calls) per input.
class GuardedScratch {
 public:
  explicit GuardedScratch(size_t capacity)
      : buffer_(std::string(capacity, '\0')) {}
  // The copy of s, valid until the next call.
  const char* Place(const std::string& s) {
    if (s.size() > buffer_.size()) std::abort();
    char* p = const_cast<char*>(buffer_.end()) - s.size();
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    return p;
  }

 private:
  GuardedBuffer buffer_;
};

// The SIMD kernels work in vectors of 16, 32 or 64 bytes and test 64 at a
// time for ASCII (128 while the text has been ASCII from its start); the
// tests put errors on and around these boundaries.
constexpr size_t kBlock = 64;

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
  // As Check, with the expected prefix given (for sweeps too long for the
  // reference to run on every input).
  ::testing::AssertionResult CheckWant(const char* p, size_t n, size_t want) {
    const internal::Utf8Kernels& k = kernels().utf8;
    const size_t prefix = k.valid_prefix(p, n);
    const bool valid = k.validate(p, n);
    if (prefix != want || valid != (want == n)) {
      return ::testing::AssertionFailure()
             << "n " << n << ": prefix " << prefix << " want " << want
             << ", valid " << valid;
    }
    return ::testing::AssertionSuccess();
  }
};

// Valid text of one kind, at least `size` bytes: "a" (ASCII), or 2-, 3- or
// 4-byte characters, or all four mixed (`kind` 0..4).
std::string ValidText(int kind, size_t size, std::mt19937_64& rng) {
  static const char* kChars[] = {"a", "\xc3\xa9", "\xe2\x82\xac",
                                 "\xf0\x9f\x98\x80"};
  std::string text;
  while (text.size() < size) {
    text += kind < 4 ? kChars[kind] : kChars[rng() % 4];
  }
  return text;
}

// Every invalid form, each as short as it can be: overlong 2-, 3- and
// 4-byte forms, surrogates, code points above U+10FFFF, bytes that lead
// nothing, stray continuation bytes, and 2-, 3- and 4-byte characters cut
// short (by the end of the text, or by what follows them).
const std::vector<std::string>& InvalidForms() {
  static const std::vector<std::string> forms = {
      "\xc0\x80", "\xc0\xbf", "\xc1\x80", "\xc1\xbf",  // overlong 2
      "\xe0\x80\x80", "\xe0\x9f\xbf",                  // overlong 3
      "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf",          // overlong 4
      "\xed\xa0\x80", "\xed\xaf\xbf", "\xed\xb0\x80",
      "\xed\xbf\xbf",                                   // surrogates
      "\xf4\x90\x80\x80", "\xf4\xbf\xbf\xbf",          // above U+10FFFF
      "\xf5\x80\x80\x80", "\xf7\xbf\xbf\xbf",
      "\xf8\x88\x80\x80\x80", "\xfc\x84\x80\x80\x80\x80",
      "\xc0", "\xc1", "\xf5", "\xf8", "\xfe", "\xff",       // lead nothing
      "\x80", "\x8f", "\x90", "\xa0", "\xbf",             // stray
      "\x80\x80", "\xc2\x80\x80", "\xe1\x80\x80\x80",
      "\xc2", "\xdf",                                     // cut 2-byte
      "\xe0\xa0", "\xe1\x80", "\xed\x9f", "\xef\xbf",      // cut 3-byte
      "\xf0\x90", "\xf1\x80\x80", "\xf4\x8f\xbf",        // cut 4-byte
  };
  return forms;
}

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

// Short ASCII is tested a word at a time before any vector work (up to
// kShortAsciiBytes, 32): every length around that bound, with one byte that
// is not ASCII at each position (a lone continuation byte, a whole 2-byte
// character, a byte that leads nothing), so that each of the overlapping
// loads is the one that must see it. Guarded: none of them may read past
// the end.
TEST_P(Utf8ValidateTest, ShortAsciiWithOneOtherByteAnywhere) {
  GuardedScratch scratch(64);
  for (size_t n = 0; n <= 40; ++n) {
    const std::string ascii(n, 'a');
    ASSERT_TRUE(Check(scratch.Place(ascii), n));
    for (size_t i = 0; i < n; ++i) {
      for (const char* other : {"\x80", "\xc3\xa9", "\xff"}) {
        const size_t length = std::min(std::strlen(other), n - i);  // may be cut
        std::string s = ascii;
        s.replace(i, length, other, length);
        ASSERT_TRUE(Check(scratch.Place(s), n)) << "at " << i;
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

// Every invalid form at every byte of buffers of 1..130 bytes (so at every
// place of a 16-, 32- and 64-byte block, and across their boundaries), in
// valid text of each kind: the text before it is cut there, possibly
// inside a character, and the text after it goes on with the same kind, or
// with ASCII.
TEST_P(Utf8ValidateTest, EveryInvalidFormAtEveryByte) {
  GuardedScratch scratch(256);
  std::mt19937_64 rng(23);
  for (int kind = 0; kind < 5; ++kind) {
    const std::string text = ValidText(kind, 300, rng);
    for (size_t size = 1; size <= 130; ++size) {
      std::string valid = text.substr(0, size);
      valid.resize(reference::ValidUtf8Prefix(valid.data(), size));
      valid.resize(size, 'z');
      ASSERT_TRUE(Check(scratch.Place(valid), size)) << "kind " << kind;
      for (const std::string& form : InvalidForms()) {
        for (size_t at = 0; at + form.size() <= size; ++at) {
          for (bool ascii_after : {false, true}) {
            std::string bad = text.substr(0, at) + form;
            bad += ascii_after ? std::string(size, 'z') : text.substr(0, size);
            bad.resize(size);
            ASSERT_TRUE(Check(scratch.Place(bad), size))
                << "kind " << kind << " form " << ::testing::PrintToString(form)
                << " at " << at << " ascii after " << ascii_after;
          }
        }
      }
    }
  }
}

// After an ASCII stretch (which the kernels skip, checking only that no
// character was cut off before it), the checks start again with a clean
// slate: text that ends at several places, possibly inside a character,
// then 0..129 ASCII bytes, then an invalid form or a valid character.
TEST_P(Utf8ValidateTest, FormsAfterAsciiStretches) {
  GuardedScratch scratch(512);
  std::mt19937_64 rng(24);
  const std::vector<std::string> kCut = {"", "\xc3", "\xe2\x82", "\xe2",
                                         "\xf0\x9f\x98", "\xf0\x9f", "\xf0"};
  std::vector<std::string> after = InvalidForms();
  for (const char* c : {"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                        "\xf4\x8f\xbf\xbf", "\xed\x9f\xbf", "\xee\x80\x80"}) {
    after.push_back(c);
  }
  for (int kind = 1; kind < 5; ++kind) {
    const std::string text = ValidText(kind, 2 * kBlock + 8, rng);
    for (size_t head = 0; head <= kBlock + 4; ++head) {
      std::string start = text.substr(0, head);
      start.resize(reference::ValidUtf8Prefix(start.data(), head));
      for (const std::string& cut : kCut) {
        for (size_t ascii : {0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129}) {
          for (const std::string& form : after) {
            const std::string s =
                start + cut + std::string(ascii, 'q') + form + "xyz";
            ASSERT_TRUE(Check(scratch.Place(s), s.size()))
                << "head " << start.size() << " cut " << cut.size()
                << " ascii " << ascii << " form "
                << ::testing::PrintToString(form);
          }
        }
      }
    }
  }
}

// Leading ASCII is skipped 128 bytes a test, then 64, then a vector: an
// invalid form or a valid character after each length of it, up to past
// two such tests, at every place of each; then nothing, a little ASCII, or
// a vector's worth.
TEST_P(Utf8ValidateTest, FormsAfterLeadingAscii) {
  GuardedScratch scratch(512);
  std::vector<std::string> after = InvalidForms();
  for (const char* c : {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"}) {
    after.push_back(c);
  }
  for (size_t ascii = 0; ascii <= 4 * kBlock + 40; ++ascii) {
    for (const std::string& form : after) {
      for (size_t tail : {0, 3, 70}) {
        const std::string s =
            std::string(ascii, 'q') + form + std::string(tail, 'z');
        ASSERT_TRUE(Check(scratch.Place(s), s.size()))
            << "ascii " << ascii << " form " << ::testing::PrintToString(form)
            << " tail " << tail;
      }
    }
  }
}

// Every string of up to three bytes, and the four-byte strings that start
// with a four-byte lead (all of them but for the low bits of the last byte,
// of which 0, 7, 8 and F stand for the rest), put where the vectors and
// blocks meet: split by a block boundary (64 bytes, also a boundary of every
// vector) after each byte (four-byte strings: after the second), and at the
// very end of the input (in the tail after a whole block; strings of up to
// three bytes also as nearly all of the input). The text around the string
// is ASCII, and a two-byte character early in the first block keeps the
// kernels from skipping that block as ASCII, so the checks run across the
// boundary. The expected result comes from the reference on the string
// alone: the ASCII around it changes nothing but the offsets.
//
// No guard page here (the other tests have it): AVX-512 masked loads whose
// masked-off bytes fall on an inaccessible page take a slow path on AMD
// CPUs, and would make this sweep ten times slower.
TEST_P(Utf8ValidateTest, AllStringsUpToFourBytesAcrossBlocks) {
  if (GetParam() == Isa::kScalar) GTEST_SKIP() << "no blocks";
  for (size_t len = 1; len <= 4; ++len) {
    struct Placement {
      size_t head, size;
    };
    std::vector<Placement> placements = {{kBlock + 3, kBlock + 3 + len}};
    if (len < 4) placements.push_back({1, 1 + len});
    for (size_t split = 1; split < len; ++split) {
      if (len < 4 || split == 2) {
        placements.push_back({kBlock - split, 2 * kBlock + 8});
      }
    }
    for (const Placement& at : placements) {
      std::string buffer(at.size, 'q');
      if (at.head >= 5) buffer.replace(3, 2, "\xc3\xa9");
      char* const p = &buffer[0];
      char* const s = p + at.head;
      auto check = [&]() -> ::testing::AssertionResult {
        const size_t own = reference::ValidUtf8Prefix(s, len);
        const size_t want = own < len ? at.head + own : at.size;
        ::testing::AssertionResult r = CheckWant(p, at.size, want);
        if (r) return r;
        return r << " for " << ::testing::PrintToString(std::string(s, len))
                 << " at " << at.head << " of " << at.size;
      };
      if (len < 4) {
        for (uint32_t bytes = 0; bytes < uint32_t{1} << (8 * len); ++bytes) {
          for (size_t k = 0; k < len; ++k) {
            s[k] = static_cast<char>(bytes >> (8 * (len - 1 - k)));
          }
          ASSERT_TRUE(check());
        }
        continue;
      }
      for (int a = 0xf0; a <= 0xf4; ++a) {
        s[0] = static_cast<char>(a);
        for (int b = 0; b < 256; ++b) {
          s[1] = static_cast<char>(b);
          for (int c = 0; c < 256; ++c) {
            s[2] = static_cast<char>(c);
            for (int high = 0; high < 16; ++high) {
              for (int low : {0x0, 0x7, 0x8, 0xf}) {
                s[3] = static_cast<char>(high << 4 | low);
                ASSERT_TRUE(check());
              }
            }
          }
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

// 64 KB of valid text of mixed widths, with one byte changed at many
// random places (to a random value, or to one of the bytes that most often
// make an error), and cut short by 0..4 bytes.
TEST_P(Utf8ValidateTest, LongTextWithOneBadByteAnywhere) {
  constexpr size_t kSize = 64 * 1024;
  std::mt19937_64 rng(25);
  std::string text = ValidText(4, kSize, rng);
  text.resize(reference::ValidUtf8Prefix(text.data(), kSize));
  text.resize(kSize, 'z');
  GuardedScratch scratch(kSize);
  char* p = const_cast<char*>(scratch.Place(text));
  ASSERT_TRUE(Check(p, kSize));
  for (size_t cut = 1; cut <= 4; ++cut) {
    ASSERT_TRUE(Check(scratch.Place(text.substr(0, kSize - cut)), kSize - cut));
  }
  p = const_cast<char*>(scratch.Place(text));
  const uint8_t kBad[] = {0x00, 0x41, 0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2,
                          0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff};
  for (int round = 0; round < 2000; ++round) {
    const size_t at = rng() % kSize;
    const char old = p[at];
    p[at] = static_cast<char>(round % 2 ? rng() : kBad[rng() % sizeof(kBad)]);
    ASSERT_TRUE(Check(p, kSize)) << "round " << round << " at " << at;
    // And from an odd start, so that the blocks fall elsewhere.
    const size_t skip = 1 + rng() % 63;
    ASSERT_TRUE(Check(p + skip, kSize - skip)) << "round " << round;
    p[at] = old;
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
