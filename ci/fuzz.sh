#!/usr/bin/env bash
# The fuzzers (fuzz/), built with clang for libFuzzer with ASan and UBSan,
# each run for SECONDS from a copy of its seed corpus (out/fuzz/corpus; the
# repository's seeds are not touched):
#   - the kernel targets, each of which runs every level this CPU has
#     against scalar on every input, so one run each covers every level;
#   - the message target, against out/accel's libprotobuf once per level
#     (PROTOACCEL_ISA), if out/accel is built; then the corpus it grew is
#     replayed under out/stock's and out/accel's library (the gcc build's
#     message_fuzzer_replay: out/build's, else one built here into
#     out/fuzz-replay), and the two must print the same; and under
#     out/accel-asan's too, if it and out/asan's replay are built (the
#     libFuzzer binary's ASan, clang's, cannot load gcc's sanitized library,
#     so only the replay sees accesses inside the library).
# Two at a time, one per core. Prints the executions of each run and in all.
#
# Usage: ci/fuzz.sh [SECONDS | --ci]   (per run; default 600; --ci: 20, as
#                                       ci/test.sh runs it)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

seconds=${1:-600}
[ "$seconds" = --ci ] && seconds=20
[[ $seconds =~ ^[0-9]+$ ]] && [ $# -le 1 ] || die "usage: ci/fuzz.sh [SECONDS | --ci]"
ensure_build_packages
ensure_packages clang-14 libclang-rt-14-dev

step "fuzzers: clang 14, libFuzzer, ASan + UBSan (out/fuzz)"
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
configure_and_build "$ROOT" out/fuzz -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROTOACCEL_FUZZ=ON \
  -DPROTOACCEL_BUILD_TESTS=OFF -DPROTOACCEL_BUILD_BENCHMARKS=OFF \
  "-DCMAKE_CXX_FLAGS=$sanitize -fsanitize=fuzzer-no-link" "-DCMAKE_EXE_LINKER_FLAGS=$sanitize" >/dev/null
isas=$(host_isas out/fuzz/protoaccel_info | tr '\n' ' ')

runs=()  # "NAME|ENVIRONMENT|TARGET"
for target in varint_count varint_decode utf8_validate varint_encode; do
  runs+=("$target||$target")
done
if [ -f out/accel/lib/libprotobuf.so.32 ]; then
  for isa in $isas; do
    runs+=("message-$isa|PROTOACCEL_ISA=$isa LD_LIBRARY_PATH=$ROOT/out/accel/lib|message")
  done
else
  echo "message fuzzer skipped: out/accel is not built (ci/build-protobuf.sh accel)"
fi

step "fuzzing, $seconds s a run: ${#runs[@]} runs, two at a time"
logs=out/fuzz/logs
mkdir -p $logs
fuzz_one() {  # NAME ENVIRONMENT TARGET
  local corpus=out/fuzz/corpus/$3
  mkdir -p "$corpus"
  cp -n fuzz/corpus/"$3"/* "$corpus"/ 2>/dev/null || true
  env $2 out/fuzz/fuzz/"$3"_fuzzer -max_total_time="$seconds" -print_final_stats=1 \
    -rss_limit_mb=4096 -artifact_prefix="$logs/$1-" "$corpus" >"$logs/$1.txt" 2>&1
}
failed=()
pids=() names=()
for run in "${runs[@]}"; do
  IFS='|' read -r name environment target <<<"$run"
  while [ "$(jobs -rp | wc -l)" -ge 2 ]; do sleep 1; done
  fuzz_one "$name" "$environment" "$target" &
  pids+=($!) names+=("$name")
done
for i in "${!pids[@]}"; do wait "${pids[$i]}" || failed+=("${names[$i]}"); done
total=0
for name in "${names[@]}"; do
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$name.txt")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$logs/$name.txt")
  printf '  %-22s %12s executions %8s/s\n' "$name" "${executions:-?}" "${rate:-?}"
  total=$((total + ${executions:-0}))
done
echo "  in all: $total executions"
for name in "${failed[@]}"; do
  grep -E 'ERROR|protoaccel fuzz|SUMMARY' "$logs/$name.txt" | head -5 >&2
  echo "  artifact: $(ls $logs/"$name"-* 2>/dev/null | head -1)" >&2
done
[ ${#failed[@]} -eq 0 ] || die "fuzzer(s) failed: ${failed[*]} (logs in $logs/)"

if [ -f out/accel/lib/libprotobuf.so.32 ]; then
  step "the message corpus the fuzzer grew, replayed: stock vs accel at every level"
  [ -f out/stock/lib/libprotobuf.so.32 ] || die "out/stock is not built (ci/build-protobuf.sh stock)"
  replay=out/build/fuzz/message_fuzzer_replay
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  if [ ! -x $replay ]; then  # gcc, against the system's protobuf headers
    replay=out/fuzz-replay/fuzz/message_fuzzer_replay
    mkdir -p out/fuzz-replay
    cmake -S "$ROOT" -B out/fuzz-replay -G Ninja -DPROTOACCEL_BUILD_BENCHMARKS=OFF \
      "${launcher[@]}" >out/fuzz-replay.configure.log 2>&1 ||
      { cat out/fuzz-replay.configure.log >&2; die "cmake configure failed in out/fuzz-replay"; }
    ninja -C out/fuzz-replay fuzz/message_fuzzer_replay >/dev/null || die "build failed in out/fuzz-replay"
  fi
  LD_LIBRARY_PATH=out/stock/lib $replay out/fuzz/corpus/message >$logs/replay-stock.txt \
    2>$logs/replay.err || { cat $logs/replay.err >&2; die "the replay crashed under out/stock/lib"; }
  # The library each level is compared on: accel's, then its sanitized
  # build with a replay that loads it (out/asan's), where both exist.
  libraries=("accel|out/accel/lib|$replay")
  [ -f out/accel-asan/lib/libprotobuf.so.32 ] && [ -x out/asan/fuzz/message_fuzzer_replay ] &&
    libraries+=("accel-asan|out/accel-asan/lib|out/asan/fuzz/message_fuzzer_replay")
  for library in "${libraries[@]}"; do
    IFS='|' read -r name lib binary <<<"$library"
    for isa in $isas; do
      PROTOACCEL_ISA=$isa LD_LIBRARY_PATH=$lib $binary out/fuzz/corpus/message \
        >"$logs/replay-$name-$isa.txt" 2>$logs/replay.err ||
        { cat $logs/replay.err >&2; die "the replay crashed under $lib at $isa"; }
      diff -q $logs/replay-stock.txt "$logs/replay-$name-$isa.txt" >/dev/null || {
        diff $logs/replay-stock.txt "$logs/replay-$name-$isa.txt" | head -6 >&2
        die "stock and $name ($isa) differ on the message corpus ($logs/replay-*.txt)"
      }
    done
    echo "  $name: identical to stock at every level, $(wc -l <$logs/replay-stock.txt) inputs"
  done
fi
echo
echo "fuzzing found nothing"
