"""What a repaired copy lacks that was written: the ``lost_offsets`` of its
``repair_partition``, whose being non-empty is ``data_lost`` (one meaning: offsets the
output holds no batch of that a witness proves written; after a complete fill, none).

A range is lost in the copy when

* a dropped region held it (a damaged batch, zeros or garbage between kept batches) and
  no replica filled it (:mod:`.regions`, :mod:`.gaps`);
* the copy reserves it (:mod:`.reserve`: the partition's witnesses prove it written past
  the last batch kept);
* or the partition's verdict says it lost (:func:`kdump.ops.verdict.judge_partition` of
  the copy's batches against the input's witnesses): between two batches of a topic whose
  ``cleanup.policy`` is ``delete`` (the batch after a gap proves the offsets below it
  written: Kafka assigns offsets one after another from the log end, UnifiedLog.append
  taking ``localLog.logEndOffset()`` into ``LogValidator.validateMessagesAndAssignOffsets``,
  4.1; only the log cleaner removes offsets from the middle of a log, of a compacted
  topic, LogCleaner.cleanSegments), a compacted
  topic's segment whose ``.log`` is gone while its indexes name it, the log start and
  checkpoints of a partition whose directory is gone.

``kdump verify-crc`` and ``kdump verify-index`` run on the copy name the same ranges
``data-lost`` (tests/ops/repair/test_repair_story.py, tests/ops/test_same_story.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..verdict import POLICY_CHANGED, UNKNOWN_POLICY, PartitionVerdict


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


def copy_losses(verdict: PartitionVerdict | None, region_holes: list[tuple[int, int]],
                reserved: list[int] | None) -> list[Loss]:
    """The ranges the copy lacks that were written (see the module docstring), each once,
    in offset order, with why it is known written.  ``verdict``: the partition judged on
    the copy's batches (kept or filled); ``region_holes``: what dropped regions left
    missing between kept batches."""
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
    if verdict is not None:
        for r in verdict.lost:
            if r.explained is not None:
                continue
            gone = [s.base for s in verdict.missing_logs if r.first <= s.base <= r.last]
            add(r.first, r.last, f"written ({r.witnesses_text})" + "".join(
                f"; segment {g}'s .log is missing" for g in gone))
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


def policy_notes(verdict: PartitionVerdict | None, losses: list[Loss]) -> list[str]:
    """The copy's losses the verifiers cannot call lost in it: the topic's cleanup policy
    unknown (a partition given alone whose log dir holds no cleaner-offset-checkpoint, no
    ``--config``, no KRaft metadata), the copy carries no more evidence than the input,
    so a lost range between two batches of a closed segment is what the cleaner of a
    compacted topic leaves too: ``offset-gap`` (information) there, as in the input
    (the verdict's ``UNKNOWN_POLICY``); then the ranges its policy history explains
    (:func:`explained_notes`)."""
    if verdict is None:
        return []
    notes = explained_notes(verdict)
    for r in verdict.lost:
        if r.explained != UNKNOWN_POLICY:
            continue
        for loss in losses:
            a, b = max(loss.first, r.first), min(loss.last, r.last)
            if a <= b:
                notes.append(f"{Loss(a, b, '').text}: cleanup.policy unknown (no "
                             "cleaner-offset-checkpoint in the input's log dir, no --config or "
                             "KRaft metadata): the copy, with no more evidence than the "
                             "input, shows them as a compacted topic's offset-gap "
                             "(information)")
    return notes


def explained_notes(verdict: PartitionVerdict | None) -> list[str]:
    """The ranges no batch of the input holds that are not lost, in words: those the
    cleaner left while the topic was compacted, before its policy changed (the verdict's
    ``offset-gap``, information; the copy, carrying the same KRaft metadata, shows them
    so too).  They are never in ``lost_offsets``."""
    if verdict is None:
        return []
    return [f"{Loss(r.first, r.last, '').text} are in no batch of the input and not lost: "
            f"{r.explained}" for r in verdict.lost
            if r.explained is not None and r.explained.startswith(POLICY_CHANGED)]


__all__ = ["Loss", "copy_losses", "explained_notes", "missing_segment_notes", "policy_notes"]
