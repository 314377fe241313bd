#!/usr/bin/env bash
# Checks patches/utf8_range-main/, the UTF-8 series for protobuf's
# third_party/utf8_range (a pull request of its own, as upstream asked when
# it closed #13257), on your own protobuf checkout:
#   1. applies the series with `git am` to a clone of the checkout at BASE
#      (or at HEAD, with --head);
#   2. builds tests/utf8_range (utf8_range stock and patched, each for the
#      baseline and with -msse4.1, side by side) with gcc and with clang,
#      and as 32-bit x86 code, and runs its differential against
#      protoaccel's scalar validator;
#   3. builds utf8_range's own tests (its CMakeLists, with abseil and
#      gtest) from the patched sources and runs them;
#   4. with --bench, times utf8_range_IsValid of each variant
#      (google-benchmark) and writes OUT/bench.md.
# CI does not run this: the sources come from a protobuf checkout.
#
# Usage: ci/verify-utf8-range.sh [--head] [--bench] PROTOBUF_CHECKOUT [ABSEIL_PREFIX]
#   ABSEIL_PREFIX   an abseil install for utf8_range's own tests (default:
#                   out/upstream/absl-20260526, which ci/verify-upstream.sh
#                   builds)
#   OUT is out/upstream/utf8_range.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

series_dir=$ROOT/patches/utf8_range-main
head=false bench=false args=()
while [ $# -gt 0 ]; do
  case $1 in
    --head) head=true ;;
    --bench) bench=true ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option: $1 (try --help)" ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ ${#args[@]} -ge 1 ] && [ ${#args[@]} -le 2 ] ||
  die "usage: ci/verify-utf8-range.sh [--head] [--bench] PROTOBUF_CHECKOUT [ABSEIL_PREFIX] (try --help)"
checkout=$(cd "${args[0]}" 2>/dev/null && pwd) || die "${args[0]}: no such folder"
abseil=${args[1]:-$ROOT/out/upstream/absl-20260526}
out=$ROOT/out/upstream/utf8_range
commit=$(cat "$series_dir/BASE")
$head && commit=$(git -C "$checkout" rev-parse HEAD)
git -C "$checkout" cat-file -e "$commit^{commit}" 2>/dev/null ||
  die "$checkout has no commit $commit (patches/utf8_range-main/BASE): fetch upstream's main, or give --head"

step "packages"
ensure_build_packages
ensure_packages clang-14 g++-i686-linux-gnu libc6-dev-i386-cross

step "utf8_range at ${commit:0:10}: stock, and with the series"
rm -rf "$out/src" "$out/stock"
mkdir -p "$out/stock"
git -C "$checkout" archive "$commit" third_party/utf8_range | tar -x -C "$out/stock"
git clone -q --no-checkout "$checkout" "$out/src"
git -C "$out/src" sparse-checkout set third_party/utf8_range
git -C "$out/src" checkout -q --detach "$commit"
while read -r patch; do
  [ -n "$patch" ] || continue
  git -C "$out/src" -c user.name=protoaccel -c user.email=dev@protoaccel.invalid \
    am -q "$series_dir/$patch" || die "git am $patch failed"
  echo "  applied $patch"
done <"$series_dir/series"
stock=$out/stock/third_party/utf8_range
patched=$out/src/third_party/utf8_range

# check NAME CMAKE_ARGS...: tests/utf8_range built into OUT/build-NAME, its
# differential run (through ${run[@]}, if set).
run=()
check() {
  local name=$1 dir=$out/build-$1
  shift
  rm -rf "$dir"
  configure_and_build tests/utf8_range "$dir" -DCMAKE_BUILD_TYPE=Release \
    "-DUTF8_RANGE_STOCK=$stock" "-DUTF8_RANGE_PATCHED=$patched" "$@" >/dev/null
  local result
  result=$("${run[@]}" "$dir/differential") || { echo "$result"; die "$name: the differential failed"; }
  echo "  $name: $result"
}

step "the differential: gcc, clang, 32-bit x86"
check gcc
check clang -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DUTF8_RANGE_BENCHMARK=OFF
mapfile -t cross < <(cross_cmake_args i686-linux-gnu)
runs_natively i686-linux-gnu || { ensure_packages qemu-user && run=(qemu-i386); }
check i386 "${cross[@]}" -DCMAKE_EXE_LINKER_FLAGS=-static -DUTF8_RANGE_BENCHMARK=OFF
file "$out/build-i386/differential" | grep -q 'ELF 32-bit' || die "the i386 differential is not 32-bit"
# The patched baseline build must hold the SSE4.1 path, chosen at run time.
for build in gcc i386; do
  find "$out/build-$build/CMakeFiles/patched.dir" -name '*.o' -exec nm {} + | grep -q '__cpu_model' ||
    die "$build: the patched baseline build does not check the CPU"
done

step "utf8_range's own tests, patched, for the baseline"
[ -f "$abseil/lib/cmake/absl/abslConfig.cmake" ] ||
  die "$abseil is no abseil install: give ABSEIL_PREFIX, or run ci/verify-upstream.sh once"
rm -rf "$out/build-own"
# (Its CMakeLists is protobuf's to include, which sets protobuf_VERSION.)
configure_and_build "$patched" "$out/build-own" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 \
  "-Dabsl_DIR=$abseil/lib/cmake/absl" -Dutf8_range_ENABLE_INSTALL=OFF -Dprotobuf_VERSION=0.0.0 >/dev/null
LD_LIBRARY_PATH=$abseil/lib "$out/build-own/tests" --gtest_brief=1 | tail -1 ||
  die "utf8_range's tests failed"

if $bench; then
  step "benchmark: utf8_range_IsValid, each variant (gcc)"
  "$out/build-gcc/utf8_range_bench" --benchmark_min_time=0.2 \
    --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_filter='/(64|1024|65536)$' --benchmark_format=json >"$out/bench.json"
  python3 - "$out/bench.json" >"$out/bench.md" <<'EOF'
import json, sys
rows = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    _, variant, text, length = b["run_name"].split("/")
    rows.setdefault((text, length), {})[variant] = b["bytes_per_second"] / 1e9
variants = ["stock", "patched", "stock_sse41", "patched_sse41"]
print("| text | bytes | " + " | ".join(f"{v} GB/s" for v in variants) + " | patched / stock |")
print("|---|---" + "|---" * (len(variants) + 1) + "|")
for (text, length), r in rows.items():
    print(f"| {text} | {length} | " + " | ".join(f"{r[v]:.2f}" for v in variants) +
          f" | {r['patched'] / r['stock']:.2f}x |")
EOF
  cat "$out/bench.md"
fi
echo
echo "utf8_range series checked ($out)"
