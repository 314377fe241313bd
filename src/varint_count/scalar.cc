#include <cstring>

#include "dispatch/kernels.h"

namespace protoaccel {
namespace internal {
namespace {

// Eight bytes at a time. The byte sum is a multiply rather than a popcount:
// without -mpopcnt, gcc turns popcount into a libgcc call.
size_t CountVarintsScalar(const char* p, size_t n) {
  constexpr uint64_t kTopBits = 0x8080808080808080;
  size_t count = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    std::memcpy(&word, p + i, 8);
    const uint64_t ends = (~word & kTopBits) >> 7;  // 1 in each byte's low bit
    count += (ends * 0x0101010101010101) >> 56;     // at most 8: no carry out
  }
  for (; i < n; ++i) count += static_cast<uint8_t>(p[i]) < 0x80;
  return count;
}

}  // namespace

const VarintCountKernels kVarintCountScalar = {CountVarintsScalar};

}  // namespace internal
}  // namespace protoaccel
