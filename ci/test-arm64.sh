#!/usr/bin/env bash
# The arm64 drop-in: protobuf 3.21.12 with the series, cross-built for
# arm64 (ci/build-protobuf.sh accel-arm64), checked against Debian's own
# arm64 libprotobuf32 (third_party/fetch.sh arm64) the way
# ci/test-libprotobuf.sh checks the amd64 one:
#   1. abidiff against Debian's arm64 libprotobuf.so.32 and
#      libprotobuf-lite.so.32;
#   2. the differential and the drop-in tests, cross-built against Debian's
#      headers and its arm64 library, run under qemu-aarch64 on Debian's
#      library and on ours, scalar and NEON: the same output, and for ours
#      one allocation per packed field.
# Needs out/arm64/gtest (ci/test-cross.sh arm64 builds it).
#
# Usage: ci/test-arm64.sh [--cases N]   (differential cases, default 1000:
#   under qemu each takes about 90 ms, ten times the host's)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

cases=1000
while [ $# -gt 0 ]; do
  case $1 in
    --cases) cases=${2:?--cases needs a number}; shift ;;
    *) die "usage: ci/test-arm64.sh [--cases N]" ;;
  esac
  shift
done

step "arm64 drop-in: Debian's arm64 libprotobuf32, and ours cross-built"
ensure_packages g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user abigail-tools
bash third_party/fetch.sh arm64
bash ci/build-protobuf.sh accel-arm64
debian_lib=$ROOT/third_party/arm64/usr/lib/aarch64-linux-gnu
zlib=$ROOT/third_party/arm64/lib/aarch64-linux-gnu
ours=$ROOT/out/accel-arm64/lib
gtest=$ROOT/out/arm64/gtest/lib/cmake/GTest
[ -f "$gtest/GTestConfig.cmake" ] || die "out/arm64/gtest is missing: run ci/test-cross.sh arm64"
report=out/test-arm64
mkdir -p $report

step "ABI: out/accel-arm64 against Debian's arm64 libraries"
abi_compatible "$debian_lib" "$ours" $report

step "the differential and the drop-in tests, built against Debian's headers and arm64 library"
# Debian's headers are the same for every architecture (libprotobuf-dev is
# Multi-Arch: same); only they are put on the include path, not the rest
# of this machine's /usr/include.
mkdir -p out/arm64/debian-include
ln -sfn /usr/include/google out/arm64/debian-include/google
build=out/arm64/build-libprotobuf
mapfile -t cross < <(cross_cmake_args aarch64-linux-gnu)
configure_and_build tests/libprotobuf $build "${cross[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DProtobuf_INCLUDE_DIR=$ROOT/out/arm64/debian-include" \
  "-DProtobuf_LIBRARY=$debian_lib/libprotobuf.so.32" \
  -DProtobuf_PROTOC_EXECUTABLE=/usr/bin/protoc "-DGTest_DIR=$gtest" \
  "-DCMAKE_EXE_LINKER_FLAGS=-Wl,-rpath-link,$zlib" >/dev/null
readelf -h $build/differential | grep -q 'Machine: *AArch64' || die "$build/differential is not arm64"

# on LIBDIR [VAR=VALUE...] -- PROGRAM ARGS...: under qemu-aarch64 with
# LIBDIR's libprotobuf.so.32, the cross toolchain's C and C++ libraries,
# and Debian's arm64 zlib. The variables are set for the arm64 program
# only (-E), not for qemu's own loader.
on() {
  local env=(-E "LD_LIBRARY_PATH=$1:$zlib:/usr/aarch64-linux-gnu/lib")
  shift
  while [ "$1" != -- ]; do env+=(-E "$1"); shift; done
  shift
  qemu-aarch64 -L /usr/aarch64-linux-gnu "${env[@]}" "$@"
}

step "drop-in: the program loads out/accel-arm64's library"
loaded=$(on "$ours" LD_TRACE_LOADED_OBJECTS=1 -- $build/differential |
  awk '/libprotobuf.so.32/ {print $3}')
echo "  libprotobuf.so.32 => $loaded"
[ "$(readlink -f "$loaded")" = "$(readlink -f "$ours/libprotobuf.so.32")" ] ||
  die "the program did not load out/accel-arm64's library"
aarch64-linux-gnu-nm -C "$ours/libprotobuf.so.32" | grep 'kVarintDecodeNeon' >/dev/null ||
  die "out/accel-arm64's library has no NEON kernels"

step "differential under qemu-aarch64: $cases cases, Debian's arm64 library vs ours (scalar, neon)"
export -f on
export zlib
run_jobs "on $debian_lib -- $build/differential --cases $cases >$report/differential-debian.txt" \
  "on $ours PROTOACCEL_ISA=scalar -- $build/differential --cases $cases >$report/differential-scalar.txt" \
  "on $ours PROTOACCEL_ISA=neon -- $build/differential --cases $cases >$report/differential-neon.txt" ||
  die "the differential failed"
[ -s $report/differential-debian.txt ] || die "the differential printed nothing"
for isa in scalar neon; do
  if ! cmp -s $report/differential-debian.txt $report/differential-$isa.txt; then
    diff $report/differential-debian.txt $report/differential-$isa.txt | head -20
    die "Debian's arm64 library and ours ($isa) differ (outputs in $report/)"
  fi
done
echo "  identical, scalar and neon: $(wc -l <$report/differential-debian.txt) cases," \
  "$(grep -c '=x' $report/differential-debian.txt) with a failure"

step "drop-in tests under qemu-aarch64: Debian's library (stale sizes, malformed input), ours (all)"
on "$debian_lib" -- $build/dropin_test \
  --gtest_filter='DropInStaleSizeTest.*:DropInMalformedTest.*' --gtest_brief=1 ||
  die "Debian's arm64 library fails the stale-size or malformed-input tests"
for isa in scalar neon; do
  echo "  ours, $isa"
  on "$ours" PROTOACCEL_ISA=$isa -- $build/dropin_test --gtest_brief=1 ||
    die "ours ($isa) fails the drop-in tests"
done
echo
echo "arm64 drop-in checks passed"
