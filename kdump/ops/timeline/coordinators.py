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

import struct
from collections.abc import Iterator, Mapping
from typing import Any

from ...decoders import Releases
from ...decoders.consumer_offsets import CoordinatorRecordDecoder
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
        self.groups: dict[str, tuple[int, dict[str, str]]] = {}  # generation, members
        self.epochs: dict[str, int] = {}
        self.commits: dict[tuple[str, str, int], _Commits] = {}
        #: the last offset committed per group, topic and partition (the window's first
        #: commit is compared with it)
        self.last_commit: dict[tuple[str, str, int], int] = {}
        self.txns: dict[str, tuple[int, int, str]] = {}  # id -> producer id, epoch, state

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
        self.groups[group] = (gen, members)
        if was is not None and was[0] == gen and set(was[1]) == set(members):
            return
        yield from self._flush_group(group)
        old_gen, old = was if was is not None else (None, {})
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
        yield self._ev(t, "group-rebalance", "group", f"group {group}", ", ".join(words),
                       path, pos, offset, group=group)

    def _modern(self, group: str, rtype: int, kd: Mapping[str, Any],
                data: Mapping[str, Any] | None, path: str, pos: int, offset: int, ts: int
                ) -> Iterator[TimelineEvent]:
        if rtype in _GROUP_EPOCH:
            gtype = _GROUP_EPOCH[rtype]
            if data is None:
                self.epochs.pop(group, None)
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


def _member(member: str, client: str) -> str:
    return f"{member} ({client})" if client and not member.startswith(client) else member


def coordinator_problems(stream: CoordinatorStream) -> list[Problem]:
    return [p for p in stream.problems if p.severity != INFO]
