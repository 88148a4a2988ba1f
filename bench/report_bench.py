#!/usr/bin/env python3
"""``kdump report`` against the separate commands whose work it does (issue 25).

    .venv/bin/python bench/report_bench.py [SIZE] [ROUNDS]     # default 200M, 3 rounds

Writes (once) ``bench/data/report-SIZE/``: one broker log dir holding a segment of SIZE
bytes (``tests/writer.py``'s ``big_segment``: 100-record batches, uncompressed).  Then,
in rounds (one run of each per round, so a shared machine's load falls alike on both):

- ``report``: ``kdump report DIR -o FILE -j 1``;
- ``separately``: what an operator would run to gather the same facts, one after the
  other, ``-j 1``: ``sha256sum`` of every file, ``verify-crc``, ``verify-index``,
  ``size-report``, ``lag`` (each ``--format json`` to /dev/null).

Prints the median wall time of each, their ratio, and the report's peak RSS
(``wait4``), which must stay bounded (one batch in memory), not grow with SIZE.
Target: the report within 1.5x the separate commands.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # for tests.support: the encoder and its fixtures

from tests.support import writer as w  # noqa: E402

DATA = ROOT / "bench" / "data"
KDUMP = str(Path(sys.executable).parent / "kdump")


def parse_size(s: str) -> int:
    s = s.strip().upper().rstrip("B").rstrip("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
    return int(s.rstrip("KMG")) * mult


def timed(cmds: list[list[str]]) -> tuple[float, int]:
    """Wall seconds of the commands run one after the other, and the largest peak RSS."""
    t0 = time.monotonic()
    peak = 0
    for cmd in cmds:
        with open(os.devnull, "w") as null:
            p = subprocess.Popen(cmd, stdout=null, stderr=null)
            _, status, ru = os.wait4(p.pid, 0)
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            raise SystemExit(f"{cmd} failed")
        peak = max(peak, ru.ru_maxrss)
    return time.monotonic() - t0, peak


def main() -> int:
    size_arg = sys.argv[1] if len(sys.argv) > 1 else "200M"
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    d = DATA / f"report-{size_arg}"
    logdir = d / "logdir"
    if not logdir.exists():
        w.big_segment(logdir / "big-0", parse_size(size_arg))
    files = sorted(str(p) for p in logdir.rglob("*") if p.is_file())
    out = Path(tempfile.mkdtemp()) / "report.html"
    report = [[KDUMP, "report", str(logdir), "-o", str(out), "-j", "1"]]
    separately = [["sha256sum", *files]] + [
        [KDUMP, c, str(logdir), "--format", "json", *(["-j", "1"] if c != "lag" else [])]
        for c in ("verify-crc", "verify-index", "size-report", "lag")]
    env_wall: dict[str, list[float]] = {"report": [], "separately": []}
    peaks: dict[str, int] = {"report": 0, "separately": 0}
    for _ in range(rounds):
        for name, cmds in (("report", report), ("separately", separately)):
            wall, peak = timed(cmds)
            env_wall[name].append(wall)
            peaks[name] = max(peaks[name], peak)
    rep = statistics.median(env_wall["report"])
    sep = statistics.median(env_wall["separately"])
    total = sum(os.path.getsize(f) for f in files)
    print(f"input: {total / 1e6:.1f} MB in {len(files)} files, {rounds} rounds")
    print(f"report      {rep:7.2f} s   peak RSS {peaks['report'] / 1024:6.1f} MB")
    print(f"separately  {sep:7.2f} s   peak RSS {peaks['separately'] / 1024:6.1f} MB")
    print(f"ratio report / separately: {rep / sep:.2f} (target <= 1.5)")
    return 0 if rep / sep <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
