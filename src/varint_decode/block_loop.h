// The block loop of the SIMD varint decoders (SSE4.1 and AVX2 in
// block_decode.h, NEON in neon.cc), which know nothing of the loop but its
// Block: a vector's width, its loads, and its two multi-byte paths.
//
// Blocks of 64 bytes are read at fixed steps, whatever the varints'
// lengths: only `pending`, the bytes of an unfinished varint carried into
// the next block, depends on the data, and it comes from the block's own
// terminator mask (bytes with the top bit clear), so no block's loads wait
// for the one before. Each block takes one of three paths:
//   - 64 one-byte varints: a widening copy;
//   - varints of one or two bytes: each terminator's value computed in a
//     16-bit slot from it and the byte before, then packed to the front of
//     each 8 slots by a byte shuffle from kPackTable;
//   - anything else: the varints' starts, read off the mask, are loaded
//     one per 64-bit lane, the bytes past each lane's first terminator
//     cleared, and the 7-bit groups packed. No branch depends on a
//     varint's length (the byte loop of the scalar kernel mispredicts on
//     mixed lengths), and no PDEP/PEXT, slow on AMD before Zen 3.
// Compiled for PROTOACCEL_KERNEL_TARGET where the file that includes it
// defines one (the x86 kernels, see dispatch/target.h); NEON is arm64's
// baseline and needs none.

#ifndef PROTOACCEL_VARINT_DECODE_BLOCK_LOOP_H_
#define PROTOACCEL_VARINT_DECODE_BLOCK_LOOP_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "varint_decode/scalar_decode.h"

#ifdef PROTOACCEL_KERNEL_TARGET
#include "dispatch/target.h"
PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)
#endif

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
// Internal linkage: each kernel file compiles this for its own instruction
// set (see scalar_decode.h).
namespace {

// Byte shuffles (pshufb, tbl) that move the 16-bit slots whose bit is set
// in an 8-bit mask to the front, in order; 0x80 selects a zero byte for
// both.
constexpr std::array<std::array<uint8_t, 16>, 256> MakePackTable() {
  std::array<std::array<uint8_t, 16>, 256> table{};
  for (int mask = 0; mask < 256; ++mask) {
    int out = 0;
    for (int slot = 0; slot < 8; ++slot) {
      if ((mask >> slot) & 1) {
        table[mask][out++] = static_cast<uint8_t>(2 * slot);
        table[mask][out++] = static_cast<uint8_t>(2 * slot + 1);
      }
    }
    while (out < 16) table[mask][out++] = 0x80;
  }
  return table;
}
constexpr std::array<std::array<uint8_t, 16>, 256> kPackTable = MakePackTable();

template <typename Conversion>
constexpr bool kNeedsHighBits = !std::is_same<Conversion, Low32>::value &&
                                !std::is_same<Conversion, ZigZag32>::value;

// Decodes the varints ending at the set bits of `ends` (a mask over the 64
// bytes at q), the first of which began `pending` bytes before q, a group
// of Block::kGroup<Conversion> at a time. The last group may fill up to kGroup - 1
// slots past them, from q + 64; Block::DecodeGroup reads 16 bytes from each
// start, so this reads [q - pending, q + 80).
template <typename Block, typename Conversion>
inline void DecodeEnds(const char* q, uint64_t ends, int pending,
                       typename Conversion::Out* out) {
  const char* next = q - pending;
  // An index, not a pointer: after the last group, out + done may be past
  // the room.
  size_t done = 0;
  do {
    constexpr int kGroup = Block::template kGroup<Conversion>;
    const char* starts[kGroup];
#pragma GCC unroll 4
    for (int i = 0; i < kGroup; ++i) {
      starts[i] = next;
      // Past the last end, bit 63 sends the spare lanes to q + 64.
      uint64_t at = static_cast<uint64_t>(__builtin_ctzll(ends | uint64_t{1} << 63));
      // gcc 12 adds the 1 in 32 bits and sign-extends, two instructions a
      // varint; hidden from it, the index and the 1 fold into the load's
      // address.
      asm("" : "+r"(at));
      next = q + 1 + at;
      ends &= ends - 1;
    }
    Block::template DecodeGroup<Conversion>(starts, out + done);
    done += kGroup;
  } while (ends != 0);
}

// True if the varints ending at `ends` all have at most 10 bytes, the first
// having begun `pending` bytes before the mask. Protobuf rejects longer ones.
inline bool NoneTooLong(uint64_t ends, int pending) {
  if (pending + __builtin_ctzll(ends) >= 10) return false;
  // Bit i of runs: bytes i..i+9 all continue, below the last end.
  uint64_t runs = ~ends & (~uint64_t{0} >> __builtin_clzll(ends));
  runs &= runs >> 1;
  runs &= runs >> 2;
  runs &= runs >> 4;
  return (runs & (runs >> 2)) == 0;
}

// A bit per byte of the 64 at q whose top bit is clear.
template <typename Block>
inline uint64_t BlockTerminators(const char* q) {
  uint64_t ends = 0;
#pragma GCC unroll 4
  for (int i = 0; i < 64; i += Block::kSize) {
    ends |= static_cast<uint64_t>(Block::Terminators(q + i)) << i;
  }
  return ends;
}

// A block may write up to kSpare slots past its last value: the short
// path fills 8 slots per 8 bytes, at least 4 of them values, and
// DecodeEnds up to kGroup - 1. The caller's room covers them only if at
// least kSpare varints end after the block, in [q + 64, end): so each
// block that writes spare slots first counts the terminators after it.
// That count, over the next block, is the next block's mask; for the
// last block it comes from the bytes up to `end`. On valid data the 40
// bytes after a block always hold 4 varints, so valid input never leaves
// the loop on this check; input that does is left to the scalar tail.
// Reads stay below q + 80 (DecodeEnds) and below `end` (the masks), and
// at or above p: the short path reads q[-1] only when q > p.
constexpr ptrdiff_t kRoom = 40;
constexpr int kSpare = 4;

// Block provides kSize (16, 32 or 64), Terminators(p) (a bit per byte whose
// top bit is clear, over kSize bytes, in an integer of kSize bits or more;
// NEON's takes all 64 at once), StoreOneByteValues<Conversion>(p,
// out) (kSize values), DecodeShort<Conversion>(q, at_start, ends, out) (the
// 64 bytes at q, all varints of one or two bytes ending at `ends`; no byte
// before q if at_start, else q[-1] is read), kGroup<Conversion> and
// DecodeGroup<Conversion>(starts, out) (the kGroup varints at starts[],
// each read as 16 bytes), and for the 16-byte steps before and after the
// blocks, IsOneByteRun16(p) and StoreOneByteRun16<Conversion>(p, out).
//
// Out of line, so that the short inputs DecodeBlocks() below sends to the
// scalar kernel pay for none of its frame.
template <typename Block, typename Conversion>
__attribute__((noinline)) DecodeResult DecodeBlockLoop(
    const char* p, const char* end, const char* limit,
    typename Conversion::Out* out) {
  size_t count = 0;
  int pending = 0;
  const char* q = p;
  static_assert(Block::template kGroup<Conversion> - 1 <= kSpare,
                "room for DecodeEnds");
  uint64_t ends = 0;
  if (end - q >= 64 + kRoom) ends = BlockTerminators<Block>(q);
  for (; end - q >= 64 + kRoom && limit - q >= 80; q += 64) {
    // Terminators in [q + 64, min(q + 128, end)), bit 0 at q + 64.
    const uint64_t after =
        end - q >= 128 ? BlockTerminators<Block>(q + 64)
                       : BlockTerminators<Block>(end - 64) >> (128 - (end - q));
    if (ends == ~uint64_t{0} && pending == 0) {
#pragma GCC unroll 4
      for (int i = 0; i < 64; i += Block::kSize) {
        Block::template StoreOneByteValues<Conversion>(q + i, out + count + i);
      }
      count += 64;
      ends = after;
      continue;
    }
    if (ends == 0 || !NoneTooLong(ends, pending) ||
        __builtin_popcountll(after) < kSpare) {
      break;
    }
    const uint64_t continues = ~ends;
    if (pending <= 1 &&
        (continues & ((continues << 1) | static_cast<uint64_t>(pending))) == 0) {
      // Every varint has one or two bytes.
      Block::template DecodeShort<Conversion>(q, q == p, ends, out + count);
    } else {
      DecodeEnds<Block, Conversion>(q, ends, pending, out + count);
    }
    count += __builtin_popcountll(ends);
    pending = __builtin_clzll(ends);
    ends = after;
  }
  // The rest, fewer than 64 + 40 bytes (or an error): one-byte runs still a
  // block at a time, since they are common and the widening is exact; the
  // others one varint at a time.
  if (pending == 0) {
    for (; end - q >= 16 && Block::IsOneByteRun16(q); q += 16) {
      Block::template StoreOneByteRun16<Conversion>(q, out + count);
      count += 16;
    }
    if (q == end) return {q, count, true};
  }
  const DecodeResult tail =
      ScalarKernel<Conversion>()(q - pending, end, limit, out + count);
  return {tail.ptr, count + tail.count, tail.ok};
}

// Below 64 + 40 bytes the block loop does not run: only a leading run of
// one-byte varints, 16 at a time, gains from vectors there, and the rest is
// the scalar kernel's, reached by a tail call. (Through the loop's frame, 4
// one-byte values took 5.5 ns with SSE4.1 against 3.3 for scalar on Zen 4.)
template <typename Block, typename Conversion>
DecodeResult DecodeBlocks(const char* p, const char* end, const char* limit,
                          typename Conversion::Out* out) {
  if (end - p < 16 || (end - p < 64 + kRoom && !Block::IsOneByteRun16(p))) {
    return DecodeScalar<Conversion>(p, end, limit, out);
  }
  return DecodeBlockLoop<Block, Conversion>(p, end, limit, out);
}

}  // namespace
}  // namespace internal
PROTOACCEL_NAMESPACE_END

#ifdef PROTOACCEL_KERNEL_TARGET
PROTOACCEL_TARGET_END
#endif

#endif  // PROTOACCEL_VARINT_DECODE_BLOCK_LOOP_H_
