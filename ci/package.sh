#!/usr/bin/env bash
# Debian packages of the accelerated libprotobuf, to install in place of
# Debian's: libprotobuf32 and libprotobuf-lite32, from out/accel
# (ci/build-protobuf.sh accel, run here if needed), into out/deb/. Also
# libprotobuf-dev and libprotoc-dev, Debian's own files at this version:
# Debian's pin the exact version of the libraries (and of libprotobuf-dev),
# so without these apt would remove them, and what needs them, from a
# development machine.
#
# - Version: Debian's (from the source's changelog) + "+protoaccel<version>",
#   e.g. 3.21.12-3+deb12u1+protoaccel0.1.0: it sorts just above Debian's, so
#   Debian's dependants (python3-protobuf, libprotoc32, ...) stay satisfied,
#   and below Debian's next update (3.21.12-3+deb12u2), which supersedes it.
# - Files: Debian's names (libprotobuf.so.32.0.12 and its soname link), so
#   libprotobuf-dev's links still resolve; the library stripped as dh_strip
#   does; Debian's copyright, and its changelog under an entry of ours.
# - Control: Debian's stanza (Section, Multi-Arch, Breaks, Description);
#   Depends from dpkg-shlibdeps; an ldconfig trigger, as Debian's has.
# - A symbols file: every symbol Debian's library has needs Debian's version
#   (its shlibs: >= 3.21.12); the ones only this build exports (the
#   Write*PackedData members that programs compiled against out/accel's
#   headers call, protoaccel_describe) need this version, so such programs
#   can never be installed against Debian's library.
#
# Checked every run: the symbols file makes dpkg-shlibdeps give a program
# built against out/accel's headers "libprotobuf32 (>= <this version>)",
# and one built against Debian's headers "libprotobuf32 (>= 3.21.12)".
#
# Usage: ci/package.sh [--test]
#   --test  also, in a fresh Debian chroot (mmdebstrap, the host's apt
#           sources, cached in $CACHE/chroot): run Debian's own
#           python3-protobuf and osmpbf-outline with Debian's library, then
#           install these packages (apt install ./...deb), run them again and
#           compare; then restore Debian's packages and check. Measured
#           here: 75 s to make the chroot, 20 s for the test.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

test_chroot=0
for arg in "$@"; do
  case $arg in
    --test) test_chroot=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option: $arg (ci/package.sh [--test])" ;;
  esac
done

ensure_build_packages
step "the accelerated library (out/accel)"
bash ci/build-protobuf.sh accel

readonly DEBIAN_SOURCE=$ROOT/third_party/src/protobuf-3.21.12
readonly OUT=$ROOT/out/deb
debian_version=$(dpkg-parsechangelog -l "$DEBIAN_SOURCE/debian/changelog" -S Version)
protoaccel_version=$(sed -n 's/^#define PROTOACCEL_VERSION "\(.*\)"$/\1/p' \
  src/include/protoaccel/protoaccel.h)
[ -n "$protoaccel_version" ] || die "PROTOACCEL_VERSION not found in protoaccel.h"
readonly VERSION=$debian_version+protoaccel$protoaccel_version
dpkg --compare-versions "$VERSION" gt "$debian_version" ||
  die "$VERSION does not sort above $debian_version"
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
# Debian's upstream version (3.21.12) is the minimum its shlibs name.
upstream_version=${debian_version%%-*}

# The package's stanza of debian/control: the fields we keep.
control_stanza() {
  awk -v pkg="$1" '
    /^Package: / { on = ($2 == pkg); next }
    on && /^(Section|Multi-Arch|Breaks|Description): / { keep = 1; print; next }
    on && /^[A-Z]/ { keep = 0; next }
    on && keep && /^ / { print }
    on && NF == 0 { on = 0 }' "$DEBIAN_SOURCE/debian/control"
}

# Debian's binary package PKG at $debian_version, downloaded once into
# $CACHE/deb/ and unpacked beside it: prints the folder.
debian_package() {
  local pkg=$1 dir=$CACHE/deb/$1_$debian_version
  if [ ! -f "$dir/.unpacked" ]; then
    rm -rf "$dir" && mkdir -p "$dir/files"
    (cd "$dir" && apt-get download -q "$pkg=$debian_version" >"$dir/download.log" 2>&1) ||
      die "apt-get download $pkg=$debian_version failed (log: $dir/download.log)"
    dpkg-deb -R "$dir"/*.deb "$dir/files"
    touch "$dir/.unpacked"
  fi
  echo "$dir"
}

# shlibdeps DIR PACKAGE ARGS...: dpkg-shlibdeps ARGS run in DIR, a source
# tree of one package PACKAGE (all it needs to know); prints its output.
shlibdeps() {
  local dir=$1 pkg=$2
  shift 2
  mkdir -p "$dir/debian"
  printf 'Source: protobuf\n\nPackage: %s\nArchitecture: any\n' "$pkg" >"$dir/debian/control"
  (cd "$dir" && dpkg-shlibdeps -O "$@") 2>"$dir/shlibdeps.log" ||
    die "dpkg-shlibdeps $*: $(tail -3 "$dir/shlibdeps.log")"
}

# build_deb PKG: out/deb/PKG_VERSION_ARCH.deb from out/deb/root/PKG.
build_deb() {
  dpkg-deb --root-owner-group -Zxz --build "$OUT/root/$1" "$OUT/${1}_${VERSION}_$arch.deb" >/dev/null
  printf '  %s: ' "${1}_${VERSION}_$arch.deb"
}

dynamic_symbols() {
  nm -D --defined-only --format=posix "$1" | awk '{print $1}' | sort -u
}

# build_package PKG LIB: out/deb/PKG_VERSION_ARCH.deb from out/accel/lib/LIB.so.*
build_package() {
  local pkg=$1 lib=$2 root=$OUT/root/$1
  local file=$lib.so.32.0.12 libdir=usr/lib/$multiarch
  rm -rf "$root"
  mkdir -p "$root/DEBIAN" "$root/$libdir" "$root/usr/share/doc/$pkg"
  local built
  built=$(readlink -f "out/accel/lib/$lib.so.32")
  [ -f "$built" ] || die "out/accel/lib/$lib.so.32 is missing"
  readelf -d "$built" >"$OUT/$pkg.dynamic"
  grep -q "(SONAME).*\[$lib\.so\.32\]" "$OUT/$pkg.dynamic" ||
    die "$built: its soname is not $lib.so.32"
  strip --strip-unneeded --remove-section=.comment --remove-section=.note \
    -o "$root/$libdir/$file" "$built"
  chmod 644 "$root/$libdir/$file"
  ln -s "$file" "$root/$libdir/$lib.so.32"

  cp "$DEBIAN_SOURCE/debian/copyright" "$root/usr/share/doc/$pkg/copyright"
  {
    printf 'protobuf (%s) %s; urgency=medium\n\n' "$VERSION" \
      "$(dpkg-parsechangelog -l "$DEBIAN_SOURCE/debian/changelog" -S Distribution)"
    printf '  * Accelerated by protoaccel %s: patches/protobuf-3.21.12/series\n' \
      "$protoaccel_version"
    printf '    applied to Debian %s, built with its flags.\n\n' "$debian_version"
    printf ' -- protoaccel <dev@protoaccel.invalid>  %s\n\n' \
      "$(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")"
    cat "$DEBIAN_SOURCE/debian/changelog"
  } | gzip -9n >"$root/usr/share/doc/$pkg/changelog.Debian.gz"

  # Symbols: Debian's at its minimum version, the rest at ours.
  local debian
  debian=$(debian_package "$pkg")
  dynamic_symbols "$debian/files/$libdir/$file" >"$OUT/$pkg.debian-symbols"
  dynamic_symbols "$root/$libdir/$file" >"$OUT/$pkg.symbols-list"
  # Debian's library also exports instances of templates over lambdas
  # local to its own functions (ReadPackedVarint<VarintParser...::{lambda}>),
  # which the series replaced: no program can name such a type, so none can
  # link to them. Any other missing symbol is an error.
  local lambdas
  comm -23 "$OUT/$pkg.debian-symbols" "$OUT/$pkg.symbols-list" | c++filt >"$OUT/$pkg.missing"
  if grep -v '{lambda(' "$OUT/$pkg.missing" >"$OUT/$pkg.missing-other"; then
    die "$pkg lacks symbols of Debian's library: $(head -5 "$OUT/$pkg.missing-other")"
  fi
  lambdas=$(wc -l <"$OUT/$pkg.missing")
  comm -13 "$OUT/$pkg.debian-symbols" "$OUT/$pkg.symbols-list" >"$OUT/$pkg.new-symbols"
  {
    echo "$lib.so.32 $pkg #MINVER#"
    comm -12 "$OUT/$pkg.debian-symbols" "$OUT/$pkg.symbols-list" |
      sed "s/.*/ &@Base $upstream_version/"
    sed "s/.*/ &@Base $VERSION/" "$OUT/$pkg.new-symbols"
  } >"$root/DEBIAN/symbols"
  echo "libprotobuf${lib#libprotobuf} 32 $pkg (>= $upstream_version)" >"$root/DEBIAN/shlibs"
  echo "activate-noawait ldconfig" >"$root/DEBIAN/triggers"

  # Depends, as dpkg-shlibdeps computes it for Debian's build.
  local depends
  depends=$(shlibdeps "$OUT/shlibdeps-$pkg" "$pkg" "$root/$libdir/$file" |
    sed -n 's/^shlibs:Depends=//p')
  [ -n "$depends" ] || die "dpkg-shlibdeps found no dependencies of $file"

  {
    echo "Package: $pkg"
    echo "Source: protobuf"
    echo "Version: $VERSION"
    echo "Architecture: $arch"
    echo "Maintainer: protoaccel <dev@protoaccel.invalid>"
    echo "Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)"
    echo "Depends: $depends"
    echo "Priority: optional"
    control_stanza "$pkg" | sed '/^Description: /s/$/ (accelerated by protoaccel)/'
    echo " ."
    echo " This build is accelerated by protoaccel $protoaccel_version: packed varint"
    echo " fields, UTF-8 checks and packed sizes run SIMD kernels chosen at run time"
    echo " for the CPU, with results identical to Debian's library."
  } >"$root/DEBIAN/control"
  (cd "$root" && find usr -type f -exec md5sum {} + | sort -k2) >"$root/DEBIAN/md5sums"
  build_deb "$pkg"
  echo "$(grep -c '^ ' "$root/DEBIAN/symbols") symbols, $(wc -l <"$OUT/$pkg.new-symbols") new, $lambdas of Debian's not exported (templates over local lambdas); Depends: $depends"
}

# repackage PKG: Debian's PKG, its files unchanged, at $VERSION; its
# exact-version Depends on the packages made here follow them to $VERSION.
repackage() {
  local pkg=$1 root=$OUT/root/$1 debian
  debian=$(debian_package "$pkg")
  rm -rf "$root" && cp -a "$debian/files" "$root"
  local pinned=${debian_version//./\\.}
  pinned=${pinned//+/\\+}
  sed -i -E -e "s/^Version: .*/Version: $VERSION/" \
    -e "/^Depends:/ s/(libprotobuf32|libprotobuf-lite32|libprotobuf-dev) \(= $pinned\)/\1 (= $VERSION)/g" \
    "$root/DEBIAN/control"
  grep -q "^Version: $VERSION$" "$root/DEBIAN/control" || die "$pkg: the version was not set"
  ! grep -E "^Depends:.*(libprotobuf32|libprotobuf-lite32|libprotobuf-dev) \(= $pinned\)" "$root/DEBIAN/control" ||
    die "$pkg still pins Debian's $debian_version"
  build_deb "$pkg"
  echo "Debian's files; $(grep '^Depends:' "$root/DEBIAN/control")"
}

step "packages $VERSION ($arch) into out/deb/"
rm -rf "$OUT" && mkdir -p "$OUT"
[ -f "$DEBIAN_SOURCE/debian/changelog" ] || die "Debian's protobuf source is missing: run third_party/fetch.sh protobuf"
build_package libprotobuf32 libprotobuf
build_package libprotobuf-lite32 libprotobuf-lite
repackage libprotobuf-dev
repackage libprotoc-dev
dpkg-deb --info "$OUT/libprotobuf32_${VERSION}_$arch.deb" | sed -n 's/^ \(Package\|Version\|Depends\|Breaks\):/  &/p'

step "symbols: a program calling the new members depends on $VERSION"
# A packed int32 field, serialized through the inline writer; against
# out/accel's headers it calls WriteInt32PackedData.
work=$OUT/shlibdeps-program
mkdir -p "$work/debian" "$work/gen"
cat >"$work/packed.proto" <<'EOF'
syntax = "proto3";
message Packed { repeated int32 v = 1; }
EOF
cat >"$work/main.cc" <<'EOF'
#include <cstdio>
#include "packed.pb.h"
int main() {
  Packed m;
  for (int i = 0; i < 100; ++i) m.add_v(i * 1000);
  std::printf("%zu\n", m.SerializeAsString().size());
}
EOF
protoc -I"$work" --cpp_out="$work/gen" "$work/packed.proto"
# dpkg-shlibdeps looks up a library's symbols file in the package build
# trees debian/*/ that hold it: out/deb/root/<package>.
ln -sfn "$OUT/root/libprotobuf32" "$work/debian/libprotobuf32"
# program_depends HEADERS LIBDIR: dpkg-shlibdeps' libprotobuf32 entry for a
# program built against HEADERS and linked against LIBDIR.
program_depends() {
  g++ -std=c++17 -O2 -I"$1" -I"$work/gen" "$work/main.cc" "$work/gen/packed.pb.cc" \
    -L"$2" -lprotobuf -o "$work/program" ||
    die "the test program does not build against $1"
  shlibdeps "$work" program -l"$work/debian/libprotobuf32/usr/lib/$multiarch" program >"$work/out.txt"
  grep -o "libprotobuf32 ([^)]*)" "$work/out.txt" || echo "no libprotobuf32 entry"
}
accel_depends=$(program_depends "$ROOT/out/accel/include" "$ROOT/out/accel/lib")
echo "  built against out/accel's headers: $accel_depends"
[ "$accel_depends" = "libprotobuf32 (>= $VERSION)" ] ||
  die "a program using the new symbols must depend on libprotobuf32 (>= $VERSION)"
nm -D --undefined-only "$work/program" >"$work/undefined.txt"
grep -q 'WriteInt32PackedData' "$work/undefined.txt" ||
  die "the test program does not call WriteInt32PackedData: the check above proves nothing"
stock_depends=$(program_depends /usr/include "/usr/lib/$multiarch")
echo "  built against Debian's headers:    $stock_depends"
[ "$stock_depends" = "libprotobuf32 (>= $upstream_version)" ] ||
  die "a program built against Debian's headers must depend on libprotobuf32 (>= $upstream_version)"

[ $test_chroot -eq 1 ] || { echo; echo "packages: $OUT"; exit 0; }
bash ci/package-test.sh "$OUT" "$VERSION" "$debian_version"
