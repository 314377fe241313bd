// Every decoder of every level against the naive one (protobuf's own loop,
// tests/reference.h). The first byte chooses how many of the input's
// bytes lie past `end`, readable up to `limit` (0 to 16, as protobuf's slop
// bytes), so that varints straddle `end` and run into `limit`; `limit` is
// the guard page, and each output has exactly the room MaxDecodedValues()
// promises before another. All five conversions run on every input: each
// has kernels of its own, and it is cheaper than having libFuzzer find
// each one's inputs.

#include <cstdint>
#include <cstring>
#include <memory>

#include "fuzz_util.h"
#include "guarded_memory.h"
#include "reference.h"

namespace {

using protoaccel::DecodeResult;
using protoaccel::Isa;
using protoaccel::internal::DecodeFn;
using protoaccel::reference::Decoded;

// MaxDecodedValues(p, end), counted here rather than by the kernels under
// test (it calls the active CountVarints).
size_t Room(const char* p, const char* end) {
  return protoaccel::reference::CountVarints(p, static_cast<size_t>(end - p)) +
         (p < end && static_cast<uint8_t>(end[-1]) >= 0x80);
}

// One conversion: the reference's values converted once, then every
// level (memcmp, not a loop of ours, whose every comparison libFuzzer
// would trace).
template <typename T, typename Convert>
void Run(DecodeFn<T> protoaccel::internal::VarintDecodeKernels::*decode, Convert convert,
         const Decoded& want, size_t room, const char* p, const char* end, const char* limit) {
  const size_t count = want.values.size();
  std::unique_ptr<T[]> values(new T[count + 1]);  // not vector<bool>
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<T>(convert(want.values[i]));
  protoaccel::fuzz::ForEachLevel([&](Isa isa, const protoaccel::internal::Kernels& k) {
    T* got = reinterpret_cast<T*>(protoaccel::testing::OutputArena().EndingAt(room * sizeof(T)));
    const DecodeResult r = (k.varint_decode.*decode)(p, end, limit, got);
    if (r.ok != want.ok || r.ptr != want.ptr || r.count != count) {
      protoaccel::fuzz::Fail("result (ok, ptr or count)", isa);
    }
    if (count != 0 && std::memcmp(got, values.get(), count * sizeof(T)) != 0) {
      protoaccel::fuzz::Fail("values", isa);
    }
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t n = size - 1;
  const size_t slop = data[0] % 17 < n ? data[0] % 17 : n;
  const char* p = protoaccel::fuzz::GuardedInput(data + 1, n);
  const char* limit = p + n;
  const char* end = limit - slop;
  const Decoded want = protoaccel::reference::Decode(p, end, limit);
  const size_t room = Room(p, end);
  if (want.values.size() > room) {  // the contract itself, not a kernel
    protoaccel::fuzz::Fail("the reference decoded more values than MaxDecodedValues()");
  }
  namespace ref = protoaccel::reference;
  using K = protoaccel::internal::VarintDecodeKernels;
  Run<uint32_t>(&K::low32, ref::AsUInt32, want, room, p, end, limit);
  Run<uint64_t>(&K::full64, ref::AsUInt64, want, room, p, end, limit);
  Run<int32_t>(&K::zigzag32, ref::AsSInt32, want, room, p, end, limit);
  Run<int64_t>(&K::zigzag64, ref::AsSInt64, want, room, p, end, limit);
  Run<bool>(&K::boolean, ref::AsBool, want, room, p, end, limit);
  return 0;
}
