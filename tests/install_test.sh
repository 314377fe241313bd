#!/bin/sh
# cmake --install of a build, then a small consumer built against it both
# ways: find_package(protoaccel) and pkg-config. Also: find_package refuses
# a version the package does not provide.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR CXX CXXFLAGS LDFLAGS [RUN]
# (the build's, so that the consumer is built as the library was: -m32,
# ASan, a cross build; RUN, words, runs a program built so: qemu-user)
set -eu
build=$1 src=$2 cxx=$3 cxxflags=$4 ldflags=$5 run=${6:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" ||
  { cat "$tmp/install.log"; fail "cmake --install failed"; }
for f in include/protoaccel/protoaccel.h bin/protoaccel-info; do
  [ -f "$tmp/prefix/$f" ] || fail "not installed: $f"
done
for f in libprotoaccel.a cmake/protoaccel/protoaccelConfig.cmake \
         cmake/protoaccel/protoaccelConfigVersion.cmake pkgconfig/protoaccel.pc; do
  [ -n "$(find "$tmp/prefix" -path "*/lib*/$f")" ] || fail "not installed: lib*/$f"
done

echo "find_package(protoaccel):"
cmake -S "$src/tests/install" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$cxxflags" \
  -DCMAKE_EXE_LINKER_FLAGS="$ldflags" >"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; fail "configure failed"; }
cmake --build "$tmp/cmake" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "build failed"; }
# shellcheck disable=SC2086 # RUN is words
$run "$tmp/cmake/consumer" || fail "the find_package consumer failed"

echo "pkg-config protoaccel:"
pc_dir=$(dirname "$(find "$tmp/prefix" -name protoaccel.pc)")
flags=$(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs protoaccel) ||
  fail "pkg-config does not know protoaccel"
# shellcheck disable=SC2086 # the flags are words
$cxx -std=c++11 $cxxflags "$src/tests/install/consumer.cc" $flags $ldflags -o "$tmp/pc-consumer" ||
  fail "the pkg-config consumer does not build"
# shellcheck disable=SC2086
$run "$tmp/pc-consumer" || fail "the pkg-config consumer failed"

if cmake -S "$src/tests/install" -B "$tmp/cmake-9" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$cxxflags" \
    -DCMAKE_EXE_LINKER_FLAGS="$ldflags" -DPROTOACCEL_WANT=9.0 >"$tmp/cmake-9.log" 2>&1; then
  fail "find_package(protoaccel 9.0) found version $(grep -o '[0-9.]*' "$tmp/cmake-9.log" | head -1)"
fi
# Refused for its version, not (say) for a 32-bit build's word size.
grep -q 'requested version "9.0"' "$tmp/cmake-9.log" && ! grep -q '(32bit)\|(64bit)' "$tmp/cmake-9.log" ||
  { cat "$tmp/cmake-9.log"; fail "find_package(protoaccel 9.0) failed for another reason"; }
echo "install_test: passed"
