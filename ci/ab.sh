#!/usr/bin/env bash
# The main job: an A/B benchmark of stock vs accelerated libprotobuf 3.21.12.
# Builds what is missing or out of date (out/stock, out/accel, the benchmark
# programs), then runs
#   - the message A/B: message_bench, built once against Debian's protobuf
#     headers, run against each library through LD_LIBRARY_PATH, libraries
#     alternating (benchmarks/ab.py): packed fields of every type and size,
#     NumberBatch, UID lists, strings vs bytes, Google's datasets;
#   - the kernel benchmarks on every instruction set this CPU has;
# and writes OUT/report.md (default out/report/), its plots (OUT/plots/) and
# the JSON it is made from (OUT/json/, OUT/results.json).
# About 15 minutes on a 2-core machine; --quick: under 3.
#
# Usage: ci/ab.sh [options]
#   --quick             a short run: 1 round, min time 0.01 s per case
#   --filter REGEX      the cases to run, by name (default: all); names are
#                       family/op/..., e.g. packed/parse/uint32/lt128/10000,
#                       uidlist/serialize/10000000, string/parse/mixed/1024,
#                       dataset/parse/google_message2 (--list shows them all)
#   --rounds N          runs of each case per library (default 5; the report
#                       gives the median and the spread)
#   --min-time SECONDS  google-benchmark's minimum time per case (default 0.04)
#   --per-case          one process per case, not per group: the libraries'
#                       runs of a case side by side, and the report's paired
#                       speed-ups (the median of the rounds' ratios)
#   --lib NAME=DIR      one more library to compare (repeatable). DIR holds
#                       libprotobuf.so.32, or is an install prefix with it in
#                       DIR/lib: it runs the same program (a drop-in). A
#                       prefix of another release (DIR/lib/cmake/protobuf, no
#                       libprotobuf.so.32) gets message_bench built against
#                       its own headers. NAME stock or accel replaces the
#                       default build of that name (then not built).
#   --layouts           every round in a code layout of its own: stock's and
#                       accel's libprotobuf and message_bench linked again,
#                       their code moved by a multiple of 16 bytes under 4 KiB
#                       (ci/lib.sh relink), so that a median is over layouts;
#                       adds stock-copy, stock in layouts of its own, as the
#                       control. For the small cases, with --per-case: with
#                       identical instructions, a packed field of 16 one-byte
#                       values measured 0.96x of stock in one layout. Only
#                       the default stock and accel builds (no --lib, no
#                       accel-headers); links 3 x ROUNDS files first
#   --no-accel-headers  leave out accel-headers: the accelerated library run by
#                       a message_bench compiled against its headers (by
#                       default the third library; it shows what rebuilding a
#                       program adds: the inline packed writers call protoaccel)
#   --kernels REGEX     the kernel benchmarks to run (default: all)
#   --no-kernels        no kernel benchmarks
#   --maskedvbyte DIR   a checkout of lemire/MaskedVByte: its decoder runs
#                       beside ours in the kernel benchmarks (nothing is
#                       fetched; the UTF-8 anchors, simdutf and utf8_range,
#                       are, by third_party/fetch.sh anchors)
#   --out DIR           where the report goes (default out/report)
#   --build DIR         the build of the benchmark programs (default
#                       out/release, a Release build); an existing build
#                       folder (CMakeCache.txt) is only brought up to date
#   --lock FILE         run each build and benchmark process under flock(1)
#                       on FILE, for machines where others benchmark too
#                       (default: $PROTOACCEL_LOCK, if set)
#   --list              list the cases (after building) and stop
#   -h, --help          this text
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
need_value() { if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value (try --help)"; fi; }

quick=false
filter=.
rounds=5
min_time=0.04
kernel_filter=.
kernel_min_time=0.04
kernels=true
accel_headers=true
out=out/report
build=out/release
lock=${PROTOACCEL_LOCK:-}
list=false
rounds_given=false
min_time_given=false
per_case=false
layouts=false
maskedvbyte=
lib_specs=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=true ;;
    --filter) need_value "$@"; filter=$2; shift ;;
    --rounds) need_value "$@"; rounds=$2; rounds_given=true; shift ;;
    --min-time) need_value "$@"; min_time=$2; min_time_given=true; shift ;;
    --per-case) per_case=true ;;
    --layouts) layouts=true ;;
    --lib) need_value "$@"; lib_specs+=("$2"); shift ;;
    --kernels) need_value "$@"; kernel_filter=$2; shift ;;
    --no-kernels) kernels=false ;;
    --maskedvbyte) need_value "$@"; maskedvbyte=$(cd "$2" 2>/dev/null && pwd) ||
      die "--maskedvbyte $2: not a folder"; shift ;;
    --no-accel-headers) accel_headers=false ;;
    --out) need_value "$@"; out=$2; shift ;;
    --build) need_value "$@"; build=$2; shift ;;
    --lock) need_value "$@"; lock=$2; shift ;;
    --list) list=true ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option: $1 (try --help)" ;;
  esac
  shift
done
if $quick; then
  $rounds_given || rounds=1
  $min_time_given || min_time=0.01
  kernel_min_time=0.01
fi
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds $rounds: expected a whole number from 1"
[[ $min_time =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] || die "--min-time $min_time: expected seconds, e.g. 0.05"

if $layouts; then
  [ ${#lib_specs[@]} -eq 0 ] || die "--layouts: only the default stock and accel builds, no --lib"
  accel_headers=false
fi

# The libraries, in report order (stock first: the base of the speed-ups,
# then accel, then the others): NAME, its LD_LIBRARY_PATH folder, and for a
# prefix of another release the prefix to build message_bench against.
names=() dirs=() prefixes=()
declare -A given=()
add_lib() {  # NAME DIR SPEC
  local name=$1 dir=$2 spec=$3
  [ -d "$dir" ] || die "--lib $spec: $dir is not a folder"
  dir=$(cd "$dir" && pwd)
  if [ -e "$dir/libprotobuf.so.32" ]; then
    names+=("$name") dirs+=("$dir") prefixes+=("")
  elif [ -e "$dir/lib/libprotobuf.so.32" ]; then
    names+=("$name") dirs+=("$dir/lib") prefixes+=("")
  elif [ -f "$dir/lib/cmake/protobuf/protobuf-config.cmake" ]; then
    names+=("$name") dirs+=("$dir/lib") prefixes+=("$dir")
  else
    die "--lib $spec: no libprotobuf.so.32 in $dir or $dir/lib, and no protobuf install prefix (lib/cmake/protobuf)"
  fi
}
for spec in "${lib_specs[@]}"; do
  [[ $spec == *=* ]] || die "--lib $spec: expected NAME=DIR (e.g. --lib mine=/opt/protobuf)"
  name=${spec%%=*}
  [[ $name =~ ^[A-Za-z0-9_.+-]+$ ]] || die "--lib $spec: NAME may hold letters, digits and _.+- only"
  [ -z "${given[$name]:-}" ] || die "--lib $name: given twice"
  given[$name]=$spec
done
for name in stock accel; do
  if [ -n "${given[$name]:-}" ]; then
    add_lib "$name" "${given[$name]#*=}" "${given[$name]}"
  else
    names+=("$name") dirs+=("$ROOT/out/$name/lib") prefixes+=("")
  fi
done
# accel-headers: the accelerated library again, run by a message_bench
# compiled against its own headers, whose inline packed writers call
# protoaccel's encoder (what a program gets when it is rebuilt).
# Only where accel is an install prefix (the default build is one).
accel_prefix=$ROOT/out/accel
[ -z "${given[accel]:-}" ] || accel_prefix=$(cd "${given[accel]#*=}" && pwd)
if $accel_headers && [ -z "${given[accel-headers]:-}" ]; then
  if [ -z "${given[accel]:-}" ] || [ -f "$accel_prefix/lib/cmake/protobuf/protobuf-config.cmake" ]; then
    names+=(accel-headers) dirs+=("$accel_prefix/lib") prefixes+=("$accel_prefix")
  fi
fi
for spec in "${lib_specs[@]}"; do
  name=${spec%%=*}
  [ "$name" = stock ] || [ "$name" = accel ] || add_lib "$name" "${spec#*=}" "$spec"
done

# hold_lock/release_lock: the --lock file around a build step.
hold_lock() { if [ -n "$lock" ]; then exec 8>>"$lock"; flock 8; fi; }
release_lock() { if [ -n "$lock" ]; then flock -u 8; exec 8>&-; fi; }
locked=()
[ -z "$lock" ] || locked=(flock "$lock")

started=$SECONDS
step "packages"
ensure_build_packages
ensure_packages python3 python3-matplotlib
# Debian's python3: the one python3-matplotlib is installed for.
PYTHON=/usr/bin/python3

step "third-party sources (Debian's protobuf: the libraries' source, the datasets; the anchors)"
bash third_party/fetch.sh protobuf
if $kernels; then
  bash third_party/fetch.sh anchors ||
    echo "the UTF-8 anchors could not be fetched: the kernel table goes without simdutf and utf8_range"
fi

for variant in stock accel; do
  [ -n "${given[$variant]:-}" ] && continue
  if [ -d "out/build-protobuf-$variant" ] || [ ! -e "out/$variant/lib/libprotobuf.so.32" ]; then
    hold_lock
    bash ci/build-protobuf.sh "$variant"
    release_lock
  else
    step "protobuf 3.21.12, $variant: using out/$variant as it is (built elsewhere: no out/build-protobuf-$variant here)"
  fi
done

step "benchmark programs ($build, against the system's protobuf headers)"
hold_lock
if [ "$build" != out/release ] && [ -f "$build/CMakeCache.txt" ]; then
  [ -z "$maskedvbyte" ] || die "--maskedvbyte: for a build that ci/ab.sh configures, not --build $build"
  ninja -C "$build" protoaccel_info kernels_bench message_bench || die "build failed in $build"
else
  configure_and_build "$ROOT" "$build" -DCMAKE_BUILD_TYPE=Release -DPROTOACCEL_BUILD_TESTS=OFF \
    "-DPROTOACCEL_MASKEDVBYTE_DIR=$maskedvbyte"
fi
release_lock
bench=$(cd "$build" && pwd)/benchmarks/message_bench
[ -x "$bench" ] || die "$bench was not built (is libprotobuf-dev installed?)"

ab_libs=()
for i in "${!names[@]}"; do
  spec="${names[$i]}=${dirs[$i]}"
  if [ -n "${prefixes[$i]}" ]; then
    step "message_bench for ${names[$i]}, against the headers of ${prefixes[$i]}"
    hold_lock
    configure_and_build "$ROOT/benchmarks/standalone" "out/ab-bench-${names[$i]}" \
      -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${prefixes[$i]}"
    release_lock
    spec="$spec:$ROOT/out/ab-bench-${names[$i]}/message_bench"
  fi
  ab_libs+=(--lib "$spec")
done

if $layouts; then
  # stock-copy, the control, runs stock's code in layouts of its own: its
  # ratios to stock are what a ratio can be off by.
  step "code layouts: $rounds per library (stock, accel, stock-copy)"
  so=$(basename "$(readlink -f out/build-protobuf-stock/libprotobuf.so)")
  RANDOM=$((rounds * 1000 + 3))  # the same layouts for the same run
  layouts_dir=$(mkdir -p "$out" && cd "$out" && pwd)/layouts
  rm -rf "$layouts_dir"
  ab_libs=()
  for library in stock accel stock-copy; do
    variant=${library%-copy}
    for ((r = 1; r <= rounds; r++)); do
      layout=$layouts_dir/$library-$r
      mkdir -p "$layout"
      cp -a "out/$variant/lib" "$layout/"
      lib_pad=$((RANDOM % 256 * 16)) bench_pad=$((RANDOM % 256 * 16))
      relink "out/build-protobuf-$variant" libprotobuf "$so" "$layout/lib/$so" "$lib_pad"
      relink "$build" message_bench benchmarks/message_bench "$layout/message_bench" "$bench_pad"
      echo "$library round $r: libprotobuf +$lib_pad bytes, message_bench +$bench_pad" >>"$layouts_dir/pads.txt"
    done
    ab_libs+=(--lib "$library=$layouts_dir/$library-{round}/lib:$layouts_dir/$library-{round}/message_bench")
  done
  names+=(stock-copy)
fi

if $list; then
  LD_LIBRARY_PATH=${dirs[0]} "$bench" --benchmark_list_tests=true "--benchmark_filter=$filter"
  exit 0
fi

mkdir -p "$out"
rm -f "$out/report.md" "$out/results.json" "$out/run.json" "$out/kernels.json" "$out/kernels.md"
step "machine"
{
  echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" \
    "($(nproc) CPUs online)"
  echo "system: $(uname -srm); $(g++ --version | head -n 1)"
  echo "protoaccel_info (the kernels that the accelerated library built from this checkout picks here):"
  "$build/protoaccel_info" | sed 's/^/  /'
  [ -z "${PROTOACCEL_ISA:-}" ] || echo "PROTOACCEL_ISA=$PROTOACCEL_ISA (forces that level, capped at the CPU's)"
} | tee "$out/machine.txt"

if $kernels; then
  step "kernel benchmarks (min time $kernel_min_time s)"
  "${locked[@]}" "$build/benchmarks/kernels_bench" "--benchmark_filter=$kernel_filter" \
    "--benchmark_min_time=$kernel_min_time" \
    "--benchmark_out=$out/kernels.json" --benchmark_out_format=json >/dev/null
  if [ -s "$out/kernels.json" ] && "$PYTHON" -c 'import json, sys; sys.exit(not json.load(open(sys.argv[1]))["benchmarks"])' "$out/kernels.json"; then
    "$PYTHON" benchmarks/kernel_table.py "$out/kernels.json" >"$out/kernels.md"
  else
    echo "no kernel benchmark matches --kernels '$kernel_filter'"
  fi
fi

step "message A/B: ${names[*]}, $rounds round(s), min time $min_time s per case"
# accel-headers differs from accel only where the program writes: its
# serialize and size cases.
only=()
for name in "${names[@]}"; do
  [ "$name" != accel-headers ] || only=(--only 'accel-headers=^[^/]+/(serialize|bytesize)/')
done
"$PYTHON" benchmarks/ab.py --bench "$bench" "${ab_libs[@]}" "${only[@]}" --rounds "$rounds" \
  --min-time "$min_time" --filter "$filter" --out "$out" ${lock:+--lock "$lock"} \
  $($per_case && echo --per-case)

step "report"
"$PYTHON" benchmarks/ab_report.py --out "$out" --machine "$out/machine.txt" \
  --kernels "$out/kernels.md" >/dev/null

elapsed=$((SECONDS - started))
echo
echo "done in $((elapsed / 60))m$((elapsed % 60))s"
echo "report: $out/report.md"
echo "plots:  $out/plots/"
echo "JSON:   $out/json/ (google-benchmark's), $out/results.json (medians, speed-ups)"
