#include "dispatch/kernels.h"
#include "varint_decode/scalar_decode.h"

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {

const VarintDecodeKernels kVarintDecodeScalar = {
    DecodeScalar<Low32>,    DecodeScalar<Full64>,  DecodeScalar<ZigZag32>,
    DecodeScalar<ZigZag64>, DecodeScalar<Boolean>,
};

}  // namespace internal
PROTOACCEL_NAMESPACE_END
