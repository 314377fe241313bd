// Varint count with SSE2 and POPCNT: a popcount of each 16-byte block's
// movemask.

#include "dispatch/kernels.h"

#if PROTOACCEL_X86
#include <immintrin.h>

#define PROTOACCEL_KERNEL_TARGET "sse4.1,popcnt"

#include "varint_count/scalar_count.h"

#include "dispatch/target.h"

PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

size_t CountVarintsSse4(const char* p, size_t n) {
  if (n < 32) return CountVarintsScalar(p, n);  // as for AVX2
  size_t count = 0;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    count += 16 - __builtin_popcount(static_cast<uint32_t>(_mm_movemask_epi8(v)));
  }
  return count + CountVarintsScalar(p + i, n - i);
}

}  // namespace

const VarintCountKernels kVarintCountSse4 = {CountVarintsSse4};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

PROTOACCEL_TARGET_END

#endif  // PROTOACCEL_X86
