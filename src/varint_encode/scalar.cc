#include "dispatch/kernels.h"
#include "varint_encode/scalar_encode.h"

PROTOACCEL_NAMESPACE_BEGIN
namespace internal {

const VarintEncodeKernels kVarintEncodeScalar = {
    PackedSizeScalar<uint32_t, WireValueUInt32>,
    PackedSizeScalar<int32_t, WireValueInt32>,
    PackedSizeScalar<int32_t, WireValueSInt32>,
    PackedSizeScalar<uint64_t, WireValueUInt64>,
    PackedSizeScalar<int64_t, WireValueSInt64>,
    EncodeScalar<uint32_t, WireValueUInt32>,
    EncodeScalar<int32_t, WireValueInt32>,
    EncodeScalar<int32_t, WireValueSInt32>,
    EncodeScalar<uint64_t, WireValueUInt64>,
    EncodeScalar<int64_t, WireValueSInt64>,
};

}  // namespace internal
PROTOACCEL_NAMESPACE_END
