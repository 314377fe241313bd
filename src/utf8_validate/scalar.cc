#include <cstring>

#include "dispatch/kernels.h"

namespace protoaccel {
namespace internal {
namespace {

// The length of the longest prefix of whole, valid characters. Each lead
// byte admits a range for its first continuation byte (the RFC 3629 table):
// that range is what rules out overlong forms (E0, F0), surrogates (ED) and
// code points above U+10FFFF (F4); C0, C1 and F5..FF lead nothing.
size_t ValidPrefixScalar(const char* p, size_t n) {
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

bool ValidateScalar(const char* p, size_t n) {
  return ValidPrefixScalar(p, n) == n;
}

}  // namespace

const Utf8Kernels kUtf8Scalar = {ValidateScalar, ValidPrefixScalar};

}  // namespace internal
}  // namespace protoaccel
