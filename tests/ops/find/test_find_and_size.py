"""find-offset, find-time and size-report: exact answers on multi-segment partitions
written by the project's encoder, checked against brute force over what was written.

Every boundary: first and last offset, segment boundaries, compacted gaps (between
batches and inside a batch), equal timestamps, out-of-order timestamps, LogAppendTime,
below the log start, above the end; indexes missing or damaged (fallback to a scan).
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest

from tests.conftest import KdumpRunner
from tests.support import writer as w

TS = 1_700_000_000_000


@dataclass(frozen=True)
class Written:
    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None


def build_partition(root: Path, seed: int = 7) -> tuple[Path, list[Written]]:
    """orders-3: ~12 segments (small segment.bytes, index.interval.bytes 300) with
    gaps, a compacted batch, equal and out-of-order timestamps, LogAppendTime."""
    rng = random.Random(seed)
    part = root / "orders-3"
    pw = w.PartitionWriter(part, segment_bytes=2500, index_interval_bytes=300)
    written: list[Written] = []
    offset = 100  # the log starts at 100 (older segments deleted)
    ts = TS
    for n in range(120):
        count = rng.randint(1, 6)
        recs = []
        deltas = []
        delta = 0
        for _ in range(count):
            step = rng.choice([0, 0, 0, 5, 250, -400])  # equal and out-of-order timestamps
            ts += step
            key = f"k{rng.randint(0, 9)}".encode() if rng.random() > 0.2 else None
            value = rng.randbytes(rng.randint(0, 60)) if rng.random() > 0.1 else None
            recs.append(w.Rec(key, value, timestamp=ts, offset_delta=delta))
            deltas.append(delta)
            delta += 2 if n % 17 == 5 else 1  # a compacted batch: gaps inside it
        append_time = ts + 1000 if n % 23 == 11 else None
        batch = w.v2_batch(recs, base_offset=offset, log_append_time=append_time)
        pw.append(batch)
        for r, d in zip(recs, deltas, strict=True):
            written.append(Written(offset + d, append_time if append_time else r.timestamp or 0,
                                   r.key, r.value))
        offset += deltas[-1] + 1
        if n % 13 == 4:
            offset += rng.randint(1, 30)  # a gap between batches (compaction)
    pw.close()
    return part, written


@pytest.fixture(scope="module")
def partition(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Written]]:
    return build_partition(tmp_path_factory.mktemp("find"))


def _json(kdump: KdumpRunner, *args: str) -> tuple[int, dict]:
    r = kdump(*args, "--format", "json")
    return r.rc, json.loads(r.out.splitlines()[-1])


def test_partition_has_what_the_test_needs(partition: tuple[Path, list[Written]]) -> None:
    part, written = partition
    logs = sorted(part.glob("*.log"))
    assert len(logs) >= 8
    ts = [x.timestamp for x in written]
    assert any(b < a for a, b in pairwise(ts))  # out of order
    assert any(b == a for a, b in pairwise(ts))  # equal


def _offset_cases(written: list[Written], part: Path) -> list[int]:
    offsets = [x.offset for x in written]
    present = set(offsets)
    bases = [int(p.name.split(".")[0]) for p in sorted(part.glob("*.log"))]
    cases = {offsets[0], offsets[-1], offsets[0] - 1, offsets[-1] + 1, 0, offsets[-1] + 10**6}
    for b in bases:
        cases |= {b - 1, b, b + 1}
    gaps = [o for o in range(offsets[0], offsets[-1]) if o not in present]
    cases |= set(gaps[:: max(1, len(gaps) // 15)])
    cases |= set(random.Random(1).sample(offsets, 25))
    return sorted(cases)


def test_find_offset_every_boundary(kdump: KdumpRunner,
                                    partition: tuple[Path, list[Written]]) -> None:
    part, written = partition
    by_offset = {x.offset: x for x in written}
    offsets = sorted(by_offset)
    for target in _offset_cases(written, part):
        rc, ans = _json(kdump, "find-offset", str(part), str(target), "--print-data-log")
        if target in by_offset:
            x = by_offset[target]
            assert rc == 0 and ans["type"] == "found", (target, ans)
            assert ans["offset"] == target and ans["timestamp"] == x.timestamp
            assert ans["base_offset"] <= target <= ans["last_offset"]
            assert ans["key"] == (None if x.key is None else ans["key"])
            assert ans["value_encoding"] in (None, "utf8", "base64")
            seg = int(Path(ans["file"]).name.split(".")[0])
            assert seg <= target
        else:
            assert rc == 1 and ans["type"] == "not_found", (target, ans)
            below = [o for o in offsets if o < target]
            above = [o for o in offsets if o > target]
            assert ans["nearest_below"] == (below[-1] if below else None), (target, ans)
            assert ans["nearest_above"] == (above[0] if above else None), (target, ans)


def test_find_offset_reads_little_with_the_index(kdump: KdumpRunner,
                                                 partition: tuple[Path, list[Written]]) -> None:
    part, written = partition
    total = sum(p.stat().st_size for p in part.glob("*.log"))
    target = written[len(written) // 2].offset
    rc, ans = _json(kdump, "find-offset", str(part), str(target))
    assert rc == 0 and ans["method"].startswith("index")
    assert ans["bytes_read"] < total / 3


def test_find_offset_without_index_falls_back_and_says_so(
        kdump: KdumpRunner, partition: tuple[Path, list[Written]], tmp_path: Path) -> None:
    part, written = partition
    copy = tmp_path / part.name
    copy.mkdir()
    for p in part.iterdir():
        if not p.name.endswith(".index"):
            (copy / p.name).write_bytes(p.read_bytes())
    target = written[len(written) // 2].offset
    rc, ans = _json(kdump, "find-offset", str(copy), str(target))
    assert rc == 0 and ans["offset"] == target and ans["method"] == "scan"
    assert any("no usable offset index" in n for n in ans["notes"])
    # a damaged index: an entry pointing into the middle of a batch
    for p in part.glob("*.index"):
        data = bytearray(p.read_bytes())
        if len(data) >= 8:
            data[4:8] = (int.from_bytes(data[4:8], "big") + 3).to_bytes(4, "big")
        (copy / p.name).write_bytes(bytes(data))
    for x in written[:: len(written) // 10]:
        rc, ans = _json(kdump, "find-offset", str(copy), str(x.offset))
        assert rc == 0 and ans["offset"] == x.offset, ans


def _first_at_or_after(written: list[Written], target: int) -> Written | None:
    for x in sorted(written, key=lambda x: x.offset):
        if x.timestamp >= target:
            return x
    return None


def test_find_time_against_brute_force(kdump: KdumpRunner,
                                       partition: tuple[Path, list[Written]]) -> None:
    part, written = partition
    stamps = sorted({x.timestamp for x in written})
    cases = {stamps[0] - 1, stamps[0], stamps[-1], stamps[-1] + 1}
    cases |= set(random.Random(3).sample(stamps, 30))
    cases |= {s + 1 for s in random.Random(4).sample(stamps, 10)}
    for target in sorted(cases):
        rc, ans = _json(kdump, "find-time", str(part), str(target))
        want = _first_at_or_after(written, target)
        if want is None:
            assert rc == 1 and ans["type"] == "not_found", (target, ans)
        else:
            assert rc == 0, (target, ans)
            assert (ans["offset"], ans["timestamp"]) == (want.offset, want.timestamp), target


def test_find_time_iso_and_epoch_agree(kdump: KdumpRunner,
                                       partition: tuple[Path, list[Written]]) -> None:
    part, _ = partition
    _, a = _json(kdump, "find-time", str(part), "2023-11-14T22:13:20.500Z")
    _, b = _json(kdump, "find-time", str(part), str(TS + 500))
    _, c = _json(kdump, "find-time", str(part), "2023-11-15T00:13:20.500+02:00")
    assert a == b == c


def test_find_time_bad_timestamp_is_a_usage_error(kdump: KdumpRunner,
                                                  partition: tuple[Path, list[Written]]) -> None:
    part, _ = partition
    r = kdump("find-time", str(part), "yesterday")
    assert r.rc == 2 and "ISO-8601" in r.err


@pytest.mark.both_modes
def test_size_report_counts_exactly(kdump: KdumpRunner,
                                   partition: tuple[Path, list[Written]]) -> None:
    part, written = partition
    for extra in ((), ("--shallow",)):
        r = kdump("size-report", str(part), "--by", "segment", "--format", "json", *extra)
        rows = [json.loads(x) for x in r.out.splitlines()]
        # the fixture's offsets leave gaps between batches (find's cases): the partition's
        # verdict names them (issue 46: notes here, as nothing beside the directory says
        # the topic's cleanup policy; data-lost in the active segment), the rows the same
        assert {x["kind"] for x in rows if x["type"] == "problem"} <= {"data-lost",
                                                                      "offset-gap"}
        rows = [x for x in rows if x["type"] != "problem"]
        total = rows[-1]
        assert total["type"] == "total"
        assert total["records"] == len(written)
        assert total["batches"] == 120
        assert total["first_offset"] == written[0].offset
        assert total["last_offset"] == max(x.offset for x in written)
        assert total["log_bytes"] == sum(p.stat().st_size for p in part.glob("*.log"))
        assert total["bytes"] == sum(p.stat().st_size for p in part.iterdir())
        assert sum(r["records"] for r in rows[:-1]) == len(written)
        assert len(rows) - 1 == len(list(part.glob("*.log")))
        if not extra:
            assert total["key_bytes"] == sum(len(x.key or b"") for x in written)
            assert total["value_bytes"] == sum(len(x.value or b"") for x in written)
            assert total["min_timestamp"] == min(x.timestamp for x in written)
            assert total["max_timestamp"] == max(x.timestamp for x in written)
            assert total["overhead_bytes"] == total["uncompressed_bytes"] - total["payload_bytes"]


def test_size_report_top_and_levels(kdump: KdumpRunner, sample_dir: Path) -> None:
    r = kdump("size-report", str(sample_dir), "--by", "partition", "--top", "1",
              "--format", "json")
    rows = [json.loads(x) for x in r.out.splitlines()]
    assert [x["type"] for x in rows] == ["partition", "total"]
    allp = [json.loads(x) for x in kdump("size-report", str(sample_dir), "--format",
                                         "json").out.splitlines()]
    assert rows[0]["bytes"] == max(x["bytes"] for x in allp[:-1])
    assert rows[-1] == allp[-1]  # the total is over everything, not only the top rows
    topics = [json.loads(x) for x in kdump("size-report", str(sample_dir), "--by", "topic",
                                           "--format", "json").out.splitlines()]
    assert sum(t["bytes"] for t in topics[:-1]) == topics[-1]["bytes"]


@pytest.mark.both_modes
def test_size_report_text_and_table(kdump: KdumpRunner, sample_dir: Path) -> None:
    text = kdump("size-report", str(sample_dir), "--by", "topic").lines
    assert text[0].split()[:5] == ["name", "bytes", "disk_bytes", "segments", "batches"]
    allocated = sum(p.stat().st_blocks * 512 for p in sample_dir.rglob("*")
                    if p.is_file() and "-" in p.parent.name)
    assert text[-1].startswith(f"TOTAL 33576 {allocated} 7 94 267 ")
    table = kdump("size-report", str(sample_dir), "--format", "table").out
    assert "size by partition" in table and "on disk" in table and "codecs" in table
    assert max(len(line) for line in table.splitlines()) <= 100


def test_find_offset_on_a_single_segment(kdump: KdumpRunner,
                                         partition: tuple[Path, list[Written]]) -> None:
    part, written = partition
    log = sorted(part.glob("*.log"))[1]
    base = int(log.name.split(".")[0])
    inside = [x.offset for x in written if x.offset >= base][:3]
    rc, ans = _json(kdump, "find-offset", str(log), str(inside[1]))
    assert rc == 0 and ans["offset"] == inside[1] and ans["file"] == str(log)


def test_missing_partition_is_an_io_error(kdump: KdumpRunner, tmp_path: Path) -> None:
    r = kdump("find-offset", str(tmp_path / "nope-0"), "5")
    assert r.rc == 2 and "no such file" in r.err
    empty = tmp_path / "empty-0"
    empty.mkdir()
    r = kdump("find-offset", str(empty), "5")
    assert r.rc == 2 and os.fspath(empty) in r.err


def test_size_report_reads_a_segment_outside_a_partition_directory(kdump, tmp_path: Path
                                                                   ) -> None:
    """A segment copied into a folder not named topic-N was ignored (TOTAL 0, exit 0):
    it is read, its partition unknown."""
    import shutil

    root = tmp_path / "logdir"
    w.write_sample_logdir(root)
    loose = tmp_path / "evidence"
    loose.mkdir()
    shutil.copy(root / "orders-0" / "00000000000000000120.log", loose)
    whole = kdump("size-report", "--format", "text", loose, cwd=tmp_path)
    single = kdump("size-report", "--format", "text", loose / "00000000000000000120.log",
                   cwd=tmp_path)
    assert whole.rc == single.rc == 0
    du = (loose / "00000000000000000120.log").stat().st_blocks * 512
    for r in (whole, single):
        lines = r.out.splitlines()
        assert lines[1].startswith(f"(unknown-partition) 6466 {du} 1 14 42 ")
        assert lines[2].startswith(f"TOTAL 6466 {du} 1 14 42 ")
