// The count of every level against the naive one, on input that ends at a
// guard page (a read past n faults).

#include <cstdint>
#include <cstring>

#include "fuzz_util.h"
#include "guarded_memory.h"
#include "reference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static protoaccel::testing::GuardedArena input;
  char* p = input.EndingAt(size);
  if (size > 0) std::memcpy(p, data, size);
  const size_t want = protoaccel::reference::CountVarints(p, size);
  protoaccel::fuzz::ForEachLevel([&](protoaccel::Isa isa, const auto& k) {
    if (k.varint_count.count(p, size) != want) protoaccel::fuzz::Fail("count", isa);
  });
  return 0;
}
