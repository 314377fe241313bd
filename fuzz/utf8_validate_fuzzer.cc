// The UTF-8 check and the valid prefix of every level against the naive
// code-point decoder, on input that ends at a guard page (a read past n
// faults).

#include <cstdint>

#include "fuzz_util.h"
#include "reference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const char* p = protoaccel::fuzz::GuardedInput(data, size);
  const size_t prefix = protoaccel::reference::ValidUtf8Prefix(p, size);
  protoaccel::fuzz::ForEachLevel([&](protoaccel::Isa isa, const auto& k) {
    if (k.utf8.validate(p, size) != (prefix == size)) protoaccel::fuzz::Fail("validate", isa);
    if (k.utf8.valid_prefix(p, size) != prefix) protoaccel::fuzz::Fail("valid_prefix", isa);
  });
  return 0;
}
