#!/usr/bin/env python3
"""Checks an A/B report folder written by ci/ab.sh (ci/test-ab.sh runs it on
a --quick run of two cases): the report's sections and tables, its plots, the
JSON beside it, and that its numbers are the medians of google-benchmark's
JSON, computed here afresh.

Usage: tests/ab_report_test.py OUT_DIR [CASE...]
  CASE: names the run must have measured, and nothing else
"""

import glob
import json
import os
import re
import statistics
import sys
import unittest

OUT = None
EXPECTED = []
TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def read_tables(text, heading):
    """The tables under a heading (up to the next heading of its level or
    above), each a list of {column: cell}."""
    level = heading.split(" ")[0]
    lines = text.splitlines()
    start = lines.index(heading)
    tables, current = [], None
    for line in lines[start + 1:]:
        if line.startswith("#") and len(line.split(" ")[0]) <= len(level):
            break
        if line.startswith("| "):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if current is None:
                current = {"header": cells, "rows": []}
                tables.append(current)
            elif not set(line) <= set("|-"):
                current["rows"].append(dict(zip(current["header"], cells)))
        elif current is not None and not line.startswith("|"):
            current = None
    return tables


def number(cell):
    """A number the report printed: '1,234', '61.20', '9.51x'."""
    return float(cell.replace(",", "").rstrip("x"))


def round_times_from_json(out):
    """{case: {lib: {round: time}}} from json/*-roundK.json."""
    result = {}
    for path in glob.glob(os.path.join(out, "json", "*-round*.json")):
        lib, k = re.match(r"(.+)-round(\d+)\.json$", os.path.basename(path)).groups()
        with open(path) as f:
            data = json.load(f)
        for b in data["benchmarks"]:
            if b.get("error_occurred"):
                continue
            result.setdefault(b["name"], {}).setdefault(lib, {})[int(k)] = \
                b["real_time"] * TO_NS[b["time_unit"]]
    return result


def medians_from_json(out):
    """{case: {lib: (median, min, max)}} from json/*-roundK.json."""
    return {case: {lib: (statistics.median(ts.values()), min(ts.values()), max(ts.values()))
                   for lib, ts in libs.items()}
            for case, libs in round_times_from_json(out).items()}


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(OUT, "report.md")) as f:
            cls.report = f.read()
        with open(os.path.join(OUT, "run.json")) as f:
            cls.run_info = json.load(f)
        cls.names = [lib["name"] for lib in cls.run_info["libraries"]]
        cls.medians = medians_from_json(OUT)

    def close(self, printed, value, what):
        # The report rounds to whole numbers from 1000 up, else to 4
        # significant digits: within half a unit of the last digit.
        self.assertLessEqual(abs(printed - value), max(abs(value) * 5.01e-4, 0.5001e-4),
                             f"{what}: report {printed}, JSON {value}")

    def test_sections(self):
        for heading in ("# protoaccel A/B report: stock vs accelerated libprotobuf",
                        "## Machine", "## Summary: parse, N = 10,000 values",
                        "## Libraries: one program, several libprotobuf builds",
                        "## Plots", "## All cases"):
            self.assertIn("\n" + heading + "\n", "\n" + self.report, heading)
        self.assertIn("kernel varint_decode:", self.report)  # the kernel per family

    def test_json_beside(self):
        for name in self.names:
            path = os.path.join(OUT, "json", f"{name}-round1.json")
            with open(path) as f:
                data = json.load(f)
            self.assertIn("context", data, path)
            self.assertTrue(data["benchmarks"], path)
            self.assertIn(os.path.realpath(self.run_info["libraries"][self.names.index(name)]["dir"]),
                          os.path.realpath(data["context"]["libprotobuf"].split()[0]))
        with open(os.path.join(OUT, "results.json")) as f:
            results = json.load(f)
        self.assertEqual(set(results["cases"]), set(self.medians))
        for case, libs in self.medians.items():
            for lib, (median, _, _) in libs.items():
                self.assertAlmostEqual(
                    results["cases"][case]["libraries"][lib]["median_ns"], median, delta=1e-6)

    def ran(self, case):
        """The libraries that ran CASE: all but those ab.py --only kept off it."""
        only = self.run_info.get("only", {})
        return [n for n in self.names if n not in only or re.search(only[n], case)]

    def test_cases(self):
        if EXPECTED:
            self.assertEqual(sorted(self.medians), sorted(EXPECTED))
        for case, libs in self.medians.items():
            self.assertEqual(sorted(libs), sorted(self.ran(case)), case)

    def test_plots(self):
        plots = re.findall(r"!\[[^\]]*\]\((plots/[^)]+\.png)\)", self.report)
        self.assertGreaterEqual(len(plots), 7)
        for plot in plots:
            path = os.path.join(OUT, plot)
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", path)
            self.assertGreater(os.path.getsize(path), 5000, path)

    def test_all_cases_table_is_the_json(self):
        (table,) = read_tables(self.report, "## All cases")
        rows = {row["case"].strip("`"): row for row in table["rows"]}
        self.assertEqual(set(rows), set(self.medians))
        base = self.names[0]
        for case, libs in self.medians.items():
            for lib, (median, lo, hi) in libs.items():
                m = re.fullmatch(r"([\d,.]+) \(([\d,.]+)\.\.([\d,.]+)\)", rows[case][f"{lib} ns/op"])
                self.assertIsNotNone(m, rows[case][f"{lib} ns/op"])
                self.close(number(m.group(1)), median, f"{case} {lib} median")
                self.close(number(m.group(2)), lo, f"{case} {lib} min")
                self.close(number(m.group(3)), hi, f"{case} {lib} max")
            for lib in self.names[1:]:
                if lib not in libs:
                    self.assertEqual(rows[case][f"{lib} ns/op"], "not run", case)
                    self.assertEqual(rows[case][f"{lib} speed-up"], "-", case)
                    continue
                ratio = libs[base][0] / libs[lib][0]
                self.assertAlmostEqual(number(rows[case][f"{lib} speed-up"]), ratio, delta=0.0051)

    def test_paired_table_is_the_json(self):
        heading = "## Paired speed-ups"
        if not self.run_info.get("per_case"):
            self.assertNotIn("\n" + heading + "\n", self.report)
            return
        (table,) = read_tables(self.report, heading)
        rows = {row["case"].strip("`"): row for row in table["rows"]}
        times = round_times_from_json(OUT)
        self.assertEqual(set(rows), set(times))
        base = self.names[0]
        for case, libs in times.items():
            for lib in self.names[1:]:
                cell = rows[case][f"{lib} paired speed-up"]
                if lib not in libs:
                    self.assertEqual(cell, "-", case)
                    continue
                self.assertEqual(sorted(libs[lib]), list(range(1, self.run_info["rounds"] + 1)))
                paired = statistics.median(libs[base][k] / libs[lib][k] for k in libs[base])
                self.assertAlmostEqual(number(cell), paired, delta=0.0051, msg=case)

    def test_summary_tables_are_the_json(self):
        for ops, heading in ((("parse",), "## Summary: parse, N = 10,000 values"),
                             (("serialize", "bytesize"),
                              "## Summary: serialize and size, N = 10,000 values")):
            headline = [c for c in self.medians
                        if c.endswith("/10000") and any(f"/{op}/" in c for op in ops)]
            if not headline:
                continue
            (table,) = read_tables(self.report, heading)
            self.assertTrue(table["rows"], heading)  # the headline cases that ran
            base = self.names[0]
            for row in table["rows"]:
                case = row["name"].strip("`")
                self.assertIn(case, headline)
                ran = self.ran(case)
                for lib in self.names:
                    self.assertEqual(f"{lib} ns/op" in row, lib in ran, f"{case} {lib}")
                for lib in ran:
                    self.close(number(row[f"{lib} ns/op"]), self.medians[case][lib][0], case)
                for lib in ran[1:]:
                    ratio = self.medians[case][base][0] / self.medians[case][lib][0]
                    self.assertAlmostEqual(number(row[f"{lib} speed-up"]), ratio, delta=0.0051)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    OUT, EXPECTED = sys.argv[1], sys.argv[2:]
    unittest.main(argv=sys.argv[:1], verbosity=2)
