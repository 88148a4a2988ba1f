"""compare-replicas on two large replicas: wall time and bytes read.

    .venv/bin/python bench/compare_bench.py DIR [SIZE]

DIR holds (or receives) two brokers' log dirs written by ``tests/writer.py replicas DIR
SIZE`` (default 1G): partition ``bench-0`` of about SIZE bytes on each, the same batches
(epoch 0) up to the last 10, which differ (broker 2 leads in epoch 1).  The comparison
runs in this process, several times; each run reports its wall time, and the bytes
read as ``/proc/self/io`` counts them: ``rchar`` (bytes returned by read calls: what
kdump asked for) and ``read_bytes`` (bytes fetched from storage: the page cache was
not dropped, so warm runs fetch none) and kdump's own count of bytes read.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _io() -> dict[str, int]:
    out = {}
    with open("/proc/self/io") as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k.strip()] = int(v)
    return out


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    data = Path(argv[0])
    size = argv[1] if len(argv) > 1 else "1G"
    if not (data / "broker-1").exists():
        t = time.monotonic()
        subprocess.run([sys.executable, str(ROOT / "tests" / "writer.py"), "replicas",
                        str(data), size], check=True)
        print(f"generated in {time.monotonic() - t:.1f} s", file=sys.stderr)
    sys.path.insert(0, str(ROOT))
    from kdump.ops.compare_replicas import CompareOptions, PartitionComparison, compare_replicas

    logs = sorted((data / "broker-1" / "bench-0").glob("*.log"))
    total = sum(p.stat().st_size for p in logs) * 2
    print(f"replicas: 2 x {total // 2:,} bytes of log")
    for run in range(int(os.environ.get("ROUNDS", "3"))):
        before = _io()
        t0 = time.monotonic()
        cpu0 = time.process_time()
        comp = None
        for item in compare_replicas([str(data / "broker-1"), str(data / "broker-2")],
                                     CompareOptions()):
            if isinstance(item, PartitionComparison):
                comp = item
        wall = time.monotonic() - t0
        cpu = time.process_time() - cpu0
        after = _io()
        assert comp is not None
        d = comp.to_json()
        kd = sum(r["bytes_read"] for r in d["replicas"])
        batches = sum(r["batches"] for r in d["replicas"])
        print(f"run {run + 1}: wall {wall:.2f} s, cpu {cpu:.2f} s, "
              f"rchar {after['rchar'] - before['rchar']:,} B, "
              f"read_bytes {after['read_bytes'] - before['read_bytes']:,} B, "
              f"kdump bytes_read {kd:,} B ({kd / total:.4%} of the logs), "
              f"{batches:,} batches, divergence {d['divergence_offset']}, "
              f"truncation {d['truncation_offset']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
