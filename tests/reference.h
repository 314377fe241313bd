// Deliberately naive references, one byte at a time, written apart from the
// kernels: the decoder transcribes protobuf 3.21.12's own loop
// (parse_context.h VarintParse, parse_context.cc VarintParseSlow64 and
// VarintParser), UTF-8 decodes whole code points and checks them against
// RFC 3629, the encoder emits seven bits at a time.

#ifndef PROTOACCEL_TESTS_REFERENCE_H_
#define PROTOACCEL_TESTS_REFERENCE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace protoaccel {
namespace reference {

inline size_t CountVarints(const char* p, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    if ((static_cast<uint8_t>(p[i]) & 0x80) == 0) ++count;
  }
  return count;
}

// VarintParse + VarintParseSlow64 of 3.21.12, including the "- 1" that
// cancels the previous byte's continuation bit, with one addition: a byte at
// or past `limit` counts as missing (nullptr), where protobuf relies on its
// buffer's slop instead.
inline const char* ParseVarint(const char* p, const char* limit,
                               uint64_t* out) {
  const auto* ptr = reinterpret_cast<const uint8_t*>(p);
  const ptrdiff_t available = limit - p;
  uint32_t res32 = ptr[0];
  if (!(res32 & 0x80)) {
    *out = res32;
    return p + 1;
  }
  if (available < 2) return nullptr;
  uint32_t byte32 = ptr[1];
  res32 += (byte32 - 1) << 7;
  if (!(byte32 & 0x80)) {
    *out = res32;
    return p + 2;
  }
  uint64_t res = res32;
  for (uint32_t i = 2; i < 10; i++) {
    if (static_cast<ptrdiff_t>(i) >= available) return nullptr;
    uint64_t byte = ptr[i];
    res += (byte - 1) << (7 * i);
    if (byte < 128) {
      *out = res;
      return p + i + 1;
    }
  }
  return nullptr;
}

struct Decoded {
  std::vector<uint64_t> values;  // the raw 64-bit varints
  const char* ptr;
  bool ok;
};

// ReadPackedVarintArray: while (ptr < end) { parse; add; }.
inline Decoded Decode(const char* p, const char* end, const char* limit) {
  Decoded d{{}, p, true};
  while (d.ptr < end) {
    uint64_t v;
    const char* next = ParseVarint(d.ptr, limit, &v);
    if (next == nullptr) {
      d.ok = false;
      return d;
    }
    d.values.push_back(v);
    d.ptr = next;
  }
  return d;
}

// VarintParser<T, sign>'s conversions: `T val = varint`, or ZigZagDecode32
// of the varint converted to uint32_t.
inline uint32_t AsUInt32(uint64_t v) { return static_cast<uint32_t>(v); }
inline uint64_t AsUInt64(uint64_t v) { return v; }
inline int32_t AsSInt32(uint64_t v) {
  const uint32_t n = static_cast<uint32_t>(v);
  return static_cast<int32_t>((n >> 1) ^ (~(n & 1) + 1));
}
inline int64_t AsSInt64(uint64_t v) {
  return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
}
inline bool AsBool(uint64_t v) { return static_cast<bool>(v); }

// The longest prefix of whole valid characters: decode each code point,
// then reject overlong forms, surrogates and anything above U+10FFFF.
inline size_t ValidUtf8Prefix(const char* p, size_t n) {
  const auto* s = reinterpret_cast<const uint8_t*>(p);
  static const uint32_t kMinimum[5] = {0, 0, 0x80, 0x800, 0x10000};
  size_t i = 0;
  while (i < n) {
    const uint8_t lead = s[i];
    size_t length;
    uint32_t code_point;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xe0) == 0xc0) {
      length = 2;
      code_point = lead & 0x1f;
    } else if ((lead & 0xf0) == 0xe0) {
      length = 3;
      code_point = lead & 0x0f;
    } else if ((lead & 0xf8) == 0xf0) {
      length = 4;
      code_point = lead & 0x07;
    } else {
      return i;
    }
    if (i + length > n) return i;
    for (size_t k = 1; k < length; ++k) {
      if ((s[i + k] & 0xc0) != 0x80) return i;
      code_point = (code_point << 6) | (s[i + k] & 0x3f);
    }
    if (code_point < kMinimum[length] || code_point > 0x10ffff ||
        (code_point >= 0xd800 && code_point <= 0xdfff)) {
      return i;
    }
    i += length;
  }
  return n;
}

inline bool IsValidUtf8(const char* p, size_t n) {
  return ValidUtf8Prefix(p, n) == n;
}

inline void AppendVarint(uint64_t v, std::string* out) {
  do {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    if (v != 0) byte |= 0x80;
    out->push_back(static_cast<char>(byte));
  } while (v != 0);
}

// What protobuf puts on the wire for each packed type.
inline uint64_t WireUInt32(uint32_t v) { return v; }
inline uint64_t WireInt32(int32_t v) { return static_cast<uint64_t>(int64_t{v}); }
inline uint64_t WireSInt32(int32_t v) {
  return v >= 0 ? 2 * uint64_t(uint32_t(v)) : 2 * uint64_t(uint32_t(~v)) + 1;
}
inline uint64_t WireUInt64(uint64_t v) { return v; }
inline uint64_t WireSInt64(int64_t v) {
  return v >= 0 ? 2 * uint64_t(v) : 2 * uint64_t(~v) + 1;
}

template <typename T>
std::string Encode(const std::vector<T>& values, uint64_t (*wire)(T)) {
  std::string out;
  for (T v : values) AppendVarint(wire(v), &out);
  return out;
}

}  // namespace reference
}  // namespace protoaccel

#endif  // PROTOACCEL_TESTS_REFERENCE_H_
