#!/usr/bin/env python3
"""A/B runs of message_bench against several libprotobuf builds.

The cases are grouped (a group is a case name without its last part, e.g.
packed/parse/uint32/lt128 holds its 11 sizes). In each round every group runs
once per library (--only limits a library to some groups), one process each,
the library given by LD_LIBRARY_PATH; the libraries alternate, their order
rotating from group to group and round to round, so that a slow minute of
the machine falls on all of them alike. With
--lock FILE every process runs holding an exclusive flock on FILE, for
machines where others benchmark too (run.json keeps the time spent waiting).

Written to --out:
  json/NAME-roundK.json  google-benchmark's JSON of library NAME in round K
                         (the groups' outputs concatenated, one context)
  run.json               the libraries, the binaries, the settings, the times
Then benchmarks/ab_report.py makes the report from them.

A library's folder and program may name one build per round: "{round}" in
them stands for the round's number (1..rounds). ci/verify-upstream.sh gives
each round its own code layout that way, so that a case's median is taken
over layouts as well as over runs.

With --per-case every process runs one case, not a group: the libraries'
runs of a case are then a fraction of a second apart, and ab_report.py gives
the paired speed-up, the median over rounds of the round's time ratio. On a
host whose speed drifts by tens of percent from one second to the next, that
ratio holds where a ratio of medians does not (the control, stock against a
copy of itself, shows how far).
"""

import argparse
import fcntl
import hashlib
import json
import os
import re
import subprocess
import sys
import time


def die(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def parse_lib(spec):
    """NAME=DIR or NAME=DIR:BENCH -> (name, libdir, bench or None)."""
    if "=" not in spec:
        die(f"--lib {spec}: expected NAME=DIR")
    name, rest = spec.split("=", 1)
    bench = None
    if ":" in rest:
        rest, bench = rest.split(":", 1)
    if not re.fullmatch(r"[A-Za-z0-9_.+-]+", name):
        die(f"--lib {spec}: NAME may hold letters, digits and _.+- only")
    if not rest:
        die(f"--lib {spec}: DIR is empty")
    return name, rest, bench


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def clock(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


def library_env(libdir):
    """The environment that loads libprotobuf from libdir: libdir first on
    LD_LIBRARY_PATH, the inherited path (e.g. abseil's) after it."""
    inherited = os.environ.get("LD_LIBRARY_PATH")
    return dict(os.environ, LD_LIBRARY_PATH=libdir + (":" + inherited if inherited else ""))


def in_round(template, r):
    """A --lib folder or program in round r (from 0)."""
    return template.replace("{round}", str(r + 1))


def list_cases(bench, libdir, regex):
    env = library_env(libdir)
    out = subprocess.run([bench, "--benchmark_list_tests=true",
                          f"--benchmark_filter={regex}"],
                         env=env, check=True, capture_output=True, text=True)
    return [line.strip() for line in out.stdout.splitlines() if line.strip()]


def group_cases(cases):
    groups = {}
    for case in cases:
        group, _, last = case.rpartition("/")
        groups.setdefault(group, []).append(last)
    return list(groups.items())


def main():
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", required=True, help="message_bench program")
    p.add_argument("--lib", action="append", required=True, metavar="NAME=DIR[:BENCH]",
                   help="a folder holding libprotobuf.so.*, for LD_LIBRARY_PATH; "
                        "BENCH: a program of its own instead of --bench. "
                        "The first library is the base of the speed-ups. In DIR and "
                        "BENCH, {round} stands for the round's number (1..rounds).")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--per-case", action="store_true",
                   help="one process per case, not per group (for paired ratios)")
    p.add_argument("--min-time", default="0.04",
                   help="google-benchmark's --benchmark_min_time, seconds")
    p.add_argument("--filter", default=".", help="regular expression on case names")
    p.add_argument("--only", action="append", default=[], metavar="NAME=REGEX",
                   help="library NAME runs only the cases REGEX matches (the others "
                        "have no result from it)")
    p.add_argument("--lock", help="run each process holding an exclusive flock on this file")
    p.add_argument("--out", required=True, help="folder for the JSON")
    args = p.parse_args()
    if args.rounds < 1:
        die("--rounds must be at least 1")

    libs = []
    for spec in args.lib:
        name, libdir, bench = parse_lib(spec)
        if name in [n for n, _, _ in libs]:
            die(f"--lib {name} given twice")
        libdir = os.path.abspath(libdir)
        bench = os.path.abspath(bench or args.bench)
        for r in range(args.rounds):
            if not os.path.isdir(in_round(libdir, r)):
                die(f"--lib {name}: {in_round(libdir, r)} is not a folder")
            if not any(f.startswith("libprotobuf.so") for f in os.listdir(in_round(libdir, r))):
                die(f"--lib {name}: no libprotobuf.so* in {in_round(libdir, r)}")
            if not os.access(in_round(bench, r), os.X_OK):
                die(f"{in_round(bench, r)}: no such program (build it first)")
        libs.append((name, libdir, bench))

    cases = list_cases(in_round(libs[0][2], 0), in_round(libs[0][1], 0), args.filter)
    if not cases:
        die(f"no case matches --filter '{args.filter}' "
            f"(list them: {libs[0][2]} --benchmark_list_tests)")
    groups = group_cases(cases)
    if args.per_case:
        groups = [(group, [last]) for group, lasts in groups for last in lasts]
    only = {}
    for spec in args.only:
        name, _, regex = spec.partition("=")
        if name not in [n for n, _, _ in libs]:
            die(f"--only {spec}: no --lib {name}")
        only[name] = re.compile(regex)

    def runs(name, group, lasts):
        return name not in only or bool(only[name].search(f"{group}/{lasts[0]}"))

    for name, _, _ in list(libs):
        if not any(runs(name, g, l) for g, l in groups):
            print(f"[ab] {name}: no case to run (--only {only[name].pattern}); left out",
                  file=sys.stderr, flush=True)
            libs = [lib for lib in libs if lib[0] != name]
            del only[name]

    json_dir = os.path.join(args.out, "json")
    os.makedirs(json_dir, exist_ok=True)
    for f in os.listdir(json_dir):
        if f.endswith(".json"):
            os.remove(os.path.join(json_dir, f))
    scratch = os.path.join(json_dir, "run.tmp")

    merged = {(name, r): None for name, _, _ in libs for r in range(args.rounds)}
    loaded = {}
    skipped = set()
    total = args.rounds * sum(runs(name, g, l) for name, _, _ in libs for g, l in groups)
    print(f"[ab] {len(cases)} cases in {len(groups)} groups, {len(libs)} libraries"
          f"{' (' + ', '.join(f'{n} on some' for n in only) + ')' if only else ''}, "
          f"{args.rounds} round{'s' if args.rounds > 1 else ''}: {total} runs", file=sys.stderr, flush=True)
    lock = open(args.lock, "a") if args.lock else None  # noqa: SIM115
    lock_wait = 0.0
    started = time.time()
    done = 0
    for r in range(args.rounds):
        for gi, (group, lasts) in enumerate(groups):
            group_libs = [lib for lib in libs if runs(lib[0], group, lasts)]
            k = (r + gi) % len(group_libs)
            for name, libdir, bench in group_libs[k:] + group_libs[:k]:
                libdir, bench = in_round(libdir, r), in_round(bench, r)
                done += 1
                elapsed = time.time() - started
                left = f", ~{clock(elapsed / (done - 1) * (total - done + 1))} left" if done > 1 else ""
                print(f"[ab] {done}/{total} round {r + 1}/{args.rounds} {name:>8}  "
                      f"{group} ({len(lasts)} case{'s' if len(lasts) > 1 else ''})  "
                      f"[{clock(elapsed)} elapsed{left}]", file=sys.stderr, flush=True)
                regex = f"^{group}/({'|'.join(lasts)})$"
                cmd = [bench, f"--benchmark_filter={regex}",
                       f"--benchmark_min_time={args.min_time}",
                       f"--benchmark_out={scratch}", "--benchmark_out_format=json"]
                env = library_env(libdir)
                waited = time.time()
                if lock is not None:
                    fcntl.flock(lock, fcntl.LOCK_EX)
                waited = time.time() - waited
                lock_wait += waited
                try:
                    run = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE, text=True)
                finally:
                    if lock is not None:
                        fcntl.flock(lock, fcntl.LOCK_UN)
                if run.returncode != 0:
                    sys.stderr.write(run.stderr[-3000:])
                    die(f"{name}: {' '.join(cmd)} exited with {run.returncode}")
                with open(scratch) as f:
                    data = json.load(f)
                lib_loaded = data["context"].get("libprotobuf", "")
                first = lib_loaded.split()[0] if lib_loaded else ""
                if not os.path.realpath(first).startswith(os.path.realpath(libdir) + os.sep):
                    die(f"{name}: the program loaded '{lib_loaded}', not the library in "
                        f"{libdir} (a libprotobuf of another soname?)")
                loaded[name] = lib_loaded
                for b in data["benchmarks"]:
                    if b.get("error_occurred") and (b["name"], name) not in skipped:
                        skipped.add((b["name"], name))
                        print(f"[ab] skipped {b['name']} ({name}): {b.get('error_message')}",
                              file=sys.stderr, flush=True)
                if merged[(name, r)] is None:
                    merged[(name, r)] = {"context": data["context"], "benchmarks": []}
                merged[(name, r)]["benchmarks"].extend(data["benchmarks"])
    os.remove(scratch)
    for (name, r), data in merged.items():
        with open(os.path.join(json_dir, f"{name}-round{r + 1}.json"), "w") as f:
            json.dump(data, f, indent=1)
    finished = time.time()
    run_info = {
        "libraries": [{"name": name, "dir": libdir, "bench": bench,
                       "bench_sha256": sha256(in_round(bench, 0)), "loaded": loaded[name]}
                      for name, libdir, bench in libs],
        "rounds": args.rounds,
        "per_case": args.per_case,
        "min_time": args.min_time,
        "filter": args.filter,
        "only": {name: regex.pattern for name, regex in only.items()},
        "cases": len(cases),
        "groups": len(groups),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(started)),
        "seconds": round(finished - started - lock_wait, 1),
        "lock_wait_seconds": round(lock_wait, 1),
    }
    with open(os.path.join(args.out, "run.json"), "w") as f:
        json.dump(run_info, f, indent=1)
    waited = f" (of which {clock(lock_wait)} waiting for {args.lock})" if lock else ""
    print(f"[ab] {total} runs in {clock(finished - started)}{waited}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
