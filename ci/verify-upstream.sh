#!/usr/bin/env bash
# Checks a patch series of patches/protobuf-<release>/ on your own checkout of
# upstream protobuf, at the release's tag (or of patches/protobuf-main/, at
# the main commit its BASE names):
#   1. applies the series with `git am` to a clone of the checkout (accel),
#      and the series' stock.series (build fixes only) to another (stock);
#      a series whose `series` lists `add-kernels` first commits this
#      tree's kernels into third_party/protoaccel (patches/add-kernels.sh),
#      and the accel clone's commits since the checkout are also written
#      out as the pull request's patches, OUT/pr-series/;
#   2. builds both, with abseil from Debian's source (third_party/fetch.sh
#      upstream) unless ABSEIL_PREFIX is given, and installs them;
#   3. runs upstream's unit tests (by default the suites that parse and
#      serialize) and the conformance suite on both: the same tests must pass;
#   4. runs the A/B benchmark (benchmarks/ab.py): message_bench built against
#      each install, the libraries alternating, each round in a code layout
#      of its own, and stock again in layouts of its own (stock-copy: the
#      noise of one run); writes OUT/report/report.md;
#   5. runs the A/B's small cases (up to 32 values or bytes) again, one
#      process per case, the libraries' runs of a case side by side, for
#      many rounds, each in a layout of its own, and gives the paired
#      speed-ups (median of the rounds' ratios): OUT/report-small/report.md;
#   6. counts instructions per operation of those cases on both
#      (benchmarks/instructions.py, callgrind): OUT/report/instructions.md.
# The checkout itself is only read. CI does not run this (upstream sources are
# in no registry); it is how a contributor checks a series.
#
# Usage: ci/verify-upstream.sh [options] PROTOBUF_CHECKOUT [ABSEIL_PREFIX]
#   PROTOBUF_CHECKOUT   a git checkout of protobuf whose HEAD is a release
#                       tag with a series here (v22.0, v36.0), or the main
#                       commit of patches/protobuf-main/BASE
#   ABSEIL_PREFIX       an abseil install (ABSEIL_PREFIX/lib/cmake/absl),
#                       with its test helpers for upstream's tests; default:
#                       Debian's source of the release's abseil, built into
#                       out/upstream/absl-VERSION
#   --tests FILTER      gtest filter for upstream's `tests` (default: the
#                       parse and serialize suites; '*' runs all)
#   --no-tests          no unit tests, no conformance
#   --no-ab             no A/B benchmark, no instruction counts
#   --accel-only        build and test accel alone (no stock to compare
#                       with, so no A/B): every test must pass; half the
#                       build, e.g. for another compiler
#   --sanitize          build both with ASan and UBSan (-O1, debug checks
#                       on, static libraries) and run the tests only, in
#                       out/upstream/TAG-sanitize: a bad read or write, or
#                       undefined behaviour, fails the run.
#                       Abseil's hash tables change layout under ASan, so
#                       an ABSEIL_PREFIX given must be built so too, and
#                       static (the default abseil is)
#   --rounds N, --min-time S   the A/B's rounds (default 5), each a code
#                       layout of its own; min time (default 0.05)
#   --small-rounds N    rounds of the small cases, one process per case,
#                       each in a layout of its own (default 41; min time
#                       0.02)
#   --cxx COMPILER      build protobuf with this C++ compiler, e.g.
#                       clang++-14 (its C compiler: the same name with
#                       ++ dropped); the default out dir gets -COMPILER;
#                       abseil stays built with the default compiler
#   --series NAME       apply patches/protobuf-NAME whatever HEAD is: e.g.
#                       --series main on a newer main, to rebase the series
#                       (patches/protobuf-main/README.md)
#   --out DIR           where everything goes (default out/upstream/TAG)
#   --lock FILE         builds, tests and benchmarks under flock(1) on FILE
#                       (default: $PROTOACCEL_LOCK, if set)
#   -h, --help          this text
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
need_value() { if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value (try --help)"; fi; }

# The upstream tests that parse and serialize (suite names of `tests`).
readonly DEFAULT_TESTS='*Parse*:*Parsing*:*Packed*:*Varint*:*Utf8*:*UTF8*:*Extension*:*WireFormat*:*CodedStream*:*Serializ*:*Repeated*:*Generated*:*TcParser*:*Dynamic*:*Reflection*:*Unknown*:*Lite*'
# The A/B cases of the issue's targets, packed extensions (which the
# library serializes itself, not generated code), and the realistic
# messages (benchmarks/ab_messages.proto: what users send, where a series
# must cost nothing).
readonly AB_FILTER='^(packed/(parse|serialize)/(uint32/(lt128|rand)|uint64/rand|int32/neg)/(1|4|16|10000)|string/parse/(mixed|ascii)/(8|32|1024)|numberbatch/parse/10000|extension/(parse|serialize)/(uint32|uint64)/rand/(1|4|16|10000)|dataset/parse/.*|realistic/(parse|serialize)/.*)$'
# Its cases of up to 32 values or bytes, and the realistic messages: run
# again side by side, and counted by instructions.py.
readonly SMALL_FILTER='^(packed/(parse|serialize)/(uint32/(lt128|rand)|uint64/rand|int32/neg)/(1|4|16)|string/parse/(mixed|ascii)/(8|32)|extension/(parse|serialize)/(uint32|uint64)/rand/(1|4|16)|realistic/(parse|serialize)/.*)$'

tests_filter=$DEFAULT_TESTS
run_tests=true
run_ab=true
variants=(stock accel)
sanitize=false
rounds=5
min_time=0.05
small_rounds=41
out=
lock=${PROTOACCEL_LOCK:-}
forced_series=
cxx=
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --tests) need_value "$@"; tests_filter=$2; shift ;;
    --no-tests) run_tests=false ;;
    --no-ab) run_ab=false ;;
    --accel-only) variants=(accel) run_ab=false ;;
    --sanitize) sanitize=true ;;
    --rounds) need_value "$@"; rounds=$2; shift ;;
    --min-time) need_value "$@"; min_time=$2; shift ;;
    --small-rounds) need_value "$@"; small_rounds=$2; shift ;;
    --out) need_value "$@"; out=$2; shift ;;
    --lock) need_value "$@"; lock=$2; shift ;;
    --series) need_value "$@"; forced_series=$2; shift ;;
    --cxx) need_value "$@"; cxx=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option: $1 (try --help)" ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ ${#args[@]} -ge 1 ] && [ ${#args[@]} -le 2 ] ||
  die "usage: ci/verify-upstream.sh [options] PROTOBUF_CHECKOUT [ABSEIL_PREFIX] (try --help)"
checkout=$(cd "${args[0]}" 2>/dev/null && pwd) || die "${args[0]}: no such folder"
abseil_prefix=${args[1]:-}
locked=()
[ -z "$lock" ] || locked=(flock "$lock")

# --------------------------------------------------------------- the tag --
git -C "$checkout" rev-parse --git-dir >/dev/null 2>&1 || die "$checkout is not a git checkout"
commit=$(git -C "$checkout" rev-parse HEAD)
# A commit may carry several tags (v22.0 is also v3.22.0): the one with a
# series; else main's series, if HEAD is its BASE; else --series.
tags=$(git -C "$checkout" tag --points-at HEAD | tr '\n' ' ')
tag=
for t in $tags; do
  if [ -f "patches/protobuf-${t#v}/series" ]; then tag=$t; break; fi
done
if [ -n "$forced_series" ]; then
  [ -f "patches/protobuf-$forced_series/series" ] ||
    die "--series $forced_series: no patches/protobuf-$forced_series/series"
  tag=$forced_series
elif [ -z "$tag" ] && [ "$(cat patches/protobuf-main/BASE 2>/dev/null)" = "$commit" ]; then
  tag=main
fi
[ -n "$tag" ] ||
  die "$checkout: no series for HEAD ($commit${tags:+, tags $tags}): check out a release's tag (series here: $(cd patches && ls -d protobuf-* | tr '\n' ' ')) or main at patches/protobuf-main/BASE, or give --series"
release=${tag#v}
series_dir=$ROOT/patches/protobuf-$release
# A series that lists add-kernels commits the kernels into the checkout
# (main's); the others build them from this tree.
carries_kernels=false
grep -qx add-kernels "$series_dir/series" && carries_kernels=true
case $release in
  22.*) abseil_version=20240722 ;;  # 22.0 wants LTS 20230125, which no Debian suite has
  *) abseil_version=20260526 ;;
esac
flavour=
sanitize_flags=()
protobuf_flags=(-Dprotobuf_BUILD_SHARED_LIBS=ON)
abseil_shared=ON
build_env=()
if $sanitize; then
  $run_tests || die "--sanitize runs the tests: drop --no-tests"
  run_ab=false  # sanitized code is no measure of speed
  flavour=-sanitize
  # UBSan's three null-pointer checks are left out: with any of them, gcc
  # 12 rejects abseil's constexpr hash tables (GCC bug 71962, abseil issue
  # 1634). A null dereference still stops the run, as a SEGV under ASan.
  # So is its vptr check: v36.0's `tests` cannot link with it, as libprotoc
  # hides the typeinfo of classes that the tests derive from
  # (cpp::FieldGeneratorBase).
  flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  flags+=" -fno-sanitize=null,nonnull-attribute,returns-nonnull-attribute,vptr"
  sanitize_flags=("-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags"
    "-DCMAKE_EXE_LINKER_FLAGS=$flags" "-DCMAKE_SHARED_LINKER_FLAGS=$flags")
  # As upstream's own sanitizer builds (its .bazelrc: asan is dbg with
  # dynamic_mode=off): debug checks on, so that the death tests that expect
  # them (v36.0 checks downcasts whenever a sanitizer is on) meet them; and
  # static libraries, as with shared ones v36.0's `tests` stops before its
  # first test (libprotobuf and libprotobuf-lite both define the lite
  # symbols, and the program's copy of fixed_address_empty_string is poisoned).
  protobuf_flags=("-DCMAKE_C_FLAGS_RELEASE=-O1" "-DCMAKE_CXX_FLAGS_RELEASE=-O1"
    -Dprotobuf_BUILD_SHARED_LIBS=OFF "-DCMAKE_PROJECT_protobuf_INCLUDE=$ROOT/ci/jsoncpp-static.cmake")
  # Abseil too: its shared test helpers (libabsl_status_matchers) hold a copy
  # of Debian's static gtest, whose globals the test program's own copy
  # interposes, so that they are destroyed twice at exit.
  abseil_shared=OFF
  export ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
  # Leaks are looked for in the tests, not in the build: v36.0's build runs
  # upb's protoc-gen-upbdefs, which leaks 32 bytes at exit.
  build_env=(env "ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0")
fi
if [ -n "$cxx" ]; then
  command -v "$cxx" >/dev/null || die "--cxx $cxx: no such compiler"
  cc=${cxx/++/}
  command -v "$cc" >/dev/null || die "--cxx $cxx: no C compiler $cc beside it"
  protobuf_flags+=("-DCMAKE_CXX_COMPILER=$cxx" "-DCMAKE_C_COMPILER=$cc")
fi
# (Abseil is built with the default compiler whatever --cxx says: its ABI
# is libstdc++'s either way.)
[ -n "$out" ] || out=out/upstream/$tag$flavour${cxx:+-${cxx##*/}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
echo "protobuf $tag at $commit ($checkout); series $series_dir"

step "packages"
ensure_build_packages
ensure_packages libjsoncpp-dev python3 python3-matplotlib valgrind

# ---------------------------------------------------------------- abseil --
if [ -z "$abseil_prefix" ]; then
  step "abseil $abseil_version from Debian's source"
  bash third_party/fetch.sh upstream
  abseil_prefix=$ROOT/out/upstream/absl-$abseil_version$flavour
  if [ ! -f "$abseil_prefix/lib/cmake/absl/abslConfig.cmake" ]; then
    abseil_build=out/upstream/build-absl-$abseil_version$flavour
    "${locked[@]}" bash -c 'source ci/lib.sh && configure_and_build "$@"' _ \
      "third_party/src/abseil-$abseil_version" "$abseil_build" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DABSL_PROPAGATE_CXX_STD=ON \
      -DBUILD_SHARED_LIBS=$abseil_shared -DABSL_BUILD_TESTING=OFF -DBUILD_TESTING=OFF \
      -DABSL_BUILD_TEST_HELPERS=ON -DABSL_USE_EXTERNAL_GOOGLETEST=ON -DABSL_FIND_GOOGLETEST=ON \
      "-DCMAKE_INSTALL_PREFIX=$abseil_prefix" "${sanitize_flags[@]}"
    "${locked[@]}" ninja -C "$abseil_build" install >/dev/null || die "abseil: install failed"
  fi
fi
abseil_prefix=$(cd "$abseil_prefix" && pwd)
[ -f "$abseil_prefix/lib/cmake/absl/abslConfig.cmake" ] ||
  die "$abseil_prefix/lib/cmake/absl/abslConfig.cmake is missing: not an abseil install"
if $sanitize && [ ! -f "$abseil_prefix/lib/libabsl_base.a" ]; then
  die "$abseil_prefix: --sanitize needs abseil built static, with ASan and UBSan (one this script built before it did: delete it)"
fi
echo "abseil: $abseil_prefix"

# ------------------------------------------------------ sources and builds --
# prepare VARIANT: a clone of the checkout at the tag, its series applied;
# remade when the series changes.
prepare() {
  local variant=$1 src=$out/src-$1 series=$series_dir/series stamp
  [ "$variant" = stock ] && series=$series_dir/stock.series
  # (The kernels count only where the series commits them.)
  stamp=$( (echo "$commit"; cat "$series"
    grep -v '^add-kernels$' "$series" | sed "s|^|$series_dir/|" | xargs -r cat
    if [ "$variant" = accel ] && $carries_kernels; then
      cat patches/add-kernels.sh; git ls-files -z src | xargs -0 cat
    fi) | sha256sum | cut -c1-16)
  if [ -f "$src/.protoaccel-stamp" ] && [ "$(cat "$src/.protoaccel-stamp")" = "$stamp" ]; then
    echo "$variant: $src is up to date"
    return
  fi
  rm -rf "$src"
  git clone -q --no-checkout "$checkout" "$src"
  git -C "$src" checkout -q --detach "$commit"
  local n=0 patch
  while read -r patch; do
    case $patch in
      '') continue ;;
      add-kernels) bash patches/add-kernels.sh "$src" >/dev/null || die "$variant: add-kernels failed" ;;
      *) git -C "$src" -c user.name=protoaccel -c user.email=dev@protoaccel.invalid \
           am -q --keep-cr "$series_dir/$patch" || die "$variant: git am $patch failed on $tag" ;;
    esac
    n=$((n + 1))
  done <"$series"
  if [ "$variant" = accel ] && $carries_kernels; then
    rm -rf "$out/pr-series"
    git -C "$src" format-patch -q --zero-commit --no-signature -o "$out/pr-series" "$commit..HEAD"
    echo "accel: the pull request's patches: $out/pr-series/"
  fi
  # v22.0's conformance runner wants jsoncpp's source as a submodule.
  if [ ! -f "$src/third_party/jsoncpp/CMakeLists.txt" ]; then
    if [ -f "$checkout/third_party/jsoncpp/CMakeLists.txt" ]; then
      cp -a "$checkout/third_party/jsoncpp/." "$src/third_party/jsoncpp/"
    else
      mkdir -p "$src/third_party/jsoncpp"
      cp -a third_party/src/jsoncpp/. "$src/third_party/jsoncpp/"
    fi
  fi
  echo "$stamp" >"$src/.protoaccel-stamp"
  echo "$variant: $n commit(s) of the series made ($src)"
}

build() {
  local variant=$1 src=$out/src-$1 dir=$out/build-$1 prefix=$out/$1
  local extra=()
  # (Series that carry the kernels build them from third_party/protoaccel.)
  [ "$variant" = accel ] && ! $carries_kernels &&
    extra+=("-Dprotobuf_PROTOACCEL_DIR=$ROOT")
  extra+=("${sanitize_flags[@]}" "${protobuf_flags[@]}")
  local tests=OFF
  $run_tests && tests=ON
  # The output folders are given because jsoncpp's CMakeLists (v22.0's
  # conformance runner builds it) caches bin/ and lib/ ones, which move the
  # programs from the second configure on.
  local args=("-DCMAKE_RUNTIME_OUTPUT_DIRECTORY=$dir" "-DCMAKE_LIBRARY_OUTPUT_DIRECTORY=$dir"
    "-DCMAKE_ARCHIVE_OUTPUT_DIRECTORY=$dir"
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17
    -Dprotobuf_ABSL_PROVIDER=package -Dprotobuf_LOCAL_DEPENDENCIES_ONLY=ON
    "-Dabsl_DIR=$abseil_prefix/lib/cmake/absl" -Dprotobuf_USE_EXTERNAL_GTEST=ON
    -Dprotobuf_BUILD_TESTS=$tests -Dprotobuf_BUILD_CONFORMANCE=$tests -Dprotobuf_BUILD_LIBUPB=OFF
    "-DCMAKE_INSTALL_PREFIX=$prefix" "${extra[@]}")
  # New sources or settings start a new build. Every object recompiles
  # then, and the recorded dependencies can name headers the old build
  # generated (v36.0's descriptor.upb.h, which upb's own sources then
  # include): a cycle.
  local stamp
  stamp=$( (cat "$src/.protoaccel-stamp"; printf '%s\n' "${args[@]}") | sha256sum | cut -c1-16)
  if [ "$(cat "$dir.settings" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$dir"
    echo "$stamp" >"$dir.settings"
  fi
  "${build_env[@]}" "${locked[@]}" bash -c 'source ci/lib.sh && configure_and_build "$@"' _ \
    "$src" "$dir" "${args[@]}"
  "${build_env[@]}" "${locked[@]}" ninja -C "$dir" install >/dev/null || die "$variant: install failed"
}

for variant in "${variants[@]}"; do
  step "protobuf $tag, $variant: sources"
  prepare "$variant"
  step "protobuf $tag, $variant: build (tests: $run_tests)"
  build "$variant"
done

# ----------------------------------------------------------------- tests --
# run_gtest VARIANT KIND DIR PROGRAM [ARGS...]: a gtest program's verdict is
# its summary. v36.0's `tests`, linked with shared abseil, passes and then
# aborts at exit ("double free or corruption", stock as much as accel: ASan
# finds gtest's globals destroyed twice, see --sanitize); so an exit status
# after a summary without failures is reported, not fatal, and must be the
# same for stock and accel, like the counts.
run_gtest() {
  local variant=$1 kind=$2 dir=$3 status=0
  local log=$out/$kind-$variant.txt
  shift 3
  (cd "$dir" && "${locked[@]}" "$@") >"$log" 2>&1 || status=$?
  if grep -qE '^\[  FAILED  \]' "$log" || ! grep -qE '^\[  PASSED  \]' "$log"; then
    tail -20 "$log"
    die "$variant: $kind failed ($log)"
  fi
  # A sanitizer's report after the summary (a leak, say) fails the run too.
  if grep -m 5 -E '^(==[0-9]+==ERROR: [A-Za-z]+Sanitizer|.*: runtime error: )' "$log"; then
    die "$variant: $kind: a sanitizer report ($log)"
  fi
  local summary
  summary=$(grep -E '^\[  PASSED  \]' "$log")
  [ "$status" -eq 0 ] || summary+=" (then exit status $status)"
  echo "[  EXIT    ] $status" >>"$log"
  echo "  $variant $kind: $summary"
}

if $run_tests; then
  step "upstream's unit tests (--gtest_filter='$tests_filter') and conformance"
  for variant in "${variants[@]}"; do
    dir=$out/build-$variant src=$out/src-$variant
    run_gtest "$variant" tests "$src" "$dir/tests" "--gtest_filter=$tests_filter" --gtest_brief=1
    run_gtest "$variant" lite-test "$dir" ./lite-test --gtest_brief=1
    (cd "$src/conformance" && "${locked[@]}" "$dir/conformance_test_runner" \
      --failure_list failure_list_cpp.txt \
      --text_format_failure_list text_format_failure_list_cpp.txt \
      "$dir/conformance_cpp") >"$out/conformance-$variant.txt" 2>&1 ||
      { tail -20 "$out/conformance-$variant.txt"; die "$variant: conformance failed"; }
    echo "  $variant conformance: $(grep -E '^CONFORMANCE SUITE' "$out/conformance-$variant.txt")"
  done
  for kind in tests lite-test conformance; do
    [ ${#variants[@]} -eq 2 ] || break
    a=$(grep -E '^\[  PASSED  \]|^\[  SKIPPED \]|^\[  EXIT    \]|^CONFORMANCE SUITE' "$out/$kind-stock.txt")
    b=$(grep -E '^\[  PASSED  \]|^\[  SKIPPED \]|^\[  EXIT    \]|^CONFORMANCE SUITE' "$out/$kind-accel.txt")
    [ "$a" = "$b" ] || die "$kind: stock and accel differ:\n$a\n$b"
  done
  if [ ${#variants[@]} -eq 2 ]; then
    echo "  stock and accel: the same tests passed"
  else
    echo "  accel: every test passed (no stock build to compare with: --accel-only)"
  fi
fi

# ------------------------------------------------------------------ A/B ---
# ab_run REPORT ARGS...: benchmarks/ab.py of the three libraries into REPORT.
ab_run() {
  local report=$1
  shift
  rm -rf "$report"
  LD_LIBRARY_PATH=$abseil_prefix/lib /usr/bin/python3 benchmarks/ab.py \
    --bench "$out/bench-stock/message_bench" "${ab_libs[@]}" --out "$report" \
    ${lock:+--lock "$lock"} "$@"
}

if $run_ab; then
  # Google's datasets, from the 3.21.12 source: message_bench compiles in the
  # messages whose .proto it finds when it is configured.
  bash third_party/fetch.sh protobuf
  for variant in stock accel; do
    step "message_bench against $tag $variant"
    # The installed protoc finds abseil only through the loader's path.
    LD_LIBRARY_PATH=$abseil_prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
      "${locked[@]}" bash -c 'source ci/lib.sh && configure_and_build "$@"' _ \
      benchmarks/standalone "$out/bench-$variant" -DCMAKE_BUILD_TYPE=Release \
      "-DCMAKE_PREFIX_PATH=$out/$variant;$abseil_prefix"
  done
  # A case of a few values takes 10 to 40 ns, and where the code lands
  # moves that by more than the few instructions a series adds there: with
  # nothing changed but the alignment of functions, v36.0's serialize of one
  # value measured 0.90x to 0.99x of stock. So every library runs a layout
  # of its own in every round: its libprotobuf and message_bench linked
  # again from the build's objects, their code moved by a multiple of 16
  # bytes under 4 KiB (and, as new files, on other pages of memory). A
  # median is then over layouts. stock-copy, the control, is stock in
  # layouts of its own: its ratios to stock, which runs the same code, are
  # what a ratio can be off by.
  # The small cases' rounds get layouts of their own too (the A/B's rounds
  # use the first ones): over 11 layouts cycled, a paired ratio rested on 11
  # pairs of layouts, and the control strayed by up to 34 %; with a layout
  # per round, by 3 % at most (v22.0, v36.0).
  layouts=$((rounds > small_rounds ? rounds : small_rounds))
  step "code layouts: $layouts per library"
  so=$(basename "$(readlink -f "$out/build-stock/libprotobuf.so")")
  RANDOM=$((layouts * 1000 + ${#tag}))  # the same layouts for the same run
  rm -rf "$out/layouts"
  ab_libs=()
  for library in stock accel stock-copy; do
    variant=${library%-copy}
    for ((r = 1; r <= layouts; r++)); do
      layout=$out/layouts/$library-$r
      mkdir -p "$layout"
      cp -a "$out/$variant/lib" "$layout/"
      lib_pad=$((RANDOM % 256 * 16)) bench_pad=$((RANDOM % 256 * 16))
      relink "$out/build-$variant" libprotobuf "$so" "$layout/lib/$so" "$lib_pad"
      relink "$out/bench-$variant" message_bench message_bench "$layout/message_bench" "$bench_pad"
      echo "$library round $r: libprotobuf +$lib_pad bytes, message_bench +$bench_pad" |
        tee -a "$out/layouts/pads.txt"
    done
    ab_libs+=(--lib "$library=$out/layouts/$library-{round}/lib:$out/layouts/$library-{round}/message_bench")
  done
  step "A/B: stock vs accel $tag, $rounds round(s), min time $min_time s"
  ab_run "$out/report" --rounds "$rounds" --min-time "$min_time" --filter "$AB_FILTER"
  /usr/bin/python3 benchmarks/ab_report.py --out "$out/report" >/dev/null
  sed -n '/^## Summary: parse/,/^## Libraries/p' "$out/report/report.md" | sed '$d'
  echo "report: $out/report/report.md"
  # The host's speed drifts by tens of percent over seconds; a few tens of
  # nanoseconds a case, stock against itself strayed by 25 % in the A/B
  # above, where the libraries alternate group by group. Run one case at a
  # time instead, so that the libraries' runs of a case are a fraction of a
  # second apart, and take the median of each round's ratio.
  step "the small cases side by side: $small_rounds rounds, one process per case"
  ab_run "$out/report-small" --per-case --rounds "$small_rounds" --min-time 0.02 \
    --filter "$SMALL_FILTER"
  /usr/bin/python3 benchmarks/ab_report.py --no-plots --out "$out/report-small" >/dev/null
  sed -n '/^## Paired speed-ups/,/^## All cases/p' "$out/report-small/report.md" | sed '$d'
  echo "report: $out/report-small/report.md"
  # Where the host's noise hides the small cases' times, their instruction
  # counts still show whether accel does more work there.
  step "instructions per operation (callgrind): the A/B's cases of up to 32 values or bytes"
  LD_LIBRARY_PATH=$abseil_prefix/lib "${locked[@]}" /usr/bin/python3 benchmarks/instructions.py \
    --lib "stock=$out/stock/lib:$out/bench-stock/message_bench" \
    --lib "accel=$out/accel/lib:$out/bench-accel/message_bench" \
    --filter "$SMALL_FILTER" --out "$out/report/instructions.md"
fi
echo
echo "protobuf $tag: series verified"
