// The block loop of the SSE4.1 and AVX2 decoders: a movemask of each block
// gives the varints' ends; a block of one-byte varints is widened with
// vectors, any other is decoded one varint at a time from the mask, with no
// branch per byte.

#ifndef PROTOACCEL_VARINT_DECODE_BLOCK_DECODE_H_
#define PROTOACCEL_VARINT_DECODE_BLOCK_DECODE_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "varint_decode/scalar_decode.h"

namespace protoaccel {
namespace internal {
// Internal linkage: each kernel file compiles this for its own instruction
// set (see scalar_decode.h).
namespace {

template <typename Conversion>
constexpr bool kKeepsHighBits = !std::is_same<Conversion, Low32>::value &&
                                !std::is_same<Conversion, ZigZag32>::value;

// The value of the varint of `length` bytes (1..10) at p. Reads 8 bytes at
// p, and p[8], p[9] for a longer varint. The 7-bit groups are packed by
// three shift-and-mask steps: pairs in 16-bit lanes, then 32, then 64. Of
// a 10th byte only bit 0 counts, as in protobuf.
template <bool kHighBits>
inline uint64_t ValueOfLength(const char* p, int length) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  if (length < 8) w &= (uint64_t{1} << (8 * length)) - 1;
  w &= 0x7f7f7f7f7f7f7f7f;
  w = (w & 0x007f007f007f007f) | ((w >> 1) & 0x3f803f803f803f80);
  w = (w & 0x00003fff00003fff) | ((w >> 2) & 0x0fffc0000fffc000);
  w = (w & 0x000000000fffffff) | ((w >> 4) & 0x00fffffff0000000);
  if (kHighBits && length > 8) {
    w |= static_cast<uint64_t>(p[8] & 0x7f) << 56;
    if (length == 10) w |= static_cast<uint64_t>(p[9] & 1) << 63;
  }
  return w;
}

// Block provides kSize (16 or 32), Terminators(p) (a bit per byte whose top
// bit is clear) and StoreOneByteValues<Conversion>(p, out).
template <typename Block, typename Conversion>
DecodeResult DecodeBlocks(const char* p, const char* end, const char* limit,
                          typename Conversion::Out* out) {
  constexpr uint32_t kAll = Block::kSize == 32 ? ~0u : (1u << Block::kSize) - 1;
  size_t count = 0;
  // A varint is read with an 8-byte load at its start (and two more bytes
  // if longer), so blocks stop 16 bytes short of `limit`.
  while (end - p >= Block::kSize && limit - p >= Block::kSize + 16) {
    uint32_t ends = Block::Terminators(p);
    if (ends == kAll) {
      Block::template StoreOneByteValues<Conversion>(p, out + count);
      count += Block::kSize;
      p += Block::kSize;
      continue;
    }
    // The varints that end in the block; the one running past it is read
    // by the next block.
    int start = 0;
    bool malformed = ends == 0;  // a whole block of continuation bytes
    while (ends != 0) {
      const int last = __builtin_ctz(ends);
      const int length = last - start + 1;
      if (length > 10) {
        malformed = true;
        break;
      }
      out[count++] = Conversion::Convert(
          ValueOfLength<kKeepsHighBits<Conversion>>(p + start, length));
      start = last + 1;
      ends &= ends - 1;
    }
    p += start;
    if (malformed) break;  // the scalar decoder reports it as protobuf does
  }
  const DecodeResult tail = DecodeScalar<Conversion>(p, end, limit, out + count);
  return {tail.ptr, count + tail.count, tail.ok};
}

template <typename T>
T ZigZagDecode(T n) {
  return (n >> 1) ^ (T{0} - (n & 1));
}

}  // namespace
}  // namespace internal
}  // namespace protoaccel

#endif  // PROTOACCEL_VARINT_DECODE_BLOCK_DECODE_H_
