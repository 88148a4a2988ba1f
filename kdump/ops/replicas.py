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

Kafka's side, followed exactly:

* storage/.../epoch/LeaderEpochFileCache.java: ``assign`` (monotonic entries),
  ``truncateFromEnd`` / ``truncateFromStart`` (the log loader applies both with the log
  end and log start offsets) and ``endOffsetFor`` (the largest epoch <= the requested
  one, and the start offset of the next epoch, or the log end offset for the latest);
* core/.../server/AbstractFetcherThread.scala ``getOffsetTruncationState``: the follower
  asks the leader for the end offset of its latest epoch; when the leader answers with an
  epoch the follower does not know, the follower truncates to its own end offset for the
  largest epoch below it and asks again; otherwise it truncates to
  min(leader's end offset, its own end offset for that epoch, its log end offset).  A
  follower without epochs, or a leader that answers UNDEFINED_EPOCH_OFFSET, truncates to
  its high watermark.
"""

from __future__ import annotations

import functools
import os
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import fs as kfs
from .. import layouts as L
from ..errors import KdumpError
from ..files.logdir import list_segments, parse_partition_dir, walk
from ..files.text import iter_checkpoint, read_properties
from ..findings import ERROR, INFO, WARNING, Problem
from ..model import shape
from ..records.batch import Batch
from ..records.file_records import LogReader, make_batch
from ..records.v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch
from ..source import FileSource

UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1
#: below this batch size the next header is probably in the bytes already read: read
#: large windows; above it, read each 61-byte header alone
_SMALL_BATCH = 4096
_WINDOW = 256 << 10


# ------------------------------------------------------------------ log dirs and replicas

@dataclass(slots=True)
class LogDir:
    """A broker's log dir: its broker id (meta.properties) and its offset checkpoints."""

    path: str
    broker_id: int | None = None
    high_watermarks: dict[tuple[str, int], int] = field(default_factory=dict)
    log_start_offsets: dict[tuple[str, int], int] = field(default_factory=dict)
    cleaner_offsets: dict[tuple[str, int], int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


_CHECKPOINTS = {
    "replication-offset-checkpoint": ("high_watermarks", "high_watermark"),
    "log-start-offset-checkpoint": ("log_start_offsets", "log_start_offset"),
    "cleaner-offset-checkpoint": ("cleaner_offsets", "cleaner_checkpoint"),
}


def _broker_id(path: str) -> tuple[int | None, Problem | None]:
    meta = os.path.join(path, "meta.properties")
    if not kfs.isfile(meta):  # local or a URL (kdump.fs)
        return None, None
    try:
        with FileSource(meta) as src:
            props = read_properties(src)
        raw = props.get("broker.id", props.get("node.id"))
        return (int(raw) if raw is not None else None), None
    except (KdumpError, ValueError) as e:
        return None, Problem(meta, None, "bad-file", str(e), severity=WARNING)


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


@dataclass(slots=True)
class Replica:
    """One copy of a partition: a partition directory inside a broker's log dir."""

    path: str  # the partition directory
    topic: str
    partition: int
    logdir: LogDir

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

    def label(self) -> str:
        b = self.broker_id
        return f"broker {b} ({self.path})" if b is not None else self.path


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
        seen: set[str] = set()
        for item in walk(paths):
            if isinstance(item, Problem):
                if item.severity != INFO:
                    self.problems.append(item)
                continue
            if item.topic is None or item.partition is None:
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

    def all_logdirs(self) -> list[LogDir]:
        return list(self.logdirs.values())


# ------------------------------------------------------------------ header walk

class Head:
    """A batch as its header describes it: what identifies it across replicas."""

    __slots__ = (
        "attributes",
        "base",
        "compressed",
        "count",
        "crc",
        "epoch",
        "last",
        "magic",
        "path",
        "position",
        "size",
    )

    def __init__(self, base: int, last: int, epoch: int, crc: int, magic: int, count: int,
                 size: int, path: str, position: int, attributes: int, compressed: bool) -> None:
        self.base = base
        self.last = last
        self.epoch = epoch
        self.crc = crc
        self.magic = magic
        self.count = count
        self.size = size
        self.path = path
        self.position = position
        self.attributes = attributes
        self.compressed = compressed

    @property
    def identity(self) -> tuple[int, int, int, int, int]:
        return (self.base, self.last, self.epoch, self.crc, self.magic)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.path, "position": self.position, "base_offset": self.base,
                "last_offset": self.last, "partition_leader_epoch": self.epoch,
                "crc": self.crc, "magic": self.magic, "count": self.count, "size": self.size}


def _head_of(b: Batch, prev_last: int | None) -> Head:
    if isinstance(b, RecordBatch):
        return Head(b.base_offset, b.last_offset, b.partition_leader_epoch, b.crc, b.magic,
                    max(b.records_count, 0), b.size, b.path, b.position, b.attributes,
                    b.is_compressed)
    base = b.last_offset if not b.is_compressed else (
        b.last_offset if prev_last is None else min(prev_last + 1, b.last_offset))
    return Head(base, b.last_offset, UNDEFINED_EPOCH, b.crc, b.magic,
                1 if not b.is_compressed else b.last_offset - base + 1, b.size, b.path,
                b.position, b.attributes, b.is_compressed)


class HeaderWalk:
    """Batch headers of a partition's segments, in offset order, reading 61 bytes a batch
    where batches are large; a stretch whose headers do not frame is handed to the
    resynchronising :class:`LogReader`, whose findings name the damage."""

    def __init__(self, replica_path: str, *, max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
                 from_segment: int | None = None) -> None:
        self.path = replica_path
        self.max_batch_bytes = max_batch_bytes
        self.bytes_read = 0
        self.segments: list[tuple[int, str]] = []
        self.problems: list[Problem] = []
        try:
            self.segments = list_segments(replica_path)
        except OSError as e:
            self.problems.append(Problem(replica_path, None, "unreadable-file",
                                         (e.strerror or str(e)).lower()))
        if from_segment is not None and self.segments:
            self.segments = self.segments[-from_segment:]

    def __iter__(self) -> Iterator[Head | Problem]:
        prev_last: int | None = None
        n = len(self.segments)
        for k, (_base, seg) in enumerate(self.segments):
            try:
                src = FileSource(seg)
            except KdumpError as e:
                yield Problem(seg, None, "unreadable-file", e.message)
                continue
            with src:
                for item in self._segment(src, k == n - 1, prev_last):
                    if isinstance(item, Head):
                        prev_last = item.last
                    yield item
                self.bytes_read += src.bytes_read

    def _segment(self, src: FileSource, active: bool, prev_last: int | None
                 ) -> Iterator[Head | Problem]:
        size = src.size
        path = src.path
        pos = 0
        buf = b""
        buf_at = 0
        last_size = 0
        while pos < size:
            remaining = size - pos
            need = min(L.RECORD_BATCH_OVERHEAD, remaining)
            if not (buf_at <= pos and pos + need <= buf_at + len(buf)):
                n = _WINDOW if last_size < _SMALL_BATCH else L.RECORD_BATCH_OVERHEAD
                buf = src.pread(pos, max(n, need))
                buf_at = pos
            i = pos - buf_at
            head = self._frame(buf, i, len(buf) - i, pos, remaining, path, prev_last)
            if head is None:
                # not framed: the resynchronising reader takes over from here
                yield from self._resync(src, pos, active, prev_last)
                return
            yield head
            prev_last = head.last
            last_size = head.size
            pos += head.size

    def _frame(self, buf: bytes, i: int, avail: int, pos: int, remaining: int, path: str,
               prev_last: int | None) -> Head | None:
        if avail <= L.HEADER_SIZE_UP_TO_MAGIC:
            return None
        offset, length = L.LOG_HEADER.unpack_from(buf, i)
        magic = buf[i + L.MAGIC_OFFSET]
        total = L.LOG_OVERHEAD + length
        if offset < 0 or total > remaining or magic > 2:
            return None
        if total > self.max_batch_bytes + L.RECORD_BATCH_OVERHEAD:
            return None
        if magic == 2:
            if length < L.V2_MIN_BATCH_LENGTH or avail < L.RECORD_BATCH_OVERHEAD:
                return None
            (base, _len, epoch, _m, crc, attributes, delta, _bt, _mt, _pid, _pe, _bs,
             count) = L.V2_HEADER.unpack_from(buf, i)
            if attributes & ~0x7F or (attributes & 7) > 4 or delta < 0 or count < 0:
                return None
            if prev_last is not None and base <= prev_last:
                return None
            return Head(base, base + delta, epoch, crc, 2, count, total, path, pos,
                        attributes, bool(attributes & 7))
        if length < L.RECORD_OVERHEAD_V0 or avail <= L.LEGACY_ATTRIBUTES_OFFSET:
            return None
        _o, _s, crc, _m, attributes = L.LEGACY_HEADER.unpack_from(buf, i)
        attributes &= 0xFF
        if attributes & (0xF8 if magic == 0 else 0xF0) or (attributes & 7) > 3:
            return None
        if prev_last is not None and offset <= prev_last:
            return None
        compressed = bool(attributes & 7)
        base = offset if not compressed else (
            offset if prev_last is None else min(prev_last + 1, offset))
        return Head(base, offset, UNDEFINED_EPOCH, crc, magic,
                    1 if not compressed else offset - base + 1, total, path, pos,
                    attributes, compressed)

    def _resync(self, src: FileSource, start: int, active: bool, prev_last: int | None
                ) -> Iterator[Head | Problem]:
        reader = LogReader(src, start=start, active=active, max_batch_bytes=self.max_batch_bytes)
        for item in reader:
            if isinstance(item, Problem):
                yield item
                continue
            if not item.crc_valid:
                yield Problem(src.path, item.position, "crc-mismatch",
                              f"stored CRC {item.crc} but computed {item.compute_crc()}",
                              base_offset=item.base_offset if item.magic >= 2 else item.last_offset)
                continue
            h = _head_of(item, prev_last)
            prev_last = h.last
            yield h


def log_end_offset(replica_path: str, max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
                   ) -> tuple[int | None, list[Problem]]:
    """The log end offset of a partition directory: after the last batch of its last
    segment (the base offset of an empty last segment); only that segment's headers are
    read.  None when it holds no segment."""
    w = HeaderWalk(replica_path, max_batch_bytes=max_batch_bytes, from_segment=1)
    problems = list(w.problems)
    if not w.segments:
        return None, problems
    leo = w.segments[-1][0]
    for item in w:
        if isinstance(item, Problem):
            if item.severity != INFO:
                problems.append(item)
            continue
        leo = max(leo, item.last + 1)
    return leo, problems


# ------------------------------------------------------------------ leader epoch cache

class EpochCache:
    """LeaderEpochFileCache's entries and rules (see the module docstring)."""

    def __init__(self, entries: Iterable[tuple[int, int]] = ()) -> None:
        self.entries: list[tuple[int, int]] = []
        for e, s in entries:
            self.assign(e, s)

    def copy(self) -> EpochCache:
        c = EpochCache()
        c.entries = list(self.entries)
        return c

    def latest_epoch(self) -> int | None:
        return self.entries[-1][0] if self.entries else None

    def assign(self, epoch: int, start: int) -> None:
        if epoch < 0 or start < 0:
            return  # Kafka throws; such an entry is not taken
        if self.entries:
            le, ls = self.entries[-1]
            if not (epoch != le or start < ls):
                return
        while self.entries and (self.entries[-1][0] >= epoch or self.entries[-1][1] >= start):
            self.entries.pop()
        self.entries.append((epoch, start))

    def truncate_from_end(self, end_offset: int) -> None:
        if end_offset >= 0 and self.entries and self.entries[-1][1] >= end_offset:
            while self.entries and self.entries[-1][1] >= end_offset:
                self.entries.pop()

    def truncate_from_start(self, start_offset: int) -> None:
        removed = None
        while self.entries and self.entries[0][1] <= start_offset:
            removed = self.entries.pop(0)
        if removed is not None:
            self.entries.insert(0, (removed[0], start_offset))

    def end_offset_for(self, requested: int, log_end_offset: int) -> tuple[int, int]:
        if requested == UNDEFINED_EPOCH:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        if self.entries and self.entries[-1][0] == requested:
            return requested, log_end_offset
        higher = next(((e, s) for e, s in self.entries if e > requested), None)
        if higher is None:
            return UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET
        floor = None
        for e, s in self.entries:
            if e <= requested:
                floor = (e, s)
        if floor is None:
            return requested, higher[1]
        return floor[0], higher[1]


@dataclass(slots=True)
class Truncation:
    offset: int | None
    rounds: int
    reason: str


def follower_truncation(leader: EpochCache, leader_leo: int, follower: EpochCache,
                        follower_leo: int, follower_hw: int | None) -> Truncation:
    """Where Kafka's OffsetsForLeaderEpoch exchange truncates the follower."""
    cache = follower.copy()
    leo = follower_leo
    rounds = 0
    while True:
        rounds += 1
        fe = cache.latest_epoch()
        if fe is None:
            return Truncation(None if follower_hw is None else min(follower_hw, leo), rounds,
                              "the follower has no leader epochs: it truncates to its high "
                              "watermark" + ("" if follower_hw is not None else " (unknown)"))
        le, l_end = leader.end_offset_for(fe, leader_leo)
        if l_end == UNDEFINED_EPOCH_OFFSET:
            return Truncation(None if follower_hw is None else min(follower_hw, leo), rounds,
                              f"the leader knows no epoch <= {fe}: the follower truncates "
                              "to its high watermark"
                              + ("" if follower_hw is not None else " (unknown)"))
        f_epoch, f_end = cache.end_offset_for(le, leo)
        if f_end == UNDEFINED_EPOCH_OFFSET:
            return Truncation(min(l_end, leo), rounds,
                              f"the follower tracks no epoch <= {le}: the leader's end "
                              f"offset {l_end} for epoch {le}")
        if f_epoch != le:
            t = min(f_end, leo)
            leo = t
            cache.truncate_from_end(t)
            if rounds > 10_000:
                return Truncation(t, rounds, "gave up after 10000 rounds")
            continue
        return Truncation(min(f_end, l_end, leo), rounds,
                          f"end offset of epoch {le}, the largest epoch both hold "
                          f"(leader: {l_end}, follower: {f_end})")


# ------------------------------------------------------------------ comparison

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

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    @property
    def diverged(self) -> bool:
        return self.divergence_offset is not None

    @property
    def damaged(self) -> bool:
        return any(s.damage for s in self.states)

    def to_json(self) -> dict[str, Any]:
        return shape("partition_comparison", {"partition": self.name, "topic": self.topic,
            "status": self.status, "diverged": self.diverged,
            "divergence_offset": self.divergence_offset,
            "truncation_offset": self.truncation_offset,
            "leader": next((s.replica.path for s in self.states if s.role == "leader"), None),
            "leader_reason": self.leader_reason,
            "compacted_differences": self.compacted_differences,
            "missing_from": [{"log_dir": d.path, "broker_id": d.broker_id}
                             for d in self.missing_from],
            "replicas": [replica_json(s) for s in self.states],
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


def _read_epoch_checkpoint(path: str) -> tuple[list[tuple[int, int]] | None, Problem | None]:
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


def _read_batch(h: Head, max_batch_bytes: int) -> Batch | None:
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
                 missing: list[LogDir], opts: CompareOptions) -> None:
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
        batch = _read_batch(b, self.opts.max_batch_bytes)
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
            b = _read_batch(h, self.opts.max_batch_bytes)
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
            cp, prob = _read_epoch_checkpoint(r.path)
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
                        batches.append(OnlyHereBatch(s.replica, b))
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
                                   reason, self.compacted, self.missing)
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


def compare_replicas(paths: Iterable[str], opts: CompareOptions) -> Iterator[Item]:
    """One :class:`PartitionComparison` per partition found under ``paths`` (each
    followed, with ``print_data_log``, by the batches only one replica holds), the
    problems found, then a :class:`CompareSummary`."""
    paths = list(paths)
    rs = ReplicaSet(paths)
    yield from rs.problems
    groups = rs.replicas
    all_partition_dirs = all(
        parse_partition_dir(os.path.basename(p.rstrip("/") if kfs.is_url(p)
                                             else os.path.normpath(p))) is not None
        and kfs.isdir(p) for p in paths)
    if all_partition_dirs and len(groups) > 1:
        # PATHs that are partition directories compare with each other, whatever their
        # names (a restored copy, a directory renamed aside)
        merged: list[Replica] = [r for reps in groups.values() for r in reps]
        first = merged[0]
        groups = {(first.topic, first.partition): merged}
    logdirs = rs.all_logdirs()
    counts = {"agree": 0, "lagging": 0, "diverged": 0, "single": 0}
    damaged = 0
    total_read = 0
    for (topic, partition) in sorted(groups):
        reps = groups[(topic, partition)]
        have = {r.log_dir for r in reps}
        missing = [d for d in logdirs if d.path not in have] if not all_partition_dirs else []
        c = _Comparer(topic, partition, reps, missing, opts)
        yield from c.run()
        comp, batches = c.finish()
        counts[comp.status] += 1
        damaged += comp.damaged
        total_read += sum(s.walk.bytes_read for s in comp.states)
        yield comp
        yield from batches
    yield CompareSummary(len(groups), counts["agree"], counts["lagging"], counts["diverged"],
                         counts["single"], damaged, logdirs, total_read)


__all__ = [
    "ERROR",
    "CompareOptions",
    "CompareSummary",
    "EpochCache",
    "HeaderWalk",
    "LogDir",
    "OnlyHereBatch",
    "PartitionComparison",
    "Replica",
    "ReplicaSet",
    "compare_replicas",
    "follower_truncation",
    "log_end_offset",
    "read_logdir",
]
