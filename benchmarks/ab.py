#!/usr/bin/env python3
"""A/B runs of one google-benchmark program against several libraries.

The same binary runs once per library and round, through LD_LIBRARY_PATH,
the libraries alternating (their order rotates each round). The report gives,
per case, the median time of each library, the spread (min..max over the
rounds) and each library's speed-up over the first (its median time divided
into the first's). The raw JSON of every run is kept beside the report.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys


def run(args, name, libdir, round_index, out_dir):
    path = os.path.join(out_dir, f"{name}-round{round_index}.json")
    env = dict(os.environ, LD_LIBRARY_PATH=libdir)
    cmd = [args.bench, f"--benchmark_filter={args.filter}",
           f"--benchmark_min_time={args.min_time}",
           f"--benchmark_out={path}", "--benchmark_out_format=json",
           "--benchmark_format=console"]
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    with open(path) as f:
        return json.load(f)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bench", required=True, help="benchmark program")
    p.add_argument("--lib", action="append", required=True,
                   help="NAME=DIR, a library folder for LD_LIBRARY_PATH; "
                        "the first is the base of the ratios")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--filter", default=".")
    p.add_argument("--min-time", default="0.2")
    p.add_argument("--out", required=True, help="folder for JSON and report")
    p.add_argument("--title", default="A/B")
    args = p.parse_args()

    libs = [tuple(spec.split("=", 1)) for spec in args.lib]
    os.makedirs(args.out, exist_ok=True)
    # results[case][lib] = list of per-round benchmark entries
    results = {}
    order = []
    for r in range(args.rounds):
        rotated = libs[r % len(libs):] + libs[:r % len(libs)]
        for name, libdir in rotated:
            print(f"[ab] round {r + 1}/{args.rounds}: {name}", file=sys.stderr,
                  flush=True)
            data = run(args, name, libdir, r, args.out)
            for b in data["benchmarks"]:
                case = b["name"]
                if case not in results:
                    results[case] = {}
                    order.append(case)
                results[case].setdefault(name, []).append(b)
    context = data["context"]

    names = [n for n, _ in libs]
    base = names[0]
    lines = [f"# {args.title}", "",
             f"{args.rounds} rounds, libraries alternating; medians; "
             f"speed-up = median time of {base} / median time of the library.",
             f"Machine: {context.get('host_name', '?')}, "
             f"{context.get('num_cpus', '?')} CPUs at "
             f"{context.get('mhz_per_cpu', '?')} MHz.", ""]
    header = ["case"] + [f"{n} ns/op (min..max)" for n in names]
    header += [f"{n} speed-up" for n in names[1:]]
    has_allocs = any("allocs/op" in results[c][base][0] for c in order)
    if has_allocs:
        header += [f"{n} allocs/op" for n in names]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    summary = {}
    for case in order:
        row = [case]
        medians = {}
        for n in names:
            times = [b["real_time"] for b in results[case].get(n, [])]
            if not times:
                row.append("-")
                continue
            medians[n] = statistics.median(times)
            row.append(f"{medians[n]:.1f} ({min(times):.1f}..{max(times):.1f})")
        for n in names[1:]:
            ratio = medians[base] / medians[n] if n in medians and base in medians else None
            row.append(f"{ratio:.2f}x" if ratio else "-")
            summary.setdefault(case, {})[n] = ratio
        if has_allocs:
            for n in names:
                allocs = [b.get("allocs/op", 0) for b in results[case].get(n, [])]
                row.append(f"{statistics.median(allocs):.0f}" if allocs else "-")
        lines.append("| " + " | ".join(row) + " |")
    report = os.path.join(args.out, "report.md")
    with open(report, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump({"base": base, "libraries": names, "speedup": summary}, f,
                  indent=1)
    print(report)


if __name__ == "__main__":
    main()
