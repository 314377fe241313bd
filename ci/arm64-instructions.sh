#!/usr/bin/env bash
# Instructions per kernel call on arm64, NEON next to scalar, counted under
# qemu-aarch64 (benchmarks/kernel_instructions.py --qemu): kernels_bench
# cross-built with Debian's arm64 google-benchmark (third_party/fetch.sh
# arm64), linked -no-pie so that qemu can log its code alone. Counts, not
# times: with no arm64 hardware here, arm64 speed is unmeasured. By hand,
# not in CI: each case takes two qemu processes of a few seconds.
#
# Usage: ci/arm64-instructions.sh [REGEX]   (cases, default N = 16 and 4096)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

filter=${1:-'/(scalar|neon)/(16|4096)$'}
ensure_packages g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
bash third_party/fetch.sh arm64
arm64=$ROOT/third_party/arm64/usr/lib/aarch64-linux-gnu
mapfile -t cross < <(cross_cmake_args aarch64-linux-gnu)
configure_and_build "$ROOT" out/arm64/build-bench "${cross[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_EXE_LINKER_FLAGS=-no-pie -DPROTOACCEL_BUILD_TESTS=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_Protobuf=ON "-Dbenchmark_DIR=$arm64/cmake/benchmark" >/dev/null
/usr/bin/python3 benchmarks/kernel_instructions.py out/arm64/build-bench/benchmarks/kernels_bench \
  --iterations 10 --filter "$filter" \
  --qemu "qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=$arm64:/usr/aarch64-linux-gnu/lib"
