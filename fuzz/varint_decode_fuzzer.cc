// Every decoder of every level against the scalar one. The first byte
// chooses how many of the input's bytes lie past `end`, readable up to
// `limit` (0 to 16, as protobuf's slop bytes); the input ends at a guard
// page, and each output has exactly the room MaxDecodedValues() promises,
// before another.

#include <cstdint>
#include <cstring>
#include <memory>

#include "fuzz_util.h"
#include "guarded_memory.h"

namespace {

using protoaccel::DecodeResult;
using protoaccel::Isa;
using protoaccel::internal::DecodeFn;
using protoaccel::internal::Kernels;

// The room for [p, end), counted here rather than by the kernels under test.
size_t Room(const char* p, const char* end) {
  size_t room = 0;
  for (const char* q = p; q < end; ++q) room += static_cast<uint8_t>(*q) < 0x80;
  return room + (p < end && static_cast<uint8_t>(end[-1]) >= 0x80);
}

template <typename T>
void Compare(DecodeFn<T> scalar, DecodeFn<T> simd, Isa isa, const char* p,
             const char* end, const char* limit) {
  const size_t room = Room(p, end);
  std::unique_ptr<T[]> want(new T[room + 1]);  // not vector<bool>
  const DecodeResult w = scalar(p, end, limit, want.get());
  T* got = reinterpret_cast<T*>(protoaccel::testing::OutputArena().EndingAt(room * sizeof(T)));
  const DecodeResult g = simd(p, end, limit, got);
  if (g.ok != w.ok || g.ptr != w.ptr || g.count != w.count) protoaccel::fuzz::Fail("result", isa);
  if (w.count > room) protoaccel::fuzz::Fail("room (scalar)", Isa::kScalar);
  if (w.count != 0 && std::memcmp(got, want.get(), w.count * sizeof(T)) != 0) {
    protoaccel::fuzz::Fail("values", isa);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t n = size - 1;
  const size_t slop = data[0] % 17 < n ? data[0] % 17 : n;
  static protoaccel::testing::GuardedArena input;
  char* p = input.EndingAt(n);
  if (n > 0) std::memcpy(p, data + 1, n);
  const char* limit = p + n;
  const char* end = limit - slop;
  const auto& s = protoaccel::fuzz::Scalar().varint_decode;
  protoaccel::fuzz::ForEachSimdLevel([&](Isa isa, const Kernels& k) {
    const auto& d = k.varint_decode;
    Compare<uint32_t>(s.low32, d.low32, isa, p, end, limit);
    Compare<uint64_t>(s.full64, d.full64, isa, p, end, limit);
    Compare<int32_t>(s.zigzag32, d.zigzag32, isa, p, end, limit);
    Compare<int64_t>(s.zigzag64, d.zigzag64, isa, p, end, limit);
    Compare<bool>(s.boolean, d.boolean, isa, p, end, limit);
  });
  return 0;
}
