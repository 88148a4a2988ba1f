"""``kdump find-offset`` and ``kdump find-time``: answers that touch kilobytes.

find-offset follows the broker's read path: pick the segment by base offset (a binary
search over file names), the offset index entry with the largest offset at or below
the target (OffsetIndex.lookup), then scan batches forward from that position only.
find-time follows ListOffsets by timestamp (UnifiedLog.fetchOffsetByTimestamp,
LogSegment.findOffsetByTimestamp): the first segment whose largest timestamp reaches
the target, the time index to start near it, batches skipped by their max timestamp,
and the earliest record whose timestamp is at or after the target.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import fs as kfs
from .. import layouts as L
from ..errors import InputError, KdumpError, UsageError
from ..files.index import OffsetIndex, TimeIndex
from ..files.logdir import list_segments, parse_partition_dir
from ..findings import Problem
from ..records.file_records import Batch, LogReader
from ..records.record import Record
from ..records.v2 import DEFAULT_MAX_BATCH_BYTES
from ..source import FileSource

#: bytes read at a time while looking: small, so a lookup touches little
LOOKUP_CHUNK = 16 << 10
INDEX_CHUNK = 4 << 10


@dataclass(slots=True)
class FindResult:
    """The answer to a lookup (found or not)."""

    query: str  # "offset" or "timestamp"
    target: int
    found: bool
    file: str | None = None
    position: int | None = None
    batch: Batch | None = None
    record: Record | None = None
    #: how it was found
    method: str = ""
    index_entry: dict[str, int] | None = None
    bytes_scanned: int = 0
    bytes_read: int = 0
    notes: list[str] = field(default_factory=list)
    #: when not found: the nearest offsets that exist
    nearest_below: int | None = None
    nearest_above: int | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        b = self.batch
        r = self.record
        obj: dict[str, Any] = {
            "type": "found" if self.found else "not_found",
            "query": self.query,
            "target": self.target,
            "file": self.file,
            "position": self.position,
        }
        if b is not None:
            obj.update(
                base_offset=b.base_offset, last_offset=b.last_offset, count=b.count,
                batch_size=b.size, max_timestamp=b.max_timestamp,
                timestamp_type=b.timestamp_type, compression=b.compression_name,
            )
        if r is not None:
            obj.update(offset=r.offset, timestamp=r.timestamp)
        obj.update(
            method=self.method, index_entry=self.index_entry, bytes_scanned=self.bytes_scanned,
            bytes_read=self.bytes_read, notes=self.notes,
        )
        if not self.found:
            obj.update(reason=self.reason, nearest_below=self.nearest_below,
                       nearest_above=self.nearest_above)
        return obj


def _segments_of(path: str) -> tuple[str, list[tuple[int, str]]]:
    if kfs.isdir(path):
        segs = list_segments(path)
        if not segs:
            raise InputError("no .log segments in this directory", path=path)
        return path, segs
    if not kfs.exists(path):
        raise InputError("no such file or directory", path=path)
    name = os.path.basename(path)
    stem = name.split(".")[0]
    if not name.endswith(L.LOG_SUFFIX):
        raise UsageError("expected a partition directory or a .log segment", path=path)
    base = int(stem) if stem.isdigit() else 0
    return os.path.dirname(path), [(base, path)]


def _index_path(log_path: str, suffix: str) -> str:
    return log_path[: -len(L.LOG_SUFFIX)] + suffix


def find_offset(path: str, target: int, *, deep: bool = True,
                max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> FindResult:
    _, segs = _segments_of(path)
    res = FindResult("offset", target, False)
    bases = [b for b, _ in segs]
    k = bisect.bisect_right(bases, target) - 1
    if k < 0:
        res.reason = "below the log start"
        first = _first_offset(segs[0][1], res)
        res.nearest_above = first
        res.file = segs[0][1]
        return res
    # the segment whose base is at or below the target; if the target lies past its end,
    # it may be in a gap before the next segment
    base, log_path = segs[k]
    res.file = log_path
    with FileSource(log_path) as src:
        start, how = _index_start(log_path, base, target, res)
        found = _scan_for(src, start, target, res, deep, max_batch_bytes)
        res.bytes_read += src.bytes_read
        res.method = how
    if res.found or res.reason is not None:
        return res
    # past the last batch of this segment
    if k + 1 < len(segs):
        res.reason = "in a gap between segments (compaction or deleted data)"
        res.nearest_above = _first_offset(segs[k + 1][1], res)
    else:
        res.reason = "above the log end"
    res.nearest_below = found
    return res


def _index_start(log_path: str, base: int, target: int, res: FindResult) -> tuple[int, str]:
    """Where to start scanning: the offset index's answer, or 0 when it cannot be used."""
    ipath = _index_path(log_path, L.INDEX_SUFFIX)
    try:
        src = FileSource(ipath)
    except KdumpError:
        res.notes.append(f"no usable offset index ({os.path.basename(ipath)}): scanned from the "
                         "start of the segment")
        return 0, "scan"
    with src:
        idx = OffsetIndex(src, base, chunk=INDEX_CHUNK)
        if not idx.size_is_multiple:
            res.notes.append("offset index size is not a multiple of 8: ignored, scanned from "
                             "the start of the segment")
            res.bytes_read += src.bytes_read
            return 0, "scan"
        e = idx.lookup(target)
        res.bytes_read += src.bytes_read
    if e is None:
        return 0, "index (target below the first entry: scan from position 0)"
    res.index_entry = {"slot": e.slot, "offset": e.offset, "position": e.position}
    return e.position, "index"


def _scan_for(src: FileSource, start: int, target: int, res: FindResult, deep: bool,
              max_batch_bytes: int) -> int | None:
    """Scan batches from ``start``; fill ``res``.  Returns the last offset seen when the
    target is past the segment's last batch."""
    last_seen: int | None = None
    reader = LogReader(src, start=start, resync=True, chunk=LOOKUP_CHUNK)
    first_item = True
    for item in reader:
        if isinstance(item, Problem):
            if first_item and start > 0:
                # the index pointed at no batch: distrust it and scan from the beginning
                res.notes.append(f"offset index entry points at byte {start}, where no batch "
                                 f"starts ({item.kind}): scanned from the start of the segment")
                res.index_entry = None
                return _scan_for(src, 0, target, res, deep, max_batch_bytes)
            res.notes.append(f"damage at byte {item.position}: {item.kind}")
            first_item = False
            continue
        b = item
        if first_item and start > 0 and b.last_offset > target:
            res.notes.append("offset index entry lies beyond the target: scanned from the start")
            res.index_entry = None
            return _scan_for(src, 0, target, res, deep, max_batch_bytes)
        first_item = False
        res.bytes_scanned = b.position + b.size - start
        if b.last_offset < target:
            last_seen = b.last_offset
            continue
        base = b.base_offset
        if base > target:
            res.reason = "in a gap in the offsets (compaction, or aborted/removed data)"
            res.nearest_below = last_seen
            res.nearest_above = base
            res.position = b.position
            return last_seen
        res.position = b.position
        res.batch = b
        res.found = True
        if deep:
            prev = None
            try:
                for rec in b.records(max_batch_bytes):
                    if rec.offset == target:
                        res.record = rec
                        break
                    if rec.offset > target:
                        res.found = False
                        res.reason = "removed by compaction from inside its batch"
                        res.nearest_below = prev
                        res.nearest_above = rec.offset
                        break
                    prev = rec.offset
            except KdumpError as e:
                res.notes.append(f"records of the batch cannot be read: {e.message}")
        return last_seen
    return last_seen


def _first_offset(log_path: str, res: FindResult) -> int | None:
    try:
        with FileSource(log_path) as src:
            for item in LogReader(src, chunk=LOOKUP_CHUNK):
                if not isinstance(item, Problem):
                    res.bytes_read += src.bytes_read
                    return item.base_offset
            res.bytes_read += src.bytes_read
    except KdumpError:
        return None
    return None


# --- by time -----------------------------------------------------------------------------
def _largest_timestamp(log_path: str, base: int, res: FindResult) -> int:
    """LogSegment.largestTimestamp: the time index's last entry (the broker's
    maxTimestampSoFar); without a usable one, the batches' max timestamps."""
    tpath = _index_path(log_path, L.TIME_INDEX_SUFFIX)
    try:
        with FileSource(tpath) as src:
            t = TimeIndex(src, base, chunk=INDEX_CHUNK)
            used = t.used_slots() if t.size_is_multiple else 0
            if used:
                ts = t.entry(used - 1).timestamp
                res.bytes_read += src.bytes_read
                if ts >= 0:
                    return ts
            res.bytes_read += src.bytes_read
    except KdumpError:
        pass
    top = L.NO_TIMESTAMP
    with FileSource(log_path) as src:
        for item in LogReader(src, chunk=LOOKUP_CHUNK):
            if not isinstance(item, Problem):
                top = max(top, item.max_timestamp)
        res.bytes_read += src.bytes_read
    return top


def find_time(path: str, target: int, *, max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
              ) -> FindResult:
    _, segs = _segments_of(path)
    res = FindResult("timestamp", target, False)
    for base, log_path in segs:
        if _largest_timestamp(log_path, base, res) < target:
            continue
        res.file = log_path
        start = 0
        how = "scan"
        tpath = _index_path(log_path, L.TIME_INDEX_SUFFIX)
        try:
            with FileSource(tpath) as tsrc:
                t = TimeIndex(tsrc, base, chunk=INDEX_CHUNK)
                te = t.lookup(target) if t.size_is_multiple else None
                res.bytes_read += tsrc.bytes_read
            offset_hint = te.offset if te is not None else base
            with FileSource(_index_path(log_path, L.INDEX_SUFFIX)) as isrc:
                oe = OffsetIndex(isrc, base, chunk=INDEX_CHUNK).lookup(offset_hint)
                res.bytes_read += isrc.bytes_read
            if oe is not None:
                start = oe.position
                how = "time index + offset index"
                res.index_entry = {"slot": oe.slot, "offset": oe.offset, "position": oe.position}
            else:
                how = "time index (no entry at or below the target: scan from position 0)"
        except KdumpError:
            res.notes.append("no usable index: scanned from the start of the segment")
        res.method = how
        with FileSource(log_path) as src:
            hit = _search_timestamp(src, start, target, res, max_batch_bytes)
            res.bytes_read += src.bytes_read
        if hit:
            return res
    res.reason = "no record has a timestamp at or after the target"
    return res


def _search_timestamp(src: FileSource, start: int, target: int, res: FindResult,
                      max_batch_bytes: int) -> bool:
    """FileRecords.searchForTimestamp: the first record at or after ``target`` in batches
    whose max timestamp reaches it."""
    for item in _batches(src, start):
        b = item
        if b.max_timestamp < target:
            continue
        try:
            for rec in b.records(max_batch_bytes):
                if rec.timestamp >= target:
                    res.found = True
                    res.batch = b
                    res.record = rec
                    res.position = b.position
                    res.bytes_scanned = b.position + b.size - start
                    return True
        except KdumpError as e:
            res.notes.append(f"batch at byte {b.position} cannot be read: {e.message}")
    return False


def _batches(src: FileSource, start: int) -> Iterator[Batch]:
    for item in LogReader(src, start=start, chunk=LOOKUP_CHUNK):
        if not isinstance(item, Problem):
            yield item


def parse_timestamp(text: str) -> int:
    """Epoch milliseconds, or ISO-8601 (``2024-05-01T09:14:00Z``, ``+02:00`` offsets
    allowed; no offset means UTC)."""
    from datetime import datetime, timezone

    t = text.strip()
    if t.lstrip("-").isdigit():
        try:
            return int(t)
        except ValueError:  # past 4300 digits, or digits int() does not take ('²')
            raise UsageError(f"{text[:40]!r} is not a timestamp in epoch milliseconds") from None
    iso = t[:-1] + "+00:00" if t.endswith(("Z", "z")) else t
    try:
        dt = datetime.fromisoformat(iso)
    except ValueError:
        raise UsageError(f"{text!r} is neither epoch milliseconds nor an ISO-8601 time "
                         "(e.g. 2024-05-01T09:14:00Z)") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    # whole milliseconds, computed exactly (no float rounding)
    delta = dt - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


__all__ = ["FindResult", "find_offset", "find_time", "parse_partition_dir", "parse_timestamp"]
