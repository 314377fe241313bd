#!/usr/bin/env bash
# Checks the accelerated libprotobuf against stock (both built by
# ci/build-protobuf.sh --tests stock and ci/build-protobuf.sh accel):
#   1. binary drop-in: abidiff against Debian's installed libraries, and a
#      program built against Debian's headers loads out/accel's library;
#   2. differential: the same corpus parsed and serialized by both gives the
#      same output (after a failed parse, the same contents), also from a
#      build against out/accel's headers, and with accel built with ASan
#      and UBSan (the message fuzzer's corpus too);
#   3. drop-in tests: one allocation, capacity == size (heap and arena);
#      a message that changed after it was sized written as stock writes it;
#      malformed input failing as on stock (those tests also run on stock),
#      and under valgrind;
#   4. upstream's unit tests and conformance suite, on both (stock's test
#      programs, run against each library).
# Everything on accel runs at every level this CPU has (PROTOACCEL_ISA).
#
# Usage: ci/test-libprotobuf.sh [--cases N] [--level-cases N] [--asan-cases N]
#   (differential cases at the best level, 50000; at the others, 10000;
#   under ASan + UBSan, 5000 at every level; 100000 cases cost about 14
#   CPU-minutes, so CI keeps to these and longer runs are by hand)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

cases=50000 level_cases=10000 asan_cases=5000
while [ $# -gt 0 ]; do
  case $1 in
    --cases) cases=${2:?--cases needs a number}; shift ;;
    --level-cases) level_cases=${2:?--level-cases needs a number}; shift ;;
    --asan-cases) asan_cases=${2:?--asan-cases needs a number}; shift ;;
    *) die "usage: ci/test-libprotobuf.sh [--cases N] [--level-cases N] [--asan-cases N]" ;;
  esac
  shift
done
for variant in stock accel; do
  [ -f "out/$variant/lib/libprotobuf.so.32" ] ||
    die "out/$variant is missing: run ci/build-protobuf.sh --tests stock, then accel"
done
bin=out/build/tests/libprotobuf
[ -x $bin/differential ] || die "$bin/differential is missing: build out/build first"
report=out/test-libprotobuf
mkdir -p $report

step "ABI: out/accel against Debian's libprotobuf.so.32 and libprotobuf-lite.so.32"
system_lib=$(dirname "$(readlink -f /usr/lib/x86_64-linux-gnu/libprotobuf.so.32)")
abi_compatible "$system_lib" out/accel/lib $report

step "drop-in: a program built against Debian's headers loads out/accel"
loaded=$(LD_LIBRARY_PATH=out/accel/lib ldd $bin/differential | awk '/libprotobuf.so.32/ {print $3}')
echo "  libprotobuf.so.32 => $loaded"
[ "$(readlink -f "$loaded")" = "$(readlink -f out/accel/lib/libprotobuf.so.32)" ] ||
  die "the program did not load out/accel's library"

step "protoaccel-info: out/accel is accelerated, stock and Debian's libraries are not"
info=out/build/protoaccel-info
[ -x $info ] || die "$info is missing: build out/build first"
LD_LIBRARY_PATH=out/accel/lib $info >$report/info-accel.txt ||
  die "protoaccel-info does not find out/accel accelerated: $(cat $report/info-accel.txt)"
head -1 $report/info-accel.txt | sed 's/^/  /'
grep -q '^protoaccel .* (namespace in_libprotobuf)$' $report/info-accel.txt ||
  die "out/accel's description does not name its namespace: $(cat $report/info-accel.txt)"
grep -q '^kernel varint_decode: ' $report/info-accel.txt ||
  die "out/accel's description names no decode kernel"
for lib in out/stock/lib/libprotobuf.so.32 "$system_lib/libprotobuf.so.32"; do
  rc=0
  $info "$lib" >$report/info-stock.txt || rc=$?
  sed 's/^/  /' $report/info-stock.txt
  [ $rc -eq 1 ] || die "protoaccel-info $lib: exit $rc, not 1 (stock)"
done

isas=$(host_isas | tr '\n' ' ')
echo "  levels this CPU runs (each forced in turn with PROTOACCEL_ISA): $isas"

# The best level runs the whole corpus; the others (and every level under
# ASan), its first cases: the corpus is made case by case from the seed, so
# a run of N cases prints the first N lines of a longer one.
best=$(host_isas | tail -1)
cases_at() { if [ "$1" = "$best" ]; then echo "$cases"; else echo "$level_cases"; fi; }

# differential_at_levels NAME PROGRAM LIBDIR CASES [JOB]: PROGRAM against
# LIBDIR at every level, CASES of them (or cases_at's count if empty), two
# at a time with JOB if given, into differential-NAME-LEVEL.txt; then each
# output must be the start of stock's.
differential_at_levels() {
  local name=$1 program=$2 lib=$3 count=$4 jobs_=() isa
  [ $# -lt 5 ] || jobs_+=("$5")
  for isa in $isas; do
    jobs_+=("PROTOACCEL_ISA=$isa LD_LIBRARY_PATH=$lib $program --cases ${count:-$(cases_at $isa)} >$report/differential-$name-$isa.txt")
  done
  run_jobs "${jobs_[@]}" || die "$name: the differential program failed (a report, if any, is above)"
  for isa in $isas; do same_as_stock "$name-$isa"; done
}

# same_as_stock NAME: out/test-libprotobuf/differential-NAME.txt is the
# start of stock's (all of it, for as many cases).
same_as_stock() {
  local lines
  lines=$(wc -l <"$report/differential-$1.txt")
  if ! head -n "$lines" "$report/differential-stock.txt" | cmp -s - "$report/differential-$1.txt"; then
    diff <(head -n "$lines" "$report/differential-stock.txt") "$report/differential-$1.txt" | head -20
    die "stock and $1 differ (outputs in $report/)"
  fi
  [ "$lines" -gt 0 ] || die "$1: the differential printed nothing"
}

step "differential: $cases cases, each parsed 48 ways and serialized 5 ways, stock vs accel ($best; $level_cases at the other levels)"
# Failed parses are compared by what they left in the message, too.
differential_at_levels accel $bin/differential out/accel/lib "" \
  "LD_LIBRARY_PATH=out/stock/lib $bin/differential --cases $cases >$report/differential-stock.txt"
echo "  identical at every level: $(wc -l <"$report/differential-stock.txt") cases," \
  "$(grep -c '=x' "$report/differential-stock.txt") with a failure"

step "differential built against out/accel's headers: $cases cases ($best; $level_cases at the other levels)"
# Generated code inlines the packed serializers; with out/accel's headers
# they call the library's encoders, so this build tests those against the
# stock library's output above.
configure_and_build tests/libprotobuf out/build-accel-headers \
  -DCMAKE_PREFIX_PATH="$ROOT/out/accel" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
accel_headers=out/build-accel-headers/differential
nm -C --undefined-only "$accel_headers" | grep 'PackedData(' >/dev/null ||
  die "$accel_headers does not call the out-of-line packed writers"
differential_at_levels accel-headers $accel_headers out/accel/lib ""
echo "  identical at every level"

step "differential under ASan + UBSan: the sanitized accel library, $asan_cases cases at every level"
# out/asan's differential (built with both sanitizers) against
# out/accel-asan's library: an invalid access anywhere in the parsers or
# the kernels stops it.
asan_bin=out/asan/tests/libprotobuf/differential
[ -x $asan_bin ] || die "$asan_bin is missing: build out/asan first"
[ -f out/accel-asan/lib/libprotobuf.so.32 ] ||
  die "out/accel-asan is missing: run ci/build-protobuf.sh accel-asan"
differential_at_levels accel-asan $asan_bin out/accel-asan/lib "$asan_cases"
echo "  identical at every level, no sanitizer report"
# And the message fuzzer's seed corpus (fuzz/corpus/message), the same way.
replay=out/build/fuzz/message_fuzzer_replay asan_replay=out/asan/fuzz/message_fuzzer_replay
[ -x $replay ] && [ -x $asan_replay ] || die "the message fuzzer's replays are missing: build out/build and out/asan"
LD_LIBRARY_PATH=out/stock/lib $replay fuzz/corpus/message >"$report/message-corpus-stock.txt"
for isa in $isas; do
  PROTOACCEL_ISA=$isa LD_LIBRARY_PATH=out/accel-asan/lib $asan_replay fuzz/corpus/message \
    >"$report/message-corpus-accel-asan-$isa.txt" || die "the sanitized replay failed ($isa)"
  cmp -s "$report/message-corpus-stock.txt" "$report/message-corpus-accel-asan-$isa.txt" ||
    die "stock and accel-asan ($isa) differ on the message corpus (outputs in $report/)"
done
echo "  the message fuzzer's corpus: identical at every level, $(wc -l <"$report/message-corpus-stock.txt") inputs"

step "drop-in: one allocation, capacity == size; stale sizes and malformed input as stock"
# The stale-size and malformed-input tests state stock's behaviour: stock
# must pass them too.
LD_LIBRARY_PATH=out/stock/lib $bin/dropin_test \
  --gtest_filter='DropInStaleSizeTest.*:DropInMalformedTest.*' --gtest_brief=1 ||
  die "stock fails the stale-size or malformed-input tests: they no longer describe it"
for isa in $isas; do
  echo "  accel, $isa"
  PROTOACCEL_ISA=$isa LD_LIBRARY_PATH=out/accel/lib $bin/dropin_test --gtest_brief=1 ||
    die "accel ($isa) fails the drop-in tests"
done

step "malformed input under valgrind: no invalid read or write, at every level valgrind runs"
# valgrind emulates up to AVX2 and hides AVX-512 from CPUID, so the
# avx512 kernels are not run here (the kernel tests and the sanitized
# build check them).
ensure_packages valgrind
for isa in $isas; do
  [ "$isa" = avx512 ] && { echo "  avx512: not under valgrind (no AVX-512 there)"; continue; }
  # dropin_test counts allocations with an operator new over malloc, which
  # valgrind would report as mismatched with its frees.
  PROTOACCEL_ISA=$isa LD_LIBRARY_PATH=out/accel/lib valgrind -q --error-exitcode=99 \
    --show-mismatched-frees=no \
    $bin/dropin_test --gtest_filter='DropInMalformedTest.*' --gtest_brief=1 \
    >"$report/valgrind-$isa.txt" 2>&1 ||
    { tail -30 "$report/valgrind-$isa.txt"; die "valgrind: accel ($isa) on malformed input"; }
  echo "  $isa: clean"
done

step "upstream's unit tests and conformance suite: stock, and accel at every level"
# One build of upstream's test programs, stock's, run against each library
# through LD_LIBRARY_PATH (their RUNPATH yields to it): the accelerated
# library as a drop-in under upstream's own tests, at a build's cost.
build=out/build-protobuf-stock src=out/src/protobuf-stock
for program in tests lite-test lite-arena-test conformance_cpp conformance_test_runner; do
  [ -x $build/$program ] || die "$build/$program is missing: build stock with --tests"
done
loaded=$(LD_LIBRARY_PATH=out/accel/lib ldd $build/tests | awk '/libprotobuf.so.32/ {print $3}')
[ "$(readlink -f "$loaded")" = "$(readlink -f out/accel/lib/libprotobuf.so.32)" ] ||
  die "upstream's tests did not load out/accel's library ($loaded)"
run_upstream() {  # NAME LIBDIR [ISA]
  local name=$1 lib=$ROOT/$2
  echo "  $name: tests"
  # IoTest.LargeOutput needs 8 GB; the rest runs in about 15 s.
  (cd $src && PROTOACCEL_ISA=${3:-} LD_LIBRARY_PATH=$lib "$ROOT/$build/tests" \
    --gtest_filter=-IoTest.LargeOutput --gtest_brief=1) >"$report/upstream-tests-$name.txt" 2>&1 ||
    { tail -20 "$report/upstream-tests-$name.txt"; die "$name: upstream tests failed"; }
  tail -3 "$report/upstream-tests-$name.txt" | sed 's/^/    /'
  (cd $build && export PROTOACCEL_ISA=${3:-} LD_LIBRARY_PATH=$lib && ./lite-test && ./lite-arena-test) \
    >"$report/upstream-lite-$name.txt" 2>&1 ||
    { tail -20 "$report/upstream-lite-$name.txt"; die "$name: lite tests failed"; }
  echo "  $name: conformance"
  (cd $src/conformance && PROTOACCEL_ISA=${3:-} LD_LIBRARY_PATH=$lib \
    "$ROOT/$build/conformance_test_runner" --enforce_recommended \
    --failure_list failure_list_cpp.txt \
    --text_format_failure_list text_format_failure_list_cpp.txt \
    "$ROOT/$build/conformance_cpp") >"$report/conformance-$name.txt" 2>&1 ||
    { tail -20 "$report/conformance-$name.txt"; die "$name: conformance failed"; }
  grep -E '^CONFORMANCE SUITE (PASSED|FAILED)' "$report/conformance-$name.txt" | sed 's/^/    /'
}
run_upstream stock out/stock/lib
for isa in $isas; do run_upstream "accel-$isa" out/accel/lib "$isa"; done
# The same results: the same tests ran and passed, the same conformance.
for isa in $isas; do
  for kind in upstream-tests conformance; do
    a=$(grep -E '^\[  PASSED  \]|^\[  SKIPPED \]|^CONFORMANCE SUITE' "$report/$kind-stock.txt")
    b=$(grep -E '^\[  PASSED  \]|^\[  SKIPPED \]|^CONFORMANCE SUITE' "$report/$kind-accel-$isa.txt")
    [ "$a" = "$b" ] || die "$kind: stock and accel ($isa) differ:\n$a\n$b"
  done
done
echo
echo "libprotobuf checks passed"
