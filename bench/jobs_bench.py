"""``--jobs``: throughput of N worker processes against one, in one run.

    .venv/bin/python bench/jobs_bench.py            # --jobs 2 vs --jobs 1, 3 rounds
    .venv/bin/python bench/jobs_bench.py --jobs 4 --rounds 5

Writes (once) a log dir of many segments into ``bench/data/jobs-logdir`` with the
project's encoder (tests/writer.py): 4 partitions, each rolled into 8 MiB segments,
lz4 and zstd batches of 100 records alternating by partition (~200 MiB of segments in all).  Then
times ``kdump verify-crc`` and ``kdump size-report`` (deep, the defaults) over it with
``--jobs 1`` and ``--jobs N``, alternating in rounds so the load of a shared machine
falls alike on both, checks that both outputs are byte for byte the same, and prints
the median wall times and the ratio; then the named peer, a pure CPU loop run in one
process and split over N (the ratio this machine gives a perfectly parallel job).
Exits 1 when a ratio is under ``--target`` (1.7 by default, the issue's figure for 2
cores).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "jobs-logdir"
KDUMP = Path(sys.executable).with_name("kdump")
sys.path.insert(0, str(ROOT / "tests"))


def write_logdir(root: Path, partitions: int = 4, per_partition: int = 150 << 20) -> None:
    import writer as w

    done = root / ".complete"
    if done.exists():
        return
    root.mkdir(parents=True, exist_ok=True)
    alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789"
    for p in range(partitions):
        pw = w.PartitionWriter(root / f"events-{p}", segment_bytes=8 << 20)
        codec = w.LZ4 if p % 2 == 0 else w.ZSTD
        offset = size = 0
        while size < per_partition:
            recs = [w.Rec(key=b"k%d" % o, value=(alphabet * 4)[o % 36: o % 36 + 70] + b"%d" % o,
                          timestamp=w.TS0 + o)
                    for o in range(offset, offset + 100)]
            data = w.v2_batch(recs, base_offset=offset, codec=codec)
            pw.append(data)
            size += len(data) * 3  # compressed batches: aim at ~per_partition of records
            offset += 100
        pw.close()
    done.write_text("")


def run(cmd: list[str]) -> tuple[float, float, bytes]:
    """Wall seconds, CPU seconds (user + system of the process and its workers), stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False).stdout
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


#: the peer: the same CPU work in one process or split over N, nothing shared, no I/O and
#: no start-up beyond the interpreter's: what this machine gives a perfectly parallel job
_SPIN = "import sys\nn = int(sys.argv[1])\nx = 0\nfor i in range(n):\n    x ^= i * 7\n"


def ceiling(jobs: int, rounds: int, seconds: float) -> float:
    """The machine's own ratio: ``jobs`` processes each spinning 1/``jobs`` of a loop that
    takes ``seconds`` in one process, against that one process (medians of ``rounds``)."""
    probe = 2_000_000
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", _SPIN, str(probe)], check=True)
    n = int(probe * seconds / max(time.perf_counter() - t, 1e-3))
    one: list[float] = []
    many: list[float] = []
    for _ in range(rounds):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", _SPIN, str(n)], check=True)
        one.append(time.perf_counter() - t)
        t = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", _SPIN, str(n // jobs)])
                 for _ in range(jobs)]
        for p in procs:
            p.wait()
        many.append(time.perf_counter() - t)
    return statistics.median(one) / statistics.median(many)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--target", type=float, default=1.7)
    args = ap.parse_args(argv)
    write_logdir(DATA)
    segs = sorted(DATA.glob("*/*.log"))
    total = sum(p.stat().st_size for p in segs)
    print(f"{len(segs)} segments, {total / 2**20:.0f} MiB; load average {os.getloadavg()}")
    ok = True
    for command in (["verify-crc", "--format", "json"], ["size-report", "--format", "json"]):
        times: dict[int, list[float]] = {1: [], args.jobs: []}
        cpus: dict[int, list[float]] = {1: [], args.jobs: []}
        outs: dict[int, bytes] = {}
        for _ in range(args.rounds):
            for j in (1, args.jobs):
                dt, cpu, out = run([str(KDUMP), *command, "--jobs", str(j), str(DATA)])
                times[j].append(dt)
                cpus[j].append(cpu)
                if outs.setdefault(j, out) != out:
                    print("  output changed between rounds", file=sys.stderr)
                    ok = False
        if outs[1] != outs[args.jobs]:
            print(f"{command[0]}: --jobs {args.jobs} output differs from --jobs 1", file=sys.stderr)
            ok = False
        one, many = statistics.median(times[1]), statistics.median(times[args.jobs])
        ratio = one / many
        print(f"{command[0]:12s} --jobs 1: {one:6.2f} s ({total / one / 2**20:6.1f} MiB/s)   "
              f"--jobs {args.jobs}: {many:6.2f} s ({total / many / 2**20:6.1f} MiB/s)   "
              f"ratio {ratio:.2f}x (target {args.target}x); CPU s "
              f"{statistics.median(cpus[1]):.2f} / {statistics.median(cpus[args.jobs]):.2f}")
        ok = ok and ratio >= args.target
    peer = ceiling(args.jobs, args.rounds, 5.0)
    print(f"peer: a pure CPU loop split over {args.jobs} processes: ratio {peer:.2f}x "
          "(this machine's ceiling for any --jobs run)")
    print(f"load average after: {os.getloadavg()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
