#!/usr/bin/env bash
# The main job: builds stock and accelerated libprotobuf 3.21.12 and the
# benchmarks, then runs
#   - the kernel benchmarks on every instruction set this CPU has, and
#   - the message A/B: one program, built against Debian's headers, run
#     against out/stock and out/accel in alternating rounds,
# and writes out/report/ (report.md, the JSON it was made from).
#
# Usage: ci/ab.sh [--quick] [--rounds N] [--filter REGEX]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

min_time=0.2
rounds=3
filter=.
while [ $# -gt 0 ]; do
  case $1 in
    --quick) min_time=0.02 rounds=1 ;;
    --rounds) rounds=${2:?--rounds needs a number}; shift ;;
    --filter) filter=${2:?--filter needs a regular expression}; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) die "unknown option: $1 (try --help)" ;;
  esac
  shift
done

step "packages"
ensure_build_packages
ensure_packages python3

step "third-party sources"
bash third_party/fetch.sh protobuf

bash ci/build-protobuf.sh stock accel

step "benchmarks (Release)"
configure_and_build "$ROOT" out/release -DCMAKE_BUILD_TYPE=Release \
  -DPROTOACCEL_BUILD_TESTS=OFF
out/release/protoaccel_info | tee out/report-machine.txt

report=out/report
mkdir -p $report
step "kernel benchmarks"
out/release/benchmarks/kernels_bench --benchmark_filter="$filter" \
  --benchmark_min_time="$min_time" \
  --benchmark_out=$report/kernels.json --benchmark_out_format=json >/dev/null
python3 benchmarks/kernel_table.py $report/kernels.json >$report/kernels.md

step "message A/B: stock vs accel, $rounds rounds"
python3 benchmarks/ab.py --bench out/release/benchmarks/message_bench \
  --lib stock=out/stock/lib --lib accel=out/accel/lib --rounds "$rounds" \
  --min-time "$min_time" --filter "$filter" --out $report/messages \
  --title "Parse one packed field: stock vs accelerated libprotobuf 3.21.12" >/dev/null

{
  echo "# protoaccel A/B report"
  echo
  echo '```'
  cat out/report-machine.txt
  echo '```'
  echo
  sed "s/^# /## /" $report/messages/report.md
  echo
  echo "## Kernels (ns per item; items are values, or bytes for count and UTF-8)"
  echo
  cat $report/kernels.md
} >$report/report.md
echo
echo "report: $report/report.md"
