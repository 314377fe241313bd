// The block loop of the SSE4.1 and AVX2 decoders.
//
// Blocks of 64 bytes are read at fixed steps, whatever the varints'
// lengths: only `pending`, the bytes of an unfinished varint carried into
// the next block, depends on the data, and it comes from the block's own
// terminator mask (bytes with the top bit clear), so no block's loads wait
// for the one before. Each block takes one of three paths:
//   - 64 one-byte varints: a widening copy;
//   - varints of one or two bytes: each terminator's value computed in a
//     16-bit slot from it and the byte before, then packed to the front of
//     each 8 slots by a pshufb from a table;
//   - anything else: the varints' starts, read off the mask, are loaded
//     one per 64-bit lane (2 per SSE vector, 4 per AVX2 one), the bytes
//     past each lane's first terminator cleared, and the 7-bit groups
//     packed with pmaddubsw and pmaddwd. No branch depends on a varint's
//     length (the byte loop of the scalar kernel mispredicts on mixed
//     lengths), and no PDEP/PEXT, slow on AMD before Zen 3.
// Compiled for the instruction set of the file that includes it
// (PROTOACCEL_KERNEL_TARGET, see dispatch/target.h), so that the intrinsics
// compile for its instruction set.

#ifndef PROTOACCEL_VARINT_DECODE_BLOCK_DECODE_H_
#define PROTOACCEL_VARINT_DECODE_BLOCK_DECODE_H_

#include <immintrin.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "varint_decode/scalar_decode.h"

#include "dispatch/target.h"

#ifndef PROTOACCEL_KERNEL_TARGET
#error "define PROTOACCEL_KERNEL_TARGET, the instruction set, before including this"
#endif
PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
// Internal linkage: each kernel file compiles this for its own instruction
// set (see scalar_decode.h).
namespace {

// pshufb controls that move the 16-bit slots whose bit is set in an 8-bit
// mask to the front, in order.
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

// Stores the 8 values in 16-bit slots, converted: all 8, even where fewer
// are valid (the caller leaves room).
template <typename Conversion>
inline void StoreShort8(__m128i v, typename Conversion::Out* out);

inline void Store128(void* out, __m128i v) {
  _mm_storeu_si128(static_cast<__m128i*>(out), v);
}
inline __m128i ZigZag16(__m128i v) {  // equals ZigZag32/64 below 2^16
  return _mm_xor_si128(_mm_srli_epi16(v, 1),
                       _mm_sub_epi16(_mm_setzero_si128(),
                                     _mm_and_si128(v, _mm_set1_epi16(1))));
}
template <>
inline void StoreShort8<Low32>(__m128i v, uint32_t* out) {
  Store128(out, _mm_cvtepu16_epi32(v));
  Store128(out + 4, _mm_cvtepu16_epi32(_mm_srli_si128(v, 8)));
}
template <>
inline void StoreShort8<ZigZag32>(__m128i v, int32_t* out) {
  const __m128i z = ZigZag16(v);
  Store128(out, _mm_cvtepi16_epi32(z));
  Store128(out + 4, _mm_cvtepi16_epi32(_mm_srli_si128(z, 8)));
}
template <>
inline void StoreShort8<Full64>(__m128i v, uint64_t* out) {
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    Store128(out + 2 * i, _mm_cvtepu16_epi64(v));
    v = _mm_srli_si128(v, 4);
  }
}
template <>
inline void StoreShort8<ZigZag64>(__m128i v, int64_t* out) {
  __m128i z = ZigZag16(v);
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    Store128(out + 2 * i, _mm_cvtepi16_epi64(z));
    z = _mm_srli_si128(z, 4);
  }
}
template <>
inline void StoreShort8<Boolean>(__m128i v, bool* out) {
  const __m128i bytes = _mm_packus_epi16(v, v);  // values are below 2^14
  _mm_storel_epi64(static_cast<__m128i*>(static_cast<void*>(out)),
                   _mm_min_epu8(bytes, _mm_set1_epi8(1)));
}

// The low 4 or 2 bytes of a vector, loaded so that the widening below
// takes them from memory (pmovzx m32/m16): no move from a general register,
// which made 16 one-byte 64-bit values slower than the scalar loop.
inline __m128i Load4(const char* p) { return _mm_loadu_si32(p); }
inline __m128i Load2(const char* p) { return _mm_loadu_si16(p); }
inline __m128i ZigZag32x4(__m128i x) {
  return _mm_xor_si128(_mm_srli_epi32(x, 1),
                       _mm_sub_epi32(_mm_setzero_si128(),
                                     _mm_and_si128(x, _mm_set1_epi32(1))));
}
inline __m128i ZigZag64x2(__m128i x) {
  return _mm_xor_si128(_mm_srli_epi64(x, 1),
                       _mm_sub_epi64(_mm_setzero_si128(),
                                     _mm_and_si128(x, _mm_set1_epi64x(1))));
}

// 16 one-byte varints at p, widened.
template <typename Conversion>
inline void StoreOneByte16(const char* p, typename Conversion::Out* out);
template <>
inline void StoreOneByte16<Low32>(const char* p, uint32_t* out) {
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) Store128(out + 4 * i, _mm_cvtepu8_epi32(Load4(p + 4 * i)));
}
template <>
inline void StoreOneByte16<ZigZag32>(const char* p, int32_t* out) {
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    Store128(out + 4 * i, ZigZag32x4(_mm_cvtepu8_epi32(Load4(p + 4 * i))));
  }
}
template <>
inline void StoreOneByte16<Full64>(const char* p, uint64_t* out) {
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) Store128(out + 2 * i, _mm_cvtepu8_epi64(Load2(p + 2 * i)));
}
template <>
inline void StoreOneByte16<ZigZag64>(const char* p, int64_t* out) {
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    Store128(out + 2 * i, ZigZag64x2(_mm_cvtepu8_epi64(Load2(p + 2 * i))));
  }
}
template <>
inline void StoreOneByte16<Boolean>(const char* p, bool* out) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  Store128(out, _mm_min_epu8(v, _mm_set1_epi8(1)));
}


// Stores the 8 slots' values whose bit is set in `mask`, in order, with
// kStore (which writes all 8 slots). Returns how many.
template <typename Conversion, void (*kStore)(__m128i, typename Conversion::Out*)>
inline int StorePacked8(__m128i slots, uint32_t mask, typename Conversion::Out* out) {
  const __m128i control =
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(kPackTable[mask].data()));
  kStore(_mm_shuffle_epi8(slots, control), out);
  return __builtin_popcount(mask);
}

// 16 bytes of one- and two-byte varints: stores the values that end in
// `bytes` (bit i of `ends` for byte i); `before` holds the byte before each.
// Returns how many.
template <typename Conversion>
inline int DecodeShort16(__m128i bytes, __m128i before, uint32_t ends,
                         typename Conversion::Out* out) {
  // Where the byte before continues a varint, the pair (its low 7 bits,
  // the byte); elsewhere (the byte, 0). Slot i of the pairs, weighted 1 and
  // 128 by pmaddubsw (the weights the unsigned operand), is then the value
  // of a varint that ends at byte i: at most 2^14 - 1, no saturation. The
  // other slots, whatever they hold, are not moved to the output.
  const __m128i continues = _mm_cmplt_epi8(before, _mm_setzero_si128());
  const __m128i first = _mm_blendv_epi8(
      bytes, _mm_and_si128(before, _mm_set1_epi8(0x7f)), continues);
  const __m128i second = _mm_and_si128(bytes, continues);
  int count = 0;
#pragma GCC unroll 2
  for (int half = 0; half < 2; ++half) {
    const __m128i pairs = half == 0 ? _mm_unpacklo_epi8(first, second)
                                    : _mm_unpackhi_epi8(first, second);
    const __m128i v =
        _mm_maddubs_epi16(_mm_set1_epi16(static_cast<int16_t>(0x8001)), pairs);
    count += StorePacked8<Conversion, StoreShort8<Conversion>>(
        v, (ends >> (8 * half)) & 0xff, out + count);
  }
  return count;
}

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

// Block provides kSize (16 or 32), Terminators(p) (a bit per byte whose top
// bit is clear, over kSize bytes), StoreOneByteValues<Conversion>(p, out)
// (kSize values), DecodeShort<Conversion>(q, at_start, ends, out) (the
// 64 bytes at q, all varints of one or two bytes ending at `ends`; no byte
// before q if at_start, else q[-1] is read), kGroup<Conversion> and
// DecodeGroup<Conversion>(starts, out): the kGroup varints at starts[],
// each read as 16 bytes.
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
    for (; end - q >= 16 && _mm_movemask_epi8(_mm_loadu_si128(
                                reinterpret_cast<const __m128i*>(q))) == 0;
         q += 16) {
      StoreOneByte16<Conversion>(q, out + count);
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
  if (end - p < 16 ||
      (end - p < 64 + kRoom &&
       _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))) != 0)) {
    return DecodeScalar<Conversion>(p, end, limit, out);
  }
  return DecodeBlockLoop<Block, Conversion>(p, end, limit, out);
}

}  // namespace
}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_VARINT_DECODE_BLOCK_DECODE_H_
