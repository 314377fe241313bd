#!/bin/sh
# The scalar kernels and the dispatch must run on any x86-64 CPU, and code
# that the linker may merge across objects (inline functions and templates
# of external linkage, in COMDAT sections) must not come from a file
# compiled for AVX2 or AVX-512: no VEX- or EVEX-encoded instruction there.
# Those are the mnemonics starting with v (vmovdqu, vpxor, vzeroupper...),
# the mask-register ones (kmov, kand...) and BMI's (andn, shlx, pdep...).
#
# Usage: no_vex_test.sh OBJECT...  (libprotoaccel's objects; one argument
# may hold several, separated by semicolons, as CMake lists them)
set -eu
IFS=';'
# shellcheck disable=SC2068
set -- $@
unset IFS
vex='^(v[a-z0-9]+|k(mov|and|or|xor|not|shift|test|ortest|add|unpck)[a-z]*|andn|bextr|blsi|blsmsk|blsr|bzhi|mulx|pdep|pext|rorx|sarx|shlx|shrx)$'
status=0 checked=0
for object in "$@"; do
  case $object in
    */scalar.cc.o|*/dispatch/*.o|*/tools/*.o) where=all ;;  # every section
    *) where=comdat ;;  # only what the linker may merge
  esac
  listing=$(objdump -d --no-show-raw-insn "$object") || { echo "cannot read $object"; exit 1; }
  found=$(printf '%s\n' "$listing" | awk -v where="$where" -v vex="$vex" '
    /^Disassembly of section / { section = $4; sub(/:$/, "", section); next }
    /^ *[0-9a-f]+:\t/ {
      if (where == "comdat" && section == ".text") next
      split($0, field, "\t"); split(field[2], word, " ")
      if (word[1] ~ vex) { print section ": " field[2]; exit }
    }')
  checked=$((checked + 1))
  if [ -n "$found" ]; then
    echo "$object ($where): $found"
    status=1
  fi
done
[ "$checked" -gt 0 ] || { echo "no objects given"; exit 1; }
echo "$checked objects checked"
exit $status
