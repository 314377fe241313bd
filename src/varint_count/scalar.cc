#include "dispatch/kernels.h"
#include "varint_count/scalar_count.h"

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {

const VarintCountKernels kVarintCountScalar = {CountVarintsScalar};

}  // namespace internal
PROTOACCEL_NAMESPACE_END
