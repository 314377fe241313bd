#!/usr/bin/env bash
# All of protoaccel's tests: the kernels against their references and
# against the system's libprotobuf on every instruction set this CPU has,
# built with gcc and with clang, with the SIMD kernels compiled out, then
# again under AddressSanitizer and UndefinedBehaviorSanitizer, and as
# 32-bit x86 and arm64 code; then stock and accelerated libprotobuf
# 3.21.12, built from Debian's source, checked against each other and by
# upstream's own tests; the accelerated one cross-built for arm64 and
# checked against Debian's arm64 library under qemu-user; the fuzzers,
# briefly; last, the A/B report of ci/ab.sh on two tiny cases
# (ci/test-ab.sh).
#
# Usage: ci/test.sh        (installs what it needs with apt)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
mkdir -p out

step "packages"
ensure_build_packages

step "third-party sources (Debian's protobuf, benchmark anchors)"
bash third_party/fetch.sh all

step "build (RelWithDebInfo)"
configure_and_build "$ROOT" out/build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPROTOACCEL_REQUIRE_STOCK_ORACLE=ON
out/build/protoaccel_info

step "tests"
(cd out/build && ctest --output-on-failure)

step "build with clang 14, and the tests"
# The kernels compile for their instruction sets the same way under both
# compilers (src/dispatch/target.h); upstream's CI, macOS and Android use
# clang.
ensure_packages clang-14
configure_and_build "$ROOT" out/clang -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPROTOACCEL_REQUIRE_STOCK_ORACLE=ON -DPROTOACCEL_BUILD_BENCHMARKS=OFF
(cd out/clang && ctest --output-on-failure)

step "build with the SIMD kernels compiled out (-DPROTOACCEL_SIMD=OFF), and the tests"
# The off switch of a library that carries the kernels (the upstream
# series' protobuf_PROTOACCEL_SIMD): scalar kernels only, and no code of
# any other instruction set in the library.
configure_and_build "$ROOT" out/nosimd -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROTOACCEL_SIMD=OFF \
  -DPROTOACCEL_BUILD_BENCHMARKS=OFF
out/nosimd/protoaccel_info | grep -q '^simd: compiled out' ||
  die "out/nosimd/protoaccel_info does not say the SIMD kernels are compiled out"
[ "$(out/nosimd/protoaccel_info | sed -n 's/^max: //p')" = scalar ] ||
  die "out/nosimd runs a level other than scalar"
if nm -C out/nosimd/libprotoaccel.a | grep -E ' [TDR] .*k[A-Za-z0-9]*(Sse4|Avx2|Avx512|Neon)\b'; then
  die "out/nosimd's library has SIMD kernel tables"
fi
(cd out/nosimd && ctest --output-on-failure)

step "build with ASan + UBSan"
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
# -O1, as the sanitizers recommend: -O0 makes the ten-million-value random
# tests slow for nothing.
configure_and_build "$ROOT" out/asan -DCMAKE_BUILD_TYPE=Debug \
  -DPROTOACCEL_REQUIRE_STOCK_ORACLE=ON -DPROTOACCEL_BUILD_BENCHMARKS=OFF \
  "-DCMAKE_CXX_FLAGS=$sanitize -O1" "-DCMAKE_EXE_LINKER_FLAGS=$sanitize"

step "tests under ASan + UBSan"
# The exhaustive four-byte UTF-8 sweeps run in the build above; here, and
# in the 32-bit build below, they would take minutes and add nothing that
# the other UTF-8 tests do not show.
without_sweeps='-*AllFourByteSequences*:*AllStringsUpToFourBytes*'
(cd out/asan && GTEST_FILTER=$without_sweeps ctest --output-on-failure)

# 32-bit x86 and arm64, cross-built (ci/test-cross.sh). i386 runs every
# level this CPU has, or under qemu-i386 (SSE4.1 and AVX2) where the
# kernel runs no 32-bit programs; arm64, under qemu-user, scalar and NEON.
# There the sweep of every short string across block boundaries takes two
# minutes for NEON alone: `bash ci/test-cross.sh arm64` runs it, CI the rest
# (the four-byte sweep included).
GTEST_FILTER=$without_sweeps bash ci/test-cross.sh i386
GTEST_FILTER='-*AllStringsUpToFourBytes*' bash ci/test-cross.sh arm64

# Upstream's test programs are built once, with stock, and run against both
# libraries (ci/test-libprotobuf.sh).
bash ci/build-protobuf.sh --tests stock
bash ci/build-protobuf.sh accel accel-asan
bash ci/test-libprotobuf.sh

# The arm64 drop-in: abidiff against Debian's arm64 libprotobuf32, and the
# differential under qemu-aarch64 (3.5 minutes; ci/test-arm64.sh).
bash ci/test-arm64.sh

# The .debs that replace Debian's, tested in a Debian chroot (cached; 75 s
# to make, 20 s to test).
bash ci/package.sh --test

# The fuzzers for a short while each (ci/fuzz.sh 600 is the long run).
bash ci/fuzz.sh 20

step "A/B report: ci/ab.sh --quick on two cases, the report checked"
bash ci/test-ab.sh --build out/build

echo
echo "all tests passed"
