"""Leader epochs: Kafka's leader-epoch cache and where a follower's truncation lands.

Kafka's side, followed exactly:

* storage/.../epoch/LeaderEpochFileCache.java: ``assign`` (monotonic entries),
  ``truncateFromEnd`` / ``truncateFromStart`` (the log loader applies both with the log
  end and log start offsets) and ``endOffsetFor`` (the largest epoch <= the requested
  one, and the start offset of the next epoch, or the log end offset for the latest);
* core/.../server/AbstractFetcherThread.scala ``getOffsetTruncationState``: the follower
  asks the leader for the end offset of its latest epoch; when the leader answers with an
  epoch the follower does not know, the follower truncates to its own end offset for the
  largest epoch below it and asks again; otherwise it truncates to
  min(leader's end offset, its own end offset for that epoch, its log end offset).  A
  follower without epochs, or a leader that answers UNDEFINED_EPOCH_OFFSET, truncates to
  its high watermark.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1


class EpochCache:
    """LeaderEpochFileCache's entries and rules (see the module docstring)."""

    def __init__(self, entries: Iterable[tuple[int, int]] = ()) -> None:
        self.entries: list[tuple[int, int]] = []
        for e, s in entries:
            self.assign(e, s)

    def copy(self) -> EpochCache:
        c = EpochCache()
        c.entries = list(self.entries)
        return c

    def latest_epoch(self) -> int | None:
        return self.entries[-1][0] if self.entries else None

    def assign(self, epoch: int, start: int) -> None:
        if epoch < 0 or start < 0:
            return  # Kafka throws; such an entry is not taken
        if self.entries:
            le, ls = self.entries[-1]
            if not (epoch != le or start < ls):
                return
        while self.entries and (self.entries[-1][0] >= epoch or self.entries[-1][1] >= start):
            self.entries.pop()
        self.entries.append((epoch, start))

    def truncate_from_end(self, end_offset: int) -> None:
        if end_offset >= 0 and self.entries and self.entries[-1][1] >= end_offset:
            while self.entries and self.entries[-1][1] >= end_offset:
                self.entries.pop()

    def truncate_from_start(self, start_offset: int) -> None:
        removed = None
        while self.entries and self.entries[0][1] <= start_offset:
            removed = self.entries.pop(0)
        if removed is not None:
            self.entries.insert(0, (removed[0], start_offset))

    def end_offset_for(self, requested: int, log_end_offset: int) -> tuple[int, int]:
        if requested == UNDEFINED_EPOCH:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        if self.entries and self.entries[-1][0] == requested:
            return requested, log_end_offset
        higher = next(((e, s) for e, s in self.entries if e > requested), None)
        if higher is None:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        floor = None
        for e, s in self.entries:
            if e <= requested:
                floor = (e, s)
        if floor is None:
            return requested, higher[1]
        return floor[0], higher[1]


@dataclass(slots=True)
class Truncation:
    offset: int | None
    rounds: int
    reason: str


def follower_truncation(leader: EpochCache, leader_leo: int, follower: EpochCache,
                        follower_leo: int, follower_hw: int | None) -> Truncation:
    """Where Kafka's OffsetsForLeaderEpoch exchange truncates the follower."""
    cache = follower.copy()
    leo = follower_leo
    rounds = 0
    while True:
        rounds += 1
        fe = cache.latest_epoch()
        if fe is None:
            return Truncation(None if follower_hw is None else min(follower_hw, leo), rounds,
                              "the follower has no leader epochs: it truncates to its high "
                              "watermark" + ("" if follower_hw is not None else " (unknown)"))
        le, l_end = leader.end_offset_for(fe, leader_leo)
        if l_end == UNDEFINED_EPOCH_OFFSET:
            return Truncation(None if follower_hw is None else min(follower_hw, leo), rounds,
                              f"the leader knows no epoch <= {fe}: the follower truncates "
                              "to its high watermark"
                              + ("" if follower_hw is not None else " (unknown)"))
        f_epoch, f_end = cache.end_offset_for(le, leo)
        if f_end == UNDEFINED_EPOCH_OFFSET:
            return Truncation(min(l_end, leo), rounds,
                              f"the follower tracks no epoch <= {le}: the leader's end "
                              f"offset {l_end} for epoch {le}")
        if f_epoch != le:
            t = min(f_end, leo)
            leo = t
            cache.truncate_from_end(t)
            if rounds > 10_000:
                return Truncation(t, rounds, "gave up after 10000 rounds")
            continue
        return Truncation(min(f_end, l_end, leo), rounds,
                          f"end offset of epoch {le}, the largest epoch both hold "
                          f"(leader: {l_end}, follower: {f_end})")
