"""The coordinators' events: ``__consumer_offsets`` (groups) and ``__transaction_state``
(the transaction coordinator), read record by record with kdump's internal decoders
(the release of each log dir's metadata.version, or --kafka-version).

Times are the coordinator's clock (FORMATS.md §22): an offset commit's
``commitTimestamp``, a classic group's ``currentStateTimestamp`` (v2+; else its batch's
timestamp, which the coordinator's own append gives), a transactional id's
``transactionLastUpdateTimestampMs``; the new group records (KIP-848 consumer, KIP-932
share, KIP-1071 streams) carry no time of their own: their batch's.

Offset commits are summarised, never one event each: per group, topic and partition,
the commits between two rebalances of the group (or its deletion, or the log's end)
make one ``offsets-committed`` event at the last commit's time (first and last offset,
how many commits, since when).  Memory: one summary per (group, topic, partition) open.
Transactional offset commits are counted as written (their markers are the producer
events of the replica stream).
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Iterator, Mapping
from typing import Any

from ...decoders import Releases
from ...decoders.consumer_offsets import (
    CONSUMER_PROTOCOL_ASSIGNMENT,
    CONSUMER_PROTOCOL_SUBSCRIPTION,
    CoordinatorRecordDecoder,
    decode_consumer_protocol,
)
from ...decoders.release import log_dir_of
from ...errors import KdumpError
from ...files.logdir import list_segments
from ...findings import INFO, Problem
from ...records.file_records import LogReader
from ...records.v2 import RecordBatch
from ...source import FileSource
from ..compare_replicas import Replica
from ..offsets_digest import CONSUMER_RECORDS, SHARE_RECORDS, STREAMS_RECORDS, as_int
from .event import TimelineEvent, iso

OFFSETS_TOPIC = "__consumer_offsets"
TRANSACTION_TOPIC = "__transaction_state"

#: group-epoch records (ConsumerGroupMetadata, ShareGroupMetadata, StreamsGroupMetadata)
_GROUP_EPOCH = {3: "consumer", 11: "share", 17: "streams"}
#: member records (ConsumerGroupMemberMetadata, ShareGroupMemberMetadata,
#: StreamsGroupMemberMetadata)
_MEMBER = {5: "consumer", 10: "share", 19: "streams"}
#: a member's current assignment (ConsumerGroupCurrentMemberAssignment,
#: ShareGroupCurrentMemberAssignment, StreamsGroupCurrentMemberAssignment) and the
#: target the group's assignor computed for it (...TargetAssignmentMember)
_CURRENT = {8: "consumer", 14: "share", 22: "streams"}
_TARGET = {7: "consumer", 13: "share", 21: "streams"}
#: ConsumerGroupPartitionMetadata: the subscribed topics' ids and names (3.7-4.0; 4.1+
#: keep a hash instead, KIP-1101)
_PARTITION_METADATA = 4


_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_KEY_HEAD = struct.Struct(">hh")


def commit_fields(key: bytes | None, value: bytes | None
                  ) -> tuple[str, str, int, int, int] | None:
    """An offset commit's group, topic, partition, offset and commitTimestamp, read at
    their places: the key of record type 0 or 1 (LegacyOffsetCommitKey/OffsetCommitKey
    v0: group, topic, partition) and a value of version 0-3 (OffsetCommitValue: offset,
    leaderEpoch v3+, metadata, commitTimestamp, expireTimestamp v1; not flexible), read
    to their last byte, strings as the decoder reads them (UTF-8, errors replaced):
    what :class:`~kdump.decoders.consumer_offsets.ConsumerOffsetsDecoder` gives for
    them, whatever release's layout it picks (group-coordinator's OffsetCommitKey.json,
    LegacyOffsetCommitKey.json, OffsetCommitValue.json and LegacyOffsetCommitValue.json,
    read by GroupCoordinatorRecordSerde, 3.9-4.4: flexible from value version 4 only;
    kdump/protocol/definitions.py holds them; tests/ops/timeline/test_commit_fields.py
    compares the two).
    None for anything else (a tombstone, another type, version 4's flexible value, a
    byte left over or missing, a null string): the decoder reads it."""
    if key is None or value is None:
        return None
    try:
        rtype, n = _KEY_HEAD.unpack_from(key, 0)
        if (rtype != 0 and rtype != 1) or n < 0:
            return None
        p = 4 + n
        (n,) = _I16.unpack_from(key, p)
        if n < 0:
            return None
        q = p + 2 + n
        (partition,) = _I32.unpack_from(key, q)
        if q + 4 != len(key):
            return None
        (version,) = _I16.unpack_from(value, 0)
        if not 0 <= version <= 3:
            return None
        (offset,) = _I64.unpack_from(value, 2)
        m = 14 if version >= 3 else 10
        (n,) = _I16.unpack_from(value, m)
        if n < 0:
            return None
        m += 2 + n
        (commit_ts,) = _I64.unpack_from(value, m)
        if m + (16 if version == 1 else 8) != len(value):
            return None
    except struct.error:
        return None
    return (key[4:p].decode("utf-8", errors="replace"),
            key[p + 2:q].decode("utf-8", errors="replace"), partition, offset, commit_ts)


class _Commits:
    __slots__ = ("back", "count", "file", "first_offset", "first_time", "last_offset",
                 "last_time", "position")

    def __init__(self, offset: int, t: int, file: str, position: int) -> None:
        self.count = 0
        #: the first commit below the one before it: (from, to) - a reset, or a rewind
        self.back: tuple[int, int] | None = None
        self.first_offset = self.last_offset = offset
        self.first_time = self.last_time = t
        self.file, self.position = file, position


class CoordinatorStream:
    """One coordinator partition's events (see the module docstring)."""

    def __init__(self, replica: Replica, releases: Releases, max_batch_bytes: int) -> None:
        self.replica = replica
        self.releases = releases
        self.max_batch_bytes = max_batch_bytes
        self.bytes_read = 0
        self.problems: list[Problem] = []
        #: group -> generation, members (id -> client id), the members' assignments as
        #: said (:func:`consumer_members`)
        self.groups: dict[str, tuple[int, dict[str, str], list[dict[str, Any]] | None]] = {}
        self.epochs: dict[str, int] = {}
        self.commits: dict[tuple[str, str, int], _Commits] = {}
        #: the last offset committed per group, topic and partition (the window's first
        #: commit is compared with it)
        self.last_commit: dict[tuple[str, str, int], int] = {}
        self.txns: dict[str, tuple[int, int, str]] = {}  # id -> producer id, epoch, state
        #: new groups: group -> (member, "current" | "target") -> the assignment said last
        self.assigned: dict[str, dict[tuple[str, str], Any]] = {}
        #: topic id -> name, from ConsumerGroupPartitionMetadata records
        self.topic_names: dict[str, str] = {}

    def _ev(self, t: int | None, kind: str, source: str, obj: str, text: str, path: str,
            position: int, offset: int | None, **kw: Any) -> TimelineEvent:
        r = self.replica
        return TimelineEvent(t, "coordinator", kind, source, obj, text, file=path,
                             position=position, offset=offset, broker=r.broker_id,
                             log_dir=r.log_dir, **kw)

    def __iter__(self) -> Iterator[TimelineEvent]:
        r = self.replica
        offsets = r.topic == OFFSETS_TOPIC
        decoder = self.releases.decoder("offsets" if offsets else "transaction-log",
                                        log_dir_of(r.path, False))
        if isinstance(decoder, CoordinatorRecordDecoder):
            decoder.texts = False  # the objects are read here, never the JSON texts
        try:
            segments = list_segments(r.path)
        except OSError as e:
            self.problems.append(Problem(r.path, None, "unreadable-file",
                                         (e.strerror or str(e)).lower()))
            return
        for k, (_base, path) in enumerate(segments):
            try:
                src = FileSource(path)
            except KdumpError as e:
                self.problems.append(Problem(path, None, "unreadable-file", e.message))
                continue
            with src:
                for item in LogReader(src, active=k == len(segments) - 1,
                                      max_batch_bytes=self.max_batch_bytes):
                    if isinstance(item, Problem) or not isinstance(item, RecordBatch) \
                            or item.is_control:
                        continue  # damage is the replica stream's finding
                    try:
                        records = list(item.records(self.max_batch_bytes))
                    except KdumpError:
                        continue
                    for rec in records:
                        if offsets:
                            f = commit_fields(rec.key, rec.value)
                            if f is not None:  # most of the topic, read at their places
                                group, topic, part, off, t = f
                                self._commit((group, topic, part), off,
                                             rec.timestamp if t < 0 else t, item.path,
                                             item.position)
                                continue
                        d = decoder.decode(rec.key, rec.value, rec.offset)
                        if offsets:
                            yield from self._offsets(d.key_json, d.value_json, item,
                                                     rec.offset, rec.timestamp)
                        else:
                            yield from self._txn(d.key_json, d.value_json, item, rec.offset,
                                                 rec.timestamp)
                self.bytes_read += src.bytes_read
        for key in sorted(self.commits):
            yield self._flush(key)

    # ------------------------------------------------------------------ groups
    def _flush(self, key: tuple[str, str, int]) -> TimelineEvent:
        c = self.commits.pop(key)
        group, topic, partition = key
        what = (f"offset {c.last_offset:,}" if c.first_offset == c.last_offset
                else f"offsets {c.first_offset:,} -> {c.last_offset:,}")
        times = "" if c.count == 1 else f" ({c.count} commits since {iso(c.first_time)})"
        back = "" if c.back is None else \
            f"; went back from {c.back[0]:,} to {c.back[1]:,} (an offset reset or rewind)"
        return self._ev(c.last_time, "offsets-committed", "group", f"group {group}",
                        f"committed {what} on {topic}/{partition}{times}{back}", c.file,
                        c.position, None, group=group, topic=topic, partition=partition)

    def _flush_group(self, group: str) -> Iterator[TimelineEvent]:
        for key in sorted(k for k in self.commits if k[0] == group):
            yield self._flush(key)

    def _offsets(self, key: Any, value: Any, b: RecordBatch, offset: int, ts: int
                 ) -> Iterator[TimelineEvent]:
        if not isinstance(key, Mapping) or not isinstance(key.get("data"), Mapping):
            return
        rtype = as_int(key.get("type"))
        kd = key["data"]
        data: Mapping[str, Any] = value["data"] if isinstance(value, Mapping) and \
            isinstance(value.get("data"), Mapping) else {}
        if value is not None and not data:
            return  # a value that did not decode
        path, pos = b.path, b.position
        if rtype in (0, 1):
            group, topic, part = kd.get("group"), kd.get("topic"), kd.get("partition")
            if not isinstance(group, str) or not isinstance(topic, str) or \
                    not isinstance(part, int):
                return
            k = (group, topic, part)
            if value is None:
                if k in self.commits:
                    yield self._flush(k)
                self.last_commit.pop(k, None)
                yield self._ev(ts, "offsets-deleted", "group", f"group {group}",
                               f"committed offset on {topic}/{part} deleted or expired "
                               "(tombstone)", path, pos, offset, group=group, topic=topic,
                               partition=part)
                return
            off = as_int(data.get("offset"))
            t = as_int(data.get("commitTimestamp"))
            if off is None:
                return
            self._commit(k, off, ts if t is None or t < 0 else t, path, pos)
        elif rtype == 2:
            group = kd.get("group")
            if isinstance(group, str):
                yield from self._classic(group, data if value is not None else None, path,
                                         pos, offset, ts)
        elif rtype in CONSUMER_RECORDS or rtype in SHARE_RECORDS or rtype in STREAMS_RECORDS:
            group = kd.get("groupId")
            if not isinstance(group, str) or rtype is None:
                return
            yield from self._modern(group, rtype, kd, data if value is not None else None,
                                    path, pos, offset, ts)

    def _commit(self, k: tuple[str, str, int], off: int, t: int, path: str, pos: int
                ) -> None:
        """An offset commit, counted in its summary."""
        c = self.commits.get(k)
        before = self.last_commit.get(k)
        if c is None:
            c = self.commits[k] = _Commits(off, t, path, pos)
        if before is not None and off < before and c.back is None:
            c.back = (before, off)
        self.last_commit[k] = off
        c.count += 1
        c.last_offset, c.last_time = off, max(c.last_time, t)
        c.file, c.position = path, pos

    def _classic(self, group: str, data: Mapping[str, Any] | None, path: str, pos: int,
                 offset: int, ts: int) -> Iterator[TimelineEvent]:
        if data is None:
            self.groups.pop(group, None)
            yield from self._flush_group(group)
            yield self._ev(ts, "group-deleted", "group", f"group {group}",
                           "deleted (tombstone: the group expired or was deleted)", path, pos,
                           offset, group=group)
            return
        gen = as_int(data.get("generation")) or 0
        members: dict[str, str] = {}
        for m in data.get("members") or []:
            if isinstance(m, Mapping) and isinstance(m.get("memberId"), str):
                members[m["memberId"]] = str(m.get("clientId") or "")
        t = as_int(data.get("currentStateTimestamp"))
        t = ts if t is None or t < 0 else t
        was = self.groups.get(group)
        assigned = consumer_members(data)
        self.groups[group] = (gen, members, assigned)
        if was is not None and was[0] == gen and set(was[1]) == set(members) and \
                was[2] == assigned:
            return
        yield from self._flush_group(group)
        old_gen, old = (was[0], was[1]) if was is not None else (None, {})
        joined = sorted(set(members) - set(old))
        left = sorted(set(old) - set(members))
        words = [f"generation {old_gen} -> {gen}"
                 if old_gen is not None and old_gen != gen else f"generation {gen}"]
        protocol = data.get("protocol")
        if protocol:
            words.append(f"protocol {protocol}")
        words.append(f"{len(members)} member{'s' if len(members) != 1 else ''}"
                     if members else "no members (Empty)")
        if joined and was is not None:
            words.append("joined " + ", ".join(_member(m, members[m]) for m in joined))
        if left:
            words.append("left " + ", ".join(_member(m, old[m]) for m in left))
        text = ", ".join(words)
        if assigned:
            text += "; " + assignment_words(assigned)
        ev = self._ev(t, "group-rebalance", "group", f"group {group}", text, path, pos,
                      offset, group=group)
        ev.members = assigned
        yield ev

    def _modern(self, group: str, rtype: int, kd: Mapping[str, Any],
                data: Mapping[str, Any] | None, path: str, pos: int, offset: int, ts: int
                ) -> Iterator[TimelineEvent]:
        if rtype in _GROUP_EPOCH:
            gtype = _GROUP_EPOCH[rtype]
            if data is None:
                self.epochs.pop(group, None)
                self.assigned.pop(group, None)
                yield from self._flush_group(group)
                yield self._ev(ts, "group-deleted", "group", f"group {group}",
                               f"{gtype} group deleted (tombstone)", path, pos, offset,
                               group=group)
                return
            epoch = as_int(data.get("epoch"))
            if epoch is None:
                return
            was = self.epochs.get(group)
            self.epochs[group] = epoch
            if was == epoch:
                return
            yield from self._flush_group(group)
            yield self._ev(ts, "group-rebalance", "group", f"group {group}",
                           f"{gtype} group epoch {epoch}" if was is None else
                           f"{gtype} group epoch {was} -> {epoch}",
                           path, pos, offset, group=group)
        elif rtype in _MEMBER:
            member = kd.get("memberId")
            if not isinstance(member, str):
                return
            gtype = _MEMBER[rtype]
            if data is None:
                yield self._ev(ts, "group-member", "group", f"group {group}",
                               f"{gtype} group member {member} left", path, pos, offset,
                               group=group)
                return
            client = data.get("clientId")
            yield self._ev(ts, "group-member", "group", f"group {group}",
                           f"{gtype} group member {_member(member, str(client or ''))} joined "
                           "or updated", path, pos, offset, group=group)
        elif rtype == _PARTITION_METADATA and data:
            for t in data.get("topics") or []:
                if isinstance(t, Mapping) and isinstance(t.get("topicId"), str) and \
                        isinstance(t.get("topicName"), str):
                    self.topic_names[t["topicId"]] = t["topicName"]
        elif rtype in _CURRENT or rtype in _TARGET:
            member = kd.get("memberId")
            if isinstance(member, str):
                yield from self._assignment(group, member, rtype, data, path, pos, offset, ts)

    def _assignment(self, group: str, member: str, rtype: int,
                    data: Mapping[str, Any] | None, path: str, pos: int, offset: int, ts: int
                    ) -> Iterator[TimelineEvent]:
        """A new group's member assignment, current (what the member owns, with what it
        must revoke) or target (what the assignor gave it), said when it changed: the
        group coordinator writes a member's current assignment when it reconciles it
        towards the target (GroupMetadataManager.maybeReconcile ->
        GroupCoordinatorRecordHelpers.newConsumerGroupCurrentAssignmentRecord, 4.0) and
        the target's members when a group epoch's assignment is computed
        (TargetAssignmentBuilder -> newConsumerGroupTargetAssignmentRecord)."""
        current = rtype in _CURRENT
        gtype = _CURRENT[rtype] if current else _TARGET[rtype]
        which = "current" if current else "target"
        mine = self.assigned.setdefault(group, {})
        if data is None:
            if mine.pop((member, which), None) is None:
                return
            what = "assignment" if current else "target assignment"
            yield self._ev(ts, "group-member", "group", f"group {group}",
                           f"{gtype} group member {member}'s {what} removed (tombstone)",
                           path, pos, offset, group=group)
            return
        if gtype == "streams":
            assigned = _tasks(data, "activeTasks")
            pending = _tasks(data, "activeTasksPendingRevocation") if current else []
            standby = _tasks(data, "standbyTasks")
            said = _task_words(assigned) + (f", standby {_task_words(standby)}"
                                            if standby else "")
            revoke = _task_words(pending)
        else:
            key = "assignedPartitions" if current else "topicPartitions"
            assigned = self._topics(data.get(key))
            pending = self._topics(data.get("partitionsPendingRevocation")) if current else []
            standby = []
            said, revoke = _topic_words(assigned), _topic_words(pending)
        epoch = as_int(data.get("memberEpoch")) if current else None
        state = (epoch, assigned, pending, standby)
        if mine.get((member, which)) == state:
            return
        mine[(member, which)] = state
        if current:
            text = (f"{gtype} group member {member}"
                    + (f" epoch {epoch}" if epoch is not None else "") + f": owns {said}"
                    + (f", revoking {revoke}" if pending else ""))
        else:
            text = f"{gtype} group target assignment of member {member}: {said}"
        # topic ids no record of the group names (4.1+ writes no
        # ConsumerGroupPartitionMetadata): the metadata log's TopicRecords name them as
        # the stream is annotated (kdump.ops.timeline.correlate)
        unnamed = dict.fromkeys(tp["topic_id"] for tp in (*assigned, *pending)
                                if tp.get("topic") is None and tp.get("topic_id"))
        ev = self._ev(ts, "group-member", "group", f"group {group}", text, path, pos,
                      offset, group=group, keys=tuple(("topic-id", t) for t in unnamed))
        ev.members = [{"member_id": member, "client_id": None, "client_host": None,
                       "group_instance_id": None, "subscribed": None, "assigned": assigned}]
        yield ev

    def _topics(self, parts: Any) -> list[dict[str, Any]]:
        """[{topic, topic_id, partitions}]: the name where a record of the group named
        the id (else null: the id is said)."""
        out = []
        for tp in parts or []:
            if isinstance(tp, Mapping):
                tid = tp.get("topicId")
                tid = tid if isinstance(tid, str) else None
                out.append({"topic": self.topic_names.get(tid) if tid else None,
                            "topic_id": tid,
                            "partitions": [p for p in tp.get("partitions") or []
                                           if isinstance(p, int)]})
        return out

    # ------------------------------------------------------------------ transactions
    def _txn(self, key: Any, value: Any, b: RecordBatch, offset: int, ts: int
             ) -> Iterator[TimelineEvent]:
        if not isinstance(key, Mapping) or not isinstance(key.get("data"), Mapping):
            return
        tid = key["data"].get("transactionalId")
        if not isinstance(tid, str):
            return
        if value is None:
            self.txns.pop(tid, None)
            yield self._ev(ts, "txn-state", "transaction-state", f"transactional id {tid}",
                           "removed (tombstone: the id expired)", b.path, b.position, offset,
                           transactional_id=tid)
            return
        if not isinstance(value, Mapping) or not isinstance(value.get("data"), Mapping):
            return
        d = value["data"]
        pid, epoch = as_int(d.get("producerId")), as_int(d.get("producerEpoch"))
        state = value.get("state") or str(d.get("transactionStatus"))
        t = as_int(d.get("transactionLastUpdateTimestampMs"))
        t = ts if t is None or t < 0 else t
        start = as_int(d.get("transactionStartTimestampMs"))
        parts = value.get("partitions") or []
        was = self.txns.get(tid)
        self.txns[tid] = (pid if pid is not None else -1, epoch if epoch is not None else -1,
                          str(state))
        words = [f"producer {pid} epoch {epoch}: {state}"]
        if was is not None and was[0] == pid and epoch is not None and was[1] < epoch:
            words.append(f"epoch {was[1]} -> {epoch}")
        elif was is not None and was[0] != pid:
            words.append(f"producer id {was[0]} -> {pid}")
        if parts:
            shown = ", ".join(str(p) for p in parts[:4]) + (", ..." if len(parts) > 4 else "")
            words.append(f"partitions {shown}")
        if state in ("Ongoing", "PrepareCommit", "PrepareAbort") and start is not None \
                and start >= 0:
            words.append(f"begun {iso(start)}")
        keys = (("producer", pid),) if pid is not None else ()
        yield self._ev(t, "txn-state", "transaction-state", f"transactional id {tid}",
                       ", ".join(words), b.path, b.position, offset, transactional_id=tid,
                       producer_id=pid, keys=keys)


def _tasks(data: Mapping[str, Any], name: str) -> list[dict[str, Any]]:
    return [{"subtopology_id": str(t.get("subtopologyId")),
             "partitions": [p for p in t.get("partitions") or [] if isinstance(p, int)]}
            for t in data.get(name) or [] if isinstance(t, Mapping)]


def _task_words(tasks: list[dict[str, Any]]) -> str:
    said = [f"subtopology {t['subtopology_id']} tasks {','.join(map(str, t['partitions']))}"
            for t in tasks if t["partitions"]]
    return ", ".join(said) or "nothing"


def _topic_words(parts: list[dict[str, Any]]) -> str:
    said = [f"{tp['topic'] or tp['topic_id']}-{','.join(map(str, tp['partitions']))}"
            for tp in parts if tp["partitions"]]
    return ", ".join(said) or "nothing"


#: members whose assignment a group-rebalance's text says (JSON ``members``: all)
SAID_MEMBERS = 10


def consumer_members(data: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """A classic consumer group's members with what each subscribed to and was assigned:
    the GroupMetadataValue's ``subscription`` and ``assignment`` bytes, which the
    decoder reads as ConsumerProtocolSubscription and ConsumerProtocolAssignment
    (versions 0-3, clients/src/main/resources/common/message/, as DumpLogSegments'
    prepareGroupMetadataValue) when the protocol type is ``consumer``.  The coordinator
    writes the leader's assignment with the generation it completes at SyncGroup
    (GroupMetadataManager.classicGroupSyncToLeader, 3.9-4.x; GroupCoordinator.doSyncGroup
    before): a member whose bytes did not decode has ``assigned`` null.  None for another
    protocol type (connect, or none) or no members."""
    if data.get("protocolType") != "consumer":
        return None
    out: list[dict[str, Any]] = []
    for m in data.get("members") or []:
        if not isinstance(m, Mapping) or not isinstance(m.get("memberId"), str):
            continue
        sub = _embedded(m.get("subscription"), CONSUMER_PROTOCOL_SUBSCRIPTION)
        asg = _embedded(m.get("assignment"), CONSUMER_PROTOCOL_ASSIGNMENT)
        topics = sub.get("topics") if isinstance(sub, Mapping) else None
        parts = asg.get("assignedPartitions") if isinstance(asg, Mapping) else None
        assigned: list[dict[str, Any]] | None = None
        if isinstance(parts, list):
            assigned = [{"topic": str(tp.get("topic")),
                         "partitions": [p for p in tp.get("partitions") or []
                                        if isinstance(p, int)]}
                        for tp in parts if isinstance(tp, Mapping)]
        instance = m.get("groupInstanceId")
        out.append({
            "member_id": m["memberId"],
            "client_id": str(m.get("clientId") or ""),
            "client_host": str(m.get("clientHost") or ""),
            "group_instance_id": instance if isinstance(instance, str) else None,
            "subscribed": [str(x) for x in topics] if isinstance(topics, list) else None,
            "assigned": assigned})
    return out or None


def _embedded(value: Any, schema: Any) -> Mapping[str, Any] | None:
    """A member's subscription or assignment as the decoder gave it: decoded already
    (its post-processing, DumpLogSegments' prepareGroupMetadataValue), or its bytes,
    raw or as the JSON converter's base64 (a decoder that skips that step): read here."""
    if isinstance(value, Mapping):
        return value
    if isinstance(value, str):
        try:
            value = base64.b64decode(value, validate=True)
        except ValueError:
            return None
    if isinstance(value, (bytes, bytearray)):
        return decode_consumer_protocol(schema, bytes(value))
    return None


def assignment_words(members: list[dict[str, Any]]) -> str:
    """``member m-1 (client c-1, host /10.0.0.1): orders-0,1,2, payments-3; ...``: what
    each member was assigned, the first :data:`SAID_MEMBERS` of them."""
    said = []
    for m in members[:SAID_MEMBERS]:
        who = [f"client {m['client_id']}"] if m["client_id"] and \
            not m["member_id"].startswith(m["client_id"]) else []
        if m["group_instance_id"]:
            who.append(f"instance {m['group_instance_id']}")
        if m["client_host"]:
            who.append(f"host {m['client_host']}")
        name = f"member {m['member_id']}" + (f" ({', '.join(who)})" if who else "")
        asg = m["assigned"]
        if asg is None:
            what = "assignment not decoded"
        elif not any(tp["partitions"] for tp in asg):
            what = "nothing"
        else:
            what = ", ".join(f"{tp['topic']}-{','.join(str(p) for p in tp['partitions'])}"
                             for tp in asg if tp["partitions"])
        said.append(f"{name}: {what}")
    more = len(members) - SAID_MEMBERS
    if more > 0:
        said.append(f"and {more} more member{'s' if more != 1 else ''}")
    return "; ".join(said)


def _member(member: str, client: str) -> str:
    return f"{member} ({client})" if client and not member.startswith(client) else member


def coordinator_problems(stream: CoordinatorStream) -> list[Problem]:
    return [p for p in stream.problems if p.severity != INFO]
