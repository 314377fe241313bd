#!/usr/bin/env python3
"""Instructions per operation of message_bench's cases, counted by callgrind.

A case of a few values takes 10 to 40 ns, and on a noisy host its time
strays by more than a series changes there (the A/B's control shows by how
much). Instructions do not stray: each case runs K and then 2K times
(PROTOACCEL_BENCH_ITERATIONS, no calibration runs), and the difference of
the two counts over K leaves out the case's setup. One callgrind process
counts every case of a library (message_bench zeroes the counts as a case
starts and dumps them as it ends). A count is no time, though: it shows
where a library does more work per operation, not how long that takes (a
SIMD instruction does the work of several).

Usage: instructions.py --lib NAME=LIBDIR:BENCH [--lib ...] --filter REGEX
                       [--iterations K] [--isa LEVEL] [--gate] [--out FILE]
The first library is the base; each library runs its own message_bench with
LIBDIR first on LD_LIBRARY_PATH. Prints a markdown table (and writes it to
FILE): instructions per operation, and each other library's difference.
--isa sets PROTOACCEL_ISA for every run (valgrind runs up to avx2).
--gate: exit 1 if any library takes more instructions than the base on any
case, by more than 0.5 instructions per operation and 0.05% (--slack,
--relative-slack): counts are exact, but glibc's malloc takes a path or two
more or fewer after the cases before it have left the heap in another
state (google_message2's parse, 2.5 million instructions, by up to 0.004%).
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from ab import die, library_env, list_cases, parse_lib


def count_all(bench, libdir, regex, iterations, isa):
    """{case: instructions of its run of `iterations` operations}, one
    callgrind process for every case `regex` matches."""
    env = library_env(libdir)
    env["PROTOACCEL_BENCH_ITERATIONS"] = str(iterations)
    if isa:
        env["PROTOACCEL_ISA"] = isa
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
               "--dump-instr=no", "--compress-strings=no", bench,
               f"--benchmark_filter={regex}", "--benchmark_format=json"]
        run = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            die(f"{' '.join(cmd)} failed:\n{run.stderr.strip()[-1000:]}")
        runs = json.loads(run.stdout)["benchmarks"]
        dumps = []  # (label, instructions), in the order of the cases' runs
        for path in sorted(glob.glob(out + ".*"), key=lambda p: int(p.rsplit(".", 1)[1])):
            with open(path) as f:
                text = f.read()
            label = re.search(r"^desc: Trigger: Client Request: (.*)$", text, re.M)
            total = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
            if label and total:
                dumps.append((label.group(1), int(total.group(1))))
    if not dumps and runs:
        die(f"{bench}: no count per case (built without valgrind/callgrind.h?)")
    if len(dumps) != len(runs):
        die(f"{bench}: {len(runs)} cases ran but callgrind dumped {len(dumps)}")
    counts = {}
    for (label, total), r in zip(dumps, runs):
        case = re.sub(r"/iterations:\d+$", "", r["name"])
        # The count means nothing unless it is this case's, run exactly as
        # often as asked.
        if not case.startswith(label) or r.get("iterations") != iterations or \
                "error_message" in r:
            die(f"{case}: expected one run of {iterations} iterations, counted as {label}; "
                f"got {r.get('iterations')} {r.get('error_message', '')} "
                "(a message_bench without PROTOACCEL_BENCH_ITERATIONS?)")
        counts[case] = total
    return counts


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", action="append", required=True, metavar="NAME=LIBDIR:BENCH")
    p.add_argument("--filter", required=True, help="the cases, a regex over their names")
    p.add_argument("--iterations", type=int, default=2000, help="K (default 2000)")
    p.add_argument("--isa", help="PROTOACCEL_ISA for every run")
    p.add_argument("--gate", action="store_true",
                   help="exit 1 where a library takes more instructions than the base")
    p.add_argument("--slack", type=float, default=0.5,
                   help="instructions per operation the gate lets pass (default 0.5)")
    p.add_argument("--relative-slack", type=float, default=0.0005,
                   help="and the fraction of the base's count (default 0.0005)")
    p.add_argument("--out", help="also write the table here")
    args = p.parse_args()
    libs = [parse_lib(spec) for spec in args.lib]
    for name, _, bench in libs:
        if bench is None or not os.access(bench, os.X_OK):
            die(f"--lib {name}: give NAME=LIBDIR:BENCH, BENCH an executable message_bench")
    if len(libs) < 2:
        die("give two libraries or more: the first is the base")
    if args.iterations < 1:
        die("--iterations must be positive")

    base_name, base_libdir, base_bench = libs[0]
    cases = list_cases(base_bench, base_libdir, args.filter)
    if not cases:
        die(f"no case matches --filter '{args.filter}'")
    k = args.iterations
    # A process per family (packed, string, realistic, dataset, ...): a case
    # runs after the same cases under every library, and after few, so that
    # malloc finds the heap in the same state (see --gate). Two callgrind
    # processes at a time: counts do not depend on the load.
    families = {}
    for case in cases:
        families.setdefault(case.split("/", 1)[0], []).append(case)
    jobs = [(lib, n, family) for lib in libs for n in (k, 2 * k) for family in families]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = []
        for lib, n, family in jobs:
            # Fixed iterations add "/iterations:K" to the names.
            regex = "^(" + "|".join(re.escape(c) for c in families[family]) + \
                    ")(/iterations:[0-9]+)?$"
            futures.append(((lib, n), pool.submit(count_all, lib[2], lib[1], regex, n,
                                                  args.isa)))
        counts = {}
        for key, future in futures:
            counts.setdefault(key, {}).update(future.result())

    header = ["case"] + [f"{name} instr/op" for name, _, _ in libs] + \
             [f"{name} - {base_name}" for name, _, _ in libs[1:]]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    over = []
    for case in cases:
        per_op = []
        for lib in libs:
            once, twice = counts[(lib, k)].get(case), counts[(lib, 2 * k)].get(case)
            if once is None or twice is None:
                die(f"{case}: not counted under {lib[0]}")
            per_op.append((twice - once) / k)
        cells = [f"`{case}`"] + [f"{x:,.0f}" for x in per_op] + \
                [f"{x - per_op[0]:+,.0f} ({(x - per_op[0]) / per_op[0]:+.1%})" for x in per_op[1:]]
        lines.append("| " + " | ".join(cells) + " |")
        for lib, x in zip(libs[1:], per_op[1:]):
            if x - per_op[0] > args.slack + args.relative_slack * per_op[0]:
                over.append(f"{case}: {lib[0]} {x:,.1f} > {base_name} {per_op[0]:,.1f}")
    print("\n".join(lines), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    if args.gate:
        level = f" at {args.isa}" if args.isa else ""
        if over:
            print(f"instructions{level}: {len(over)} case(s) over {base_name}:", file=sys.stderr)
            print("\n".join("  " + line for line in over), file=sys.stderr)
            sys.exit(1)
        print(f"instructions{level}: no case over {base_name} ({len(cases)} cases)", file=sys.stderr)


if __name__ == "__main__":
    main()
