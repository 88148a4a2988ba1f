"""A partition's logs copied batch by batch: every intact batch byte for byte, in offset
order, into segments Kafka will load; every stretch left out named.

The framing, the resynchronisation after damage and the checksums are
:class:`kdump.records.file_records.LogReader`'s (verify-crc's reader): a batch is kept
when it frames, its checksum holds and it comes after every offset already kept.  This
module decides, batch by batch, what is kept; the rest is split by what it does:

* :mod:`.regions` names what is not kept (a ``repair_dropped`` object each) and what it
  means for the offsets after it;
* :mod:`.segment_writer` writes the kept batches into segments named as Kafka's loader
  needs them and rebuilds their indexes as LogSegment.recover writes them;
* :mod:`.gaps` fills a dropped range from another broker's replica (``--replica``)
  through the same writer;
* :mod:`.partition_log` holds the state all of them share.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

from ... import layouts as L
from ...files.logdir import KafkaFile
from ...findings import Problem
from ...records.file_records import LogReader
from ...source import FileSource
from .gaps import GapFiller
from .kafka_model import SegmentFacts
from .partition_log import PartitionLog, Region
from .regions import Regions
from .segment_writer import SegmentWriter, batch_records
from .staging import Stage


class SegmentCopier:
    """Copies one partition's logs into ``stage`` (see the module docstring)."""

    def __init__(self, plog: PartitionLog, stage: Stage, target: str, max_batch_bytes: int) -> None:
        self.p = plog
        self.max_batch_bytes = max_batch_bytes
        self.writer = SegmentWriter(plog, stage, target)
        self.regions = Regions(plog)
        self.gaps = GapFiller(plog, self.writer, max_batch_bytes)
        #: the input log being copied is copied whole (one output segment of its name,
        #: nothing left out): its bytes exactly
        self._whole = True

    # --- the copy's steps, as repair_partition calls them --------------------------------
    def resolve(self, next_first: int | None, after: tuple[str, int, int] | None = None
                ) -> Iterator[dict[str, Any]]:
        """Regions waiting for the next kept batch (at ``after``: file, position, size):
        the offsets the copy lacks around them, filled from another replica where one
        agrees (``--replica``)."""
        yield from self.regions.flush_duplicates()
        filled: tuple[int, int] | None = None
        if self.p.pending and self.p.filler is not None:
            filled = yield from self.gaps.fill_pending(next_first, after)
        yield from self.regions.resolve(next_first, filled)

    def fill_lost(self, first: int) -> Iterator[dict[str, Any]]:
        """See :meth:`.gaps.GapFiller.fill_lost`."""
        return self.gaps.fill_lost(first)

    def fill_between(self, first: int, next_log: str) -> Iterator[dict[str, Any]]:
        """See :meth:`.gaps.GapFiller.fill_between`."""
        return self.gaps.fill_between(first, next_log)

    def empty_segment(self, base: int, source: str, *, was_empty: bool = False) -> None:
        """See :meth:`.segment_writer.SegmentWriter.empty_segment`."""
        self.writer.empty_segment(base, source, was_empty=was_empty)

    def reserved_segment(self, base: int, first: int, witnesses: list[str]) -> None:
        """See :meth:`.segment_writer.SegmentWriter.reserved_segment`."""
        self.writer.reserved_segment(base, first, witnesses)

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
                yield from self.regions.problem_region(item, f, active, base)
                continue
            b = item
            if magic_at is not None and b.position == magic_at:
                magic_at = None
                facts.batch(b.position, b.size, b.last_offset, p.interval)
                if held is not None:
                    yield from self._settle(held, None, f, base, raw, facts)
                    held = None
                self._whole = False
                yield from self.regions.add(Region(
                    f.path, b.position, b.size, "bad-magic",
                    f"magic byte {int(src.pread(b.position + L.MAGIC_OFFSET, 1)[0])} is not 0, 1 "
                    "or 2, though the rest of the batch is intact (its CRC-32C does not cover "
                    "that byte): a consumer rejects it, so it is not copied", "error",
                    b.first_offset, b.last_offset, self.regions.gap_from(base)))
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
        yield from self.regions.flush_duplicates()
        if self.writer.cur is not None:
            # one output segment, same name, nothing left out: the input's bytes exactly
            self.writer.cur.whole_copy = self._whole and self.writer.cur.base == base and \
                len(p.outputs) == first_out
            self.writer.finish_segment()

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
                yield from self.regions.add(Region(
                    f.path, pos, x.position - pos, "crc-mismatch" if k == 0 else "bad-length",
                    (f"{why}; its size field claims {b.size} bytes, and an intact batch starts "
                     f"inside them at byte {x.position}") if k == 0 else
                    f"inside the {b.size} bytes the damaged size field at byte {b.position} "
                    "claimed; no intact batch", "error",
                    b.first_offset if k == 0 else None, b.last_offset if k == 0 else None,
                    self.regions.gap_from(base)))
            held = yield from self._intact(x, held, f, base, raw, facts)
            pos = x.position + x.size
        if pos < end:
            if held is not None:
                yield from self._settle(held, None, f, base, raw, facts)
                held = None
            first = pos == b.position
            yield from self.regions.add(Region(
                f.path, pos, end - pos, "crc-mismatch" if first else "bad-length",
                why if first else (f"inside the {b.size} bytes the damaged size field at byte "
                                   f"{b.position} claimed; no intact batch"), "error",
                b.first_offset if first else None, b.last_offset if first else None,
                self.regions.gap_from(base)))
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
            yield from self.regions.add(Region(
                f.path, held.position, held.size, "bad-offset",
                f"its offsets {held.first_offset}-{held.last_offset} reach the next segment's "
                f"base offset {next_base} but do not continue the offsets before them: its "
                "offset field, which its checksum does not cover, is damaged; not copied (no "
                "byte is rewritten)", "error", held.first_offset, held.last_offset,
                self.regions.gap_from(base)))
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
                yield from self.regions.duplicate(held, f)
                return nxt
            yield from self.regions.add(Region(
                f.path, held.position, held.size, "overlap",
                f"offsets {held.first_offset}-{held.last_offset} overlap offsets already kept "
                f"(up to {p.prev_last}): a batch cannot be cut, the first copy is kept",
                "warning", held.first_offset, held.last_offset))
            return nxt
        offered = bool(p.pending)  # the dropped regions' gap is offered in resolve
        yield from self.resolve(held.first_offset, (raw.path, held.position, held.size))
        if not offered and p.filler is not None and not p.compacted and p.prev_last is not None and \
                held.first_offset > p.prev_last + 1:
            # offsets cut out between two intact batches of a delete-policy topic (no
            # region of this input names them): lost, offered to the replicas like any gap
            yield from self.gaps.fill_range(p.prev_last + 1, held.first_offset - 1,
                                            (raw.path, held.position, held.size))
        records = batch_records(held)
        facts.kept_batch(records, held.size)
        self.writer.keep(held, base, raw, records)
        return nxt

    def _bad_offset(self, b: Any, other: Any, f: KafkaFile, base: int
                    ) -> Iterator[dict[str, Any]]:
        self._whole = False
        yield from self.regions.bad_offset(b, other, f, base)


__all__ = ["SegmentCopier"]
