"""The A/B report's plots (PNG, matplotlib), from results.json's cases.

write_all(cases, names, folder) -> [(title, path)], every plot written even
when the run had none of its cases (it then says so), so that a report's
structure does not depend on the cases it ran.
"""

import os

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TYPES = ["uint32", "uint64", "int32", "int64", "sint32", "sint64", "bool", "enum",
         "fixed32", "fixed64"]
VALUES = ["lt128", "lt16384", "rand", "neg"]
VALUE_LABELS = {"lt128": "< 128", "lt16384": "< 16384", "rand": "random", "neg": "negative"}
COLORS = {"lt128": "tab:blue", "lt16384": "tab:orange", "rand": "tab:green",
          "neg": "tab:red", "ascii": "tab:blue", "2byte": "tab:orange", "mixed": "tab:green"}
STYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "v", "D"]
# The varint-vs-fixed plot: the series of the first seed's table, and more.
PENALTY_SERIES = [("uint32", "lt128"), ("uint32", "lt16384"), ("uint32", "rand"),
                  ("int32", "rand"), ("int32", "neg"), ("sint32", "rand"),
                  ("uint64", "lt128"), ("uint64", "rand"), ("int64", "neg")]


def packed(cases):
    """{(op, type, values): {n: case}}"""
    out = {}
    for case in cases:
        parts = case.split("/")
        if parts[0] == "packed" and len(parts) == 5:
            out.setdefault(tuple(parts[1:4]), {})[int(parts[4])] = case
    return out


def lib(cases, case, name):
    return cases.get(case, {}).get("libraries", {}).get(name, {})


def empty(ax, text="no case of this kind ran"):
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes,
            color="gray")


def side_by_side(title):
    """A figure of two panels, one per op or family."""
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    fig.suptitle(title)
    return fig, axes


def finish(ax, drawn, xlabel, ylabel=None, fontsize=7):
    """A legend and axis labels on a panel that has lines, else a note."""
    if not drawn:
        empty(ax)
        return
    ax.legend(fontsize=fontsize)
    ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)


def save(fig, folder, filename, title, written):
    path = os.path.join(folder, filename)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    written.append((title, path))


def type_grid(title):
    fig, axes = plt.subplots(2, 5, figsize=(18, 7.5), sharex=True)
    fig.suptitle(title)
    return fig, dict(zip(TYPES, axes.flat))


def speedup_plot(cases, names, by_series, op, folder, written):
    title = f"Packed {op}: speed-up over {names[0]} by N (log-log; above 1 = faster)"
    fig, axes = type_grid(title)
    for typ, ax in axes.items():
        ax.set_title(typ)
        ax.set_xscale("log")
        ax.set_yscale("log", base=2)
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda y, _: f"{y:g}x"))
        ax.axhline(1.0, color="gray", linewidth=0.8)
        drawn = False
        for li, name in enumerate(names[1:]):
            for values in VALUES:
                series = by_series.get((op, typ, values))
                if not series:
                    continue
                pts = [(n, cases[c]["speedup"].get(name)) for n, c in sorted(series.items())]
                pts = [(n, r) for n, r in pts if r]
                if not pts:
                    continue
                ax.plot(*zip(*pts), STYLES[li % 4], marker=MARKERS[li % 5], markersize=3,
                        color=COLORS[values],
                        label=f"{VALUE_LABELS[values]}" + (f" ({name})" if len(names) > 2 else ""))
                drawn = True
        finish(ax, drawn, "N values")
    save(fig, folder, f"packed-{op}-speedup.png", title, written)


def ns_plot(cases, names, by_series, op, folder, written):
    title = f"Packed {op}: ns per value by N (log-log; line style = library)"
    fig, axes = type_grid(title)
    for typ, ax in axes.items():
        ax.set_title(typ)
        ax.set_xscale("log")
        ax.set_yscale("log")
        drawn = False
        for li, name in enumerate(names):
            for values in VALUES:
                series = by_series.get((op, typ, values))
                if not series:
                    continue
                pts = [(n, lib(cases, c, name).get("ns_per_value"))
                       for n, c in sorted(series.items())]
                pts = [(n, v) for n, v in pts if v]
                if not pts:
                    continue
                ax.plot(*zip(*pts), STYLES[li % 4], marker=MARKERS[li % 5], markersize=3,
                        color=COLORS[values], label=f"{VALUE_LABELS[values]} ({name})")
                drawn = True
        finish(ax, drawn, "N values", fontsize=6)
    save(fig, folder, f"packed-{op}-ns-per-value.png", title, written)


def penalty_plot(cases, names, by_series, folder, written):
    title = "Varint vs fixed: ns per value of the type / of fixed32 or fixed64, same library"
    fig, axes = plt.subplots(2, len(names), figsize=(6 * len(names), 8), squeeze=False,
                             sharey="row")
    fig.suptitle(title)
    cmap = plt.get_cmap("tab10")
    for row, op in enumerate(("parse", "serialize")):
        for col, name in enumerate(names):
            ax = axes[row][col]
            ax.set_title(f"{name}: {op}")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.axhline(1.0, color="gray", linewidth=0.8)
            drawn = False
            for si, (typ, values) in enumerate(PENALTY_SERIES):
                series = by_series.get((op, typ, values))
                floor = by_series.get((op, "fixed64" if "64" in typ else "fixed32", "rand"))
                if not series or not floor:
                    continue
                pts = []
                for n, c in sorted(series.items()):
                    v = lib(cases, c, name).get("ns_per_value")
                    f = lib(cases, floor.get(n, ""), name).get("ns_per_value")
                    if v and f:
                        pts.append((n, v / f))
                if pts:
                    ax.plot(*zip(*pts), marker="o", markersize=3, color=cmap(si),
                            label=f"{typ} {VALUE_LABELS[values]}")
                    drawn = True
            finish(ax, drawn, "N values")
    save(fig, folder, "varint-vs-fixed.png", title, written)


def string_plot(cases, names, folder, written):
    title = "Cost of the UTF-8 check: (string - bytes) ns per byte, by length"
    fig, axes = side_by_side(title)
    for ax, op in zip(axes, ("parse", "serialize")):
        ax.set_title(op)
        ax.set_xscale("log")
        ax.axhline(0.0, color="gray", linewidth=0.8)
        drawn = False
        for li, name in enumerate(names):
            for kind in ("ascii", "2byte", "mixed"):
                pts = []
                for case in cases:
                    parts = case.split("/")
                    if parts[:3] != ["string", op, kind]:
                        continue
                    length = int(parts[3])
                    s = lib(cases, case, name).get("median_ns")
                    b = lib(cases, f"bytes/{op}/{kind}/{length}", name).get("median_ns")
                    if s and b:
                        pts.append((length, (s - b) / length))
                if pts:
                    ax.plot(*zip(*sorted(pts)), STYLES[li % 4], marker=MARKERS[li % 5],
                            markersize=3, color=COLORS[kind], label=f"{kind} ({name})")
                    drawn = True
        finish(ax, drawn, "string length, bytes", "ns per byte")
    save(fig, folder, "string-check.png", title, written)


def messages_plot(cases, names, folder, written):
    title = "NumberBatch and UID list: ns per value by N (log-log)"
    fig, axes = side_by_side(title)
    for ax, family in zip(axes, ("numberbatch", "uidlist")):
        ax.set_title(family)
        ax.set_xscale("log")
        ax.set_yscale("log")
        drawn = False
        for li, name in enumerate(names):
            for oi, op in enumerate(("parse", "serialize")):
                pts = []
                for case in cases:
                    parts = case.split("/")
                    if parts[:2] == [family, op]:
                        v = lib(cases, case, name).get("ns_per_value")
                        if v:
                            pts.append((int(parts[2]), v))
                if pts:
                    ax.plot(*zip(*sorted(pts)), STYLES[li % 4], marker=MARKERS[li % 5],
                            markersize=3, color=plt.get_cmap("tab10")(oi),
                            label=f"{op} ({name})")
                    drawn = True
        finish(ax, drawn, "N values")
    save(fig, folder, "messages-ns-per-value.png", title, written)


def write_all(cases, names, folder):
    os.makedirs(folder, exist_ok=True)
    for f in os.listdir(folder):
        if f.endswith(".png"):
            os.remove(os.path.join(folder, f))
    by_series = packed(cases)
    written = []
    for op in ("parse", "serialize"):
        speedup_plot(cases, names, by_series, op, folder, written)
    for op in ("parse", "serialize"):
        ns_plot(cases, names, by_series, op, folder, written)
    penalty_plot(cases, names, by_series, folder, written)
    string_plot(cases, names, folder, written)
    messages_plot(cases, names, folder, written)
    return written
