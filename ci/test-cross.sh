#!/usr/bin/env bash
# The kernels and their tests built for another architecture with Debian's
# cross compiler, linked statically, and run here: natively for i386, under
# qemu-user for arm64, and for i386 too where this machine's kernel runs no
# 32-bit programs (one built without IA32 emulation, as some VM hosts'
# are). gtest is built from its Debian source the same way (the system's
# is for this machine).
#
# i386: 32-bit builds are a target upstream keeps; the kernels must build
# and be exact there (fewer registers, no 64-bit general-purpose
# intrinsics), at every level this CPU has, or under qemu-i386 at every
# level its CPU ("max": SSE4.1 and AVX2) has. A cross compiler rather than
# g++-multilib, which Debian will not install beside the arm64 one.
# arm64: scalar and NEON (the families with no NEON kernel run scalar).
#
# Usage: ci/test-cross.sh i386|arm64 [ctest options]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

arch=${1:-}
shift || true
case $arch in
  i386) triple=i686-linux-gnu machine='Intel 80386' emulator=() ;;
  arm64) triple=aarch64-linux-gnu machine=AArch64 emulator=(qemu-aarch64) ;;
  *) die "usage: ci/test-cross.sh i386|arm64 [ctest options]" ;;
esac

step "$arch ($triple): the kernels and their tests${emulator:+, under ${emulator[0]}}"
ensure_packages "g++-$triple" "libc6-dev-$arch-cross"
if [ "$arch" = i386 ] && ! runs_natively $triple; then
  echo "this machine's kernel runs no 32-bit programs: they run under qemu-i386"
  emulator=(qemu-i386)
fi
[ ${#emulator[@]} -eq 0 ] || ensure_packages qemu-user

mapfile -t cross < <(cross_cmake_args $triple)
cross+=(-DCMAKE_EXE_LINKER_FLAGS=-static -DCMAKE_BUILD_TYPE=Release)
[ ${#emulator[@]} -eq 0 ] || cross+=("-DCMAKE_CROSSCOMPILING_EMULATOR=${emulator[*]}")

out=out/$arch
if [ ! -f "$out/gtest/lib/cmake/GTest/GTestConfig.cmake" ]; then
  configure_and_build /usr/src/googletest "$out/build-gtest" "${cross[@]}" \
    -DBUILD_GMOCK=OFF -DCMAKE_INSTALL_PREFIX="$ROOT/$out/gtest" >/dev/null
  ninja -C "$out/build-gtest" install >/dev/null
fi
configure_and_build "$ROOT" "$out/build" "${cross[@]}" -DPROTOACCEL_BUILD_BENCHMARKS=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_Protobuf=ON -DGTest_DIR="$ROOT/$out/gtest/lib/cmake/GTest"
readelf -h "$out/build/protoaccel_info" | grep -q "Machine: *$machine" ||
  die "$out/build/protoaccel_info is not an $arch program"
(cd "$out/build" && ctest --output-on-failure "$@")
