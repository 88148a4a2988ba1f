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
from ..model import shape
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
        return shape(obj.pop("type"), obj)


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


def _is_batch_start(src: FileSource, pos: int, max_batch_bytes: int) -> Batch | None:
    """The intact batch starting at ``pos`` (checksum verified), or None: an index entry
    is trusted only when it points at one."""
    try:
        for item in LogReader(src, start=pos, resync=False, chunk=LOOKUP_CHUNK,
                              max_batch_bytes=max_batch_bytes):
            if isinstance(item, Problem) or not item.crc_valid:
                return None
            return item
    except KdumpError:
        return None
    return None


def _has_records(b: Batch) -> bool:
    """Whether the batch may hold records (v2: its header count; a cleaned batch keeps
    its offsets but may hold none)."""
    return b.count is None or b.count > 0


def _offsets_of(b: Batch, max_batch_bytes: int, res: FindResult, *, above: int | None = None,
                below: int | None = None) -> Iterator[int]:
    """The offsets of the records the batch holds, streamed (a wrapper of a million
    messages is never held whole); a batch whose records cannot be read ends with a
    note.  ``above``: stop at the first offset above it."""
    if not _has_records(b):
        return
    try:
        for r in b.records(max_batch_bytes):
            if below is not None and r.offset >= below:
                return
            yield r.offset
            if above is not None and r.offset > above:
                return
    except KdumpError as e:
        res.notes.append(f"records of the batch at byte {b.position} cannot be read: "
                         f"{e.message}")


def _last_offset_below(b: Batch, target: int, max_batch_bytes: int, res: FindResult
                       ) -> int | None:
    last = None
    for o in _offsets_of(b, max_batch_bytes, res, below=target):
        last = o
    return last


def _index_start(src: FileSource, log_path: str, base: int, target: int, res: FindResult,
                 max_batch_bytes: int) -> tuple[int, str]:
    """Where to start scanning for offset ``target``: the offset index's entry with the
    largest offset at or below it, when that entry points at an intact batch whose first
    offset is at or below the target (so no earlier batch can hold it); else 0."""
    ipath = _index_path(log_path, L.INDEX_SUFFIX)
    try:
        isrc = FileSource(ipath)
    except KdumpError:
        res.notes.append(f"no usable offset index ({os.path.basename(ipath)}): scanned from the "
                         "start of the segment")
        return 0, "scan"
    with isrc:
        idx = OffsetIndex(isrc, base, chunk=INDEX_CHUNK)
        if not idx.size_is_multiple:
            res.notes.append("offset index size is not a multiple of 8: ignored, scanned from "
                             "the start of the segment")
            res.bytes_read += isrc.bytes_read
            return 0, "scan"
        try:
            e = idx.lookup(target)
        except KdumpError:
            e = None
        res.bytes_read += isrc.bytes_read
    if e is None or e.position == 0:
        return 0, "index (target below the first entry: scan from position 0)"
    b = _is_batch_start(src, e.position, max_batch_bytes)
    if b is None or b.base_offset > target or b.base_offset < base:
        res.notes.append(f"offset index entry {e.slot} (offset {e.offset}, position "
                         f"{e.position}) does not point at a batch at or below the target: "
                         "ignored, scanned from the start of the segment")
        return 0, "scan"
    res.index_entry = {"slot": e.slot, "offset": e.offset, "position": e.position}
    return e.position, "index"


def find_offset(path: str, target: int, *, deep: bool = True,
                max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> FindResult:
    """The record at offset ``target``.  Found only when a record with that offset
    exists: a batch whose offset range covers it but which holds no record for it (a
    cleaned batch) does not count.  When not found, the nearest record offsets below
    and above are named."""
    _, segs = _segments_of(path)
    res = FindResult("offset", target, False)
    bases = [b for b, _ in segs]
    k = bisect.bisect_right(bases, target) - 1
    if k < 0:
        res.reason = "below the log start"
        res.file = segs[0][1]
        res.nearest_above = _first_record_after(segs, 0, target, res, max_batch_bytes)
        return res
    base, log_path = segs[k]
    res.file = log_path
    below: int | None = None
    above: int | None = None
    with FileSource(log_path) as src:
        start, how = _index_start(src, log_path, base, target, res, max_batch_bytes)
        res.method = how
        prev_with_records: Batch | None = None
        done = False
        for item in LogReader(src, start=start, resync=True, chunk=LOOKUP_CHUNK,
                              max_batch_bytes=max_batch_bytes):
            if isinstance(item, Problem):
                res.notes.append(f"damage at byte {item.position}: {item.kind}")
                continue
            b = item
            res.bytes_scanned = b.position + b.size - start
            if b.last_offset < target:
                if _has_records(b):
                    prev_with_records = b
                continue
            if res.position is None:
                res.position = b.position
            if b.base_offset > target and res.batch is None:
                res.reason = "in a gap in the offsets (compaction, or aborted/removed data)"
            if res.batch is None and b.base_offset <= target:
                res.batch = b
            if not deep:
                if b.base_offset <= target:
                    res.found = True
                    res.position = b.position
                done = True
                break
            unreadable = False
            try:
                if _has_records(b):
                    for rec in b.records(max_batch_bytes):
                        o = rec.offset
                        if o == target:
                            res.found = True
                            res.batch = b
                            res.position = b.position
                            res.record = rec
                            done = True
                            break
                        if o < target:
                            below = o
                        else:
                            above = o
                            done = True
                            break
            except KdumpError as e:
                res.notes.append(f"records of the batch at byte {b.position} cannot be "
                                 f"read: {e.message}")
                unreadable = True
            if unreadable and b.base_offset <= target and not done:
                # cannot say whether it holds the offset: name the batch, not found
                res.reason = "its batch's records cannot be read"
                res.position = b.position
                done = True
            if done:
                break
        res.bytes_read += src.bytes_read
    if res.found:
        res.reason = None
        return res
    if res.batch is not None and res.reason is None and res.batch.base_offset <= target:
        if deep and _has_records(res.batch):
            res.reason = "removed by compaction from inside its batch"
        elif deep:
            res.reason = ("its batch holds no records (cleaned by compaction; the batch "
                          "is kept for its producer state)")
        res.batch = None if deep else res.batch
    if not deep and res.batch is not None:
        return res
    if below is None and prev_with_records is not None:
        below = _last_offset_below(prev_with_records, target, max_batch_bytes, res)
    if below is None:
        below = _last_record_before(segs, k, start, target, res, max_batch_bytes)
    if above is None:
        above = _first_record_after(segs, k + 1, target, res, max_batch_bytes)
    if res.reason is None:
        if above is None:
            res.reason = "above the log end"
        elif res.position is None:
            res.reason = "in a gap between segments (compaction or deleted data)"
        else:
            res.reason = "in a gap in the offsets (compaction, or aborted/removed data)"
    res.nearest_below = below
    res.nearest_above = above
    res.batch = None
    return res


def _last_record_in(log_path: str, stop: int | None, target: int, res: FindResult,
                    max_batch_bytes: int) -> int | None:
    """The last record offset below ``target`` in the batches before byte ``stop``."""
    last: Batch | None = None
    with FileSource(log_path) as src:
        for item in LogReader(src, chunk=LOOKUP_CHUNK, max_batch_bytes=max_batch_bytes,
                              end=stop):
            if isinstance(item, Problem) or item.base_offset >= target:
                continue
            if _has_records(item):
                last = item
        res.bytes_read += src.bytes_read
    if last is None:
        return None
    return _last_offset_below(last, target, max_batch_bytes, res)


def _last_record_before(segs: list[tuple[int, str]], k: int, start: int, target: int,
                        res: FindResult, max_batch_bytes: int) -> int | None:
    """The nearest record offset below ``target`` that the forward scan did not see:
    the part of segment ``k`` before ``start``, then earlier segments."""
    if start > 0:
        got = _last_record_in(segs[k][1], start, target, res, max_batch_bytes)
        if got is not None:
            return got
    for j in range(k - 1, -1, -1):
        got = _last_record_in(segs[j][1], None, target, res, max_batch_bytes)
        if got is not None:
            return got
    return None


def _first_record_after(segs: list[tuple[int, str]], k: int, target: int, res: FindResult,
                        max_batch_bytes: int) -> int | None:
    """The first record offset above ``target`` in segments ``k`` onwards."""
    for _, log_path in segs[k:]:
        try:
            with FileSource(log_path) as src:
                for item in LogReader(src, chunk=LOOKUP_CHUNK, max_batch_bytes=max_batch_bytes):
                    if isinstance(item, Problem) or item.last_offset <= target:
                        continue
                    for o in _offsets_of(item, max_batch_bytes, res, above=target):
                        if o > target:
                            res.bytes_read += src.bytes_read
                            return o
                res.bytes_read += src.bytes_read
        except KdumpError:
            continue
    return None


# --- by time -----------------------------------------------------------------------------
def _time_start(src: FileSource, log_path: str, base: int, target: int, res: FindResult,
                max_batch_bytes: int) -> tuple[int, str]:
    """Where to start looking for the first record at or after ``target`` in a segment.

    The time index entry with the largest timestamp below the target says every record
    up to its offset is earlier (each entry is the segment's largest timestamp so far,
    and the offset holding it); the offset index turns that offset into a position.  An
    entry is used only when it is consistent with its neighbours and points at an
    intact batch; a missing, empty, zero-filled or lagging index only makes the scan
    start earlier, never skip a record.
    """
    tpath = _index_path(log_path, L.TIME_INDEX_SUFFIX)
    try:
        tsrc = FileSource(tpath)
    except KdumpError:
        res.notes.append(f"no usable time index ({os.path.basename(tpath)}): scanned from the "
                         "start of the segment")
        return 0, "scan"
    te = None
    with tsrc:
        t = TimeIndex(tsrc, base, chunk=INDEX_CHUNK)
        try:
            if t.size_is_multiple and target > 0:
                te = t.lookup(target - 1)
                if te is not None:
                    used = t.used_slots()
                    before = t.entry(te.slot - 1) if te.slot > 0 else None
                    after = t.entry(te.slot + 1) if te.slot + 1 < used else None
                    if (te.timestamp < 0 or te.offset < base
                            or (te.slot == 0 and te.timestamp == 0 and te.offset == base)
                            or (before is not None and (before.timestamp >= te.timestamp
                                                        or before.offset >= te.offset))
                            or (after is not None and (after.timestamp <= te.timestamp
                                                       or after.offset <= te.offset))):
                        res.notes.append(f"time index entry {te.slot} is out of order or "
                                         "zero: ignored, scanned from the start of the segment")
                        te = None
        except KdumpError:
            te = None
        res.bytes_read += tsrc.bytes_read
    if te is None:
        return 0, "time index (no entry below the target: scan from position 0)"
    ipath = _index_path(log_path, L.INDEX_SUFFIX)
    oe = None
    try:
        with FileSource(ipath) as isrc:
            idx = OffsetIndex(isrc, base, chunk=INDEX_CHUNK)
            if idx.size_is_multiple:
                oe = idx.lookup(te.offset)
            res.bytes_read += isrc.bytes_read
    except KdumpError:
        oe = None
    if oe is None or oe.position == 0:
        return 0, "time index + offset index (scan from position 0)"
    b = _is_batch_start(src, oe.position, max_batch_bytes)
    if b is None or b.base_offset > te.offset or b.base_offset < base:
        res.notes.append(f"offset index entry {oe.slot} (offset {oe.offset}, position "
                         f"{oe.position}) does not point at a batch at or below offset "
                         f"{te.offset}: ignored, scanned from the start of the segment")
        return 0, "scan"
    res.index_entry = {"slot": oe.slot, "offset": oe.offset, "position": oe.position}
    return oe.position, "time index + offset index"


def find_time(path: str, target: int, *, max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
              ) -> FindResult:
    """The earliest record whose timestamp is at or after ``target`` (ListOffsets by
    timestamp).  Every segment is searched from where its indexes prove nothing earlier
    can match, to its end: a time index that stops short of the log (an active or
    crashed segment, whose closing entry was never written) cannot hide a record."""
    if target < 0:
        raise UsageError(f"timestamp {target} is before 1970 (Kafka's -1/-2 mean latest/"
                         "earliest, not times): give epoch milliseconds or ISO-8601")
    _, segs = _segments_of(path)
    res = FindResult("timestamp", target, False)
    methods: list[str] = []
    for base, log_path in segs:
        res.index_entry = None
        with FileSource(log_path) as src:
            start, how = _time_start(src, log_path, base, target, res, max_batch_bytes)
            hit = _search_timestamp(src, start, target, res, max_batch_bytes)
            res.bytes_read += src.bytes_read
        if hit:
            res.file = log_path
            res.method = how
            return res
        methods.append(how)
    res.index_entry = None
    res.method = methods[-1] if methods else "scan"
    res.reason = "no record has a timestamp at or after the target"
    return res


def _search_timestamp(src: FileSource, start: int, target: int, res: FindResult,
                      max_batch_bytes: int) -> bool:
    """FileRecords.searchForTimestamp: the first record at or after ``target`` in batches
    whose max timestamp reaches it (magic 0 data has none, and never matches)."""
    for item in LogReader(src, start=start, chunk=LOOKUP_CHUNK, max_batch_bytes=max_batch_bytes):
        if isinstance(item, Problem):
            res.notes.append(f"damage at byte {item.position}: {item.kind}")
            continue
        b = item
        if b.max_timestamp < target or not _has_records(b):
            continue
        try:
            for rec in b.records(max_batch_bytes):
                if rec.timestamp >= target and rec.magic != 0:
                    res.found = True
                    res.batch = b
                    res.record = rec
                    res.position = b.position
                    res.bytes_scanned = b.position + b.size - start
                    return True
        except KdumpError as e:
            res.notes.append(f"batch at byte {b.position} cannot be read: {e.message}")
    return False


#: bare numbers in this range are epoch seconds of 2001-2286 but milliseconds of
#: 1970-01-12 to 1973-03-03: refused as ambiguous (an ISO time says either)
SECONDS_LOOKALIKE = (10**9, 10**11)


def parse_timestamp(text: str, what: str = "find-time") -> int:
    """Epoch milliseconds, or ISO-8601 (``2024-05-01T09:14:00Z``, ``+02:00`` offsets
    allowed; no offset means UTC).  ``what`` names the command or option in errors."""
    from datetime import datetime, timezone

    t = text.strip()
    if t.lstrip("-").isdigit():
        try:
            n = int(t)
        except ValueError:  # past 4300 digits, or digits int() does not take ('²')
            raise UsageError(f"{text[:40]!r} is not a timestamp in epoch milliseconds") from None
        if SECONDS_LOOKALIKE[0] <= n < SECONDS_LOOKALIKE[1]:
            iso = datetime.fromtimestamp(n, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            raise UsageError(
                f"{n} looks like epoch seconds ({iso}); {what} takes epoch milliseconds: "
                f"use {n * 1000} or {iso} (as milliseconds it would be "
                f"{datetime.fromtimestamp(n / 1000, tz=timezone.utc):%Y-%m-%dT%H:%M:%S}Z; "
                "give that ISO time to mean it)")
        return n
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
