#!/usr/bin/env python3
"""``kdump spark size-report`` on local[1] and local[2] against the local ``kdump
size-report``, and what starting Spark costs.

    .venv/bin/python bench/spark_bench.py              # ~300 MB of segments, 3 rounds
    .venv/bin/python bench/spark_bench.py --rounds 5 --json bench/data/spark/results.json

The data (bench/data/spark/, git-ignored) is written once by the project's encoder
(tests/writer.py big_segment): four 60 MB uncompressed partitions and two lz4 ones of
about the same record count (100 records of 70-byte values per batch), a log dir of
six partitions.

Figures:

* end to end: each command as a whole process, as a user runs it (Spark's include JVM
  and session start-up);
* start-up: ``kdump spark size-report`` of an empty log dir (JVM, session, stop);
* steady state: the size-report job alone in a warm in-process session (one warm-up
  run first, so Python workers are up): the rate executors sustain once running,
  the figure that scales with executors.

Commands run in rounds (one of each per round) so the load of a shared machine falls
alike on all of them; the median is reported.  Every Spark output is checked against
the local command's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "spark"
LOGDIR = DATA / "logdir"
EMPTY = DATA / "empty-logdir"
MB = 1 << 20

#: partition dir -> (target bytes, codec)
PARTITIONS = {
    "bench-0": (60_000_000, "none"),
    "bench-1": (60_000_000, "none"),
    "bench-2": (60_000_000, "none"),
    "bench-3": (60_000_000, "none"),
    "bench-4": (11_000_000, "lz4"),
    "bench-5": (11_000_000, "lz4"),
}
RECORDS_PER_BATCH = 100
VALUE_SIZE = 70


def ensure_data() -> int:
    """Write the log dir once; its total bytes."""
    sys.path.append(str(ROOT))  # for tests.support: the encoder and its fixtures
    from tests.support import writer

    meta = DATA / "params.json"
    want = {"partitions": PARTITIONS, "records_per_batch": RECORDS_PER_BATCH,
            "value_size": VALUE_SIZE}
    if not (meta.is_file() and json.loads(meta.read_text()) == json.loads(json.dumps(want))):
        import shutil

        shutil.rmtree(LOGDIR, ignore_errors=True)
        LOGDIR.mkdir(parents=True)
        for name, (target, codec) in PARTITIONS.items():
            print(f"bench: writing {name} ({target // 1_000_000} MB, {codec}) ...",
                  file=sys.stderr, flush=True)
            writer.big_segment(LOGDIR / name, target, records_per_batch=RECORDS_PER_BATCH,
                               value_size=VALUE_SIZE,
                               codec={"none": writer.NONE, "lz4": writer.LZ4}[codec])
        meta.write_text(json.dumps(want))
    EMPTY.mkdir(parents=True, exist_ok=True)
    return sum(p.stat().st_size for p in LOGDIR.rglob("*") if p.is_file())


def kdump_cmd() -> list[str]:
    script = Path(sys.executable).parent / "kdump"
    return [str(script)] if script.exists() else [sys.executable, "-m", "kdump"]


def timed(cmd: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0 or (p.stderr and "spark" in cmd):
        raise SystemExit(f"bench: {' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    return wall, p.stdout


def end_to_end(rounds: int) -> dict[str, list[float]]:
    k = kdump_cmd()
    cmds = {
        "local": [*k, "size-report", str(LOGDIR), "--format", "json"],
        "spark local[1]": [*k, "spark", "size-report", "--master", "local[1]", str(LOGDIR),
                           "--format", "json"],
        "spark local[2]": [*k, "spark", "size-report", "--master", "local[2]", str(LOGDIR),
                           "--format", "json"],
        "start-up (empty log dir, local[1])": [*k, "spark", "size-report", "--master",
                                               "local[1]", str(EMPTY), "--format", "json"],
    }
    times: dict[str, list[float]] = {name: [] for name in cmds}
    reference = None
    for r in range(rounds):
        for name, cmd in cmds.items():
            wall, out = timed(cmd)
            times[name].append(wall)
            if name == "local":
                reference = out
            elif "start-up" not in name and out != reference:
                raise SystemExit(f"bench: {name} output differs from the local command's")
            print(f"bench: round {r + 1} {name}: {wall:.2f} s", file=sys.stderr, flush=True)
    return times


def steady_state(rounds: int) -> dict[str, Any]:
    """The size-report job alone, in a warm in-process session, per master."""
    code = r"""
import json, sys, time
sys.path.insert(0, sys.argv[3])
from kdump.ops.size_report import SizeOptions
from kdump.render.jsonl import JsonRenderer
from kdump.spark.jobs import size_report
from kdump.spark.session import start
import io
t0 = time.perf_counter()
ks = start(sys.argv[1])
started = time.perf_counter() - t0
opts = SizeOptions()
runs = []
for i in range(int(sys.argv[2]) + 1):
    t = time.perf_counter()
    out = io.StringIO()
    r = JsonRenderer(out)
    for item in size_report(ks, [sys.argv[4]], opts):
        r.emit(item)
    runs.append(time.perf_counter() - t)
t = time.perf_counter()
ks.stop()
print(json.dumps({"start": started, "first_job": runs[0], "jobs": runs[1:],
                  "stop": time.perf_counter() - t, "out": out.getvalue()}))
"""
    res = {}
    for master in ("local[1]", "local[2]"):
        p = subprocess.run([sys.executable, "-c", code, master, str(rounds), str(ROOT),
                            str(LOGDIR)], capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"bench: steady state on {master} failed: {p.stderr[-2000:]}")
        res[master] = json.loads(p.stdout)
        print(f"bench: steady state {master}: {res[master]['jobs']}", file=sys.stderr, flush=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args()
    total = ensure_data()
    load0 = os.getloadavg()
    e2e = end_to_end(args.rounds)
    steady = steady_state(args.rounds)
    load1 = os.getloadavg()
    local_ref = subprocess.run([*kdump_cmd(), "size-report", str(LOGDIR), "--format", "json"],
                               capture_output=True, text=True).stdout
    for master, r in steady.items():
        if r.pop("out") != local_ref:
            raise SystemExit(f"bench: steady-state output on {master} differs")
    mbs = total / MB
    med = {k: statistics.median(v) for k, v in e2e.items()}
    print(f"\n{mbs:.0f} MiB in {len(PARTITIONS)} segments; {os.cpu_count()} cores "
          f"({platform.processor() or platform.machine()}); load average "
          f"{load0[0]:.1f} at start, {load1[0]:.1f} at end; median of {args.rounds}\n")
    print("| command (whole process) | seconds | MiB/s |")
    print("|---|---:|---:|")
    for name, t in med.items():
        rate = "" if "start-up" in name else f"{mbs / t:.0f}"
        print(f"| {name} | {t:.2f} | {rate} |")
    print("\n| steady state (warm session) | session start s | first job s | job s | MiB/s |")
    print("|---|---:|---:|---:|---:|")
    for master, r in steady.items():
        job = statistics.median(r["jobs"])
        print(f"| spark {master} | {r['start']:.1f} | {r['first_job']:.2f} | {job:.2f} | "
              f"{mbs / job:.0f} |")
    local = med["local"]
    print(f"\n| local size-report | {local:.2f} s | {mbs / local:.0f} MiB/s |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"mib": mbs, "cores": os.cpu_count(),
                                         "load": [load0, load1], "end_to_end": e2e,
                                         "steady": steady}, indent=1))


if __name__ == "__main__":
    main()
