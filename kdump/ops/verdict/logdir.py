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
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ... import fs as kfs
from ...files.logdir import parse_partition_dir
from ...files.text import checkpoint_entries
from ...findings import INFO, Problem
from ..replica_groups import log_dir_identity
from .witnesses import LostRange, Witness

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


@dataclass(frozen=True, slots=True)
class LogDirVerdict:
    """The verdict of one log dir: ``missing`` partitions its checkpoints name (each
    lost or explained); ``cluster_id``/``node_id`` from its meta.properties."""

    log_dir: str
    cluster_id: str | None
    node_id: int | None
    missing: tuple[MissingPartition, ...]

    @property
    def data_lost(self) -> bool:
        return any(m.data_lost for m in self.missing)

    def findings(self) -> list[Problem]:
        return [p for m in self.missing if (p := m.finding()) is not None]


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
                  metadata_source: str = "") -> LogDirVerdict:
    """The verdict of ``log_dir``; ``others``: the other log dirs given (a partition's
    live directory in one of the same broker explains its absence here);
    ``assignments``: each partition's replicas as the KRaft metadata image says
    (None: no metadata read): a topic it no longer holds was deleted, a partition it
    assigns to other brokers only was moved away (ReplicaManager.applyDelta deletes
    the local replica: its checkpoint entries go with the next checkpoint)."""
    log_dir = kfs.abspath(os.fspath(log_dir)).rstrip("/") or "/"
    ident = log_dir_identity(log_dir)
    cluster, node = ident.cluster_id, ident.node_id
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
            continue
        missing.append(MissingPartition(log_dir, key[0], key[1],
                                        os.path.join(log_dir, f"{key[0]}-{key[1]}"), start,
                                        top, tuple(sorted(ws, key=lambda w: w.end)), lost,
                                        explained, key in starts))
    return LogDirVerdict(log_dir, cluster, node, tuple(missing))


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


__all__ = ["CHECKPOINT_WITNESSES", "LogDirVerdict", "MissingPartition", "is_log_dir",
           "judge_log_dir", "live_partition_dirs", "log_dirs_of"]
