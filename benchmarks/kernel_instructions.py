#!/usr/bin/env python3
"""Instructions per call of each kernel at each level, next to scalar's,
counted by callgrind in kernels_bench (as instructions.py counts
message_bench's cases).

Where a kernel's time at a few values is within the host's noise of
scalar's (a nanosecond or less), its instructions are not: the SIMD
kernels must hand short inputs to scalar code for no more than a compare,
a branch and a jump. --gate exits 1 where a level takes more than scalar
by more than --slack instructions per call. valgrind runs up to AVX2, so
the AVX-512 kernels are left out (kernels_bench registers the levels
valgrind's CPU has).

With --qemu, a kernels_bench of another architecture (an arm64 one, for
NEON) runs under the qemu-user command given instead, which executes one
instruction per translation block (-singlestep) and logs each block it
runs (-d nochain,exec), only those in kernels_bench's own code (-dfilter:
the program must be linked -no-pie, its code at a fixed address). Each
case runs in processes of its own, K and 2K times. Those are qemu's
instructions, counted the same way for scalar and NEON: no time.

Usage: kernel_instructions.py BENCH [--filter REGEX] [--iterations K]
                              [--gate] [--slack S] [--qemu COMMAND]
"""

import argparse
import os
import re
import shlex
import subprocess
import sys

from ab import die, list_cases
from instructions import count_all

LEVELS = ("scalar", "sse4", "avx2", "avx512", "neon")


def code_range(bench):
    """The address range of BENCH's .text, for -dfilter."""
    header = subprocess.run(["readelf", "-hSW", bench], check=True, capture_output=True,
                            text=True).stdout
    if not re.search(r"Type:\s+EXEC", header):
        die(f"{bench}: not linked -no-pie; its code's address is not fixed")
    m = re.search(r"\s\.text\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", header)
    if not m:
        die(f"{bench}: no .text section")
    return f"0x{m.group(1)}+0x{m.group(2)}"


def count_qemu(qemu, bench, cases, iterations):
    """{case: instructions of its run of `iterations` operations}, each
    case in a qemu process of its own."""
    counts = {}
    text = code_range(bench)
    for case in cases:
        cmd = shlex.split(qemu) + [
            "-E", f"PROTOACCEL_BENCH_ITERATIONS={iterations}", "-singlestep",
            "-d", "nochain,exec", "-dfilter", text, "-D", "/dev/stderr",
            bench, f"--benchmark_filter=^{re.escape(case)}/iterations:{iterations}$"]
        run = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        traces = sum(1 for line in run.stderr if line.startswith(b"Trace"))
        if run.wait() != 0 or traces == 0:
            die(f"{' '.join(cmd)} failed, or logged nothing")
        counts[case] = traces
    return counts


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bench", help="kernels_bench")
    p.add_argument("--filter", default="/(1|4|8|16|32)$",
                   help="the cases, a regex over their names (default: N of 1 to 32)")
    p.add_argument("--iterations", type=int, default=1000, help="K (default 1000)")
    p.add_argument("--gate", action="store_true",
                   help="exit 1 where a level takes more instructions than scalar")
    p.add_argument("--slack", type=float, default=4,
                   help="instructions per call the gate lets pass (default 4: the "
                        "compare, branch and jump to scalar code, and a spare)")
    p.add_argument("--qemu", metavar="COMMAND",
                   help="count under this qemu-user command instead of callgrind, e.g. "
                        "'qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=...'")
    args = p.parse_args()
    libdir = os.path.dirname(os.path.abspath(args.bench))
    k = args.iterations
    if args.qemu:
        listed = subprocess.run(shlex.split(args.qemu) + [
            args.bench, "--benchmark_list_tests=true", f"--benchmark_filter={args.filter}"],
            check=True, capture_output=True, text=True).stdout.split()
    else:
        listed = list_cases(args.bench, libdir, args.filter)
    names = [c for c in listed if c.split("/")[2] in LEVELS]
    if not names:
        die(f"no case matches --filter '{args.filter}'")
    if args.qemu:
        once = count_qemu(args.qemu, args.bench, names, k)
        twice = count_qemu(args.qemu, args.bench, names, 2 * k)
    else:
        regex = "^(" + "|".join(re.escape(c) for c in names) + ")(/iterations:[0-9]+)?$"
        once = count_all(args.bench, libdir, regex, k, None)
        twice = count_all(args.bench, libdir, regex, 2 * k, None)
    # (kernel, data, N) -> {level: instructions per call}
    rows = {}
    for name in once:
        kernel, data, level, n = name.split("/")
        rows.setdefault((kernel, data, n), {})[level] = (twice[name] - once[name]) / k
    levels = [l for l in LEVELS if any(l in r for r in rows.values())]
    header = ["kernel", "data", "N"] + [f"{l} instr/call" for l in levels] + \
             [f"{l} - scalar" for l in levels[1:]]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    over = []
    for (kernel, data, n), by_level in rows.items():
        base = by_level.get("scalar")
        cells = [kernel, data, n] + [f"{by_level[l]:,.1f}" if l in by_level else "-"
                                     for l in levels]
        for l in levels[1:]:
            if l not in by_level or base is None:
                cells.append("-")
                continue
            cells.append(f"{by_level[l] - base:+,.1f}")
            if by_level[l] - base > args.slack:
                over.append(f"{kernel}/{data}/{n}: {l} {by_level[l]:,.1f} > scalar {base:,.1f}")
        print("| " + " | ".join(cells) + " |")
    if args.gate:
        if over:
            print(f"{len(over)} kernel(s) over scalar by more than {args.slack:g} "
                  "instructions a call:", file=sys.stderr)
            print("\n".join("  " + line for line in over), file=sys.stderr)
            return 1
        print(f"no kernel over scalar by more than {args.slack:g} instructions a call "
              f"({len(rows)} cases)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
