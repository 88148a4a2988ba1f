#!/usr/bin/env python3
"""``kdump metadata`` over the ``__cluster_metadata`` of a busy cluster (issue 12).

    .venv/bin/python bench/metadata_bench.py [SIZE]     # default 256M; e.g. 1G

Writes (once) ``bench/data/kraft-SIZE/__cluster_metadata-0``: a snapshot-less log of
SIZE bytes in 1 GiB segments, as a controller of a busy cluster writes it: 1,000 topics
of 20 partitions over 6 brokers created first, then ISR shrinks and expansions, leader
elections, reassignments, broker fencing/unfencing, config changes and NoOpRecords
(KRaft's heartbeat-like no-ops), in batches of 100 records.  Then replays it to the end
with ``kdump metadata --format json`` in a child process and reports wall time, records
per second and the child's peak RSS (``ru_maxrss``), which must stay bounded by the
image (20,000 partitions), not by the log.  Run it on a terminal to see the progress
bar on stderr.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # for tests.support: the encoder and its fixtures

from tests.support import writer as w  # noqa: E402

DATA = ROOT / "bench" / "data"
KDUMP = Path(sys.executable).parent / "kdump"
TOPICS, PARTITIONS, BROKERS = 1000, 20, 6
PER_BATCH = 100
TS0 = 1_700_000_000_000


def parse_size(s: str) -> int:
    s = s.strip().upper().rstrip("B").rstrip("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
    return int(s.rstrip("KMG")) * mult


def generate(d: Path, size: int) -> tuple[int, float]:
    t0 = time.monotonic()
    lw = w.MetadataLogWriter(d, segment_bytes=1 << 30)
    ts = TS0
    rec = w.metadata_record
    setup = [rec("FeatureLevelRecord", {"name": "metadata.version", "featureLevel": 21})]
    for b in range(BROKERS):
        setup.append(rec("RegisterBrokerRecord", {
            "brokerId": b, "incarnationId": w.uuid_of(900 + b), "brokerEpoch": 100 + b,
            "endPoints": [{"name": "PLAINTEXT", "host": f"broker{b}", "port": 9092,
                           "securityProtocol": 0}], "rack": f"rack{b % 3}", "fenced": False}))
    tids = [w.uuid_of(10_000 + t) for t in range(TOPICS)]
    for t in range(TOPICS):
        setup.append(rec("TopicRecord", {"name": f"topic-{t:04d}", "topicId": tids[t]}))
        for p in range(PARTITIONS):
            reps = [(t + p + i) % BROKERS for i in range(3)]
            setup.append(rec("PartitionRecord", {
                "partitionId": p, "topicId": tids[t], "replicas": reps, "isr": reps,
                "leader": reps[0], "leaderEpoch": 0, "partitionEpoch": 0}))
    for i in range(0, len(setup), PER_BATCH):
        lw.append(setup[i:i + PER_BATCH], timestamp=ts)
        ts += 10
    # the churn: records pre-encoded per partition (the log is written, not the records
    # decoded: kdump must still decode every one)
    churn: list[bytes] = []
    for t in range(TOPICS):
        for p in range(PARTITIONS):
            reps = [(t + p + i) % BROKERS for i in range(3)]
            churn.append(rec("PartitionChangeRecord", {"partitionId": p, "topicId": tids[t],
                                                       "isr": reps[:2]}))
            churn.append(rec("PartitionChangeRecord", {"partitionId": p, "topicId": tids[t],
                                                       "isr": reps, "leader": reps[1]}))
            churn.append(rec("PartitionChangeRecord", {"partitionId": p, "topicId": tids[t],
                                                       "leader": reps[0]}))
    extra = [rec("NoOpRecord", {}),
             rec("ConfigRecord", {"resourceType": 2, "resourceName": "topic-0001",
                                  "name": "retention.ms", "value": "86400000"}),
             rec("BrokerRegistrationChangeRecord", {"brokerId": 5, "brokerEpoch": 105,
                                                    "fenced": 1}),
             rec("BrokerRegistrationChangeRecord", {"brokerId": 5, "brokerEpoch": 105,
                                                    "fenced": -1})]
    i = 0
    written = sum(p.stat().st_size for p in d.glob("*.log"))
    cache: dict[int, bytes] = {}  # the churn repeats: 625 distinct batches
    while written < size:
        k = i % len(churn)
        batch = cache.get(k)
        if batch is None:
            recs = [churn[(k + j) % len(churn)] for j in range(PER_BATCH - 4)] + extra
            batch = cache[k] = w.v2_batch([w.Rec(None, r, timestamp=TS0) for r in recs],
                                          first_timestamp=TS0, partition_leader_epoch=1)
        i += PER_BATCH - 4
        lw.append_encoded(batch, PER_BATCH, timestamp=ts)
        ts += 5
        written += len(batch)
        if lw.next_offset % (PER_BATCH * 20000) == 0:
            print(f"  written {written >> 20} MiB", file=sys.stderr)
    lw.close()
    return lw.next_offset, time.monotonic() - t0


def main(argv: list[str]) -> int:
    label = argv[0] if argv else "256M"
    size = parse_size(label)
    d = DATA / f"kraft-{label}" / "__cluster_metadata-0"
    if not d.exists():
        print(f"writing {label} of metadata log into {d} ...", file=sys.stderr)
        records, secs = generate(d, size)
        print(f"  {records:,} records in {secs:.0f} s", file=sys.stderr)
    on_disk = sum(p.stat().st_size for p in d.glob("*.log"))
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    before = ru0.ru_maxrss
    t0 = time.monotonic()
    env = dict(os.environ)
    if sys.stderr.isatty():
        env["KDUMP_PROGRESS"] = "1"  # the bar, though stdout is a pipe to this script
    proc = subprocess.run([str(KDUMP), "metadata", str(d), "--format", "json"],
                          stdout=subprocess.PIPE, stderr=None, env=env, text=True)
    wall = time.monotonic() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rss = ru1.ru_maxrss
    cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
    image = json.loads(proc.stdout.splitlines()[-1])
    assert image["type"] == "image", image
    n = image["records_applied"] + image["records_failed"]
    print(json.dumps({
        "log_bytes": on_disk, "records": n, "partitions": image["partitions"],
        "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "records_per_s": round(n / wall),
        "records_per_cpu_s": round(n / cpu),
        "mib_per_s": round(on_disk / wall / (1 << 20), 1),
        "peak_rss_mib": round(max(rss, before) / 1024), "exit": proc.returncode,
    }))
    return 0 if proc.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
