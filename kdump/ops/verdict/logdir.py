"""A log dir's verdict: the partitions its checkpoints name that have no directory.

A broker checkpoints every log it holds in the log dir's offset checkpoints
(``LogManager.checkpointLogRecoveryOffsetsInDir`` and ``checkpointLogStartOffsetsInDir``
over ``logsByDir``, current and future logs; ``ReplicaManager.checkpointHighWatermarks``
per log dir, Kafka 2.8-4.3).  A partition they name whose directory is gone lost every
offset from its log start up to what they prove written, unless Kafka's own work
explains it: the directory renamed ``-delete`` (``LogManager.asyncDelete``), ``-stray``
(``LogManager.handleStrayLogs``) or ``-future`` here (the replica moving into this log
dir), or the partition's live directory in another log dir of the same broker (moved by
``alterReplicaLogDirs``).  A broker given this log dir again would create the
partition empty at offset 0 and hand those offsets out a second time.

A partition the KRaft metadata assigns to this broker with no directory here
(:class:`AbsentReplica`, kind ``assigned-absent``) is judged from Kafka's own rules
(3.9): a broker creates a replica's log as soon as it applies the metadata assigning it
(``ReplicaManager.applyDelta`` -> ``applyLocalLeadersDelta``/``applyLocalFollowersDelta``
-> ``Partition.makeLeader``/``makeFollower`` -> ``createLogIfNotExists`` ->
``LogManager.getOrCreateLog``), and names every log it holds in the log dir's checkpoints
within seconds, even an empty one (``ReplicaManager.checkpointHighWatermarks`` writes each
online log's high watermark, 0 included; ``LogManager.checkpointLogRecoveryOffsetsInDir``
every log of the dir).  So a replica with neither directory nor checkpoint entry was never
created here (the broker had not applied the assignment when the copy was taken, or never
ran since), or went with its checkpoints.  ISR membership proves no data on it: a new
partition's ISR is every live replica of its assignment, their logs empty
(``ReplicationControlManager.createTopic``: ``isr`` = the replicas ``isActive``).  So
nothing here names offsets lost (only the checkpoints do, :class:`MissingPartition`) but
one witness: when the metadata makes this broker the leader of the partition's current
epoch and another replica given (the same cluster, another node) holds batches of that
epoch, those offsets were appended here first (``UnifiedLog.appendAsLeader`` stamps the
leader's epoch on each batch; followers append the leader's batches as they are,
``appendAsFollower``): ``data-lost`` with their range (the replica's
leader-epoch-checkpoint entry for the epoch to the next entry or its log end).
Otherwise the severity says what the metadata claims of the replica: a **warning** when it pins the
replica to this very log dir (``PartitionRecord.directories``, KIP-858: a broker with one
log dir is assigned it at creation, ``ClusterControlManager.defaultDir``; a broker with
several reports the dir after creating the log, ``ReplicaManager.maybeUpdateTopicAssignment``
-> ``AssignReplicasToDirs``) and counts it in sync (in the ISR, or the leader): a broker
given this log dir would start it empty while the controller may elect it leader; an
**information** otherwise (an out-of-sync replica the broker creates and fills from the
leader; or a log dir the metadata does not name: ``MIGRATING``/``UNASSIGNED``/``LOST``, or
a log dir without ``directory.id``, where another log dir of the broker may hold it).  A
replica being moved away (``removingReplicas``), or pinned to another log dir of the
broker, is not this log dir's to hold.  The metadata judges a log dir only of its own
cluster (``cluster.id`` of the log dir it was read in).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ... import fs as kfs
from ...errors import KdumpError
from ...files.logdir import parse_partition_dir
from ...files.text import checkpoint_entries, iter_checkpoint
from ...findings import INFO, WARNING, Problem
from ...source import FileSource
from ..replica_groups import log_dir_identity
from .witnesses import LostRange, Witness, replica_log_end

#: the offset checkpoints a log dir holds, and the witness each entry is
CHECKPOINT_WITNESSES = (("replication-offset-checkpoint", "high-watermark"),
                        ("recovery-point-offset-checkpoint", "recovery-point"),
                        ("log-start-offset-checkpoint", "log-start-offset"))


@dataclass(frozen=True, slots=True)
class MissingPartition:
    """A partition a log dir's checkpoints name with no directory: ``directory`` where
    it would be, ``log_start`` (its log-start-offset-checkpoint entry, else 0),
    ``highest_written`` and the ``witnesses`` proving it, ``lost`` the range
    (log start .. highest written - 1; None when nothing was written), ``explained``
    why Kafka itself removed it (None: lost)."""

    log_dir: str
    topic: str
    partition: int
    directory: str
    log_start: int
    highest_written: int
    witnesses: tuple[Witness, ...]
    lost: LostRange | None
    explained: str | None = None
    #: the log-start-offset-checkpoint names it (Kafka writes an entry only for a log
    #: whose start is above its first segment's base: LogManager.checkpointLogStartOffsetsInDir)
    start_known: bool = True

    @property
    def data_lost(self) -> bool:
        return self.lost is not None and self.explained is None

    def finding(self) -> Problem | None:
        """``data-lost`` (an error) with the range, or a ``checkpoint`` note (information)
        when Kafka's own work explains the directory's absence; None when nothing was
        written."""
        extra: dict[str, Any] = {"topic": self.topic, "partition": self.partition,
                                 "witnesses": [w.to_json() for w in self.witnesses]}
        said = ", ".join(w.label for w in self.witnesses)
        if self.explained is not None:
            return Problem(self.directory, None, "checkpoint",
                           f"{self.topic}-{self.partition} is named by the log dir's "
                           f"checkpoints ({said}) and has no directory here: "
                           f"{self.explained}", severity=INFO, extra=extra)
        if self.lost is None:
            return None
        r = self.lost
        n = f"{r.count:,} offset{'s' if r.count != 1 else ''}"
        start = "" if self.start_known else (
            "; the log-start-offset-checkpoint has no entry for it (the log started at its "
            "first segment's base, which no file here says): offsets from 0 at most")
        return Problem(self.directory, None, "data-lost",
                       f"{r.offsets_text} ({n}) were written ({said}) and the partition "
                       f"directory {self.topic}-{self.partition} is gone from the log dir: "
                       f"lost on this replica (a broker given this log dir would start the "
                       f"partition empty and hand these offsets out again){start}",
                       base_offset=r.first,
                       extra={**extra, "lost_offsets": [r.first, r.last]})


#: ``DirectoryId``'s reserved ids, as the metadata image holds them (kdump.metadata.image)
_RESERVED_DIRS = {"AAAAAAAAAAAAAAAAAAAAAA": "MIGRATING", "AAAAAAAAAAAAAAAAAAAAAQ": "UNASSIGNED",
                  "AAAAAAAAAAAAAAAAAAAAAg": "LOST"}


@dataclass(frozen=True, slots=True)
class AbsentReplica:
    """A partition the KRaft metadata assigns to this log dir's broker with no directory
    here (see the module docstring): ``replicas``, ``isr``, ``leader``, ``leader_epoch``
    as the image holds them; ``directory_id`` the log dir it assigns the replica to (a
    reserved name: ``MIGRATING``, ``UNASSIGNED``, ``LOST``); ``pinned``: that is this log
    dir's ``directory.id``; ``named``: the checkpoints name it (with nothing written: the
    log was created here and is gone)."""

    log_dir: str
    topic: str
    partition: int
    directory: str
    node: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    leader: int
    leader_epoch: int
    directory_id: str
    pinned: bool
    named: bool
    source: str
    #: offsets another replica holds in the epoch this broker leads: written here
    written: LostRange | None = None

    @property
    def data_lost(self) -> bool:
        return self.written is not None

    @property
    def in_sync(self) -> bool:
        return self.node in self.isr or self.leader == self.node

    @property
    def severity(self) -> str:
        return WARNING if self.pinned and self.in_sync else INFO

    def finding(self) -> Problem:
        where = f"the KRaft metadata ({self.source})" if self.source else "the KRaft metadata"
        if self.written is not None:
            r = self.written
            n = f"{r.count:,} offset{'s' if r.count != 1 else ''}"
            [w] = r.witnesses
            return Problem(self.directory, None, "data-lost",
                           f"{r.offsets_text} ({n}) were written on this replica and the "
                           f"partition directory {self.topic}-{self.partition} is gone from "
                           f"the log dir: {where} makes this broker ({self.node}) the leader "
                           f"of epoch {self.leader_epoch}, and {w.path} (broker {w.broker_id}) "
                           "holds these offsets in that epoch (a leader appends first, its "
                           "followers copy its batches): lost on this replica",
                           base_offset=r.first,
                           extra={"topic": self.topic, "partition": self.partition,
                                  "lost_offsets": [r.first, r.last],
                                  "witnesses": [w.to_json()]})
        dirs = (f"log dir {self.directory_id}, this one" if self.pinned else
                f"log dir {_RESERVED_DIRS.get(self.directory_id, self.directory_id)}")
        state = (f"replicas {list(self.replicas)}, ISR {list(self.isr)}, leader {self.leader}, "
                 f"leader epoch {self.leader_epoch}, {dirs}")
        here = ("no directory here, and the checkpoints name it with nothing written (its "
                "log was created here and is gone)" if self.named else
                "neither a directory nor a checkpoint entry here (a broker creates a "
                "replica's log when it applies the assignment and checkpoints it within "
                "seconds: it was never created here, or went with its entries)")
        if self.severity == WARNING:
            why = ("an in-sync replica with no log: a broker given this log dir starts it "
                   "empty while the controller may elect it leader; no offsets are named "
                   "lost, as nothing here proves a record was written to this replica (a "
                   "new partition's ISR is every live replica, its logs empty)")
        elif not self.pinned:
            why = ("the metadata does not pin the replica to this log dir: another log dir "
                   "of this broker, not given, may hold it")
        else:
            why = ("an out-of-sync replica: the broker creates it and fetches from the "
                   "leader when it applies the metadata")
        return Problem(self.directory, None, "assigned-absent",
                       f"{self.topic}-{self.partition}: {where} assigns it to this broker "
                       f"({self.node}; {state}) and there is {here}: {why}",
                       severity=self.severity,
                       extra={"topic": self.topic, "partition": self.partition,
                              "replicas": list(self.replicas), "isr": list(self.isr),
                              "leader": self.leader, "leader_epoch": self.leader_epoch,
                              "directory_id": self.directory_id})


@dataclass(frozen=True, slots=True)
class LogDirVerdict:
    """The verdict of one log dir: ``missing`` partitions its checkpoints name (each
    lost or explained); ``absent`` replicas the KRaft metadata assigns to its broker
    with no directory here; ``cluster_id``/``node_id`` from its meta.properties."""

    log_dir: str
    cluster_id: str | None
    node_id: int | None
    missing: tuple[MissingPartition, ...]
    absent: tuple[AbsentReplica, ...] = ()

    @property
    def data_lost(self) -> bool:
        return any(m.data_lost for m in self.missing) or any(a.data_lost for a in self.absent)

    def findings(self) -> list[Problem]:
        out = [p for m in self.missing if (p := m.finding()) is not None]
        return out + [a.finding() for a in self.absent]


def is_log_dir(path: str) -> bool:
    """A directory holding a broker's meta.properties or one of its offset checkpoints."""
    if kfs.is_url(path) or not os.path.isdir(path):
        return False
    return any(os.path.isfile(os.path.join(path, n)) for n in
               ("meta.properties", *(c for c, _w in CHECKPOINT_WITNESSES)))


def log_dirs_of(paths: Iterable[str]) -> list[str]:
    """The log dirs among local inputs: one given, or the log dirs in a folder given (a
    partition directory or a file given names no log dir: only what is given whole is
    judged)."""
    out: list[str] = []
    for p in paths:
        if kfs.is_url(p) or not os.path.isdir(p):
            continue
        a = kfs.abspath(p).rstrip("/") or "/"
        if is_log_dir(a):  # first: a log dir may be named like a partition (broker-1, kafka-0)
            cands = [a]
        elif parse_partition_dir(os.path.basename(a)) is not None:
            continue
        else:
            try:
                cands = [os.path.join(a, n) for n in sorted(kfs.listdir(a))]
            except OSError:
                cands = []
            cands = [c for c in cands if is_log_dir(c)]
        out += [c for c in cands if c not in out]
    return out


def live_partition_dirs(log_dir: str) -> list[str]:
    """The live partition directories of a log dir (not ``-delete``/``-future``/
    ``-stray``, not a tiered copy), sorted."""
    log_dir = kfs.abspath(log_dir).rstrip("/") or "/"
    try:
        names = sorted(kfs.listdir(log_dir))
    except OSError:
        return []
    out = []
    for n in names:
        part = parse_partition_dir(n)
        if part is not None and part.state is None and part.topic_id is None \
                and os.path.isdir(os.path.join(log_dir, n)):
            out.append(os.path.join(log_dir, n))
    return out


def judge_log_dir(log_dir: str | os.PathLike[str], others: Iterable[str] = (),
                  assignments: dict[tuple[str, int], list[int]] | None = None,
                  metadata_source: str = "", *, metadata: Any = None) -> LogDirVerdict:
    """The verdict of ``log_dir``; ``others``: the other log dirs given (a partition's
    live directory in one of the same broker explains its absence here);
    ``assignments``: each partition's replicas as the KRaft metadata image says
    (None: no metadata read): a topic it no longer holds was deleted, a partition it
    assigns to other brokers only was moved away (ReplicaManager.applyDelta deletes
    the local replica: its checkpoint entries go with the next checkpoint).
    ``metadata``: the image's configs and placements (a
    :class:`kdump.ops.topics.config.MetadataConfigs`; its assignments, source and
    placements stand for the two before): the replicas it assigns here with no
    directory are :class:`AbsentReplica`.  Metadata read in a log dir of another
    cluster says nothing of this one."""
    log_dir = kfs.abspath(os.fspath(log_dir)).rstrip("/") or "/"
    ident = log_dir_identity(log_dir)
    cluster, node = ident.cluster_id, ident.node_id
    placements = None
    if metadata is not None:
        assignments = getattr(metadata, "assignments", None)
        metadata_source = str(getattr(metadata, "source", "") or "")
        placements = getattr(metadata, "placements", None)
        theirs = getattr(metadata, "cluster_id", None)
        if theirs is not None and cluster is not None and theirs != cluster:
            assignments = placements = None
    try:
        names = sorted(kfs.listdir(log_dir))
    except FileNotFoundError:
        names = []
    except OSError:  # there but not listable: which directories it holds is unknown
        return LogDirVerdict(log_dir, cluster, node, ())
    live: set[tuple[str, int]] = set()
    special: dict[tuple[str, int], list[tuple[str, str]]] = {}
    for n in names:
        part = parse_partition_dir(n)
        if part is None or not os.path.isdir(os.path.join(log_dir, n)):
            continue
        key = (part.topic, part.partition)
        if part.state is None and part.topic_id is None:
            live.add(key)
        elif part.state is not None:
            special.setdefault(key, []).append((part.state, n))
    entries: dict[tuple[str, int], list[Witness]] = {}
    starts: dict[tuple[str, int], int] = {}
    for name, wname in CHECKPOINT_WITNESSES:
        for key, value in checkpoint_entries(log_dir, name).items():
            if wname == "log-start-offset":
                starts[key] = value
            if value > 0:
                entries.setdefault(key, []).append(
                    Witness(wname, os.path.join(log_dir, name), value))
            else:
                entries.setdefault(key, [])
    missing: list[MissingPartition] = []
    moved = _moved_to(log_dir, cluster, node, others)
    #: named by the checkpoints with nothing written, no directory, nothing explaining it
    named_empty: set[tuple[str, int]] = set()
    for key in sorted(set(entries) | set(starts)):
        if key in live or _unreadable_dir(os.path.join(log_dir, f"{key[0]}-{key[1]}")):
            continue
        ws = entries.get(key, [])
        start = starts.get(key, 0)
        top = max((w.end for w in ws), default=0)
        proving = tuple(w for w in ws if w.end > start)
        lost = LostRange(start, top - 1, proving) if top > start else None
        explained = None
        for state, n in special.get(key, []):
            explained = {"delete": f"its directory was renamed {n} to be deleted (the topic "
                                   "or the replica was deleted: LogManager.asyncDelete)",
                         "stray": f"its directory was renamed {n} (a stray replica the "
                                  "metadata does not assign here: LogManager.handleStrayLogs)",
                         "future": f"{n} is its future replica moving into this log dir "
                                   "(alterReplicaLogDirs)"}[state]
            break
        if explained is None and key in moved:
            explained = (f"its directory is in another log dir of this broker, {moved[key]} "
                         "(moved by alterReplicaLogDirs)")
        if explained is None and assignments is not None:
            explained = _by_metadata(key, node, assignments, metadata_source)
        if lost is None and explained is None:
            named_empty.add(key)
            continue
        missing.append(MissingPartition(log_dir, key[0], key[1],
                                        os.path.join(log_dir, f"{key[0]}-{key[1]}"), start,
                                        top, tuple(sorted(ws, key=lambda w: w.end)), lost,
                                        explained, key in starts))
    absent: list[AbsentReplica] = []
    if placements is not None and node is not None:
        held = live | set(special) | set(moved) | {(m.topic, m.partition) for m in missing}
        for key in sorted(placements):
            pl = placements[key]
            replicas = [int(r) for r in pl.get("replicas") or []]
            if key in held or node not in replicas or node in (pl.get("removing_replicas") or []) \
                    or _unreadable_dir(os.path.join(log_dir, f"{key[0]}-{key[1]}")):
                continue
            dirs = list(pl.get("directories") or [])
            did = str(dirs[replicas.index(node)]) if len(dirs) == len(replicas) \
                else "AAAAAAAAAAAAAAAAAAAAAA"
            mine = ident.directory_id
            if did not in _RESERVED_DIRS and mine is not None and did != mine:
                continue  # pinned to another log dir of this broker: not this one's
            absent.append(AbsentReplica(
                log_dir, key[0], key[1], os.path.join(log_dir, f"{key[0]}-{key[1]}"), node,
                tuple(replicas), tuple(int(r) for r in pl.get("isr") or []),
                int(pl.get("leader", -1)), int(pl.get("leader_epoch", 0)), did,
                mine is not None and did == mine, key in named_empty, metadata_source,
                _led_here(key, node, cluster, int(pl.get("leader", -1)),
                          int(pl.get("leader_epoch", 0)), others)))
    return LogDirVerdict(log_dir, cluster, node, tuple(missing), tuple(absent))


def _led_here(key: tuple[str, int], node: int, cluster: str | None, leader: int, epoch: int,
              others: Iterable[str]) -> LostRange | None:
    """The offsets another replica of the partition given (the same cluster, another
    node) holds in leader epoch ``epoch``, when ``node`` leads it (``leader``): they were
    appended on ``node`` first.  The widest such range; None when none is known."""
    if leader != node or cluster is None:
        return None
    best: LostRange | None = None
    for other in others:
        o = kfs.abspath(other).rstrip("/") or "/"
        them = log_dir_identity(o)
        if them.cluster_id != cluster or them.node_id is None or them.node_id == node:
            continue
        d = os.path.join(o, f"{key[0]}-{key[1]}")
        try:
            with FileSource(os.path.join(d, "leader-epoch-checkpoint")) as src:
                entries = [(int(e.fields["epoch"]), int(e.fields["start_offset"]))
                           for e in iter_checkpoint(src, "leader-epoch-checkpoint")]
        except KdumpError:
            continue
        starts = [s for e, s in entries if e == epoch]
        if not starts:
            continue
        later = [s for e, s in entries if e > epoch]
        end = min(later) if later else replica_log_end(d)
        if end > starts[0] and (best is None or end - starts[0] > best.count):
            best = LostRange(starts[0], end - 1,
                             (Witness("replica", d, end, broker_id=them.node_id),))
    return best


def _unreadable_dir(path: str) -> bool:
    """``path`` is there but cannot be looked at (stat fails other than "no such file":
    permission, I/O): what it holds is unknown, not lost (the walk names the error)."""
    if kfs.is_url(path):
        return False
    try:
        os.stat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return False


def _by_metadata(key: tuple[str, int], node: int | None,
                 assignments: dict[tuple[str, int], list[int]], source: str) -> str | None:
    """Why the KRaft metadata says the partition is not here (None: it says nothing
    that explains it, or it assigns the partition to this broker)."""
    where = f"the KRaft metadata ({source})" if source else "the KRaft metadata"
    if not any(t == key[0] for t, _p in assignments):
        return f"{where} holds no topic {key[0]}: it was deleted"
    replicas = assignments.get(key)
    if replicas is None:
        return f"{where} holds no partition {key[1]} of {key[0]}"
    if node is not None and node not in replicas:
        return (f"{where} assigns it to broker{'s' if len(replicas) != 1 else ''} "
                f"{', '.join(map(str, replicas))}, not this one ({node}): the replica was "
                "moved away")
    return None


def _moved_to(log_dir: str, cluster: str | None, node: int | None, others: Iterable[str]
              ) -> dict[tuple[str, int], str]:
    """The partitions whose live or future directory is in another log dir of the same
    broker (the same cluster.id and node id) among ``others``."""
    out: dict[tuple[str, int], str] = {}
    for other in others:
        o = kfs.abspath(other).rstrip("/") or "/"
        them = log_dir_identity(o)
        if o == log_dir or node is None or (them.cluster_id, them.node_id) != (cluster, node):
            continue
        try:
            names = kfs.listdir(o)
        except OSError:
            continue
        for n in names:
            part = parse_partition_dir(n)
            if part is not None and part.state in (None, "future") and part.topic_id is None:
                out.setdefault((part.topic, part.partition), os.path.join(o, n))
    return out


__all__ = ["CHECKPOINT_WITNESSES", "AbsentReplica", "LogDirVerdict", "MissingPartition", "is_log_dir",
           "judge_log_dir", "live_partition_dirs", "log_dirs_of"]
