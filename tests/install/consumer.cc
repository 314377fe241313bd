// A program of a project that uses an installed protoaccel: built by
// tests/install_test.sh with find_package(protoaccel) and with pkg-config.

#include <cstdio>
#include <cstring>

#include <protoaccel/protoaccel.h>

int main() {
  const char bytes[] = {'\x96', '\x01', '\x05'};  // 150, 5
  uint32_t values[3];
  const protoaccel::DecodeResult r =
      protoaccel::DecodeUInt32(bytes, bytes + 3, bytes + 3, values);
  if (!r.ok || r.count != 2 || values[0] != 150 || values[1] != 5) {
    std::fprintf(stderr, "consumer: wrong decode\n");
    return 1;
  }
  std::fputs(protoaccel::Describe(), stdout);
  return std::strstr(protoaccel::Describe(), "protoaccel " PROTOACCEL_VERSION " ") ? 0 : 1;
}
