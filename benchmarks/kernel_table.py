#!/usr/bin/env python3
"""Markdown tables of kernels_bench JSON: ns per item for each level, and
each level's speed-up over scalar, per case and size."""

import json
import sys
from collections import OrderedDict


def main():
    with open(sys.argv[1]) as f:
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
    print("| kernel | data | N | " + " | ".join(f"{i} ns/item" for i in isas) +
          " | " + " | ".join(f"{i} vs scalar" for i in isas[1:]) + " |")
    print("|" + "---|" * (3 + 2 * len(isas) - 1))
    for (family, shape, n), by_isa in rows.items():
        cells = [f"{by_isa[i]:.3f}" if i in by_isa else "-" for i in isas]
        ratios = [f"{by_isa['scalar'] / by_isa[i]:.2f}x" if i in by_isa else "-"
                  for i in isas[1:]]
        print(f"| {family} | {shape} | {n} | " + " | ".join(cells + ratios) + " |")


if __name__ == "__main__":
    main()
