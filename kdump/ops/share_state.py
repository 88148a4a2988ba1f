"""Replay ``__share_group_state`` (KIP-932) into each share-partition's state: what the
share coordinator holds after loading the partition (``ShareCoordinatorShard.replay``).

Records are fed in log order as the share-group-state decoder renders them
(``key_json`` / ``value_json``; ``None`` value = tombstone).  Per (group, topic id,
partition):

* a ShareSnapshot (key type 0) is the complete state: snapshot epoch, state epoch,
  leader epoch, start offset, delivery-complete count, timestamps; its tombstone
  deletes the share-partition;
* a ShareUpdate (key type 1) is incremental: start offset and leader epoch replace the
  held ones unless -1, the delivery-complete count is replaced, the state epoch and
  snapshot epoch stay those of the last snapshot (an update with no snapshot before
  it starts a state whose state epoch is -1, ``UNINITIALIZED_EPOCH``);
* the in-flight state batches are those of the last snapshot, and each update's are
  combined with them as Kafka 4.x's ``PersisterStateBatchCombiner`` combines them
  (:func:`combine_state_batches`): batches wholly below the start offset dropped, cut at
  it, overlapping ones resolved in favour of the higher delivery count (then the higher
  delivery state), contiguous ones of the same delivery count and state joined.  An
  update with no snapshot before it keeps its batches as written (Kafka's
  ``ShareGroupOffset.fromRecord``).
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .offsets_digest import as_int

__all__ = ["SharePartitionState", "ShareStateDigest", "StateBatch", "combine_state_batches"]

#: (first offset, last offset, delivery state, delivery count): ``PersisterStateBatch``
StateBatch = tuple[int, int, int, int]
#: batches :func:`combine_state_batches` merges at most (Kafka bounds a share-partition's
#: in-flight records by group.share.partition.max.record.locks); past it they are sorted
MAX_COMBINED_BATCHES = 4096

#: ``ShareGroupOffset``: the state epoch of an update-only state
UNINITIALIZED_EPOCH = -1


@dataclass(slots=True)
class SharePartitionState:
    """One share-partition's state as the share coordinator would hold it."""

    group: str
    topic_id: str
    partition: int
    start_offset: int
    state_epoch: int
    leader_epoch: int
    snapshot_epoch: int
    delivery_complete_count: int | None  # -1 / absent: not recorded (before Kafka 4.2)
    #: the in-flight state: the last snapshot's batches combined with the updates' after it
    state_batches: list[StateBatch]
    updates: int  # ShareUpdate records since the last snapshot
    write_timestamp: int | None  # of the last snapshot
    log_offset: int | None  # the last record applied


class ShareStateDigest:
    """Accumulates decoded ``__share_group_state`` records; see the module docstring."""

    def __init__(self) -> None:
        self._states: dict[tuple[str, str, int], SharePartitionState] = {}
        self.records = 0
        self.ignored = 0

    def add(self, key: object, value: object, *, log_offset: int | None = None) -> None:
        self.records += 1
        if not isinstance(key, Mapping) or not isinstance(key.get("data"), Mapping):
            self.ignored += 1
            return
        kind = as_int(key.get("type"))
        kd = key["data"]
        group, tid, part = kd.get("groupId"), kd.get("topicId"), kd.get("partition")
        if not isinstance(group, str) or not isinstance(tid, str) or not isinstance(part, int) \
                or kind not in (0, 1):
            self.ignored += 1
            return
        k = (group, tid, part)
        if value is None:
            if kind == 0:
                self._states.pop(k, None)
            else:
                self.ignored += 1  # Kafka never writes one
            return
        if not isinstance(value, Mapping) or not isinstance(value.get("data"), Mapping):
            self.ignored += 1
            return
        d = value["data"]
        start = as_int(d.get("startOffset"))
        leader_epoch = as_int(d.get("leaderEpoch"))
        if start is None or leader_epoch is None:
            self.ignored += 1
            return
        batches = _batches(d.get("stateBatches"))
        dcc = as_int(d.get("deliveryCompleteCount"))
        dcc = None if dcc is None or dcc < 0 else dcc
        snap_epoch = as_int(d.get("snapshotEpoch")) or 0
        cur = self._states.get(k)
        if kind == 0:
            self._states[k] = SharePartitionState(
                group, tid, part, start, as_int(d.get("stateEpoch")) or 0, leader_epoch,
                snap_epoch, dcc, batches, 0, as_int(d.get("writeTimestamp")), log_offset)
        elif cur is None:
            self._states[k] = SharePartitionState(
                group, tid, part, start, UNINITIALIZED_EPOCH, leader_epoch, snap_epoch, dcc,
                batches, 1, None, log_offset)
        else:
            if start != -1:
                cur.start_offset = start
            if leader_epoch != -1:
                cur.leader_epoch = leader_epoch
            cur.delivery_complete_count = dcc
            cur.state_batches = combine_state_batches(cur.state_batches, batches,
                                                      cur.start_offset)
            cur.updates += 1
            cur.log_offset = log_offset

    def states(self) -> list[SharePartitionState]:
        """Share-partitions by group, topic id, partition."""
        return [self._states[k] for k in sorted(self._states)]

    def to_row(self, s: SharePartitionState, topic: str | None) -> dict[str, Any]:
        """The ``share_partition`` object's values."""
        return {"group": s.group, "topic": topic, "topic_id": s.topic_id,
                "partition": s.partition, "start_offset": s.start_offset,
                "state_epoch": s.state_epoch, "leader_epoch": s.leader_epoch,
                "snapshot_epoch": s.snapshot_epoch,
                "delivery_complete_count": s.delivery_complete_count,
                "state_batches": [{"first_offset": b[0], "last_offset": b[1],
                                   "delivery_state": b[2], "delivery_count": b[3]}
                                  for b in s.state_batches],
                "updates_since_snapshot": s.updates,
                "write_timestamp": s.write_timestamp, "log_offset": s.log_offset}


def _batches(v: Any) -> list[StateBatch]:
    """A record's ``stateBatches`` (those with every field an int)."""
    out: list[StateBatch] = []
    for b in v if isinstance(v, list) else []:
        if isinstance(b, Mapping):
            t = (as_int(b.get("firstOffset")), as_int(b.get("lastOffset")),
                 as_int(b.get("deliveryState")), as_int(b.get("deliveryCount")))
            if None not in t:
                out.append(t)  # type: ignore[arg-type]
    return out


def _sort_key(b: StateBatch) -> tuple[int, int, int, int]:
    # PersisterStateBatch.compareTo: first offset, last offset, delivery count, state
    return (b[0], b[1], b[3], b[2])


def _info(a: StateBatch, b: StateBatch) -> int:
    """``compareBatchDeliveryInfo``: delivery count, then delivery state (<0: a lower)."""
    if a[3] != b[3]:
        return -1 if a[3] < b[3] else 1
    return (a[2] > b[2]) - (a[2] < b[2])


def combine_state_batches(so_far: list[StateBatch], new: list[StateBatch],
                          start_offset: int) -> list[StateBatch]:
    """The share coordinator's ``PersisterStateBatchCombiner.combineStateBatches`` (Kafka
    4.x, share-coordinator): ``so_far`` and ``new`` pruned at ``start_offset`` (unless
    -1), then merged into batches that do not overlap, in its order."""
    combined = [*so_far, *new]
    if start_offset != -1:
        pruned: list[StateBatch] = []
        for b in combined:
            if b[1] < start_offset:
                continue
            pruned.append(b if b[0] >= start_offset else (start_offset, b[1], b[2], b[3]))
        combined = pruned
    if len(combined) < 2:
        return combined
    if len(combined) > MAX_COMBINED_BATCHES:
        # past what a share-partition's record locks allow: a hostile record is not
        # merged (quadratic), only sorted
        return sorted(set(combined), key=_sort_key)
    # a sorted set, as Kafka's TreeSet: batches equal in every field are one
    ordered = sorted(set(combined), key=_sort_key)
    final: list[StateBatch] = []
    while True:
        i = 0
        while i + 1 < len(ordered):
            prev, cand = ordered[i], ordered[i + 1]
            if cand[0] <= prev[1] or (prev[1] + 1 == cand[0] and _info(prev, cand) == 0):
                break
            i += 1
        # the batches before the pair overlap nothing after them: final
        final.extend(ordered[:i])
        if i + 1 >= len(ordered):
            final.extend(ordered[i:])
            return final
        rest = ordered[i + 2:]
        for b in _merge_pair(ordered[i], ordered[i + 1]):
            k = bisect.bisect_left(rest, _sort_key(b), key=_sort_key)
            if k == len(rest) or rest[k] != b:
                rest.insert(k, b)
        ordered = rest


def _merge_pair(prev: StateBatch, cand: StateBatch) -> list[StateBatch]:
    """What replaces an overlapping (or contiguous, same delivery info) pair, ``prev``
    sorting first: the candidate wins where it has the higher delivery info."""
    lower = _info(cand, prev) < 0  # the candidate has the lower delivery info
    if _info(cand, prev) == 0:
        return [(prev[0], max(prev[1], cand[1]), prev[2], prev[3])]
    if cand[0] == prev[0]:
        if cand[1] == prev[1]:
            return [cand]
        # cand ends after prev (sorted by last offset)
        if lower:
            return [prev, (prev[1] + 1, cand[1], cand[2], cand[3])]
        return [cand]
    head = (prev[0], cand[0] - 1, prev[2], prev[3])
    if cand[1] < prev[1]:  # prev swallows the candidate
        if lower:
            return [prev]
        return [head, cand, (cand[1] + 1, prev[1], prev[2], prev[3])]
    if cand[1] == prev[1]:
        return [prev] if lower else [head, cand]
    # the candidate reaches past prev
    if lower:
        return [prev, (prev[1] + 1, cand[1], cand[2], cand[3])]
    return [head, cand]
