#!/usr/bin/env python3
"""kdump's record paths beside their peers and their floor (issue 33, part 2).

    .venv/bin/python bench/records_bench.py              # 5 rounds (kafka-python: 1)
    .venv/bin/python bench/records_bench.py --rounds 7 --write-readme

On bench/run.py's segments (100 MB uncompressed, 1.14 M records; 18.8 MB lz4, 1.15 M
records), in paired rounds (each command once per round, in this order, so a shared
machine's load falls alike on all), whole processes with start-up:

- the deep scan: ``kdump size-report`` (no ``--jobs``, and ``--jobs 1``) against
  aiokafka's Cython reader and kafka-python's pure-Python one (bench/peers/scan.py:
  every record's key, value and headers, CRC checked) and the floor, a bare Python loop
  over the batch headers calling kdump's native record scan per batch
  (bench/peers/native_loop.py ``scan``: no framing checks, no output);
- the record path of ``kdump dump --print-data-log``, ``--format json`` and
  ``--format text`` (one process), against kafka-python + ``json.dumps``
  (bench/peers/kafka_python_dump.py) and the floors: the bare loop calling the native
  decoder per batch (``decode``: every Record built, nothing written) and the native
  JSON writer after it (``json``: the record lines written to stdout).

Peers run by bench/.venv's Python (bench/run.py makes it), kdump from its console
script with bytecode caches.  A ratio is the median of the rounds' ratios; records/s and
GB/s (stored bytes per second) are from the median wall time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from floor_bench import machine, timed  # noqa: E402
from run import PEERS, README, ensure_dataset, kdump_cmd, log_of, peer_python  # noqa: E402
from startup_bench import child_env  # noqa: E402

BEGIN, END = "<!-- records-figures:begin -->", "<!-- records-figures:end -->"
RECORDS = {"u100": 1_144_700, "lz4": 1_147_200}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--slow-rounds", type=int, default=1, help="rounds of kafka-python")
    ap.add_argument("--write-readme", action="store_true")
    ap.add_argument("--baseline", metavar="KDUMP",
                    help="another tree's kdump console script (e.g. /work/main/.venv/bin/kdump):"
                    " its size-report --jobs 1 and dumps run in the same rounds, as 'before'")
    args = ap.parse_args(argv)
    parts = {n: ensure_dataset(n) for n in ("u100", "lz4")}
    u100, lz4 = str(log_of("u100")), str(log_of("lz4"))
    sizes = {"u100": os.path.getsize(u100), "lz4": os.path.getsize(lz4)}
    py, kd, me = peer_python(), kdump_cmd(), sys.executable
    native = str(PEERS / "native_loop.py")
    scan = str(PEERS / "scan.py")
    cases: dict[str, tuple[list[str], str, bool]] = {  # name: (argv, data, slow)
        "aio": ([py, scan, "aiokafka", u100], "u100", False),
        "kp": ([py, scan, "kafka", u100], "u100", True),
        "floor_scan": ([me, native, "scan", u100], "u100", False),
        "size": ([*kd, "size-report", "--format", "json", str(parts["u100"])], "u100", False),
        "size_j1": ([*kd, "size-report", "--jobs", "1", "--format", "json", str(parts["u100"])],
                    "u100", False),
        "aio_lz4": ([py, scan, "aiokafka", lz4], "lz4", False),
        "kp_lz4": ([py, scan, "kafka", lz4], "lz4", True),
        "floor_scan_lz4": ([me, native, "scan", lz4], "lz4", False),
        "size_lz4": ([*kd, "size-report", "--format", "json", str(parts["lz4"])], "lz4", False),
        "floor_decode": ([me, native, "decode", u100], "u100", False),
        "floor_json": ([me, native, "json", u100], "u100", False),
        "kp_dump": ([py, str(PEERS / "kafka_python_dump.py"), u100], "u100", True),
        "dump_json": ([*kd, "dump", "--format", "json", "--print-data-log", u100], "u100",
                      False),
        "dump_text": ([*kd, "dump", "--format", "text", "--print-data-log", u100], "u100",
                      False),
    }
    if args.baseline:
        base = [args.baseline]
        cases["base_size_j1"] = ([*base, "size-report", "--jobs", "1", "--format", "json",
                                  str(parts["u100"])], "u100", False)
        cases["base_size_lz4"] = ([*base, "size-report", "--format", "json",
                                   str(parts["lz4"])], "lz4", False)
        cases["base_dump_json"] = ([*base, "dump", "--format", "json", "--print-data-log",
                                    u100], "u100", False)
        cases["base_dump_text"] = ([*base, "dump", "--format", "text", "--print-data-log",
                                    u100], "u100", False)
    env = child_env(True)
    for argv_, _, slow in cases.values():  # warm caches
        if not slow:
            timed(argv_, env)
    load0 = os.getloadavg()
    runs: dict[str, list[tuple[float, float, int]]] = {k: [] for k in cases}
    t0 = time.perf_counter()
    for r in range(args.rounds):
        for name, (argv_, _, slow) in cases.items():
            if slow and r >= args.slow_rounds:
                continue
            runs[name].append(timed(argv_, env))
        print(f"records_bench: round {r + 1}/{args.rounds}", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - t0
    load1 = os.getloadavg()

    def med(name: str, i: int = 0) -> float:
        return statistics.median(x[i] for x in runs[name])

    def ratio(a: str, b: str) -> float:
        pairs = list(zip(runs[a], runs[b], strict=False))
        return statistics.median(x[0] / y[0] for x, y in pairs)

    def row(what: str, name: str, *peers: str) -> str:
        data = cases[name][1]
        wall = med(name)
        rss = max(x[2] for x in runs[name]) / 1024
        vs = "; ".join(f"{ratio(name, p):.2f}x {p}" for p in peers)
        return (f"| {what} | {wall:.3f} s | {med(name, 1):.3f} s | "
                f"{RECORDS[data] / wall / 1e6:.2f} M/s | {sizes[data] / wall / 1e9:.2f} GB/s | "
                f"{rss:.0f} MB | {vs} |")

    lines = [
        f"Run of {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {machine()}; "
        f"{args.rounds} rounds (kafka-python {args.slow_rounds}), {elapsed:.0f} s, medians; "
        f"load average {load0[0]:.1f} before, {load1[0]:.1f} after.  Ratio: the row's wall "
        "time over the named row's, median of the rounds' ratios (below 1: faster).",
        "",
        "| command | wall | CPU | records/s | GB/s | peak RSS | ratio to |",
        "|---|---:|---:|---:|---:|---:|---|",
        row("floor `scan`: bare loop + native record scan, 100 MB", "floor_scan"),
        row("aiokafka (Cython) deep scan", "aio", "floor_scan"),
        row("kafka-python deep scan", "kp", "floor_scan"),
        row("`kdump size-report` (no `--jobs`)", "size", "floor_scan", "aio", "kp"),
        row("`kdump size-report --jobs 1`", "size_j1", "floor_scan", "aio", "kp"),
        row("floor `scan`, lz4 (18.8 MB)", "floor_scan_lz4"),
        row("aiokafka deep scan, lz4", "aio_lz4", "floor_scan_lz4"),
        row("kafka-python deep scan, lz4", "kp_lz4", "floor_scan_lz4"),
        row("`kdump size-report`, lz4", "size_lz4", "floor_scan_lz4", "aio_lz4", "kp_lz4"),
        row("floor `decode`: bare loop + native decoder (Record objects), 100 MB",
            "floor_decode"),
        row("floor `json`: + native JSON Lines writer, to stdout", "floor_json",
            "floor_decode"),
        row("kafka-python + json.dumps dump", "kp_dump", "floor_json"),
        row("`kdump dump --format json --print-data-log`", "dump_json", "floor_json",
            "floor_decode", "kp_dump"),
        row("`kdump dump --format text --print-data-log`", "dump_text", "floor_json",
            "floor_decode", "kp_dump"),
    ]
    if args.baseline:
        lines[0] += f"  Baseline (before): {args.baseline}, in the same rounds."
        lines += [
            row("before: `kdump size-report --jobs 1`", "base_size_j1", "floor_scan"),
            row("before: `kdump size-report`, lz4", "base_size_lz4", "floor_scan_lz4"),
            row("before: `kdump dump --format json --print-data-log`", "base_dump_json",
                "floor_json"),
            row("before: `kdump dump --format text --print-data-log`", "base_dump_text",
                "floor_json"),
            "",
            "After over before (median of the rounds' ratios): size-report --jobs 1 "
            f"{ratio('size_j1', 'base_size_j1'):.2f}x, size-report lz4 "
            f"{ratio('size_lz4', 'base_size_lz4'):.2f}x"
            f"; dump json {ratio('dump_json', 'base_dump_json'):.2f}x; dump text "
            f"{ratio('dump_text', 'base_dump_text'):.2f}x.",
        ]
    text = "\n".join(lines)
    print(text)
    if args.write_readme:
        readme = README.read_text(encoding="utf-8")
        if BEGIN not in readme:
            readme += f"\n{BEGIN}\n{END}\n"
        a, b = readme.index(BEGIN) + len(BEGIN), readme.index(END)
        README.write_text(readme[:a] + "\n" + text + "\n" + readme[b:], encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
