// Two copies of protoaccel in one program, each whole: this build's and
// one compiled as libprotobuf compiles it, in another namespace. The link
// fails if a strong symbol is defined by both; each copy names its
// namespace. (Weak ones, inline functions and templates, would merge
// silently: namespace_symbols_test checks that every symbol the library
// defines is in protoaccel::v1.)

#include <cstdio>
#include <cstring>

#include "protoaccel/protoaccel.h"

const char* DescribeInLibprotobuf();  // namespace_other.cc

int main() {
  const char* mine = protoaccel::Describe();
  const char* other = DescribeInLibprotobuf();
  if (std::strstr(mine, "(namespace v1)\n") == nullptr ||
      std::strstr(other, "(namespace in_libprotobuf)\n") == nullptr) {
    std::fprintf(stderr, "namespace_test: wrong copies:\n%s---\n%s", mine, other);
    return 1;
  }
  std::puts("namespace_test: two copies, namespaces v1 and in_libprotobuf");
  return 0;
}
