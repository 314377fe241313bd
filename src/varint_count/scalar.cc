#include "dispatch/kernels.h"
#include "varint_count/scalar_count.h"

namespace protoaccel {
namespace internal {

const VarintCountKernels kVarintCountScalar = {CountVarintsScalar};

}  // namespace internal
}  // namespace protoaccel
