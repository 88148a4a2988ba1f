"""Issue 17 (and the walk / verify-index parts of 15 and 18): data healthy brokers wrote
is read in full and raises no false alarm.  Fixtures come from tests/writer.py."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest
import writer as w
from conftest import KdumpRunner

from kdump.files.index import OffsetIndex, TimeIndex, is_preallocated_zero, written_entries
from kdump.source import FileSource

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
    assert rc == 0 and len(probs) == 3 * len(probs1)
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
    part, pos, _ = _follower_partition(tmp_path)
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
    with FileSource(str(part / f"{SEG}.index")) as src:
        idx = OffsetIndex(src, 0)
        assert is_preallocated_zero(idx) and written_entries(idx) == 0
        assert idx.lookup(0) is None
    with FileSource(str(part / f"{SEG}.timeindex")) as src:
        t = TimeIndex(src, 0)
        assert is_preallocated_zero(t) and written_entries(t) == 0
