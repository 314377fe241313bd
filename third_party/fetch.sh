#!/usr/bin/env bash
# third_party/fetch.sh -- bring third-party inputs into git-ignored folders.
#
#   protobuf : Debian's protobuf source package (exact version below), unpacked
#              with dpkg-source so Debian's patches are applied, into
#              third_party/src/protobuf-3.21.12/
#   upstream : what ci/verify-upstream.sh builds upstream releases with, the
#              same way: Debian's abseil sources (trixie's 20240722, sid's
#              20260526) into third_party/src/abseil-<version>/, and the
#              system's jsoncpp source into third_party/src/jsoncpp/; not
#              part of "all"
#   arm64    : Debian's arm64 libprotobuf32 and libprotobuf-lite32 of the
#              version installed here, zlib, which the arm64 build of
#              libprotobuf links, and google-benchmark, for an arm64
#              kernels_bench, as .debs from the system's own sources,
#              extracted with dpkg-deb -x into third_party/arm64/ (for
#              ci/test-arm64.sh); not part of "all"
#   anchors  : benchmark anchors (simdutf from sid, utf8_range from
#              experimental) as .debs, extracted with dpkg-deb -x into
#              third_party/anchors/ (usr/include/..., usr/lib/<triplet>/...).
#              Nothing is ever installed system-wide.
#
# Why a private apt configuration:
#   * sid and experimental must never appear in the system's apt sources, so
#     this script builds its own apt config under
#     ${PROTOACCEL_CACHE:-$HOME/.cache/protoaccel}/apt/ (own sources.list.d,
#     lists, cache, empty preferences) and passes it to apt with -o options.
#     The system's sources, lists, pinning and dpkg state are never modified.
#   * No archive host name or address is written in this repository: the
#     mirror addresses, suites, components and keyrings are copied at run time
#     from the system's own apt sources (deb822 *.sources, plus one-line
#     sources.list / *.list).  For the stanza(s) carrying the release codename
#     (the main archive, not -security) an extra stanza with the same
#     mirror/components/keyring and "Suites: trixie sid experimental" is added.
#   * apt verifies every download against the signed indexes; the .dsc's file
#     list is additionally checked here and again by dpkg-source.
#
# Usage: third_party/fetch.sh [protobuf|anchors|upstream|arm64|all]   (default: all)
# Idempotent: a stamp file is written after each successful fetch; when the
# result is present and complete the step prints "present" and is skipped.
# To force a re-fetch, delete the result folder (or its stamp).
set -euo pipefail

# ---------------------------------------------------------------- settings --
readonly PROTOBUF_SRC_PKG=protobuf
readonly PROTOBUF_VERSION=3.21.12-3+deb12u1
readonly PROTOBUF_DIRNAME=protobuf-3.21.12
# Anchor packages as "suite:package".  Dependencies built from the same
# source package (and present in the same suite) are added automatically,
# e.g. libsimdutf-dev -> libsimdutf35 and libutf8-range-dev ->
# libutf8-range0, libutf8-validity-dev, libutf8-validity0, so a new soname
# in sid needs no change here.
readonly ANCHOR_SPECS=(
  sid:libsimdutf-dev
  experimental:libutf8-range-dev
)
# Abseil for the upstream series (ci/verify-upstream.sh): "suite:version
# prefix", the highest Debian revision of that upstream version in the suite.
readonly ABSEIL_SPECS=(
  trixie:20240722   # protobuf v22.0 (LTS 20230125 is in no Debian suite)
  sid:20260526      # protobuf v36.0
)
readonly EXTRA_SUITES="trixie sid experimental"
readonly LISTS_MAX_AGE_MIN=1440   # private apt lists younger than a day are reused

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly SCRIPT_DIR
readonly REPO_ROOT=${SCRIPT_DIR%/*}
readonly SRC_DIR=$SCRIPT_DIR/src
readonly SRC_DL=$SRC_DIR/downloads
readonly PROTOBUF_DIR=$SRC_DIR/$PROTOBUF_DIRNAME
readonly ARM64_DIR=$SCRIPT_DIR/arm64
readonly ANCHORS_DIR=$SCRIPT_DIR/anchors
readonly ANCHORS_DL=$ANCHORS_DIR/downloads
readonly ANCHORS_STAMP=$ANCHORS_DIR/.fetch-stamp
readonly ANCHORS_MANIFEST=$ANCHORS_DIR/.fetch-manifest
readonly CACHE_ROOT=${PROTOACCEL_CACHE:-${HOME:?HOME is unset; set PROTOACCEL_CACHE}/.cache/protoaccel}
readonly APT_DIR=$CACHE_ROOT/apt
readonly APT_SOURCES=$APT_DIR/sources.list.d/protoaccel.sources
readonly APT_LISTS_STAMP=$APT_DIR/lists.stamp

# --------------------------------------------------------------- helpers --
log() { printf '[fetch] %s\n' "$*" >&2; }
die() { printf '[fetch] ERROR: %s\n' "$*" >&2; exit 1; }
rel() { printf '%s' "${1#"$REPO_ROOT"/}"; }

TMP_PATHS=()
cleanup() { local p; for p in "${TMP_PATHS[@]}"; do rm -rf -- "$p"; done; }
trap cleanup EXIT

# run_logged LOGFILE CMD... : run quietly; on failure show the log tail.
run_logged() {
  local logf=$1; shift
  if ! "$@" >"$logf" 2>&1; then
    log "command failed: $*"
    tail -n 40 "$logf" | sed 's/^/[fetch]   | /' >&2
    log "full log: $logf"
    return 1
  fi
}

usage() {
  cat >&2 <<EOF
usage: ${0##*/} [protobuf|anchors|upstream|arm64|all]   (default: all = protobuf anchors)
  protobuf  Debian source $PROTOBUF_SRC_PKG=$PROTOBUF_VERSION, patches applied -> $(rel "$PROTOBUF_DIR")/
  anchors   ${ANCHOR_SPECS[*]} (+ same-source deps) -> $(rel "$ANCHORS_DIR")/
  upstream  Debian source abseil ${ABSEIL_SPECS[*]} (suite:version) -> $(rel "$SRC_DIR")/abseil-VERSION/,
            and jsoncpp -> $(rel "$SRC_DIR")/jsoncpp/ (for ci/verify-upstream.sh)
  arm64     Debian's arm64 libprotobuf32, libprotobuf-lite32, zlib and google-benchmark,
            at the installed versions -> $(rel "$ARM64_DIR")/ (for ci/test-arm64.sh)
environment: PROTOACCEL_CACHE (default \$HOME/.cache/protoaccel) holds the private apt state
EOF
}

# ------------------------------------------------------ private apt setup --
APT_OPTS=()
APT_READY=0
APT_UPDATED=0
CODENAME=""

# Print records "uris US suites US components US signed-by US extras" for
# every enabled deb/deb-src stanza of the given deb822 files.
# (US = \037; multi-line values keep their lines joined with \036.)
parse_deb822() {
  awk '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
    function norm(s) { gsub(/\036/, " ", s); gsub(/[ \t]+/, " ", s); return trim(s) }
    function reset() { split("", f); split("", nm); split("", ord); n = 0; last = "" }
    function flush(   i, lk, types, extras) {
      if (n == 0) { reset(); return }
      types = " " norm(f["types"]) " "
      if (tolower(norm(f["enabled"])) == "no" ||
          (types !~ / deb / && types !~ / deb-src /) ||
          norm(f["uris"]) == "" || norm(f["suites"]) == "") { reset(); return }
      extras = ""
      for (i = 1; i <= n; i++) {
        lk = ord[i]
        if (lk ~ /^(types|uris|suites|components|signed-by|enabled)$/) continue
        extras = extras (extras == "" ? "" : "\036") nm[lk] ": " f[lk]
      }
      printf "%s\037%s\037%s\037%s\037%s\n", norm(f["uris"]), norm(f["suites"]),
             norm(f["components"]), f["signed-by"], extras
      reset()
    }
    BEGIN { reset() }
    FNR == 1 { flush() }
    /^#/ { next }
    /^[ \t]*$/ { flush(); next }
    /^[ \t]/ { if (last != "") f[last] = f[last] "\036" $0; next }
    {
      i = index($0, ":"); if (i == 0) next
      key = trim(substr($0, 1, i - 1)); lk = tolower(key)
      if (!(lk in nm)) ord[++n] = lk
      nm[lk] = key; f[lk] = trim(substr($0, i + 1)); last = lk
    }
    END { flush() }
  ' "$@"
}

# Same records for one-line-style files (sources.list, *.list).
parse_oneline() {
  awk '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
    BEGIN {
      map["arch"] = "Architectures"; map["lang"] = "Languages"; map["target"] = "Targets"
      map["pdiffs"] = "PDiffs"; map["by-hash"] = "By-Hash"; map["trusted"] = "Trusted"
      map["allow-insecure"] = "Allow-Insecure"; map["allow-weak"] = "Allow-Weak"
      map["allow-downgrade-to-insecure"] = "Allow-Downgrade-To-Insecure"
      map["check-valid-until"] = "Check-Valid-Until"; map["valid-until-min"] = "Valid-Until-Min"
      map["valid-until-max"] = "Valid-Until-Max"; map["check-date"] = "Check-Date"
      map["date-max-future"] = "Date-Max-Future"; map["inrelease-path"] = "InRelease-Path"
      map["snapshot"] = "Snapshot"
      multi["arch"] = 1; multi["lang"] = 1; multi["target"] = 1; multi["signed-by"] = 1
    }
    {
      line = trim($0)
      if (line == "" || line ~ /^#/) next
      sub(/[ \t]+#.*$/, "", line)
      split(line, w, /[ \t]+/); type = w[1]
      if (type != "deb" && type != "deb-src") next
      rest = trim(substr(line, length(type) + 1))
      signed = ""; extras = ""
      if (substr(rest, 1, 1) == "[") {
        j = index(rest, "]"); if (j == 0) next
        o = substr(rest, 2, j - 2); rest = trim(substr(rest, j + 1))
        k = split(o, ow, /[ \t]+/)
        for (i = 1; i <= k; i++) {
          e = index(ow[i], "="); if (e == 0) continue
          key = tolower(substr(ow[i], 1, e - 1)); val = substr(ow[i], e + 1)
          if (key in multi) gsub(/,/, " ", val)
          if (key == "signed-by") { signed = val; continue }
          if (key in map) extras = extras (extras == "" ? "" : "\036") map[key] ": " val
          else printf "[fetch] warning: ignoring apt option %s in %s\n", key, FILENAME > "/dev/stderr"
        }
      }
      m = split(rest, w, /[ \t]+/)
      if (m < 2) next
      comps = ""
      for (i = 3; i <= m; i++) comps = comps (comps == "" ? "" : " ") w[i]
      printf "%s\037%s\037%s\037%s\037%s\n", w[1], w[2], comps, signed, extras
    }
  ' "$@"
}

# Merge records into deb822 stanzas (Types: deb deb-src) and add the
# $EXTRA_SUITES stanza(s) next to the codename stanza(s).
emit_private_sources() {
  awk -v codename="$CODENAME" -v extra="$EXTRA_SUITES" '
    BEGIN { FS = "\037" }
    function field(name, val) { if (val != "") { gsub(/\036/, "\n", val); printf "%s: %s\n", name, val } }
    function emit(key, suites,   p, v) {
      split(key, p, "\037")
      print "Types: deb deb-src"
      field("URIs", p[1]); field("Suites", suites); field("Components", p[2]); field("Signed-By", p[3])
      if (p[4] != "") { v = p[4]; gsub(/\036/, "\n", v); print v }
      print ""
    }
    {
      key = $1 "\037" $3 "\037" $4 "\037" $5
      if (!(key in seen)) { seen[key] = ++ng; gk[ng] = key; gs[ng] = "" }
      g = seen[key]; n = split($2, s, " ")
      for (i = 1; i <= n; i++) {
        if (index(" " gs[g] " ", " " s[i] " ") == 0) gs[g] = gs[g] (gs[g] == "" ? "" : " ") s[i]
        if (s[i] == codename) want[g] = 1
      }
    }
    END {
      print "# generated by third_party/fetch.sh from the system apt sources; do not edit"
      print ""
      for (g = 1; g <= ng; g++) emit(gk[g], gs[g])
      nx = 0
      for (g = 1; g <= ng; g++) {
        if (!want[g]) continue
        nx++; add = ""; n = split(extra, s, " ")
        for (i = 1; i <= n; i++) if (index(" " gs[g] " ", " " s[i] " ") == 0) add = add (add == "" ? "" : " ") s[i]
        if (add != "") emit(gk[g], add)
      }
      if (nx == 0) exit 3
    }
  '
}

lists_fresh() {
  [[ -f $APT_LISTS_STAMP ]] || return 1
  [[ $(cat "$APT_LISTS_STAMP") == "$(sha256sum <"$APT_SOURCES" | cut -d' ' -f1)" ]] || return 1
  [[ -n $(find "$APT_LISTS_STAMP" -mmin "-$LISTS_MAX_AGE_MIN" 2>/dev/null) ]]
}

# Update the private lists; at most once per run.  Returns 1 if it already ran.
apt_update() {
  ((APT_UPDATED == 0)) || return 1
  APT_UPDATED=1
  log "private apt: updating package lists ($APT_DIR/lists)"
  rm -f "$APT_LISTS_STAMP"
  run_logged "$APT_DIR/update.log" apt-get "${APT_OPTS[@]}" --error-on=any update ||
    die "apt-get update on the private config failed (sources: $APT_SOURCES)"
  sha256sum <"$APT_SOURCES" | cut -d' ' -f1 >"$APT_LISTS_STAMP"
}

# private_state_opts DIR: apt options, one a line, that keep apt's lists and
# downloads in DIR, which they create.
private_state_opts() {
  mkdir -p "$1"/{lists/partial,cache/archives/partial}
  printf '%s\n' -q -o "Acquire::Languages=none" \
    -o "Dir::State::Lists=$1/lists" -o "Dir::Cache=$1/cache" \
    -o "Dir::Cache::Archives=archives" -o "Dir::Cache::pkgcache=pkgcache.bin" \
    -o "Dir::Cache::srcpkgcache=srcpkgcache.bin"
  # As root, apt drops to user _apt for downloads, which cannot write into
  # the project folders (it would warn and fall back).  Stay root instead.
  ((EUID != 0)) || printf '%s\n' -o "APT::Sandbox::User=root"
}

setup_private_apt() {
  ((APT_READY == 0)) || return 0
  command -v apt-get >/dev/null || die "apt-get not found (this script needs a Debian system)"
  [[ -r /etc/os-release ]] || die "/etc/os-release not readable"
  # shellcheck source=/dev/null
  CODENAME=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
  [[ -n $CODENAME ]] || die "VERSION_CODENAME missing in /etc/os-release"

  mkdir -p "$APT_DIR"/{sources.list.d,preferences.d}
  : >"$APT_DIR/preferences"

  local -a deb822=() oneline=()
  local f
  shopt -s nullglob
  for f in /etc/apt/sources.list.d/*.sources; do [[ -r $f ]] && deb822+=("$f"); done
  for f in /etc/apt/sources.list.d/*.list; do [[ -r $f ]] && oneline+=("$f"); done
  shopt -u nullglob
  [[ -s /etc/apt/sources.list ]] && oneline=(/etc/apt/sources.list "${oneline[@]}")
  ((${#deb822[@]} + ${#oneline[@]} > 0)) || die "no system apt sources found in /etc/apt"

  local tmp rc=0
  tmp=$(mktemp "$APT_DIR/sources.XXXXXX"); TMP_PATHS+=("$tmp")
  {
    ((${#deb822[@]} == 0)) || parse_deb822 "${deb822[@]}"
    ((${#oneline[@]} == 0)) || parse_oneline "${oneline[@]}"
  } | emit_private_sources >"$tmp" || rc=$?
  ((rc != 3)) || die "no system apt source carries suite '$CODENAME' (checked: ${deb822[*]} ${oneline[*]})"
  ((rc == 0)) || die "could not derive the private apt sources (rc=$rc)"
  if ! cmp -s "$tmp" "$APT_SOURCES"; then
    mv -f "$tmp" "$APT_SOURCES"
    rm -f "$APT_LISTS_STAMP"
  fi
  find "$APT_DIR/sources.list.d" -mindepth 1 ! -name "${APT_SOURCES##*/}" -delete

  mapfile -t APT_OPTS < <(private_state_opts "$APT_DIR")
  APT_OPTS+=(
    -o "Dir::Etc::SourceList=/dev/null"
    -o "Dir::Etc::SourceParts=$APT_DIR/sources.list.d"
    -o "Dir::Etc::Preferences=$APT_DIR/preferences"
    -o "Dir::Etc::PreferencesParts=$APT_DIR/preferences.d"
    -o "APT::Default-Release="
  )
  APT_READY=1

  if lists_fresh; then
    log "private apt: lists younger than a day, not updating ($APT_DIR)"
  else
    apt_update
  fi
}

# Versions of PKG in SUITE ("" = any suite) from `apt-cache madison`
# (KIND: Packages|Sources), highest first.
suite_versions() {
  local pkg=$1 suite=$2 kind=$3
  { apt-cache "${APT_OPTS[@]}" madison "$pkg" 2>/dev/null || true; } | awk -F'|' -v p="$pkg" -v s="$suite" -v k="$kind" '
    { for (i = 1; i <= NF; i++) { gsub(/^[ \t]+|[ \t]+$/, "", $i) } }
    $1 == p { n = split($3, a, /[ \t]+/); if (n >= 3 && a[n] == k && (s == "" || index(a[2], s "/") == 1)) print $2 }'
}

# First index record of PKG=VERSION (binary package).
pkg_record() {
  local rec
  rec=$(apt-cache "${APT_OPTS[@]}" show "$1=$2" 2>/dev/null | awk 'done { next } NF == 0 { done = 1; next } { print }') || true
  [[ -n $rec ]] || die "apt-cache show $1=$2 returned nothing"
  printf '%s\n' "$rec"
}
rec_field() { printf '%s\n' "$1" | awk -v k="$2: " 'index($0, k) == 1 && !done { print substr($0, length(k) + 1); done = 1 }'; }

# ---------------------------------------------------------------- protobuf --
# source_present PKG VERSION DIR MARKER: DIR holds PKG=VERSION, unpacked.
source_present() {
  local pkg=$1 version=$2 dir=$3 marker=$4
  [[ -f $dir.stamp ]] || return 1
  [[ $(head -n 1 "$dir.stamp") == "$pkg=$version" ]] || return 1
  [[ -f $dir/$marker ]] || return 1
  [[ -f $dir/debian/changelog ]] || return 1
  [[ ! -s $dir/debian/patches/series || -f $dir/.pc/applied-patches ]]
}

ensure_dpkg_source() {
  command -v dpkg-source >/dev/null && return 0
  local -a sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || die "dpkg-source is missing; install package dpkg-dev (apt-get install dpkg-dev)"
    sudo=(sudo)
  fi
  log "dpkg-source missing: installing dpkg-dev (system apt)"
  if ! run_logged "$SRC_DL/install-dpkg-dev.log" "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends dpkg-dev; then
    log "retrying after refreshing the system package lists"
    run_logged "$SRC_DL/install-dpkg-dev.log" "${sudo[@]}" apt-get -q update ||
      die "system apt-get update failed; install dpkg-dev manually"
    run_logged "$SRC_DL/install-dpkg-dev.log" "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends dpkg-dev ||
      die "could not install dpkg-dev"
  fi
  command -v dpkg-source >/dev/null || die "dpkg-source still missing after installing dpkg-dev"
}

# Check every file listed in the .dsc (Checksums-Sha256) exists and matches.
verify_dsc_files() {
  local dsc=$1 dir sum size name n=0
  dir=$(dirname "$dsc")
  while read -r sum size name; do
    [[ -n $name ]] || continue
    n=$((n + 1))
    [[ -f $dir/$name ]] || die "$(rel "$dsc"): listed file $name is missing"
    [[ $(stat -c %s "$dir/$name") == "$size" ]] || die "$name: size differs from $(rel "$dsc")"
    [[ $(sha256sum <"$dir/$name" | cut -d' ' -f1) == "$sum" ]] || die "$name: sha256 differs from $(rel "$dsc")"
  done < <(sed -e '1,/^Checksums-Sha256:/d' -e '/^[^ ]/,$d' "$dsc")
  ((n > 0)) || die "$(rel "$dsc") has no Checksums-Sha256 file list"
  log "$(basename "$dsc"): $n files listed present, sha256 ok"
}

# fetch_source PKG VERSION DIR MARKER: Debian's source package PKG=VERSION,
# Debian's patches applied, into DIR (MARKER: a file the tree must hold).
fetch_source() {
  local pkg=$1 version=$2 dir=$3 marker=$4
  local what="$pkg $version" stamp=$3.stamp
  if source_present "$pkg" "$version" "$dir" "$marker"; then
    log "$what: present in $(rel "$dir") (skipping)"
    return 0
  fi
  mkdir -p "$SRC_DL"
  ensure_dpkg_source
  setup_private_apt

  local suites found
  suites=$(awk '/^Suites:/ { for (i = 2; i <= NF; i++) print $i }' "$APT_SOURCES" | paste -sd ' ' -)
  found=$(suite_versions "$pkg" "" Sources | grep -Fx -- "$version" || true)
  if [[ -z $found ]] && apt_update; then
    found=$(suite_versions "$pkg" "" Sources | grep -Fx -- "$version" || true)
  fi
  [[ -n $found ]] || die "source package $pkg version $version not found (searched deb-src of: $suites)"

  log "$what: downloading"
  rm -f "$stamp"
  (cd "$SRC_DL" && run_logged "$SRC_DL/apt-get-source.log" \
      apt-get "${APT_OPTS[@]}" source --download-only --only-source "$pkg=$version") ||
    die "apt-get source $pkg=$version failed"

  local dsc=$SRC_DL/${pkg}_${version#*:}.dsc
  [[ -f $dsc ]] || die "$(rel "$dsc") missing after download"
  verify_dsc_files "$dsc"

  log "$what: unpacking with dpkg-source (applies debian/patches)"
  local stage
  stage=$(mktemp -d "$SRC_DIR/.unpack.XXXXXX"); TMP_PATHS+=("$stage")
  run_logged "$SRC_DL/dpkg-source.log" \
      dpkg-source --no-copy --require-strong-checksums -x "$dsc" "$stage/${dir##*/}" ||
    die "dpkg-source -x $(rel "$dsc") failed (checksum or patch error)"

  local tree=$stage/${dir##*/} nseries=0 napplied=0
  [[ -f $tree/$marker ]] || die "unpacked tree lacks $marker"
  if [[ -s $tree/debian/patches/series ]]; then
    nseries=$(grep -cvE '^[[:space:]]*(#|$)' "$tree/debian/patches/series" || true)
    [[ -f $tree/.pc/applied-patches ]] && napplied=$(grep -cv '^[[:space:]]*$' "$tree/.pc/applied-patches" || true)
    ((napplied == nseries)) || die "only $napplied of $nseries debian patches applied (see $SRC_DL/dpkg-source.log)"
  fi
  if grep -q 'cannot verify .*signature' "$SRC_DL/dpkg-source.log"; then
    log "$what: .dsc OpenPGP signature not checked (no Debian keyring here); integrity comes from apt's signed index + checksums"
  fi

  rm -rf "$dir"
  mv "$tree" "$dir"
  {
    printf '%s=%s\n' "$pkg" "$version"
    printf 'dsc-sha256=%s\n' "$(sha256sum <"$dsc" | cut -d' ' -f1)"
    printf 'patches-applied=%s\n' "$napplied"
    printf 'fetched=%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  } >"$stamp.tmp"
  mv -f "$stamp.tmp" "$stamp"
  log "$what: done, $napplied debian patches applied -> $(rel "$dir")"
}

fetch_protobuf() {
  fetch_source "$PROTOBUF_SRC_PKG" "$PROTOBUF_VERSION" "$PROTOBUF_DIR" src/google/protobuf/parse_context.h
}

# For each of ABSEIL_SPECS, the highest Debian version of abseil
# VERSION_PREFIX in SUITE, into third_party/src/abseil-<version prefix>/;
# then jsoncpp.
fetch_upstream_deps() {
  local spec suite prefix version
  setup_private_apt
  for spec in "${ABSEIL_SPECS[@]}"; do
    suite=${spec%%:*} prefix=${spec#*:}
    version=$(suite_versions abseil "$suite" Sources | grep -E "^([0-9]+:)?$prefix[.~+-]" | head -n 1 || true)
    if [[ -z $version ]] && apt_update; then
      version=$(suite_versions abseil "$suite" Sources | grep -E "^([0-9]+:)?$prefix[.~+-]" | head -n 1 || true)
    fi
    [[ -n $version ]] || die "no source package abseil $prefix* in suite $suite"
    fetch_source abseil "$version" "$SRC_DIR/abseil-$prefix" absl/base/config.h
  done
  # jsoncpp, for v22.0's conformance runner (a git submodule upstream).
  version=$(suite_versions libjsoncpp "$CODENAME" Sources | head -n 1)
  [[ -n $version ]] || die "no source package libjsoncpp in suite $CODENAME"
  fetch_source libjsoncpp "$version" "$SRC_DIR/jsoncpp" include/json/json.h
}

# ------------------------------------------------------------------- arm64 --
# The arm64 packages of the libraries installed here, at their installed
# versions: the stable release's own sources serve them, so apt reads the
# system's sources as they are, with lists of its own (both architectures)
# in the cache; nothing of the system's apt state changes.
fetch_arm64() {
  local -a pkgs=(libprotobuf32 libprotobuf-lite32 zlib1g zlib1g-dev libbenchmark1debian libbenchmark-dev) specs=()
  local pkg version stamp=""
  for pkg in "${pkgs[@]}"; do
    version=$(dpkg-query -W -f='${Version}' "$pkg:amd64" 2>/dev/null) ||
      die "$pkg is not installed: its arm64 package is fetched at the installed version"
    specs+=("$pkg:arm64=$version")
  done
  stamp="${specs[*]}"
  if [[ -f $ARM64_DIR/.fetch-stamp && $(cat "$ARM64_DIR/.fetch-stamp") == "$stamp" ]]; then
    log "arm64: present in $(rel "$ARM64_DIR") ($stamp) (skipping)"
    return 0
  fi
  local apt=$CACHE_ROOT/apt-arm64 opts
  mapfile -t opts < <(private_state_opts "$apt")
  opts+=(-o "APT::Architectures::=amd64" -o "APT::Architectures::=arm64")
  log "arm64: updating package lists ($apt/lists)"
  run_logged "$apt/update.log" apt-get "${opts[@]}" --error-on=any update ||
    die "apt-get update (amd64 and arm64) failed"
  local dl stage
  dl=$(mktemp -d); TMP_PATHS+=("$dl")
  log "arm64: downloading ${specs[*]}"
  (cd "$dl" && run_logged "$apt/download.log" apt-get "${opts[@]}" download "${specs[@]}") ||
    die "apt-get download failed for: ${specs[*]}"
  mkdir -p "$ARM64_DIR"
  stage=$(mktemp -d "$ARM64_DIR/.unpack.XXXXXX"); TMP_PATHS+=("$stage")
  local deb
  for deb in "$dl"/*.deb; do
    [[ $(dpkg-deb -f "$deb" Architecture) == arm64 ]] || die "${deb##*/} is not an arm64 package"
    dpkg-deb -x "$deb" "$stage" || die "dpkg-deb -x ${deb##*/} failed"
  done
  find "$ARM64_DIR" -mindepth 1 -maxdepth 1 ! -name "${stage##*/}" -exec rm -rf {} +
  mv "$stage"/* "$ARM64_DIR/"
  printf '%s\n' "$stamp" >"$ARM64_DIR/.fetch-stamp"
  log "arm64: done -> $(rel "$ARM64_DIR")/"
}

# ----------------------------------------------------------------- anchors --
anchors_present() {
  [[ -f $ANCHORS_STAMP && -f $ANCHORS_MANIFEST ]] || return 1
  local spec p
  for spec in "${ANCHOR_SPECS[@]}"; do
    grep -q "^${spec%%:*} ${spec#*:} " "$ANCHORS_STAMP" || return 1
  done
  while IFS= read -r p; do
    [[ -e $ANCHORS_DIR/$p || -L $ANCHORS_DIR/$p ]] || return 1
  done <"$ANCHORS_MANIFEST"
}

fetch_anchors() {
  if anchors_present; then
    log "anchors: present in $(rel "$ANCHORS_DIR") ($(awk '!/^#/ { printf "%s%s=%s", sep, $2, $3; sep = " " }' "$ANCHORS_STAMP")) (skipping)"
    return 0
  fi
  mkdir -p "$ANCHORS_DL"
  setup_private_apt

  # Resolve the requested packages plus same-source dependencies.
  local -A ver=() suite_of=() src_of=() file_of=() sha_of=() seen=()
  local -a queue=("${ANCHOR_SPECS[@]}") order=()
  local spec suite pkg v rec src dep dv drec dsrc
  while ((${#queue[@]})); do
    spec=${queue[0]}; queue=("${queue[@]:1}")
    suite=${spec%%:*}; pkg=${spec#*:}
    [[ -z ${seen[$pkg]:-} ]] || continue
    seen[$pkg]=1
    v=$(suite_versions "$pkg" "$suite" Packages | sed -n 1p)
    if [[ -z $v ]] && apt_update; then
      v=$(suite_versions "$pkg" "$suite" Packages | sed -n 1p)
    fi
    [[ -n $v ]] || die "package $pkg not found in suite $suite (private apt config $APT_SOURCES)"
    rec=$(pkg_record "$pkg" "$v")
    src=$(rec_field "$rec" Source); src=${src%% *}; src=${src:-$pkg}
    ver[$pkg]=$v; suite_of[$pkg]=$suite; src_of[$pkg]=$src
    file_of[$pkg]=$(rec_field "$rec" Filename); file_of[$pkg]=${file_of[$pkg]##*/}
    sha_of[$pkg]=$(rec_field "$rec" SHA256)
    [[ -n ${file_of[$pkg]} && -n ${sha_of[$pkg]} ]] || die "index record of $pkg=$v ($suite) lacks Filename/SHA256"
    order+=("$pkg")
    log "anchors: $pkg $v ($suite, source $src)"
    while IFS= read -r dep; do
      [[ -n $dep && -z ${seen[$dep]:-} ]] || continue
      dv=$(suite_versions "$dep" "$suite" Packages | sed -n 1p)
      [[ -n $dv ]] || continue
      drec=$(pkg_record "$dep" "$dv")
      dsrc=$(rec_field "$drec" Source); dsrc=${dsrc%% *}; dsrc=${dsrc:-$dep}
      [[ $dsrc == "$src" ]] && queue+=("$suite:$dep")
    done < <(printf '%s\n' "$rec" | sed -n 's/^\(Pre-\)\{0,1\}Depends: //p' | tr ',' '\n' |
               sed -e 's/|.*//' -e 's/(.*)//' -e 's/:.*//' -e 's/[[:space:]]//g' | sort -u)
  done
  # Packages from one source package must share one version.
  local a b
  for a in "${order[@]}"; do for b in "${order[@]}"; do
    [[ ${src_of[$a]} != "${src_of[$b]}" || ${ver[$a]} == "${ver[$b]}" ]] ||
      die "version skew within source ${src_of[$a]}: $a=${ver[$a]} vs $b=${ver[$b]}"
  done; done

  # Download (reuse .debs already in downloads/ whose sha256 matches the index).
  local -a need=()
  for pkg in "${order[@]}"; do
    if [[ -f $ANCHORS_DL/${file_of[$pkg]} ]] &&
       [[ $(sha256sum <"$ANCHORS_DL/${file_of[$pkg]}" | cut -d' ' -f1) == "${sha_of[$pkg]}" ]]; then
      continue
    fi
    need+=("$pkg=${ver[$pkg]}")
  done
  if ((${#need[@]})); then
    log "anchors: downloading ${need[*]}"
    local dl
    dl=$(mktemp -d "$ANCHORS_DL/.partial.XXXXXX"); TMP_PATHS+=("$dl")
    (cd "$dl" && run_logged "$ANCHORS_DL/apt-get-download.log" apt-get "${APT_OPTS[@]}" download "${need[@]}") ||
      die "apt-get download failed for: ${need[*]}"
    local spec2
    for spec2 in "${need[@]}"; do
      pkg=${spec2%%=*}
      [[ -f $dl/${file_of[$pkg]} ]] || die "$pkg ${ver[$pkg]} (${suite_of[$pkg]}): ${file_of[$pkg]} missing after download"
      mv -f "$dl/${file_of[$pkg]}" "$ANCHORS_DL/"
    done
  else
    log "anchors: all .debs already downloaded and verified"
  fi
  for pkg in "${order[@]}"; do
    local deb=$ANCHORS_DL/${file_of[$pkg]}
    [[ $(sha256sum <"$deb" | cut -d' ' -f1) == "${sha_of[$pkg]}" ]] ||
      die "$pkg ${ver[$pkg]} (${suite_of[$pkg]}): sha256 of ${file_of[$pkg]} does not match the index"
    [[ $(dpkg-deb -f "$deb" Package) == "$pkg" && $(dpkg-deb -f "$deb" Version) == "${ver[$pkg]}" ]] ||
      die "$pkg ${ver[$pkg]}: ${file_of[$pkg]} control fields do not match"
  done
  # Drop stale .debs from earlier versions.
  local f keep
  for f in "$ANCHORS_DL"/*.deb; do
    [[ -e $f ]] || continue
    keep=0
    for pkg in "${order[@]}"; do [[ ${f##*/} == "${file_of[$pkg]}" ]] && keep=1; done
    ((keep)) || rm -f "$f"
  done

  # Extract into a staging folder, check, then swap into place.
  log "anchors: unpacking ${#order[@]} packages with dpkg-deb -x"
  local stage
  stage=$(mktemp -d "$ANCHORS_DIR/.unpack.XXXXXX"); TMP_PATHS+=("$stage")
  mkdir "$stage/root"
  for pkg in "${order[@]}"; do
    dpkg-deb -x "$ANCHORS_DL/${file_of[$pkg]}" "$stage/root" || die "dpkg-deb -x ${file_of[$pkg]} failed"
  done
  (cd "$stage/root" && find . -mindepth 1 ! -type d -printf '%P\n' | LC_ALL=C sort) >"$stage/manifest"
  local p
  while IFS= read -r p; do
    [[ ! -L $stage/root/$p || -e $stage/root/$p ]] || die "dangling symlink in anchors: $p -> $(readlink "$stage/root/$p")"
  done <"$stage/manifest"

  rm -f "$ANCHORS_STAMP" "$ANCHORS_MANIFEST"
  find "$ANCHORS_DIR" -mindepth 1 -maxdepth 1 ! -name downloads ! -name "${stage##*/}" -exec rm -rf {} +
  for p in "$stage/root"/* "$stage/root"/.[!.]*; do
    [[ -e $p || -L $p ]] && mv "$p" "$ANCHORS_DIR/"
  done
  mv "$stage/manifest" "$ANCHORS_MANIFEST"
  {
    printf '# suite package version sha256 -- written by third_party/fetch.sh %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    for pkg in "${order[@]}"; do
      printf '%s %s %s %s\n' "${suite_of[$pkg]}" "$pkg" "${ver[$pkg]}" "${sha_of[$pkg]}"
    done
  } >"$ANCHORS_STAMP.tmp"
  mv -f "$ANCHORS_STAMP.tmp" "$ANCHORS_STAMP"
  log "anchors: done, ${#order[@]} packages -> $(rel "$ANCHORS_DIR")/usr/{include,lib}"
}

# -------------------------------------------------------------------- main --
main() {
  local target=${1:-all}
  (($# <= 1)) || { usage; exit 2; }
  case $target in
    protobuf|anchors|upstream|arm64|all) ;;
    -h|--help) usage; exit 0 ;;
    *) usage; exit 2 ;;
  esac

  mkdir -p "$APT_DIR"
  exec 9>"$APT_DIR/fetch.lock"
  if command -v flock >/dev/null && ! flock -n 9; then
    log "another fetch.sh run holds $APT_DIR/fetch.lock; waiting"
    flock 9
  fi

  case $target in
    protobuf) fetch_protobuf ;;
    anchors) fetch_anchors ;;
    upstream) fetch_upstream_deps ;;
    arm64) fetch_arm64 ;;
    all) fetch_protobuf; fetch_anchors ;;
  esac
  log "finished '$target' in ${SECONDS}s"
}

main "$@"
