// The packed size and encoder of every level against the naive encoder
// (seven bits at a time, tests/reference.h). The first byte chooses the
// type; the rest, reinterpreted as its values, lie in a buffer that ends at
// a guard page, and each encoding goes into exactly the size the reference
// wrote, before another. Int64 has no kernels of its own: PackedSizeInt64
// and EncodeInt64 reinterpret the values as UInt64's, so type 3 is both.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "guarded_memory.h"
#include "reference.h"

namespace {

using protoaccel::Isa;
using protoaccel::internal::EncodeFn;
using protoaccel::internal::SizeFn;

template <typename T>
void Check(SizeFn<T> size, EncodeFn<T> encode, Isa isa, const T* v, size_t n,
           const std::string& want) {
  if (size(v, n) != want.size()) protoaccel::fuzz::Fail("size", isa);
  char* out = protoaccel::testing::OutputArena().EndingAt(want.size());
  if (encode(v, n, out) != out + want.size()) protoaccel::fuzz::Fail("encoded length", isa);
  if (!want.empty() && std::memcmp(out, want.data(), want.size()) != 0) {
    protoaccel::fuzz::Fail("encoding", isa);
  }
}

// One type: the values from the input's bytes (a trailing partial value is
// dropped), the reference's wire bytes, then every level.
template <typename T>
void Run(const uint8_t* data, size_t bytes, uint64_t (*wire)(T),
         SizeFn<T> protoaccel::internal::VarintEncodeKernels::*size,
         EncodeFn<T> protoaccel::internal::VarintEncodeKernels::*encode) {
  static protoaccel::testing::GuardedArena input;
  const size_t n = bytes / sizeof(T);
  T* v = reinterpret_cast<T*>(input.EndingAt(n * sizeof(T)));
  if (n > 0) std::memcpy(v, data, n * sizeof(T));
  const std::string want = protoaccel::reference::Encode(std::vector<T>(v, v + n), wire);
  protoaccel::fuzz::ForEachLevel([&](Isa isa, const protoaccel::internal::Kernels& k) {
    Check(k.varint_encode.*size, k.varint_encode.*encode, isa, v, n, want);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  namespace ref = protoaccel::reference;
  using K = protoaccel::internal::VarintEncodeKernels;
  switch (data[0] % 5) {
    case 0: Run<uint32_t>(data + 1, size - 1, ref::WireUInt32, &K::size_uint32, &K::encode_uint32); break;
    case 1: Run<int32_t>(data + 1, size - 1, ref::WireInt32, &K::size_int32, &K::encode_int32); break;
    case 2: Run<int32_t>(data + 1, size - 1, ref::WireSInt32, &K::size_sint32, &K::encode_sint32); break;
    case 3: Run<uint64_t>(data + 1, size - 1, ref::WireUInt64, &K::size_uint64, &K::encode_uint64); break;
    default: Run<int64_t>(data + 1, size - 1, ref::WireSInt64, &K::size_sint64, &K::encode_sint64); break;
  }
  return 0;
}
