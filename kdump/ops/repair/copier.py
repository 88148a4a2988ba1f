"""A partition's logs copied batch by batch: every intact batch byte for byte, in offset
order, into segments Kafka will load; every stretch left out named.

The framing, the resynchronisation after damage and the checksums are
:class:`kdump.records.file_records.LogReader`'s (verify-crc's reader): a batch is kept
when it frames, its checksum holds and it comes after every offset already kept.  What
is not kept becomes a ``repair_dropped`` object.  The output segments follow Kafka's
loading rules (LogLoader.loadSegmentFiles, LogSegment.recover, 4.1):

* a segment keeps its input's name when its first kept batch is at or above that base
  and above the previous segment's last offset; otherwise it is named by its first kept
  batch's base offset (a lookup picks the floor segment by name: LogSegments.floorSegment,
  so names must follow the offsets);
* a batch whose last offset is more than 2^31-1 above its segment's base starts a new
  segment at its base offset (LogSegment.ensureOffsetInRange; Kafka splits such a
  segment, LocalLog.splitOverflowedSegment);
* ``.index`` and ``.timeindex`` as LogSegment.recover writes them
  (:class:`kdump.ops.rebuild.RecoverIndexes`), ``.txnindex`` from the ABORT markers kept
  (verify-index's transaction state).

A dropped range is filled from another broker's replica (``--replica``, :mod:`.fill`
decides whether the replicas agree) through the same keep and segment steps.

Size: one class, :class:`SegmentCopier`, whose steps all share the state of the copy being
written (the output segment, the batch held, the regions waiting for the next kept batch);
splitting it would pass that state between modules through private names.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from ... import layouts as L
from ...errors import KdumpError
from ...files.logdir import KafkaFile
from ...findings import Problem
from ...model import shape
from ...records.file_records import LogReader, OversizedLegacyBatch, OversizedRecordBatch
from ...records.v2 import RecordBatch
from ...source import FileSource
from ..rebuild import RecoverIndexes, offset_index_bytes, time_index_bytes, txn_index_bytes
from ..verify_index.options import PartitionPass
from ..verify_index.segment_pass import feed_batch
from .kafka_model import SegmentFacts
from .staging import Output, Stage, file_entry

_COPY_CHUNK = 8 << 20
#: a region's severity decided by the offsets missing after it (see ``resolve``)
_BY_GAP = "by-gap"


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


@dataclass(slots=True)
class Region:
    """A stretch of an input log not copied."""

    file: str
    position: int
    length: int
    reason: str
    detail: str
    severity: str
    first_offset: int | None = None
    last_offset: int | None = None
    #: the first offset the copy may lack (None: the region holds no data of its own)
    gap_from: int | None = None


@dataclass(slots=True)
class PartitionLog:
    """State carried across the segments of one partition."""

    directory: str
    interval: int
    log_dir: str | None
    topic: str
    partition: int
    pp: PartitionPass = field(default_factory=PartitionPass)
    prev_last: int | None = None
    #: the smallest offset a data-losing region may have held (None: nothing lost)
    frontier: int | None = None
    pending: list[Region] = field(default_factory=list)
    regions: int = 0
    bytes_dropped: int = 0
    data_lost: bool = False
    #: the highest offset the input's log dir says was written below it (high watermark,
    #: recovery point): zeros in the active segment below it are lost batches, not
    #: preallocation (None: unknown)
    written_end: int | None = None
    batches: int = 0
    records: int = 0
    bytes: int = 0
    first_offset: int | None = None
    input_last: int | None = None
    outputs: list[dict[str, Any]] = field(default_factory=list)
    segments_written: int = 0
    facts: list[SegmentFacts] = field(default_factory=list)
    #: aborted transactions already written to a .txnindex (by marker offset)
    txn_done: set[int] = field(default_factory=set)
    #: [first, last] offsets the copy lacks between kept batches (holes, not the end)
    holes: list[tuple[int, int]] = field(default_factory=list)
    #: the replicas a dropped range is filled from (``--replica``: a fill.Filler)
    filler: Any = None
    #: one past the highest offset the witnesses prove written (a torn tail is filled up
    #: to it, never beyond); None: no witness
    witnessed_end: int | None = None
    #: [first, last] offsets filled from another replica
    filled: list[tuple[int, int]] = field(default_factory=list)
    #: (file, position, size) of the last batch kept (the batch before a gap)
    last_kept: tuple[str, int, int] | None = None


def _records(b: Any) -> int:
    """Records in a batch: the v2 header's count; a v0/v1 entry's messages."""
    if isinstance(b, RecordBatch):
        return int(b.records_count)
    if not b.is_compressed:
        return 1
    try:
        return sum(1 for _ in b.records())
    except KdumpError:
        return 0


def _first_record_offset(b: Any) -> int:
    """The batch's first offset: v2 baseOffset; a v0/v1 compressed wrapper's first inner
    offset (its own offset is its last one), as Kafka names a segment rolled at it."""
    if isinstance(b, RecordBatch) or not b.is_compressed:
        return int(b.first_offset)
    try:
        return int(b.base_offset)
    except KdumpError:
        return int(b.first_offset)


def _batch_bytes(b: Any, src: FileSource) -> Iterator[bytes | memoryview]:
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


class SegmentCopier:
    """Copies one partition's logs into ``stage`` (see the module docstring)."""

    def __init__(self, plog: PartitionLog, stage: Stage, target: str, max_batch_bytes: int) -> None:
        self.p = plog
        self.stage = stage
        self.target = target
        self.max_batch_bytes = max_batch_bytes
        self.cur: OutSegment | None = None
        #: a run of second copies (adjacent duplicate batches of one file) being gathered
        #: into one region: a segment copied twice is one region, not one per batch
        self._dup: Region | None = None
        self._dup_batches = 0
        #: the log's end was offered to the replicas already (one repair_fill per replica)
        self.tail_tried = False

    # --- regions -------------------------------------------------------------------------
    def _duplicate(self, b: Any, f: KafkaFile) -> Iterator[dict[str, Any]]:
        """A batch whose offsets are all kept already: added to the run it continues (the
        same file, the next byte), else it starts a run."""
        d = self._dup
        if d is not None and d.file == f.path and d.position + d.length == b.position:
            d.length += b.size
            d.last_offset = b.last_offset
            self._dup_batches += 1
            return
        yield from self._flush_duplicates()
        self._dup = Region(f.path, b.position, b.size, "duplicate", "", "warning",
                           b.first_offset, b.last_offset)
        self._dup_batches = 1

    def _flush_duplicates(self) -> Iterator[dict[str, Any]]:
        d = self._dup
        if d is None:
            return
        self._dup = None
        n = self._dup_batches
        d.detail = (f"offsets {d.first_offset}-{d.last_offset} are already kept (their first "
                    "intact copy, earlier in offset order)"
                    + (f"; {n} batches in a row, one region" if n > 1 else ""))
        yield from self._region(d)

    def _region(self, r: Region) -> Iterator[dict[str, Any]]:
        yield from self._flush_duplicates()
        p = self.p
        p.regions += 1
        p.bytes_dropped += r.length
        if r.severity == "error":
            self._lost(r.gap_from if r.gap_from is not None else 0)
        if r.gap_from is None:
            yield self._dropped(r, None)
        else:
            p.pending.append(r)

    def _dropped(self, r: Region, missing: list[int | None] | None) -> dict[str, Any]:
        return shape("repair_dropped", {
            "file": r.file, "position": r.position, "length": r.length, "reason": r.reason,
            "detail": r.detail, "first_offset": r.first_offset, "last_offset": r.last_offset,
            "missing_offsets": missing, "severity": r.severity, "log_dir": self.p.log_dir,
            "topic": self.p.topic, "partition": self.p.partition})

    def resolve(self, next_first: int | None, after: tuple[str, int, int] | None = None
                ) -> Iterator[dict[str, Any]]:
        """Regions waiting for the next kept batch (at ``after``: file, position, size):
        the offsets the copy lacks around them, filled from another replica where one
        agrees (``--replica``)."""
        yield from self._flush_duplicates()
        filled: tuple[int, int] | None = None
        if self.p.pending and self.p.filler is not None:
            filled = yield from self._fill(next_first, after)
        for r in self.p.pending:
            assert r.gap_from is not None
            if filled is not None:
                if filled[1] + 1 > r.gap_from:
                    r.detail += (f"; offsets {filled[0]}-{filled[1]} filled from another "
                                 "broker's replica (repair_fill)")
                r.gap_from = max(r.gap_from, filled[1] + 1)
            if next_first is None and filled is not None and self.p.witnessed_end is not None \
                    and r.gap_from >= self.p.witnessed_end:
                missing: list[int | None] | None = None
            elif next_first is None:
                missing = [r.gap_from, None]
            elif next_first - 1 >= r.gap_from:
                missing = [r.gap_from, next_first - 1]
                if not self.p.holes or self.p.holes[-1] != (r.gap_from, next_first - 1):
                    self.p.holes.append((r.gap_from, next_first - 1))
            else:
                missing = None
            if r.severity == _BY_GAP:
                # zeros ending a closed segment: lost batches when offsets are missing
                # after them, else the unused end of a preallocated file
                r.severity = "error" if missing is not None else "warning"
                if missing is not None:
                    self._lost(r.gap_from)
                else:
                    r.detail += "; no offset is missing after them: nothing lost"
            yield self._dropped(r, missing)
        self.p.pending.clear()

    def _fill(self, next_first: int | None, after: tuple[str, int, int] | None
              ) -> Generator[dict[str, Any], None, tuple[int, int] | None]:
        """The gap before ``next_first`` (the log's end: up to the witnessed end) filled
        from the first replica that agrees around it (:mod:`.fill`); its repair_fill
        objects; the offsets filled, or None."""
        p = self.p
        first = min(r.gap_from for r in p.pending if r.gap_from is not None)
        if next_first is not None:
            last = next_first - 1
        else:
            self.tail_tried = True
            if p.witnessed_end is None:
                return None
            last, after = p.witnessed_end - 1, None
        return (yield from self._fill_range(first, last, after))

    def fill_lost(self, first: int) -> Iterator[dict[str, Any]]:
        """Offsets ``first`` up to the highest the witnesses prove written that no dropped
        region names (a ``.log`` gone, a last segment lost), filled from a replica as a
        dropped range is; nothing when the log's end was tried already."""
        p = self.p
        if p.filler is None or p.witnessed_end is None or self.tail_tried or \
                first > p.witnessed_end - 1:
            return
        self.tail_tried = True
        yield from self._fill_range(first, p.witnessed_end - 1, None)

    def fill_between(self, first: int, next_log: str) -> Iterator[dict[str, Any]]:
        """Offsets from ``first`` lost with a segment's ``.log`` between two kept ones,
        up to ``next_log``'s first batch (the batch after the gap, whose bytes the replica
        must hold too), filled from a replica.  Nothing when that batch does not frame as
        a v2 batch: the gap's end would be unproved."""
        if self.p.filler is None:
            return
        try:
            with FileSource(next_log) as src:
                head = src.pread(0, L.RECORD_BATCH_OVERHEAD)
                if len(head) < L.RECORD_BATCH_OVERHEAD or head[L.MAGIC_OFFSET] != 2:
                    return
                base, size = L.LOG_HEADER.unpack_from(head, 0)
                if not L.V2_MIN_BATCH_LENGTH <= size <= src.size - L.LOG_OVERHEAD:
                    return
        except KdumpError:
            return
        yield from self._fill_range(first, base - 1, (next_log, 0, L.LOG_OVERHEAD + size))

    def _fill_range(self, first: int, last: int, after: tuple[str, int, int] | None
                    ) -> Generator[dict[str, Any], None, tuple[int, int] | None]:
        from .fill import fill_object

        p = self.p
        if last < first:
            return None
        before = p.last_kept if p.prev_last is not None and p.prev_last == first - 1 else None
        done: tuple[int, int] | None = None
        for f in p.filler.fill(first, last, before, after):
            if f.why is not None:
                yield fill_object(p.log_dir, p.topic, p.partition, first, last, f, None, f.why)
                continue
            opened = self.cur is None
            for h in f.heads:
                self._keep_filled(h)
            cur = self.cur
            assert cur is not None
            rel = cur.rel
            if opened:
                self._finish_segment(detail=f"{cur.batches} batches (offsets {cur.first_offset}-"
                                     f"{cur.last_offset}) filled byte for byte from "
                                     f"{f.replica.label()} (repair_fill)")
            done = (f.heads[0].base, f.heads[-1].last)
            p.filled.append(done)
            anchors = {(True, True): "the batches either side of the gap are the same bytes "
                                     "on both replicas, and ",
                       (True, False): "the batch before the gap is the same bytes on both "
                                      "replicas (none follows it), and ",
                       (False, True): "the batch after the gap is the same bytes on both "
                                      "replicas (none precedes it), and ",
                       (False, False): "no batch is left on either side to compare; "}[
                (before is not None, after is not None)]
            yield fill_object(p.log_dir, p.topic, p.partition, first, last, f, rel,
                              f"offsets {done[0]}-{done[1]} filled byte for byte from "
                              f"{f.replica.label()}: {anchors}every filled batch holds its "
                              "checksum and the leader epoch both replicas' "
                              "leader-epoch-checkpoint give it")
        return done

    def _keep_filled(self, h: Any) -> None:
        """A batch of another replica (a :class:`Head`) appended to the copy."""
        from ..compare_replicas import read_batch

        b = read_batch(h, self.max_batch_bytes)
        if b is None:  # read and checked by the filler a moment ago
            raise KdumpError("the replica's file changed while the repair read it",
                             path=h.path, position=h.position)
        with FileSource(h.path) as src:
            self._keep(b, b.first_offset, src, _records(b), location=(h.path, h.position, h.size))
        assert self.cur is not None
        self.cur.filled += 1

    def _lost(self, gap_from: int) -> None:
        self.p.data_lost = True
        if self.p.frontier is None:
            self.p.frontier = gap_from

    def _gap_from(self, base: int) -> int:
        return base if self.p.prev_last is None else self.p.prev_last + 1

    # --- one input log -------------------------------------------------------------------
    def copy_log(self, f: KafkaFile, active: bool, src: Any, raw: FileSource,
                 has_index: bool, next_base: int | None = None) -> Iterator[dict[str, Any]]:
        """The batches of one input log (``src``: its source as the reader sees it, maybe
        hashing; ``raw``: the file itself).

        An intact batch is held until the next one is read: a batch's offset field lies
        outside its checksum (v2 CRC-32C from the attributes on; v0/v1 CRC-32 from the
        magic byte), so a flipped bit there leaves the batch "intact" with offsets out of
        line.  When the next intact batch falls inside the held one's offsets, the one
        that does not continue the offsets kept so far is dropped (``bad-offset``)
        instead of every batch after it being taken for a second copy."""
        p = self.p
        base = f.base_offset if f.base_offset is not None else 0
        facts = SegmentFacts(f.path, base, raw.size, has_index)
        p.facts.append(facts)
        reader = LogReader(src, active=active, resync=True, max_batch_bytes=self.max_batch_bytes)
        magic_at: int | None = None
        self._whole = True
        first_out = len(p.outputs)
        held: Any = None
        for item in reader:
            if isinstance(item, Problem):
                if held is not None:  # settled before the fault: it lies before it
                    yield from self._settle(held, None, f, base, raw, facts)
                    held = None
                facts.invalid(item.position or 0)
                if item.kind == "bad-magic" and item.length is None:
                    magic_at = item.position  # the batch read as magic 2 follows
                    continue
                self._whole = False
                yield from self._problem_region(item, active, base)
                continue
            b = item
            if magic_at is not None and b.position == magic_at:
                magic_at = None
                facts.batch(b.position, b.size, b.last_offset, p.interval)
                if held is not None:
                    yield from self._settle(held, None, f, base, raw, facts)
                    held = None
                self._whole = False
                yield from self._region(Region(
                    f.path, b.position, b.size, "bad-magic",
                    f"magic byte {int(src.pread(b.position + L.MAGIC_OFFSET, 1)[0])} is not 0, 1 "
                    "or 2, though the rest of the batch is intact (its CRC-32C does not cover "
                    "that byte): a consumer rejects it, so it is not copied", "error",
                    b.first_offset, b.last_offset, self._gap_from(base)))
                continue
            if not b.crc_valid:
                if held is not None:
                    yield from self._settle(held, None, f, base, raw, facts)
                    held = None
                facts.invalid(b.position)
                self._whole = False
                held = yield from self._bad_checksum(b, src, f, base, raw, facts)
                continue
            held = yield from self._intact(b, held, f, base, raw, facts)
        if held is not None:
            yield from self._settle(held, None, f, base, raw, facts, next_base)
        yield from self._flush_duplicates()
        if self.cur is not None:
            # one output segment, same name, nothing left out: the input's bytes exactly
            self.cur.whole_copy = self._whole and self.cur.base == base and \
                len(p.outputs) == first_out
            self._finish_segment()

    def _intact(self, b: Any, held: Any, f: KafkaFile, base: int, raw: FileSource,
                facts: SegmentFacts) -> Generator[dict[str, Any], None, Any]:
        """An intact batch read: held until the next one; returns the batch held now."""
        p = self.p
        facts.batch(b.position, b.size, b.last_offset, p.interval)
        p.input_last = b.last_offset if p.input_last is None else max(p.input_last, b.last_offset)
        if held is None:
            return b
        return (yield from self._settle(held, b, f, base, raw, facts))

    def _bad_checksum(self, b: Any, src: Any, f: KafkaFile, base: int, raw: FileSource,
                      facts: SegmentFacts) -> Generator[dict[str, Any], None, Any]:
        """A batch that frames but fails its checksum.  Its size field is not under the
        checksum either: when it was damaged upwards, the stretch it claims can hold
        intact batches, which are kept; the rest of the stretch is left out."""
        end = b.position + b.size
        inner = []
        if b.size > 2 * L.RECORD_OVERHEAD_V0:
            sub = LogReader(src, start=b.position + 1, end=end, resync=True,
                            max_batch_bytes=self.max_batch_bytes)
            inner = [x for x in sub if not isinstance(x, Problem) and x.crc_valid]
        why = (f"stored {b.checksum_name} {b.crc} does not match the computed {b.compute_crc()}: "
               "its records cannot be trusted (offsets as its header says them, unverified)")
        pos = b.position
        held: Any = None
        for k, x in enumerate(inner):
            if x.position > pos:
                if held is not None:
                    yield from self._settle(held, None, f, base, raw, facts)
                    held = None
                yield from self._region(Region(
                    f.path, pos, x.position - pos, "crc-mismatch" if k == 0 else "bad-length",
                    (f"{why}; its size field claims {b.size} bytes, and an intact batch starts "
                     f"inside them at byte {x.position}") if k == 0 else
                    f"inside the {b.size} bytes the damaged size field at byte {b.position} "
                    "claimed; no intact batch", "error",
                    b.first_offset if k == 0 else None, b.last_offset if k == 0 else None,
                    self._gap_from(base)))
            held = yield from self._intact(x, held, f, base, raw, facts)
            pos = x.position + x.size
        if pos < end:
            if held is not None:
                yield from self._settle(held, None, f, base, raw, facts)
                held = None
            first = pos == b.position
            yield from self._region(Region(
                f.path, pos, end - pos, "crc-mismatch" if first else "bad-length",
                why if first else (f"inside the {b.size} bytes the damaged size field at byte "
                                   f"{b.position} claimed; no intact batch"), "error",
                b.first_offset if first else None, b.last_offset if first else None,
                self._gap_from(base)))
        return held

    def _settle(self, held: Any, nxt: Any, f: KafkaFile, base: int, raw: FileSource,
                facts: SegmentFacts, next_base: int | None = None
                ) -> Generator[dict[str, Any], None, Any]:
        """Keep or drop the held batch now that ``nxt`` (the next intact batch, or None)
        is known; returns the batch held next (``nxt``, or ``held`` again when ``nxt``
        is the one dropped).  The last batch of a segment is weighed against the next
        segment's name (``next_base``): Kafka rolls a segment at the log end offset, so no
        batch before it reaches it."""
        p = self.p
        expected = p.prev_last + 1 if p.prev_last is not None else base
        if nxt is None and next_base is not None and held.last_offset >= next_base and \
                held.first_offset != expected:
            yield from self._region(Region(
                f.path, held.position, held.size, "bad-offset",
                f"its offsets {held.first_offset}-{held.last_offset} reach the next segment's "
                f"base offset {next_base} but do not continue the offsets before them: its "
                "offset field, which its checksum does not cover, is damaged; not copied (no "
                "byte is rewritten)", "error", held.first_offset, held.last_offset,
                self._gap_from(base)))
            self._whole = False
            return None
        after_prev = p.prev_last is None or nxt is None or nxt.first_offset > p.prev_last
        if nxt is not None and after_prev and nxt.first_offset <= held.last_offset:
            # one of the two has a damaged offset field
            if held.first_offset == expected and nxt.first_offset != expected:
                yield from self._bad_offset(nxt, held, f, base)
                return held
            yield from self._bad_offset(held, nxt, f, base)
            return nxt
        if held.first_offset < 0 or held.last_offset < held.first_offset:
            yield from self._bad_offset(held, None, f, base)
            return nxt
        if p.prev_last is not None and held.first_offset <= p.prev_last:
            self._whole = False
            dup = held.last_offset <= p.prev_last
            if dup:
                yield from self._duplicate(held, f)
                return nxt
            yield from self._region(Region(
                f.path, held.position, held.size, "overlap",
                f"offsets {held.first_offset}-{held.last_offset} overlap offsets already kept "
                f"(up to {p.prev_last}): a batch cannot be cut, the first copy is kept",
                "warning", held.first_offset, held.last_offset))
            return nxt
        yield from self.resolve(held.first_offset, (raw.path, held.position, held.size))
        records = _records(held)
        facts.kept_batch(records, held.size)
        self._keep(held, base, raw, records)
        return nxt

    def _bad_offset(self, b: Any, other: Any, f: KafkaFile, base: int
                    ) -> Iterator[dict[str, Any]]:
        self._whole = False
        why = (f"its offsets {b.first_offset}-{b.last_offset} are out of line with the "
               "batches around it" if other is None else
               f"its offsets {b.first_offset}-{b.last_offset} and those of the batch at byte "
               f"{other.position} ({other.first_offset}-{other.last_offset}) overlap, and this "
               "one does not continue the offsets before them")
        yield from self._region(Region(
            f.path, b.position, b.size, "bad-offset",
            why + ": its offset field, which its checksum does not cover, is damaged; not "
            "copied (no byte is rewritten)", "error", b.first_offset, b.last_offset,
            self._gap_from(base)))

    def _problem_region(self, item: Problem, active: bool, base: int) -> Iterator[dict[str, Any]]:
        length = item.length if item.length is not None else 0
        detail = item.detail
        if item.kind == "zero-tail" and active:
            # preallocation, or writes never made; unless the log dir's checkpoints say
            # offsets from here on were written: a committed (high watermark) or flushed
            # (recovery point) batch of which only zeros are left
            start = self._gap_from(base)
            end = self.p.written_end
            if end is not None and end > start:
                severity, gap = "error", start
                detail += (f"; the log dir's checkpoints say offsets up to {end - 1} were "
                           "written (high watermark or recovery point): lost")
            else:
                severity, gap = "info", None
        elif item.kind == "zero-tail":
            severity, gap = _BY_GAP, self._gap_from(base)
        else:
            severity = "error"
            gap = self._gap_from(base)
        if item.kind == "in-flight":
            detail += "; not copied (a batch never fully written is no batch)"
        yield from self._region(Region(item.path or "", item.position or 0, length, item.kind,
                                       detail, severity, item.base_offset, None, gap))

    # --- output segments -------------------------------------------------------------------
    def _keep(self, b: Any, input_base: int, raw: FileSource, records: int,
              location: tuple[str, int, int] | None = None) -> None:
        p = self.p
        cur = self.cur
        if cur is not None and b.last_offset - cur.base > L.INT32_MAX:
            self._finish_segment()
            cur = None
        if cur is None:
            prev = p.prev_last
            first = _first_record_offset(b)
            if (prev is None or input_base > prev) and input_base <= first and \
                    b.last_offset - input_base <= L.INT32_MAX:
                name = input_base
            else:
                name = first if prev is None else max(first, prev + 1)
            cur = self._open(name, raw.path)
        for chunk in _batch_bytes(b, raw):
            cur.out.write(chunk)
        cur.indexes.add(b.last_offset, b.max_timestamp, b.size)
        cur.batches += 1
        cur.records += records
        if cur.first_offset is None:
            cur.first_offset = b.first_offset
        cur.last_offset = b.last_offset
        feed_batch(p.pp, b)
        p.prev_last = b.last_offset
        p.last_kept = location or (raw.path, b.position, b.size)
        if p.first_offset is None:
            p.first_offset = b.first_offset
        p.batches += 1
        p.records += records
        p.bytes += b.size

    def _open(self, base: int, source: str) -> OutSegment:
        rel = f"{self.target}/{base:0{L.OFFSET_DIGITS}d}{L.LOG_SUFFIX}"
        seg = OutSegment(base, rel, source, self.stage.create(rel),
                         RecoverIndexes(base, self.p.interval))
        self.cur = seg
        return seg

    def empty_segment(self, base: int, source: str, *, was_empty: bool = False) -> None:
        """An empty segment named ``base`` (the log end offset stays at it).  ``was_empty``:
        the input segment is empty too (a segment rolled, or a partition created, with
        nothing appended since), so it is a copy, not a repair."""
        self._open(base, source)
        if was_empty:
            self._finish_segment(detail="copied: empty in the input too (no batch was appended "
                                 "to it), kept under its name so the log end offset stays at "
                                 "its base", action="copied")
            return
        self._finish_segment(detail="empty: every batch of this segment was left out; Kafka's "
                             "own recovery leaves it so too (LogSegment.recover truncates it to "
                             "0 bytes), which keeps the log end offset at its base")

    def reserved_segment(self, base: int, first: int, witnesses: list[str]) -> None:
        """The empty active segment at ``base`` after offsets ``first``..``base - 1`` that
        the witnesses prove written and no kept batch holds (:mod:`.reserve`)."""
        self._open(base, "")
        self._finish_segment(detail=f"empty active segment: offsets {first}-{base - 1} reserved "
                             "(written by the witnesses' word, no batch of them kept), so the "
                             f"broker's next offset is {base}, never one handed out before "
                             f"({'; '.join(witnesses)})", action="reserved")

    def _finish_segment(self, detail: str | None = None, action: str = "repaired") -> None:
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



__all__ = ["OutSegment", "PartitionLog", "Region", "SegmentCopier"]
