"""Replay ``__consumer_offsets`` records into what people want from that topic: the last
committed offset of every (group, topic, partition), and each classic group's latest
metadata.

Feed the records in log order as the offsets decoder renders them (``key_json`` /
``value_json`` of :class:`~kdump.decoders.base.Decoded`; ``None`` value = tombstone),
saying whether the record belongs to an aborted transaction.  Rules, as the group
coordinator applies them when it loads the partition (``GroupMetadataManager``):

* an offset commit (key types 0/1) sets the group/topic/partition's offset; a tombstone
  removes it;
* records of aborted transactions never took effect and are ignored;
* when log offsets are given, a commit only replaces one written at a lower log offset
  (transactional commits become visible at their COMMIT marker, but the newest *record*
  wins, as in ``CommitRecordMetadataAndOffset.olderThan``);
* a group-metadata record (key type 2) replaces the group's metadata; a tombstone
  deletes the group (its offsets are deleted by their own tombstones).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CommittedOffset", "GroupSummary", "OffsetsDigest"]


@dataclass(frozen=True, slots=True)
class CommittedOffset:
    """The committed position of one group on one partition."""

    group: str
    topic: str
    partition: int
    offset: int
    metadata: str
    commit_timestamp: int
    leader_epoch: int | None  # value v3+; None when the value version has no epoch
    expire_timestamp: int | None  # value v1 only
    value_version: int
    log_offset: int | None  # where the record is in __consumer_offsets


@dataclass(frozen=True, slots=True)
class GroupSummary:
    """A classic group's latest GroupMetadataValue."""

    group: str
    protocol_type: str
    generation: int
    protocol: str | None
    leader: str | None
    members: int
    current_state_timestamp: int | None  # value v2+
    value_version: int
    log_offset: int | None


def _as_int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        try:
            return int(v)
        except ValueError:
            return None
    return None


class OffsetsDigest:
    """Accumulates decoded ``__consumer_offsets`` records; see the module docstring."""

    def __init__(self) -> None:
        self._offsets: dict[tuple[str, str, int], CommittedOffset] = {}
        self._groups: dict[str, GroupSummary] = {}
        self.records = 0
        self.skipped_aborted = 0
        self.ignored = 0  # undecodable records and record types the digest does not use

    # ----------------------------------------------------------------- feeding

    def add(
        self,
        key: object,
        value: object,
        *,
        aborted: bool = False,
        log_offset: int | None = None,
    ) -> None:
        """Apply one record: ``key``/``value`` as the offsets decoder's JSON objects.

        ``key`` is ``{"type": "1", "data": {...}}``; ``value`` is
        ``{"version": "3", "data": {...}}`` or ``None`` for a tombstone.
        """
        self.records += 1
        if aborted:
            self.skipped_aborted += 1
            return
        if not isinstance(key, Mapping) or not isinstance(key.get("data"), Mapping):
            self.ignored += 1
            return
        record_type = _as_int(key.get("type"))
        kdata = key["data"]
        if value is not None and (
            not isinstance(value, Mapping) or not isinstance(value.get("data"), Mapping)
        ):
            self.ignored += 1  # the value did not decode
            return
        if record_type in (0, 1):
            self._offset_commit(kdata, value, log_offset)
        elif record_type == 2:
            self._group_metadata(kdata, value, log_offset)
        else:
            self.ignored += 1

    def add_decoded(self, decoded: Any, *, aborted: bool = False, log_offset: int | None = None) -> None:
        """Apply a :class:`~kdump.decoders.base.Decoded` from the offsets decoder.

        (That decoder gives ``value_json`` ``None`` only for tombstones; an undecodable
        value comes as ``{"version": ..., "raw": ...}`` and is ignored here.)
        """
        self.add(decoded.key_json, decoded.value_json, aborted=aborted, log_offset=log_offset)

    def _offset_commit(self, kdata: Mapping[str, Any], value: object, log_offset: int | None) -> None:
        group, topic, partition = kdata.get("group"), kdata.get("topic"), kdata.get("partition")
        if not isinstance(group, str) or not isinstance(topic, str):
            self.ignored += 1
            return
        if not isinstance(partition, int):
            self.ignored += 1
            return
        k = (group, topic, partition)
        current = self._offsets.get(k)
        if (
            current is not None
            and log_offset is not None
            and current.log_offset is not None
            and log_offset < current.log_offset
        ):
            return  # an older record replayed late (transactional commit) loses
        if value is None:
            self._offsets.pop(k, None)
            return
        assert isinstance(value, Mapping)
        data = value["data"]
        offset = _as_int(data.get("offset"))
        if offset is None:
            self.ignored += 1
            return
        metadata = data.get("metadata")
        self._offsets[k] = CommittedOffset(
            group=group,
            topic=topic,
            partition=partition,
            offset=offset,
            metadata=metadata if isinstance(metadata, str) else "",
            commit_timestamp=_as_int(data.get("commitTimestamp")) or 0,
            leader_epoch=_as_int(data.get("leaderEpoch")),
            expire_timestamp=_as_int(data.get("expireTimestamp")),
            value_version=_as_int(value.get("version")) or 0,
            log_offset=log_offset,
        )

    def _group_metadata(self, kdata: Mapping[str, Any], value: object, log_offset: int | None) -> None:
        group = kdata.get("group")
        if not isinstance(group, str):
            self.ignored += 1
            return
        if value is None:
            self._groups.pop(group, None)
            return
        assert isinstance(value, Mapping)
        data = value["data"]
        members = data.get("members")
        protocol, leader = data.get("protocol"), data.get("leader")
        protocol_type = data.get("protocolType")
        self._groups[group] = GroupSummary(
            group=group,
            protocol_type=protocol_type if isinstance(protocol_type, str) else "",
            generation=_as_int(data.get("generation")) or 0,
            protocol=protocol if isinstance(protocol, str) else None,
            leader=leader if isinstance(leader, str) else None,
            members=len(members) if isinstance(members, list) else 0,
            current_state_timestamp=_as_int(data.get("currentStateTimestamp")),
            value_version=_as_int(value.get("version")) or 0,
            log_offset=log_offset,
        )

    # ----------------------------------------------------------------- results

    def offsets(self) -> list[CommittedOffset]:
        """Committed offsets, sorted by group, topic, partition."""
        return [self._offsets[k] for k in sorted(self._offsets)]

    def __iter__(self) -> Iterator[CommittedOffset]:
        return iter(self.offsets())

    def groups(self) -> list[GroupSummary]:
        """Classic groups' latest metadata (deleted groups left out), sorted by name."""
        return [self._groups[g] for g in sorted(self._groups)]

    def group_names(self) -> list[str]:
        """Every group with committed offsets or live metadata, sorted."""
        return sorted({k[0] for k in self._offsets} | set(self._groups))
