"""``kdump repair --replica LOGDIR``: the offsets a repair drops, filled byte for byte from
another broker's replica of the same partition, only where the two replicas agree around
the gap.

A follower stores the leader's batches byte for byte (ReplicaFetcherThread.processPartitionData
appends the fetched MemoryRecords as they are: UnifiedLog.appendAsFollower, no
re-encoding), so two replicas that agree on the history around a gap hold the same bytes
inside it.  They agree when (each checked, else nothing is filled and the reason is named):

* the replica's log dir is another broker of the same cluster: ``cluster.id`` of both
  meta.properties equal, ``node.id``/``broker.id`` different (checked before anything is
  read: :func:`check_replicas`);
* the replica's batch ending just before the gap and its batch starting just after it are
  byte for byte the damaged replica's last kept batch before the gap and first kept batch
  after it (where they exist: a gap at the log's end has no batch after it);
* every batch of the replica between them frames, holds its checksum and follows the one
  before it in the replica's log (no damage of its own in between);
* every such batch's partitionLeaderEpoch is the epoch both replicas' leader-epoch
  checkpoints give its base offset (LeaderEpochFileCache: the largest entry whose start
  offset is at or below it), and lies between the epochs of the batches either side.

A gap at the log's end (a torn tail) is filled up to the highest offset the damaged
replica's witnesses prove written (batches whose base offset is at or below it), never
beyond: offsets no witness proves written were never acknowledged on this broker.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...errors import KdumpError, UsageError
from ...findings import Problem
from ...model import shape
from ...records.v2 import RecordBatch
from ...source import FileSource
from ..compare_replicas import Head, HeaderWalk, read_batch, read_epoch_checkpoint
from ..verdict import log_dir_identity


@dataclass(slots=True)
class ReplicaLogDir:
    """A log dir given with ``--replica``: its broker and cluster."""

    path: str
    broker_id: int
    cluster_id: str

    def label(self) -> str:
        return f"broker {self.broker_id} ({self.path})"


def _meta(path: str) -> tuple[str | None, int | None, str | None]:
    """(cluster.id, node.id or broker.id, why one is missing) of a log dir's
    meta.properties (:func:`kdump.ops.witnesses.log_dir_identity`)."""
    cluster, node = log_dir_identity(path)
    meta = os.path.join(path, "meta.properties")
    why = None if cluster is not None and node is not None else (
        f"{meta}: no such file" if not os.path.isfile(meta) else
        f"{meta} names none, or cannot be read")
    return cluster, node, why


def check_replicas(replicas: list[str], input_logdirs: Sequence[str | None], into: str
                   ) -> list[ReplicaLogDir]:
    """Each ``--replica`` checked against every input's log dir, before anything is read
    or written; :class:`UsageError` (one line: which, and why) for a replica that is not a
    log dir of another broker of the same cluster.  A fill would otherwise bring in
    another cluster's offsets (a different history under the same topic name) or the same
    broker's own bytes (no second witness)."""
    from .plan import check_into

    if not replicas:
        return []
    out: list[ReplicaLogDir] = []
    inputs: list[tuple[str, str, int]] = []
    for ld in input_logdirs:
        if ld is None:
            raise UsageError("--replica: an input partition is not inside a broker log dir (no "
                             "meta.properties beside it): its cluster.id and node.id are "
                             "unknown, so no replica can be proved to be another broker of "
                             "its cluster; give its log dir's path")
        cid, node, why = _meta(ld)
        if cid is None or node is None:
            raise UsageError(f"--replica: the input log dir {ld} names no cluster.id and node.id "
                             f"({why or 'meta.properties lacks them'}): a replica cannot be "
                             "proved to be of the same cluster")
        inputs.append((ld, cid, node))
    for r in replicas:
        if not os.path.isdir(r):
            raise UsageError(f"--replica {r}: not a directory (give another broker's log dir)")
        cid, node, why = _meta(r)
        if cid is None or node is None:
            raise UsageError(f"--replica {r}: not a broker log dir with cluster.id and node.id "
                             f"({why or 'meta.properties lacks them'})")
        for ld, icid, inode in inputs:
            if os.path.realpath(ld) == os.path.realpath(r):
                raise UsageError(f"--replica {r} is the input log dir itself: a fill needs "
                                 "another broker's copy")
            if cid != icid:
                raise UsageError(f"--replica {r}: cluster.id {cid} is not the input's {icid} "
                                 f"({ld}): never filled from another cluster")
            if node == inode:
                raise UsageError(f"--replica {r}: node {node} is the input's own node ({ld}): "
                                 "never filled from the same broker")
        out.append(ReplicaLogDir(r, node, cid))
    check_into(into, replicas)
    return out


def epoch_at(entries: list[tuple[int, int]], offset: int) -> int | None:
    """The leader epoch a leader-epoch checkpoint gives ``offset``: the entry with the
    largest start offset at or below it (LeaderEpochFileCache.epochForOffset)."""
    found = None
    for epoch, start in entries:
        if start <= offset:
            found = epoch
        else:
            break
    return found


@dataclass(slots=True)
class _Partition:
    """One replica's copy of the partition: its batch headers in offset order (damage
    as None), its leader epochs."""

    path: str
    items: list[Head | None]
    epochs: list[tuple[int, int]] | None


@dataclass(slots=True)
class Fill:
    """What one replica gives for one gap."""

    replica: ReplicaLogDir
    heads: list[Head] = field(default_factory=list)
    why: str | None = None


def read_at(path: str, position: int, size: int) -> bytes | None:
    try:
        with FileSource(path) as src:
            data = src.pread(position, size)
    except KdumpError:
        return None
    return data if len(data) == size else None


class Filler:
    """The replicas of one partition, read as a gap asks for them."""

    def __init__(self, replicas: list[ReplicaLogDir], topic: str, partition: int,
                 own_epochs: list[tuple[int, int]] | None, max_batch_bytes: int,
                 on_read: Callable[[str], None] | None = None) -> None:
        self.replicas = replicas
        #: called with each replica file before it is first read (its SHA-256 taken)
        self.on_read = on_read
        self.topic = topic
        self.partition = partition
        self.own_epochs = own_epochs
        self.max_batch_bytes = max_batch_bytes
        self._read: dict[str, _Partition | None] = {}

    def _partition(self, r: ReplicaLogDir) -> _Partition | None:
        if r.path not in self._read:
            pdir = os.path.join(r.path, f"{self.topic}-{self.partition}")
            if not os.path.isdir(pdir):
                self._read[r.path] = None
            else:
                if self.on_read is not None:
                    try:
                        names = sorted(n for n in os.listdir(pdir)
                                       if n.endswith(".log") or n == "leader-epoch-checkpoint")
                    except OSError:
                        names = []  # HeaderWalk names the unreadable directory
                    for name in [os.path.join(r.path, "meta.properties"),
                                 *(os.path.join(pdir, n) for n in names)]:
                        self.on_read(name)
                items: list[Head | None] = [
                    None if isinstance(x, Problem) else x
                    for x in HeaderWalk(pdir, max_batch_bytes=self.max_batch_bytes)
                    if not (isinstance(x, Problem) and x.severity == "info")]
                epochs, _ = read_epoch_checkpoint(pdir)
                self._read[r.path] = _Partition(pdir, items, epochs)
        return self._read[r.path]

    def fill(self, first: int, last: int, before: tuple[str, int, int] | None,
             after: tuple[str, int, int] | None) -> Iterator[Fill]:
        """Offsets ``first``-``last`` missing, between the damaged replica's batches at
        ``before`` and ``after`` ((file, position, size), None where the gap has no batch
        on that side): each replica tried in turn, up to the first that fills it."""
        for r in self.replicas:
            f = self._one(r, first, last, before, after)
            yield f
            if f.why is None:
                return

    def _one(self, r: ReplicaLogDir, first: int, last: int, before: tuple[str, int, int] | None,
             after: tuple[str, int, int] | None) -> Fill:
        fill = Fill(r)
        p = self._partition(r)
        name = f"{self.topic}-{self.partition}"
        if p is None:
            fill.why = f"{r.label()} holds no replica of {name}"
            return fill
        items = p.items
        k = 0
        before_head: Head | None = None
        if before is not None:
            k = next((i for i, h in enumerate(items) if h is not None and h.last == first - 1),
                     -1)
            if k < 0:
                fill.why = (f"{r.label()} has no batch ending at offset {first - 1}, where the "
                            "damaged replica's last batch before the gap ends: a diverged "
                            "history (or damage there), nothing filled")
                return fill
            before_head = items[k]
            assert before_head is not None
            if not self._same(before_head, before):
                fill.why = (f"{r.label()}'s batch at offsets {before_head.base}-{before_head.last}"
                            f" ({before_head.path}, byte {before_head.position}) is not byte for "
                            "byte the damaged replica's batch before the gap: a diverged "
                            "history, nothing filled")
                return fill
            k += 1
        else:
            k = next((i for i, h in enumerate(items) if h is not None and h.last >= first),
                     len(items))
        heads: list[Head] = []
        after_head: Head | None = None
        while k < len(items):
            h = items[k]
            if h is None:
                fill.why = (f"{r.label()}'s own copy is damaged inside the gap (after offset "
                            f"{heads[-1].last if heads else first - 1}): nothing filled")
                return fill
            if after is not None and h.base > last:
                after_head = h
                break
            if after is None and h.base > last:
                break
            heads.append(h)
            k += 1
        if not heads:
            fill.why = f"{r.label()} holds no batch in offsets {first}-{last}"
            return fill
        if heads[0].base < first or (after is not None and heads[-1].last > last):
            fill.why = (f"{r.label()}'s batches do not line up with the gap (offsets "
                        f"{heads[0].base}-{heads[-1].last} against {first}-{last}): a diverged "
                        "history, nothing filled")
            return fill
        if after is not None:
            if after_head is None or after_head.base != last + 1:
                fill.why = (f"{r.label()} has no batch starting at offset {last + 1}, where the "
                            "damaged replica's first batch after the gap starts: a diverged "
                            "history, nothing filled")
                return fill
            if not self._same(after_head, after):
                fill.why = (f"{r.label()}'s batch at offsets {after_head.base}-{after_head.last}"
                            f" ({after_head.path}, byte {after_head.position}) is not byte for "
                            "byte the damaged replica's first batch after the gap: a diverged "
                            "history, nothing filled")
                return fill
        lo = before_head.epoch if before_head is not None else None
        hi = after_head.epoch if after_head is not None else None
        for h in heads:
            why = self._check(r, p, h, lo, hi)
            if why is not None:
                fill.why = why + ": nothing filled"
                return fill
        fill.heads = heads
        return fill

    def _same(self, h: Head, loc: tuple[str, int, int]) -> bool:
        if h.size != loc[2]:
            return False
        a = read_at(h.path, h.position, h.size)
        b = read_at(*loc)
        return a is not None and a == b

    def _check(self, r: ReplicaLogDir, p: _Partition, h: Head, lo: int | None,
               hi: int | None) -> str | None:
        b = read_batch(h, self.max_batch_bytes)
        where = f"{r.label()}'s batch at offsets {h.base}-{h.last} ({h.path}, byte {h.position})"
        if b is None:
            return f"{where} cannot be read"
        if not b.crc_valid:
            return f"{where} fails its checksum"
        if not isinstance(b, RecordBatch):
            return None  # v0/v1: no leader epoch; the bytes either side agree
        epoch = b.partition_leader_epoch
        if (lo is not None and epoch < lo) or (hi is not None and epoch > hi):
            return (f"{where} has leader epoch {epoch}, outside the epochs of the batches "
                    f"either side ({lo}-{hi})")
        for whose, entries in (("the damaged replica's", self.own_epochs),
                               (f"{r.label()}'s", p.epochs)):
            if entries:
                want = epoch_at(entries, h.base)
                if want is not None and want != epoch:
                    return (f"{where} has leader epoch {epoch}, where {whose} "
                            f"leader-epoch-checkpoint gives offset {h.base} epoch {want}: the "
                            "replicas disagree on who led then (a diverged history)")
        return None


def fill_object(log_dir: str | None, topic: str, partition: int, first: int, last: int,
                f: Fill, output: str | None, detail: str) -> dict[str, Any]:
    heads = f.heads
    return shape("repair_fill", {
        "log_dir": log_dir, "topic": topic, "partition": partition, "first_offset": first,
        "last_offset": last, "filled": f.why is None,
        "filled_offsets": [heads[0].base, heads[-1].last] if heads else None,
        "batches": len(heads), "records": sum(h.count for h in heads),
        "bytes": sum(h.size for h in heads), "replica_log_dir": f.replica.path,
        "replica_broker_id": f.replica.broker_id,
        "sources": _sources(heads), "output": output, "detail": detail})


def _sources(heads: list[Head]) -> list[dict[str, Any]]:
    """The filled batches as runs of adjacent bytes of one file each."""
    runs: list[dict[str, Any]] = []
    for h in heads:
        r = runs[-1] if runs else None
        if r is not None and r["file"] == h.path and r["position"] + r["length"] == h.position:
            r["length"] += h.size
            r["last_offset"] = h.last
            continue
        runs.append({"file": h.path, "position": h.position, "length": h.size,
                     "first_offset": h.base, "last_offset": h.last})
    return runs


__all__ = ["Fill", "Filler", "ReplicaLogDir", "check_replicas", "epoch_at", "fill_object",
           "read_at"]
