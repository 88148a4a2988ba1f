"""The classifying half of the segment copier: what is left out of the copy and what it
means.  Each stretch not copied is a :class:`~.partition_log.Region` (its reason, its
severity, the offsets the copy may lack after it) and becomes a ``repair_dropped``
object, at once when it holds no data of its own, else when the next kept batch (or the
log's end) says which offsets are missing around it.

* damage the reader reports (LogReader's faults: garbage, a bad length, a torn or
  in-flight tail, zeros): zeros ending the active segment are preallocation or writes
  never made (LogSegment.recover truncates them), unless the log dir's checkpoints say
  offsets from there were written; zeros ending a closed segment are lost batches only
  when offsets are missing after them;
* a batch whose offsets are all kept already: a second copy (``duplicate``), adjacent
  ones of a file gathered into one region;
* a batch whose offset field (outside its checksum) is damaged: ``bad-offset``.

Which batch is kept is decided by :class:`.copier.SegmentCopier`; the regions are
reported here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from ...files.logdir import KafkaFile
from ...findings import INFO, Problem
from ...model import shape
from ..verdict import judge_tail
from .partition_log import PartitionLog, Region

#: a region's severity decided by the offsets missing after it (see ``Regions.resolve``)
BY_GAP = "by-gap"


class Regions:
    """The regions of one partition's copy: counted in ``plog``, reported as
    ``repair_dropped`` objects."""

    def __init__(self, plog: PartitionLog) -> None:
        self.p = plog
        #: a run of second copies (adjacent duplicate batches of one file) being gathered
        #: into one region: a segment copied twice is one region, not one per batch
        self._dup: Region | None = None
        self._dup_batches = 0

    def duplicate(self, b: Any, f: KafkaFile) -> Iterator[dict[str, Any]]:
        """A batch whose offsets are all kept already: added to the run it continues (the
        same file, the next byte), else it starts a run."""
        d = self._dup
        if d is not None and d.file == f.path and d.position + d.length == b.position:
            d.length += b.size
            d.last_offset = b.last_offset
            self._dup_batches += 1
            return
        yield from self.flush_duplicates()
        self._dup = Region(f.path, b.position, b.size, "duplicate", "", "warning",
                           b.first_offset, b.last_offset)
        self._dup_batches = 1

    def flush_duplicates(self) -> Iterator[dict[str, Any]]:
        """The run of second copies gathered so far, as one region."""
        d = self._dup
        if d is None:
            return
        self._dup = None
        n = self._dup_batches
        d.detail = (f"offsets {d.first_offset}-{d.last_offset} are already kept (their first "
                    "intact copy, earlier in offset order)"
                    + (f"; {n} batches in a row, one region" if n > 1 else ""))
        yield from self.add(d)

    def add(self, r: Region) -> Iterator[dict[str, Any]]:
        """A region counted; reported now when it holds no data of its own, else held
        until the next kept batch (:meth:`resolve`)."""
        yield from self.flush_duplicates()
        p = self.p
        p.regions += 1
        p.bytes_dropped += r.length
        if r.severity == "error":
            self.lost(r.gap_from if r.gap_from is not None else 0)
        if r.gap_from is None:
            yield self.dropped(r, None)
        else:
            p.pending.append(r)

    def dropped(self, r: Region, missing: list[int | None] | None) -> dict[str, Any]:
        """The ``repair_dropped`` object of a region."""
        return shape("repair_dropped", {
            "file": r.file, "position": r.position, "length": r.length, "reason": r.reason,
            "detail": r.detail, "first_offset": r.first_offset, "last_offset": r.last_offset,
            "missing_offsets": missing, "severity": r.severity, "log_dir": self.p.log_dir,
            "topic": self.p.topic, "partition": self.p.partition})

    def resolve(self, next_first: int | None, filled: tuple[int, int] | None
                ) -> Iterator[dict[str, Any]]:
        """The regions waiting for the next kept batch (its first offset ``next_first``;
        None at the log's end), now that the offsets the copy lacks around them are known
        (``filled``: the offsets a replica filled, or None)."""
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
                # at the log's end: up to the highest offset a witness proves written (the
                # range reserved), else unknown
                end = self.p.witnessed_end
                missing = [r.gap_from, end - 1 if end is not None and end > r.gap_from
                           else None]
            elif next_first - 1 >= r.gap_from:
                missing = [r.gap_from, next_first - 1]
                if not self.p.holes or self.p.holes[-1] != (r.gap_from, next_first - 1):
                    self.p.holes.append((r.gap_from, next_first - 1))
            else:
                missing = None
            if r.severity == BY_GAP:
                # zeros ending a closed segment: lost batches when offsets are missing
                # after them, else the unused end of a preallocated file
                r.severity = "error" if missing is not None else "warning"
                if missing is not None:
                    self.lost(r.gap_from)
                else:
                    r.detail += "; no offset is missing after them: nothing lost"
            yield self.dropped(r, missing)
        self.p.pending.clear()

    def lost(self, gap_from: int) -> None:
        """Data lost from offset ``gap_from`` on (the first loss sets the frontier a
        producer snapshot may not pass)."""
        self.p.data_lost = True
        if self.p.frontier is None:
            self.p.frontier = gap_from

    def gap_from(self, base: int) -> int:
        """The first offset the copy may lack now: after the last kept batch, or the
        segment's base."""
        return base if self.p.prev_last is None else self.p.prev_last + 1

    def bad_offset(self, b: Any, other: Any, f: KafkaFile, base: int
                   ) -> Iterator[dict[str, Any]]:
        """A batch whose offset field is damaged: out of line with the batches around it,
        or overlapping ``other`` without continuing the offsets kept."""
        why = (f"its offsets {b.first_offset}-{b.last_offset} are out of line with the "
               "batches around it" if other is None else
               f"its offsets {b.first_offset}-{b.last_offset} and those of the batch at byte "
               f"{other.position} ({other.first_offset}-{other.last_offset}) overlap, and this "
               "one does not continue the offsets before them")
        yield from self.add(Region(
            f.path, b.position, b.size, "bad-offset",
            why + ": its offset field, which its checksum does not cover, is damaged; not "
            "copied (no byte is rewritten)", "error", b.first_offset, b.last_offset,
            self.gap_from(base)))

    def problem_region(self, item: Problem, f: KafkaFile, active: bool, base: int
                       ) -> Iterator[dict[str, Any]]:
        """A fault the reader reported (in segment ``base`` of ``f``; ``active``: the
        last one).  An active segment's ``zero-tail`` or ``in-flight`` end is judged by the
        partition's witnesses exactly as verify-crc judges it
        (:func:`kdump.ops.witnesses.judge_tail`): past every witness it is preallocation
        or an append in flight (info: not damage, nothing lost, nothing to fill); below a
        witness it is lost batches (an error: ``zero-tail`` still, or ``truncated`` for a
        batch cut short, as verify-crc names it)."""
        length = item.length if item.length is not None else 0
        if active and item.kind in ("zero-tail", "in-flight"):
            judged = judge_tail(item, replace(f, active=True), self.p.prev_last)
            if judged.severity == INFO:
                detail = judged.detail
                if judged.kind == "in-flight":
                    detail += "; not copied (a batch never fully written is no batch)"
                yield from self.add(Region(item.path or "", item.position or 0, length,
                                           judged.kind, detail, INFO, item.base_offset, None,
                                           None))
                return
            yield from self.add(Region(item.path or "", item.position or 0, length, judged.kind,
                                       judged.detail, "error", item.base_offset, None,
                                       self.gap_from(base)))
            return
        severity = BY_GAP if item.kind == "zero-tail" else "error"
        yield from self.add(Region(item.path or "", item.position or 0, length, item.kind,
                                   item.detail, severity, item.base_offset, None,
                                   self.gap_from(base)))


__all__ = ["BY_GAP", "Regions"]
