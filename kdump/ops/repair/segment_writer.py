"""The writing half of the segment copier: kept batches appended byte for byte to the
output segments, each segment's ``.index``, ``.timeindex`` and ``.txnindex`` rebuilt as
Kafka's recovery writes them, and every file listed (a ``repair_file`` object).

Kafka's loading rules the segments follow (LogLoader.loadSegmentFiles, LogSegment.recover,
4.1):

* a segment keeps its input's name when its first kept batch is at or above that base
  and above the previous segment's last offset; otherwise it is named by its first kept
  batch's base offset (a lookup picks the floor segment by name: LogSegments.floorSegment,
  so names must follow the offsets);
* a batch whose last offset is more than 2^31-1 above its segment's base starts a new
  segment at its base offset (LogSegment.ensureOffsetInRange; Kafka splits such a
  segment, LocalLog.splitOverflowedSegment);
* ``.index`` and ``.timeindex`` as LogSegment.recover writes them
  (:class:`kdump.ops.rebuild.RecoverIndexes`), ``.txnindex`` from the ABORT markers kept
  (verify-index's transaction state, as LogSegment.recover rebuilds it).

Which batches are kept is decided elsewhere (:mod:`.copier`, :mod:`.regions`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ... import layouts as L
from ...errors import KdumpError
from ...records.file_records import OversizedLegacyBatch, OversizedRecordBatch
from ...records.v2 import RecordBatch
from ...source import FileSource
from ..rebuild import RecoverIndexes, offset_index_bytes, time_index_bytes, txn_index_bytes
from ..verify_index.segment_pass import feed_batch
from .partition_log import PartitionLog
from .staging import Output, Stage, file_entry

_COPY_CHUNK = 8 << 20


@dataclass(slots=True)
class OutSegment:
    """A segment being written."""

    base: int
    rel: str
    source: str
    out: Output
    indexes: RecoverIndexes
    batches: int = 0
    records: int = 0
    first_offset: int | None = None
    last_offset: int | None = None
    #: the input segment's original files (to say whether the rebuilt ones are the same)
    whole_copy: bool = False
    #: batches filled from another broker's replica (``--replica``)
    filled: int = 0


def batch_records(b: Any) -> int:
    """Records in a batch: the v2 header's count; a v0/v1 entry's messages."""
    if isinstance(b, RecordBatch):
        return int(b.records_count)
    if not b.is_compressed:
        return 1
    try:
        return sum(1 for _ in b.records())
    except KdumpError:
        return 0



def first_record_offset(b: Any) -> int:
    """The batch's first offset: v2 baseOffset; a v0/v1 compressed wrapper's first inner
    offset (its own offset is its last one), as Kafka names a segment rolled at it."""
    if isinstance(b, RecordBatch) or not b.is_compressed:
        return int(b.first_offset)
    try:
        return int(b.base_offset)
    except KdumpError:
        return int(b.first_offset)


def batch_bytes(b: Any, src: FileSource) -> Iterator[bytes | memoryview]:
    if isinstance(b, (OversizedRecordBatch, OversizedLegacyBatch)):
        pos, end = b.position, b.position + b.size
        while pos < end:
            chunk = src.pread(pos, min(_COPY_CHUNK, end - pos))
            if not chunk:
                raise KdumpError("the file is shorter than when it was opened", path=src.path,
                                 position=pos)
            yield chunk
            pos += len(chunk)
        return
    yield memoryview(b.data)[b.index : b.index + b.size]



class SegmentWriter:
    """Writes one partition's output segments into ``stage`` under ``target``: the
    segment open (``cur``), each finished one listed in ``plog.outputs`` with its
    rebuilt indexes."""

    def __init__(self, plog: PartitionLog, stage: Stage, target: str) -> None:
        self.p = plog
        self.stage = stage
        self.target = target
        self.cur: OutSegment | None = None

    def keep(self, b: Any, input_base: int, raw: FileSource, records: int,
             location: tuple[str, int, int] | None = None) -> None:
        """A kept batch (of input segment ``input_base``, read from ``raw``) appended byte
        for byte to the open segment, or to a new one named as the module docstring says;
        ``location``: where it was read when not from ``raw`` at its position."""
        p = self.p
        cur = self.cur
        if cur is not None and b.last_offset - cur.base > L.INT32_MAX:
            self.finish_segment()
            cur = None
        if cur is None:
            prev = p.prev_last
            first = first_record_offset(b)
            if (prev is None or input_base > prev) and input_base <= first and \
                    b.last_offset - input_base <= L.INT32_MAX:
                name = input_base
            else:
                name = first if prev is None else max(first, prev + 1)
            cur = self.open(name, raw.path)
        for chunk in batch_bytes(b, raw):
            cur.out.write(chunk)
        cur.indexes.add(b.last_offset, b.max_timestamp, b.size)
        cur.batches += 1
        cur.records += records
        if cur.first_offset is None:
            cur.first_offset = b.first_offset
        cur.last_offset = b.last_offset
        feed_batch(p.pp, b)
        held_from = first_record_offset(b)
        if p.held and p.held[-1][1] + 1 == held_from:  # contiguous: one range (memory is
            p.held[-1] = (p.held[-1][0], b.last_offset)  # bounded by gaps, not batches)
        else:
            p.held.append((held_from, b.last_offset))
        p.prev_last = b.last_offset
        p.last_kept = location or (raw.path, b.position, b.size)
        if p.first_offset is None:
            p.first_offset = b.first_offset
        p.batches += 1
        p.records += records
        p.bytes += b.size

    def open(self, base: int, source: str) -> OutSegment:
        """A new output segment named ``base`` (``source``: the input log it comes from)."""
        rel = f"{self.target}/{base:0{L.OFFSET_DIGITS}d}{L.LOG_SUFFIX}"
        seg = OutSegment(base, rel, source, self.stage.create(rel),
                         RecoverIndexes(base, self.p.interval))
        self.cur = seg
        return seg

    def empty_segment(self, base: int, source: str, *, was_empty: bool = False) -> None:
        """An empty segment named ``base`` (the log end offset stays at it).  ``was_empty``:
        the input segment is empty too (a segment rolled, or a partition created, with
        nothing appended since), so it is a copy, not a repair."""
        self.open(base, source)
        if was_empty:
            self.finish_segment(detail="copied: empty in the input too (no batch was appended "
                                 "to it), kept under its name so the log end offset stays at "
                                 "its base", action="copied")
            return
        self.finish_segment(detail="empty: every batch of this segment was left out; Kafka's "
                             "own recovery leaves it so too (LogSegment.recover truncates it to "
                             "0 bytes), which keeps the log end offset at its base")

    def start_segment(self, base: int, last: int) -> None:
        """An empty segment at ``base``, the input's log start, when no segment of the
        input is left (its ``.log``, or its whole directory, gone): the copy's log starts
        where the input's did (LogLoader takes the larger of the log start checkpoint and
        the first segment's base), so offsets ``base``..``last`` lie inside its log,
        reserved and visibly lost, rather than below its start."""
        self.open(base, "")
        self.finish_segment(detail=f"empty segment at the input's log start {base}: offsets "
                            f"{base}-{last} lie inside the copy's log, reserved, not below its "
                            "start", action="reserved")

    def reserved_segment(self, base: int, first: int, witnesses: list[str]) -> None:
        """The empty active segment at ``base`` after offsets ``first``..``base - 1`` that
        the witnesses prove written and no kept batch holds (:mod:`.reserve`)."""
        self.open(base, "")
        self.finish_segment(detail=f"empty active segment: offsets {first}-{base - 1} reserved "
                             "(written by the witnesses' word, no batch of them kept), so the "
                             f"broker's next offset is {base}, never one handed out before "
                             f"({'; '.join(witnesses)})", action="reserved")

    def finish_segment(self, detail: str | None = None, action: str = "repaired") -> None:
        """The open segment closed and listed, its ``.index``, ``.timeindex`` and (with
        ABORT markers in it) ``.txnindex`` written as LogSegment.recover writes them."""
        seg = self.cur
        assert seg is not None
        self.cur = None
        p = self.p
        size, sha = self.stage.finish(seg.out)
        stem = f"{self.target}/{seg.base:0{L.OFFSET_DIGITS}d}"
        if detail is None:
            if seg.whole_copy:
                detail = "copied byte for byte: every batch intact"
                action = "copied"
            else:
                detail = (f"{seg.batches} intact batches (offsets {seg.first_offset}-"
                          f"{seg.last_offset}) copied byte for byte; damaged or repeated "
                          "stretches left out (repair_dropped)")
                if seg.filled:
                    detail += (f"; {seg.filled} of them filled from another broker's replica "
                               "(repair_fill)")
                action = "repaired"
        p.outputs.append(file_entry(seg.source or None, seg.rel, action, detail, size, sha))
        offsets, times = seg.indexes.finish()
        for suffix, data in ((L.INDEX_SUFFIX, offset_index_bytes(seg.base, offsets)),
                             (L.TIME_INDEX_SUFFIX, time_index_bytes(seg.base, times))):
            n, h = self.stage.write(stem + suffix, data)
            p.outputs.append(file_entry(None, stem + suffix, "rebuilt",
                                   f"as LogSegment.recover writes it (index.interval.bytes "
                                   f"{p.interval})", n, h))
        seg_end = seg.last_offset if seg.last_offset is not None else seg.base
        txns = sorted((t for marker, ts in p.pp.aborted.items() for t in ts
                       if seg.base <= marker <= seg_end and marker not in p.txn_done),
                      key=lambda t: t[2])
        if txns:
            for t in txns:
                p.txn_done.add(t[2])
            n, h = self.stage.write(stem + L.TXN_INDEX_SUFFIX, txn_index_bytes(txns))
            p.outputs.append(file_entry(None, stem + L.TXN_INDEX_SUFFIX, "rebuilt",
                                   f"{len(txns)} aborted transactions (their ABORT markers are "
                                   "in this segment), as LogSegment.recover rebuilds it", n, h))
        p.segments_written += 1


__all__ = ["OutSegment", "SegmentWriter", "batch_bytes", "batch_records", "first_record_offset"]
