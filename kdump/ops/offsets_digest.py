"""Replay ``__consumer_offsets`` records into what people want from that topic: the last
committed offset of every (group, topic, partition), each classic group's latest
metadata, and the state of KIP-848 consumer groups, KIP-1071 streams groups and KIP-932
share groups.

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
* the records of the other group types (``CoordinatorRecordType``; consumer 3-8 and 16,
  share 9-15, streams 17-23) are applied as ``GroupMetadataManager.replay`` applies them:
  any record with a value creates the group (the type its record type says); the
  group-metadata record (3, 11, 17) sets the group epoch and its tombstone deletes the
  group; a member-metadata record (5, 10, 19) sets a member, its tombstone removes it;
  the current-assignment records (8, 14, 22) set a member's epoch; the
  target-assignment metadata (6, 12, 20) the assignment epoch; a
  ConsumerGroupRegularExpression (16) the topics a subscription regex resolved to (its
  tombstone drops it); StreamsGroupTopology (23) the topology; ShareGroupStatePartition
  Metadata (15) the share-partitions whose state is initialized, initializing or being
  deleted.  Their offsets (consumer and streams groups commit like classic ones) are the
  commits above; a share group's position is in ``__share_group_state``
  (:mod:`kdump.ops.share_state`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["GROUP_TYPES", "CommittedOffset", "GroupState", "GroupSummary", "OffsetsDigest",
           "as_int"]

#: ``CoordinatorRecordType`` ids (key versions) of each group type's records
CONSUMER_RECORDS = frozenset({3, 4, 5, 6, 7, 8, 16})
SHARE_RECORDS = frozenset({9, 10, 11, 12, 13, 14, 15})
STREAMS_RECORDS = frozenset({17, 18, 19, 20, 21, 22, 23})
GROUP_TYPES = ("classic", "consumer", "streams", "share")


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


def as_int(v: Any) -> int | None:
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


@dataclass(slots=True)
class GroupState:
    """A consumer (KIP-848), streams (KIP-1071) or share (KIP-932) group as its
    ``__consumer_offsets`` records leave it."""

    group: str
    group_type: str  # consumer, streams or share
    epoch: int | None = None  # the group epoch (group-metadata record); None: not seen
    metadata_hash: int | None = None
    assignment_epoch: int | None = None
    #: member id -> {instance_id, client_id, client_host, rack_id, ...}
    members: dict[str, dict[str, Any]] = field(default_factory=dict)
    member_epochs: dict[str, int] = field(default_factory=dict)
    #: member id -> its current assignment (records 8, 14: partitions by topic id; 22:
    #: active tasks by subtopology)
    assignments: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: consumer groups: resolved regular expression -> {topics, version, timestamp}
    regexes: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: streams groups: {epoch, subtopologies}
    topology: dict[str, Any] | None = None
    #: share groups: {initialized, initializing, deleting} from record 15
    share_state: dict[str, Any] | None = None
    log_offset: int | None = None

    def subscribed_topic_names(self) -> list[str]:
        return sorted({t for m in self.members.values()
                       for t in m.get("subscribed_topic_names") or []})

    def subscribed_topic_regexes(self) -> list[str]:
        return sorted({m["subscribed_topic_regex"] for m in self.members.values()
                       if m.get("subscribed_topic_regex")})

    def to_row(self, topic_names: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The ``group`` object's values (``topic_names``: topic id -> name, for the
        members' assignments)."""
        names = topic_names or {}

        def assignment(mid: str) -> list[dict[str, Any]] | None:
            a = self.assignments.get(mid)
            if a is None or self.group_type == "streams":
                return a
            return [{"topic_id": x["topic_id"], "topic": names.get(str(x["topic_id"])),
                     "partitions": x["partitions"]} for x in a]

        row: dict[str, Any] = {
            "group": self.group, "group_type": self.group_type,
            "protocol_type": self.group_type, "generation": None, "protocol": None,
            "leader": None, "members": len(self.members), "current_state_timestamp": None,
            "log_offset": self.log_offset, "epoch": self.epoch,
            "assignment_epoch": self.assignment_epoch,
            "group_members": [{"member_id": mid, "member_epoch": self.member_epochs.get(mid),
                               **m, "assignment": assignment(mid)}
                              for mid, m in sorted(self.members.items())],
        }
        if self.group_type in ("consumer", "share"):
            row["subscribed_topic_names"] = self.subscribed_topic_names()
        if self.group_type == "consumer":
            row["subscribed_topic_regexes"] = self.subscribed_topic_regexes()
            row["resolved_regular_expressions"] = [
                {"regular_expression": r, **v} for r, v in sorted(self.regexes.items())]
        if self.group_type == "streams":
            row["topology"] = self.topology
        if self.group_type == "share":
            row["share_partitions"] = self.share_state
        return row


def _strs(v: Any) -> list[str]:
    return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []


def _str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _topic_partitions(v: Any, names: dict[str, str]) -> list[dict[str, Any]]:
    """``[{topicId, topicName, partitions}]`` of record 15 as output objects."""
    out = []
    for t in v if isinstance(v, list) else []:
        if not isinstance(t, Mapping):
            continue
        tid, name = t.get("topicId"), t.get("topicName")
        if isinstance(tid, str) and isinstance(name, str):
            names[tid] = name
        parts = t.get("partitions")
        out.append({"topic_id": tid, "topic": name,
                    **({"partitions": sorted(p for p in parts if isinstance(p, int))}
                       if isinstance(parts, list) else {})})
    return sorted(out, key=lambda x: (str(x["topic"]), str(x["topic_id"])))


class OffsetsDigest:
    """Accumulates decoded ``__consumer_offsets`` records; see the module docstring."""

    def __init__(self) -> None:
        self._offsets: dict[tuple[str, str, int], CommittedOffset] = {}
        self._groups: dict[str, GroupSummary] = {}
        self._modern: dict[str, GroupState] = {}
        #: topic id -> name, from the share-group records that carry both
        self.topic_names: dict[str, str] = {}
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
        record_type = as_int(key.get("type"))
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
        elif record_type in CONSUMER_RECORDS:
            self._modern_record("consumer", record_type, kdata, value, log_offset)
        elif record_type in SHARE_RECORDS:
            self._modern_record("share", record_type, kdata, value, log_offset)
        elif record_type in STREAMS_RECORDS:
            self._modern_record("streams", record_type, kdata, value, log_offset)
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
        offset = as_int(data.get("offset"))
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
            commit_timestamp=as_int(data.get("commitTimestamp")) or 0,
            leader_epoch=as_int(data.get("leaderEpoch")),
            expire_timestamp=as_int(data.get("expireTimestamp")),
            value_version=as_int(value.get("version")) or 0,
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
            generation=as_int(data.get("generation")) or 0,
            protocol=protocol if isinstance(protocol, str) else None,
            leader=leader if isinstance(leader, str) else None,
            members=len(members) if isinstance(members, list) else 0,
            current_state_timestamp=as_int(data.get("currentStateTimestamp")),
            value_version=as_int(value.get("version")) or 0,
            log_offset=log_offset,
        )

    def _modern_record(self, gtype: str, rtype: int, kdata: Mapping[str, Any], value: object,
                       log_offset: int | None) -> None:
        group = kdata.get("groupId")
        if not isinstance(group, str):
            self.ignored += 1
            return
        g = self._modern.get(group)
        if value is None:
            if g is None or g.group_type != gtype:
                return  # a tombstone for a group never seen: nothing to do
        elif g is None or g.group_type != gtype:
            # a group converted from another type starts afresh
            g = self._modern[group] = GroupState(group, gtype)
        assert g is not None
        g.log_offset = log_offset
        data: Mapping[str, Any] = value["data"] if isinstance(value, Mapping) else {}
        member = kdata.get("memberId")
        if rtype in (3, 11, 17):  # group metadata
            if value is None:
                del self._modern[group]
                return
            g.epoch = as_int(data.get("epoch"))
            g.metadata_hash = as_int(data.get("metadataHash"))
        elif rtype in (5, 10, 19) and isinstance(member, str):  # member metadata
            if value is None:
                g.members.pop(member, None)
                g.member_epochs.pop(member, None)
                return
            m: dict[str, Any] = {
                "instance_id": _str_or_none(data.get("instanceId")),
                "client_id": _str_or_none(data.get("clientId")),
                "client_host": _str_or_none(data.get("clientHost")),
                "rack_id": _str_or_none(data.get("rackId"))}
            if gtype in ("consumer", "share"):
                m["subscribed_topic_names"] = _strs(data.get("subscribedTopicNames"))
            if gtype == "consumer":
                m["subscribed_topic_regex"] = _str_or_none(data.get("subscribedTopicRegex"))
                m["server_assignor"] = _str_or_none(data.get("serverAssignor"))
            if gtype == "streams":
                m["process_id"] = _str_or_none(data.get("processId"))
                m["topology_epoch"] = as_int(data.get("topologyEpoch"))
            g.members[member] = m
        elif rtype in (8, 14, 22) and isinstance(member, str):  # current assignment
            if value is None:
                g.member_epochs.pop(member, None)
                g.assignments.pop(member, None)
            else:
                epoch = as_int(data.get("memberEpoch"))
                if epoch is not None:
                    g.member_epochs[member] = epoch
                if gtype == "streams":
                    g.assignments[member] = [
                        {"subtopology_id": _str_or_none(t.get("subtopologyId")),
                         "partitions": _ints(t.get("partitions"))}
                        for t in _list(data.get("activeTasks")) if isinstance(t, Mapping)]
                else:
                    g.assignments[member] = [
                        {"topic_id": _str_or_none(t.get("topicId")),
                         "partitions": _ints(t.get("partitions"))}
                        for t in _list(data.get("assignedPartitions")) if isinstance(t, Mapping)]
        elif rtype in (6, 12, 20):  # target assignment metadata
            g.assignment_epoch = None if value is None else as_int(data.get("assignmentEpoch"))
        elif rtype == 16:
            regex = kdata.get("regularExpression")
            if isinstance(regex, str):
                if value is None:
                    g.regexes.pop(regex, None)
                else:
                    g.regexes[regex] = {"topics": sorted(_strs(data.get("topics"))),
                                        "version": as_int(data.get("version")),
                                        "timestamp": as_int(data.get("timestamp"))}
        elif rtype == 23:
            g.topology = None if value is None else _topology(data)
        elif rtype == 15 or (rtype == 9 and value is not None and "initializedTopics" in data):
            # type 9 in Kafka 3.9's layout (ShareGroupPartitionMetadataValue: initialized
            # and deleting topics) is what 4.0 calls type 15
            g.share_state = None if value is None else {
                "initialized": _topic_partitions(data.get("initializedTopics"), self.topic_names),
                "initializing": _topic_partitions(data.get("initializingTopics"),
                                                  self.topic_names),
                "deleting": _topic_partitions(data.get("deletingTopics"), self.topic_names)}
        elif rtype in (4, 9) and value is not None:  # subscription metadata (4.0's type 9)
            _topic_partitions(data.get("topics"), self.topic_names)

    # ----------------------------------------------------------------- results

    def offsets(self) -> list[CommittedOffset]:
        """Committed offsets, sorted by group, topic, partition."""
        return [self._offsets[k] for k in sorted(self._offsets)]

    def __iter__(self) -> Iterator[CommittedOffset]:
        return iter(self.offsets())

    def groups(self) -> list[GroupSummary]:
        """Classic groups' latest metadata (deleted groups left out), sorted by name."""
        return [self._groups[g] for g in sorted(self._groups)]

    def modern_groups(self) -> list[GroupState]:
        """Consumer, streams and share groups (deleted ones left out), sorted by name."""
        return [self._modern[g] for g in sorted(self._modern)]

    def group_type(self, group: str) -> str | None:
        """classic, consumer, streams or share; None: only offset commits name it."""
        g = self._modern.get(group)
        if g is not None:
            return g.group_type
        return "classic" if group in self._groups else None

    def group_rows(self) -> list[dict[str, Any]]:
        """Every live group as the ``group`` object's values, sorted by name."""
        rows = [{"group": g.group, "group_type": "classic", "protocol_type": g.protocol_type,
                 "generation": g.generation, "protocol": g.protocol, "leader": g.leader,
                 "members": g.members, "current_state_timestamp": g.current_state_timestamp,
                 "log_offset": g.log_offset} for g in self.groups()]
        rows += [g.to_row(self.topic_names) for g in self.modern_groups()]
        rows.sort(key=lambda r: (r["group"], GROUP_TYPES.index(r["group_type"])))
        return rows

    def group_names(self) -> list[str]:
        """Every group with committed offsets or live metadata, sorted."""
        return sorted({k[0] for k in self._offsets} | set(self._groups) | set(self._modern))


def _topology(data: Mapping[str, Any]) -> dict[str, Any]:
    """StreamsGroupTopologyValue as an output object: its epoch and, per subtopology,
    the topics it reads and writes."""
    subs = []
    for st in _list(data.get("subtopologies")):
        if not isinstance(st, Mapping):
            continue
        subs.append({
            "subtopology_id": _str_or_none(st.get("subtopologyId")),
            "source_topics": _strs(st.get("sourceTopics")),
            "source_topic_regex": _strs(st.get("sourceTopicRegex")),
            "repartition_sink_topics": _strs(st.get("repartitionSinkTopics")),
            "repartition_source_topics": _names(st.get("repartitionSourceTopics")),
            "state_changelog_topics": _names(st.get("stateChangelogTopics")),
        })
    return {"epoch": as_int(data.get("epoch")), "subtopologies": subs}


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _names(v: Any) -> list[str]:
    """The names of ``[{name, ...}]`` topic infos."""
    return [t["name"] for t in _list(v) if isinstance(t, Mapping) and isinstance(t.get("name"), str)]


def _ints(v: Any) -> list[int]:
    return sorted(x for x in _list(v) if isinstance(x, int) and not isinstance(x, bool))
