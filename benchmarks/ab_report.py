#!/usr/bin/env python3
"""The A/B report: report.md, results.json and plots/*.png in --out, made from
the google-benchmark JSON that benchmarks/ab.py wrote there (json/*.json).

Per case and library: the median of the rounds' times (google-benchmark's
real_time, ns per operation) and their spread (min..max); the speed-up of a
library is the first library's median divided by its median. Where every
round ran both, also the paired speed-up: the median over rounds of the first
library's time divided by the library's, each round's two runs having been
close in time (ab.py --per-case). results.json holds these numbers for
programs; every number in report.md comes from it.
"""

import argparse
import glob
import json
import math
import os
import re
import statistics
import sys

SUMMARY_N = 10000
# The headline cases: (case name, label).
HEADLINE = [
    ("packed/parse/uint32/lt128", "packed uint32, values < 128"),
    ("packed/parse/uint32/lt16384", "packed uint32, values < 16384"),
    ("packed/parse/uint32/rand", "packed uint32, random"),
    ("packed/parse/uint64/lt128", "packed uint64, values < 128"),
    ("packed/parse/uint64/rand", "packed uint64, random"),
    ("packed/parse/int32/neg", "packed int32, negative"),
    ("packed/parse/int64/rand", "packed int64, random"),
    ("packed/parse/sint32/rand", "packed sint32, random"),
    ("packed/parse/sint64/neg", "packed sint64, negative"),
    ("packed/parse/bool/rand", "packed bool"),
    ("packed/parse/enum/lt128", "packed enum, values < 128"),
    ("packed/parse/fixed32/rand", "packed fixed32 (the floor)"),
    ("packed/parse/fixed64/rand", "packed fixed64 (the floor)"),
    ("numberbatch/parse", "NumberBatch (int64 + repeated uint32)"),
    ("uidlist/parse", "UID list (repeated uint64)"),
]
# Serialization: SerializeToString (which sizes the message first), and the
# size pass alone (ByteSizeLong).
HEADLINE_SERIALIZE = [
    ("packed/serialize/uint32/lt128", "packed uint32, values < 128"),
    ("packed/serialize/uint32/rand", "packed uint32, random"),
    ("packed/serialize/uint64/rand", "packed uint64, random"),
    ("packed/serialize/int32/neg", "packed int32, negative"),
    ("packed/serialize/sint32/rand", "packed sint32, random"),
    ("packed/serialize/fixed32/rand", "packed fixed32 (the floor)"),
    ("packed/bytesize/uint32/lt128", "ByteSizeLong, packed uint32, values < 128"),
    ("packed/bytesize/uint32/rand", "ByteSizeLong, packed uint32, random"),
    ("packed/bytesize/uint64/rand", "ByteSizeLong, packed uint64, random"),
    ("numberbatch/serialize", "NumberBatch (int64 + repeated uint32)"),
    ("uidlist/serialize", "UID list (repeated uint64)"),
]
VALUE_LABELS = {"lt128": "< 128", "lt16384": "< 16384", "rand": "random", "neg": "negative"}
TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def die(message):
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def fmt(x):
    """A time or size: whole numbers as such, others from 1000 up rounded to
    whole numbers, below 1000 to 4 significant digits."""
    if x is None:
        return "-"
    if abs(x) >= 1000 or x == int(x):
        return f"{x:,.0f}"
    if x == 0:
        return "0"
    digits = max(0, 3 - int(math.floor(math.log10(abs(x)))))
    return f"{x:.{digits}f}"


def fmt_ratio(x):
    return "-" if x is None else f"{x:.2f}x"


def load(out):
    with open(os.path.join(out, "run.json")) as f:
        run = json.load(f)
    names = [lib["name"] for lib in run["libraries"]]
    results = {}  # case -> lib -> {"by_round": {round: ns}, "entries": [...], "error": str}
    order = []
    contexts = {}
    for name in names:
        files = sorted(glob.glob(os.path.join(out, "json", f"{name}-round*.json")))
        if not files:
            die(f"no JSON of library {name} in {out}/json")
        for path in files:
            k = int(re.search(r"-round([0-9]+)\.json$", path).group(1))
            with open(path) as f:
                data = json.load(f)
            contexts.setdefault(name, data["context"])
            for b in data["benchmarks"]:
                if b.get("run_type", "iteration") != "iteration":
                    continue
                case = b["name"]
                if case not in results:
                    results[case] = {}
                    order.append(case)
                slot = results[case].setdefault(
                    name, {"by_round": {}, "entries": [], "error": None})
                if b.get("error_occurred"):
                    slot["error"] = b.get("error_message", "error")
                    continue
                slot["by_round"][k] = b["real_time"] * TO_NS[b.get("time_unit", "ns")]
                slot["entries"].append(b)
    return run, names, results, order, contexts


def summarize(names, results, order):
    """results.json's content: per case and library the median and spread."""
    cases = {}
    base = names[0]
    for case in order:
        row = {"libraries": {}, "speedup": {}, "paired_speedup": {}}
        for name in names:
            slot = results[case].get(name)
            if slot is None:
                continue
            times = list(slot["by_round"].values())
            if slot["error"] is not None or not times:
                row["libraries"][name] = {"skipped": slot["error"] or "no result"}
                continue
            first = slot["entries"][0]
            entry = {
                "median_ns": statistics.median(times),
                "min_ns": min(times),
                "max_ns": max(times),
                "rounds": len(times),
            }
            for counter, key in (("values", "values"), ("wire_bytes", "wire_bytes")):
                if counter in first:
                    entry[key] = first[counter]
            for counter, key in (("allocs/op", "allocs_per_op"),
                                 ("alloc_bytes/op", "alloc_bytes_per_op")):
                values = [e[counter] for e in slot["entries"] if counter in e]
                if values:
                    entry[key] = statistics.median(values)
            if entry.get("values"):
                entry["ns_per_value"] = entry["median_ns"] / entry["values"]
            row["libraries"][name] = entry
        b = row["libraries"].get(base, {}).get("median_ns")
        for name in names[1:]:
            m = row["libraries"].get(name, {}).get("median_ns")
            row["speedup"][name] = b / m if b and m else None
            row["paired_speedup"][name] = paired_speedup(results[case], base, name)
        cases[case] = row
    return cases


def paired_speedup(result, base, name):
    """The median over rounds of base's time / name's time, if every round
    that either ran has a time of both; else None."""
    a = result.get(base, {}).get("by_round", {})
    b = result.get(name, {}).get("by_round", {})
    if not a or a.keys() != b.keys():
        return None
    return statistics.median(a[k] / b[k] for k in a)


def split(case):
    return case.split("/")


class Report:
    def __init__(self, run, names, cases, contexts):
        self.run, self.names, self.cases, self.contexts = run, names, cases, contexts
        self.base = names[0]
        self.others = names[1:]
        self.lines = []

    def add(self, *lines):
        self.lines.extend(lines)

    def table(self, header, rows):
        if not rows:
            self.add("(no case of this kind ran)", "")
            return
        self.add("| " + " | ".join(header) + " |", "|" + "---|" * len(header))
        for row in rows:
            self.add("| " + " | ".join(row) + " |")
        self.add("")

    def lib(self, case, name):
        return self.cases.get(case, {}).get("libraries", {}).get(name, {})

    def median(self, case, name):
        return self.lib(case, name).get("median_ns")

    def speedup(self, case, name):
        return self.cases.get(case, {}).get("speedup", {}).get(name)

    def present(self, prefix):
        return [c for c in self.cases if c.startswith(prefix)]

    # ------------------------------------------------------------ sections --
    def header(self, machine):
        run = self.run
        self.add("# protoaccel A/B report: stock vs accelerated libprotobuf", "")
        waited = run.get("lock_wait_seconds", 0)
        waited = f" (and {waited / 60:.1f} waiting for the machine's lock)" if waited else ""
        self.add(f"Run {run['started']}, {run['seconds'] / 60:.1f} minutes of "
                 f"benchmarking{waited}: {run['cases']} cases, {run['rounds']} round"
                 f"{'s' if run['rounds'] > 1 else ''} per library, google-benchmark "
                 f"min_time {run['min_time']} s, case filter `{run['filter']}`" +
                 "".join(f"; **{name}** only on `{regex}`"
                         for name, regex in run.get("only", {}).items()) + ".", "")
        self.add("Times are google-benchmark's real time per operation, in ns: the "
                 "median of the rounds, with their spread (min..max) in the full "
                 "tables. Speed-up = median time of "
                 f"**{self.base}** / median time of the library (above 1: faster). "
                 "The libraries ran alternately, one process per "
                 f"{'case' if run.get('per_case') else 'group of cases'}, "
                 "their order rotating. Absolute times are noisy on shared machines; "
                 "the ratios, measured side by side, much less.", "")
        self.add("Files beside this report: `json/NAME-roundK.json` (google-benchmark's "
                 "JSON this report is made from), `results.json` (the medians and "
                 "speed-ups of every case), `run.json` (libraries and settings), "
                 "`plots/*.png`.", "")
        self.add("## Machine", "")
        self.add("```")
        self.add(*machine.rstrip("\n").splitlines())
        ctx = self.contexts.get(self.base, {})
        caches = ", ".join(f"L{c['level']} {c['type'].lower()} {c['size'] // 1024} KiB"
                           for c in ctx.get("caches", []))
        self.add(f"google-benchmark: {ctx.get('num_cpus', '?')} CPUs at "
                 f"{ctx.get('mhz_per_cpu', '?')} MHz; {caches}")
        loads = [self.contexts[n].get("load_avg") for n in self.names
                 if self.contexts.get(n, {}).get("load_avg")]
        if loads:
            self.add("load average at the first run: " +
                     ", ".join(f"{x:.2f}" for x in loads[0]))
        self.add("```", "")

    def libraries(self):
        self.add("## Libraries: one program, several libprotobuf builds", "")
        benches = {lib["bench_sha256"] for lib in self.run["libraries"]}
        headers = {self.contexts.get(n, {}).get("protobuf_headers", "?") for n in self.names}
        if len(benches) == 1:
            self.add("One `message_bench` binary (sha256 "
                     f"`{self.run['libraries'][0]['bench_sha256'][:16]}…`), compiled once "
                     f"against protobuf {', '.join(sorted(headers))} headers, ran against "
                     "every library below through `LD_LIBRARY_PATH`; the last column is "
                     "the libprotobuf the dynamic loader mapped, as the program itself "
                     "reported it. That the accelerated library runs this unchanged "
                     "program, with the same results, is the drop-in claim.", "")
        else:
            self.add("The first library's program, compiled against Debian's "
                     "protobuf headers, ran every library that shares its sha256 below "
                     "through `LD_LIBRARY_PATH`: those are drop-ins. The others ran a "
                     "build of `message_bench` of their own: **accel-headers** is "
                     "compiled against the accelerated library's headers, whose inline "
                     "packed writers call protoaccel's encoder for long fields (what a "
                     "program gets when it is rebuilt); a library of another release "
                     "is compared, not a drop-in.", "")
        rows = []
        for lib in self.run["libraries"]:
            ctx = self.contexts.get(lib["name"], {})
            rows.append([f"**{lib['name']}**", f"`{lib['dir']}`",
                         f"`{lib['bench_sha256'][:16]}…` (headers "
                         f"{ctx.get('protobuf_headers', '?')})", f"`{lib['loaded']}`"])
        self.table(["library", "LD_LIBRARY_PATH", "program", "loaded"], rows)

    def summary(self, title, headline):
        cases = [(f"{prefix}/{SUMMARY_N}", label) for prefix, label in headline
                 if f"{prefix}/{SUMMARY_N}" in self.cases]
        if not cases:
            return
        # Only the libraries that ran these cases (see ab.py --only).
        names = [n for n in self.names if any(self.median(c, n) for c, _ in cases)]
        others = [n for n in names if n != self.base]
        rows = []
        for case, label in cases:
            base = self.lib(case, self.base)
            wire = base.get("wire_bytes")
            values = base.get("values")
            row = [label, f"`{case}`",
                   fmt(wire / values) if wire and values else "-"]
            for name in names:
                row.append(fmt(self.median(case, name)))
            for name in others:
                row.append(fmt_ratio(self.speedup(case, name)))
            rows.append(row)
        self.add(f"## Summary: {title}, N = {SUMMARY_N:,} values", "")
        header = ["case", "name", "wire B/value"] + [f"{n} ns/op" for n in names] + \
                 [f"{n} speed-up" for n in others]
        self.table(header, rows)

    def means(self):
        for name in self.others:
            parts = []
            for family, label in (("realistic/parse/", "realistic parse"),
                                  ("realistic/serialize/", "realistic serialize"),
                                  ("packed/parse/", "packed parse"),
                                  ("packed/serialize/", "packed serialize"),
                                  ("string/parse/", "string parse"),
                                  ("dataset/parse/", "dataset parse")):
                ratios = [self.speedup(c, name) for c in self.present(family)]
                ratios = [r for r in ratios if r]
                if ratios:
                    g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
                    parts.append(f"{label} {g:.2f}x ({min(ratios):.2f}x..{max(ratios):.2f}x, "
                                 f"{len(ratios)} cases)")
            if parts:
                self.add(f"Geometric mean speed-up of **{name}** (min..max): " +
                         "; ".join(parts) + ".", "")

    def plots(self, plot_files):
        if not plot_files:
            return
        self.add("## Plots", "")
        for title, path in plot_files:
            self.add(f"### {title}", "", f"![{title}]({path})", "")

    def packed(self):
        cases = self.present("packed/")
        if not cases:
            return
        self.add("## Packed fields", "")
        self.add("One packed repeated field of N values in a proto3 message "
                 "(`tests/libprotobuf/corpus3.proto`, Packed3). Values: < 128 "
                 "(one byte each), < 16384 (two), random (over the type's 32 or "
                 "64 bits; for bool 0 or 1), negative (-1000..-1: ten bytes in "
                 "int32/int64/enum, one or two with ZigZag in sint32/sint64).", "")
        self.add("Where stock's time jumps as N grows (from about 64 KiB of values on), "
                 "its doubling growth of the field has passed glibc's mmap threshold "
                 "(128 KiB by default): each parse then maps fresh pages and faults "
                 "them in. accel reserves the final size once, from the count of "
                 "varints. Both are what a program gets with the default allocator.", "")
        series = []
        sizes = set()
        for case in cases:
            _, op, typ, values, n = split(case)
            if (typ, values) not in series:
                series.append((typ, values))
            sizes.add(int(n))
        sizes = sorted(sizes)
        for op in ("parse", "serialize"):
            for name in self.others:
                rows = []
                for typ, values in series:
                    row = [typ, VALUE_LABELS.get(values, values)]
                    any_cell = False
                    for n in sizes:
                        r = self.speedup(f"packed/{op}/{typ}/{values}/{n}", name)
                        any_cell |= r is not None
                        row.append(fmt_ratio(r))
                    if any_cell:
                        rows.append(row)
                if rows:
                    self.add(f"### {op.capitalize()}: speed-up of {name} over {self.base}, by N", "")
                    self.table(["type", "values"] + [f"{n:,}" for n in sizes], rows)
        self.penalty(series)

    def penalty(self, series):
        n = SUMMARY_N
        for op in ("parse", "serialize"):
            rows = []
            for typ, values in series:
                case = f"packed/{op}/{typ}/{values}/{n}"
                if case not in self.cases:
                    continue
                floor = "fixed64" if "64" in typ else "fixed32"
                fixed = f"packed/{op}/{floor}/rand/{n}"
                base = self.lib(case, self.base)
                row = [typ, VALUE_LABELS.get(values, values),
                       fmt(base["wire_bytes"] / base["values"])
                       if base.get("wire_bytes") and base.get("values") else "-"]
                for name in self.names:
                    v = self.lib(case, name).get("ns_per_value")
                    f = self.lib(fixed, name).get("ns_per_value")
                    row += [fmt(v), fmt_ratio(v / f) if v and f else "-"]
                rows.append(row)
            if rows:
                self.add(f"### {op.capitalize()}: ns per value and the varint-vs-fixed "
                         f"penalty at N = {n:,}", "")
                self.add("Penalty = ns per value of the type / ns per value of fixed32 "
                         "(32-bit types, bool, enum) or fixed64 (64-bit types), of the "
                         "same library.", "")
                header = ["type", "values", "wire B/value"]
                for name in self.names:
                    header += [f"{name} ns/value", f"{name} vs fixed"]
                self.table(header, rows)

    def messages(self):
        for family, title, text in (
                ("numberbatch", "NumberBatch",
                 "`message NumberBatch { int64 sequenceNumber = 1; repeated uint32 "
                 "values = 2; }` with N random uint32 values (the gRPC stream of "
                 "\"repeated uint32 vs repeated fixed32\")."),
                ("uidlist", "UID list",
                 "`message UidList { repeated uint64 uids = 1; }` with N random uint64 "
                 "values (Dgraph's posting lists).")):
            cases = self.present(family + "/")
            if not cases:
                continue
            self.add(f"## {title}", "", text + " Per operation: wire bytes, and the "
                     "allocations (operator new calls, libprotobuf's included) and "
                     "the bytes they asked for.", "")
            rows = []
            for case in cases:
                _, op, n = split(case)
                base = self.lib(case, self.base)
                row = [op, f"{int(n):,}", fmt(base.get("wire_bytes"))]
                for name in self.names:
                    lib = self.lib(case, name)
                    row += [fmt(lib.get("median_ns")), fmt(lib.get("ns_per_value")),
                            fmt(lib.get("allocs_per_op")), fmt(lib.get("alloc_bytes_per_op"))]
                for name in self.others:
                    row.append(fmt_ratio(self.speedup(case, name)))
                rows.append(row)
            header = ["op", "N", "wire bytes"]
            for name in self.names:
                header += [f"{name} ns/op", f"{name} ns/value", f"{name} allocs/op",
                           f"{name} alloc B/op"]
            header += [f"{n} speed-up" for n in self.others]
            self.table(header, rows)

    def strings(self):
        cases = self.present("string/") + self.present("bytes/")
        if not cases:
            return
        self.add("## Strings: `string` (UTF-8 checked) vs `bytes`", "")
        self.add("One field of the given length in bytes; ascii, 2byte (U+0080..U+07FF), "
                 "mixed (1- to 4-byte characters). Check = string time - bytes time, "
                 "the cost of the UTF-8 check (proto3 checks on parse and on serialize).", "")
        for op in ("parse", "serialize"):
            rows = []
            keys = []
            for case in cases:
                _, o, kind, length = split(case)
                if o == op and (kind, length) not in keys:
                    keys.append((kind, length))
            for kind, length in keys:
                s_case = f"string/{op}/{kind}/{length}"
                b_case = f"bytes/{op}/{kind}/{length}"
                row = [kind, f"{int(length):,}"]
                for name in self.names:
                    s, b = self.median(s_case, name), self.median(b_case, name)
                    row += [fmt(s), fmt(b), fmt(s - b) if s and b else "-"]
                for name in self.others:
                    row.append(fmt_ratio(self.speedup(s_case, name)))
                rows.append(row)
            if rows:
                self.add(f"### {op.capitalize()}", "")
                header = ["kind", "bytes"]
                for name in self.names:
                    header += [f"{name} string ns", f"{name} bytes ns", f"{name} check ns"]
                header += [f"{n} string speed-up" for n in self.others]
                self.table(header, rows)

    def batches(self, family, title, description, label):
        """A table of the cases of `family` (realistic/, dataset/): each a
        batch of messages, every one parsed or serialized once per op."""
        cases = self.present(family)
        if not cases:
            return
        self.add(f"## {title}", "")
        self.add(description, "")
        rows = []
        for case in cases:
            _, op, name_ = split(case)
            base = self.lib(case, self.base)
            if "median_ns" not in base:
                continue
            row = [name_, op, fmt(base.get("wire_bytes"))]
            for name in self.names:
                lib = self.lib(case, name)
                mbs = (lib["wire_bytes"] / lib["median_ns"] * 1e3
                       if lib.get("wire_bytes") and lib.get("median_ns") else None)
                row += [fmt(lib.get("median_ns")), fmt(mbs)]
            for name in self.others:
                row.append(fmt_ratio(self.speedup(case, name)))
            rows.append(row)
        header = [label, "op", "bytes"]
        for name in self.names:
            header += [f"{name} ns/op", f"{name} MB/s"]
        header += [f"{n} speed-up" for n in self.others]
        self.table(header, rows)

    def realistic(self):
        self.batches("realistic/", "Messages like the ones users send",
                     "`message_bench`'s realistic corpus (`benchmarks/ab_messages.proto`): "
                     "64 messages a batch, each parsed into a fresh message or serialized "
                     "once per operation. record: a proto3 record of a dozen scalars and "
                     "short strings; order: repeated sub-messages; labels: a "
                     "`map<string, string>`; request: an RPC request.", "message")

    def datasets(self):
        self.batches("dataset/", "Google's benchmark datasets",
                     "`benchmarks/datasets/` of Debian's protobuf source: every payload "
                     "parsed into a fresh message, or serialized, once per operation.",
                     "dataset")

    def skipped(self):
        rows = []
        for case, row in self.cases.items():
            for name, lib in row["libraries"].items():
                if "skipped" in lib:
                    rows.append([f"`{case}`", name, lib["skipped"]])
        if rows:
            self.add("## Skipped cases", "")
            self.table(["case", "library", "why"], rows)

    def paired(self):
        if not self.run.get("per_case"):
            return
        self.add("## Paired speed-ups", "")
        self.add("One process per case, the libraries' runs of a case side by side "
                 "in each round: the speed-up is the median over the rounds of "
                 f"**{self.base}**'s time / the library's time in that round (above 1: "
                 "faster), beside the ratio of medians.", "")
        header = ["case"] + [f"{n} {kind}" for n in self.others
                             for kind in ("paired speed-up", "ratio of medians")]
        rows = []
        for case, row in self.cases.items():
            cells = [f"`{case}`"]
            for name in self.others:
                cells += [fmt_ratio(row["paired_speedup"].get(name)),
                          fmt_ratio(row["speedup"].get(name))]
            rows.append(cells)
        self.table(header, rows)

    def all_cases(self):
        self.add("## All cases", "")
        self.add("Median ns per operation (min..max over the rounds).", "")
        header = ["case"] + [f"{n} ns/op" for n in self.names] + \
                 [f"{n} speed-up" for n in self.others] + \
                 [f"{n} allocs/op" for n in self.names]
        rows = []
        for case, row in self.cases.items():
            cells = [f"`{case}`"]
            for name in self.names:
                lib = row["libraries"].get(name, {})
                cells.append(f"{fmt(lib['median_ns'])} ({fmt(lib['min_ns'])}.."
                             f"{fmt(lib['max_ns'])})" if "median_ns" in lib else
                             "skipped" if "skipped" in lib else "not run")
            for name in self.others:
                cells.append(fmt_ratio(row["speedup"].get(name)))
            for name in self.names:
                cells.append(fmt(row["libraries"].get(name, {}).get("allocs_per_op")))
            rows.append(cells)
        self.table(header, rows)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", required=True, help="the folder ab.py wrote")
    p.add_argument("--machine", help="a text file describing the machine")
    p.add_argument("--kernels", help="markdown of the kernel benchmarks, to append")
    p.add_argument("--no-plots", action="store_true")
    args = p.parse_args()

    run, names, results, order, contexts = load(args.out)
    cases = summarize(names, results, order)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"base": names[0], "libraries": names, "unit": "ns per operation",
                   "cases": cases}, f, indent=1)

    plot_files = []
    if not args.no_plots:
        import ab_plots  # matplotlib: imported only here
        plot_files = ab_plots.write_all(cases, names, os.path.join(args.out, "plots"))
        plot_files = [(t, os.path.relpath(p, args.out)) for t, p in plot_files]

    machine = ""
    if args.machine:
        with open(args.machine) as f:
            machine = f.read()
    report = Report(run, names, cases, contexts)
    report.header(machine)
    report.realistic()
    report.datasets()
    report.summary("parse", HEADLINE)
    report.summary("serialize and size", HEADLINE_SERIALIZE)
    report.means()
    report.libraries()
    report.plots(plot_files)
    report.packed()
    report.messages()
    report.strings()
    report.skipped()
    report.paired()
    report.all_cases()
    if args.kernels and os.path.exists(args.kernels):
        report.add("## Kernels, alone", "")
        report.add("`kernels_bench`: each kernel family on every instruction set this CPU "
                   "has, ns per item (values, or bytes for count and UTF-8), and the "
                   "speed-up over scalar.", "")
        with open(args.kernels) as f:
            report.add(*f.read().rstrip("\n").splitlines())
    path = os.path.join(args.out, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(report.lines) + "\n")
    print(path)


if __name__ == "__main__":
    main()
