"""Offsets the copy lacks, filled from another broker's replica (``kdump repair
--replica``): the gap a dropped region leaves before the next kept batch, a torn tail up
to the offsets the witnesses prove written, the offsets of a segment whose ``.log`` is
gone.  :class:`.fill.Filler` decides whether a replica agrees around the gap (the batches
either side the same bytes, every filled batch's checksum and leader epoch as both
replicas' leader-epoch-checkpoint give it); the batches it gives are appended through the
same segment writer as the kept ones (:class:`.segment_writer.SegmentWriter`).  A replica
that follows a leader truncates to and fetches from it (ReplicaFetcherThread); this is
that fetch, done offline, only where the replicas agree.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

from ... import layouts as L
from ...errors import KdumpError
from ...source import FileSource
from .partition_log import PartitionLog
from .segment_writer import SegmentWriter, batch_records


class GapFiller:
    """Fills one partition's gaps from ``plog.filler`` (the replicas), writing through
    ``writer``."""

    def __init__(self, plog: PartitionLog, writer: SegmentWriter, max_batch_bytes: int) -> None:
        self.p = plog
        self.writer = writer
        self.max_batch_bytes = max_batch_bytes
        #: the log's end was offered to the replicas already (one repair_fill per replica)
        self.tail_tried = False

    def fill_pending(self, next_first: int | None, after: tuple[str, int, int] | None
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
        return (yield from self.fill_range(first, last, after))

    def fill_lost(self, first: int) -> Iterator[dict[str, Any]]:
        """Offsets ``first`` up to the highest the witnesses prove written that no dropped
        region names (a ``.log`` gone, a last segment lost), filled from a replica as a
        dropped range is; nothing when the log's end was tried already."""
        p = self.p
        if p.filler is None or p.witnessed_end is None or self.tail_tried or \
                first > p.witnessed_end - 1:
            return
        self.tail_tried = True
        yield from self.fill_range(first, p.witnessed_end - 1, None)

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
        yield from self.fill_range(first, base - 1, (next_log, 0, L.LOG_OVERHEAD + size))

    def fill_range(self, first: int, last: int, after: tuple[str, int, int] | None
                    ) -> Generator[dict[str, Any], None, tuple[int, int] | None]:
        """Offsets ``first``-``last`` (between the last kept batch and ``after``: file,
        position, size) filled from the first replica that agrees; its repair_fill
        objects; the offsets filled, or None."""
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
            opened = self.writer.cur is None
            for h in f.heads:
                self.keep_filled(h)
            cur = self.writer.cur
            assert cur is not None
            rel = cur.rel
            if opened:
                self.writer.finish_segment(
                    detail=f"{cur.batches} batches (offsets {cur.first_offset}-"
                    f"{cur.last_offset}) filled byte for byte from {f.replica.label()} "
                    "(repair_fill)")
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

    def keep_filled(self, h: Any) -> None:
        """A batch of another replica (a :class:`Head`) appended to the copy."""
        from ..compare_replicas import read_batch

        b = read_batch(h, self.max_batch_bytes)
        if b is None:  # read and checked by the filler a moment ago
            raise KdumpError("the replica's file changed while the repair read it",
                             path=h.path, position=h.position)
        with FileSource(h.path) as src:
            self.writer.keep(b, b.first_offset, src, batch_records(b), location=(h.path, h.position, h.size))
        assert self.writer.cur is not None
        self.writer.cur.filled += 1


__all__ = ["GapFiller"]
