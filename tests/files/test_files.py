"""Non-log files: offset and time indexes, the transaction index, producer snapshots,
checkpoints and properties; naming every file of a log dir and walking it in Kafka's order.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kdump.errors import CorruptDataError, InputError
from kdump.files.index import OffsetIndex, TimeIndex, offset_index_sanity, time_index_sanity
from kdump.files.logdir import classify, walk
from kdump.files.snapshot import read_producer_snapshot
from kdump.files.text import (
    read_checkpoint,
    read_json,
    read_partition_metadata,
    read_properties,
)
from kdump.files.txnindex import partial_tail, read_txn_index
from kdump.findings import Problem
from kdump.source import FileSource
from tests.support import writer as w

TS = w.DEFAULT_TIMESTAMP
H = bytes.fromhex


def src(tmp_path: Path, name: str, data: bytes) -> FileSource:
    p = tmp_path / name
    p.write_bytes(data)
    return FileSource(str(p))


# ---------------------------------------------------------------------------------------
# offset and time index
# ---------------------------------------------------------------------------------------


def test_offset_index_formats_16_6_entry(tmp_path: Path) -> None:
    with src(tmp_path, "00000000000000001000.index", H("00000032" "0000101b")) as s:
        idx = OffsetIndex(s, 1000)
        assert idx.slots == 1
        e = idx.entry(0)
        assert (e.slot, e.offset, e.position) == (0, 1050, 4123)


def test_time_index_formats_16_6_entry(tmp_path: Path) -> None:
    with src(tmp_path, "00000000000000001000.timeindex",
             H("0000018bcfe56800" "00000032")) as s:
        e = TimeIndex(s, 1000).entry(0)
        assert (e.timestamp, e.offset) == (TS, 1050)


def test_offset_index_used_slots_and_lookup(tmp_path: Path) -> None:
    data = w.offset_index([(3, 100), (7, 200), (12, 300)], preallocated_slots=5)
    with src(tmp_path, "00000000000000000500.index", data) as s:
        idx = OffsetIndex(s, 500)
        assert (idx.slots, idx.used_slots()) == (8, 3)
        # OffsetIndex.lookup: largest offset <= target, none -> position 0
        assert idx.lookup(499) is None
        assert idx.lookup(502) is None
        e = idx.lookup(503)
        assert e is not None and (e.offset, e.position) == (503, 100)
        e = idx.lookup(511)
        assert e is not None and (e.offset, e.position) == (507, 200)
        e = idx.lookup(10**9)
        assert e is not None and e.offset == 512


def test_time_index_used_slots_and_lookup(tmp_path: Path) -> None:
    data = w.time_index([(TS, 0), (TS + 10, 4), (TS + 20, 9)], preallocated_slots=3)
    with src(tmp_path, "00000000000000000000.timeindex", data) as s:
        idx = TimeIndex(s, 0)
        assert (idx.slots, idx.used_slots()) == (6, 3)
        assert idx.lookup(TS - 1) is None
        e = idx.lookup(TS + 15)
        assert e is not None and (e.timestamp, e.offset) == (TS + 10, 4)


def test_index_sanity_checks(tmp_path: Path) -> None:
    # OffsetIndex.sanityCheck: last offset < base, or length not a multiple of 8
    with src(tmp_path, "00000000000000000010.index", w.offset_index([(2, 5)])) as s:
        assert offset_index_sanity(OffsetIndex(s, 10)) is None
    with src(tmp_path, "a.index", w.offset_index([(2, 5)], preallocated_slots=3)) as s:
        assert offset_index_sanity(OffsetIndex(s, 10)) is None
    with src(tmp_path, "b.index", w.offset_index([(-3, 5)])) as s:
        why = offset_index_sanity(OffsetIndex(s, 10))
        assert why and "last offset is 7 which is less than the base offset 10" in why
    with src(tmp_path, "c.index", w.offset_index([(2, 5)]) + b"\x00") as s:
        why = offset_index_sanity(OffsetIndex(s, 10))
        assert why and "found 9 bytes which is neither positive nor a multiple of 8" in why
    # TimeIndex.sanityCheck: last timestamp < first; last offset < base; size % 12
    with src(tmp_path, "d.timeindex", w.time_index([(TS, 1), (TS + 1, 2)])) as s:
        assert time_index_sanity(TimeIndex(s, 0)) is None
    with src(tmp_path, "e.timeindex", w.time_index([(TS, 1)], preallocated_slots=1)) as s:
        why = time_index_sanity(TimeIndex(s, 0))
        assert why and f"last timestamp is 0 which is less than the first timestamp {TS}" in why
    with src(tmp_path, "f.timeindex", w.time_index([(TS, -1)])) as s:
        why = time_index_sanity(TimeIndex(s, 0))
        assert why and "last offset is -1 which is less than the first offset 0" in why
    with src(tmp_path, "g.timeindex", b"\x00" * 13) as s:
        why = time_index_sanity(TimeIndex(s, 0))
        assert why is not None
    with src(tmp_path, "h.timeindex", b"") as s:
        assert time_index_sanity(TimeIndex(s, 0)) is None


# ---------------------------------------------------------------------------------------
# transaction index
# ---------------------------------------------------------------------------------------


def test_txn_index_entries_and_partial_tail(tmp_path: Path) -> None:
    data = w.txn_index([(1000, 10, 42, 10), (-1, -2, -3, -4)]) + b"\x01\x02\x03"
    with src(tmp_path, "00000000000000000000.txnindex", data) as s:
        got = [(t.slot, t.position, t.version, t.producer_id, t.first_offset, t.last_offset,
                t.last_stable_offset) for t in read_txn_index(s)]
        assert got == [(0, 0, 0, 1000, 10, 42, 10), (1, 34, 0, -1, -2, -3, -4)]
        assert partial_tail(s) == 3


def test_txn_index_many_entries_streams(tmp_path: Path) -> None:
    entries = [(i, i, i + 1, i + 2) for i in range(5000)]
    with src(tmp_path, "00000000000000000000.txnindex", w.txn_index(entries)) as s:
        got = [(t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset)
               for t in read_txn_index(s)]
    assert got == entries


def test_txn_index_version_first_byte(tmp_path: Path) -> None:
    # AbortedTxn.version(): buffer.get(0), a signed byte
    with src(tmp_path, "a.txnindex", w.txn_index([(1, 1, 1, 1)], version=0x0100)
             + w.txn_index([(1, 1, 1, 1)], version=-1) + w.txn_index([(1, 1, 1, 1)], version=1)
             ) as s:
        assert [t.version for t in read_txn_index(s)] == [1, -1, 0]


# ---------------------------------------------------------------------------------------
# producer snapshot
# ---------------------------------------------------------------------------------------


def test_producer_snapshot_formats_16_6_vectors(tmp_path: Path) -> None:
    one = H("0001" "ebb582d6" "00000001" "00000000000003e8" "0002" "00000009" "0000000000000029"
            "00000009" "0000018bcfe56800" "00000005" "ffffffffffffffff")
    assert one == w.producer_snapshot([w.ProducerEntry(
        1000, epoch=2, last_sequence=9, last_offset=41, offset_delta=9, timestamp=TS,
        coordinator_epoch=5)])
    with src(tmp_path, "a.snapshot", one) as s:
        snap = read_producer_snapshot(s)
    assert (snap.version, snap.crc, snap.crc_valid) == (1, 0xEBB582D6, True)
    [e] = snap.entries
    assert (e.producer_id, e.producer_epoch, e.last_sequence, e.last_offset, e.offset_delta,
            e.timestamp, e.coordinator_epoch, e.current_txn_first_offset, e.first_sequence,
            e.has_batch_metadata) == (1000, 2, 9, 41, 9, TS, 5, -1, 0, True)
    with src(tmp_path, "b.snapshot", H("000148674bc700000000")) as s:
        snap = read_producer_snapshot(s)
    assert (snap.crc, snap.crc_valid, snap.entries) == (0x48674BC7, True, [])


def test_producer_snapshot_errors(tmp_path: Path) -> None:
    good = w.producer_snapshot([w.ProducerEntry(1, epoch=0, last_offset=5)])
    with src(tmp_path, "crc.snapshot", good[:2] + b"\x00\x00\x00\x00" + good[6:]) as s:
        snap = read_producer_snapshot(s)
    assert not snap.crc_valid and snap.crc == 0 and len(snap.entries) == 1
    with src(tmp_path, "v.snapshot", w.producer_snapshot([], version=0)) as s:
        with pytest.raises(CorruptDataError, match="unknown file version 0"):
            read_producer_snapshot(s)
    with src(tmp_path, "short.snapshot", good[:30]) as s:
        with pytest.raises(CorruptDataError, match="Snapshot failed schema validation"):
            read_producer_snapshot(s)
    with src(tmp_path, "tiny.snapshot", b"\x00") as s:
        with pytest.raises(CorruptDataError):
            read_producer_snapshot(s)


# ---------------------------------------------------------------------------------------
# text files
# ---------------------------------------------------------------------------------------


def test_offset_checkpoint(tmp_path: Path) -> None:
    data = w.offset_checkpoint([("my-topic", 0, 1234), ("my.topic", 12, 98)])
    with src(tmp_path, "replication-offset-checkpoint", data) as s:
        cp = read_checkpoint(s, "replication-offset-checkpoint")
    assert (cp.version, cp.declared_count) == (0, 2)
    assert [(e.line, e.fields) for e in cp.entries] == [
        (3, {"topic": "my-topic", "partition": 0, "high_watermark": 1234}),
        (4, {"topic": "my.topic", "partition": 12, "high_watermark": 98})]


def test_checkpoint_reader_rules(tmp_path: Path) -> None:
    # CheckpointFile: any of \n, \r\n, \r; runs of whitespace split entries
    with src(tmp_path, "leader-epoch-checkpoint", b"0\r\n2\r\n0  0\r\n3\t17\r\n") as s:
        cp = read_checkpoint(s, "leader-epoch-checkpoint")
    assert [e.fields for e in cp.entries] == [{"epoch": 0, "start_offset": 0},
                                              {"epoch": 3, "start_offset": 17}]
    with src(tmp_path, "empty", b"") as s:
        assert read_checkpoint(s, "leader-epoch-checkpoint").entries == []
    with src(tmp_path, "v1", b"1\n0\n") as s:
        with pytest.raises(CorruptDataError, match="version 1"):
            read_checkpoint(s, "leader-epoch-checkpoint")
    with src(tmp_path, "count", b"0\n2\n0 0\n") as s:
        with pytest.raises(CorruptDataError, match="expected 2 entries but found 1") as e:
            read_checkpoint(s, "leader-epoch-checkpoint")
        assert e.value.position == 2
    with src(tmp_path, "tokens", b"0\n1\nt 0\n") as s:
        with pytest.raises(CorruptDataError) as e:
            read_checkpoint(s, "recovery-point-offset-checkpoint")
        assert e.value.position == 4


def test_partition_metadata(tmp_path: Path) -> None:
    raw = w.partition_metadata(bytes(15) + b"\x01")
    assert raw == b"version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ"
    with src(tmp_path, "partition.metadata", raw) as s:
        assert read_partition_metadata(s) == {"version": 0, "topic_id": "AAAAAAAAAAAAAAAAAAAAAQ"}
    with src(tmp_path, "bad", b"version 0\n") as s:
        with pytest.raises(CorruptDataError):
            read_partition_metadata(s)


def test_meta_properties(tmp_path: Path) -> None:
    # Properties.store escapes = : # ! \\ and control characters (and a leading space);
    # Properties.load undoes it, in keys and values
    props = {"version": "1", "node.id": "3", "cluster.id": " a=b:c#!\\d\tcaf\u00e9",
             "odd key": "v", "directory.id": "S2RtcExvZ0Rpcl8wMDAwMQ"}
    raw = w.meta_properties(props)
    assert b"cluster.id=\\ a\\=b\\:c\\#\\!\\\\d\\t" in raw
    with src(tmp_path, "meta.properties", raw) as s:
        assert read_properties(s) == props
    with src(tmp_path, "u.properties", b"k\\u0041y = caf\\u00e9\n# c\n! c\nx:y\n") as s:
        assert read_properties(s) == {"kAy": "caf\u00e9", "x": "y"}


def test_json_files(tmp_path: Path) -> None:
    with src(tmp_path, ".kafka_cleanshutdown", b'{"version":0,"brokerEpoch":42}') as s:
        assert read_json(s) == {"version": 0, "brokerEpoch": 42}
    with src(tmp_path, "old", b"") as s:
        assert read_json(s) is None
    with src(tmp_path, "quorum-state", b'{"leaderId":1,') as s:
        with pytest.raises(CorruptDataError, match="not JSON"):
            read_json(s)


def test_file_source_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        FileSource(str(tmp_path / "nope"))
    with pytest.raises(InputError, match="is a directory"):
        FileSource(str(tmp_path))


# ---------------------------------------------------------------------------------------
# names and the walk
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "kind", "base", "epoch", "leftover"), [
    ("00000000000000000000.log", "log", 0, None, None),
    ("00000000000000001234.index", "offset-index", 1234, None, None),
    ("00000000000000001234.timeindex", "time-index", 1234, None, None),
    ("00000000000000001234.txnindex", "txn-index", 1234, None, None),
    ("00000000000000001234.snapshot", "producer-snapshot", 1234, None, None),
    ("00000000000000000100-0000000003.checkpoint", "kraft-snapshot", 100, 3, None),
    ("00000000000000000100-0000000003-x1y2.checkpoint.part", "kraft-snapshot", 100, 3, "part"),
    ("00000000000000000000.log.deleted", "log", 0, None, "deleted"),
    ("00000000000000000000.log.cleaned", "log", 0, None, "cleaned"),
    ("00000000000000000000.index.swap", "offset-index", 0, None, "swap"),
    ("00000000000000000007.snapshot.deleted", "producer-snapshot", 7, None, "deleted"),
    ("leader-epoch-checkpoint", "leader-epoch-checkpoint", None, None, None),
    ("leader-epoch-checkpoint.tmp", "leader-epoch-checkpoint", None, None, "tmp"),
    ("partition.metadata", "partition-metadata", None, None, None),
    ("meta.properties", "meta-properties", None, None, None),
    ("recovery-point-offset-checkpoint", "recovery-point-offset-checkpoint", None, None, None),
    ("replication-offset-checkpoint", "replication-offset-checkpoint", None, None, None),
    ("log-start-offset-checkpoint", "log-start-offset-checkpoint", None, None, None),
    ("cleaner-offset-checkpoint", "cleaner-offset-checkpoint", None, None, None),
    ("quorum-state", "quorum-state", None, None, None),
    ("bootstrap.checkpoint", "bootstrap-snapshot", None, None, None),
    (".lock", "lock", None, None, None),
    (".kafka_cleanshutdown", "clean-shutdown", None, None, None),
    ("copy-of-segment.log", "log", None, None, None),
    ("README", "unknown", None, None, None),
])
def test_classify(name: str, kind: str, base: int | None, epoch: int | None,
                  leftover: str | None) -> None:
    f = classify(f"/data/my-topic-7/{name}")
    assert (f.kind, f.base_offset, f.epoch, f.leftover, f.topic, f.partition) == (
        kind, base, epoch, leftover, "my-topic", 7)
    assert f.description


@pytest.mark.parametrize(("directory", "topic", "partition", "state"), [
    ("orders-0", "orders", 0, None),
    ("my-dashed-topic-12", "my-dashed-topic", 12, None),
    ("__consumer_offsets-49", "__consumer_offsets", 49, None),
    ("t-3.0123456789abcdef0123456789abcdef-delete", "t", 3, "delete"),
    ("t-3.0123456789abcdef0123456789abcdef-future", "t", 3, "future"),
    ("t-3.0123456789abcdef0123456789abcdef-stray", "t", 3, "stray"),
])
def test_partition_directories(directory: str, topic: str, partition: int,
                               state: str | None) -> None:
    f = classify(f"/data/{directory}/00000000000000000000.log")
    assert (f.topic, f.partition, f.partition_state) == (topic, partition, state)
    if state:
        assert f"-{state} partition directory" in f.description


def _touch(p: Path, data: bytes = b"") -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)


def test_walk_in_kafkas_order(tmp_path: Path) -> None:
    root = tmp_path / "logs"
    for part in ("orders-10", "orders-2", "orders-0", "a-b-1"):
        for base in (100, 0, 20):
            for suffix in (".txnindex", ".snapshot", ".timeindex", ".index", ".log"):
                _touch(root / part / f"{base:020d}{suffix}")
        _touch(root / part / "partition.metadata")
        _touch(root / part / "leader-epoch-checkpoint")
        _touch(root / part / f"{50:020d}.snapshot")
    for name in ("meta.properties", "recovery-point-offset-checkpoint", ".lock"):
        _touch(root / name)
    got = [os.path.relpath(f.path, root) for f in walk([str(root)])
           if not isinstance(f, Problem)]
    # the broker's .lock holds no data: the walk passes over it
    expect = ["meta.properties", "recovery-point-offset-checkpoint"]
    for part in ("a-b-1", "orders-0", "orders-2", "orders-10"):
        for base in (0, 20, 50, 100):
            sfx = ((".snapshot",) if base == 50 else
                   (".log", ".index", ".timeindex", ".txnindex", ".snapshot"))
            expect += [f"{part}/{base:020d}{s}" for s in sfx]
        expect += [f"{part}/leader-epoch-checkpoint", f"{part}/partition.metadata"]
    assert got == expect


def test_walk_marks_the_active_segment(tmp_path: Path) -> None:
    for base in (0, 5, 40):
        _touch(tmp_path / "t-0" / f"{base:020d}.log")
    _touch(tmp_path / "t-0" / f"{90:020d}.log.deleted")
    files = [f for f in walk([str(tmp_path / "t-0")]) if not isinstance(f, Problem)]
    assert [(os.path.basename(f.path), f.active) for f in files] == [
        (f"{0:020d}.log", False), (f"{5:020d}.log", False), (f"{40:020d}.log", True),
        (f"{90:020d}.log.deleted", False)]
    # a segment given on its own is active when no sibling has a larger base offset
    [f] = walk([str(tmp_path / "t-0" / f"{40:020d}.log")])
    assert not isinstance(f, Problem) and f.active
    [f] = walk([str(tmp_path / "t-0" / f"{5:020d}.log")])
    assert not isinstance(f, Problem) and not f.active


def test_walk_reports_what_it_cannot_read(tmp_path: Path) -> None:
    _touch(tmp_path / "t-0" / "sub" / "x")
    items = list(walk([str(tmp_path / "missing"), str(tmp_path / "t-0")]))
    assert [(type(i).__name__, getattr(i, "kind", None)) for i in items] == [
        ("Problem", "unreadable-file"), ("Problem", "unknown-file")]
    assert isinstance(items[1], Problem) and items[1].severity == "info"


def test_walk_a_folder_of_log_dirs(tmp_path: Path) -> None:
    _touch(tmp_path / "disk1" / "t-0" / f"{0:020d}.log")
    _touch(tmp_path / "disk2" / "t-1" / f"{0:020d}.log")
    _touch(tmp_path / "disk2" / "meta.properties")
    got = [os.path.relpath(f.path, tmp_path) for f in walk([str(tmp_path)])
           if not isinstance(f, Problem)]
    assert got == [f"disk1/t-0/{0:020d}.log", "disk2/meta.properties",
                   f"disk2/t-1/{0:020d}.log"]
