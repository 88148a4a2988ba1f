"""``kdump export``: throughput and peak memory against ``kdump dump --format json`` and
``kdump spark export``, in one run.

    .venv/bin/python bench/export_bench.py                     # the 1 GiB segment, 1 round
    .venv/bin/python bench/export_bench.py --size 256M --rounds 3
    .venv/bin/python bench/export_bench.py --logdir DIR        # a log dir you already have
    .venv/bin/python bench/export_bench.py --no-spark          # without the Spark case

The segment is written once (``tests/writer.py``'s ``big_segment``: batches of 100
records, keys ``k<offset>``, 60-byte values, uncompressed) into ``bench/data/``; a
second log dir holds the same segment hard-linked into 4 partitions (no copy), for
``--jobs`` over partitions.  Each round runs, one after the other so that the load of a
shared machine falls alike on all of them:

* ``kdump dump --format json --print-data-log SEGMENT > FILE`` (the JSON Lines a user
  would otherwise load);
* ``kdump export SEGMENT -o DIR --jobs 1`` (Parquet), and ``--jobs 2`` (the segment's
  256 MiB ranges in two workers);
* ``kdump spark export SEGMENT --output DIR --master local[2]`` (unless ``--no-spark``);
* ``kdump export PARTS -o DIR --jobs 1`` and ``--jobs 2`` (4 partitions).

Every figure is a whole process (start-up included): median wall time, median CPU time
(user + system of the process and its workers, from ``wait4``), the largest peak RSS
(of the process or any of its workers), records/s and MB/s of segment read.  Outputs go
to a scratch directory beside the data and are removed after each run.  Exits 1 when
``export --jobs 1`` takes longer (wall) than ``dump --format json`` (the issue's target).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data"
BIN = Path(sys.executable).parent
MB = 1 << 20


def size_of(text: str) -> int:
    units = {"K": 10, "M": 20, "G": 30}
    t = text.strip().upper().rstrip("B").rstrip("I")
    return int(t[:-1]) << units[t[-1]] if t[-1] in units else int(t)


def ensure_segment(size: int) -> Path:
    """``bench/data/export-<size>/big-0``, written once."""
    root = DATA / f"export-{size // MB}m"
    part = root / "big-0"
    if (root / ".complete").exists():
        return root
    sys.path.append(str(ROOT))  # for tests.support: the encoder and its fixtures
    from tests.support import writer  # the project's own encoder

    shutil.rmtree(root, ignore_errors=True)
    print(f"bench: writing a {size // MB} MiB segment into {part} ...", file=sys.stderr,
          flush=True)
    writer.big_segment(part, size)
    (root / ".complete").write_text("")
    return root


def linked_partitions(logdir: Path, n: int = 4) -> Path:
    """The log dir's partitions hard-linked into ``n`` partitions of a new log dir."""
    root = logdir.parent / f"{logdir.name}-x{n}"
    if (root / ".complete").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    parts = [p for p in sorted(logdir.iterdir()) if p.is_dir()]
    for i in range(n):
        for p in parts:
            topic = p.name.rsplit("-", 1)[0]
            target = root / f"{topic}-{i}"
            target.mkdir(parents=True, exist_ok=True)
            for f in p.iterdir():
                os.link(f, target / f.name)
    (root / ".complete").write_text("")
    return root


@dataclass
class Case:
    key: str
    label: str
    argv: list[str]
    stdout_file: bool = False
    runs: list[tuple[float, float, int]] = field(default_factory=list)

    def run(self, scratch: Path) -> None:
        out = scratch / "out"
        shutil.rmtree(out, ignore_errors=True)
        argv = [a.replace("{out}", str(out)) for a in self.argv]
        sink = open(scratch / "dump.jsonl", "wb") if self.stdout_file else subprocess.DEVNULL
        env = dict(os.environ, KDUMP_NO_PROGRESS="1")
        try:
            t0 = time.perf_counter()
            p = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE, env=env)
            _, status, ru = os.wait4(p.pid, 0)
            wall = time.perf_counter() - t0
            err = p.stderr.read().decode("utf-8", "replace") if p.stderr else ""
        finally:
            if self.stdout_file:
                sink.close()  # type: ignore[union-attr]
        rc = os.waitstatus_to_exitcode(status)
        if rc != 0:
            raise SystemExit(f"bench: {' '.join(argv)} exited {rc}:\n{err[-2000:]}")
        self.runs.append((wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss))
        shutil.rmtree(out, ignore_errors=True)
        (scratch / "dump.jsonl").unlink(missing_ok=True)

    @property
    def wall(self) -> float:
        return statistics.median(r[0] for r in self.runs)

    @property
    def cpu(self) -> float:
        return statistics.median(r[1] for r in self.runs)

    @property
    def rss_mb(self) -> float:
        return max(r[2] for r in self.runs) / 1024


def count_records(logdir: Path) -> int:
    """Records in the log dir (from its segments' batch headers, via size-report)."""
    import json

    r = subprocess.run([str(BIN / "kdump"), "size-report", "--by", "topic", "--format", "json",
                        str(logdir)], capture_output=True, text=True, check=True)
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    return sum(o.get("records", 0) for o in rows if o.get("type") == "topic")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="1G", help="segment size (default 1G)")
    ap.add_argument("--logdir", type=Path, help="an existing log dir instead")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--no-spark", action="store_true")
    ap.add_argument("--no-jobs", action="store_true", help="skip the 4-partition --jobs cases")
    args = ap.parse_args()
    logdir = args.logdir or ensure_segment(size_of(args.size))
    seg_bytes = sum(f.stat().st_size for f in logdir.rglob("*.log"))
    records = count_records(logdir)
    kdump = str(BIN / "kdump")
    cases = [
        Case("dump", "dump --format json --print-data-log > file",
             [kdump, "dump", "--format", "json", "--print-data-log", str(logdir)],
             stdout_file=True),
        Case("export", "export --jobs 1 (Parquet)",
             [kdump, "export", str(logdir), "-o", "{out}", "--jobs", "1"]),
    ]
    cases.append(Case("export2", "export --jobs 2 (Parquet; 256M ranges)",
                      [kdump, "export", str(logdir), "-o", "{out}", "--jobs", "2"]))
    if not args.no_spark:
        cases.append(Case("spark", "spark export --master local[2]",
                          [kdump, "spark", "export", str(logdir), "--output", "{out}",
                           "--master", "local[2]"]))
    parts: Path | None = None
    if not args.no_jobs:
        parts = linked_partitions(logdir)
        for jobs in ("1", "2"):
            cases.append(Case(f"parts{jobs}", f"export --jobs {jobs}, 4 partitions",
                              [kdump, "export", str(parts), "-o", "{out}", "--jobs", jobs]))
    scratch = Path(tempfile.mkdtemp(prefix="export-bench-", dir=DATA if DATA.is_dir() else None))
    try:
        for r in range(args.rounds):
            for c in cases:
                c.run(scratch)
                print(f"bench: round {r + 1}/{args.rounds} {c.label}: {c.runs[-1][0]:.1f} s",
                      file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"input: {logdir} ({seg_bytes / MB:.0f} MiB of segments, {records:,} records); "
          f"{args.rounds} round(s); load average before: {os.getloadavg()[0]:.1f}")
    print()
    print("| command | wall s | CPU s | peak RSS MB | records/s | MB/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for c in cases:
        n, b = (records, seg_bytes) if not c.key.startswith("parts") else (4 * records,
                                                                            4 * seg_bytes)
        print(f"| `kdump {c.label}` | {c.wall:.1f} | {c.cpu:.1f} | {c.rss_mb:.0f} | "
              f"{n / c.wall:,.0f} | {b / MB / c.wall:.1f} |")
    by = {c.key: c for c in cases}
    print()
    print(f"export / dump --format json, wall: {by['export'].wall / by['dump'].wall:.2f}; "
          f"CPU: {by['export'].cpu / by['dump'].cpu:.2f}")
    print(f"export --jobs 2 / dump --format json, wall: "
          f"{by['export2'].wall / by['dump'].wall:.2f}")
    if "spark" in by:
        print(f"spark export / export, wall: {by['spark'].wall / by['export'].wall:.2f}")
    if parts is not None:
        print(f"--jobs 2 / --jobs 1 over 4 partitions, speed-up: "
              f"{by['parts1'].wall / by['parts2'].wall:.2f}")
    return 0 if by["export"].wall <= by["dump"].wall else 1


if __name__ == "__main__":
    sys.exit(main())
