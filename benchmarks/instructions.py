#!/usr/bin/env python3
"""Instructions per operation of message_bench's cases, counted by callgrind.

A case of a few values takes 10 to 40 ns, and on a noisy host its time
strays by more than a series changes there (the A/B's control shows by how
much). Instructions do not stray: each case runs K and then 2K times
(PROTOACCEL_BENCH_ITERATIONS, no calibration runs), and the difference of
the two counts over K leaves out start-up and the case's setup. A count is
no time, though: it shows where a library does more work per operation, not
how long that takes (a SIMD instruction does the work of several).

Usage: instructions.py --lib NAME=LIBDIR:BENCH [--lib ...] --filter REGEX
                       [--iterations K] [--out FILE]
The first library is the base; each library runs its own message_bench with
LIBDIR first on LD_LIBRARY_PATH. Prints a markdown table (and writes it to
FILE): instructions per operation, and each other library's difference.
"""

import argparse
import json
import os
import re
import subprocess

from ab import die, library_env, list_cases, parse_lib


def env_for(libdir, iterations):
    env = library_env(libdir)
    env["PROTOACCEL_BENCH_ITERATIONS"] = str(iterations)
    return env


def count(bench, libdir, case, iterations):
    """Instructions of one run of `case`, `iterations` times."""
    # Fixed iterations add "/iterations:K" to the name.
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", bench,
           f"--benchmark_filter=^{re.escape(case)}(/iterations:[0-9]+)?$",
           "--benchmark_format=json"]
    run = subprocess.run(cmd, env=env_for(libdir, iterations), capture_output=True, text=True)
    if run.returncode != 0:
        die(f"{case}: {' '.join(cmd)} failed:\n{run.stderr.strip()[-1000:]}")
    runs = json.loads(run.stdout)["benchmarks"]
    # The count means nothing unless the case ran exactly as often as asked.
    if len(runs) != 1 or runs[0].get("iterations") != iterations or "error_message" in runs[0]:
        die(f"{case}: expected one run of {iterations} iterations from {bench}, got "
            f"{[(r.get('iterations'), r.get('error_message')) for r in runs]} "
            "(a message_bench without PROTOACCEL_BENCH_ITERATIONS?)")
    collected = re.search(r"Collected : (\d+)", run.stderr)
    if not collected:
        die(f"{case}: no instruction count in callgrind's output")
    return int(collected.group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", action="append", required=True, metavar="NAME=LIBDIR:BENCH")
    p.add_argument("--filter", required=True, help="the cases, a regex over their names")
    p.add_argument("--iterations", type=int, default=2000, help="K (default 2000)")
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
    header = ["case"] + [f"{name} instr/op" for name, _, _ in libs] + \
             [f"{name} - {base_name}" for name, _, _ in libs[1:]]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    print("\n".join(lines), flush=True)
    for case in cases:
        per_op = []
        for _, libdir, bench in libs:
            once, twice = (count(bench, libdir, case, n) for n in (k, 2 * k))
            per_op.append((twice - once) / k)
        cells = [f"`{case}`"] + [f"{x:,.0f}" for x in per_op] + \
                [f"{x - per_op[0]:+,.0f} ({(x - per_op[0]) / per_op[0]:+.1%})" for x in per_op[1:]]
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
