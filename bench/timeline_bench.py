#!/usr/bin/env python3
"""``kdump timeline`` of a 1 GiB log dir against ``verify-crc --shallow`` plus a metadata
replay of the same log dir, in the same run (issue 48: the timeline may cost about what
those two cost).

    .venv/bin/python bench/timeline_bench.py [SIZE] [ROUNDS] [data]  # default 1G, 3 rounds

Writes (once) ``bench/data/timeline-SIZE/broker-1``: a broker's log dir holding one data
partition of SIZE bytes (``tests/writer.py big``'s segment: batches of 100 records,
70-byte values), a transactional partition (1,000 transactions, every tenth aborted),
``__consumer_offsets-0`` (a group committing 10,000 times, rebalancing every 1,000) and a
32 MiB ``__cluster_metadata-0`` (``metadata_bench.py``'s busy controller: 20,000
partitions, ISR and leader churn).  Then, in rounds (one run of each per round, so that
the load of a shared machine falls alike on all three):

* ``kdump timeline DIR --format json``;
* ``kdump verify-crc --shallow DIR --format json``;
* ``kdump metadata DIR/__cluster_metadata-0 --format json``;

each a whole process, output to /dev/null, timed by ``wait4`` (wall, CPU = user +
system, peak RSS).  Prints one JSON line per command (medians) and the ratio of the
timeline's CPU to the other two's sum.

With ``data``: the same log dir without ``__cluster_metadata-0`` (``timeline-SIZE-data``,
hard links to the files), the timeline against ``verify-crc --shallow`` alone (issue 48
What 5: a data partition's header walk).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # for tests.support: the encoder and its fixtures
sys.path.append(str(ROOT / "bench"))

from tests.support import writer as w  # noqa: E402

DATA = ROOT / "bench" / "data"
KDUMP = Path(sys.executable).parent / "kdump"
TS0 = 1_700_000_000_000


def parse_size(s: str) -> int:
    s = s.strip().upper().rstrip("B").rstrip("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
    return int(s.rstrip("KMG")) * mult


def _transactions(d: Path) -> None:
    pw = w.PartitionWriter(d)
    off = 0
    for t in range(1000):
        pid, epoch = 5000 + t % 7, t // 7
        recs = [w.Rec(key=b"k%d" % (off + i), value=b"v" * 70, timestamp=TS0 + off + i)
                for i in range(10)]
        pw.append(w.v2_batch(recs, base_offset=off, producer_id=pid, producer_epoch=epoch,
                             base_sequence=0, transactional=True))
        off += 10
        pw.append(w.end_txn_marker_batch(t % 10 != 0, base_offset=off, producer_id=pid,
                                         producer_epoch=epoch, coordinator_epoch=3,
                                         timestamp=TS0 + off))
        off += 1
    pw.write_leader_epoch_checkpoint()
    pw.close()


def _offsets(d: Path) -> None:
    from tests.support.timeline_fixture import _coord

    pw = w.PartitionWriter(d)
    off = 0
    for k in range(10_000):
        ts = TS0 + 1000 * k
        if k % 1000 == 0:
            rec = _coord("group", 2, {"group": "bench"}, {
                "protocolType": "consumer", "generation": k // 1000, "protocol": "range",
                "leader": "m", "currentStateTimestamp": ts,
                "members": [{"memberId": f"m{k // 1000}", "groupInstanceId": None,
                             "clientId": "c", "clientHost": "/h", "rebalanceTimeout": 1,
                             "sessionTimeout": 1, "subscription": b"", "assignment": b""}]},
                3, ts)
        else:
            rec = _coord("group", 1, {"group": "bench", "topic": "bench", "partition": k % 4},
                         {"offset": k, "leaderEpoch": 0, "metadata": "", "commitTimestamp": ts},
                         3, ts)
        pw.append(w.v2_batch([rec], base_offset=off, first_timestamp=ts))
        off += 1
    pw.write_leader_epoch_checkpoint()
    pw.close()


def build(root: Path, size: int) -> None:
    from metadata_bench import generate

    b = w.broker_logdir(root, 1)
    print(f"writing {size >> 20} MiB of data into {b} ...", file=sys.stderr)
    w.big_segment(b / "bench-0", size)
    _transactions(b / "txns-0")
    _offsets(b / "__consumer_offsets-0")
    generate(b / "__cluster_metadata-0", 32 << 20)
    (b / ".kafka_cleanshutdown").write_bytes(b"")


def data_copy(root: Path, to: Path) -> Path:
    """``root`` without its metadata log, as hard links (made once)."""
    if not to.exists():
        for p in root.rglob("*"):
            rel = p.relative_to(root)
            if rel.parts[0] == "__cluster_metadata-0":
                continue
            if p.is_dir():
                (to / rel).mkdir(parents=True, exist_ok=True)
            else:
                (to / rel).parent.mkdir(parents=True, exist_ok=True)
                os.link(p, to / rel)
    return to


def run(args: list[str]) -> dict[str, float]:
    t0 = time.monotonic()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen([str(KDUMP), *args], stdout=null, stderr=null)
        _, status, ru = os.wait4(p.pid, 0)
    return {"wall_s": time.monotonic() - t0, "cpu_s": ru.ru_utime + ru.ru_stime,
            "peak_rss_mib": ru.ru_maxrss / 1024, "exit": os.waitstatus_to_exitcode(status)}


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv: list[str]) -> int:
    label = argv[0] if argv else "1G"
    rounds = int(argv[1]) if len(argv) > 1 else 3
    data_only = len(argv) > 2 and argv[2] == "data"
    root = DATA / f"timeline-{label}" / "broker-1"
    if not root.exists():
        build(root, parse_size(label))
    if data_only:
        root = data_copy(root, DATA / f"timeline-{label}-data" / "broker-1")
    commands = {
        "timeline": ["timeline", str(root), "--format", "json"],
        "verify-crc --shallow": ["verify-crc", "--shallow", str(root), "--format", "json"],
        "metadata": ["metadata", str(root / "__cluster_metadata-0"), "--format", "json"],
    }
    if data_only:
        del commands["metadata"]
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in commands}
    for _ in range(rounds):
        for name, args in commands.items():
            runs[name].append(run(args))
    on_disk = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    med: dict[str, dict[str, float]] = {}
    for name, rs in runs.items():
        med[name] = {k: round(statistics.median(r[k] for r in rs), 2)
                     for k in ("wall_s", "cpu_s")}
        med[name]["peak_rss_mib"] = round(max(r["peak_rss_mib"] for r in rs))
        med[name]["exit"] = max(r["exit"] for r in rs)
        print(json.dumps({"command": name, **med[name]}))
    if data_only:
        print(json.dumps({"log_dir_bytes": on_disk, "rounds": rounds, "cpu": cpu_name(),
                          "timeline_cpu_over_verify_shallow":
                              round(med["timeline"]["cpu_s"]
                                    / med["verify-crc --shallow"]["cpu_s"], 2)}))
        return 0
    both = med["verify-crc --shallow"]["cpu_s"] + med["metadata"]["cpu_s"]
    print(json.dumps({"log_dir_bytes": on_disk, "rounds": rounds, "cpu": cpu_name(),
                      "timeline_cpu_over_verify_shallow_plus_metadata":
                          round(med["timeline"]["cpu_s"] / both, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
