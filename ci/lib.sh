# Shared by ci/test.sh and ci/ab.sh: progress, errors, packages, the build.
# shellcheck shell=bash

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${PROTOACCEL_CACHE:-$HOME/.cache/protoaccel}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_BASEDIR=$ROOT  # clones at other paths still hit the cache

step_number=0
step() {
  step_number=$((step_number + 1))
  printf '\n==> [%s] %s\n' "$step_number" "$*"
}
die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

# ensure_packages PKG...: installs the Debian packages that are missing.
# Quiet when all are present; names the ones it could not install.
ensure_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}"
  [ "$(id -u)" -eq 0 ] || die "missing packages: ${missing[*]} (run as root, or install them)"
  local log=$CACHE/apt-install.log
  mkdir -p "$CACHE"
  if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    die "could not install: ${missing[*]} (full log: $log)"
  fi
}

# The packages every build needs. ccache is welcome but never required.
ensure_build_packages() {
  ensure_packages cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev \
    libbenchmark-dev libprotobuf-dev protobuf-compiler zlib1g-dev dpkg-dev patch \
    valgrind  # also valgrind/callgrind.h: message_bench's counts per case
  ensure_packages ccache 2>/dev/null || echo "ccache unavailable; building without it"
}

# host_isas [PROTOACCEL_INFO]: the levels this CPU runs, scalar first, as
# PROTOACCEL_ISA names them (from a build's protoaccel_info, by default
# out/build's, which must exist).
host_isas() {
  local detected isa
  detected=$(env -u PROTOACCEL_ISA "${1:-$ROOT/out/build/protoaccel_info}" | sed -n 's/^detected: //p')
  [ -n "$detected" ] || die "out/build/protoaccel_info did not name the detected level"
  for isa in scalar sse4 avx2 avx512; do
    echo "$isa"
    [ "$isa" = "$detected" ] && return 0
  done
  die "unknown level: $detected"
}

# configure_and_build SOURCE_DIR BUILD_DIR [CMAKE_ARGS...]
configure_and_build() {
  local source=$1 dir=$2
  shift 2
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  mkdir -p "$(dirname "$dir")"
  cmake -S "$source" -B "$dir" -G Ninja "${launcher[@]}" "$@" >"$dir.configure.log" 2>&1 ||
    { mkdir -p "$dir"; cat "$dir.configure.log" >&2; die "cmake configure failed in $dir"; }
  ninja -C "$dir" || die "build failed in $dir"
}
