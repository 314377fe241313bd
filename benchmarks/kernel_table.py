#!/usr/bin/env python3
"""Markdown tables of kernels_bench JSON: ns per item for each level, and
each level's speed-up over scalar, per case and size.

With --slower-than-scalar TOLERANCE it prints instead the cases where a
level took more than (1 + TOLERANCE) times scalar's time, and exits 1 if
there is one: the check that no kernel loses to scalar at any N. Run
kernels_bench with --benchmark_repetitions and
--benchmark_enable_random_interleaving for it, so that each case's levels
are measured across the same stretch of the host's drift (medians)."""

import argparse
import json
import sys
from collections import OrderedDict

LEVELS = ("scalar", "sse4", "avx2", "avx512")  # the others are anchors


def read_rows(path):
    with open(path) as f:
        data = json.load(f)
    rows = OrderedDict()
    isas = []
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        family, shape, isa, n = b["run_name"].split("/") if "run_name" in b else b["name"].split("/")
        if isa not in isas:
            isas.append(isa)
        ns_per_item = 1e9 / b["items_per_second"]
        rows.setdefault((family, shape, n), {})[isa] = ns_per_item
    # The levels in their order, the anchors after them, whatever order the
    # runs came in (--benchmark_enable_random_interleaving shuffles them).
    isas.sort(key=lambda i: LEVELS.index(i) if i in LEVELS else len(LEVELS))
    return rows, isas


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json")
    parser.add_argument("--slower-than-scalar", type=float, metavar="TOLERANCE")
    args = parser.parse_args()
    rows, isas = read_rows(args.json)
    if args.slower_than_scalar is not None:
        slower = 0
        for (family, shape, n), by_isa in rows.items():
            for isa in LEVELS[1:]:
                if isa in by_isa and by_isa[isa] > by_isa["scalar"] * (1 + args.slower_than_scalar):
                    slower += 1
                    print(f"{family}/{shape}/{n}: {isa} {by_isa[isa] * int(n):.2f} ns, "
                          f"scalar {by_isa['scalar'] * int(n):.2f} ns "
                          f"({by_isa[isa] / by_isa['scalar']:.3f}x)")
        print(f"{slower} slower than scalar by more than {args.slower_than_scalar:.0%}")
        return 1 if slower else 0
    print("| kernel | data | N | " + " | ".join(f"{i} ns/item" for i in isas) +
          " | " + " | ".join(f"{i} vs scalar" for i in isas[1:]) + " |")
    print("|" + "---|" * (3 + 2 * len(isas) - 1))
    for (family, shape, n), by_isa in rows.items():
        cells = [f"{by_isa[i]:.3f}" if i in by_isa else "-" for i in isas]
        ratios = [f"{by_isa['scalar'] / by_isa[i]:.2f}x" if i in by_isa and "scalar" in by_isa else "-"
                  for i in isas[1:]]
        print(f"| {family} | {shape} | {n} | " + " | ".join(cells + ratios) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
