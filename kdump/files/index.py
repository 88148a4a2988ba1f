"""Offset index (``.index``) and time index (``.timeindex``).

storage/src/main/java/org/apache/kafka/storage/internals/log/AbstractIndex.java,
OffsetIndex.java, TimeIndex.java.  No entry count is stored: a file holds
``size // entry_size`` slots; an active (or crashed) segment's index is preallocated,
so trailing slots are zero.  Entries are read on demand, a chunk at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import fs as kfs
from .. import layouts as L
from ..errors import InputError
from ..source import FileSource, Window


@dataclass(frozen=True, slots=True)
class OffsetIndexEntry:
    slot: int
    offset: int  # absolute: segment base offset + relative offset
    position: int


@dataclass(frozen=True, slots=True)
class TimeIndexEntry:
    slot: int
    timestamp: int
    offset: int  # absolute


class _Index:
    entry_size = 8

    def __init__(self, source: FileSource, base_offset: int, *, chunk: int = 1 << 20) -> None:
        self.source = source
        self.path = source.path
        self.base_offset = base_offset
        #: ``chunk``: bytes read at a time; small for lookups that should touch little
        self.window = Window(source, chunk=chunk)

    @property
    def slots(self) -> int:
        """``entries`` as Kafka counts them: whole entries in the file."""
        return self.source.size // self.entry_size

    @property
    def size_is_multiple(self) -> bool:
        return self.source.size % self.entry_size == 0

    def _raw(self, slot: int) -> tuple[memoryview, int]:
        view, i = self.window.get(slot * self.entry_size, self.entry_size)
        if len(view) - i < self.entry_size:
            raise InputError("the file is shorter than when it was opened (cut short while "
                             "being read)", path=self.path, position=slot * self.entry_size)
        return view, i


class OffsetIndex(_Index):
    entry_size = L.OFFSET_INDEX_ENTRY_SIZE

    def entry(self, slot: int) -> OffsetIndexEntry:
        view, i = self._raw(slot)
        rel, pos = L.OFFSET_INDEX_ENTRY.unpack_from(view, i)
        return OffsetIndexEntry(slot, self.base_offset + rel, pos)

    def __iter__(self) -> Iterator[OffsetIndexEntry]:
        for slot in range(self.slots):
            yield self.entry(slot)

    def used_slots(self) -> int:
        """Slots before the preallocated zero tail: DumpLogSegments stops at the first
        slot past slot 0 whose offset is the base offset (relative offset 0).  Found by
        binary search when the file is sane (the tail is all zero slots), so a lookup in a
        preallocated 10 MiB index reads a few pages, not the file."""
        return _used_slots(self, 0)

    def lookup(self, target: int) -> OffsetIndexEntry | None:
        """OffsetIndex.lookup: the used entry with the largest offset <= target
        (None: none, i.e. start at position 0).  Binary search, touching log2(n) slots."""
        return _largest_at_or_below(self, target, 0)


class TimeIndex(_Index):
    entry_size = L.TIME_INDEX_ENTRY_SIZE

    def entry(self, slot: int) -> TimeIndexEntry:
        view, i = self._raw(slot)
        ts, rel = L.TIME_INDEX_ENTRY.unpack_from(view, i)
        return TimeIndexEntry(slot, ts, self.base_offset + rel)

    def __iter__(self) -> Iterator[TimeIndexEntry]:
        for slot in range(self.slots):
            yield self.entry(slot)

    def used_slots(self) -> int:
        """As :meth:`OffsetIndex.used_slots` (a zero relative offset past slot 0)."""
        return _used_slots(self, 1)

    def lookup(self, timestamp: int) -> TimeIndexEntry | None:
        """TimeIndex.lookup: the used entry with the largest timestamp <= target."""
        return _largest_at_or_below(self, timestamp, 1)


def _largest_at_or_below(index: OffsetIndex | TimeIndex, target: int, key: int) -> Any:
    """Binary search over the used slots for the entry whose key (0: offset, 1:
    timestamp) is the largest at or below ``target``; touches log2(n) slots."""
    lo, hi = 0, index.used_slots() - 1
    found = None
    while lo <= hi:
        mid = (lo + hi) // 2
        e = index.entry(mid)
        if (e.offset if key == 0 else e.timestamp) <= target:  # type: ignore[union-attr]
            found = e
            lo = mid + 1
        else:
            hi = mid - 1
    return found


def _rel(index: _Index, slot: int, field: int) -> int:
    view, i = index._raw(slot)
    st = L.OFFSET_INDEX_ENTRY if index.entry_size == L.OFFSET_INDEX_ENTRY_SIZE else L.TIME_INDEX_ENTRY
    return int(st.unpack_from(view, i)[field])


def _used_slots(index: _Index, field: int) -> int:
    n = index.slots
    if n <= 1:
        return n
    if _rel(index, n - 1, field) != 0:
        return n  # no zero tail: every slot is used (a zero in the middle is found below)
    # the tail is zero: binary search for the first zero slot past slot 0, assuming the
    # used entries have non-zero relative offsets (they do: entries ascend from > 0)
    lo, hi = 1, n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _rel(index, mid, field) == 0:
            hi = mid
        else:
            lo = mid + 1
    # DumpLogSegments stops at the *first* zero slot: make sure none hides below
    if lo > 1 and n <= 1 << 16:
        for slot in range(1, lo):
            if _rel(index, slot, field) == 0:
                return slot
    return lo


def offset_index_sanity(index: OffsetIndex) -> str | None:
    """OffsetIndex.sanityCheck: the reason the broker would rebuild it, or None."""
    path = kfs.abspath(index.path)
    if index.slots:
        last = index.entry(index.slots - 1)
        if last.offset < index.base_offset:
            return (
                f"Corrupt index found, index file {path} has non-zero size but the last "
                f"offset is {last.offset} which is less than the base offset "
                f"{index.base_offset}"
            )
    if not index.size_is_multiple:
        return (
            f"Index file {path} is corrupt, found {index.source.size} bytes which is neither "
            f"positive nor a multiple of {index.entry_size}"
        )
    return None


def time_index_sanity(index: TimeIndex) -> str | None:
    """TimeIndex.sanityCheck.  A preallocated time index fails it (its last slot is
    zero), which is why the broker rebuilds the indexes of an uncleanly closed segment."""
    path = kfs.abspath(index.path)
    if index.slots:
        first = index.entry(0)
        last = index.entry(index.slots - 1)
        if last.timestamp < first.timestamp:
            return (
                f"Corrupt time index found, time index file ({path}) has non-zero size but "
                f"the last timestamp is {last.timestamp} which is less than the first "
                f"timestamp {first.timestamp}"
            )
        if last.offset < index.base_offset:
            return (
                f"Corrupt time index found, time index file ({path}) has non-zero size but "
                f"the last offset is {last.offset} which is less than the first offset "
                f"{index.base_offset}"
            )
    if not index.size_is_multiple:
        return (
            f"Time index file {path} is corrupt, found {index.source.size} bytes which is "
            f"neither positive nor a multiple of {index.entry_size}"
        )
    return None
