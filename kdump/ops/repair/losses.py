"""What a repaired copy lacks that was written: the ``lost_offsets`` of its
``repair_partition``, whose being non-empty is ``data_lost`` (one meaning: offsets the
output holds no batch of that a witness proves written; after a complete fill, none).

A range is lost in the copy when

* a dropped region held it (a damaged batch, zeros or garbage between kept batches) and
  no replica filled it (:mod:`.regions`, :mod:`.gaps`);
* the copy reserves it (:mod:`.reserve`: the partition's witnesses prove it written past
  the last batch kept);
* it lies between two batches of a topic whose ``cleanup.policy`` is ``delete``: Kafka
  assigns offsets from the log end, one after another (``UnifiedLog.append`` →
  ``LogValidator`` from ``nextOffsetMetadata``), and rolls a segment at the log end
  (``UnifiedLog.roll``), so the batch after a gap proves the offsets below it written;
  only the log cleaner removes offsets from the middle of a log (``LogCleaner.cleanSegments``),
  and only of a compacted topic (a segment gone with all its files, say);
* or the partition's own witnesses prove it written and nothing explains it
  (:meth:`kdump.ops.witnesses.PartitionWitnesses.lost_ranges`: a compacted topic's
  segment whose ``.log`` is gone while its indexes name it, index entries in a gap, the
  log start and checkpoints of a partition whose directory is gone).

``kdump verify-crc`` and ``kdump verify-index`` run on the copy name the same ranges
``data-lost`` (tests/ops/repair/test_repair_losses.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from ..witnesses import PartitionWitnesses, compacted_by_cleaner

#: topics Kafka creates compacted (their configs, when no KRaft metadata says otherwise;
#: the same list as :class:`kdump.ops.witnesses.LostTracker`'s)
COMPACTED_INTERNAL = ("__consumer_offsets", "__transaction_state", "_schemas")


@dataclass(frozen=True, slots=True)
class Loss:
    """Offsets ``first``..``last`` the copy lacks, written by ``why``'s word."""

    first: int
    last: int
    why: str

    @property
    def text(self) -> str:
        return f"offset {self.first}" if self.first == self.last \
            else f"offsets {self.first}-{self.last}"


def is_compacted(policies: object, directory: str, topic: str, partition: int) -> bool:
    """The topic's cleanup.policy includes compact: as ``policies`` (a
    :class:`kdump.ops.witnesses.CleanupPolicies`, from ``--config`` and the KRaft metadata
    among the inputs) resolves it, else a cleaner-offset-checkpoint entry or one of the
    topics Kafka creates compacted."""
    compacted = getattr(policies, "compacted", None)
    if compacted is not None:
        return bool(compacted(directory, topic, partition))
    return compacted_by_cleaner(directory, topic, partition) or topic in COMPACTED_INTERNAL


def _merge(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if b < a:
            continue
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _minus(a: int, b: int, taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``a``..``b`` without the ranges already ``taken`` (merged, sorted)."""
    out: list[tuple[int, int]] = []
    at = a
    for x, y in taken:
        if y < at or x > b:
            continue
        if x > at:
            out.append((at, x - 1))
        at = max(at, y + 1)
    if at <= b:
        out.append((at, b))
    return out


def copy_losses(pw: PartitionWitnesses | None, held: list[tuple[int, int]],
                region_holes: list[tuple[int, int]], reserved: list[int] | None,
                compacted: bool) -> list[Loss]:
    """The ranges the copy lacks that were written (see the module docstring), each once,
    in offset order, with why it is known written.  ``held``: the copy's batches (kept or
    filled); ``region_holes``: what dropped regions left missing between kept batches."""
    found: list[Loss] = []
    taken: list[tuple[int, int]] = []

    def add(a: int, b: int, why: str) -> None:
        nonlocal taken
        for x, y in _minus(a, b, taken):
            found.append(Loss(x, y, why))
        taken = _merge([*taken, (a, b)])

    for a, b in region_holes:
        add(a, b, "a dropped region held them (repair_dropped)")
    if reserved is not None:
        add(reserved[0], reserved[1], "reserved: the partition's witnesses prove them "
            "written past the last batch kept")
    if pw is not None:
        pw.compacted = compacted
        for r in pw.lost_ranges(held):
            if r.explained is not None:
                continue
            gone = [s.base for s in pw.missing_logs() if r.first <= s.base <= r.last]
            why = f"written ({r.witnesses_text})" + "".join(
                f"; segment {g}'s .log is missing" for g in gone)
            add(r.first, r.last, why)
    spans = _merge(held)
    if not compacted:
        for (_, last), (first, _) in itertools.pairwise(spans):
            add(last + 1, first - 1, f"between two batches of a delete-policy topic: the batch "
                f"at offset {first} proves the offsets below it written (offsets are given "
                "one after another: only compaction removes them)")
    return sorted(found, key=lambda x: x.first)


def missing_segment_notes(losses: list[Loss], replicas_given: bool) -> list[str]:
    """The losses no dropped region or reservation names (a segment gone from the middle
    of the log, with or without its indexes), in words."""
    notes = []
    for loss in losses:
        if loss.why.startswith(("a dropped region", "reserved")):
            continue
        notes.append(f"{loss.text} are in no batch of the input and no replica filled "
                     f"them: {loss.why}" if replicas_given else
                     f"{loss.text} are in no batch of the input: {loss.why}")
    return notes


__all__ = ["COMPACTED_INTERNAL", "Loss", "copy_losses", "is_compacted", "missing_segment_notes"]
