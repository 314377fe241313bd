#include "dispatch/kernels.h"
#include "utf8_validate/scalar_utf8.h"

namespace protoaccel {
namespace internal {
namespace {

bool ValidateScalar(const char* p, size_t n) {
  return ValidPrefixScalar(p, n) == n;
}

}  // namespace

const Utf8Kernels kUtf8Scalar = {ValidateScalar, ValidPrefixScalar};

}  // namespace internal
}  // namespace protoaccel
