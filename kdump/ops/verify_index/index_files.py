"""``.index`` / ``.timeindex`` / ``.txnindex`` on their own: the broker's sanity checks
(AbstractIndex/OffsetIndex/TimeIndex ``sanityCheck``), entries ascending, positions
inside the log, trailing zero slots recognised, orphaned indexes; and the used entries
loaded compactly for the pass over the log (:mod:`.segment_pass`).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from itertools import pairwise

from ... import fs as kfs
from ... import layouts as L
from ...errors import KdumpError
from ...files.index import OffsetIndex, TimeIndex, offset_index_sanity, time_index_sanity
from ...files.logdir import KafkaFile
from ...files.txnindex import partial_tail, read_txn_index
from ...findings import INFO, WARNING, Problem
from ...source import FileSource
from .options import MAX_INDEX_ENTRIES, METADATA_TOPIC, IndexEntries, Segment


def orphan_index(path: str) -> Problem:
    """An index file with no ``.log`` beside it: LogLoader.loadSegmentFiles (storage/src/
    main/java/org/apache/kafka/storage/internals/log/LogLoader.java) warns "Found an
    orphaned index file ... with no corresponding log file" and deletes it at startup."""
    return Problem(path, None, "orphan-index",
                   "no .log beside it: the broker deletes this orphaned index at startup",
                   severity=WARNING)


def index_sanity(seg: Segment, active: bool) -> Iterator[Problem]:
    """The broker's startup checks, and entries ascending, for one segment's indexes."""
    log_size = None
    if seg.log is not None:
        try:
            log_size = kfs.getsize(seg.log.path)
        except OSError:
            log_size = None
    missing = [suffix for f, suffix in ((seg.index, ".index"), (seg.time_index, ".timeindex"))
               if f is None]
    # one finding for the segment, whichever indexes are gone; KRaft's metadata log
    # (__cluster_metadata) keeps none on some versions: normal there
    if missing and seg.log is not None and log_size and seg.log.topic != METADATA_TOPIC:
        yield Problem(seg.log.path, None, "index-missing",
                      f"segment has no {' or '.join(missing)} file (the broker rebuilds it)",
                      severity=WARNING)
    for f, cls in ((seg.index, OffsetIndex), (seg.time_index, TimeIndex)):
        if f is None:
            continue
        try:
            src = FileSource(f.path)
        except KdumpError as err:
            yield Problem(f.path, None, "unreadable-file", err.message)
            continue
        with src:
            idx = cls(src, seg.base)
            if not idx.size_is_multiple:
                yield Problem(f.path, (src.size // idx.entry_size) * idx.entry_size, "index-size",
                              f"{src.size} bytes is not a multiple of the {idx.entry_size}-byte "
                              "entry size", length=src.size % idx.entry_size)
            why = (offset_index_sanity(idx) if isinstance(idx, OffsetIndex)
                   else time_index_sanity(idx))
            used = idx.used_slots()
            zero_slots = idx.slots - used
            if why is not None and not (zero_slots and active and "time index" in why):
                yield Problem(f.path, 0, "index-sanity", why + " (the broker would rebuild it)",
                              severity=WARNING)
            if zero_slots:
                yield zero_slots_problem(f.path, used, idx.slots, idx.entry_size, active)
        entries = _load_entries(f, cls, seg.base)
        if entries is None:
            continue
        if cls is OffsetIndex:
            seg.offset_entries = entries
            yield from _offset_order(f.path, entries, seg.base, log_size)
        else:
            seg.time_entries = entries
            yield from _time_order(f.path, entries)
    if seg.txn_index is not None:
        try:
            with FileSource(seg.txn_index.path) as src:
                for txn in read_txn_index(src):
                    if txn.version != 0:
                        yield Problem(src.path, txn.position, "txn-index",
                                      f"entry {txn.slot} has version {txn.version}; Kafka knows 0")
                    if txn.last_offset < seg.base:
                        yield Problem(src.path, txn.position, "index-sanity",
                                      f"last offset {txn.last_offset} of aborted transaction "
                                      f"{txn.slot} is less than start offset {seg.base}")
                tail = partial_tail(src)
                if tail:
                    yield Problem(src.path, src.size - tail, "index-size",
                                  f"{tail} trailing bytes are not a whole 34-byte entry",
                                  length=tail, severity=WARNING)
        except KdumpError as err:
            yield Problem(seg.txn_index.path, None, "unreadable-file", err.message)


def zero_slots_problem(path: str, used: int, slots: int, entry_size: int,
                       active: bool) -> Problem:
    """Zero slots after the used entries: the active segment's preallocation (info), or
    an index never trimmed (a warning: AbstractIndex.trimToValidSize runs when a segment
    is rolled or closed cleanly).  One finding for dump and verify-index alike."""
    return Problem(
        path, used * entry_size, "index-zero-slots",
        f"{slots - used} zero entries after the {used} used ones (preallocated "
        + ("for the active segment" if active else
           "and never trimmed: the segment was not closed cleanly") + ")",
        length=(slots - used) * entry_size, severity=INFO if active else WARNING)


def offset_order_problem(path: str, slot: int, key: int, pos: int, prev_key: int,
                         prev_pos: int) -> Problem | None:
    """An offset index entry not above the one before it (OffsetIndex.append refuses
    one: InvalidOffsetException).  One finding for dump and verify-index alike."""
    if key > prev_key and pos > prev_pos:
        return None
    return Problem(path, slot * L.OFFSET_INDEX_ENTRY_SIZE, "index-order",
                   f"entry {slot} (offset {key}, position {pos}) does not ascend from "
                   f"the previous (offset {prev_key}, position {prev_pos})")


def past_log_end_problem(path: str, slot: int, key: int, pos: int, log_size: int) -> Problem:
    """An offset index entry pointing past the end of its log."""
    return Problem(path, slot * L.OFFSET_INDEX_ENTRY_SIZE, "index-position",
                   f"entry {slot} points at byte {pos}, past the end of the log "
                   f"({log_size} bytes)", extra={"index_offset": key, "log_offset": -1})


def _offset_order(path: str, e: IndexEntries, base: int, log_size: int | None) -> Iterator[Problem]:
    """Offset index entries ascend (offset and position) and point inside the log."""
    for slot in range(len(e)):
        key, pos = base + e.first[slot], e.second[slot]
        if slot:
            p = offset_order_problem(path, slot, key, pos, base + e.first[slot - 1],
                                     e.second[slot - 1])
            if p is not None:
                yield p
        if log_size is not None and pos >= log_size:
            yield past_log_end_problem(path, slot, key, pos, log_size)


def time_order_problem(path: str, slot: int, timestamp: int, prev: int) -> Problem | None:
    """A time index entry not above the one before it, as TimeIndex.maybeAppend (storage/
    .../log/TimeIndex.java, 4.0-4.3) never writes one: it appends only a timestamp greater
    than its lastEntry's, which for an empty index is (RecordBatch.NO_TIMESTAMP = -1,
    baseOffset), so entry 0 holds a timestamp of 0 or more (a segment with no
    timestamps, magic 0 or 1 at -1, has an empty time index).  ``prev``: the previous
    entry's timestamp, -1 for entry 0.  One finding for dump and verify-index alike."""
    if timestamp > prev:
        return None
    if slot == 0:
        return Problem(path, 0, "index-order",
                       f"entry 0: timestamp {timestamp} is not above -1 "
                       "(RecordBatch.NO_TIMESTAMP, an empty time index's last entry): "
                       "TimeIndex.maybeAppend never writes it",
                       extra={"check": "order", "index_timestamp": timestamp,
                              "previous_timestamp": prev})
    return Problem(path, slot * L.TIME_INDEX_ENTRY_SIZE, "index-order",
                   f"entry {slot}: timestamp {timestamp} is not above the previous "
                   f"entry's {prev}",
                   extra={"check": "order", "index_timestamp": timestamp,
                          "previous_timestamp": prev})


def _time_order(path: str, e: IndexEntries) -> Iterator[Problem]:
    """Time index timestamps strictly increase, from above -1 (:func:`time_order_problem`)."""
    prev = L.NO_TIMESTAMP
    for slot in range(len(e)):
        p = time_order_problem(path, slot, e.first[slot], prev)
        if p is not None:
            yield p
        prev = e.first[slot]


def _load_entries(f: KafkaFile | None, cls: type, base: int) -> IndexEntries | None:
    if f is None:
        return None
    try:
        with FileSource(f.path) as src:
            idx = cls(src, base)
            used = idx.used_slots()
            if used > MAX_INDEX_ENTRIES:
                return None
            st = L.OFFSET_INDEX_ENTRY if cls is OffsetIndex else L.TIME_INDEX_ENTRY
            entries = IndexEntries(array("i" if cls is OffsetIndex else "q"), array("i"))
            step = 1 << 16
            for start in range(0, used, step):
                data = src.pread(start * st.size, min(step, used - start) * st.size)
                for a, b in st.iter_unpack(data[: len(data) - len(data) % st.size]):
                    entries.first.append(a)
                    entries.second.append(b)
            return entries
    except KdumpError:
        return None


def index_order(values: array[int]) -> Sequence[int]:
    """Slots in ascending order of ``values``, ties in slot order (no list when the
    values already ascend, as in a sane index)."""
    if all(a <= b for a, b in pairwise(values)):
        return range(len(values))
    return sorted(range(len(values)), key=values.__getitem__)
