// The packed size and encoder of every level against the scalar ones. The
// first byte chooses the type; the rest are its values, in a buffer that
// ends at a guard page, and each encoding goes into exactly the size
// scalar computed, before another.

#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_util.h"
#include "guarded_memory.h"

namespace {

using protoaccel::Isa;
using protoaccel::internal::EncodeFn;
using protoaccel::internal::SizeFn;

template <typename T>
void Compare(SizeFn<T> scalar_size, EncodeFn<T> scalar_encode, SizeFn<T> size,
             EncodeFn<T> encode, Isa isa, const uint8_t* data, size_t bytes) {
  static protoaccel::testing::GuardedArena input;
  const size_t n = bytes / sizeof(T);
  T* v = reinterpret_cast<T*>(input.EndingAt(n * sizeof(T)));
  if (n > 0) std::memcpy(v, data, n * sizeof(T));
  const size_t want_size = scalar_size(v, n);
  if (size(v, n) != want_size) protoaccel::fuzz::Fail("size", isa);
  std::vector<char> want(want_size + 1);
  if (scalar_encode(v, n, want.data()) != want.data() + want_size) {
    protoaccel::fuzz::Fail("scalar's size", Isa::kScalar);
  }
  char* out = protoaccel::testing::OutputArena().EndingAt(want_size);
  if (encode(v, n, out) != out + want_size) protoaccel::fuzz::Fail("encoded length", isa);
  if (want_size != 0 && std::memcmp(out, want.data(), want_size) != 0) {
    protoaccel::fuzz::Fail("encoding", isa);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int type = data[0] % 5;
  const auto& s = protoaccel::fuzz::Scalar().varint_encode;
  protoaccel::fuzz::ForEachSimdLevel([&](Isa isa, const auto& k) {
    const auto& e = k.varint_encode;
    switch (type) {
      case 0: Compare(s.size_uint32, s.encode_uint32, e.size_uint32, e.encode_uint32, isa, data + 1, size - 1); break;
      case 1: Compare(s.size_int32, s.encode_int32, e.size_int32, e.encode_int32, isa, data + 1, size - 1); break;
      case 2: Compare(s.size_sint32, s.encode_sint32, e.size_sint32, e.encode_sint32, isa, data + 1, size - 1); break;
      case 3: Compare(s.size_uint64, s.encode_uint64, e.size_uint64, e.encode_uint64, isa, data + 1, size - 1); break;
      default: Compare(s.size_sint64, s.encode_sint64, e.size_sint64, e.encode_sint64, isa, data + 1, size - 1); break;
    }
  });
  return 0;
}
