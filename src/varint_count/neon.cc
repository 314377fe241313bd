// Varint count with NEON (arm64): each byte's top bit shifted down to bit
// 0 and summed across the vector. AArch64 has no movemask; an across-lanes
// add (addv) stands in for the popcount of one.

#include "dispatch/kernels.h"

#if PROTOACCEL_ARM64
#include <arm_neon.h>

#include "varint_count/scalar_count.h"

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

size_t CountVarintsNeon(const char* p, size_t n) {
  // Below two vectors, the scalar count alone, as on x86 (not measured on
  // arm64: no hardware here).
  if (n < 32) return CountVarintsScalar(p, n);
  const auto* bytes = reinterpret_cast<const uint8_t*>(p);
  size_t count = 0;
  size_t i = 0;
  // Four vectors' continuation bits summed in byte lanes (at most 4 each),
  // then across them (at most 64): one addv per 64 bytes.
  for (; i + 64 <= n; i += 64) {
    const uint8x16_t a = vshrq_n_u8(vld1q_u8(bytes + i), 7);
    const uint8x16_t b = vshrq_n_u8(vld1q_u8(bytes + i + 16), 7);
    const uint8x16_t c = vshrq_n_u8(vld1q_u8(bytes + i + 32), 7);
    const uint8x16_t d = vshrq_n_u8(vld1q_u8(bytes + i + 48), 7);
    count += 64 - vaddvq_u8(vaddq_u8(vaddq_u8(a, b), vaddq_u8(c, d)));
  }
  for (; i + 16 <= n; i += 16) {
    count += 16 - vaddvq_u8(vshrq_n_u8(vld1q_u8(bytes + i), 7));
  }
  return count + CountVarintsScalar(p + i, n - i);
}

}  // namespace

const VarintCountKernels kVarintCountNeon = {CountVarintsNeon};

}  // namespace internal
PROTOACCEL_NAMESPACE_END

#endif  // PROTOACCEL_ARM64
