#include "dispatch/kernels.h"
#include "utf8_validate/scalar_utf8.h"

namespace protoaccel {
namespace internal {
namespace {

// Short ASCII as the SIMD kernels test it: before the loop's byte steps
// (7 of 8 bytes, or all of a shorter string) and its word loop.
bool ValidateScalar(const char* p, size_t n) {
  if (n <= kShortAsciiBytes && IsShortAscii(p, n)) return true;
  return ValidPrefixScalar(p, n) == n;
}

size_t ValidPrefixShortFirst(const char* p, size_t n) {
  if (n <= kShortAsciiBytes && IsShortAscii(p, n)) return n;
  return ValidPrefixScalar(p, n);
}

}  // namespace

const Utf8Kernels kUtf8Scalar = {ValidateScalar, ValidPrefixShortFirst};

}  // namespace internal
}  // namespace protoaccel
