// Varint count with AVX-512 BW: a popcount of each 64-byte block's
// terminator mask; the tail through a masked load.

#include <immintrin.h>

#include "dispatch/kernels.h"

#pragma GCC target("avx512f,avx512bw,popcnt")

namespace protoaccel {
namespace internal {
namespace {

size_t CountVarintsAvx512(const char* p, size_t n) {
  size_t count = 0;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i v = _mm512_loadu_si512(p + i);
    count += 64 - __builtin_popcountll(_mm512_movepi8_mask(v));
  }
  if (i < n) {
    const __mmask64 tail = ~uint64_t{0} >> (64 - (n - i));
    // Masked-off bytes load as zero: count only the loaded ones.
    const __m512i v = _mm512_maskz_loadu_epi8(tail, p + i);
    count += (n - i) - __builtin_popcountll(_mm512_movepi8_mask(v));
  }
  return count;
}

}  // namespace

const VarintCountKernels kVarintCountAvx512 = {CountVarintsAvx512};

}  // namespace internal
}  // namespace protoaccel
