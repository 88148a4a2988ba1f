"""The seed corpus the mutation fuzzer starts from: every kind of file kdump reads,
all written by ``tests/writer.py``.

``build_corpus(root)`` writes a broker log dir: the writer's sample (v2 batches of
every codec, transactions, a ``.txnindex``, producer snapshots, leader epochs, legacy
magic 0/1 messages and wrappers, a compacted partition, the log-dir checkpoints,
``meta.properties``), plus a live partition (preallocated indexes, an active
segment), ``__consumer_offsets-0`` (offset commits and group metadata, a
transactional commit), ``__cluster_metadata-0`` (a KRaft log and a KRaft snapshot
``.checkpoint``, ``quorum-state``), and ``__transaction_state-0``.

Beside it, ``kafka4_root(root)`` (``<root>-kafka4``) holds the family of cases that
run the commands reading a whole log dir of Kafka 4.x records (tests/harness.py's
:data:`~tests.fuzz.harness.KAFKA4_COMMANDS`): the log dir of tests/support/report_fixture.py,
with ``_schemas`` and the schema-registry data topics, ``__cluster_metadata`` (4.x
records, metadata.version 27), ``__consumer_offsets`` (classic, consumer, streams and
share groups) and ``__share_group_state``.
"""

from __future__ import annotations

import struct
from pathlib import Path

from tests.support import writer as w

TS = w.DEFAULT_TIMESTAMP


def _str16(s: str) -> bytes:
    raw = s.encode()
    return struct.pack(">h", len(raw)) + raw


def _compact(s: str) -> bytes:
    raw = s.encode()
    return w.uvarint(len(raw) + 1) + raw


def offset_commit(group: str, topic: str, partition: int, offset: int,
                  ts: int = TS) -> tuple[bytes, bytes]:
    """OffsetCommitKey v1 / OffsetCommitValue v3 (non-flexible), written by hand."""
    key = struct.pack(">h", 1) + _str16(group) + _str16(topic) + struct.pack(">i", partition)
    value = struct.pack(">hqi", 3, offset, -1) + _str16("") + struct.pack(">q", ts)
    return key, value


def group_metadata(group: str, generation: int) -> tuple[bytes, bytes]:
    """GroupMetadataKey v2 / GroupMetadataValue v3 with no members."""
    key = struct.pack(">h", 2) + _str16(group)
    value = (struct.pack(">h", 3) + _str16("consumer") + struct.pack(">i", generation)
             + _str16("range") + _str16("member-1") + struct.pack(">q", TS)
             + struct.pack(">i", 0))
    return key, value


def metadata_frame(api_key: int, version: int, body: bytes) -> bytes:
    return w.uvarint(1) + w.uvarint(api_key) + w.uvarint(version) + body


def topic_record(name: str, topic_id: bytes) -> bytes:
    """TopicRecord v0 (api key 2, flexible): name, topicId, no tagged fields."""
    return metadata_frame(2, 0, _compact(name) + topic_id + b"\x00")


def partition_change_record(topic_id: bytes, partition: int, leader: int) -> bytes:
    """PartitionChangeRecord v0 (api key 5): partitionId, topicId, leader as a tag."""
    tag = w.uvarint(2) + w.uvarint(4) + struct.pack(">i", leader)  # tag 2 Leader, 4 bytes
    return metadata_frame(5, 0, struct.pack(">i", partition) + topic_id + w.uvarint(1) + tag)


def txn_log(txn_id: str, pid: int, epoch: int) -> tuple[bytes, bytes]:
    """TransactionLogKey v0 / TransactionLogValue v0 (Empty state, no partitions)."""
    key = struct.pack(">h", 0) + _str16(txn_id)
    value = (struct.pack(">hqhi", 0, pid, epoch, 60000) + struct.pack(">b", 0)
             + struct.pack(">i", -1) + struct.pack(">qq", TS, TS))
    return key, value


def _write_live(root: Path) -> None:
    """A partition caught live: two segments, the active one with preallocated (zero
    padded) indexes, as a copy of a running broker's directory looks."""
    pw = w.PartitionWriter(root / "live-0", segment_bytes=2048, index_interval_bytes=256,
                           preallocate_active_index=True, active_index_slots=24)
    off = 0
    for b in range(14):
        recs = [w.Rec(f"k{off + i}".encode(), b"v" * (20 + 7 * i), [("h", b"x")],
                      timestamp=TS + 10 * (off + i)) for i in range(4)]
        pw.append(w.v2_batch(recs, base_offset=off, codec=[w.NONE, w.LZ4][b % 2],
                             producer_id=77, producer_epoch=0, base_sequence=off,
                             partition_leader_epoch=5))
        off += 4
    pw.write_producer_snapshot()
    pw.write_leader_epoch_checkpoint()
    pw.close()


def _write_consumer_offsets(root: Path) -> None:
    pw = w.PartitionWriter(root / "__consumer_offsets-0", segment_bytes=4096,
                           index_interval_bytes=256)
    off = 0
    for b in range(6):
        recs = []
        for i in range(3):
            k, v = offset_commit(f"group-{b % 2}", "orders", i, 10 * b + i, TS + b)
            recs.append(w.Rec(k, v, timestamp=TS + b))
        k, v = group_metadata(f"group-{b % 2}", b)
        recs.append(w.Rec(k, v, timestamp=TS + b))
        if b == 4:
            recs.append(w.Rec(offset_commit("group-0", "orders", 0, 0)[0], None,
                              timestamp=TS + b))  # tombstone
        pw.append(w.v2_batch(recs, base_offset=off, codec=[w.NONE, w.GZIP, w.ZSTD][b % 3]))
        off += len(recs)
    k, v = offset_commit("txn-group", "orders", 0, 99)
    pw.append(w.v2_batch([w.Rec(k, v, timestamp=TS)], base_offset=off, producer_id=900,
                         producer_epoch=1, base_sequence=0, transactional=True))
    off += 1
    pw.append(w.end_txn_marker_batch(True, base_offset=off, producer_id=900, producer_epoch=1,
                                     coordinator_epoch=3))
    pw.write_producer_snapshot()
    pw.close()


def _write_transaction_state(root: Path) -> None:
    pw = w.PartitionWriter(root / "__transaction_state-0")
    recs = [w.Rec(*txn_log(f"txn-{i}", 500 + i, i), timestamp=TS) for i in range(3)]
    pw.append(w.v2_batch(recs, base_offset=0))
    pw.close()


def _write_cluster_metadata(root: Path) -> None:
    d = root / "__cluster_metadata-0"
    tid = bytes(range(16))
    pw = w.PartitionWriter(d)
    pw.append(w.kraft_control_batch(
        [(w.CONTROL_LEADER_CHANGE, w.leader_change_value(1, [1, 2, 3], [1, 2]))],
        base_offset=0, partition_leader_epoch=1))
    pw.append(w.v2_batch([w.Rec(None, topic_record("orders", tid), timestamp=TS),
                          w.Rec(None, partition_change_record(tid, 0, 2), timestamp=TS)],
                         base_offset=1, partition_leader_epoch=1))
    pw.append(w.v2_batch([w.Rec(None, partition_change_record(tid, 1, 3), timestamp=TS)],
                         base_offset=3, partition_leader_epoch=1, codec=w.LZ4))
    pw.close()
    snap = (
        w.kraft_control_batch([(w.CONTROL_SNAPSHOT_HEADER, w.snapshot_header_value(TS)),
                               (w.CONTROL_KRAFT_VERSION, w.kraft_version_value(1)),
                               (w.CONTROL_KRAFT_VOTERS, w.voters_value(
                                   [(1, bytes(16), [("CONTROLLER", "localhost", 9093)], 0, 1)]))],
                              base_offset=0)
        + w.v2_batch([w.Rec(None, topic_record("orders", tid), timestamp=TS),
                      w.Rec(None, partition_change_record(tid, 0, 1), timestamp=TS)],
                     base_offset=3, codec=w.ZSTD)
        + w.kraft_control_batch([(w.CONTROL_SNAPSHOT_FOOTER, w.snapshot_footer_value())],
                                base_offset=5)
    )
    (d / "00000000000000000004-0000000001.checkpoint").write_bytes(snap)
    (d / "quorum-state").write_bytes(
        b'{"leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,'
        b'"currentVoters":[{"voterId":1}],"data_version":0}')
    (d / "partition.metadata").write_bytes(w.partition_metadata(tid))


def kafka4_root(root: Path) -> Path:
    """Where :func:`build_corpus` writes the Kafka 4.x log dir of the corpus ``root``."""
    return Path(root).with_name(Path(root).name + "-kafka4")


def _write_kafka4(dest: Path) -> None:
    """tests/support/report_fixture.py's broker log dir, moved to ``dest``."""
    import shutil
    import tempfile

    from tests.support import report_fixture
    with tempfile.TemporaryDirectory() as tmp:
        shutil.move(str(report_fixture.kafka4_logdir(Path(tmp))), str(dest))


def build_corpus(root: Path) -> Path:
    """Write the seed corpus under ``root`` (a broker log dir), and the Kafka 4.x log dir
    under :func:`kafka4_root`; returns ``root``."""
    root = Path(root)
    w.write_sample_logdir(root)
    _write_live(root)
    _write_consumer_offsets(root)
    _write_transaction_state(root)
    _write_cluster_metadata(root)
    _write_kafka4(kafka4_root(root))
    return root
