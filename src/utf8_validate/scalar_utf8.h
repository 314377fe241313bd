// One character at a time: the scalar validator, and where every SIMD one
// hands over (short inputs, and the block where it found an error).

#ifndef PROTOACCEL_UTF8_VALIDATE_SCALAR_UTF8_H_
#define PROTOACCEL_UTF8_VALIDATE_SCALAR_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "protoaccel/protoaccel.h"

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
// Internal linkage: every kernel file compiles these for its own instruction
// set, and the linker must not pick one file's copy for another's.
namespace {

// The length of the longest prefix of whole, valid characters. Each lead
// byte admits a range for its first continuation byte (the RFC 3629 table):
// that range is what rules out overlong forms (E0, F0), surrogates (ED) and
// code points above U+10FFFF (F4); C0, C1 and F5..FF lead nothing.
inline size_t ValidPrefixScalar(const char* p, size_t n) {
  const auto* s = reinterpret_cast<const uint8_t*>(p);
  size_t i = 0;
  while (i < n) {
    // Text is mostly ASCII: skip it a word at a time.
    while (i + 8 <= n) {
      uint64_t word;
      std::memcpy(&word, s + i, 8);
      if (word & 0x8080808080808080) break;
      i += 8;
    }
    if (i == n) break;
    const uint8_t lead = s[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
    size_t length;
    uint8_t low = 0x80, high = 0xbf;  // range of the first continuation byte
    if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead == 0xe0) low = 0xa0;
      if (lead == 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead == 0xf0) low = 0x90;
      if (lead == 0xf4) high = 0x8f;
    } else {
      return i;
    }
    if (n - i < length) return i;
    if (s[i + 1] < low || s[i + 1] > high) return i;
    for (size_t k = 2; k < length; ++k) {
      if ((s[i + k] & 0xc0) != 0x80) return i;
    }
    i += length;
  }
  return i;
}

// Up to this many bytes the SIMD validators first test for ASCII a word at a
// time, before any vector setup: most strings in messages are short ASCII
// (names, keys, identifiers), and there the vector path's fixed costs are
// the whole cost. On Zen 1, 8 bytes of ASCII took 9.5 ns with AVX2 and
// 8.0 ns with SSE4.1 against 3.6 ns for the scalar loop. Text that is not
// ASCII pays the test (a few instructions) and goes on to the vector path,
// which is the faster one there from a few bytes on.
constexpr size_t kShortAsciiBytes = 32;

// Whether the n bytes at p are at most kShortAsciiBytes, all ASCII:
// overlapping loads of 8 (or 4) bytes cover them, so no byte loop, and no
// read outside [p, p + n).
inline bool IsShortAscii(const char* p, size_t n) {
  if (n > kShortAsciiBytes) return false;
  uint64_t bits;
  if (n >= 8) {
    uint64_t first, last;
    std::memcpy(&first, p, 8);
    std::memcpy(&last, p + n - 8, 8);
    bits = first | last;
    if (n > 16) {
      uint64_t second, next_to_last;
      std::memcpy(&second, p + 8, 8);
      std::memcpy(&next_to_last, p + n - 16, 8);
      bits |= second | next_to_last;
    }
  } else if (n >= 4) {
    uint32_t first, last;
    std::memcpy(&first, p, 4);
    std::memcpy(&last, p + n - 4, 4);
    bits = first | last;
  } else {
    // 0 to 3 bytes: p[0], p[n / 2] and p[n - 1] are all of them.
    bits = n == 0 ? 0
                  : static_cast<uint8_t>(p[0]) | static_cast<uint8_t>(p[n / 2]) |
                        static_cast<uint8_t>(p[n - 1]);
  }
  return (bits & 0x8080808080808080) == 0;
}

// The valid prefix of [p, p + n), given that a SIMD validator found no error
// before the block that starts at `block`: the bytes before it are whole,
// valid characters, but for the last one, which may run into the block (or
// be cut off there). That one starts at most three bytes back, at the last
// byte that is not a continuation byte (10xxxxxx); three continuation bytes
// in a row end a four-byte character, so then the block starts one. The
// scalar validator goes on from there, and stops within the block or just
// after it, where the error is.
inline size_t ValidPrefixFromBlock(const char* p, size_t n, size_t block) {
  size_t start = block;
  for (size_t k = 1; k <= 3 && k <= block; ++k) {
    if ((static_cast<uint8_t>(p[block - k]) & 0xc0) != 0x80) {
      start = block - k;
      break;
    }
  }
  return start + ValidPrefixScalar(p + start, n - start);
}

}  // namespace
}  // namespace internal
PROTOACCEL_NAMESPACE_END

#endif  // PROTOACCEL_UTF8_VALIDATE_SCALAR_UTF8_H_
