// What the SIMD encoders share that knows no instruction set: the block
// loop and its tail, the table that places one- and two-byte varints (a
// byte shuffle's controls: pshufb, tbl), and 64-bit sizes by a table.
//
// A block writes its values' varints and may write up to kOverrun bytes
// past its last value's first byte (see lanes_encode.h for x86's stores,
// neon.cc for arm64's). The block loop runs only while 16 values follow
// the block (each at least one byte of output), and the last values are
// encoded into a local buffer and copied, so nothing is written at or past
// out + PackedSize(v, n).
//
// Compiled for PROTOACCEL_KERNEL_TARGET where the file that includes it
// defines one (the x86 kernels, see dispatch/target.h; scalar_encode.h for
// the internal linkage); NEON is arm64's baseline and needs none.

#ifndef PROTOACCEL_VARINT_ENCODE_BLOCK_LOOP_H_
#define PROTOACCEL_VARINT_ENCODE_BLOCK_LOOP_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "varint_encode/scalar_encode.h"

#ifdef PROTOACCEL_KERNEL_TARGET
#include "dispatch/target.h"
PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)
#endif

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

// The bytes a block may write past its last value's first byte: the widest
// store is a 10-byte varint's, 8 bytes and 8 more from its first byte, all
// 16 of them used. Every store starts at its own value's first byte, and
// the stores go in the values' order, so each byte's last write is its own
// value's. A wider store needs a larger kOverrun, and so does the buffer
// of the tail below.
constexpr size_t kOverrun = 16;

// Byte shuffle controls (pshufb, tbl) for eight 16-bit slots: each slot's
// first byte, and its second where the slot's bit is set in the index,
// packed to the front; 0x80 selects a zero byte for both.
constexpr std::array<std::array<uint8_t, 16>, 256> MakeShortTable() {
  std::array<std::array<uint8_t, 16>, 256> table{};
  for (int mask = 0; mask < 256; ++mask) {
    int out = 0;
    for (int slot = 0; slot < 8; ++slot) {
      table[mask][out++] = static_cast<uint8_t>(2 * slot);
      if ((mask >> slot) & 1) table[mask][out++] = static_cast<uint8_t>(2 * slot + 1);
    }
    while (out < 16) table[mask][out++] = 0x80;
  }
  return table;
}
alignas(16) constexpr std::array<std::array<uint8_t, 16>, 256> kShortTable =
    MakeShortTable();

// The block loop and the tail for one level: Block::kSize values a block,
// Block::Encode<kKind>(v, out) encodes a whole block, writing at most
// kOverrun bytes past its last value's first byte; Block::Short<kKind>(v,
// n, out) encodes n < kSize values. Out of line, so that short arrays
// (EncodeBlocks below) pay for none of its frame.
template <typename Block, Kind kKind, typename T>
__attribute__((noinline)) char* EncodeBlockLoop(const T* v, size_t n, char* out) {
  constexpr size_t kSize = Block::kSize;
  size_t i = 0;
  for (; n - i >= kSize + kOverrun; i += kSize) {
    out = Block::template Encode<kKind>(v + i, out);
  }
  // Fewer than kSize + kOverrun values are left: their whole blocks are
  // encoded into a buffer (with room for the overrun) and copied, the
  // values after them (fewer than a block) left to Short(). (Encoding them
  // padded with zeros into the buffer measured 2-3x slower at N = 16-64:
  // the padded copy's loads wait on its stores.)
  char buffer[kSize * 10 + kOverrun];
  for (; n - i >= kSize; i += kSize) {
    const size_t bytes = static_cast<size_t>(
        Block::template Encode<kKind>(v + i, buffer) - buffer);
    std::memcpy(out, buffer, bytes);
    out += bytes;
  }
  if (i == n) return out;
  return Block::template Short<kKind>(v + i, n - i, out);
}

// Fewer than 8 values are the scalar kernel's at every level, and are
// tested for first, so that they cost scalar's instructions and 3 more
// (kernel_instructions.py); from 8 on, SSE4.1's block is faster.
constexpr size_t kScalarBelow = 8;

template <typename Block, Kind kKind, typename T>
char* EncodeBlocks(const T* v, size_t n, char* out) {
  if (n < kScalarBelow) return ScalarEncode<kKind>(v, n, out);
  if (n < Block::kSize) return Block::template Short<kKind>(v, n, out);
  return EncodeBlockLoop<Block, kKind, T>(v, n, out);
}

// 64-bit sizes one value at a time: a lookup by the index of the top bit,
// four sums. The vector forms (nine compares on 32-bit halves per value)
// measured slower on Zen 5: 1166 ns for 4096 values with AVX2, against
// 1071 for this (and 2476 for the scalar kernel's formula).
constexpr std::array<uint8_t, 64> MakeLengthByTopBit() {
  std::array<uint8_t, 64> t{};
  for (int bit = 0; bit < 64; ++bit) t[bit] = static_cast<uint8_t>(bit / 7 + 1);
  return t;
}
constexpr std::array<uint8_t, 64> kLengthByTopBit = MakeLengthByTopBit();

template <Kind kKind, typename T>
__attribute__((noinline)) size_t SizeByTopBitLoop(const T* v, size_t n) {
  auto length = [](T x) -> size_t {
    return kLengthByTopBit[63 ^ __builtin_clzll(WireValue<kKind, T>(x) | 1)];
  };
  size_t a = 0, b = 0, c = 0, d = 0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a += length(v[i]);
    b += length(v[i + 1]);
    c += length(v[i + 2]);
    d += length(v[i + 3]);
  }
  for (; i < n; ++i) a += length(v[i]);
  return (a + b) + (c + d);
}

// Below 4 values the four sums' setup and the tail loop took 9
// instructions more than the scalar kernel at N = 1; the loop is out of
// line, so that the test costs scalar's count + 3, as for encoding.
template <Kind kKind, typename T>
size_t SizeByTopBit(const T* v, size_t n) {
  if (n < 4) return ScalarSize<kKind>(v, n);
  return SizeByTopBitLoop<kKind>(v, n);
}

}  // namespace
}  // namespace internal
PROTOACCEL_NAMESPACE_END

#ifdef PROTOACCEL_KERNEL_TARGET
PROTOACCEL_TARGET_END
#endif

#endif  // PROTOACCEL_VARINT_ENCODE_BLOCK_LOOP_H_
