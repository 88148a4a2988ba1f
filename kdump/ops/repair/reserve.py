"""``kdump repair`` never hands an offset out twice: the copy's next offset (what a broker
assigns after loading it) is one past the highest offset any witness proves written.

Where the witnesses prove offsets written that no kept batch holds (a torn tail below the
high watermark, a ``.log`` gone while its checkpoints still name the partition), the
copy ends with an empty active segment named at that next offset N, with empty
``.index``/``.timeindex`` files.  Kafka loads it (4.0-4.3 alike):

* LogLoader.loadSegmentFiles opens every ``<offset>.log`` with its indexes; nothing
  requires a segment's name to follow the previous segment's last offset (offset gaps
  are legal: compaction makes them);
* LogLoader.recoverLog recovers the segments from the recovery point (N: nothing below
  it to re-read but what the repair wrote and checked), and the log end offset is the
  last segment's LogSegment.readNextOffset, which for an empty segment is its base
  offset: N.  The next batch appended (UnifiedLog.append, the leader's
  LogAppendInfo.firstOffset) gets offset N;
* a fetch at an offset X of the reserved range (below N, at or above the last kept batch):
  LocalLog.read takes the floor segment of X, which holds no batch at or above X, then
  the higher segments (LogSegments.higherSegment) up to the empty one, and answers with
  no records and no error (``FetchDataInfo(nextOffsetMetadata, MemoryRecords.EMPTY)``;
  OFFSET_OUT_OF_RANGE only for X above the log end offset, or below the first segment:
  a copy holding no batch still starts at the input's log start, below).  The consumer
  waits at X, and
  once a batch is appended at N the same read returns it (LogSegment.read: the first
  batch whose last offset is at or above X): the consumer skips the lost offsets, and no
  committed offset ever points at a record written after the repair under an old number.

The checkpoints follow Kafka's checks: recovery point = N (LogLoader keeps
min(recovery point, log end)); the high watermark is kept (at most N: UnifiedLog.
updateHighWatermark clamps it into [log start, log end]); a log start offset entry stays
(LogLoader takes max(checkpoint, first segment's base)); a copy with no segment left (a
``.log`` or the whole partition directory gone) gets an empty segment at the input's log
start besides the one at N, so its log starts where the input's did and the reserved
offsets lie inside it, where a fetch waits for N as above and verify-crc names them
lost, rather than below its start; the leader-epoch checkpoint keeps the input's highest epoch when
its start offset lies in the reserved range (LogLoader truncates the cache from the end
at the log end offset N only: LeaderEpochFileCache.truncateFromEndAsyncFlush).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..compare_replicas import EpochCache
from ..verdict import PartitionWitnesses, judge_partition, partition_witnesses


@dataclass(slots=True)
class Written:
    """What a partition's own witnesses prove was written."""

    #: the highest offset (None: no witness proves one)
    last: int | None = None
    #: the witnesses proving it, in words
    witnesses: list[str] = field(default_factory=list)
    #: the lowest offset that should be readable (PartitionWitnesses.expected_start)
    start: int = 0
    #: base offsets of segments whose .log is gone while other files name them
    missing_logs: list[int] = field(default_factory=list)
    #: every witness of the partition (None: no partition directory's name)
    pw: PartitionWitnesses | None = None


def written_by_witnesses(partition_dir: str) -> Written:
    """The highest offset the partition's own witnesses prove written (None: none proves
    one), and the witnesses that prove it, in words: the partition's verdict
    (:func:`kdump.ops.verdict.judge_partition`: ``highest_written``,
    ``highest_witnesses``, ``expected_start``, ``missing_logs``; its log dir's
    checkpoints, leader epochs, index entries, snapshot and segment names,
    ``.txnindex``).  Other brokers' replicas are not counted: offsets only a leader ahead
    of this broker holds were never written here; a broker loading the copy fetches them
    from that leader above its log end (--replica fills a dropped range from them)."""
    pw = partition_witnesses(partition_dir)
    verdict = None if pw is None else judge_partition(partition_dir, witnesses=pw)
    if pw is None or verdict is None:
        return Written()
    out = Written(start=verdict.expected_start,
                  missing_logs=[s.base for s in verdict.missing_logs], pw=pw)
    if verdict.highest_written > 0:
        out.last = verdict.highest_written - 1
        out.witnesses = [f"{w.label} ({w.path})" for w in verdict.highest_witnesses]
    return out


def keep_highest_epoch(epochs: list[tuple[int, int]], input_epochs: list[tuple[int, int]],
                       reserved_from: int, log_end: int) -> list[tuple[int, int]]:
    """The epochs of the kept batches, then the input checkpoint's entries of higher
    epochs that start in the reserved range (below the copy's log end), assigned as
    LeaderEpochFileCache.assign does."""
    cache = EpochCache(epochs)
    for epoch, start in input_epochs:
        latest = cache.latest_epoch()
        if (latest is None or epoch > latest) and reserved_from <= start < log_end:
            cache.assign(epoch, start)
    return list(cache.entries)


def reserve_notes(reserved: list[int], leo: int) -> list[str]:
    """What the reservation means, in words."""
    first, last = reserved
    return [f"offsets {first}-{last} reserved, never handed out again: the copy ends with an "
            f"empty active segment at offset {leo}, so a broker loading it appends at {leo} "
            f"(the highest offset the witnesses prove written is {last}); a consumer at a "
            f"reserved offset gets no records until a batch is appended at {leo}, then that "
            "batch (LocalLog.read)"]


__all__ = ["Written", "keep_highest_epoch", "reserve_notes", "written_by_witnesses"]
