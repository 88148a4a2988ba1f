"""``kdump compare-replicas``: do the replicas of a partition agree, where do they differ,
which records exist on one replica only, and where Kafka's truncation would cut each
follower.

Each replica is read batch header by batch header (61 bytes a batch, no decompression,
no record decoding): followers store the leader's batches byte for byte, so two replicas
hold the same batch at an offset when base offset, last offset, partitionLeaderEpoch,
magic and stored CRC agree.  Whole batches are read only where headers differ: to tell
damage (the CRC does not match) from divergence, and compaction (each broker's cleaner
keeps a v2 batch's base and last offset and its epoch and drops records: the records at
the offsets both keep must be the same) from a real difference.

The log dirs and replicas: :mod:`.logdirs`; the header walk: :mod:`.headers`; the
leader-epoch cache and the truncation rules: :mod:`.epochs`.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ... import fs as kfs
from ... import layouts as L
from ...errors import KdumpError
from ...files.text import iter_checkpoint
from ...findings import INFO, WARNING, Problem
from ...model import shape
from ...records.batch import Batch
from ...records.file_records import make_batch
from ...records.v2 import DEFAULT_MAX_BATCH_BYTES
from ...source import FileSource
from ..replica_groups import ReplicaGroup
from .epochs import EpochCache, Truncation, follower_truncation
from .headers import Head, HeaderWalk
from .logdirs import LogDir, Replica, ReplicaSet


@dataclass(slots=True, eq=False)
class ReplicaState:
    replica: Replica
    walk: HeaderWalk
    it: Iterator[Head | Problem]
    cur: Head | None = None
    first_offset: int | None = None
    leo: int | None = None
    batches: int = 0
    records: int = 0
    batch_epochs: list[tuple[int, int]] = field(default_factory=list)
    checkpoint_epochs: list[tuple[int, int]] | None = None
    damage: list[Problem] = field(default_factory=list)
    #: batches no other replica holds: base offsets, record counts, segment/position
    only_base: array = field(default_factory=lambda: array("q"))
    only_count: array = field(default_factory=lambda: array("q"))
    only_pos: list[tuple[str, int]] = field(default_factory=list)
    at_divergence: Head | None = None
    log_start_offset: int | None = None
    cache: EpochCache | None = None
    epochs_source: str = "none"
    role: str = "follower"
    truncation: Truncation | None = None
    records_only_here: int = 0
    batches_only_here: int = 0

    def advance(self) -> None:
        for item in self.it:
            if isinstance(item, Problem):
                if item.severity != INFO:
                    self.damage.append(item)
                continue
            self.cur = item
            self.batches += 1
            self.records += item.count
            if self.first_offset is None:
                self.first_offset = item.base
            self.leo = item.last + 1 if self.leo is None else max(self.leo, item.last + 1)
            if item.magic >= 2 and item.epoch >= 0 and (
                    not self.batch_epochs or self.batch_epochs[-1][0] != item.epoch):
                self.batch_epochs.append((item.epoch, item.base))
            return
        self.cur = None


@dataclass(slots=True)
class CompareOptions:
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
    print_data_log: bool = False
    leader: str | None = None  # a broker id or a log dir path
    #: ``--kafka-version X.Y``: the release whose layouts internal topics' records of
    #: ``print_data_log`` are read with (None: each log dir's metadata.version)
    kafka_version: str | None = None
    _releases: Any = None

    def decoder_of(self, replica: Replica) -> Any:
        """The internal-topic decoder of ``replica``'s records (None: a data topic, its
        records shown as strings), made with the replica's log dir's evidence."""
        from ...decoders import TOPIC_DECODERS, Releases

        name = TOPIC_DECODERS.get(replica.topic)
        if name is None:
            return None
        if self._releases is None:
            self._releases = Releases(self.kafka_version)
        return self._releases.decoder(name, replica.log_dir)


@dataclass(slots=True)
class PartitionComparison:
    topic: str
    partition: int
    states: list[ReplicaState]
    status: str  # "agree", "lagging", "diverged", "single"
    divergence_offset: int | None
    truncation_offset: int | None
    leader_reason: str
    compacted_differences: int
    missing_from: list[LogDir]
    #: the replica group compared (:mod:`kdump.ops.replica_groups`); None: made by hand
    group: ReplicaGroup[Replica] | None = None

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    @property
    def label(self) -> str:
        """Its name, and what tells it from a namesake among the inputs (a cluster, a
        topic id) where one is there."""
        return self.group.label if self.group is not None else self.name

    @property
    def diverged(self) -> bool:
        return self.divergence_offset is not None

    @property
    def damaged(self) -> bool:
        return any(s.damage for s in self.states)

    def to_json(self) -> dict[str, Any]:
        g = self.group
        why = dict(zip((id(m) for m in g.members), g.why, strict=True)) if g else {}
        return shape("partition_comparison", {"partition": self.name, "topic": self.topic,
            "cluster_id": g.cluster_id if g else None, "topic_id": g.topic_id if g else None,
            "status": self.status, "diverged": self.diverged,
            "divergence_offset": self.divergence_offset,
            "truncation_offset": self.truncation_offset,
            "leader": next((s.replica.path for s in self.states if s.role == "leader"), None),
            "leader_reason": self.leader_reason,
            "compacted_differences": self.compacted_differences,
            "missing_from": [{"log_dir": d.path, "broker_id": d.broker_id}
                             for d in self.missing_from],
            "replicas": [{**replica_json(s), "joined": why.get(id(s.replica))}
                         for s in self.states],
        })


def replica_json(s: ReplicaState) -> dict[str, Any]:
    r = s.replica
    t = s.truncation
    return {
        "path": r.path, "log_dir": r.log_dir, "broker_id": r.broker_id, "role": s.role,
        "log_start_offset": s.log_start_offset, "log_end_offset": s.leo,
        "high_watermark": r.high_watermark,
        "segments": len(s.walk.segments), "batches": s.batches, "records": s.records,
        "records_only_here": s.records_only_here, "batches_only_here": s.batches_only_here,
        "epochs": [[e, o] for e, o in (s.cache.entries if s.cache else [])],
        "epochs_source": s.epochs_source,
        "checkpoint_epochs": None if s.checkpoint_epochs is None
        else [[e, o] for e, o in s.checkpoint_epochs],
        "batch_epochs": [[e, o] for e, o in s.batch_epochs],
        "latest_epoch": s.cache.latest_epoch() if s.cache else None,
        "truncation_offset": t.offset if t else None,
        "truncation_reason": t.reason if t else None,
        "batch_at_divergence": s.at_divergence.to_json() if s.at_divergence else None,
        "damage": [{"file": p.path, "position": p.position, "kind": p.kind,
                    "base_offset": p.base_offset, "detail": p.detail} for p in s.damage],
        "bytes_read": s.walk.bytes_read,
    }


@dataclass(slots=True)
class OnlyHereBatch:
    """A batch only this replica holds (``--print-data-log``)."""

    replica: Replica
    batch: Batch
    #: the internal-topic decoder of its records (None: shown as strings)
    decoder: Any = None


@dataclass(slots=True)
class CompareSummary:
    partitions: int
    agree: int
    lagging: int
    diverged: int
    single: int
    damaged: int
    logdirs: list[LogDir]
    bytes_read: int

    def to_json(self) -> dict[str, Any]:
        return shape("replicas_summary", {"partitions": self.partitions, "agree": self.agree,
                "lagging": self.lagging, "diverged": self.diverged,
                "only_one_replica": self.single, "damaged": self.damaged,
                "bytes_read": self.bytes_read,
                "log_dirs": [{"log_dir": d.path, "broker_id": d.broker_id}
                             for d in self.logdirs]})


def read_epoch_checkpoint(path: str) -> tuple[list[tuple[int, int]] | None, Problem | None]:
    """A partition directory's leader-epoch-checkpoint as ``[(epoch, start offset)]``
    (None: no such file), and the problem that stopped its reading."""
    p = os.path.join(path, "leader-epoch-checkpoint")
    if not kfs.isfile(p):
        return None, None
    out: list[tuple[int, int]] = []
    try:
        with FileSource(p) as src:
            for e in iter_checkpoint(src, "leader-epoch-checkpoint"):
                out.append((e.fields["epoch"], e.fields["start_offset"]))
    except KdumpError as e:
        return out, Problem(e.path or p, e.position, "checkpoint", e.message, severity=WARNING)
    return out, None


def read_batch(h: Head, max_batch_bytes: int) -> Batch | None:
    """The whole batch a header names, read again from its file (None: unreadable)."""
    try:
        with FileSource(h.path) as src:
            data = src.pread(h.position, h.size)
    except KdumpError:
        return None
    if len(data) < h.size:
        return None
    return make_batch(h.path, h.position, data, 0)


def _record_view(b: Batch, max_batch_bytes: int
                 ) -> dict[int, tuple[Any, ...]] | None:
    try:
        return {r.offset: (r.timestamp, r.key, r.value, tuple(r.headers))
                for r in b.records(max_batch_bytes)}
    except KdumpError:
        return None


class _Comparer:
    def __init__(self, topic: str, partition: int, replicas: list[Replica],
                 missing: list[LogDir], opts: CompareOptions,
                 group: ReplicaGroup[Replica] | None = None) -> None:
        self.group = group
        self.topic = topic
        self.partition = partition
        self.opts = opts
        self.missing = missing
        self.states: list[ReplicaState] = []
        for r in replicas:
            w = HeaderWalk(r.path, max_batch_bytes=opts.max_batch_bytes)
            st = ReplicaState(r, w, iter(w))
            st.damage.extend(w.problems)
            self.states.append(st)
        self.divergence: int | None = None
        self.compacted = 0
        self.problems: list[Problem] = []

    def _diverge(self, offset: int, involved: list[ReplicaState]) -> None:
        if self.divergence is None or offset < self.divergence:
            self.divergence = offset
            for s in self.states:
                s.at_divergence = None
            for s in involved:
                s.at_divergence = s.cur

    def _damaged(self, s: ReplicaState, b: Head) -> bool:
        """Is this batch (whose header differs from another replica's) damaged?  Its CRC
        is computed: only such batches are read whole."""
        batch = read_batch(b, self.opts.max_batch_bytes)
        if batch is None:
            s.damage.append(Problem(b.path, b.position, "unreadable-file",
                                    "batch cut short", base_offset=b.base))
            return True
        if not batch.crc_valid:
            s.damage.append(Problem(b.path, b.position, "crc-mismatch",
                                    f"stored CRC {batch.crc} but computed {batch.compute_crc()}",
                                    base_offset=b.base))
            return True
        return False

    def _compaction_equivalent(self, heads: list[tuple[ReplicaState, Head]]) -> int | None:
        """Batches with the same base/last offset and epoch but other contents: the same
        records at every offset both keep (compaction) -> None; else the first offset
        whose records differ."""
        views = []
        for _s, h in heads:
            b = read_batch(h, self.opts.max_batch_bytes)
            v = _record_view(b, self.opts.max_batch_bytes) if b is not None else None
            if v is None:
                return h.base
            views.append(v)
        first = views[0]
        bad: int | None = None
        for v in views[1:]:
            for off in sorted(set(first) & set(v)):
                if first[off] != v[off]:
                    bad = off if bad is None else min(bad, off)
                    break
        return bad

    def run(self) -> Iterator[Problem]:
        for s in self.states:
            s.advance()
        while True:
            live = [s for s in self.states if s.cur is not None]
            if not live:
                break
            o = min(s.cur.base for s in live if s.cur is not None)
            at = [s for s in live if s.cur is not None and s.cur.base == o]
            groups: dict[tuple[int, int, int, int, int], list[ReplicaState]] = {}
            for s in at:
                assert s.cur is not None
                groups.setdefault(s.cur.identity, []).append(s)
            matched: set[int] = set()
            # past the divergence offset, batches differ as expected: headers only
            if len(groups) > 1 and self.divergence is None:
                # damage first: a batch failing its CRC is not compared
                intact = []
                for s in at:
                    assert s.cur is not None
                    if len(groups[s.cur.identity]) == 1 and self._damaged(s, s.cur):
                        continue
                    intact.append(s)
                by_id: dict[tuple[int, int, int, int, int], list[ReplicaState]] = {}
                for s in intact:
                    assert s.cur is not None
                    by_id.setdefault(s.cur.identity, []).append(s)
                if len(by_id) > 1:
                    heads = [(s, s.cur) for s in intact if s.cur is not None]
                    same_shape = len({(h.base, h.last, h.epoch, h.magic) for _, h in heads}) == 1
                    bad = self._compaction_equivalent(heads) if same_shape and \
                        heads[0][1].magic >= 2 else o
                    if bad is None:
                        self.compacted += 1
                        matched.update(id(s) for s in intact)
                    else:
                        self._diverge(bad, intact)
                groups = by_id
                at = intact
            max_last = o
            for s in at:
                assert s.cur is not None
                h = s.cur
                max_last = max(max_last, h.last)
                if len(groups.get(h.identity, ())) == 1 and id(s) not in matched:
                    s.only_base.append(h.base)
                    s.only_count.append(h.count)
                    if self.opts.print_data_log:
                        s.only_pos.append((h.path, h.position))
            at_ids = {id(x) for x in at}
            for s in live:
                if id(s) in at_ids:
                    continue
                assert s.cur is not None
                if s.cur.base <= max_last:  # a batch starting inside another's range
                    self._diverge(s.cur.base, [s, *at])
            for s in live:
                if s.cur is not None and s.cur.base == o:
                    s.advance()
        for s in self.states:
            yield from s.damage

    def finish(self) -> tuple[PartitionComparison, list[OnlyHereBatch]]:
        for s in self.states:
            r = s.replica
            segs = s.walk.segments
            if s.leo is None:
                s.leo = segs[-1][0] if segs else None
            elif segs:
                s.leo = max(s.leo, segs[-1][0])
            first_seg = segs[0][0] if segs else None
            ck = r.logdir.log_start_offsets.get((r.topic, r.partition))
            cands = [x for x in (ck, first_seg) if x is not None]
            s.log_start_offset = max(cands) if cands else s.first_offset
            cp, prob = read_epoch_checkpoint(r.path)
            if prob is not None:
                s.damage.append(prob)
            s.checkpoint_epochs = cp
            if cp is not None:
                cache = EpochCache(cp)
                s.epochs_source = "leader-epoch-checkpoint"
                latest = cache.latest_epoch()
                for e, o in s.batch_epochs:
                    if latest is None or e > latest:
                        cache.assign(e, o)
                        latest = e
                        s.epochs_source = "leader-epoch-checkpoint+batches"
            else:
                cache = EpochCache(s.batch_epochs)
                s.epochs_source = "batches" if s.batch_epochs else "none"
            if s.leo is not None:
                cache.truncate_from_end(s.leo)
            if s.log_start_offset is not None:
                cache.truncate_from_start(s.log_start_offset)
            s.cache = cache
        leader, reason = self._leader()
        trunc_offsets = []
        if len(self.states) == 1:
            self.states[0].role = "single"
            leader, reason = None, "one replica"
        for s in self.states:
            if len(self.states) == 1:
                break
            if s is leader:
                s.role = "leader"
                continue
            s.role = "follower"
            if leader is None or leader.cache is None or s.cache is None:
                continue
            s.truncation = follower_truncation(leader.cache, leader.leo or 0, s.cache,
                                               s.leo or 0, s.replica.high_watermark)
            t = s.truncation.offset
            if t is not None and s.leo is not None and t < s.leo:
                trunc_offsets.append(t)
        # records only here: at or after the divergence offset, or beyond every other
        # replica's end
        batches: list[OnlyHereBatch] = []
        for s in self.states:
            others_end = max((x.leo or 0 for x in self.states if x is not s), default=0)
            threshold = others_end if self.divergence is None else min(self.divergence, others_end)
            keep = [k for k, base in enumerate(s.only_base) if base >= threshold]
            s.records_only_here = sum(s.only_count[k] for k in keep)
            s.batches_only_here = len(keep)
            if self.opts.print_data_log and len(self.states) > 1:
                for k in keep:
                    path, pos = s.only_pos[k]
                    b = self._batch_at(path, pos)
                    if b is not None:
                        batches.append(OnlyHereBatch(s.replica, b,
                                                     self.opts.decoder_of(s.replica)))
        if len(self.states) == 1:
            status = "single"
        elif self.divergence is not None:
            status = "diverged"
        elif len({s.leo for s in self.states}) > 1:
            status = "lagging"
        else:
            status = "agree"
        comp = PartitionComparison(self.topic, self.partition, self.states, status,
                                   self.divergence, min(trunc_offsets) if trunc_offsets else None,
                                   reason, self.compacted, self.missing, self.group)
        return comp, batches

    def _batch_at(self, path: str, pos: int) -> Batch | None:
        try:
            with FileSource(path) as src:
                head = src.pread(pos, L.LOG_OVERHEAD)
                if len(head) < L.LOG_OVERHEAD:
                    return None
                _o, length = L.LOG_HEADER.unpack_from(head, 0)
                data = src.pread(pos, L.LOG_OVERHEAD + length)
        except KdumpError:
            return None
        if len(data) < L.LOG_OVERHEAD + length:
            return None
        return make_batch(path, pos, data, 0)

    def _leader(self) -> tuple[ReplicaState | None, str]:
        want = self.opts.leader
        if want is not None:
            for s in self.states:
                r = s.replica
                if (r.broker_id is not None and want == str(r.broker_id)) or \
                        os.path.normpath(want) in (os.path.normpath(r.log_dir),
                                                    os.path.normpath(r.path)):
                    return s, "given with --leader"
        best: ReplicaState | None = None
        for s in self.states:
            if best is None:
                best = s
                continue
            a = (s.cache.latest_epoch() if s.cache else None, s.leo)
            b = (best.cache.latest_epoch() if best.cache else None, best.leo)
            if (_n(a[0]), _n(a[1])) > (_n(b[0]), _n(b[1])):
                best = s
        if want is not None:
            return best, f"--leader {want} matches no replica; presumed: the highest " \
                         "latest leader epoch, then the highest log end offset"
        return best, "presumed: the highest latest leader epoch, then the highest log end offset"


def _n(x: int | None) -> int:
    return -2 if x is None else x


Item = PartitionComparison | OnlyHereBatch | CompareSummary | Problem


def _apart(group: ReplicaGroup[Replica], rs: ReplicaSet) -> list[list[Replica]]:
    """The replicas of a replica group (:mod:`kdump.ops.replica_groups`: one partition of
    one cluster, of one topic id where known) as compared: a replica in a log dir that is
    one node twice with another's (ReplicaSet.apart: the warning names them) stands
    alone, never compared with its twin nor, which of the two is the node's current copy
    being unknown, with the others."""
    reps = group.members
    twins = [r for r in reps if any(rs.apart(r.log_dir, o.log_dir) for o in reps)]
    rest = [r for r in reps if r not in twins]
    return ([rest] if rest else []) + [[r] for r in twins]


def _given_partition_dirs(paths: list[str], rs: ReplicaSet) -> bool:
    """Every PATH is itself a partition directory holding a replica (not a log dir,
    whatever its name: a log dir called ``kafka-1`` is no partition of a topic ``kafka``)."""
    held = {_norm(r.path) for reps in rs.replicas.values() for r in reps}
    return bool(paths) and all(_norm(p) in held for p in paths)


def _norm(p: str) -> str:
    return p.rstrip("/") if kfs.is_url(p) else os.path.normpath(p)


def _of_cluster(d: LogDir, group: ReplicaGroup[Replica], logdirs: list[LogDir]) -> bool:
    """The log dir ``d`` is of the group's cluster (a log dir naming no cluster.id: of
    the only one the inputs name, as :mod:`kdump.ops.replica_groups` has it)."""
    if d.cluster_id is not None:
        return d.cluster_id == (group.cluster_id or None)
    named = {x.cluster_id for x in logdirs if x.cluster_id is not None}
    return (next(iter(named)) if len(named) == 1 else None) == (group.cluster_id or None)


def compare_replicas(paths: Iterable[str], opts: CompareOptions) -> Iterator[Item]:
    """One :class:`PartitionComparison` per partition found under ``paths`` (each
    followed, with ``print_data_log``, by the batches only one replica holds), the
    problems found, then a :class:`CompareSummary`."""
    paths = list(paths)
    rs = ReplicaSet(paths)
    yield from rs.problems
    groups, notes = rs.groups()
    yield from notes
    # PATHs that are partition directories: the replicas given, no log dir's absence said
    partition_dirs = _given_partition_dirs(paths, rs)
    logdirs = rs.all_logdirs()
    counts = {"agree": 0, "lagging": 0, "diverged": 0, "single": 0}
    damaged = 0
    total_read = 0
    named: dict[tuple[str, int], set[str]] = {}
    for g in groups:
        named.setdefault((g.key.topic, g.key.partition), set()).update(
            r.log_dir for r in g.members)
    for group in groups:
        # a log dir holding the partition under another topic id does hold its name
        have = named[(group.key.topic, group.key.partition)]
        # absent from the log dirs of its own cluster only: another cluster's log dir
        # never held it
        missing = [] if partition_dirs else [
            d for d in logdirs if d.path not in have and _of_cluster(d, group, logdirs)]
        for part in _apart(group, rs):
            c = _Comparer(group.key.topic, group.key.partition, part, missing, opts, group)
            yield from c.run()
            comp, batches = c.finish()
            counts[comp.status] += 1
            damaged += comp.damaged
            total_read += sum(s.walk.bytes_read for s in comp.states)
            yield comp
            yield from batches
    yield CompareSummary(len(groups), counts["agree"], counts["lagging"], counts["diverged"],
                         counts["single"], damaged, logdirs, total_read)
