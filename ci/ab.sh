#!/usr/bin/env bash
# The main job. So far: builds protoaccel and runs its kernel benchmarks on
# every instruction set this CPU has, into out/report/kernels.json. The A/B
# of stock and accelerated libprotobuf comes with the patch series.
#
# Usage: ci/ab.sh [--quick] [--filter REGEX]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

min_time=0.5
filter=.
while [ $# -gt 0 ]; do
  case $1 in
    --quick) min_time=0.05 ;;
    --filter) filter=${2:?--filter needs a regular expression}; shift ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) die "unknown option: $1 (try --help)" ;;
  esac
  shift
done
mkdir -p out/report

step "packages"
ensure_build_packages

step "build (Release)"
configure_and_build "$ROOT" out/release -DCMAKE_BUILD_TYPE=Release \
  -DPROTOACCEL_BUILD_TESTS=OFF
out/release/protoaccel_info

step "kernel benchmarks"
out/release/benchmarks/kernels_bench --benchmark_filter="$filter" \
  --benchmark_min_time="$min_time" \
  --benchmark_out=out/report/kernels.json --benchmark_out_format=json

echo
echo "results: out/report/kernels.json"
