#!/usr/bin/env python3
"""Faults in a 1 GiB segment, found at close to the speed of reading it (issue 3).

    .venv/bin/python bench/faults.py            # uses bench/data/bench-u1g-0 (bench/run.py
                                                # writes it), copies it, injects faults

Copies the 1 GiB segment of bench/run.py into bench/data/faults-0/, injects faults at
known byte positions (a flipped CRC byte, a zeroed 64 KiB region, a size field
overwritten with 0x7fffffff, garbage in place of a batch, a truncated tail), then times,
in rounds, whole processes:

* ``cat`` of the file to /dev/null: reading it (page cache warm after the first round);
* ``kdump verify-crc`` on the clean copy and on the damaged one (default: every record
  checked), and ``--shallow``;

and checks that every injected fault is reported at exactly its position.  Prints a
table of medians and the ratio of each kdump run to reading the file.
"""

from __future__ import annotations

import json
import shutil
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data"
SOURCE = DATA / "bench-u1g-0" / "00000000000000000000.log"
KDUMP = Path(sys.executable).parent / "kdump"
ROUNDS = 5


def batch_starts(path: Path, want: list[int]) -> list[int]:
    """Positions of the batches with these ordinal numbers (header walk, no kdump)."""
    out, pos, n = [], 0, 0
    wanted = sorted(want)
    with path.open("rb") as fh:
        while wanted:
            fh.seek(pos)
            head = fh.read(12)
            if len(head) < 12:
                break
            (size,) = struct.unpack(">i", head[8:12])
            if n == wanted[0]:
                out.append(pos)
                wanted.pop(0)
            pos += 12 + size
            n += 1
    return out


def inject(copy: Path) -> dict[int, str]:
    """Faults at known positions -> the kind kdump must report there."""
    starts = batch_starts(copy, [1000, 20000, 40000, 70000, 100000, 100001])
    a, b, c, d, e, f = starts
    expected: dict[int, str] = {}
    with copy.open("r+b") as fh:
        fh.seek(a + 17)  # first byte of the stored CRC
        byte = fh.read(1)[0]
        fh.seek(a + 17)
        fh.write(bytes([byte ^ 0xFF]))
        expected[a] = "crc-mismatch"
        fh.seek(b)  # a zeroed 64 KiB region starting at a batch
        fh.write(bytes(64 << 10))
        expected[b] = "zeroed-region"
        fh.seek(c + 8)  # an impossible size field
        fh.write(struct.pack(">i", 0x7FFFFFFF))
        expected[c] = "bad-length"
        fh.seek(d)  # garbage where a batch header should be (byte 16, the magic, is 23)
        fh.write(bytes(range(7, 7 + 40)))
        expected[d] = "bad-magic"
        fh.seek(e + 200)  # a flipped byte inside a batch's records
        byte = fh.read(1)[0]
        fh.seek(e + 200)
        fh.write(bytes([byte ^ 0x01]))
        expected[e] = "crc-mismatch"
        size = copy.stat().st_size
        fh.truncate(size - 100)  # the last batch loses 100 bytes
    del f
    return expected


def timed(cmd: list[str]) -> float:
    """Wall time of a whole process, its output thrown away (as a user's redirect)."""
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t


def drop_caches() -> bool:
    """Empty the page cache (root only): cold reads, from the disk."""
    try:
        subprocess.run(["sync"], check=True)
        with open("/proc/sys/vm/drop_caches", "w") as fh:
            fh.write("3\n")
        return True
    except OSError:
        return False


def main() -> int:
    if not SOURCE.exists():
        print(f"{SOURCE} is missing: run bench/run.py first (it writes the 1 GiB segment)")
        return 2
    work = DATA / "faults-0"
    work.mkdir(parents=True, exist_ok=True)
    clean = work / "clean.log"
    damaged = work / "00000000000000000000.log"
    for target in (clean, damaged):
        if not target.exists() or target.stat().st_size != SOURCE.stat().st_size:
            shutil.copyfile(SOURCE, target)
    shutil.copyfile(SOURCE, damaged)
    expected = inject(damaged)
    size = damaged.stat().st_size

    runs: dict[str, list[float]] = {}
    commands = {
        "cat (read the file)": ["cat", str(damaged)],
        "verify-crc, clean copy": [str(KDUMP), "verify-crc", str(clean), "--format", "json"],
        "verify-crc, damaged": [str(KDUMP), "verify-crc", str(damaged), "--format", "json"],
        "verify-crc --shallow, damaged": [str(KDUMP), "verify-crc", "--shallow", str(damaged),
                                          "--format", "json"],
    }
    for _ in range(ROUNDS):
        for name, cmd in commands.items():
            runs.setdefault(name, []).append(timed(cmd))
    found: dict[int, str] = {}
    out = subprocess.run(commands["verify-crc, damaged"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        obj = json.loads(line)
        if obj["type"] == "problem":
            found.setdefault(obj["position"], obj["kind"])
    if drop_caches():  # the same, each run starting from a cold page cache
        for _ in range(3):
            for name in ("cat (read the file)", "verify-crc, damaged"):
                drop_caches()
                runs.setdefault(f"{name}, cold cache", []).append(timed(commands[name]))
    read = statistics.median(runs["cat (read the file)"])
    print(f"segment: {size / (1 << 30):.2f} GiB, {len(expected) + 1} faults injected\n")
    print("| command | median s | GB/s | × reading (same cache state) |")
    print("|---|---:|---:|---:|")
    for name, ts in runs.items():
        m = statistics.median(ts)
        base = statistics.median(runs["cat (read the file), cold cache"]) \
            if name.endswith("cold cache") else read
        print(f"| {name} | {m:.3f} | {size / m / 1e9:.2f} | {m / base:.2f} |")
    print()
    ok = True
    for pos, kind in sorted(expected.items()):
        got = found.get(pos)
        mark = "ok" if got == kind else "MISSED"
        ok &= got == kind
        print(f"fault at byte {pos}: expected {kind}, reported {got}: {mark}")
    # the file is its partition's active segment: a cut-short last batch is in flight
    tail = [p for p, k in found.items() if k in ("truncated", "in-flight")]
    print(f"cut-short last batch: reported as {[found[p] for p in tail]} at {tail}: "
          f"{'ok' if tail else 'MISSED'}")
    ok &= bool(tail)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
