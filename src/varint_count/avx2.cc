// Varint count with AVX2: a popcount of each 32-byte block's movemask.

#include "dispatch/kernels.h"

#if PROTOACCEL_X86
#include <immintrin.h>

#define PROTOACCEL_KERNEL_TARGET "avx2,popcnt"

#include "varint_count/scalar_count.h"

#include "dispatch/target.h"

PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

size_t CountVarintsAvx2(const char* p, size_t n) {
  // Below a block, the scalar count alone: through the loop's frame and
  // vzeroupper, 22 bytes took 5.2 ns against 3.6 on Zen 4.
  if (n < 32) return CountVarintsScalar(p, n);
  size_t count = 0;
  size_t i = 0;
  // Two movemasks make one 64-bit mask, one popcount per 64 bytes: 1.2x the
  // one-block loop at 4 KB on Zen 5.
  for (; i + 64 <= n; i += 64) {
    const auto* v = reinterpret_cast<const __m256i*>(p + i);
    const uint64_t low = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_loadu_si256(v)));
    const uint64_t high = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_loadu_si256(v + 1)));
    count += 64 - __builtin_popcountll(low | high << 32);
  }
  for (; i + 32 <= n; i += 32) {
    const __m256i v =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    count += 32 - __builtin_popcount(
                      static_cast<uint32_t>(_mm256_movemask_epi8(v)));
  }
  return count + CountVarintsScalar(p + i, n - i);
}

}  // namespace

const VarintCountKernels kVarintCountAvx2 = {CountVarintsAvx2};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_X86
