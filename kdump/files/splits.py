"""Byte ranges of one segment that separate readers frame independently.

A segment is cut at batch boundaries taken from its offset index (an ``.index`` entry
holds the position where a batch starts: LogSegment.append, OffsetIndex.append in
storage/src/main/java/org/apache/kafka/storage/internals/log/).  Every boundary is
checked before it is used: an intact batch (checksum included) must start there, so the
batch chain read from a boundary is the chain a whole-file read frames there.  A segment
with no usable index stays whole.  Used by ``kdump spark`` (ranges per task) and by
``size-report --jobs`` (ranges per worker).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from .. import fs as kfs
from .. import layouts as L
from ..errors import KdumpError
from ..records.file_records import LogReader
from ..records.legacy import LegacyBatch
from ..records.v2 import RecordBatch
from ..source import DEFAULT_CHUNK, FileSource
from .index import OffsetIndex
from .logdir import KafkaFile


def _index_path(f: KafkaFile) -> str:
    stem = os.path.basename(f.path).split(".")[0]
    return os.path.join(os.path.dirname(f.path), stem + L.INDEX_SUFFIX)


def batch_starts_at(log: FileSource, position: int) -> bool:
    """Does an intact batch (its checksum matching) start at ``position``?"""
    reader = LogReader(log, start=position, resync=False, check_lengths=False, chunk=64 << 10)
    for item in reader:
        return isinstance(item, (RecordBatch, LegacyBatch)) and item.position == position \
            and item.crc_valid
    return False


def split_points(f: KafkaFile, size: int, split_bytes: int) -> list[int]:
    """Range starts for a segment of ``size`` bytes: ``[0]``, plus, when it is larger
    than ``split_bytes``, the first index position at or past each multiple of
    ``split_bytes`` where an intact batch starts."""
    if size <= split_bytes or f.base_offset is None or f.kind != "log":
        return [0]
    try:
        isrc = FileSource(_index_path(f))
    except KdumpError:
        return [0]  # no index: read whole
    points = [0]
    try:
        with isrc, FileSource(f.path) as lsrc:
            index = OffsetIndex(isrc, f.base_offset, chunk=64 << 10)
            n = index.used_slots()
            for k in range(1, math.ceil(size / split_bytes)):
                target = k * split_bytes
                if target <= points[-1]:
                    continue
                lo, hi = 0, n  # first used slot whose position is >= target
                while lo < hi:
                    mid = (lo + hi) // 2
                    if index.entry(mid).position < target:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo >= n:
                    break
                pos = index.entry(lo).position
                if points[-1] < pos < size and batch_starts_at(lsrc, pos):
                    points.append(pos)
    except KdumpError:
        return points
    return points


#: ``--jobs``: a segment larger than this is read by several workers, one range each, so
#: the cores stay busy to the end of a log dir and one large segment uses them all
SPLIT_BYTES = 4 << 20


@dataclass(frozen=True, slots=True)
class SegmentRange:
    """``[start, stop)`` of a segment for one worker (``stop`` None: to the end).  The
    range starting at 0 also accounts the file itself."""

    file: KafkaFile
    start: int
    stop: int | None


def window_for(start: int, stop: int | None) -> int | None:
    """The read window for a range: the range and the header after it, so that a range
    is read in one read and its reader does not read on into the next range (None: the
    reader's default)."""
    if stop is None:
        return None
    return min(DEFAULT_CHUNK, stop - start + L.RECORD_BATCH_OVERHEAD)


def segment_ranges(items: Iterable[object], wanted: Callable[[KafkaFile], bool],
                   split_bytes: int | None = None) -> Iterator[object]:
    """The walk ``items``, each log segment ``wanted`` says yes to and larger than
    ``split_bytes`` (default :data:`SPLIT_BYTES`) replaced by its ranges."""
    limit = SPLIT_BYTES if split_bytes is None else split_bytes
    for item in items:
        if not (isinstance(item, KafkaFile) and item.kind == "log" and wanted(item)):
            yield item
            continue
        try:
            size = kfs.getsize(item.path)
        except OSError:
            yield item  # the worker says why
            continue
        points = split_points(item, size, limit) if size > limit else [0]
        if len(points) == 1:
            yield item
            continue
        for i, start in enumerate(points):
            yield SegmentRange(item, start, points[i + 1] if i + 1 < len(points) else None)


__all__ = ["SPLIT_BYTES", "SegmentRange", "batch_starts_at", "segment_ranges", "split_points",
           "window_for"]
