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
* the in-flight state batches are counted, not merged (``PersisterStateBatchCombiner``
  is Kafka's; kdump reports the start offset and epochs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .offsets_digest import as_int

__all__ = ["SharePartitionState", "ShareStateDigest"]

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
    state_batches: int  # in the last snapshot plus the updates after it
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
        batches = d.get("stateBatches")
        n_batches = len(batches) if isinstance(batches, list) else 0
        dcc = as_int(d.get("deliveryCompleteCount"))
        dcc = None if dcc is None or dcc < 0 else dcc
        snap_epoch = as_int(d.get("snapshotEpoch")) or 0
        cur = self._states.get(k)
        if kind == 0:
            self._states[k] = SharePartitionState(
                group, tid, part, start, as_int(d.get("stateEpoch")) or 0, leader_epoch,
                snap_epoch, dcc, n_batches, 0, as_int(d.get("writeTimestamp")), log_offset)
        elif cur is None:
            self._states[k] = SharePartitionState(
                group, tid, part, start, UNINITIALIZED_EPOCH, leader_epoch, snap_epoch, dcc,
                n_batches, 1, None, log_offset)
        else:
            if start != -1:
                cur.start_offset = start
            if leader_epoch != -1:
                cur.leader_epoch = leader_epoch
            cur.delivery_complete_count = dcc
            cur.state_batches += n_batches
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
                "state_batches": s.state_batches, "updates_since_snapshot": s.updates,
                "write_timestamp": s.write_timestamp, "log_offset": s.log_offset}
