#!/usr/bin/env bash
# ci/package.sh --test: the packages on a real Debian system, not this
# machine's root: a chroot made by mmdebstrap from the host's own apt
# sources (no host name written here), kept in $CACHE/chroot/<codename>.
# There, with libprotobuf-dev and libprotoc-dev installed as on a
# development machine, unmodified Debian programs run with Debian's
# libprotobuf32, then with these packages installed by apt (which must
# remove nothing), with identical output:
#   - python3-protobuf (its C++ implementation): tests/package/roundtrip.py;
#   - osmpbf-outline (osmpbf-bin) on a .osm.pbf that osmium-tool writes
#     from tests/package/make_osm.py's XML.
# Then Debian's packages are restored by apt, as the README says, and
# checked.
#
# Usage: ci/package-test.sh DEBDIR VERSION DEBIAN_VERSION
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
[ $# -eq 3 ] || die "usage: ci/package-test.sh DEBDIR VERSION DEBIAN_VERSION"
debs=$1 version=$2 debian_version=$3
[ "$(id -u)" -eq 0 ] || die "the chroot test runs as root"
ensure_packages mmdebstrap

codename=$(. /etc/os-release && printf '%s' "$VERSION_CODENAME")
chroot_dir=$CACHE/chroot/$codename
report=$ROOT/out/deb/test
rm -rf "$report" && mkdir -p "$report"

readonly PROGRAMS=python3-protobuf,osmpbf-bin,osmium-tool,libprotobuf-dev,libprotoc-dev
step "a Debian $codename chroot with ${PROGRAMS//,/, }"
if [ ! -f "$chroot_dir/.protoaccel-ready" ]; then
  # What an interrupted run left mounted, before removing it.
  umount "$chroot_dir/proc" 2>/dev/null || true
  rm -rf "$chroot_dir" && mkdir -p "$(dirname "$chroot_dir")"
  sources=()
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -s "$f" ] && sources+=("$f")
  done
  [ ${#sources[@]} -gt 0 ] || die "no apt sources in /etc/apt"
  start=$SECONDS
  mmdebstrap --variant=apt --include=$PROGRAMS,ca-certificates \
    "$codename" "$chroot_dir" "${sources[@]}" >"$report/mmdebstrap.log" 2>&1 ||
    { tail -20 "$report/mmdebstrap.log"; die "mmdebstrap failed (log: $report/mmdebstrap.log)"; }
  touch "$chroot_dir/.protoaccel-ready"
  echo "  made in $((SECONDS - start)) s"
else
  echo "  present ($chroot_dir)"
fi

cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"  # apt in the chroot
mountpoint -q "$chroot_dir/proc" || mount -t proc proc "$chroot_dir/proc"
trap 'umount "$chroot_dir/proc" 2>/dev/null || true' EXIT
in_chroot() {
  chroot "$chroot_dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 HOME=/root \
    ${http_proxy:+http_proxy=$http_proxy} ${https_proxy:+https_proxy=$https_proxy} "$@"
}
installed() { in_chroot dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }

# Debian's packages first, whatever an interrupted run left.
in_chroot apt-get update -q >"$report/apt-update.log" 2>&1 ||
  { tail "$report/apt-update.log"; die "apt-get update in the chroot failed"; }
readonly PACKAGES="libprotobuf32 libprotobuf-lite32 libprotobuf-dev libprotoc-dev"
restore_debian() {
  # shellcheck disable=SC2046 # one word a package
  in_chroot apt-get install -y -q --reinstall --allow-downgrades \
    $(printf "%s=$debian_version " $PACKAGES) >"$report/$1.log" 2>&1 ||
    { tail "$report/$1.log"; die "apt could not install Debian's packages at $debian_version"; }
}
# all_at VERSION: every package of $PACKAGES is installed at VERSION.
all_at() {
  local pkg
  for pkg in $PACKAGES; do [ "$(installed "$pkg")" = "$1" ] || return 1; done
}
# Debian's, whatever an interrupted run (or an older cached chroot) left.
all_at "$debian_version" || restore_debian apt-restore-first
all_at "$debian_version" || die "the chroot does not have Debian's $PACKAGES"

work=$chroot_dir/tmp/protoaccel
rm -rf "$work" && mkdir -p "$work"
cp tests/package/roundtrip.py tests/package/make_osm.py "$debs"/*.deb "$work/"
cp out/build/protoaccel-info "$work/" 2>/dev/null ||
  die "out/build/protoaccel-info is missing: build out/build first (ci/test.sh)"
in_chroot sh -c 'python3 /tmp/protoaccel/make_osm.py >/tmp/protoaccel/map.osm &&
  osmium cat --overwrite -o /tmp/protoaccel/map.osm.pbf /tmp/protoaccel/map.osm' ||
  die "osmium could not write the .osm.pbf"

# run_programs NAME: both programs, outputs into $report/NAME-*.txt.
run_programs() {
  in_chroot python3 /tmp/protoaccel/roundtrip.py >"$report/$1-python.txt" 2>"$report/$1-python.err" ||
    { cat "$report/$1-python.err"; die "roundtrip.py failed with $1's library"; }
  grep -E '^(implementation|mapped):' "$report/$1-python.err" | sed 's/^/  python: /'
  in_chroot osmpbf-outline /tmp/protoaccel/map.osm.pbf >"$report/$1-osmpbf.txt" 2>&1 ||
    { tail "$report/$1-osmpbf.txt"; die "osmpbf-outline failed with $1's library"; }
  echo "  python3-protobuf: $(wc -l <"$report/$1-python.txt") lines; osmpbf-outline: $(wc -l <"$report/$1-osmpbf.txt") lines"
}

step "Debian's libprotobuf32 $debian_version: the programs"
rc=0; in_chroot /tmp/protoaccel/protoaccel-info >"$report/info-debian.txt" || rc=$?
sed 's/^/  /' "$report/info-debian.txt"
[ $rc -eq 1 ] || die "protoaccel-info does not say Debian's library is stock (exit $rc)"
run_programs debian

step "apt install --no-remove ./{libprotobuf32,libprotobuf-lite32,libprotobuf-dev,libprotoc-dev}_$version"
in_chroot sh -c 'cd /tmp/protoaccel && apt-get install -y -q --no-remove ./*.deb' \
  >"$report/apt-install.log" 2>&1 || { tail "$report/apt-install.log"; die "apt could not install the packages without removing any"; }
all_at "$version" || die "after apt install: libprotobuf32 $(installed libprotobuf32), libprotobuf-dev $(installed libprotobuf-dev); not all at $version"
echo "  installed, nothing removed: $PACKAGES"
in_chroot /tmp/protoaccel/protoaccel-info >"$report/info-accel.txt" ||
  { cat "$report/info-accel.txt"; die "protoaccel-info does not find the installed library accelerated"; }
sed 's/^/  /' "$report/info-accel.txt"
run_programs accel
# python's stderr too: libprotobuf's own messages (invalid UTF-8) are there,
# which name their source file as Debian's build does.
for program in python osmpbf; do
  cmp -s "$report/debian-$program.txt" "$report/accel-$program.txt" ||
    { diff "$report/debian-$program.txt" "$report/accel-$program.txt" | head; die "$program: the output differs"; }
done
# Their line numbers aside: the series moves lines in the files that log.
without_lines() { sed -E 's/(\.(cc|h)):[0-9]+\]/\1]/' "$1"; }
cmp -s <(without_lines "$report/debian-python.err") <(without_lines "$report/accel-python.err") ||
  { diff "$report/debian-python.err" "$report/accel-python.err" | head; die "python: libprotobuf's messages differ"; }
echo "  identical outputs"

step "apt install --reinstall --allow-downgrades libprotobuf32=$debian_version ..."
restore_debian apt-restore
all_at "$debian_version" || die "Debian's packages were not restored"
rc=0; in_chroot /tmp/protoaccel/protoaccel-info >"$report/info-restored.txt" || rc=$?
[ $rc -eq 1 ] || die "after the restore, protoaccel-info does not say stock (exit $rc)"
sed 's/^/  /' "$report/info-restored.txt"
run_programs restored
cmp -s "$report/debian-python.txt" "$report/restored-python.txt" || die "after the restore, python's output differs"
echo
echo "package test passed (outputs in $report)"
