#include "dispatch/kernels.h"
#include "varint_decode/scalar_decode.h"

namespace protoaccel {
namespace internal {

const VarintDecodeKernels kVarintDecodeScalar = {
    DecodeScalar<Low32>,    DecodeScalar<Full64>,  DecodeScalar<ZigZag32>,
    DecodeScalar<ZigZag64>, DecodeScalar<Boolean>,
};

}  // namespace internal
}  // namespace protoaccel
