"""find-offset and find-time against brute force, whatever the indexes hold.

Hypothesis writes many partitions with the project's encoder (tests/writer.py): several
segments, v0/v1 messages before v2 batches (as after an upgrade), CreateTime with equal
and out-of-order timestamps, LogAppendTime, gaps between batches, records removed
from inside batches and batches emptied by compaction (count 0).  Then each segment's
offset and time index is left intact, cut at a random entry (lagging, as on an active
or crashed segment whose closing entry was never written), emptied, removed,
zero-filled or zero-padded (preallocated), or zeroed from a random entry on; the
active segment may also be left preallocated as a live broker leaves it.

find-time must answer the earliest offset whose timestamp is at or after the target
(ListOffsets; LogAppendTime records carry the append time; magic 0 never matches);
find-offset must find exactly the offsets that hold a record, and otherwise name the
nearest record offsets below and above.
"""

from __future__ import annotations

import bisect
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kdump.errors import UsageError
from kdump.ops.find import find_offset, find_time
from tests.support import writer as w

PROFILE = settings(
    max_examples=int(os.environ.get("KDUMP_FIND_EXAMPLES", "60")), deadline=None,
    derandomize=os.environ.get("KDUMP_HYPOTHESIS_PROFILE", "ci") == "ci",
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TS = 1_700_000_000_000
DAMAGE = ("intact", "cut", "empty", "missing", "zeros", "prealloc", "zero_from")


@dataclass(frozen=True)
class Rec:
    offset: int
    timestamp: int
    magic: int


@st.composite
def partitions(draw: st.DrawFn) -> dict:
    """A plan: batches (kind, records) and the damage to each segment's indexes."""
    n_legacy = draw(st.integers(0, 4))
    n_v2 = draw(st.integers(1, 30))
    batches = []
    for _ in range(n_legacy):
        batches.append({
            "kind": draw(st.sampled_from(["v0", "v1", "v1-append"])),
            "ts": TS + draw(st.integers(-3000, 3000)),
            "gap": draw(st.sampled_from([0, 0, 0, 3])),
        })
    for _ in range(n_v2):
        n = draw(st.integers(1, 5))
        batches.append({
            "kind": draw(st.sampled_from(["create"] * 5 + ["append", "empty", "holes"])),
            "ts": [TS + draw(st.integers(-3000, 3000)) for _ in range(n)],
            "append_ts": TS + draw(st.integers(-3000, 3000)),
            "gap": draw(st.sampled_from([0, 0, 0, 0, 1, 7])),
            "pad": draw(st.integers(0, 120)),
        })
    return {
        "start": draw(st.sampled_from([0, 0, 50])),
        "batches": batches,
        "segment_bytes": draw(st.sampled_from([400, 700, 1500, 1 << 20])),
        "interval": draw(st.sampled_from([0, 100, 300])),
        "prealloc_active": draw(st.booleans()),
        "damage": draw(st.lists(st.tuples(st.sampled_from(DAMAGE), st.sampled_from(DAMAGE),
                                          st.integers(0, 1000)), min_size=12, max_size=12)),
        "queries": draw(st.lists(st.integers(0, 1000), min_size=6, max_size=6)),
    }


def write(root: Path, plan: dict) -> tuple[Path, list[Rec]]:
    part = root / "events-0"
    pw = w.PartitionWriter(part, segment_bytes=plan["segment_bytes"],
                           index_interval_bytes=plan["interval"],
                           preallocate_active_index=plan["prealloc_active"],
                           active_index_slots=64)
    recs: list[Rec] = []
    offset = plan["start"]
    for b in plan["batches"]:
        offset += b["gap"]
        kind = b["kind"]
        if kind in ("v0", "v1", "v1-append"):
            magic = 0 if kind == "v0" else 1
            pw.append(w.legacy_message(magic, b"k", b"v" * 20, offset=offset,
                                       timestamp=b["ts"], log_append_time=kind == "v1-append"))
            recs.append(Rec(offset, -1 if magic == 0 else b["ts"], magic))
            offset += 1
            continue
        pad = b"x" * b["pad"]
        if kind == "empty":  # the cleaner kept the batch (producer state), none of its records
            n = len(b["ts"])
            pw.append(w.v2_batch([], base_offset=offset, last_offset_delta=n - 1,
                                 first_timestamp=b["ts"][0], max_timestamp=max(b["ts"]),
                                 producer_id=7, producer_epoch=0, base_sequence=offset))
            offset += n
            continue
        deltas = [2 * i for i in range(len(b["ts"]))] if kind == "holes" else list(
            range(len(b["ts"])))
        rs = [w.Rec(b"k", pad, timestamp=t, offset_delta=d)
              for t, d in zip(b["ts"], deltas, strict=True)]
        append = b["append_ts"] if kind == "append" else None
        pw.append(w.v2_batch(rs, base_offset=offset, log_append_time=append))
        for t, d in zip(b["ts"], deltas, strict=True):
            recs.append(Rec(offset + d, append if append is not None else t, 2))
        offset += deltas[-1] + 1
    pw.close()
    for (oi, ti, cut), log in zip(plan["damage"], sorted(part.glob("*.log")), strict=False):
        damage(log.with_suffix(".index"), oi, cut, 8)
        damage(log.with_suffix(".timeindex"), ti, cut, 12)
    return part, recs


def damage(path: Path, how: str, cut: int, size: int) -> None:
    data = path.read_bytes() if path.exists() else b""
    slots = len(data) // size
    k = cut % (slots + 1)
    if how == "cut":
        path.write_bytes(data[: k * size])
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "missing":
        path.unlink(missing_ok=True)
    elif how == "zeros":
        path.write_bytes(bytes(max(len(data), 10 * size)))
    elif how == "prealloc":
        path.write_bytes(data[: k * size] + bytes(64 * size))
    elif how == "zero_from":
        path.write_bytes(data[: k * size] + bytes(len(data) - k * size))


def brute_time(recs: list[Rec], target: int) -> int | None:
    for r in recs:  # log order
        if r.magic != 0 and r.timestamp >= target:
            return r.offset
    return None


def time_targets(recs: list[Rec], picks: list[int]) -> list[int]:
    ts = sorted({r.timestamp for r in recs if r.timestamp >= 0})
    out = [0, TS - 10_000, TS + 10_000]
    for p in picks:
        if ts:
            t = ts[p % len(ts)]
            out += [t, t + 1, t - 1]
    return out


def offset_targets(recs: list[Rec], picks: list[int]) -> list[int]:
    offs = [r.offset for r in recs]
    out = [0, offs[0] - 1, offs[-1], offs[-1] + 1, offs[-1] + 50]
    for p in picks:
        o = p % (offs[-1] + 3)
        out += [o, offs[p % len(offs)]]
    return out


@PROFILE
@given(plan=partitions())
def test_find_time_equals_brute_force(plan: dict) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        part, recs = write(Path(tmp), plan)
        for target in time_targets(recs, plan["queries"]):
            res = find_time(str(part), target)
            want = brute_time(recs, target)
            got = res.record.offset if res.found and res.record is not None else None
            assert got == want, (target, res.to_json())
            if res.found:
                assert res.record is not None and res.record.timestamp >= target


@PROFILE
@given(plan=partitions())
def test_find_offset_equals_brute_force(plan: dict) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        part, recs = write(Path(tmp), plan)
        offs = [r.offset for r in recs]
        present = set(offs)
        for target in offset_targets(recs, plan["queries"]):
            res = find_offset(str(part), target)
            if target in present:
                assert res.found, (target, res.to_json())
                assert res.record is not None and res.record.offset == target
                continue
            assert not res.found and res.record is None, (target, res.to_json())
            k = bisect.bisect_left(offs, target)
            want_below = offs[k - 1] if k > 0 else None
            want_above = offs[k] if k < len(offs) else None
            assert (res.nearest_below, res.nearest_above) == (want_below, want_above), (
                target, res.to_json())


def test_lagging_time_index_on_the_active_segment(tmp_path: Path) -> None:
    """The broker's own case: records past the last time-index entry, no closing entry
    (a live or crashed broker).  Today's main answered not_found."""
    part = tmp_path / "t-0"
    pw = w.PartitionWriter(part, index_interval_bytes=0, preallocate_active_index=True)
    for i in range(10):
        pw.append(w.v2_batch([w.Rec(b"k", b"v", timestamp=TS + 10 * i)], base_offset=i))
    pw.close()
    ti = (part / "00000000000000000000.timeindex").read_bytes()
    (part / "00000000000000000000.timeindex").write_bytes(ti[:24])  # two entries only
    res = find_time(str(part), TS + 85)
    assert res.found and res.record is not None and res.record.offset == 9
    assert find_time(str(part), TS + 91).found is False


def test_zero_filled_indexes_of_a_fresh_segment(tmp_path: Path) -> None:
    part = tmp_path / "t-0"
    pw = w.PartitionWriter(part, preallocate_active_index=True)
    pw.append(w.v2_batch([w.Rec(b"k", b"v", timestamp=TS)], base_offset=0))
    pw.close()
    assert (part / "00000000000000000000.timeindex").stat().st_size > 1000
    res = find_time(str(part), TS)
    assert res.found and res.record is not None and res.record.offset == 0
    assert find_offset(str(part), 0).found


def test_negative_timestamp_is_a_usage_error(tmp_path: Path) -> None:
    part = tmp_path / "t-0"
    pw = w.PartitionWriter(part)
    pw.append(w.v2_batch([w.Rec(b"k", b"v", timestamp=TS)], base_offset=0))
    pw.close()
    with pytest.raises(UsageError):
        find_time(str(part), -1)
