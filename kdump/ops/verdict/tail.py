"""An active segment's tail as the partition's witnesses judge it: a half batch or zeros
past every witness are a live broker's append in flight or preallocation (information);
below a witness (the high watermark, the recovery point, an index entry, a snapshot
name...) the batches were written whole, and the tail is where they were lost (an error
naming the lost offsets).  verify-crc, verify-index, size-report, dump, retention and
browse judge a tail here, and :class:`kdump.ops.verdict.Tail` names the result.
"""

from __future__ import annotations

from typing import Any

from ... import fs as kfs
from ...errors import KdumpError
from ...files.logdir import KafkaFile
from ...findings import ERROR, INFO, Problem
from ...fs import Listing
from ...source import FileSource
from .witnesses import witnesses_of


def _written_past(f: KafkaFile, prev_last: int | None) -> tuple[int, int, str] | None:
    """The offsets past an active segment's last batch that the partition's witnesses
    prove written (:mod:`kdump.ops.witnesses`: the log dir's checkpoints, the leader
    epochs, the index entries, the producer snapshot names...): ``(first, last,
    "high watermark 25, recovery point 30")``; None when none does."""
    if f.topic is None or f.partition is None or f.partition_state is not None \
            or kfs.is_url(f.path):
        return None  # local log dirs only (LostTracker)
    pw = witnesses_of(kfs.dirname(f.path))
    first = prev_last + 1 if prev_last is not None else f.base_offset
    if pw is None or first is None:
        return None
    end, _ = pw.highest_written(include_replicas=False)
    if end <= first:
        return None
    which = [w for w in pw.witnesses if w.end > first and w.name != "segment-name"]
    return first, end - 1, ", ".join(w.label for w in sorted(
        which, key=lambda w: (_WITNESS_ORDER.get(w.name, 99), w.end)))


def loss_extra(p: Problem, f: KafkaFile, first: int, last: int) -> dict[str, Any]:
    """A tail's loss as a ``data-lost`` finding says it: the range, the partition and
    the witnesses proving it (one per kind, the nearest: the same as data-lost's)."""
    extra: dict[str, Any] = {**(p.extra or {}), "lost_offsets": [first, last]}
    pw = witnesses_of(kfs.dirname(f.path))
    if pw is not None:
        rs = pw.lost_ranges([(first - 1, first - 1)] if first > 0 else [])
        r = next((r for r in rs if r.first <= first <= r.last), None)
        extra.update({"topic": pw.topic, "partition": pw.partition})
        if r is not None:
            extra["witnesses"] = [w.to_json() for w in r.witnesses]
    return extra


_WITNESS_ORDER = {"high-watermark": 0, "recovery-point": 1}


def _zeros_where_written(p: Problem, f: KafkaFile, prev_last: int | None) -> Problem:
    """Zeros ending an active segment are preallocation or writes never made (info),
    unless the partition's witnesses (its log dir's replication-offset-checkpoint: high
    watermark, committed; recovery-point-offset-checkpoint: flushed; index entries,
    snapshot names...) say offsets past its last batch were written: then those batches
    are lost on this replica (an error, ``lost_offsets``), as ``kdump repair`` judges the
    same zeros."""
    past = _written_past(f, prev_last)
    if past is None:
        return p
    first, last, which = past
    return Problem(p.path, p.position, p.kind,
                   f"{p.length if p.length is not None else 0} zero bytes from here to the end "
                   f"of the file, where the log dir's checkpoints say batches were written "
                   f"({which}): offset{'s' if last > first else ''} "
                   f"{first}{f'-{last}' if last > first else ''} lost on this replica",
                   base_offset=p.base_offset, length=p.length, severity=ERROR,
                   extra=loss_extra(p, f, first, last))


def _not_in_flight(p: Problem, f: KafkaFile, prev_last: int | None) -> Problem:
    """A torn last batch of an active segment is a live broker's append in flight
    (info) only past every witness: below the high watermark, the recovery point or any
    other witness, the batch was written whole and is cut short (an error)."""
    past = _written_past(f, prev_last)
    if past is None:
        return p
    first, last, which = past
    # no header at all is trailing bytes (LogReader._tail); a header, a batch cut short
    return Problem(p.path, p.position, "truncated" if p.base_offset is not None
                   else "trailing-bytes",
                   f"{p.detail}; not in flight: the partition's witnesses say batches were "
                   f"written past it ({which}): offset{'s' if last > first else ''} "
                   f"{first}{f'-{last}' if last > first else ''} lost on this replica",
                   base_offset=p.base_offset, length=p.length, severity=ERROR,
                   extra=loss_extra(p, f, first, last))


def judge_tail(p: Problem, f: KafkaFile, prev_last: int | None) -> Problem:
    """An active segment's ``zero-tail`` or ``in-flight`` finding as the partition's
    witnesses judge it (``prev_last``: the last offset of the batch before it): an error
    naming the lost offsets when they prove batches written past it, else as it was.
    verify-crc and dump judge the same tail the same way."""
    if f.kind != "log" or not f.active:
        return p
    if p.kind == "zero-tail":
        return _zeros_where_written(p, f, prev_last)
    if p.kind == "in-flight":
        if p.position == 0 and prev_last is None and not _begins_as_batch(f):
            # nothing that is not a batch is in flight: bytes at a segment's start that
            # do not begin with its base offset (as its first batch would) are no batch;
            # the file's no-batch finding says what it is (issue 46)
            return Problem(p.path, p.position, "trailing-bytes",
                           f"{p.detail}: not a batch being written (its first bytes are "
                           "not the segment's base offset)", base_offset=None,
                           length=p.length, severity=INFO, extra=p.extra)
        return _not_in_flight(p, f, prev_last)
    return p


def _begins_as_batch(f: KafkaFile) -> bool:
    """The log's first bytes are its base offset, as its first batch's would be
    (:class:`kdump.ops.batch_findings.NoBatch` reads the same)."""
    if f.base_offset is None or not 0 <= f.base_offset < 1 << 63:
        return True
    try:
        with FileSource(f.path) as src:
            head = src.pread(0, 8)
    except KdumpError:
        return True
    return bool(head) and head[:8] == f.base_offset.to_bytes(8, "big")[:len(head[:8])]


def _next_segment_base(f: KafkaFile) -> int | None:
    """The base offset of the segment after ``f`` in its partition directory, if any."""
    try:
        names = Listing().listdir(kfs.dirname(f.path))
    except OSError:
        return None
    bases = [int(n[:-4]) for n in names
             if n.endswith(".log") and len(n) == 24 and n[:20].isdigit()]
    later = [b for b in bases if f.base_offset is not None and b > f.base_offset]
    return min(later) if later else None


def judge_closed_tail(p: Problem, f: KafkaFile, prev_last: int | None) -> Problem:
    """A closed segment cut short (``truncated``) loses every offset from the cut batch up
    to the next segment's base offset: say which (``lost_offsets``: first and last,
    inclusive) and the witnesses proving them, as a ``data-lost`` finding would."""
    if f.kind != "log" or f.active or p.kind != "truncated":
        return p
    nxt = _next_segment_base(f)
    first = prev_last + 1 if prev_last is not None else p.base_offset
    if nxt is None or first is None or first >= nxt:
        return p
    last = nxt - 1
    p.detail += (f"; offsets {first}-{last} lost (the next segment starts at {nxt})"
                 if last > first else f"; offset {first} lost (the next segment starts at {nxt})")
    p.extra = loss_extra(p, f, first, last)
    return p


__all__ = ["judge_closed_tail", "judge_tail", "loss_extra"]
