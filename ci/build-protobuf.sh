#!/usr/bin/env bash
# Builds protobuf 3.21.12 from Debian's source (Debian's patches applied)
# and installs it into out/<variant>:
#   stock       the build fixes of patches/protobuf-3.21.12/stock.series only
#   accel       the whole series: protoaccel compiled in
#   accel-asan  accel's libprotobuf and libprotobuf-lite (no protoc, no
#               tests) with AddressSanitizer and UndefinedBehaviorSanitizer,
#               into out/accel-asan/lib, for programs built with both
#   accel-arm64 accel's libprotobuf and libprotobuf-lite (no protoc, no
#               tests) cross-built for arm64 with Debian's cross compiler
#               and arm64 flags, linked with Debian's arm64 zlib
#               (third_party/fetch.sh arm64), installed into out/accel-arm64
# Both use the same flags, Debian's (dpkg-buildflags, no NDEBUG, like its
# autotools build), so that out/accel/lib/libprotobuf.so.32 can replace the
# system's libprotobuf.so.32.
#
# Usage: ci/build-protobuf.sh [--tests] VARIANT...
#   --tests  also build upstream's unit tests and conformance runner
set -euo pipefail
source "$(dirname "$0")/lib.sh"

tests=OFF
variants=()
for arg in "$@"; do
  case $arg in
    --tests) tests=ON ;;
    stock|accel|accel-asan|accel-arm64) variants+=("$arg") ;;
    *) die "usage: ci/build-protobuf.sh [--tests] stock|accel|accel-asan|accel-arm64..." ;;
  esac
done
[ ${#variants[@]} -gt 0 ] || die "usage: ci/build-protobuf.sh [--tests] stock|accel|accel-asan|accel-arm64..."

readonly PATCHES=$ROOT/patches/protobuf-3.21.12
readonly DEBIAN_SOURCE=$ROOT/third_party/src/protobuf-3.21.12
[ -f "$DEBIAN_SOURCE/src/google/protobuf/parse_context.h" ] ||
  die "Debian's protobuf source is missing: run third_party/fetch.sh protobuf"

# A copy of Debian's source with a variant's patches, remade when they change.
prepare_source() {
  local variant=$1 src=$ROOT/out/src/protobuf-$1 series
  series=$PATCHES/series
  [ "$variant" = stock ] && series=$PATCHES/stock.series
  local stamp
  stamp=$( (cat "$series"; sed "s|^|$PATCHES/|" "$series" | xargs cat) | sha256sum | cut -c1-16)
  if [ -f "$src/.protoaccel-stamp" ] && [ "$(cat "$src/.protoaccel-stamp")" = "$stamp" ]; then
    return
  fi
  echo "preparing $src"
  rm -rf "$src"
  mkdir -p "$ROOT/out/src"
  cp -a "$DEBIAN_SOURCE" "$src"
  local patch
  while read -r patch; do
    [ -n "$patch" ] || continue
    patch -d "$src" -p1 --batch --forward --quiet <"$PATCHES/$patch" ||
      die "$patch does not apply to Debian's protobuf source"
  done <"$series"
  echo "$stamp" >"$src/.protoaccel-stamp"
}

build() {
  local variant=$1 src=$ROOT/out/src/protobuf-${1%-*} dir=$ROOT/out/build-protobuf-$1
  local extra=() with_tests=$tests host_arch=
  [ "$variant" != stock ] && extra+=("-Dprotobuf_PROTOACCEL_DIR=$ROOT")
  [ "$variant" = accel-asan ] && extra+=(-Dprotobuf_BUILD_PROTOC_BINARIES=OFF)
  if [ "$variant" = accel-arm64 ]; then
    local zlib=$ROOT/third_party/arm64
    [ -f "$zlib/lib/aarch64-linux-gnu/libz.so.1" ] ||
      die "Debian's arm64 zlib is missing: run third_party/fetch.sh arm64"
    ensure_packages g++-aarch64-linux-gnu
    host_arch=arm64 with_tests=OFF
    local cross
    mapfile -t cross < <(cross_cmake_args aarch64-linux-gnu)
    extra+=("${cross[@]}" -Dprotobuf_BUILD_PROTOC_BINARIES=OFF "-DZLIB_INCLUDE_DIR=$zlib/usr/include"
      "-DZLIB_LIBRARY=$zlib/lib/aarch64-linux-gnu/libz.so.1")
  fi
  mkdir -p "$dir"
  # Debian's flags (its arm64 ones for arm64); -ffile-prefix-map and the
  # like as dpkg-buildflags gives.
  local cxxflags ldflags
  export DEB_HOST_ARCH=${host_arch:-$(dpkg --print-architecture)}
  cxxflags="$(dpkg-buildflags --get CXXFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
  # __FILE__ as in Debian's build, which compiles in src/: its log messages
  # name google/protobuf/x.cc, not a path into out/. ccache (CCACHE_BASEDIR)
  # hands the compiler the path relative to the build folder: both forms.
  cxxflags+=" -ffile-prefix-map=$src/src/= -ffile-prefix-map=$(realpath -m --relative-to="$dir" "$src")/src/="
  ldflags=$(dpkg-buildflags --get LDFLAGS)
  if [ "$variant" = accel-asan ]; then
    # -O1 as the sanitizers recommend; _FORTIFY_SOURCE's checked copies
    # would hide accesses from ASan. UBSan's nonnull-attribute check is left
    # out: stock's ReadPackedFixed copies an empty field with
    # memcpy(nullptr, ptr, 0) (parse_context.h), in stock's code as in ours.
    local sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
    sanitize+=" -fno-sanitize=nonnull-attribute"
    cxxflags="${cxxflags/-O2/-O1} -U_FORTIFY_SOURCE $sanitize"
    ldflags="$ldflags $sanitize"
    with_tests=OFF
  fi
  configure_and_build "$src" "$dir" -DCMAKE_BUILD_TYPE=None \
    "-DCMAKE_CXX_FLAGS=$cxxflags" "-DCMAKE_SHARED_LINKER_FLAGS=$ldflags" \
    "-DCMAKE_EXE_LINKER_FLAGS=$ldflags" -DCMAKE_CXX_STANDARD=17 \
    -Dprotobuf_BUILD_SHARED_LIBS=ON -Dprotobuf_WITH_ZLIB=ON \
    -Dprotobuf_BUILD_TESTS=$with_tests -Dprotobuf_BUILD_CONFORMANCE=$with_tests \
    -Dprotobuf_USE_EXTERNAL_GTEST=ON \
    "-DCMAKE_INSTALL_PREFIX=$ROOT/out/$variant" -DCMAKE_INSTALL_LIBDIR=lib \
    "${extra[@]}"
  if [ "$variant" = accel-asan ]; then
    # Not installed: the differential and the fuzz corpus load the libraries.
    mkdir -p "$ROOT/out/$variant/lib"
    cp -a "$dir"/libprotobuf.so* "$dir"/libprotobuf-lite.so* "$ROOT/out/$variant/lib/"
    return
  fi
  ninja -C "$dir" install >"$dir.install.log" || die "install failed (see $dir.install.log)"
}

for variant in "${variants[@]}"; do
  step "protobuf 3.21.12, $variant (tests: $tests)"
  prepare_source "${variant%-*}"
  build "$variant"
done
