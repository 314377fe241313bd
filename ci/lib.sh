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
  # Another apt or dpkg (a second script of ours, unattended-upgrades) may
  # hold the lock: wait for it rather than fail.
  local wait=(-o DPkg::Lock::Timeout=600)
  if ! { apt-get "${wait[@]}" update -q && DEBIAN_FRONTEND=noninteractive apt-get "${wait[@]}" \
      install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
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
  case $detected in
    neon) printf '%s\n' scalar neon; return 0 ;;  # arm64's ladder
  esac
  for isa in scalar sse4 avx2 avx512; do
    echo "$isa"
    [ "$isa" = "$detected" ] && return 0
  done
  die "unknown level: $detected"
}

# run_jobs CMD...: each CMD (a string, run by bash -c) in the background,
# two at a time (one per core: these compare results, not times); fails if
# any failed.
run_jobs() {
  local cmd failed=0
  for cmd in "$@"; do
    if [ "$(jobs -rp | wc -l)" -ge 2 ]; then wait -n || failed=1; fi
    bash -c "$cmd" &
  done
  while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || failed=1; done
  [ $failed -eq 0 ]
}

# abi_compatible DEBIAN_LIB_DIR OUR_LIB_DIR REPORT_DIR: abidiff of
# libprotobuf.so.32 and libprotobuf-lite.so.32, Debian's against ours, the
# reports kept in REPORT_DIR. Additions are compatible; a removed or
# changed function or variable is not, with one exception: the series
# replaces the packed-varint readers' instantiations over a parser's
# lambda (ReadPackedVarint<...::{lambda(unsigned long)#1}>). No program
# can name a lambda's type, so none can refer to one without instantiating
# it, and with it its own copy (a COMDAT).
abi_compatible() {
  local theirs=$1 ours=$2 report=$3 lib txt removed
  ensure_packages abigail-tools
  mkdir -p "$report"
  for lib in libprotobuf.so.32 libprotobuf-lite.so.32; do
    txt=$report/abidiff-$lib.txt
    abidiff "$theirs/$lib" "$ours/$lib" >"$txt" || true
    grep -E '^(Functions|Variables|Function symbols|Variable symbols) changes summary' "$txt" |
      sed "s/^/  $lib: /"
    grep -qE '^Functions changes summary' "$txt" ||
      die "$lib: abidiff printed no summary ($txt)"
    if grep -E '^(Functions|Variables) changes summary' "$txt" |
        grep -vqE ': 0 Removed, 0 Changed'; then
      die "$lib: abidiff reports removed or changed functions or variables ($txt)"
    fi
    grep -qE '^Variable symbols changes summary: 0 Removed' "$txt" ||
      die "$lib: abidiff reports removed variable symbols ($txt)"
    removed=$(sed -n '/Removed function symbols not referenced by debug info:/,/^$/p' "$txt" |
      awk '$1 == "[D]" { print $2 }')
    if printf '%s\n' "$removed" | grep -v '^$' | grep -vqE 'ReadPackedVarint.*UlmE_'; then
      die "$lib: abidiff reports removed function symbols other than the packed readers' lambda instantiations ($txt)"
    fi
  done
}

# cross_cmake_args TRIPLE: CMake's arguments, one a line, for a build for
# TRIPLE's machine (its processor, TRIPLE's first word) with Debian's cross
# compilers TRIPLE-gcc and TRIPLE-g++.
cross_cmake_args() {
  printf '%s\n' -DCMAKE_SYSTEM_NAME=Linux "-DCMAKE_SYSTEM_PROCESSOR=${1%%-*}" \
    "-DCMAKE_C_COMPILER=$1-gcc" "-DCMAKE_CXX_COMPILER=$1-g++"
}

# True if this machine runs TRIPLE's static programs itself: an i386 one
# it does not where the kernel was built without IA32 emulation (as some VM
# hosts' are); those run under qemu-i386 instead.
runs_natively() {
  local dir status=0
  dir=$(mktemp -d)
  echo 'int main() { return 0; }' | "$1-g++" -static -x c++ -o "$dir/probe" - &&
    "$dir/probe" 2>/dev/null || status=1
  rm -rf "$dir"
  return $status
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

# Code layouts, for A/B runs of cases of a few tens of nanoseconds: where
# the code lands moves those by more than the few instructions a series
# adds there, so each round runs a layout of its own (ci/ab.sh --layouts,
# ci/verify-upstream.sh). The caller's `locked` array, if any, prefixes the
# link (flock on the --lock file).
#
# relink DIR TARGET FILE OUTPUT PAD: FILE, which ninja's TARGET in the build
# DIR links, linked again from the same objects into OUTPUT, with PAD bytes
# of code ahead of them, so that all of its code moves by PAD.
relink() {
  local dir=$1 target=$2 file=$3 output=$4 pad=$5 cmd first
  cmd=$(ninja -C "$dir" -t commands "$target" | grep -F -- " -o $file " | tail -n 1)
  [ -n "$cmd" ] || die "$dir: no command of $target links $file"
  # The pad goes ahead of the first object: the linker lays code out in the
  # order of its inputs, and a program's command lists its objects before
  # -o (a library's, after), so a pad put at -o would move no program code.
  local words
  read -ra words <<<"$cmd"
  for first in "${words[@]}" ''; do [[ $first == *.o ]] && break; done
  [ -n "$first" ] || die "$dir: no object in the link of $file"
  cmd=${cmd/" -o $file "/" -o $output "}
  cmd=${cmd/" $first"/" $output.pad.o $first"}
  printf '\t.text\n\t.skip %d, 0xcc\n\t.section .note.GNU-stack,"",@progbits\n' "$pad" |
    as -o "$output.pad.o" -
  (cd "$dir" && "${locked[@]+"${locked[@]}"}" bash -c "$cmd") || die "$dir: relinking $file failed"
  rm -f "$output.pad.o"
  # A layout that moved nothing would measure one layout many times over, as
  # the pad did at -o: a function of the first object must have moved.
  local function_name before after
  # (awk reads to the end: an early exit would fail nm, and so the pipe.)
  function_name=$(nm --defined-only "$dir/$first" | awk '$2 == "T" && !name { name = $3 } END { print name }')
  before=$(address_of "$dir/$file" "$function_name")
  after=$(address_of "$output" "$function_name")
  [ -n "$before" ] && [ -n "$after" ] ||
    die "$dir: no function of $first in $file to check its layout by"
  ((pad == 0)) || [ "$before" != "$after" ] ||
    die "$output: the pad of $pad bytes did not move $function_name"
}

# address_of FILE SYMBOL: the address of SYMBOL in FILE's symbol table.
address_of() {
  nm --defined-only "$1" | awk -v name="$2" '$3 == name && !address { address = $1 } END { print address }'
}
