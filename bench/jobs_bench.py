"""``--jobs``: throughput of N worker processes against one, in one run.

    .venv/bin/python bench/jobs_bench.py            # --jobs 2 vs --jobs 1, 3 rounds
    .venv/bin/python bench/jobs_bench.py --jobs 4 --rounds 5
    .venv/bin/python bench/jobs_bench.py --plain    # also 16 uncompressed segments, and
                                                    # the memory-bandwidth floor (issue 33)

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

``--plain`` adds a second log dir, ``bench/data/jobs-plain``: 16 partitions of one 16 MiB
uncompressed segment each (tests/writer.py big_segment), the same two commands over it,
and the floors that say where such work is bound by memory bandwidth rather than by
the cores: a copy loop (``memmove`` of 64 MiB buffers, in one process and split over N),
and reading the same segments from the page cache (``preadv`` into a reused buffer, the
copy every kdump read makes), each as GB/s in one process and in N.
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
sys.path.append(str(ROOT))  # for tests.support: the encoder and its fixtures


def write_logdir(root: Path, partitions: int = 4, per_partition: int = 150 << 20) -> None:
    from tests.support import writer as w

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


PLAIN = ROOT / "bench" / "data" / "jobs-plain"


def write_plain(root: Path, partitions: int = 16, size: int = 16 << 20) -> None:
    from tests.support import writer as w

    done = root / ".complete"
    if done.exists():
        return
    for p in range(partitions):
        w.big_segment(root / f"plain-{p}", size)
    done.write_text("")


#: the memory floor: copy 64 MiB buffers ``n`` times (memmove, the GIL released)
_COPY = ("import ctypes, sys\nn = int(sys.argv[1])\nsrc = bytearray(64 << 20)\n"
         "dst = bytearray(64 << 20)\na = (ctypes.c_char * len(src)).from_buffer(src)\n"
         "b = (ctypes.c_char * len(dst)).from_buffer(dst)\n"
         "for _ in range(n):\n    ctypes.memmove(b, a, len(src))\n")
#: the read floor: every file named, read with preadv into one reused aligned buffer
_READ = ("import mmap, os, sys\nbuf = mmap.mmap(-1, 1 << 20)\n"
         "for path in sys.argv[1:]:\n    fd = os.open(path, os.O_RDONLY)\n    pos = 0\n"
         "    while (n := os.preadv(fd, [buf], pos)):\n        pos += n\n    os.close(fd)\n")


def _parallel(scripts: list[list[str]]) -> float:
    t = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", *s]) for s in scripts]
    for p in procs:
        p.wait()
    return time.perf_counter() - t


def bandwidth(jobs: int, rounds: int, files: list[Path]) -> list[str]:
    """GB/s of the copy loop and of the page-cache read, in one process and in ``jobs``."""
    copies = 24  # 24 x 64 MiB = 1.5 GiB copied (3 GiB of memory traffic: read + write)
    moved = copies * (64 << 20)
    total = sum(f.stat().st_size for f in files)
    one_c, many_c, one_r, many_r = [], [], [], []
    for _ in range(rounds):
        one_c.append(_parallel([[_COPY, str(copies)]]))
        many_c.append(_parallel([[_COPY, str(copies // jobs)]] * jobs))
        one_r.append(_parallel([[_READ, *map(str, files)]]))
        many_r.append(_parallel([[_READ, *map(str, files[i::jobs])] for i in range(jobs)]))
    c1, cn = moved / statistics.median(one_c) / 1e9, moved / statistics.median(many_c) / 1e9
    r1, rn = total / statistics.median(one_r) / 1e9, total / statistics.median(many_r) / 1e9
    return [
        f"floor: memmove of 64 MiB buffers: 1 process {c1:.2f} GB/s, {jobs} processes "
        f"{cn:.2f} GB/s ({cn / c1:.2f}x)",
        f"floor: preadv from the page cache into a reused buffer: 1 process {r1:.2f} GB/s, "
        f"{jobs} processes {rn:.2f} GB/s ({rn / r1:.2f}x)",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--target", type=float, default=1.7)
    ap.add_argument("--plain", action="store_true",
                    help="also the uncompressed log dir and the memory-bandwidth floors")
    args = ap.parse_args(argv)
    ok = measure(DATA, args)
    if args.plain:
        write_plain(PLAIN)
        ok = measure(PLAIN, args) and ok
        for line in bandwidth(args.jobs, args.rounds, sorted(PLAIN.glob("*/*.log"))):
            print(line)
    peer = ceiling(args.jobs, args.rounds, 5.0)
    print(f"peer: a pure CPU loop split over {args.jobs} processes: ratio {peer:.2f}x "
          "(this machine's ceiling for any --jobs run)")
    print(f"load average after: {os.getloadavg()}")
    return 0 if ok else 1


def measure(data: Path, args: argparse.Namespace) -> bool:
    """verify-crc and size-report over ``data`` with --jobs 1 and N; False when a ratio
    misses the target or the outputs differ."""
    if data == DATA:
        write_logdir(DATA)
    segs = sorted(data.glob("*/*.log"))
    total = sum(p.stat().st_size for p in segs)
    print(f"{data.name}: {len(segs)} segments, {total / 2**20:.0f} MiB; load average "
          f"{os.getloadavg()}")
    ok = True
    for command in (["verify-crc", "--format", "json"], ["size-report", "--format", "json"]):
        times: dict[int, list[float]] = {1: [], args.jobs: []}
        cpus: dict[int, list[float]] = {1: [], args.jobs: []}
        outs: dict[int, bytes] = {}
        for _ in range(args.rounds):
            for j in (1, args.jobs):
                dt, cpu, out = run([str(KDUMP), *command, "--jobs", str(j), str(data)])
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
    return ok


if __name__ == "__main__":
    sys.exit(main())
