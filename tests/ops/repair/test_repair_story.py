"""Repair tells the partition's one story (issue 46): for each damage shape, the offsets
its manifest names lost (``lost_offsets``, ``data_lost``) are the offsets verify-crc names
lost on the input (where the input's bytes are not merely damaged but gone), and exactly
what verify-crc and verify-index name ``data-lost`` on the copy; the exit code follows.

Every log dir is written by the project's encoder: broker 1 of one cluster, ``t-0`` in
three segments (0: offsets 0-19, 20: 20-39, 40: 40-59), high watermark and recovery
point 60, unless the shape says otherwise."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import KdumpRunner
from tests.ops.repair.test_repair_fill import flip, objs, of, positions, repair, tear
from tests.ops.repair.test_repair_losses import gone_partition, three_segments
from tests.support import writer as w

SEG = {b: f"{b:020d}" for b in (0, 20, 40)}


def _part(ld: Path) -> Path:
    return ld / "t-0"


def torn_below_hw(root: Path) -> Path:
    ld = three_segments(root, 1)
    tear(_part(ld) / f"{SEG[40]}.log", 1)  # batch 50-59 cut in half
    return ld


def torn_past_witnesses(root: Path) -> Path:
    ld = three_segments(root, 1, hw=50)
    tear(_part(ld) / f"{SEG[40]}.log", 1)
    for suffix in (".index", ".timeindex"):  # a live broker's active indexes: no entry yet
        (_part(ld) / f"{SEG[40]}{suffix}").unlink()
    return ld


def zeroed_below_hw(root: Path) -> Path:
    ld = three_segments(root, 1)
    log = _part(ld) / f"{SEG[40]}.log"
    pos, size = positions(log)[1]
    data = bytearray(log.read_bytes())
    data[pos:pos + size] = bytes(size)
    log.write_bytes(bytes(data))
    return ld


def only_log_gone(root: Path) -> Path:
    ld = w.broker_logdir(root / "b1", 1, high_watermarks=[("t", 0, 60)])
    w.write_replica(_part(ld), w.replica_batches([(0, 10, 0), (10, 10, 0)]))
    (_part(ld) / f"{SEG[0]}.log").unlink()
    return ld


def middle_log_gone(root: Path) -> Path:
    ld = three_segments(root, 1)
    (_part(ld) / f"{SEG[20]}.log").unlink()
    return ld


def middle_segment_gone(root: Path) -> Path:
    ld = three_segments(root, 1)
    for suffix in (".log", ".index", ".timeindex"):
        (_part(ld) / f"{SEG[20]}{suffix}").unlink()
    return ld


def every_file_gone(root: Path) -> Path:
    ld = three_segments(root, 1)
    for f in _part(ld).iterdir():
        f.unlink()
    return ld


def partition_dir_gone(root: Path) -> Path:
    return gone_partition(root, 1, with_id=True)


def batch_cut_from_the_middle(root: Path) -> Path:
    ld = three_segments(root, 1)
    log = _part(ld) / f"{SEG[0]}.log"
    _first, (p1, s1) = positions(log)
    data = log.read_bytes()
    log.write_bytes(data[:p1] + data[p1 + s1:])  # batch 10-19 gone, 0-9 kept
    return ld


def flipped_byte(root: Path) -> Path:
    ld = three_segments(root, 1)
    flip(_part(ld) / f"{SEG[0]}.log", 1)
    return ld


#: shape -> (make it, the offsets lost, the input's bytes are gone rather than damaged)
SHAPES: dict[str, tuple[Callable[[Path], Path], list[list[int]], bool]] = {
    "torn tail below the high watermark": (torn_below_hw, [[50, 59]], True),
    "torn tail past every witness": (torn_past_witnesses, [], True),
    "zeroed tail below the high watermark": (zeroed_below_hw, [[50, 59]], True),
    "lost .log": (only_log_gone, [[0, 59]], True),
    "lost middle segment, indexes left": (middle_log_gone, [[20, 39]], True),
    "lost middle segment, all its files": (middle_segment_gone, [[20, 39]], True),
    "every file of the directory gone": (every_file_gone, [[0, 59]], True),
    "lost partition directory": (partition_dir_gone, [[20, 59]], True),
    "a batch cut from the middle": (batch_cut_from_the_middle, [[10, 19]], True),
    "a flipped byte": (flipped_byte, [[10, 19]], False),
}


def data_lost(kdump: KdumpRunner, cmd: str, path: Path) -> tuple[list[list[int]], int]:
    """The offsets ``cmd`` names lost in t-0 (data-lost findings, and a tail's
    lost_offsets), merged, and its exit code."""
    r = kdump(cmd, path, "--format", "json")
    offsets: set[int] = set()
    for o in objs(r):
        if o["type"] == "problem" and o["severity"] == "error" and o.get("lost_offsets") \
                and (o.get("topic"), o.get("partition")) in (("t", 0), (None, None)):
            first, last = o["lost_offsets"]
            offsets.update(range(first, (last if last is not None else first) + 1))
    merged: list[list[int]] = []
    for x in sorted(offsets):
        if merged and merged[-1][1] == x - 1:
            merged[-1][1] = x
        else:
            merged.append([x, x])
    return merged, r.rc


@pytest.mark.parametrize("shape", list(SHAPES))
def test_repair_tells_the_partitions_one_story(kdump: KdumpRunner, tmp_path: Path,
                                               shape: str) -> None:
    make, lost, gone = SHAPES[shape]
    ld = make(tmp_path)
    if gone:  # the input's own verdict
        assert data_lost(kdump, "verify-crc", ld) == (lost, 1 if lost else 0)
    out = tmp_path / "out"
    r = repair(kdump, [ld], out)
    (p,) = [o for o in of(objs(r), "repair_partition") if o["partition"] == 0]
    assert (p["lost_offsets"], p["data_lost"]) == (lost, bool(lost))
    damaged = bool(lost) or not gone
    assert (r.rc, objs(r)[-1]["clean"]) == ((1, False) if damaged else (0, True))
    for cmd in ("verify-crc", "verify-index"):  # the copy's verdict: the manifest's losses
        assert data_lost(kdump, cmd, out) == (lost, 1 if lost else 0), cmd
