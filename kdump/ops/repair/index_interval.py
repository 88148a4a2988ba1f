"""The topic's ``index.interval.bytes`` as the input's ``.index`` files tell it, so that
the indexes ``kdump repair`` rebuilds for an intact input come out byte for byte the same
(LogSegment.recover appends an offset index entry when the bytes read since the last one
exceed it; 4096 by default, LogConfig)."""

from __future__ import annotations

from collections.abc import Iterator

from ... import layouts as L
from ...errors import KdumpError
from ...files.index import OffsetIndex
from ...files.logdir import KafkaFile
from ...source import FileSource

#: index entries of a segment whose preceding batches are walked for the lower bound
_LOWER_BOUND_ENTRIES = 64


def infer_interval(indexes: list[KafkaFile], logs: dict[int, KafkaFile]) -> int | None:
    """The topic's index.interval.bytes, as far as the input's ``.index`` files tell
    (LogSegment.recover appends an entry when the bytes read since the last one exceed
    it).  Every entry bounds it from above (its distance from the previous entry, minus
    one); every batch before an entry that got none bounds it from below (its distance
    from the previous entry: the batch headers before the first entries of a segment are
    walked for these).  Kafka's default (4096) when it lies within the bounds, else the
    largest value that reproduces every entry; None when no entry tells, or the entries
    are not what recover writes (appends of several batches index differently)."""
    hi: int | None = None
    lo = 0
    for f in indexes:
        if f.base_offset is None or f.base_offset not in logs:
            continue
        try:
            with FileSource(f.path) as src:
                used = OffsetIndex(src, f.base_offset).used_slots()
                prev_pos, prev_rel = 0, 0
                positions: list[int] = []
                for rel, position in _entries(src, used):
                    if position <= prev_pos or rel <= prev_rel:
                        break  # not an index recover wrote: tells nothing more
                    gap = position - prev_pos - 1
                    hi = gap if hi is None else min(hi, gap)
                    prev_pos, prev_rel = position, rel
                    if len(positions) < _LOWER_BOUND_ENTRIES:
                        positions.append(position)
            lo = max(lo, _lower_bound(logs[f.base_offset].path, positions))
        except KdumpError:
            continue
    if hi is None:
        return None
    if lo <= L.DEFAULT_INDEX_INTERVAL_BYTES <= hi:
        return L.DEFAULT_INDEX_INTERVAL_BYTES
    return hi if lo <= hi else None


def _entries(src: FileSource, used: int) -> Iterator[tuple[int, int]]:
    """(relative offset, position) of the first ``used`` slots, read a chunk at a time."""
    chunk = (1 << 20) // L.OFFSET_INDEX_ENTRY_SIZE
    for first in range(0, used, chunk):
        n = min(chunk, used - first)
        data = src.pread(first * L.OFFSET_INDEX_ENTRY_SIZE, n * L.OFFSET_INDEX_ENTRY_SIZE)
        whole = len(data) - len(data) % L.OFFSET_INDEX_ENTRY_SIZE
        yield from L.OFFSET_INDEX_ENTRY.iter_unpack(data[:whole])
        if whole < n * L.OFFSET_INDEX_ENTRY_SIZE:
            return


def _lower_bound(log: str, entries: list[int]) -> int:
    """The largest distance from the previous entry (or 0) of a batch that got no entry,
    walking the batch headers up to the last of ``entries`` (positions)."""
    lo = 0
    if not entries:
        return lo
    wanted = set(entries)
    with FileSource(log) as src:
        pos = last = 0
        while pos < entries[-1]:
            head = src.pread(pos, L.LOG_OVERHEAD)
            if len(head) < L.LOG_OVERHEAD:
                break
            _, size = L.LOG_HEADER.unpack_from(head, 0)
            if size < L.RECORD_OVERHEAD_V0:
                break  # damage: what was walked still counts
            if pos in wanted:
                last = pos
            else:
                lo = max(lo, pos - last)
            pos += L.LOG_OVERHEAD + size
        return lo


__all__ = ["infer_interval"]
