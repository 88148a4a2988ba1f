"""Issue 17 (and the walk / verify-index parts of 15 and 18): data healthy brokers wrote
is read in full and raises no false alarm.  Fixtures come from tests/writer.py."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest

from kdump.files.index import OffsetIndex, TimeIndex, is_preallocated_zero, written_entries
from kdump.source import FileSource
from tests.conftest import KdumpRunner
from tests.support import writer as w

SEG = "00000000000000000000"


def findings(kdump: KdumpRunner, *args: object) -> tuple[int, list[dict], dict]:
    r = kdump(*[str(a) for a in args], "--format", "json")
    objs = [json.loads(x) for x in r.out.splitlines()]
    probs = [o for o in objs if o["type"] == "problem"]
    summary = [o for o in objs if o["type"] == "summary"]
    return r.rc, probs, (summary[-1] if summary else {})


# --- 1. nested log dirs named like partitions ------------------------------------------
def test_parent_of_log_dirs_named_like_partitions(kdump: KdumpRunner, sample_dir: Path,
                                                   tmp_path: Path) -> None:
    parent = tmp_path / "brokers"
    for name in ("kafka-logs", "kafka-logs-1", "kafka-logs-2"):
        shutil.copytree(sample_dir, parent / name)
    # kafka-logs-2 without meta.properties or checkpoints: its partitions say it
    for f in (parent / "kafka-logs-2").iterdir():
        if f.is_file():
            f.unlink()
    _, probs1, one = findings(kdump, "verify-crc", sample_dir)
    rc, probs, total = findings(kdump, "verify-crc", parent)
    # kafka-logs-2 has no cleaner-offset-checkpoint to say customers-0 is compacted: the
    # gap the cleaner left inside its closed segment is a note there (issue 46), not a loss
    gaps = [p for p in probs if p["kind"] == "offset-gap"]
    assert [p["file"] for p in gaps] == [str(parent / "kafka-logs-2" / "customers-0")]
    assert rc == 0 and len(probs) == 3 * len(probs1) + len(gaps)
    for key in ("files", "batches", "records", "bytes"):
        assert total[key] == 3 * one[key], key
    assert total["files"] > 0


# --- 2. follower-style index entries ---------------------------------------------------
def _follower_partition(root: Path) -> tuple[Path, list[int], list[bytes]]:
    """Appends of three batches each, as a follower writes its fetches: one index entry
    per append, the append's first position and its last offset (LogSegment.append)."""
    part = root / "t-0"
    pw = w.PartitionWriter(part, index_interval_bytes=100)
    parts: list[bytes] = []
    for a in range(6):
        group = [w.v2_batch([w.Rec(f"k{a}{i}".encode(), b"v" * 40)], base_offset=3 * a + i,
                            first_timestamp=1000 + 3 * a + i) for i in range(3)]
        parts.extend(group)
        pw.append(b"".join(group))
    pw.append(w.v2_batch([w.Rec(b"last", b"v")], base_offset=18, first_timestamp=2000))
    pw.close()
    pos, out = 0, []
    for p in parts:
        out.append(pos)
        pos += len(p)
    return part, out, parts


def test_follower_index_entries_are_valid(kdump: KdumpRunner, tmp_path: Path) -> None:
    part, _, _ = _follower_partition(tmp_path)
    raw = (part / f"{SEG}.index").read_bytes()
    entries = list(struct.iter_unpack(">ii", raw))
    assert entries[:-1] and all(rel % 3 == 2 for rel, _ in entries[:-1])  # appends: last offset
    rc, probs, summary = findings(kdump, "verify-index", part)
    assert rc == 0 and probs == [] and summary["clean"]
    # DumpLogSegments' mismatch lines stay in dump --format text (its contract)
    r = kdump("dump", "--format", "text", part / f"{SEG}.index")
    assert r.out.splitlines()[1:3] == ["offset: 5 position: 333", "offset: 8 position: 666"]
    assert r.err.splitlines()[-2:] == ["  Index offset: 8, log offset: 6",
                                       "  Index offset: 5, log offset: 3"]


def test_follower_entry_sending_a_lookup_astray_is_an_error(kdump: KdumpRunner,
                                                             tmp_path: Path) -> None:
    part, _pos, _ = _follower_partition(tmp_path)
    idx = part / f"{SEG}.index"
    raw = bytearray(idx.read_bytes())
    rel, p = struct.unpack_from(">ii", raw, 0)
    struct.pack_into(">i", raw, 0, rel + 3)  # an offset no batch of that append ends at
    idx.write_bytes(bytes(raw))
    rc, probs, _ = findings(kdump, "verify-index", part)
    mism = [x for x in probs if x["kind"] == "index-mismatch"]
    assert rc == 1 and len(mism) == 1 and mism[0]["position"] == 0
    assert mism[0]["severity"] == "error" and mism[0]["index_offset"] == rel + 3
    struct.pack_into(">i", raw, 0, rel - 3)  # below the batch at that position
    idx.write_bytes(bytes(raw))
    rc, probs, _ = findings(kdump, "verify-index", part)
    mism = [x for x in probs if x["kind"] == "index-mismatch"]
    assert rc == 1 and len(mism) == 1 and mism[0]["log_offset"] == rel - 2
    struct.pack_into(">ii", raw, 0, rel, p + 1)  # not on a batch boundary
    idx.write_bytes(bytes(raw))
    rc, probs, _ = findings(kdump, "verify-index", part)
    assert rc == 1 and [x["kind"] for x in probs if x["severity"] == "error"] == [
        "index-mismatch"]


# --- 3. preallocated zero indexes ------------------------------------------------------
@pytest.mark.parametrize("slots", [1, 10_485_760 // 8])
def test_fresh_active_segment_with_preallocated_indexes(kdump: KdumpRunner, tmp_path: Path,
                                                         slots: int) -> None:
    part = tmp_path / "t-0"
    pw = w.PartitionWriter(part, preallocate_active_index=True, active_index_slots=slots)
    pw.append(w.v2_batch([w.Rec(b"k", b"v")], base_offset=0, first_timestamp=1000))
    pw.close()
    assert (part / f"{SEG}.index").read_bytes() == bytes(8 * slots)
    rc, probs, summary = findings(kdump, "verify-index", part)
    assert [x for x in probs if x["kind"] == "index-mismatch"] == []
    assert rc == 0 and summary["clean"]
    r = kdump("find-time", part, "1000", "--format", "json")
    found = json.loads(r.out.splitlines()[0])
    assert r.rc == 0 and (found["type"], found["offset"]) == ("found", 0)
    r = kdump("dump", "--format", "json", part / f"{SEG}.index")
    assert [json.loads(x)["kind"] for x in r.out.splitlines()] == ["offset-index", "index-zero-slots"]
    with FileSource(str(part / f"{SEG}.index")) as src:
        idx = OffsetIndex(src, 0)
        assert is_preallocated_zero(idx) and written_entries(idx) == 0
        assert idx.lookup(0) is None
    with FileSource(str(part / f"{SEG}.timeindex")) as src:
        t = TimeIndex(src, 0)
        assert is_preallocated_zero(t) and written_entries(t) == 0


# --- 4. no density notes on healthy data; one finding per bad entry --------------------
def test_healthy_sample_has_no_index_differs(kdump: KdumpRunner, sample_dir: Path,
                                              tmp_path: Path) -> None:
    rc, probs, summary = findings(kdump, "verify-index", sample_dir)
    assert rc == 0 and probs == [] and summary["clean"]
    out = tmp_path / "rebuilt"
    _rc2, probs2, _ = findings(kdump, "verify-index", "--rebuild-into", out, sample_dir)
    assert [p for p in probs2 if p["kind"] == "index-differs"]  # reported on request


def test_entry_past_the_log_is_one_finding(kdump: KdumpRunner, tmp_path: Path) -> None:
    part, _, _ = _follower_partition(tmp_path)
    idx = part / f"{SEG}.index"
    raw = bytearray(idx.read_bytes())
    last = len(raw) - 8
    struct.pack_into(">i", raw, last + 4, 10**8)  # the last entry points past the log
    idx.write_bytes(bytes(raw))
    rc, probs, _ = findings(kdump, "verify-index", part)
    assert rc == 1 and [(p["kind"], p["position"]) for p in probs] == [("index-position", last)]


# --- 5. a cleaned segment's time index naming an offset compaction removed -------------
def _compacted_partition(root: Path) -> Path:
    part = root / "__consumer_offsets-0"
    part.mkdir(parents=True)
    log, pos = b"", []
    offsets = [0, 1, 2, 5, 6, 9]  # 3, 4, 7, 8 removed by the cleaner
    for o in offsets:
        pos.append(len(log))
        log += w.v2_batch([w.Rec(f"k{o}".encode(), b"v" * 30)], base_offset=o,
                          first_timestamp=1000 + o)
    (part / f"{SEG}.log").write_bytes(log)
    (part / f"{SEG}.index").write_bytes(w.offset_index([(5, pos[3])]))
    # entry 0 names offset 4 (removed), with the timestamp of the batch ending at 5
    (part / f"{SEG}.timeindex").write_bytes(w.time_index([(1004, 4), (1009, 9)]))
    return part


def test_cleaned_time_index_names_a_removed_offset(kdump: KdumpRunner, tmp_path: Path) -> None:
    part = _compacted_partition(tmp_path)
    rc, probs, _ = findings(kdump, "verify-index", part)
    hit = [p for p in probs if p.get("check") == "compacted-away"]
    assert len(hit) == 1 and hit[0]["severity"] == "info" and hit[0]["index_offset"] == 4
    assert "removed by compaction (cleanup.policy=compact, assumed: Kafka creates " \
        "__consumer_offsets with cleanup.policy=compact" in hit[0]["detail"]
    assert "lookups scan forward to the next batch" in hit[0]["detail"]
    assert rc == 0 and [p for p in probs if p["severity"] != "info"] == []
    r = kdump("dump", "--format", "json", part / f"{SEG}.timeindex")
    objs = [json.loads(x) for x in r.out.splitlines()]
    got = [o for o in objs if o.get("check") == "compacted-away"]
    assert len(got) == 1 and got[0]["severity"] == "info"


# --- 6. orphan indexes -----------------------------------------------------------------
def test_orphan_indexes_named_alike(kdump: KdumpRunner, tmp_path: Path) -> None:
    part, _, _ = _follower_partition(tmp_path)
    for suffix in (".index", ".timeindex"):
        shutil.copy(part / f"{SEG}{suffix}", part / f"00000000000000000100{suffix}")
    rc, probs, _ = findings(kdump, "verify-index", part)
    orphans = [(Path(p["file"]).name, p["severity"]) for p in probs if p["kind"] == "orphan-index"]
    assert rc == 1 and orphans == [("00000000000000000100.index", "warning"),
                                   ("00000000000000000100.timeindex", "warning")]
    assert all("the broker deletes" in p["detail"] for p in probs if p["kind"] == "orphan-index")
    for suffix in (".index", ".timeindex"):
        rc, probs, _ = findings(kdump, "dump", part / f"00000000000000000100{suffix}")
        kinds = [(p["kind"], p["severity"]) for p in probs]
        assert rc == 1 and ("orphan-index", "warning") in kinds
        assert "unreadable-file" not in [k for k, _ in kinds]


# --- 4. a missing index once; KRaft's metadata log without indexes is normal -------------
def test_missing_indexes_reported_once_and_kraft_metadata_is_normal(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    part, _, _ = _follower_partition(tmp_path)
    (part / f"{SEG}.index").unlink()
    (part / f"{SEG}.timeindex").unlink()
    rc, probs, summary = findings(kdump, "verify-index", part)
    assert rc == 1 and [(p["kind"], p["detail"]) for p in probs] == [
        ("index-missing", "segment has no .index or .timeindex file (the broker rebuilds it)")]
    meta = tmp_path / "kraft" / "__cluster_metadata-0"
    shutil.copytree(part, meta)
    (tmp_path / "kraft" / "recovery-point-offset-checkpoint").write_bytes(
        w.offset_checkpoint([]))
    rc, probs, summary = findings(kdump, "verify-index", tmp_path / "kraft")
    assert rc == 0 and probs == [] and summary["clean"]


# --- 7. checkpoints of a live broker's copy ----------------------------------------------
def test_checkpoints_ahead_of_a_copied_log(kdump: KdumpRunner, tmp_path: Path) -> None:
    root = tmp_path / "logdir"
    part, _, _ = _follower_partition(root)
    ahead = [("t", 0, 25)]  # the log ends at 19
    (root / "replication-offset-checkpoint").write_bytes(w.offset_checkpoint(ahead))
    (root / "recovery-point-offset-checkpoint").write_bytes(w.offset_checkpoint(ahead))
    (part / "leader-epoch-checkpoint").write_bytes(w.leader_epoch_checkpoint([]))
    rc, probs, _ = findings(kdump, "verify-index", root)
    assert rc == 1 and {p["severity"] for p in probs} == {"warning", "error"}
    # the checkpoints prove offsets 19-24 written: lost on this copy, unless it was taken
    # while the broker ran (issue 39: what witnesses prove gone is lost data)
    [lost] = [p for p in probs if p["severity"] == "error"]
    assert (lost["kind"], lost["lost_offsets"]) == ("data-lost", [19, 24])
    assert lost["detail"].endswith("; unless this is a copy of a running broker's log dir "
                                   "whose checkpoints were copied after its segments")
    # the checkpoints past the log end are the data-lost's witnesses, not findings of
    # their own (issue 46: one finding per fact)
    assert not [p for p in probs if p["kind"] == "checkpoint"]
    eps = [p for p in probs if p["kind"] == "leader-epoch"]
    assert eps and all("normal in a copy of a live broker's log dir" in p["detail"] for p in eps)


def test_summary_never_says_invalid_and_clean(kdump: KdumpRunner, tmp_path: Path) -> None:
    part, pos, _ = _follower_partition(tmp_path)
    log = part / f"{SEG}.log"
    raw = bytearray(log.read_bytes())
    raw[pos[1] + 70] ^= 0xFF  # a byte of batch 1's record: its CRC-32C no longer matches
    log.write_bytes(bytes(raw))
    rc, probs, summary = findings(kdump, "verify-index", part)
    assert summary["invalid_batches"] == 1
    assert rc == 1 and not summary["clean"]
    assert [(p["kind"], p["position"]) for p in probs if p["kind"] == "crc-mismatch"] == [
        ("crc-mismatch", pos[1])]


# --- 8. nothing Kafka-like; loose segments; -delete dirs -------------------------------
@pytest.mark.parametrize("command", ["verify-crc", "verify-index", "dump"])
def test_no_kafka_data_is_exit_2(kdump: KdumpRunner, tmp_path: Path, command: str) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    other = tmp_path / "etc"
    other.mkdir()
    (other / "hosts").write_text("127.0.0.1 localhost\n")
    for d in (empty, other):
        rc, probs, _ = findings(kdump, command, d)
        assert rc == 2 and [p["detail"] for p in probs if p["severity"] == "error"] == [
            f"no Kafka data under {d}"]


def test_loose_segment_is_read_with_a_note(kdump: KdumpRunner, tmp_path: Path) -> None:
    part, _, _ = _follower_partition(tmp_path)
    loose = tmp_path / "copied"
    loose.mkdir()
    for f in part.iterdir():
        shutil.copy(f, loose / f.name)
    rc, probs, summary = findings(kdump, "verify-index", loose)
    assert summary["files"] == 1 and summary["batches"] == 19
    assert {p["detail"] for p in probs} == {"not in a topic-partition directory: partition unknown"}
    assert rc == 0


def test_delete_dir_is_not_a_live_partition(kdump: KdumpRunner, tmp_path: Path) -> None:
    root = tmp_path / "logdir"
    part, _, _ = _follower_partition(root)
    gone = root / f"t-0.{'ab' * 16}-delete"
    shutil.copytree(part, gone)
    for f in gone.glob("*.log"):
        f.write_bytes(f.read_bytes()[:200])  # an older, shorter copy being deleted
    (root / "recovery-point-offset-checkpoint").write_bytes(w.offset_checkpoint([("t", 0, 19)]))
    _rc, probs, _ = findings(kdump, "verify-index", root)
    assert [p for p in probs if p["kind"] == "checkpoint"] == []
