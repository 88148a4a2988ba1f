#!/usr/bin/env python3
"""Decoding cost per internal-topic record, before and after the Kafka 4.x definitions
(issue #23).

    .venv/bin/python bench/decode_bench.py [REF] [--rounds N] [--records N]

The peer is kdump itself at REF (default ``8df7622``, the commit before the 4.x
definitions and release-aware decoding), extracted with ``git archive`` into a temporary
directory; this tree is the other side.  Each round runs both, one child process each,
alternately, so that the load of the shared machine falls alike on both; every child
decodes the same records (written by tests/support/message_writer.py from tests/support/kafka4_specs.py,
fixed seeds) with the internal decoders and reports CPU time per record for each kind:

- ``offset commit``: OffsetCommitValue v3 (most of a ``__consumer_offsets`` log);
- ``group metadata``: GroupMetadataValue v4 with 3 consumer members (protocol expanded);
- ``share snapshot``: ShareSnapshotValue in Kafka 4.0's layout (the one both read; the
  new decoder also tries 4.1's, which does not fit);
- ``share, release known``: the same record, the release named (``--kafka-version 4.0``
  or a 4.1+ metadata.version): one layout read, as before;
- ``metadata``: PartitionChangeRecord v0 (most of a ``__cluster_metadata`` log);
- ``transaction``: TransactionLogValue v1 with 4 partitions.

Prints one line per kind (median of the rounds, µs per record, and the ratio new / old).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r'''
import json, random, struct, sys, time
sys.path.append(sys.argv[2])  # this tree, for tests.support: the encoder and the specs
from tests.support import message_writer as sw
from tests.support import kafka4_specs as ks
from tests.support.group_records import CONSUMER_PROTOCOL
from kdump.decoders import internal_decoder

n = int(sys.argv[1])
def i16(v): return struct.pack(">h", v)
def coord(fam, t, k, v, ver, rel="4.0"):
    kw, vw = ks.SPECS[rel][(fam, t)]
    return i16(t) + sw.encode(kw, k, 0), i16(ver) + sw.encode(vw, v, ver)
sub = CONSUMER_PROTOCOL["ConsumerProtocolSubscription"]
members = [{"memberId": f"m{i}", "groupInstanceId": None, "clientId": "c", "clientHost": "/h",
            "rebalanceTimeout": 300000, "sessionTimeout": 45000,
            "subscription": i16(3) + sw.encode(sub, {"topics": ["orders"], "userData": None,
                "ownedPartitions": [{"topic": "orders", "partitions": [i]}], "generationId": 4,
                "rackId": None}, 3), "assignment": i16(3) + b"\x00\x00\x00\x00\xff\xff\xff\xff"}
           for i in range(3)]
kinds = {
  "offset commit": ("offsets", coord("group", 1, {"group": "g", "topic": "orders", "partition": 3},
      {"offset": 123456, "leaderEpoch": 5, "metadata": "", "commitTimestamp": 1700000000000}, 3)),
  "group metadata": ("offsets", coord("group", 2, {"group": "g"}, {"protocolType": "consumer",
      "generation": 4, "protocol": "range", "leader": "m0", "currentStateTimestamp": 1700000000000,
      "members": members}, 4)),
  "share snapshot": ("share-group-state", coord("share", 0, {"groupId": "g",
      "topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "partition": 0}, {"snapshotEpoch": 1, "stateEpoch": 1,
      "leaderEpoch": 2, "startOffset": 100, "stateBatches": [{"firstOffset": 100 + 10 * i,
      "lastOffset": 109 + 10 * i, "deliveryState": 2, "deliveryCount": 1} for i in range(4)]}, 0)),
  "metadata": ("cluster-metadata", (None, bytes([1, 5, 0]) + sw.encode(ks.SPECS["4.0"][("metadata", 5)][1],
      {"partitionId": 7, "topicId": "AAAAAAAAAAAAAAAAAAAAAQ", "isr": [1, 2, 3], "leader": 2}, 0))),
  "transaction": ("transaction-log", coord("transaction", 0, {"transactionalId": "tx-1"},
      {"producerId": 1000, "producerEpoch": 3, "transactionTimeoutMs": 60000, "transactionStatus": 1,
       "transactionPartitions": [{"topic": "orders", "partitionIds": [0, 1, 2, 3]}],
       "transactionLastUpdateTimestampMs": 1700000000000,
       "transactionStartTimestampMs": 1700000000000, "nextProducerId": -1}, 1)),
}
kinds["share, release known"] = kinds["share snapshot"]
try:  # this tree: the release named (--kafka-version 4.0); the old tree has one layout only
    from kdump.decoders.release import Evidence
    known = Evidence("4.0", False, "--kafka-version 4.0")
except ImportError:
    known = None
out = {}
for kind, (name, (key, value)) in kinds.items():
    d = internal_decoder(name, known) if kind == "share, release known" and known else internal_decoder(name)
    first = d.decode(key, value, 0)
    assert first.error is None or kind == "share snapshot", (kind, first.error)
    t0 = time.process_time()
    for i in range(n):
        d.decode(key, value, i)
    out[kind] = (time.process_time() - t0) / n * 1e6
print(json.dumps(out))
'''


def run_child(kdump_root: Path, n: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(kdump_root), KDUMP_PURE_PYTHON=os.environ.get(
        "KDUMP_PURE_PYTHON", ""))
    r = subprocess.run([sys.executable, "-c", CHILD, str(n), str(ROOT)],
                       env=env, capture_output=True, text=True, check=True, cwd=kdump_root)
    out: dict[str, float] = json.loads(r.stdout)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ref", nargs="?", default="8df7622")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--records", type=int, default=20000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        old.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", a.ref, "kdump"],
                                 capture_output=True, check=True).stdout
        tar_path = Path(tmp) / "old.tar"
        tar_path.write_bytes(archive)
        with tarfile.open(tar_path) as t:
            t.extractall(old, filter="data")
        runs: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
        for _ in range(a.rounds):
            for side, root in (("old", old), ("new", ROOT)):
                for kind, us in run_child(root, a.records).items():
                    runs[side].setdefault(kind, []).append(us)
    print(f"kdump {a.ref} (old) vs this tree (new): CPU µs per record, median of "
          f"{a.rounds} rounds of {a.records:,} records")
    print(f"{'record':<22} {'old':>8} {'new':>8} {'new/old':>8}")
    for kind in runs["old"]:
        o, n = statistics.median(runs["old"][kind]), statistics.median(runs["new"][kind])
        print(f"{kind:<22} {o:8.1f} {n:8.1f} {n / o:8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
