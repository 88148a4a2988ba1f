"""The partition verdict's API (kdump.ops.verdict), as repair and the other commands take
it: one object per partition, its fields from what the files prove and what the scan
framed, and one finding per fact."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kdump.findings import ERROR, Problem
from kdump.ops.verdict import (
    LogDirVerdict,
    LostTracker,
    PartitionVerdict,
    Tail,
    held_pieces,
    judge_log_dir,
    judge_partition,
    log_dirs_of,
)
from tests.conftest import KdumpRunner
from tests.ops.test_same_story import cut_batch, lost_directory, torn_below, torn_past

SEG = "00000000000000000000"


def test_a_gap_between_batches_is_data_lost_with_its_witnesses(tmp_path: Path) -> None:
    ld = tmp_path / "ld"
    cut_batch(ld)
    v = judge_partition(ld / "t-0", held_pieces(0, 49, [(25, 29)]))
    assert isinstance(v, PartitionVerdict)
    assert (v.topic, v.partition, v.state, v.log_start, v.expected_start) == ("t", 0, None,
                                                                             None, 0)
    assert (v.cleanup.compacted, v.cleanup.known) == (False, False)
    assert v.held == ((0, 24), (30, 49)) and v.log_end == 50
    assert (v.lost_ranges, v.data_lost, v.damaged, v.offsets_lost) == ([(25, 29)], True,
                                                                       True, 5)
    assert v.highest_written == 50 and v.reserve_to == 50
    [p] = v.findings()
    assert (p.kind, p.severity, p.extra["lost_offsets"]) == ("data-lost", ERROR, [25, 29])
    assert [w["witness"] for w in p.extra["witnesses"]] == ["high-watermark", "batch"]
    assert v.to_json()["lost_ranges"] == [[25, 29]]


def test_a_tail_names_its_loss_once(tmp_path: Path) -> None:
    """A torn tail below the high watermark: the tail's finding carries the range; the
    verdict counts it lost and gives no second data-lost."""
    ld = tmp_path / "ld"
    torn_below(ld)
    log = str(ld / "t-0" / f"{SEG}.log")
    torn = Problem(log, 500, "truncated", "cut", base_offset=50, severity=ERROR,
                   extra={"lost_offsets": [50, 99]})
    tail = Tail.of(torn, active=True)
    assert tail is not None and (tail.kind, tail.lost, tail.in_flight) == ("torn-lost",
                                                                          (50, 99), False)
    v = judge_partition(ld / "t-0", [(0, 49)], [tail])
    assert v is not None
    assert v.lost_ranges == [(50, 99)] and v.findings() == []
    assert v.findings(tails=True) == [torn]
    assert v.reserve_to == 100


def test_a_tail_in_flight_is_not_damage(tmp_path: Path) -> None:
    ld = tmp_path / "ld"
    torn_past(ld)
    log = str(ld / "t-0" / f"{SEG}.log")
    live = Tail.of(Problem(log, 500, "in-flight", "half", base_offset=55, severity="info"),
                   active=True)
    assert live is not None
    v = judge_partition(ld / "t-0", [(0, 54)], [live])
    assert v is not None
    assert (v.data_lost, v.damaged, v.in_flight) == (False, False, live)


def test_a_log_dir_names_the_partition_gone(tmp_path: Path) -> None:
    ld = tmp_path / "ld"
    lost_directory(ld)
    v = judge_log_dir(ld)
    assert isinstance(v, LogDirVerdict) and v.data_lost
    [m] = v.missing
    assert (m.topic, m.partition, m.log_start, m.highest_written, m.start_known) == (
        "u", 0, 4, 36, True)
    assert m.lost is not None and (m.lost.first, m.lost.last) == (4, 35)
    [p] = v.findings()
    assert (p.path, p.kind, p.extra["lost_offsets"]) == (str(ld / "u-0"), "data-lost", [4, 35])
    # renamed for deletion: Kafka's own doing
    (ld / "u-0.0123456789abcdef0123456789abcdef-delete").mkdir()
    [p] = judge_log_dir(ld).findings()
    assert (p.kind, p.severity) == ("checkpoint", "info") and "to be deleted" in p.detail


def test_the_tracker_keeps_every_verdict(tmp_path: Path) -> None:
    ld = tmp_path / "ld"
    lost_directory(ld)
    t = LostTracker([str(ld)])
    found = t.partition(str(ld / "t-0"), [(0, 19)]) + t.finish()
    assert [p.kind for p in found] == ["data-lost"]
    assert set(t.verdicts) == {str(ld / "t-0")} and not t.verdicts[str(ld / "t-0")].data_lost
    assert t.log_dirs[str(ld)].data_lost


def test_no_false_alarm_from_kafkas_own_gaps(kdump: KdumpRunner, tmp_path: Path) -> None:
    """Gaps Kafka makes are no loss: a compacted topic's (its cleaner-offset-checkpoint
    names it), in its active segment too (a follower appends its leader's cleaned
    batches as they are); a log start moved by deleteRecords past the first batches;
    transactional markers, legacy v0/v1 messages and compressed wrappers."""
    import json

    from tests.support import writer as w

    ld = tmp_path / "ld"
    ld.mkdir()
    (ld / "meta.properties").write_bytes(w.meta_properties(
        {"version": "1", "node.id": "1", "cluster.id": "c"}))
    (ld / "replication-offset-checkpoint").write_bytes(w.offset_checkpoint(
        [("c", 0, 93), ("d", 0, 30), ("l", 0, 30), ("x", 0, 7)]))
    (ld / "cleaner-offset-checkpoint").write_bytes(w.offset_checkpoint([("c", 0, 50)]))
    (ld / "log-start-offset-checkpoint").write_bytes(w.offset_checkpoint([("d", 0, 12)]))
    pw = w.PartitionWriter(ld / "c-0")
    for o in (0, 7, 20, 33, 50, 64, 90):  # gaps everywhere, the active segment's too
        if o == 50:
            pw.roll()
        pw.append(w.v2_batch(w.numbered_records(o, 3), base_offset=o))
    pw.close()
    pw = w.PartitionWriter(ld / "d-0")
    for o in range(0, 30, 5):
        pw.append(w.v2_batch(w.numbered_records(o, 5), base_offset=o))
    pw.close()
    pw = w.PartitionWriter(ld / "l-0")
    off = 0
    for _ in range(3):
        for _ in range(5):
            pw.append(w.legacy_message(1, b"k", b"v", offset=off, timestamp=w.TS0 + off))
            off += 1
        recs = [w.Rec(b"k", b"c", timestamp=w.TS0 + off + i) for i in range(5)]
        pw.append(w.legacy_compressed(1, recs, last_offset=off + 4, codec=w.GZIP),
                  first_offset=off)
        off += 5
    pw.close()
    pw = w.PartitionWriter(ld / "x-0")
    pw.append(w.v2_batch(w.numbered_records(0, 3), base_offset=0, transactional=True,
                         producer_id=7, producer_epoch=0))
    pw.append(w.end_txn_marker_batch(False, base_offset=3, producer_id=7, producer_epoch=0,
                                     coordinator_epoch=0))
    pw.append(w.v2_batch(w.numbered_records(4, 3), base_offset=4))
    pw.close()
    for command in ("verify-crc", "verify-index", "size-report"):
        r = kdump(command, "--format", "json", ld)
        probs = [json.loads(x) for x in r.out.splitlines() if '"problem"' in x]
        assert not [p for p in probs if p["severity"] != "info"], (command, probs)
        assert r.rc == 0, command


def test_a_log_dir_named_like_a_partition_is_still_a_log_dir(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """Log dirs are often named broker-1, kafka-0: their name parses as a partition
    directory's, but their own files (meta.properties, checkpoints) say what they are, and
    a partition their checkpoints name with no directory is judged as in any log dir."""
    ld = tmp_path / "broker-1"
    lost_directory(ld)
    assert log_dirs_of([str(ld)]) == [str(ld)]
    r = kdump("verify-crc", ld)
    assert r.rc == 1 and r.lines[0].startswith(f"{ld / 'u-0'}: data-lost: offsets 4-35 "), r.out
    # a real partition directory given alone names no log dir
    assert log_dirs_of([str(ld / "t-0")]) == []


def test_a_partition_there_but_unreadable_is_unknown_not_lost(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A partition directory that is there but cannot be looked at (stat or listing
    fails: permission, I/O) holds what nobody can tell: no data-lost, neither from the
    log dir's verdict nor from the partition's (the walk's unreadable-file is the
    finding); a directory gone still is lost."""
    import os

    from kdump import fs as kfs
    from kdump.ops.verdict import witnesses

    ld = tmp_path / "ld"
    lost_directory(ld)
    (ld / "u-0").mkdir()
    real_stat, real_listdir = os.stat, witnesses.Listing.listdir

    def stat(path: Any, *a: Any, **k: Any) -> Any:
        if os.fspath(path) == str(ld / "u-0"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_stat(path, *a, **k)

    monkeypatch.setattr(os, "stat", stat)
    assert judge_log_dir(ld).missing == ()
    monkeypatch.setattr(os, "stat", real_stat)

    def listdir(self: Any, path: str) -> list[str]:
        if os.path.normpath(path) == str(ld / "u-0"):
            raise PermissionError(13, "Permission denied", path)
        return real_listdir(self, path)

    monkeypatch.setattr(witnesses.Listing, "listdir", listdir)
    assert judge_partition(ld / "u-0") is None
    t = LostTracker([str(ld)])
    assert [p for p in t.partition(str(ld / "t-0"), [(0, 19)]) + t.finish()
            if p.kind == "data-lost"] == []
    # the log dir itself not listable: nothing is known of its partitions
    real_kfs_listdir = kfs.listdir
    monkeypatch.setattr(kfs, "listdir", lambda p: (_ for _ in ()).throw(
        PermissionError(13, "Permission denied", p)) if os.path.normpath(p) == str(ld)
        else real_kfs_listdir(p))
    assert judge_log_dir(ld).missing == ()
    monkeypatch.undo()
    (ld / "u-0").rmdir()
    assert [m.topic for m in judge_log_dir(ld).missing] == ["u"]
