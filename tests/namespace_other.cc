// Compiled with PROTOACCEL_NAMESPACE=in_libprotobuf, as libprotobuf's
// build compiles the kernels (patches/protobuf-3.21.12/0004).
#include "protoaccel/protoaccel.h"

const char* DescribeInLibprotobuf() { return protoaccel::Describe(); }
