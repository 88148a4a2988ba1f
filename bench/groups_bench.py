#!/usr/bin/env python3
"""``kdump dump --summary`` and ``kdump lag`` over a busy Kafka 4.x group coordinator
(issue 23): KIP-848 consumer groups, a streams group and share groups.

    .venv/bin/python bench/groups_bench.py [SIZE]     # default 64M; e.g. 256M

Writes (once) ``bench/data/groups-SIZE/``: a broker log dir whose
``__consumer_offsets-0`` holds SIZE bytes of what a coordinator writes for 200 consumer
groups of 10 members (member metadata with topic and regex subscriptions, current
assignments, epochs, resolved regular expressions, offset commits: the heartbeat churn
repeats), a streams group and 20 share groups, and whose ``__share_group_state-0`` holds
a quarter of SIZE of ShareSnapshot/ShareUpdate records; plus the ``orders-N`` topic
partitions they read.  Then runs, in child processes and in one run:

* ``kdump dump --summary --format json`` (the replay of both partitions into groups and
  share-partitions);
* its named peer, ``kdump dump --format json --print-data-log`` of the same two
  partitions (every record decoded by the same decoders, chosen by directory name, and
  written out; no replay);
* ``kdump lag --format json`` (the replay plus the log end offsets).

and reports wall and CPU time and each child's peak RSS (bounded by the groups, not the
log).  Figures go in bench/README.md.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # for tests.support: the encoder and its fixtures

from tests.support import group_records as gr  # noqa: E402
from tests.support import writer as w  # noqa: E402

DATA = ROOT / "bench" / "data"
KDUMP = Path(sys.executable).parent / "kdump"
GROUPS, MEMBERS, TOPICS, PARTITIONS = 200, 10, 8, 12
SHARE_GROUPS = 20
PER_BATCH = 100
TS0 = 1_700_000_000_000


def parse_size(s: str) -> int:
    s = s.strip().upper().rstrip("B").rstrip("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
    return int(s.rstrip("KMG")) * mult


def _tid(t: int) -> str:
    return w.uuid_of(5000 + t)


def _member(g: int, m: int) -> dict[str, Any]:
    regex = f"pay-{g % 7}.*" if m % 3 == 0 else None
    return {"instanceId": None, "rackId": f"rack{m % 3}", "clientId": f"client-{g}-{m}",
            "clientHost": f"/10.0.{g % 250}.{m}",
            "subscribedTopicNames": [f"orders-{(g + k) % TOPICS}" for k in range(2)],
            "subscribedTopicRegex": regex, "rebalanceTimeoutMs": 30000,
            "serverAssignor": "uniform"}


def churn_records(epoch: int) -> list[w.Rec]:
    """One round of the coordinator's writes: every group's epoch bump, its members'
    metadata and assignments, regex resolutions and commits."""
    cr = gr.coordinator_record
    out: list[w.Rec] = []
    for g in range(GROUPS):
        gid = f"group-{g:04d}"
        out.append(cr("ConsumerGroupMetadata", {"groupId": gid}, {"epoch": epoch}))
        for m in range(MEMBERS):
            out.append(cr("ConsumerGroupMemberMetadata", {"groupId": gid, "memberId": f"m{m}"},
                          _member(g, m)))
        out.append(cr("ConsumerGroupRegularExpression",
                      {"groupId": gid, "regularExpression": f"pay-{g % 7}.*"},
                      {"topics": [f"pay-{g % 7}-eu", f"pay-{g % 7}-us"], "version": epoch,
                       "timestamp": TS0 + epoch}))
        out.append(cr("ConsumerGroupTargetAssignmentMetadata", {"groupId": gid},
                      {"assignmentEpoch": epoch}))
        for k in range(2):
            t = (g + k) % TOPICS
            for p in range(PARTITIONS):
                out.append(gr.commit(gid, f"orders-{t}", p, epoch * 10 + p, TS0 + epoch))
    for s in range(SHARE_GROUPS):
        sid = f"share-{s:03d}"
        out.append(cr("ShareGroupMetadata", {"groupId": sid}, {"epoch": epoch,
                                                              "metadataHash": 0}))
        out.append(cr("ShareGroupStatePartitionMetadata", {"groupId": sid}, {
            "initializingTopics": [], "deletingTopics": [],
            "initializedTopics": [{"topicId": _tid(s % TOPICS), "topicName":
                                   f"orders-{s % TOPICS}",
                                   "partitions": list(range(PARTITIONS))}]}))
    return out


def share_records(epoch: int) -> list[w.Rec]:
    out: list[w.Rec] = []
    for s in range(SHARE_GROUPS):
        for p in range(PARTITIONS):
            key = {"groupId": f"share-{s:03d}", "topicId": _tid(s % TOPICS), "partition": p}
            batches = [{"firstOffset": epoch * 10 + k, "lastOffset": epoch * 10 + k,
                        "deliveryState": 2, "deliveryCount": 1} for k in range(4)]
            if epoch % 5 == 0:
                out.append(gr.coordinator_record("ShareSnapshot", key, {
                    "snapshotEpoch": epoch // 5, "stateEpoch": 1, "leaderEpoch": 1,
                    "startOffset": epoch * 10, "createTimestamp": TS0, "writeTimestamp":
                    TS0 + epoch, "stateBatches": batches}))
            else:
                out.append(gr.coordinator_record("ShareUpdate", key, {
                    "snapshotEpoch": epoch // 5, "leaderEpoch": 1, "startOffset": epoch * 10,
                    "stateBatches": batches}))
    return out


def _write(directory: Path, size: int, make: Any) -> int:
    pw = w.PartitionWriter(directory, segment_bytes=1 << 30)
    written = offset = epoch = 0
    while written < size:
        epoch += 1
        recs = make(epoch)
        for i in range(0, len(recs), PER_BATCH):
            b = w.v2_batch(recs[i:i + PER_BATCH], base_offset=offset, first_timestamp=TS0)
            pw.append(b)
            offset += len(recs[i:i + PER_BATCH])
            written += len(b)
    pw.close()
    return offset


def generate(root: Path, size: int) -> None:
    b = w.broker_logdir(root, 1)
    n = _write(b / "__consumer_offsets-0", size, churn_records)
    s = _write(b / "__share_group_state-0", size // 4, share_records)
    for t in range(TOPICS):
        for p in range(PARTITIONS):
            w.write_replica(b / f"orders-{t}-{p}", w.replica_batches([(0, 50, 0)]))
    print(f"  {n:,} + {s:,} records", file=sys.stderr)


def run(args: list[str]) -> dict[str, Any]:
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.run([str(KDUMP), *args], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True)
    wall = time.monotonic() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = proc.stdout.splitlines()
    return {"wall_s": round(wall, 1),
            "cpu_s": round((ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime), 1),
            "peak_rss_mib": round(ru1.ru_maxrss / 1024), "objects": len(lines),
            "last": json.loads(lines[-1]) if lines else None, "exit": proc.returncode}


def main(argv: list[str]) -> int:
    label = argv[0] if argv else "64M"
    root = DATA / f"groups-{label}"
    if not root.exists():
        print(f"writing {label} of __consumer_offsets into {root} ...", file=sys.stderr)
        generate(root, parse_size(label))
    parts = [str(root / "__consumer_offsets-0"), str(root / "__share_group_state-0")]
    on_disk = sum(p.stat().st_size for d in parts for p in Path(d).glob("*.log"))
    # peak RSS of RUSAGE_CHILDREN is the largest child so far: the lightest run first
    summary = run(["dump", "--summary", "--format", "json", *parts])
    peer = run(["dump", "--format", "json", "--print-data-log", *parts])
    lag = run(["lag", "--format", "json", str(root)])
    print(json.dumps({
        "log_bytes": on_disk, "records": summary["last"]["records"],
        "summary": {k: summary[k] for k in ("wall_s", "cpu_s", "peak_rss_mib", "exit")},
        "peer_dump_json": {k: peer[k] for k in ("wall_s", "cpu_s", "exit")},
        "lag": {k: lag[k] for k in ("wall_s", "cpu_s", "exit", "objects")},
        "summary_cpu_vs_peer": round(summary["cpu_s"] / peer["cpu_s"], 2) if peer["cpu_s"]
        else None,
    }))
    return 0 if summary["exit"] == 0 and lag["exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
