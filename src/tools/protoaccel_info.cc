// Prints what protoaccel detected and which kernel each family uses.
// Exits 2 if PROTOACCEL_ISA holds something other than a level's name.

#include <cstdio>

#include "protoaccel/protoaccel.h"

int main() {
  std::fputs(protoaccel::Describe(), stdout);
  return *protoaccel::ConfigError() != '\0' ? 2 : 0;
}
