"""Two brokers' log dirs for ``kdump retention`` (issue 31), written with the project's
encoders (tests/writer.py): every case the retention check and the cleaner meet, each
partition built so that one rule decides each segment, at the fixed time :data:`NOW`.

``build(root)`` writes ``root/b1`` (broker 1), ``root/b2`` (broker 2) and
``root/server.properties``:

b1 (``__cluster_metadata-0``: metadata.version 27 (4.1), the topics, ConfigRecords for
the topics, broker 2's dynamic ``log.retention.ms``):

- ``timed-0`` (retention.ms 2 days): segments 10, 5 and 1 day old and an active one
  an hour old;
- ``sized-0`` (retention.ms -1, retention.bytes 2.5 segments): four equal segments and a
  half-size active one;
- ``truncated-0`` (log-start-offset-checkpoint 25, DeleteRecords): recent segments;
- ``lagging-0`` (retention.ms 1 day, replication-offset-checkpoint 15): old segments;
- ``compacted-0`` (cleanup.policy compact, cleaner checkpoint 10): tombstones past their
  delete horizon, waiting for it, and not yet through a cleaning;
- ``txn-0`` (compact,delete, retention.ms 30 days, no cleaner checkpoint): a committed
  transaction and one left open (producer 4242 at offset 22);
- ``future-0`` (retention.ms 1 day): a batch stamped a year ahead (producer 77, offset
  15) in its second segment;
- ``legacy-0`` (no override: server.properties' log.retention.hours 48): magic 0
  messages, no timestamps: each segment's mtime is set;
- ``plain-0`` (no override): 3 days, 2 hours and 30 minutes old;
- ``tiered-0`` (remote.storage.enable, local.retention.ms 1 day, retention.ms 30 days)
  with ``__remote_log_metadata-0`` saying offsets 0-19 were copied;
- ``__consumer_offsets-0`` (no ConfigRecord: Kafka's creation configs, compact).

b2 (no metadata): ``timed-0`` with high watermark 12, ``plain-0`` (broker 2's dynamic
log.retention.ms 1 hour).

``python tests/support/retention_fixture.py DIR`` writes it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from tests.decoders.test_decoders import REMOTE, frame, sw
from tests.support import writer as w

NOW = 1_750_000_000_000  # 2025-06-15T15:06:40Z
HOUR = 3_600_000
DAY = 24 * HOUR
YEAR = 365 * DAY
TOPIC_IDS = {name: w.uuid_of(100 + i) for i, name in enumerate((
    "timed", "sized", "truncated", "lagging", "compacted", "txn", "future", "legacy",
    "plain", "tiered", "__consumer_offsets", "__remote_log_metadata"))}
TIERED_TOPIC_ID = bytes(range(1, 17))

SERVER_PROPERTIES = """\
# broker settings shared by both brokers (no node.id: applies to every log dir)
log.retention.hours=48
log.segment.bytes = 1073741824
remote.log.storage.system.enable=true
listeners=PLAINTEXT://:9092
"""


def _records(base: int, n: int, ts: int, tag: str = "v") -> list[w.Rec]:
    return [w.Rec(key=b"k%d" % o, value=f"{tag}{o:04d}".encode(), timestamp=ts)
            for o in range(base, base + n)]


def _partition(directory: Path, segments: list[list[bytes]], *, snapshot: bool = False
               ) -> w.PartitionWriter:
    """A partition whose segments hold the given batches (a roll between segments)."""
    pw = w.PartitionWriter(directory)
    for k, batches in enumerate(segments):
        if k:
            pw.roll()
        for b in batches:
            pw.append(b)
    if snapshot:
        pw.write_producer_snapshot()
    pw.write_leader_epoch_checkpoint()
    pw.close()
    return pw


def _span(base: int, n: int, ts: int, **kw: Any) -> bytes:
    return w.v2_batch(_records(base, n, ts), base_offset=base, **kw)


def _configs() -> list[bytes]:
    def cfg(rtype: int, name: str, key: str, value: str) -> bytes:
        return w.metadata_record("ConfigRecord", {"resourceType": rtype, "resourceName": name,
                                                  "name": key, "value": value})

    out = [w.metadata_record("FeatureLevelRecord", {"name": "metadata.version",
                                                    "featureLevel": 27})]
    for name, tid in TOPIC_IDS.items():
        out.append(w.metadata_record("TopicRecord", {"name": name, "topicId": tid}))
    topic = 2
    out += [
        cfg(topic, "timed", "retention.ms", str(2 * DAY)),
        cfg(topic, "sized", "retention.ms", "-1"),
        cfg(topic, "sized", "retention.bytes", "0"),  # set below, once sizes are known
        cfg(topic, "lagging", "retention.ms", str(DAY)),
        cfg(topic, "compacted", "cleanup.policy", "compact"),
        cfg(topic, "txn", "cleanup.policy", "compact,delete"),
        cfg(topic, "txn", "retention.ms", str(30 * DAY)),
        cfg(topic, "future", "retention.ms", str(DAY)),
        cfg(topic, "tiered", "remote.storage.enable", "true"),
        cfg(topic, "tiered", "local.retention.ms", str(DAY)),
        cfg(topic, "tiered", "retention.ms", str(30 * DAY)),
        cfg(4, "2", "log.retention.ms", str(HOUR)),
    ]
    return out


def _remote_record(start: int, end: int, size: int, segment_id: bytes) -> bytes:
    s = REMOTE["RemoteLogSegmentMetadataRecord"]
    assert s.api_key is not None
    return frame(s.api_key, 0, sw.encode(s, {
        "remoteLogSegmentId": {"topicIdPartition": {"name": "tiered",
                                                    "id": w.uuid_str(TIERED_TOPIC_ID),
                                                    "partition": 0},
                               "id": w.uuid_str(segment_id)},
        "startOffset": start, "endOffset": end, "brokerId": 1,
        "maxTimestampMs": NOW - 5 * DAY, "eventTimestampMs": NOW - 4 * DAY,
        "segmentLeaderEpochs": [{"leaderEpoch": 0, "offset": start}],
        "segmentSizeInBytes": size, "customMetadata": None,
        "remoteLogSegmentState": 1}, 0))


def build(root: Path) -> dict[str, Any]:
    """Write the log dirs (module docstring); returns facts the tests assert against."""
    root = Path(root)
    facts: dict[str, Any] = {}
    b1 = w.broker_logdir(root / "b1", 1, high_watermarks=[
        ("timed", 0, 35), ("sized", 0, 45), ("truncated", 0, 35), ("lagging", 0, 15),
        ("compacted", 0, 45), ("txn", 0, 35), ("future", 0, 35), ("legacy", 0, 20),
        ("plain", 0, 30), ("tiered", 0, 40), ("__consumer_offsets", 0, 3)],
        log_start_offsets=[("truncated", 0, 25)],
        cleaner_offsets=[("compacted", 0, 10)])
    b2 = w.broker_logdir(root / "b2", 2, high_watermarks=[("timed", 0, 12), ("plain", 0, 30)])
    (root / "server.properties").write_text(SERVER_PROPERTIES)

    for d in (b1, b2):
        _partition(d / "timed-0", [[_span(0, 10, NOW - 10 * DAY)], [_span(10, 10, NOW - 5 * DAY)],
                                   [_span(20, 10, NOW - DAY)], [_span(30, 5, NOW - HOUR)]])
        _partition(d / "plain-0", [[_span(0, 10, NOW - 3 * DAY)], [_span(10, 10, NOW - 2 * HOUR)],
                                   [_span(20, 10, NOW - 30 * 60_000)]])
    # size: four equal segments and a half one; retention.bytes leaves an excess of two
    # segments and 10 bytes
    sized = [[_span(b, 10, NOW - HOUR)] for b in (0, 10, 20, 30)] + [[_span(40, 5, NOW - HOUR)]]
    _partition(b1 / "sized-0", sized)
    seg = len(sized[0][0])
    total = 4 * seg + len(sized[4][0])
    facts["sized"] = {"segment": seg, "total": total, "retention_bytes": total - 2 * seg - 10}
    _partition(b1 / "truncated-0", [[_span(0, 10, NOW - HOUR)], [_span(10, 10, NOW - HOUR)],
                                    [_span(20, 10, NOW - HOUR)], [_span(30, 5, NOW - HOUR)]])
    _partition(b1 / "lagging-0", [[_span(0, 10, NOW - 10 * DAY)], [_span(10, 10, NOW - 10 * DAY)],
                                  [_span(20, 10, NOW - 10 * DAY)], [_span(30, 5, NOW - 10 * DAY)]])
    # compacted: segment 0 was cleaned (tombstones with delete horizons), 1-3 dirty
    tomb = [w.Rec(key=b"gone%d" % i, value=None, timestamp=NOW - 20 * DAY) for i in range(2)]
    _partition(b1 / "compacted-0", [
        [w.v2_batch(tomb, base_offset=0, delete_horizon_ms=NOW - HOUR),
         w.v2_batch([w.Rec(key=b"late", value=None, timestamp=NOW - 20 * DAY)], base_offset=2,
                    delete_horizon_ms=NOW + 5 * HOUR),
         _span(3, 7, NOW - 20 * DAY)],
        [_span(10, 10, NOW - 15 * DAY)],
        [w.v2_batch([w.Rec(key=b"k3", value=None, timestamp=NOW - 14 * DAY)], base_offset=20),
         _span(21, 9, NOW - 14 * DAY)],
        [_span(30, 10, NOW - 13 * DAY)], [_span(40, 5, NOW - 12 * DAY)]])
    # compact,delete with transactions: 4141 commits, 4242 stays open from offset 22
    _partition(b1 / "txn-0", [
        [_span(0, 10, NOW - 40 * DAY)],
        [w.v2_batch(_records(10, 5, NOW - 3 * DAY), base_offset=10, producer_id=4141,
                    producer_epoch=0, base_sequence=0, transactional=True),
         w.end_txn_marker_batch(True, base_offset=15, producer_id=4141, producer_epoch=0,
                                coordinator_epoch=1, timestamp=NOW - 3 * DAY),
         _span(16, 4, NOW - 3 * DAY)],
        [_span(20, 2, NOW - 2 * DAY),
         w.v2_batch(_records(22, 3, NOW - 2 * DAY), base_offset=22, producer_id=4242,
                    producer_epoch=0, base_sequence=0, transactional=True),
         _span(25, 5, NOW - 2 * DAY)],
        [_span(30, 5, NOW - DAY)]])
    # a batch stamped a year ahead in segment 1 (offset 15, producer 77)
    facts["future_position"] = len(_span(10, 5, NOW - 9 * DAY))
    _partition(b1 / "future-0", [
        [_span(0, 10, NOW - 10 * DAY)],
        [_span(10, 5, NOW - 9 * DAY),
         w.v2_batch(_records(15, 1, NOW + YEAR, tag="f"), base_offset=15, producer_id=77,
                    producer_epoch=0, base_sequence=0),
         _span(16, 4, NOW - 9 * DAY)],
        [_span(20, 10, NOW - 8 * DAY)], [_span(30, 5, NOW - 7 * DAY)]])
    # magic 0: no timestamp anywhere; the broker goes by the files' mtimes
    legacy = [[w.legacy_message(0, b"k%d" % o, b"v%d" % o, offset=o) for o in range(b, b + 10)]
              for b in (0, 10)]
    _partition(b1 / "legacy-0", [[b"".join(s)] for s in legacy])
    for name, age in (("00000000000000000000.log", 3 * DAY), ("00000000000000000010.log", HOUR)):
        t = (NOW - age) / 1000
        os.utime(b1 / "legacy-0" / name, (t, t))
    # tiered: four segments 5 days old; offsets 0-19 copied to remote storage
    pw = _partition(b1 / "tiered-0", [[_span(b, 10, NOW - 5 * DAY)] for b in (0, 10, 20, 30)])
    del pw
    mw = w.PartitionWriter(b1 / "__remote_log_metadata-0")
    for i, (start, end) in enumerate(((0, 9), (10, 19))):
        size = (b1 / "tiered-0" / f"{start:020d}.log").stat().st_size
        mw.append(w.v2_batch([w.Rec(key=None, value=_remote_record(start, end, size,
                                                                    bytes([0xB0 + i] * 16)),
                                    timestamp=NOW - 4 * DAY)], base_offset=i))
    mw.close()
    _partition(b1 / "__consumer_offsets-0", [[_span(0, 3, NOW - 100 * DAY)]])
    # the metadata: configs (retention.bytes of sized now that its sizes are known)
    configs = _configs()
    configs[next(i for i, c in enumerate(configs) if b"sized" in c and b"retention.bytes" in c)] = \
        w.metadata_record("ConfigRecord", {"resourceType": 2, "resourceName": "sized",
                                           "name": "retention.bytes",
                                           "value": str(facts["sized"]["retention_bytes"])})
    ml = w.MetadataLogWriter(b1 / "__cluster_metadata-0")
    ml.append(configs, timestamp=NOW - 50 * DAY)
    ml.close()
    return facts


if __name__ == "__main__":  # pragma: no cover
    build(Path(sys.argv[1]))
    print(f"wrote {sys.argv[1]}")
