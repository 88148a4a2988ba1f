"""The replicas of a partition: partition directories inside brokers' log dirs, each
log dir with its broker id (meta.properties) and offset checkpoints (high watermarks, log
start offsets, cleaner offsets).  Several log dirs are several brokers: a replica is
named by its log dir and broker id.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from ... import fs as kfs
from ...errors import KdumpError
from ...files.logdir import walk
from ...files.text import iter_checkpoint, read_properties
from ...findings import INFO, WARNING, Problem
from ...source import FileSource
from ..replica_groups import Identity, ReplicaGroup, group_replicas, topic_id_of


@dataclass(slots=True)
class LogDir:
    """A broker's log dir: its broker id (meta.properties) and its offset checkpoints."""

    path: str
    broker_id: int | None = None
    #: meta.properties: ``version`` (0: ZooKeeper mode's, or missing), ``cluster.id``,
    #: ``directory.id`` (KIP-858: one per log dir of a broker); None where not said
    meta_version: int | None = None
    cluster_id: str | None = None
    directory_id: str | None = None
    high_watermarks: dict[tuple[str, int], int] = field(default_factory=dict)
    log_start_offsets: dict[tuple[str, int], int] = field(default_factory=dict)
    cleaner_offsets: dict[tuple[str, int], int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


_CHECKPOINTS = {
    "replication-offset-checkpoint": ("high_watermarks", "high_watermark"),
    "log-start-offset-checkpoint": ("log_start_offsets", "log_start_offset"),
    "cleaner-offset-checkpoint": ("cleaner_offsets", "cleaner_checkpoint"),
}


def _meta(path: str) -> tuple[dict[str, str] | None, Problem | None]:
    meta = os.path.join(path, "meta.properties")
    if not kfs.isfile(meta):  # local or a URL (kdump.fs)
        return None, None
    try:
        with FileSource(meta) as src:
            return dict(read_properties(src)), None
    except KdumpError as e:
        return None, Problem(meta, None, "bad-file", str(e), severity=WARNING)


def _broker_id(path: str) -> tuple[int | None, Problem | None]:
    props, problem = _meta(path)
    if props is None:
        return None, problem
    raw = props.get("broker.id", props.get("node.id"))
    try:
        return (int(raw) if raw is not None else None), None
    except ValueError as e:
        return None, Problem(os.path.join(path, "meta.properties"), None, "bad-file", str(e),
                             severity=WARNING)


@functools.lru_cache(maxsize=1024)
def broker_id_of(log_dir: str) -> int | None:
    """``broker.id`` (ZooKeeper mode) or ``node.id`` (KRaft) of a log dir's
    meta.properties; None without one."""
    return _broker_id(log_dir)[0]


def read_logdir(path: str) -> LogDir:
    """The broker id and checkpoints of the log dir at ``path`` (whatever is there)."""
    d = LogDir(path)
    d.broker_id, problem = _broker_id(path)
    if problem is not None:
        d.problems.append(problem)
    props = _meta(path)[0] or {}
    version = props.get("version")
    d.meta_version = (int(version) if version is not None and version.strip().isdigit()
                      else 0 if props else None)  # MetaProperties: no version is version 0
    d.cluster_id = props.get("cluster.id") or None
    d.directory_id = props.get("directory.id") or None
    for name, (attr, fname) in _CHECKPOINTS.items():
        p = os.path.join(path, name)
        if not kfs.isfile(p):
            continue
        target: dict[tuple[str, int], int] = getattr(d, attr)
        try:
            with FileSource(p) as src:
                for e in iter_checkpoint(src, name):
                    target[(e.fields["topic"], e.fields["partition"])] = e.fields[fname]
        except KdumpError as e:
            d.problems.append(Problem(e.path or p, e.position, "checkpoint", e.message,
                                      severity=WARNING))
    return d


_UNREAD = object()


@dataclass(slots=True)
class Replica:
    """One copy of a partition: a partition directory inside a broker's log dir."""

    path: str  # the partition directory
    topic: str
    partition: int
    logdir: LogDir
    _topic_id: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._topic_id = _UNREAD

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    @property
    def log_dir(self) -> str:
        return self.logdir.path

    @property
    def broker_id(self) -> int | None:
        return self.logdir.broker_id

    @property
    def high_watermark(self) -> int | None:
        return self.logdir.high_watermarks.get((self.topic, self.partition))

    @property
    def topic_id(self) -> str | None:
        """The topic id of its partition.metadata (read once; None without one)."""
        if self._topic_id is _UNREAD:
            self._topic_id = topic_id_of(self.path)
        return self._topic_id if isinstance(self._topic_id, str) else None

    def label(self) -> str:
        b = self.broker_id
        return f"broker {b} ({self.path})" if b is not None else self.path


def node_twice(logdirs: Iterable[LogDir], replicas: dict[tuple[str, int], list[Replica]]
               ) -> list[tuple[LogDir, LogDir, list[tuple[str, int]]]]:
    """Pairs of log dirs of one cluster claiming the same node id (broker.id / node.id)
    that are not one broker's JBOD dirs, with the partitions both hold.  Two log dirs
    naming different cluster.ids are two clusters, never one node twice.

    One broker's log dirs (KIP-858 JBOD) share its node.id and cluster.id and have
    distinct directory.ids (MetaPropertiesEnsemble.verify; ZooKeeper-era ones have none),
    and a partition lives in one of them only (LogManager.loadLogs refuses a second:
    "Duplicate log directories for ...").  So two log dirs claiming one node are the same
    node twice (two copies, or two runs of it) when they hold a partition in common or
    have the same directory.id; otherwise they are JBOD siblings, one broker."""
    logdirs = list(logdirs)
    # a log dir naming no cluster.id is of the only cluster the inputs name, as
    # kdump.ops.replica_groups groups its replicas
    named = {ld.cluster_id for ld in logdirs if ld.cluster_id is not None}
    only = next(iter(named)) if len(named) == 1 else None
    groups: dict[tuple[str | None, int], list[LogDir]] = {}
    for ld in logdirs:
        if ld.broker_id is not None:
            groups.setdefault((ld.cluster_id or only, ld.broker_id), []).append(ld)
    if not any(len(g) > 1 for g in groups.values()):
        return []
    held: dict[str, set[tuple[str, int]]] = {}
    for key, reps in replicas.items():
        for r in reps:
            held.setdefault(r.log_dir, set()).add(key)
    out = []
    for group in groups.values():
        group.sort(key=lambda d: d.path)
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                common = sorted(held.get(a.path, set()) & held.get(b.path, set()))
                same_id = a.directory_id is not None and a.directory_id == b.directory_id
                if common or same_id:
                    out.append((a, b, common))
    return out


def _twice_problem(a: LogDir, b: LogDir, common: list[tuple[str, int]]) -> Problem:
    why = []
    if common:
        t, p = common[0]
        why.append(f"{len(common)} partition{'s' if len(common) != 1 else ''} in both "
                   f"(e.g. {t}-{p}), which one broker's log dirs never share")
    if a.directory_id is not None and a.directory_id == b.directory_id:
        why.append(f"the same directory.id {a.directory_id}")
    cid = a.cluster_id or b.cluster_id
    cluster = f"cluster {cid}" if cid is not None else "an unnamed cluster"
    return Problem(b.path, None, "node-twice",
                   f"log dirs {a.path} and {b.path} both claim node {a.broker_id} of "
                   f"{cluster} and are not one broker's JBOD dirs ({'; '.join(why)}): one "
                   "node twice (two copies, or two runs of it), not two brokers; their "
                   "partitions are not compared as replicas of each other",
                   severity=WARNING)


def replica_identity(r: Replica) -> Identity:
    """A replica as :func:`kdump.ops.replica_groups.group_replicas` groups it."""
    return Identity(r.topic, r.partition, r.logdir.cluster_id, r.topic_id, r.log_dir)


def logdir_of(partition_dir: str) -> str:
    """The log dir holding a partition directory (its parent)."""
    if kfs.is_url(partition_dir):
        return kfs.dirname(partition_dir)
    parent = os.path.dirname(partition_dir.rstrip("/") or partition_dir)
    return parent or "."


class ReplicaSet:
    """Every partition directory under the given paths, grouped by partition name, each
    with its log dir (read once)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.logdirs: dict[str, LogDir] = {}
        self.replicas: dict[tuple[str, int], list[Replica]] = {}
        self.problems: list[Problem] = []
        self.skipped: list[str] = []
        #: every log dir the walk met by its meta.properties, with partitions or not
        self.meta_dirs: list[str] = []
        seen: set[str] = set()
        for item in walk(paths):
            if isinstance(item, Problem):
                if item.severity != INFO:
                    self.problems.append(item)
                continue
            if item.topic is None or item.partition is None:
                if item.kind == "meta-properties":
                    self.meta_dirs.append(logdir_of(item.path))
                continue
            pdir = os.path.dirname(item.path) or "."
            if pdir in seen:
                continue
            seen.add(pdir)
            if item.partition_state is not None:
                self.skipped.append(pdir)
                continue
            ld_path = logdir_of(pdir)
            ld = self.logdirs.get(ld_path)
            if ld is None:
                ld = self.logdirs[ld_path] = read_logdir(ld_path)
                self.problems.extend(ld.problems)
            self.replicas.setdefault((item.topic, item.partition), []).append(
                Replica(pdir, item.topic, item.partition, ld))
        #: pairs of log dirs that are one node twice (:func:`node_twice`), by path
        self.twins: set[frozenset[str]] = set()
        for a, b, common in node_twice(self.logdirs.values(), self.replicas):
            self.twins.add(frozenset((a.path, b.path)))
            self.problems.append(_twice_problem(a, b, common))

    def groups(self) -> tuple[list[ReplicaGroup[Replica]], list[Problem]]:
        """The replicas in replica groups (:func:`kdump.ops.replica_groups.group_replicas`:
        one partition of one cluster, of one topic id where known), and the notes on
        partitions whose replicas name several topic ids."""
        reps = [r for rs in self.replicas.values() for r in rs]
        return group_replicas(reps, replica_identity)

    def apart(self, a: str, b: str) -> bool:
        """The log dirs ``a`` and ``b`` are one node twice: never replicas of each other."""
        return frozenset((a, b)) in self.twins

    def all_logdirs(self) -> list[LogDir]:
        return list(self.logdirs.values())
