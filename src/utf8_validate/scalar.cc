#include "dispatch/kernels.h"
#include "utf8_validate/scalar_utf8.h"

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {
namespace {

// Short ASCII first, as the SIMD kernels test it: below 8 bytes the loop
// would go a byte at a time.
bool ValidateScalar(const char* p, size_t n) {
  if (IsShortAscii(p, n)) return true;
  return ValidPrefixScalar(p, n) == n;
}

size_t ValidPrefixShortFirst(const char* p, size_t n) {
  if (IsShortAscii(p, n)) return n;
  return ValidPrefixScalar(p, n);
}

}  // namespace

const Utf8Kernels kUtf8Scalar = {ValidateScalar, ValidPrefixShortFirst};

}  // namespace internal
PROTOACCEL_NAMESPACE_END
