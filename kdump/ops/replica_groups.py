"""Which partition directories are replicas of one partition: the one rule every command
that groups replicas follows (compare-replicas, lag through it, the report's glance,
size-report's replicas, repair's ``--replica``).

A replica group is one partition of one cluster:

* **one cluster**: the log dir's ``cluster.id`` (meta.properties: ZooKeeper brokers write it
  in their version 0 file since 2.4, BrokerMetadataCheckpoint.write, and rewrite the
  file with it at start-up, refusing another cluster's: KafkaServer.startup,
  InconsistentClusterIdException; KRaft's version 1 file always has it).  Two log dirs naming
  different cluster.ids are never replicas of each other, whatever node ids they claim
  (two clusters, not one node twice).  MetaProperties (3.9-4.3): ``cluster.id`` "may be
  Optional.empty in V0", ``broker.id`` "Only in V0", ``node.id`` "Replaces broker.id in
  V1".  A log dir naming none (a ZooKeeper broker before
  2.4, or no meta.properties at all) belongs to the only cluster the inputs name, if
  they name exactly one; otherwise to no named cluster.
* **one topic name and partition number**: the partition directory's name
  (``Log.parseTopicPartitionName``); a partition is never grouped with another, whatever
  the paths given are called (a log dir named ``kafka-1`` is a log dir, not a partition
  of a topic ``kafka``).
* **one topic id where ``partition.metadata`` says it** (PartitionMetadataFile, written
  since 2.8; UnifiedLog.assignTopicId writes it once and refuses another id,
  InconsistentTopicIdException): a topic deleted and made again under its name is
  another partition (a broker looks its log's topic id up in the metadata image and
  deletes the log as stray when the id is gone: LogManager.isStrayKraftReplica, 3.9;
  LogManager.isStrayReplica from BrokerMetadataPublisher, 4.3), so an older incarnation
  under another id is its own group.  A replica without the file joins the one topic
  id its cluster's replicas of the partition name; when they name several it is told
  from none of them and stands alone; when none names one (every broker before 2.8)
  the replicas are one group by name.

:func:`group_replicas` applies the rule to any members (compare-replicas' ``Replica``,
size-report's rows ...) through a function saying each member's :class:`Identity`;
every :class:`ReplicaGroup` says why each member joined it.  :func:`log_dir_identity`
reads a log dir's node and cluster (``broker.id`` of a ZooKeeper-era meta.properties is
its node id, as ``node.id`` is KRaft's: MetaProperties, 3.9-4.3), :func:`same_cluster`
is the test repair's ``--replica`` applies to two log dirs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from .. import fs as kfs
from ..errors import KdumpError
from ..files.text import read_partition_metadata, read_properties
from ..findings import INFO, Problem
from ..source import FileSource

__all__ = ["ZERO_TOPIC_ID", "GroupKey", "Identity", "LogDirIdentity", "ReplicaGroup",
           "group_replicas", "log_dir_identity", "same_cluster", "topic_id_of"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class LogDirIdentity:
    """What a log dir's meta.properties says it is."""

    path: str
    cluster_id: str | None
    node_id: int | None
    #: ``node.id`` (KRaft), ``broker.id`` (ZooKeeper mode), or None
    node_key: str | None
    #: meta.properties' ``version`` (0: ZooKeeper mode's, also when missing); None: no file
    meta_version: int | None
    #: why something is missing (None: both cluster.id and the node are known)
    why: str | None
    #: ``directory.id`` (KRaft brokers since 3.7 write one per log dir: KIP-858,
    #: MetaProperties), the id the KRaft metadata assigns replicas to
    directory_id: str | None = None

    def describe(self) -> str:
        node = f"{self.node_key}={self.node_id}" if self.node_id is not None else "no node id"
        cluster = f"cluster.id {self.cluster_id}" if self.cluster_id else "no cluster.id"
        return f"{node}, {cluster}"


def log_dir_identity(log_dir: str) -> LogDirIdentity:
    """The cluster and node a log dir's meta.properties names: ``node.id`` (KRaft, version
    1) or ``broker.id`` (ZooKeeper mode, version 0: its only id before KRaft), and
    ``cluster.id`` where written (ZooKeeper brokers since 2.4: BrokerMetadataCheckpoint.write;
    2.3 and earlier wrote ``version`` and ``broker.id`` only)."""
    meta = os.path.join(log_dir, "meta.properties")
    if not kfs.isfile(meta):
        return LogDirIdentity(log_dir, None, None, None, None, f"{meta}: no such file")
    try:
        with FileSource(meta) as src:
            props = read_properties(src)
    except KdumpError as e:
        return LogDirIdentity(log_dir, None, None, None, None, f"{meta}: {e.message}")
    version = props.get("version", "0").strip()
    meta_version = int(version) if version.isdigit() else 0
    node_key = "node.id" if "node.id" in props else "broker.id" if "broker.id" in props else None
    node: int | None = None
    bad = None
    if node_key is not None:
        try:
            node = int(props[node_key])
        except ValueError:
            bad = f"{node_key} {props[node_key]!r} is not a number"
    cluster = props.get("cluster.id") or None
    missing = [n for n, v in (("cluster.id", cluster), ("node.id or broker.id", node_key))
               if v is None]
    why = bad or (f"{meta} names no {' and no '.join(missing)}" if missing else None)
    return LogDirIdentity(log_dir, cluster, node, node_key, meta_version, why,
                          props.get("directory.id") or None)


def same_cluster(a: LogDirIdentity, b: LogDirIdentity) -> tuple[bool, str]:
    """Is the log dir ``b`` of ``a``'s cluster, and how it is known: both name the same
    cluster.id; or neither names one and both are ZooKeeper-mode dirs (meta.properties
    version 0 with a broker.id: brokers before 2.4 wrote no cluster.id there), the
    one case where nothing on disk can tell two clusters apart.  The reason is said from
    ``a``'s side (``a``: the input, ``b``: the other)."""
    if a.cluster_id is not None and b.cluster_id is not None:
        if a.cluster_id == b.cluster_id:
            return True, f"both name cluster.id {a.cluster_id}"
        return False, f"cluster.id {b.cluster_id} is not the input's {a.cluster_id}"
    if a.cluster_id is None and b.cluster_id is None:
        if a.meta_version == 0 and b.meta_version == 0 and a.node_key == "broker.id" \
                and b.node_key == "broker.id":
            return True, ("neither names a cluster.id (ZooKeeper brokers before 2.4 wrote "
                          "none): taken as one cluster")
        return False, "neither names a cluster.id and they are not both ZooKeeper-era log dirs"
    if a.cluster_id is None:
        return False, (f"it names cluster.id {b.cluster_id}, the input none: not proved to be "
                       "one cluster")
    return False, f"it names no cluster.id, the input {a.cluster_id}: not proved to be one cluster"


#: Uuid.ZERO_UUID, which PartitionMetadataReadBuffer.read refuses as a topic id (3.9-4.3)
ZERO_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAA"


def topic_id_of(partition_dir: str) -> str | None:
    """The topic id a partition directory's ``partition.metadata`` names (None: no such
    file, one that does not read, or the zero id Kafka refuses)."""
    path = f"{partition_dir.rstrip('/')}/partition.metadata"
    try:
        if not kfs.isfile(path):
            return None
        with FileSource(path) as src:
            tid = str(read_partition_metadata(src)["topic_id"])
    except (KdumpError, OSError, KeyError):
        return None
    return None if tid == ZERO_TOPIC_ID else tid


@dataclass(frozen=True, slots=True)
class Identity:
    """What a member says it is: its partition directory's name, its log dir's cluster,
    its topic id (None where not said)."""

    topic: str
    partition: int
    cluster_id: str | None
    topic_id: str | None
    log_dir: str


@dataclass(frozen=True, slots=True, order=True)
class GroupKey:
    """One partition of one cluster (and of one topic id, where known)."""

    topic: str
    partition: int
    cluster_id: str  # "" for no named cluster (sorts first)
    topic_id: str  # "" for none known
    #: a member standing alone (its topic id unknown among several): its path
    alone: str = ""

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"


@dataclass(slots=True)
class ReplicaGroup(Generic[T]):
    """The replicas of one partition of one cluster, each with why it joined."""

    key: GroupKey
    members: list[T] = field(default_factory=list)
    why: list[str] = field(default_factory=list)
    #: what else tells it from its namesakes (a cluster, a topic id), for a heading
    qualifier: str = ""

    @property
    def name(self) -> str:
        return self.key.name

    @property
    def cluster_id(self) -> str | None:
        return self.key.cluster_id or None

    @property
    def topic_id(self) -> str | None:
        return self.key.topic_id or None

    @property
    def label(self) -> str:
        return f"{self.name} ({self.qualifier})" if self.qualifier else self.name


def _clusters(ids: Iterable[Identity]) -> tuple[dict[str, str], set[str]]:
    """Each log dir's cluster key and the reason, and the cluster.ids named."""
    ids = list(ids)
    named = {i.cluster_id for i in ids if i.cluster_id is not None}
    only = next(iter(named)) if len(named) == 1 else None
    return {i.log_dir: (i.cluster_id or only or "") for i in ids}, named


def group_replicas(members: Iterable[T], identity: Callable[[T], Identity],
                   topic_id: Callable[[T], str | None] | None = None
                   ) -> tuple[list[ReplicaGroup[T]], list[Problem]]:
    """``members`` in replica groups (sorted by topic, partition, cluster, topic id), and
    an info note per partition whose replicas name several topic ids.  ``topic_id``:
    read a member's topic id only where it can matter, when its cluster holds another
    replica of its name (one partition.metadata read per replica spared for the rest,
    a request each in an object store); the ``identity``'s topic id is used otherwise."""
    items = [(m, identity(m)) for m in members]
    cluster_of, named = _clusters(i for _m, i in items)
    by_name: dict[tuple[str, int, str], list[tuple[T, Identity]]] = {}
    for m, i in items:
        by_name.setdefault((i.topic, i.partition, cluster_of[i.log_dir]), []).append((m, i))
    if topic_id is not None:
        for reps in by_name.values():
            if len(reps) > 1:
                reps[:] = [(m, replace(i, topic_id=topic_id(m))) for m, i in reps]
    names_in_clusters: dict[tuple[str, int], set[str]] = {}
    for t, p, c in by_name:
        names_in_clusters.setdefault((t, p), set()).add(c)
    groups: dict[GroupKey, ReplicaGroup[T]] = {}
    notes: list[Problem] = []
    #: partitions whose replicas name several topic ids, by how their log dirs split
    split: dict[tuple[tuple[tuple[str, ...], ...], tuple[str, ...]],
                list[tuple[str, str, list[str], dict[str, list[str]]]]] = {}

    def add(key: GroupKey, m: T, why: str, qualifier: str) -> None:
        g = groups.get(key)
        if g is None:
            g = groups[key] = ReplicaGroup(key, qualifier=qualifier)
        g.members.append(m)
        g.why.append(why)

    for (topic, partition, cluster), reps in by_name.items():
        name = f"{topic}-{partition}"
        several_clusters = len(names_in_clusters[(topic, partition)]) > 1
        cq = (f"cluster {cluster}" if cluster else "no named cluster") if several_clusters else ""
        known = sorted({i.topic_id for _m, i in reps if i.topic_id is not None})
        for m, i in reps:
            if i.cluster_id is not None:
                cwhy = f"cluster.id {i.cluster_id}"
            elif cluster:
                cwhy = f"no cluster.id, the only cluster the inputs name ({cluster})"
            else:
                cwhy = ("no cluster.id" if len(named) < 2 else
                        f"no cluster.id, among inputs naming {len(named)} clusters")
            why = f"{name} in {i.log_dir}: {cwhy}"
            q = [cq] if cq else []
            if i.topic_id is not None:
                if len(known) > 1:
                    q.append(f"topic id {i.topic_id}")
                add(GroupKey(topic, partition, cluster, i.topic_id), m,
                    f"{why}, topic id {i.topic_id}", ", ".join(q))
            elif len(known) == 1:
                add(GroupKey(topic, partition, cluster, known[0]), m,
                    f"{why}, no partition.metadata: the one topic id its cluster's replicas "
                    f"of {name} name ({known[0]})", ", ".join(q))
            elif known:
                q.append("topic id unknown")
                add(GroupKey(topic, partition, cluster, "", i.log_dir), m,
                    f"{why}, no partition.metadata while the others name {len(known)} topic "
                    "ids: told from none, it stands alone", ", ".join(q))
            else:
                add(GroupKey(topic, partition, cluster, ""), m,
                    f"{why}, no topic id (no partition.metadata)", ", ".join(q))
        if len(known) > 1:
            dirs = {t: sorted(i.log_dir for _m, i in reps if i.topic_id == t) for t in known}
            alone = sorted(i.log_dir for _m, i in reps if i.topic_id is None)
            # partitions whose log dirs split alike (a log dir of an older run holding
            # every partition under other ids) share one note
            pattern = (tuple(sorted(tuple(d) for d in dirs.values())), tuple(alone))
            split.setdefault(pattern, []).append((name, reps[0][1].log_dir, known, dirs))
    for (_pattern, alone_t), parts in split.items():
        name, log_dir, known, dirs = parts[0]
        alone = list(alone_t)
        if len(parts) == 1:
            detail = (f"the replicas of {name} name {len(known)} topic ids ("
                      + "; ".join(f"{t} in {', '.join(dirs[t])}" for t in known) + ")")
        else:
            detail = (f"the replicas of {len(parts)} partitions name other topic ids in "
                      + " than in ".join(', '.join(d) for d in sorted(dirs.values()))
                      + f" (e.g. {name}: "
                      + "; ".join(f"{t} in {', '.join(dirs[t])}" for t in known) + ")")
        notes.append(Problem(
            os.path.join(log_dir, name), None, "replica-topic-ids",
            detail + ": different partitions of a topic made again under its name, each "
            "compared only with the replicas of its own topic id"
            + (f"; {', '.join(alone)} with no partition.metadata, told from none, "
               "each alone" if alone else ""),
            severity=INFO))
    return [groups[k] for k in sorted(groups)], notes
