// utf8_range_IsValid and utf8_range_ValidPrefix of every variant (stock and
// patched utf8_range, for the baseline and with -msse4.1) against
// protoaccel's scalar validator, on two kinds of input:
//   - every sequence of up to 4 bytes from the bytes at the edges of
//     UTF-8's ranges, at every offset (sequences of 4: around the 16-byte
//     blocks' edges) of a 48-byte string of ASCII, 2-byte or 3-byte
//     characters: the SIMD path sees each lead and continuation byte in
//     each lane and across its blocks;
//   - random strings of random characters, up to 300 bytes, a third of
//     them with one byte changed, cut short or inserted.
// Exit status 1 on the first difference, with the input in hex.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "utf8_validate/scalar_utf8.h"

namespace {

struct Variant {
  const char* name;
  bool (*is_valid)(const char*, size_t);
  size_t (*valid_prefix)(const char*, size_t);
};
#include "variants.inc"

long long checked = 0;

void Check(const std::string& s) {
  const size_t want = protoaccel::internal::ValidPrefixScalar(s.data(), s.size());
  for (const Variant& v : kVariants) {
    const size_t prefix = v.valid_prefix(s.data(), s.size());
    const bool valid = v.is_valid(s.data(), s.size());
    if (prefix != want || valid != (want == s.size())) {
      std::printf("%s: ValidPrefix %zu IsValid %d, want %zu %d, on %zu bytes:",
                  v.name, prefix, valid, want, want == s.size(), s.size());
      for (unsigned char c : s) std::printf(" %02x", c);
      std::printf("\n");
      std::exit(1);
    }
  }
  ++checked;
}

// The bytes where UTF-8's ranges begin and end.
const unsigned char kEdges[] = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0,
                                0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec,
                                0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5,
                                0xff};
constexpr int kEdgeCount = sizeof(kEdges);

// Sequences of 4 go at these offsets only (at every one, the run would
// take minutes): the ends and the 16-byte blocks' edges.
bool Offset4(size_t offset) {
  for (size_t o : {0, 1, 13, 14, 15, 16, 17, 29, 30, 31, 32, 33, 44}) {
    if (offset == o) return true;
  }
  return false;
}

void EdgeSequences() {
  std::string two, three;
  for (int i = 0; i < 24; ++i) two += "\xc3\xa9";    // é
  for (int i = 0; i < 16; ++i) three += "\xe2\x82\xac";  // €
  for (const std::string& filler : {std::string(48, 'a'), two, three}) {
    for (int length = 1; length <= 4; ++length) {
      int total = 1;
      for (int i = 0; i < length; ++i) total *= kEdgeCount;
      for (int code = 0; code < total; ++code) {
        std::string seq;
        for (int i = 0, c = code; i < length; ++i, c /= kEdgeCount) {
          seq += static_cast<char>(kEdges[c % kEdgeCount]);
        }
        for (size_t offset = 0; offset + length <= filler.size(); ++offset) {
          if (length == 4 && !Offset4(offset)) continue;
          std::string s = filler;
          s.replace(offset, length, seq);
          Check(s);
        }
      }
    }
  }
}

void AppendRandomCharacter(std::mt19937& rng, std::string* s) {
  std::uniform_int_distribution<int> kind(0, 9);
  const int k = kind(rng);
  uint32_t cp;
  if (k < 4) {
    cp = rng() % 0x80;
  } else if (k < 6) {
    cp = 0x80 + rng() % (0x800 - 0x80);
  } else if (k < 8) {
    do cp = 0x800 + rng() % (0x10000 - 0x800); while (cp >= 0xd800 && cp < 0xe000);
  } else {
    cp = 0x10000 + rng() % (0x110000 - 0x10000);
  }
  if (cp < 0x80) {
    *s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *s += static_cast<char>(0xc0 | cp >> 6);
    *s += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    *s += static_cast<char>(0xe0 | cp >> 12);
    *s += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
    *s += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    *s += static_cast<char>(0xf0 | cp >> 18);
    *s += static_cast<char>(0x80 | (cp >> 12 & 0x3f));
    *s += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
    *s += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

void RandomStrings(int count) {
  std::mt19937 rng(20261207);
  for (int i = 0; i < count; ++i) {
    const size_t length = rng() % 301;
    std::string s;
    while (s.size() < length) AppendRandomCharacter(rng, &s);
    if (!s.empty() && rng() % 3 == 0) {
      const size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[at] = static_cast<char>(kEdges[rng() % kEdgeCount]); break;
        case 1: s.resize(at); break;
        default: s.insert(at, 1, static_cast<char>(kEdges[rng() % kEdgeCount])); break;
      }
    }
    Check(s);
  }
}

}  // namespace

int main() {
  EdgeSequences();
  RandomStrings(300000);
  std::printf("%lld strings, each the same on", checked);
  for (const Variant& v : kVariants) std::printf(" %s", v.name);
  std::printf(" as protoaccel's scalar validator\n");
  return 0;
}
