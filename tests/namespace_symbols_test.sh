#!/bin/sh
# Every symbol libprotoaccel.a defines for the linker is in protoaccel::v1
# (aside from what the toolchain adds: DW.ref.__gxx_personality_v0, ASan's
# __odr_asan.<one of ours>, i386's __x86.get_pc_thunk.*): the link of
# namespace_test catches strong symbols defined twice, this the weak ones
# (inline functions, templates) that would merge silently.
# Usage: namespace_symbols_test.sh LIBPROTOACCEL_A
set -eu
nm -C --defined-only --extern-only "$1" >"${TMPDIR:-/tmp}/protoaccel-nm.$$"
outside=$(sed -n 's/^[0-9a-f]* [A-Za-z] //p' "${TMPDIR:-/tmp}/protoaccel-nm.$$" |
  grep -v -e '^protoaccel::v1::' -e '^DW\.ref\.__gxx_personality_v0$' \
    -e '^__odr_asan[._a-z]*_ZN10protoaccel2v1' -e '^__x86\.get_pc_thunk\.[a-z]*$' || true)
count=$(grep -c ' protoaccel::v1::' "${TMPDIR:-/tmp}/protoaccel-nm.$$" || true)
rm -f "${TMPDIR:-/tmp}/protoaccel-nm.$$"
if [ -n "$outside" ]; then
  echo "defined outside protoaccel::v1:"
  echo "$outside" | head -20
  exit 1
fi
[ "$count" -gt 0 ] || { echo "no protoaccel::v1 symbol in $1"; exit 1; }
echo "namespace_symbols_test: $count symbols, all in protoaccel::v1"
