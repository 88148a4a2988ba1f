"""A partition replica's segments as the retention check sees them: base offset, size,
and ``LogSegment.largestTimestamp``, read with as few bytes as Kafka reads.

``LogSegment.largestTimestamp`` (storage/.../log/LogSegment.java, 3.9 to 4.3) is
``maxTimestampSoFar`` when it is >= 0, else the ``.log`` file's last-modified time.
``maxTimestampSoFar`` is loaded lazily from ``timeIndex().lastEntry()``
(``readMaxTimestampAndOffsetSoFar``); a closed segment's time index always ends with
its largest timestamp (``onBecomeInactiveSegment`` appends it, ``maybeAppend(...,
true)``), so for a closed segment the last time-index entry *is* the answer and kdump
reads those 12 bytes only.  It reads the batches instead where the broker would have
rebuilt the index (``LogSegment.recover``: the index is missing, fails
``TimeIndex.sanityCheck``, or still has its preallocated zero tail after an unclean
stop) and for the active segment, whose in-memory maximum includes the batches
appended since its last index entry: as ``LogSegment.readLargestTimestamp`` does, from
the offset-index position of the last time-index entry to the end.  An empty time
index of a closed segment means no batch had a timestamp (magic 0): the file's mtime,
as Kafka uses it.

The batch holding a segment's largest timestamp (the offset the time index names, a
batch's last offset) is found through the offset index, only when asked for (a pin).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from ... import fs as kfs
from ... import layouts as L
from ...errors import KdumpError
from ...files.index import OffsetIndex, TimeIndex, time_index_sanity
from ...files.logdir import LEFTOVERS, classify
from ...findings import Problem
from ...fs import Listing
from ...records.batch import Batch
from ...records.file_records import LogReader
from ...records.v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch
from ...source import FileSource
from ..verdict import TAIL_PROBLEMS, judge_tail
from ..verdict.tail import judge_closed_tail


@dataclass(frozen=True, slots=True)
class PinBatch:
    """The batch holding a segment's largest timestamp."""

    file: str
    position: int
    base_offset: int
    last_offset: int
    timestamp: int
    timestamp_type: str
    producer_id: int | None  # None for v0/v1 (no producer)

    def to_json(self) -> dict[str, object]:
        return {"file": self.file, "position": self.position, "offset": self.base_offset,
                "last_offset": self.last_offset, "timestamp": self.timestamp,
                "timestamp_type": self.timestamp_type, "producer_id": self.producer_id}


@dataclass(slots=True)
class Segment:
    """One ``.log`` segment of a partition replica."""

    path: str
    base_offset: int
    size: int
    #: File.lastModified in ms, read when asked for (:meth:`last_modified`)
    mtime: int | None = None
    active: bool = False
    #: LogSegment.largestTimestamp (None until read)
    largest_timestamp: int | None = None
    #: where it came from: time-index, batches, mtime
    timestamp_source: str = ""
    #: why the time index was not used, or what differs from the batches
    timestamp_note: str | None = None
    #: the offset of the batch holding the largest timestamp (its last offset)
    max_timestamp_offset: int | None = None
    #: the active segment: the last batch's last offset (None: no batch)
    last_offset: int | None = None
    first_batch_timestamp: int | None = None
    pin: PinBatch | None = None

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    def last_modified(self) -> int:
        """LogSegment.lastModified (-1: unknown), read once (a remote store: one request)."""
        if self.mtime is None:
            self.mtime = kfs.mtime_ms(self.path)
        return self.mtime if self.mtime is not None else -1


@dataclass(slots=True)
class Leftover:
    """A file of the partition Kafka renamed and has not removed yet (``.deleted``:
    asynchronous deletion after ``file.delete.delay.ms``; ``.cleaned``/``.swap``: a
    cleaning that did not finish)."""

    path: str
    kind: str
    size: int


@dataclass(slots=True)
class PartitionFiles:
    segments: list[Segment] = field(default_factory=list)
    leftovers: list[Leftover] = field(default_factory=list)
    snapshots: list[tuple[int, str]] = field(default_factory=list)  # (offset, path)
    #: every leftover file's bytes (indexes and snapshots too), by kind
    leftover_bytes: dict[str, int] = field(default_factory=dict)


def list_partition(directory: str, listing: Listing | None = None) -> PartitionFiles:
    """The segments (by base offset), leftovers and producer snapshots of a partition
    directory, from names and sizes only (``listing``: the walk's, for URLs)."""
    out = PartitionFiles()
    names = (listing or Listing()).listdir(directory)
    for name in names:
        full = os.path.join(directory, name) if not kfs.is_url(directory) \
            else directory.rstrip("/") + "/" + name
        leftover = next((what for suffix, what in LEFTOVERS.items()
                         if name.endswith(suffix) and name != suffix), None)
        stem, dot, suffix = name.partition(".")
        if leftover is not None:
            size = _size(full)
            out.leftover_bytes[leftover] = out.leftover_bytes.get(leftover, 0) + size
            if stem.isdigit() and suffix.startswith("log"):
                out.leftovers.append(Leftover(full, leftover, size))
            continue
        if not stem.isdigit():
            continue
        if dot and suffix == "log":
            out.segments.append(Segment(full, int(stem), _size(full)))
        elif dot and suffix == "snapshot":
            out.snapshots.append((int(stem), full))
    out.segments.sort(key=lambda s: s.base_offset)
    if out.segments:
        out.segments[-1].active = True
    out.snapshots.sort()
    return out


def _size(path: str) -> int:
    try:
        return kfs.getsize(path)
    except OSError:
        return 0


def _sibling(seg: Segment, suffix: str) -> str:
    return seg.path[: -len(L.LOG_SUFFIX)] + suffix


def _open_index(path: str) -> FileSource | None:
    try:
        if not kfs.isfile(path):
            return None
        return FileSource(path)
    except (KdumpError, OSError):
        return None


def read_largest_timestamp(seg: Segment, problems: list[Problem],
                           max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> None:
    """Fill ``seg``'s largest timestamp (and, for the active segment, its last offset),
    as the module docstring says.  Damage met while reading batches is appended to
    ``problems``."""
    ts_src = _open_index(_sibling(seg, L.TIME_INDEX_SUFFIX))
    why: str | None = None
    start_position = 0
    index_ts, index_offset = -1, None
    try:
        if ts_src is None:
            why = "no time index (the broker rebuilds it from the batches)"
        else:
            tix = TimeIndex(ts_src, seg.base_offset, chunk=4096)
            sane = time_index_sanity(tix)
            used = tix.used_slots()
            if tix.size_is_multiple and used < tix.slots and not seg.active \
                    and _zero_tail(tix, used):
                why = ("the time index has preallocated zero slots (an unclean stop: the "
                       "broker recovers the segment)")
            elif sane is not None:
                why = "the time index fails TimeIndex.sanityCheck (the broker rebuilds it)"
            elif tix.slots == 0 and not seg.active:
                # lastEntry() is (-1, base offset): no batch had a timestamp -> mtime
                seg.largest_timestamp = seg.last_modified()
                seg.timestamp_source = "mtime"
                seg.timestamp_note = "empty time index: no batch carries a timestamp"
                _check_empty_index(seg, problems, max_batch_bytes)
                return
            elif used:
                last = tix.entry(used - 1)
                index_ts, index_offset = last.timestamp, last.offset
                if not seg.active:
                    if last.offset < seg.base_offset or last.timestamp < 0:
                        why = "the time index's last entry is not a timestamp of this segment"
                    else:
                        seg.largest_timestamp = last.timestamp
                        seg.max_timestamp_offset = last.offset
                        seg.timestamp_source = "time-index"
                        return
                else:
                    start_position = _position_of(seg, last.offset)
    except KdumpError as e:
        why = f"the time index could not be read ({e.message})"
        index_ts, index_offset, start_position = -1, None, 0
    finally:
        if ts_src is not None:
            ts_src.close()
    best, best_offset, last_offset, _first = _scan(seg, start_position, problems,
                                                   max_batch_bytes)
    if seg.active:
        seg.last_offset = last_offset
    if index_ts > best:
        best, best_offset = index_ts, index_offset
    if best >= 0:
        seg.largest_timestamp, seg.max_timestamp_offset = best, best_offset
        seg.timestamp_source = "batches"
        seg.timestamp_note = why
    else:
        seg.largest_timestamp = seg.last_modified()
        seg.timestamp_source = "mtime"
        seg.timestamp_note = ("an empty segment" if seg.size == 0
                              else "no batch carries a timestamp") + (f"; {why}" if why else "")


def _zero_tail(tix: TimeIndex, used: int) -> bool:
    """Every slot from ``used`` on is zero (preallocation's, not damage)."""
    if tix.slots - used > 1 << 16:
        return True  # a preallocated 10 MiB index: its tail is not read whole
    return all(not tix.entry(k).timestamp and tix.entry(k).offset == tix.base_offset
               for k in range(used, tix.slots))


def _check_empty_index(seg: Segment, problems: list[Problem], max_batch_bytes: int) -> None:
    """An empty time index on a closed segment: Kafka uses the mtime; say so when the
    batches do carry timestamps (the index was emptied, not never written)."""
    if seg.size == 0:
        return
    best, _, _, _ = _scan(seg, 0, problems, max_batch_bytes)
    if best >= 0:
        seg.timestamp_note = (f"empty time index: Kafka uses the file's mtime, though the "
                              f"batches carry timestamps up to {best}")


def _position_of(seg: Segment, offset: int) -> int:
    """The byte position to read from to meet the batch holding ``offset``: the offset
    index's entry at or below it (OffsetIndex.lookup), else the start."""
    src = _open_index(_sibling(seg, L.INDEX_SUFFIX))
    if src is None:
        return 0
    try:
        idx = OffsetIndex(src, seg.base_offset, chunk=4096)
        if not idx.size_is_multiple:
            return 0
        e = idx.lookup(offset)
        return 0 if e is None or e.position > seg.size else e.position
    except KdumpError:
        return 0
    finally:
        src.close()


def iter_batches(seg: Segment, start: int, problems: list[Problem],
                 max_batch_bytes: int) -> Iterator[Batch]:
    """The batches of ``seg`` from byte ``start``; damage goes to ``problems``."""
    prev_last: int | None = None
    try:
        with FileSource(seg.path) as src:
            for item in LogReader(src, start=start, active=seg.active,
                                  max_batch_bytes=max_batch_bytes):
                if isinstance(item, Problem):
                    if item.kind in TAIL_PROBLEMS and (prev_last is not None or start == 0):
                        # a tail as the partition's verdict judges it (verify-crc's words)
                        f = replace(classify(seg.path), active=seg.active)
                        item = judge_closed_tail(judge_tail(item, f, prev_last), f, prev_last)
                    problems.append(item)
                else:
                    prev_last = item.last_offset
                    yield item
    except KdumpError as e:
        problems.append(Problem(e.path or seg.path, e.position, "unreadable-file", e.message))


def _scan(seg: Segment, start: int, problems: list[Problem], max_batch_bytes: int
          ) -> tuple[int, int | None, int | None, int | None]:
    """(largest batch max timestamp or -1, the last offset of its batch, the last
    offset read, the first batch's max timestamp) from byte ``start``."""
    best, best_offset, last, first = -1, None, None, None
    for b in iter_batches(seg, start, problems, max_batch_bytes):
        if first is None and start == 0:
            first = b.max_timestamp
        # LogSegment.recover: maxTimestampSoFar moves on a strictly larger batch maximum
        if b.max_timestamp > best:
            best, best_offset = b.max_timestamp, b.last_offset
        last = b.last_offset if last is None else max(last, b.last_offset)
    return best, best_offset, last, first


def find_pin(seg: Segment, problems: list[Problem],
             max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> PinBatch | None:
    """The batch holding ``seg``'s largest timestamp (cached on the segment)."""
    if seg.pin is not None or seg.max_timestamp_offset is None:
        return seg.pin
    target = seg.max_timestamp_offset
    named: Batch | None = None
    for b in iter_batches(seg, _position_of(seg, target), problems, max_batch_bytes):
        if b.last_offset >= target:
            named = b
            break
    if named is None or named.max_timestamp != seg.largest_timestamp:
        # the index names an offset whose batch does not hold that timestamp (verify-index
        # says so): the batch that does, when one does
        for b in iter_batches(seg, 0, problems, max_batch_bytes):
            if b.max_timestamp == seg.largest_timestamp:
                named = b
                break
    if named is not None:
        seg.pin = _pin(named)
    return seg.pin


def _pin(b: Batch) -> PinBatch:
    pid = b.producer_id if isinstance(b, RecordBatch) else None
    return PinBatch(b.path, b.position, b.first_offset, b.last_offset, b.max_timestamp,
                    b.timestamp_type, pid)


def first_batch_timestamp(seg: Segment, problems: list[Problem],
                          max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> int | None:
    """LogSegment.getFirstBatchTimestamp's source: the first batch's max timestamp
    (None: no batch)."""
    if seg.first_batch_timestamp is None:
        for b in iter_batches(seg, 0, problems, max_batch_bytes):
            seg.first_batch_timestamp = b.max_timestamp
            break
    return seg.first_batch_timestamp


__all__ = ["Leftover", "PartitionFiles", "PinBatch", "Segment", "find_pin",
           "first_batch_timestamp", "iter_batches", "list_partition",
           "read_largest_timestamp"]
