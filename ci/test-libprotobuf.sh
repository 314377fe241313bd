#!/usr/bin/env bash
# Checks the accelerated libprotobuf against stock (both built by
# ci/build-protobuf.sh --tests stock accel):
#   1. binary drop-in: abidiff against Debian's installed libraries, and a
#      program built against Debian's headers loads out/accel's library;
#   2. differential: the same corpus parsed and serialized by both gives the
#      same output, also from a build against out/accel's headers;
#   3. drop-in tests: one allocation, capacity == size (heap and arena);
#      a message that changed after it was sized written as stock writes it
#      (those tests also run on stock);
#   4. upstream's unit tests and conformance suite, on both.
#
# Usage: ci/test-libprotobuf.sh [--cases N]   (differential cases, 100000)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

cases=100000
while [ $# -gt 0 ]; do
  case $1 in
    --cases) cases=${2:?--cases needs a number}; shift ;;
    *) die "usage: ci/test-libprotobuf.sh [--cases N]" ;;
  esac
  shift
done
for variant in stock accel; do
  [ -f "out/$variant/lib/libprotobuf.so.32" ] ||
    die "out/$variant is missing: run ci/build-protobuf.sh --tests stock accel"
done
ensure_packages abigail-tools
bin=out/build/tests/libprotobuf
[ -x $bin/differential ] || die "$bin/differential is missing: build out/build first"
report=out/test-libprotobuf
mkdir -p $report

step "ABI: out/accel against Debian's libprotobuf.so.32 and libprotobuf-lite.so.32"
system_lib=$(dirname "$(readlink -f /usr/lib/x86_64-linux-gnu/libprotobuf.so.32)")
for lib in libprotobuf.so.32 libprotobuf-lite.so.32; do
  abidiff "$system_lib/$lib" "out/accel/lib/$lib" >"$report/abidiff-$lib.txt" || true
  head -2 "$report/abidiff-$lib.txt" | sed "s/^/  $lib: /"
  # Additions are compatible; a removed or changed function or variable is not.
  if grep -E '^(Functions|Variables) changes summary' "$report/abidiff-$lib.txt" |
      grep -vqE ': 0 Removed, 0 Changed'; then
    die "$lib: abidiff reports removed or changed symbols ($report/abidiff-$lib.txt)"
  fi
done

step "drop-in: a program built against Debian's headers loads out/accel"
loaded=$(LD_LIBRARY_PATH=out/accel/lib ldd $bin/differential | awk '/libprotobuf.so.32/ {print $3}')
echo "  libprotobuf.so.32 => $loaded"
[ "$(readlink -f "$loaded")" = "$(readlink -f out/accel/lib/libprotobuf.so.32)" ] ||
  die "the program did not load out/accel's library"

step "differential: $cases cases, each parsed 48 ways and serialized 5 ways, stock vs accel"
# Both at once, one per core: this compares results, not times.
pids=()
for variant in stock accel; do
  LD_LIBRARY_PATH=out/$variant/lib $bin/differential --cases "$cases" \
    >"$report/differential-$variant.txt" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || die "the differential program failed"; done
if ! cmp -s "$report/differential-stock.txt" "$report/differential-accel.txt"; then
  diff "$report/differential-stock.txt" "$report/differential-accel.txt" | head -20
  die "stock and accel differ (outputs in $report/)"
fi
echo "  identical: $(wc -l <"$report/differential-accel.txt") cases," \
  "$(grep -c '=x' "$report/differential-accel.txt") with a failure"

step "differential: $cases cases, built against out/accel's headers"
# Generated code inlines the packed serializers; with out/accel's headers
# they call the library's encoders, so this build tests those against the
# stock library's output above.
configure_and_build tests/libprotobuf out/build-accel-headers \
  -DCMAKE_PREFIX_PATH="$ROOT/out/accel" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
accel_headers=out/build-accel-headers/differential
nm -C --undefined-only "$accel_headers" | grep 'PackedData(' >/dev/null ||
  die "$accel_headers does not call the out-of-line packed writers"
LD_LIBRARY_PATH=out/accel/lib $accel_headers --cases "$cases" \
  >"$report/differential-accel-headers.txt" || die "the differential program failed"
if ! cmp -s "$report/differential-stock.txt" "$report/differential-accel-headers.txt"; then
  diff "$report/differential-stock.txt" "$report/differential-accel-headers.txt" | head -20
  die "stock and accel (accel headers) differ (outputs in $report/)"
fi
echo "  identical: $(wc -l <"$report/differential-accel-headers.txt") cases"

step "drop-in: one allocation, capacity == size; stale sizes as stock"
# The stale-size tests state stock's behaviour: stock must pass them too.
LD_LIBRARY_PATH=out/stock/lib $bin/dropin_test --gtest_filter='DropInStaleSizeTest.*' \
  --gtest_brief=1 || die "stock fails the stale-size tests: they no longer describe it"
LD_LIBRARY_PATH=out/accel/lib $bin/dropin_test

step "upstream's unit tests and conformance suite"
for variant in stock accel; do
  build=out/build-protobuf-$variant src=out/src/protobuf-$variant
  [ -x $build/tests ] || die "$build/tests is missing: build with --tests"
  echo "  $variant: tests"
  # IoTest.LargeOutput needs 8 GB; the rest runs in about 15 s.
  (cd $src && "$ROOT/$build/tests" --gtest_filter=-IoTest.LargeOutput \
    --gtest_brief=1) >"$report/upstream-tests-$variant.txt" 2>&1 ||
    { tail -20 "$report/upstream-tests-$variant.txt"; die "$variant: upstream tests failed"; }
  tail -3 "$report/upstream-tests-$variant.txt" | sed 's/^/    /'
  (cd $build && ./lite-test && ./lite-arena-test) >"$report/upstream-lite-$variant.txt" 2>&1 ||
    { tail -20 "$report/upstream-lite-$variant.txt"; die "$variant: lite tests failed"; }
  echo "  $variant: conformance"
  (cd $src/conformance && "$ROOT/$build/conformance_test_runner" --enforce_recommended \
    --failure_list failure_list_cpp.txt \
    --text_format_failure_list text_format_failure_list_cpp.txt \
    "$ROOT/$build/conformance_cpp") >"$report/conformance-$variant.txt" 2>&1 ||
    { tail -20 "$report/conformance-$variant.txt"; die "$variant: conformance failed"; }
  grep -E '^CONFORMANCE SUITE (PASSED|FAILED)' "$report/conformance-$variant.txt" | sed 's/^/    /'
done
# The same results: the same tests ran and passed, the same conformance.
for kind in upstream-tests conformance; do
  a=$(grep -E '^\[  PASSED  \]|^\[  SKIPPED \]|^CONFORMANCE SUITE' "$report/$kind-stock.txt")
  b=$(grep -E '^\[  PASSED  \]|^\[  SKIPPED \]|^CONFORMANCE SUITE' "$report/$kind-accel.txt")
  [ "$a" = "$b" ] || die "$kind: stock and accel differ:\n$a\n$b"
done
echo
echo "libprotobuf checks passed"
