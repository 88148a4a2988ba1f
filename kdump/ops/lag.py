"""``kdump lag``: consumer lag with no broker, from log dirs.

The committed offsets come from replaying ``__consumer_offsets`` as the group coordinator
loads it (the ``dump --offsets-decoder --summary`` replay: tombstones delete, transactional
commits count at their COMMIT marker and never after an ABORT).  Each committed offset is
joined with the log end offset of its topic-partition found under the same paths, and
with the high watermark a broker last checkpointed (``replication-offset-checkpoint``).

Share groups (KIP-932) commit no offsets: their position on a partition is the
share-partition start offset, replayed from ``__share_group_state`` (the
``dump --summary`` replay, :mod:`kdump.ops.share_state`) when its partitions are among
the inputs, and their lag is the log end offset minus that start offset (records below
it are all acknowledged; some at or above it may be too: ``delivery_complete_count``
says how many, when Kafka recorded it).  Each row says its group's type (classic,
consumer, streams, share), from the group's records in ``__consumer_offsets``.

Partitions assigned with nothing committed are rows too (position null): a consumer or
share group member's current assignment (a share-partition with no state yet), and a
streams group member's active tasks mapped to its subtopology's source topics
(:func:`streams_task_partitions`).  Records are read with the layouts of
``--kafka-version``, else of each log dir's metadata.version
(:class:`~kdump.decoders.Releases`).

Several brokers' log dirs hold several replicas of a partition, ``__consumer_offsets``
and ``__share_group_state`` included: exactly one replica is used for each (the one
with the highest log end offset, named in the output), and replicas are never added up.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..decoders import Releases
from ..decoders.release import log_dir_of
from ..files.logdir import list_segments
from ..findings import Problem
from ..model import shape
from ..records.v2 import DEFAULT_MAX_BATCH_BYTES
from .compare_replicas import Replica, ReplicaSet, log_end_offset
from .offsets_digest import CommittedOffset, OffsetsDigest
from .offsets_summary import OFFSETS_TOPIC, SHARE_STATE_TOPIC, ReplayState, replay_log, topic_names
from .share_state import SharePartitionState, ShareStateDigest


@dataclass(slots=True)
class LagOptions:
    groups: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
    #: ``--kafka-version X.Y``: the release whose layouts the groups' records are read with
    #: (None: each log dir's metadata.version, else the layout that fits)
    kafka_version: str | None = None


@dataclass(slots=True)
class ChosenReplica:
    """The replica a figure was taken from, and how many there were to choose from."""

    replica: Replica
    log_end_offset: int | None
    replicas: int

    def to_json(self) -> dict[str, Any]:
        return {"path": self.replica.path, "log_dir": self.replica.log_dir,
                "broker_id": self.replica.broker_id, "log_end_offset": self.log_end_offset,
                "replicas": self.replicas,
                "chosen_by": "the highest log end offset" if self.replicas > 1 else "the only one"}


@dataclass(slots=True)
class LagRow:
    group: str
    topic: str
    partition: int
    #: share groups: the share-partition start offset; None: assigned, nothing committed
    committed_offset: int | None
    log_end_offset: int | None
    high_watermark: int | None
    commit_timestamp: int
    metadata: str
    source: ChosenReplica | None  # where the log end offset comes from
    hw_source: str | None
    offsets_partition: str  # the __consumer_offsets replica the commit comes from
    group_type: str | None = None
    share: SharePartitionState | None = None  # share groups: the state read
    #: consumer groups: the members whose current assignment holds the partition
    assigned_to: list[str] | None = None

    @property
    def lag(self) -> int | None:
        if self.log_end_offset is None or self.committed_offset is None:
            return None
        return self.log_end_offset - self.committed_offset

    def to_json(self) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self.share is not None:
            extra = {"topic_id": self.share.topic_id, "state_epoch": self.share.state_epoch,
                     "delivery_complete_count": self.share.delivery_complete_count}
        if self.assigned_to is not None:
            extra["assigned_to"] = self.assigned_to
        return shape("lag", {"group": self.group, "group_type": self.group_type,
            "topic": self.topic,
            "partition": self.partition, "committed_offset": self.committed_offset, **extra,
            "log_end_offset": self.log_end_offset, "high_watermark": self.high_watermark,
            "lag": self.lag,
            "lag_to_high_watermark": None if self.high_watermark is None
            or self.committed_offset is None else self.high_watermark - self.committed_offset,
            "high_watermark_source": self.hw_source,
            "commit_timestamp": self.commit_timestamp, "metadata": self.metadata,
            "log_end_offset_from": self.source.to_json() if self.source else None,
            "committed_offset_from": self.offsets_partition,
        })


@dataclass(slots=True)
class GroupLag:
    group: str
    group_type: str | None
    partitions: int
    partitions_without_log: int
    total_lag: int
    max_lag: int | None
    topics: list[str]

    def to_json(self) -> dict[str, Any]:
        return shape("group_lag", {"group": self.group, "group_type": self.group_type,
                "partitions": self.partitions,
                "partitions_without_log": self.partitions_without_log,
                "total_lag": self.total_lag, "max_lag": self.max_lag, "topics": self.topics})


@dataclass(slots=True)
class OffsetsSource:
    """Which replica of a ``__consumer_offsets`` partition was replayed."""

    chosen: ChosenReplica
    records: int
    aborted_records: int
    pending_records: int

    def to_json(self) -> dict[str, Any]:
        return shape("offsets_source", {"partition": self.chosen.replica.name,
                **self.chosen.to_json(), "records": self.records,
                "aborted_records": self.aborted_records,
                "pending_records": self.pending_records})


def choose(replicas: list[Replica], max_batch_bytes: int,
           problems: list[Problem]) -> ChosenReplica:
    """The replica with the highest log end offset (the first given on a tie)."""
    best: ChosenReplica | None = None
    for r in replicas:
        leo, probs = log_end_offset(r.path, max_batch_bytes)
        problems.extend(probs)
        if best is None or (leo is not None and (best.log_end_offset is None
                                                 or leo > best.log_end_offset)):
            best = ChosenReplica(r, leo, len(replicas))
    assert best is not None
    return best


Item = LagRow | GroupLag | OffsetsSource | Problem


def lag(paths: Iterable[str], opts: LagOptions) -> Iterator[Item]:
    """The :class:`OffsetsSource` of each replayed ``__consumer_offsets`` and
    ``__share_group_state`` partition, then :class:`LagRow` per committed offset and
    share-partition (largest lag first; unknown lag last), then a :class:`GroupLag` per
    group."""
    rs = ReplicaSet(paths)
    yield from rs.problems
    for replicas in by_cluster(rs):
        yield from _lag(replicas, opts)


def by_cluster(rs: ReplicaSet) -> list[dict[tuple[str, int], list[Replica]]]:
    """The replicas by partition name, one map per cluster (:mod:`kdump.ops.replica_groups`:
    two clusters' ``__consumer_offsets-0`` are never one partition, nor their groups one
    group); a cluster's replicas of a name under several topic ids stay together (the
    replica with the highest log end offset answers, as for any partition)."""
    out: dict[str, dict[tuple[str, int], list[Replica]]] = {}
    for g in rs.groups()[0]:
        out.setdefault(g.key.cluster_id, {}).setdefault(
            (g.key.topic, g.key.partition), []).extend(g.members)
    return [out[c] for c in sorted(out)] or [{}]


def _lag(replicas: dict[tuple[str, int], list[Replica]], opts: LagOptions) -> Iterator[Item]:
    """:func:`lag` over one cluster's replicas."""
    problems: list[Problem] = []
    releases = Releases(opts.kafka_version)
    committed: dict[tuple[str, str, int], tuple[CommittedOffset, str]] = {}
    group_types: dict[str, str] = {}
    topic_ids: dict[str, str] = {}
    shares: dict[tuple[str, str, int], tuple[SharePartitionState, str]] = {}
    #: KIP-848 consumer and KIP-932 share groups: (group, topic id, partition) -> members
    #: whose current assignment holds it
    assigned: dict[tuple[str, str, int], list[str]] = {}
    #: KIP-1071 streams groups: (group, topic, partition) -> members whose active tasks
    #: read it
    streams_assigned: dict[tuple[str, str, int], list[str]] = {}
    consumer_groups: set[str] = set()
    share_groups: set[str] = set()
    streams_groups: set[str] = set()
    data_topics = sorted({t for t, _p in replicas if t not in (OFFSETS_TOPIC, SHARE_STATE_TOPIC)})
    for (topic, partition) in sorted(replicas):
        if topic not in (OFFSETS_TOPIC, SHARE_STATE_TOPIC):
            continue
        chosen = choose(replicas[(topic, partition)], opts.max_batch_bytes, problems)
        state = ReplayState.new() if topic == OFFSETS_TOPIC else ReplayState.share()
        segs = list_segments(chosen.replica.path)
        for k, (_base, seg) in enumerate(segs):
            decoder = releases.decoder("offsets" if topic == OFFSETS_TOPIC
                                       else "share-group-state",
                                       log_dir_of(chosen.replica.path, False))
            problems.extend(replay_log(seg, k == len(segs) - 1, state, decoder=decoder,
                                       max_batch_bytes=opts.max_batch_bytes))
        yield OffsetsSource(chosen, state.digest.records, state.aborted, state.pending_records)
        d = state.digest
        if isinstance(d, ShareStateDigest):
            for s in d.states():
                skey = (s.group, s.topic_id, s.partition)
                sprev = shares.get(skey)
                if sprev is None or (s.log_offset or 0) >= (sprev[0].log_offset or 0):
                    shares[skey] = (s, chosen.replica.path)
            continue
        assert isinstance(d, OffsetsDigest)
        topic_ids.update(d.topic_names)
        for grp in d.modern_groups():
            if grp.group_type == "streams":
                streams_groups.add(grp.group)
                for member, topic, pid in streams_task_partitions(grp, data_topics):
                    streams_assigned.setdefault((grp.group, topic, pid), []).append(member)
                continue
            (consumer_groups if grp.group_type == "consumer" else share_groups).add(grp.group)
            for member, parts in grp.assignments.items():
                for tp in parts:
                    for pid in tp["partitions"]:
                        if tp["topic_id"]:
                            assigned.setdefault((grp.group, tp["topic_id"], pid),
                                                []).append(member)
        for name in d.group_names():
            t = d.group_type(name)
            if t is not None:
                group_types[name] = t
        for o in d.offsets():
            gkey = (o.group, o.topic, o.partition)
            prev = committed.get(gkey)
            # a group lives in one __consumer_offsets partition; should two hold it, the
            # newer commit wins
            if prev is None or o.commit_timestamp >= prev[0].commit_timestamp:
                committed[gkey] = (o, chosen.replica.path)
    names = _share_topic_names(topic_ids, replicas, {k[1] for k in shares} | {k[1] for k in assigned})
    members_of: dict[tuple[str, str, int], list[str]] = {}
    for (group, tid, partition), members in assigned.items():
        members_of[(group, names.get(tid, tid), partition)] = sorted(set(members))
    for gtp, members in streams_assigned.items():
        members_of[gtp] = sorted(set(members))
    entries: list[tuple[str, str | None, int, int | None, int, str, str,
                        SharePartitionState | None]] = []
    for (group, topic, partition), (o, from_path) in committed.items():
        entries.append((group, topic, partition, o.offset, o.commit_timestamp, o.metadata,
                        from_path, None))
    # a consumer or streams group's assigned partitions it has committed nothing on (as
    # kafka-consumer-groups / kafka-streams-groups --describe list them): the topic by id
    # when unnamed
    offsets_path = {o.group: p for o, p in committed.values()}
    for (group, topic, partition) in sorted(set(members_of) - set(committed)):
        if group in share_groups:
            continue
        entries.append((group, topic, partition, None, -1, "",
                        offsets_path.get(group, ""), None))
    for (group, tid, partition), (s, from_path) in shares.items():
        entries.append((group, names.get(tid), partition, s.start_offset,
                        s.write_timestamp or -1, "", from_path, s))
    # a share group's assigned partitions with no share-partition state yet (the share
    # coordinator writes it when the group first reads the partition): start offset null
    for (group, tid, partition) in sorted(assigned):
        if group in share_groups and (group, tid, partition) not in shares:
            entries.append((group, names.get(tid, tid), partition, None, -1, "", "", None))
    leo_cache: dict[tuple[str, int], ChosenReplica | None] = {}
    with_assignments = consumer_groups | streams_groups | share_groups
    rows: list[LagRow] = []
    for group, topic_or_none, partition, position, ts, meta, from_path, share in entries:
        if opts.groups and group not in opts.groups:
            continue
        if opts.topics and topic_or_none not in opts.topics and \
                (share is None or share.topic_id not in opts.topics):
            continue  # a share-partition's topic may be given by id
        topic = topic_or_none if topic_or_none is not None else (share.topic_id if share else "")
        key = (topic, partition)
        if key not in leo_cache:
            reps = replicas.get(key) if topic_or_none is not None else None
            leo_cache[key] = choose(reps, opts.max_batch_bytes, problems) if reps else None
        src = leo_cache[key]
        hw: int | None = None
        hw_from: str | None = None
        for rep in replicas.get(key, []) if topic_or_none is not None else []:
            v = rep.high_watermark
            if v is not None and (hw is None or v > hw):
                hw, hw_from = v, rep.log_dir
        rows.append(LagRow(group, topic, partition, position,
                           src.log_end_offset if src else None, hw, ts, meta, src,
                           None if hw_from is None else
                           f"replication-offset-checkpoint of {hw_from} (the highest of "
                           f"{sum(1 for x in replicas.get(key, []) if x.high_watermark is not None)})",
                           from_path, "share" if share is not None else group_types.get(group),
                           share, members_of.get((group, topic, partition), [])
                           if group in with_assignments else None))
    yield from problems
    rows.sort(key=lambda r: (r.lag is None, -(r.lag or 0), r.group, r.topic, r.partition))
    yield from rows
    by_group: dict[str, list[LagRow]] = {}
    for r in rows:
        by_group.setdefault(r.group, []).append(r)
    for g in sorted(by_group):
        rs_ = by_group[g]
        known = [r.lag for r in rs_ if r.lag is not None]
        yield GroupLag(g, rs_[0].group_type, len(rs_),
                       sum(1 for r in rs_ if r.log_end_offset is None),
                       sum(known), max(known) if known else None, sorted({r.topic for r in rs_}))


def _share_topic_names(from_records: dict[str, str],
                       replicas: dict[tuple[str, int], list[Replica]],
                       wanted: set[str]) -> dict[str, str]:
    """Topic id -> name: share-group records first, then the replicas'
    ``partition.metadata`` files."""
    if not wanted:
        return {}
    digest = OffsetsDigest()
    digest.topic_names.update(from_records)
    files = {}
    for (topic, _p), reps in sorted(replicas.items()):
        if topic not in files and topic not in (OFFSETS_TOPIC, SHARE_STATE_TOPIC):
            files[topic] = reps[0].path.rstrip("/") + "/partition.metadata"
    return topic_names(digest, files, wanted)


__all__ = ["GroupLag", "LagOptions", "LagRow", "OffsetsSource", "by_cluster", "lag",
           "streams_task_partitions"]


#: a quantified group whose body holds a quantifier or an alternation: ``(a+)+``,
#: ``(x*y)*``, ``(a|aa)+`` (the shapes of catastrophic backtracking)
_NESTED_QUANTIFIER = re.compile(r"\([^)]*[*+?}|][^)]*\)[*+?{]")


def streams_task_partitions(grp: Any, topics: list[str]) -> Iterator[tuple[str, str, int]]:
    """(member, topic, partition) of a streams group's active tasks, as Kafka's
    ``EndpointToPartitionsManager`` maps them: task (subtopology, p) reads partition p of
    each of the subtopology's source topics and repartition source topics (from the
    group's StreamsGroupTopology record); source topic regexes are matched (whole name)
    against ``topics``, the topics found under the inputs.  Kafka leaves out the
    partitions a topic does not have; kdump, without the topic's partition count, keeps
    them (their log end offset is then unknown).  A regex is data, not trusted: one
    longer than 256 characters, or with a quantified group holding a quantifier or an
    alternation (the shapes of catastrophic backtracking), is not matched."""
    subtopologies = {st.get("subtopology_id"): st
                     for st in (grp.topology or {}).get("subtopologies", [])}
    for member in sorted(grp.assignments):
        for task in grp.assignments[member]:
            st = subtopologies.get(task.get("subtopology_id"))
            if st is None:
                continue  # no topology (yet): which topics the task reads is unknown
            names = set(st["source_topics"]) | set(st["repartition_source_topics"])
            for pattern in st["source_topic_regex"]:
                if len(pattern) > 256 or _NESTED_QUANTIFIER.search(pattern):
                    continue
                try:
                    rx = re.compile(pattern)
                except re.error:
                    continue
                names.update(t for t in topics if rx.fullmatch(t))
            for topic in sorted(names):
                for pid in task["partitions"]:
                    yield member, topic, pid
