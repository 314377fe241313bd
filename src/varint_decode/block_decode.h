// The block loop of the SSE4.1 and AVX2 decoders: a block of one-byte
// varints (a movemask tells) is widened with vectors, any other goes
// through the scalar loop.

#ifndef PROTOACCEL_VARINT_DECODE_BLOCK_DECODE_H_
#define PROTOACCEL_VARINT_DECODE_BLOCK_DECODE_H_

#include <cstdint>

#include "varint_decode/scalar_decode.h"

namespace protoaccel {
namespace internal {
// Internal linkage: each kernel file compiles this for its own instruction
// set (see scalar_decode.h).
namespace {

// Block provides kSize (16 or 32), Terminators(p) (a bit per byte whose top
// bit is clear) and StoreOneByteValues<Conversion>(p, out).
template <typename Block, typename Conversion>
DecodeResult DecodeBlocks(const char* p, const char* end, const char* limit,
                          typename Conversion::Out* out) {
  constexpr uint32_t kAll = Block::kSize == 32 ? ~0u : (1u << Block::kSize) - 1;
  // Each hand-over costs two mispredicted branches (the scalar loop's exit
  // and the next block check): over 256 bytes of two-byte varints that was
  // 13% of the time, over 1024 bytes it measures 4%.
  constexpr ptrdiff_t kStretch = 1024;
  size_t count = 0;
  while (end - p >= Block::kSize) {
    if (Block::Terminators(p) == kAll) {
      Block::template StoreOneByteValues<Conversion>(p, out + count);
      count += Block::kSize;
      p += Block::kSize;
      continue;
    }
    // Longer varints go through the scalar kernel, whose byte loop predicts
    // well on real data (decoding them from the movemask with shifts
    // measured slower), for a stretch long enough that the block checks
    // cost little.
    const char* stretch_end = end - p > kStretch ? p + kStretch : end;
    const DecodeResult run =
        ScalarKernel<Conversion>()(p, stretch_end, limit, out + count);
    count += run.count;
    if (!run.ok) return {run.ptr, count, false};
    p = run.ptr;
  }
  const DecodeResult tail =
      ScalarKernel<Conversion>()(p, end, limit, out + count);
  return {tail.ptr, count + tail.count, tail.ok};
}

}  // namespace
}  // namespace internal
}  // namespace protoaccel

#endif  // PROTOACCEL_VARINT_DECODE_BLOCK_DECODE_H_
