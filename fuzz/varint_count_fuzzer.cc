// The count of every level against the naive one, on input that ends at a
// guard page (a read past n faults).

#include <cstdint>

#include "fuzz_util.h"
#include "reference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* p = protoaccel::fuzz::GuardedInput(data, size);
  const size_t want = protoaccel::reference::CountVarints(p, size);
  protoaccel::fuzz::ForEachLevel([&](protoaccel::Isa isa, const auto& k) {
    if (k.varint_count.count(p, size) != want) protoaccel::fuzz::Fail("count", isa);
  });
  return 0;
}
