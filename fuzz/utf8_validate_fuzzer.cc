// The UTF-8 check and the valid prefix of every level against the scalar
// ones, on input that ends at a guard page.

#include <cstdint>
#include <cstring>

#include "fuzz_util.h"
#include "guarded_memory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static protoaccel::testing::GuardedArena input;
  char* p = input.EndingAt(size);
  if (size > 0) std::memcpy(p, data, size);
  const auto& s = protoaccel::fuzz::Scalar().utf8;
  const bool valid = s.validate(p, size);
  const size_t prefix = s.valid_prefix(p, size);
  if (valid != (prefix == size)) protoaccel::fuzz::Fail("scalar's prefix", protoaccel::Isa::kScalar);
  protoaccel::fuzz::ForEachSimdLevel([&](protoaccel::Isa isa, const auto& k) {
    if (k.utf8.validate(p, size) != valid) protoaccel::fuzz::Fail("validate", isa);
    if (k.utf8.valid_prefix(p, size) != prefix) protoaccel::fuzz::Fail("valid_prefix", isa);
  });
  return 0;
}
