#!/usr/bin/env bash
# Checks ci/ab.sh end to end, fast: a --quick run of four tiny cases (stock,
# accel, and accel-headers on the two serialize ones), three rounds of one
# process per case, and one kernel benchmark into out/test-ab/, then
# tests/ab_report_test.py on what it wrote (sections, tables, plots, the JSON
# beside the report, and the report's numbers against medians and paired
# ratios computed afresh from that JSON), a dataset case
# without its file, benchmarks/instructions.py on one case, its gate (accel
# at or below stock in instructions per operation) at every level valgrind
# runs, the kernels' gate (no level over scalar below its crossover,
# benchmarks/kernel_instructions.py), a --layouts run, and a misspelt
# option's one-line error.
#
# Usage: ci/test-ab.sh [--build DIR]   (default out/build, ci/test.sh's build;
#        the libraries in out/stock and out/accel are used as they are)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

build=out/build
[ "${1:-}" != --build ] || build=${2:?--build needs a folder}

out=out/test-ab
cases=(packed/parse/uint32/lt128/16 packed/parse/uint32/lt128/10000
       packed/serialize/uint32/lt128/16 packed/serialize/uint32/lt128/10000)
libs=()
for variant in stock accel; do
  [ -e "out/$variant/lib/libprotobuf.so.32" ] && libs+=(--lib "$variant=out/$variant")
done

step "ci/ab.sh --quick --rounds 3 --per-case on ${cases[*]}"
rm -rf "$out"
bash ci/ab.sh --quick --rounds 3 --per-case --filter '^packed/(parse|serialize)/uint32/lt128/(16|10000)$' \
  --kernels '^decode_uint32/1B/scalar/4096$' --build "$build" --out "$out" "${libs[@]}"

step "the report"
/usr/bin/python3 tests/ab_report_test.py "$out" "${cases[@]}"

step "a missing dataset: the case is skipped, and says why"
skip_json=$out/missing-dataset.json
PROTOACCEL_DATASETS_DIR=/nonexistent LD_LIBRARY_PATH=$ROOT/out/stock/lib \
  "$build/benchmarks/message_bench" --benchmark_filter='^dataset/parse/google_message2$' \
  --benchmark_out="$skip_json" --benchmark_out_format=json >/dev/null
/usr/bin/python3 - "$skip_json" <<'PY'
import json, sys
(b,) = json.load(open(sys.argv[1]))["benchmarks"]
message = b.get("error_message", "")
assert b.get("error_occurred") and "dataset file missing: /nonexistent/" in message, b
print(f"{b['name']}: {message}")
PY

step "instructions per operation (callgrind): one case, stock and accel"
ensure_packages valgrind
table=$(/usr/bin/python3 benchmarks/instructions.py --iterations 200 \
  --lib "stock=out/stock/lib:$build/benchmarks/message_bench" \
  --lib "accel=out/accel/lib:$build/benchmarks/message_bench" \
  --filter '^packed/serialize/uint32/lt128/16$') || die "benchmarks/instructions.py failed"
echo "$table"
echo "$table" | grep -Eq '^\| `packed/serialize/uint32/lt128/16` \| [0-9,]{3,} \| [0-9,]{3,} \| [-+][0-9,]+ \(' ||
  die "benchmarks/instructions.py printed no count for the case"

# The gate of issue 25: accel takes no more instructions than stock on every
# case of fewer than 32 values or bytes, every realistic message and every
# dataset, at every level valgrind runs (it hides AVX-512).
gated='^((packed|extension)/[a-z]+/[a-z0-9]+/[a-z0-9]+/(1|4|16)|(numberbatch|uidlist)/[a-z]+/(1|10)'
gated+='|(string|bytes)/[a-z]+/[a-z0-9]+/8|realistic/.*|dataset/.*)$'
for isa in $(host_isas "$build/protoaccel_info"); do
  [ "$isa" = avx512 ] && continue
  step "instructions gate at $isa: accel at or below stock on the small, realistic and dataset cases"
  /usr/bin/python3 benchmarks/instructions.py --iterations 200 --isa "$isa" --gate \
    --lib "stock=out/stock/lib:$build/benchmarks/message_bench" \
    --lib "accel=out/accel/lib:$build/benchmarks/message_bench" \
    --filter "$gated" --out "$out/instructions-$isa.md" >/dev/null ||
    { cat "$out/instructions-$isa.md"; die "accel takes more instructions than stock at $isa"; }
done
step "the gate can fail: stock over accel where accel does less"
if /usr/bin/python3 benchmarks/instructions.py --iterations 200 --gate \
    --lib "accel=out/accel/lib:$build/benchmarks/message_bench" \
    --lib "stock=out/stock/lib:$build/benchmarks/message_bench" \
    --filter '^string/parse/mixed/8$' >/dev/null; then
  die "the instructions gate passed stock over accel on string/parse/mixed/8"
fi

# Below each kernel's crossover the SIMD levels hand the input to scalar
# code for no more than scalar's instructions and a compare, a branch and a
# jump (a slack of 4 a call): sizes and encoders below 8 values, decoders
# below 16 bytes, counts and UTF-8 checks up to 32 bytes.
step "kernel instructions: no level over scalar below its crossover"
kernel_gated='^((size|encode)_[a-z0-9]+/[A-Za-z0-9]+/[a-z0-9]+/(1|4)|decode_[a-z0-9]+/1B/[a-z0-9]+/4'
kernel_gated+='|(count|utf8)/[a-z0-9]+/[a-z0-9]+/(4|8|16|32))$'
/usr/bin/python3 benchmarks/kernel_instructions.py "$build/benchmarks/kernels_bench" --gate \
  --filter "$kernel_gated" >"$out/kernel-instructions.md" ||
  { cat "$out/kernel-instructions.md"; die "a SIMD kernel takes more instructions than scalar"; }
step "the kernel gate can fail: 4 five-byte varints (19 bytes) pay the one-byte-run test"
if /usr/bin/python3 benchmarks/kernel_instructions.py "$build/benchmarks/kernels_bench" --gate \
    --filter '^decode_uint32/u32/[a-z0-9]+/4$' >/dev/null 2>&1; then
  die "the kernel gate passed decode_uint32/u32/4, 9 instructions over scalar"
fi

step "ci/ab.sh --layouts: each round a layout of its own, stock-copy the control"
rm -rf "$out/layouts-run"
bash ci/ab.sh --quick --per-case --layouts --rounds 2 --no-kernels --build "$build" \
  --filter '^packed/parse/uint32/lt128/16$' --out "$out/layouts-run" >"$out/layouts-run.log" 2>&1 ||
  { tail -n 20 "$out/layouts-run.log"; die "ci/ab.sh --layouts failed"; }
[ "$(grep -c 'round' "$out/layouts-run/layouts/pads.txt")" -eq 6 ] ||
  die "ci/ab.sh --layouts --rounds 2 did not link 2 layouts for each of 3 libraries"
grep -q '^| `packed/parse/uint32/lt128/16` | [0-9.]*x | [0-9.]*x | [0-9.]*x | [0-9.]*x |$' \
  "$out/layouts-run/report.md" || die "no paired speed-ups of accel and stock-copy in the report"
cat "$out/layouts-run/layouts/pads.txt"

step "option errors"
if message=$(bash ci/ab.sh --lib foo 2>&1); then die "ci/ab.sh --lib foo succeeded"; fi
[ "$message" = "error: --lib foo: expected NAME=DIR (e.g. --lib mine=/opt/protobuf)" ] ||
  die "ci/ab.sh --lib foo said: $message"
echo "ci/ab.sh --lib foo: $message"
if message=$(bash ci/ab.sh --layouts --lib foo=out/stock 2>&1); then
  die "ci/ab.sh --layouts --lib foo=out/stock succeeded"
fi
[ "$message" = "error: --layouts: only the default stock and accel builds, no --lib" ] ||
  die "ci/ab.sh --layouts --lib said: $message"
if message=$(bash ci/ab.sh --maskedvbyte /nonexistent 2>&1); then
  die "ci/ab.sh --maskedvbyte /nonexistent succeeded"
fi
[ "$message" = "error: --maskedvbyte /nonexistent: not a folder" ] ||
  die "ci/ab.sh --maskedvbyte /nonexistent said: $message"
# A folder that is not a MaskedVByte checkout: the configure fails, saying so.
if cmake -S . -B "$out/maskedvbyte-build" -DPROTOACCEL_BUILD_TESTS=OFF \
    "-DPROTOACCEL_MASKEDVBYTE_DIR=$ROOT/src" >"$out/maskedvbyte-build.log" 2>&1; then
  die "cmake took -DPROTOACCEL_MASKEDVBYTE_DIR=src"
fi
# (cmake wraps its message at spaces: look for words, not the sentence.)
grep -q 'PROTOACCEL_MASKEDVBYTE_DIR=' "$out/maskedvbyte-build.log" &&
  grep -q 'lemire/MaskedVByte' "$out/maskedvbyte-build.log" ||
  die "cmake's error for a wrong PROTOACCEL_MASKEDVBYTE_DIR does not say what it expected"
echo
echo "A/B report test passed"
