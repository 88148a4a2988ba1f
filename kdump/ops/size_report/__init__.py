"""``kdump size-report``: what takes the space, per segment, partition and topic.

Batches are counted as Kafka's FileRecords counts them (shallow entries: an
uncompressed legacy message is one, a compressed wrapper is one).  Deep mode (the
default) reads every record for its key, value and header sizes and decompresses to
learn each codec's ratio; ``shallow`` reads batch headers only.

Format overhead = uncompressed bytes - (keys + values + header keys and values): batch
headers (61 bytes in v2), record framing (length, attributes, deltas, length varints)
and legacy message headers, the figure the articles on Kafka's message format measure.

Size: over 600 lines, as it is one report: its rows, the accounting of a batch (and of
a run of batches the native walk of :mod:`kdump.ops.size_report.size_run` accounted), the levels
they add up to and the pool that reads segments in ranges.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ... import fs as kfs
from ... import layouts as L
from ...errors import KdumpError, LimitExceeded
from ...files.logdir import KafkaFile, walk
from ...files.splits import SegmentRange, segment_ranges, window_for
from ...findings import INFO, Problem
from ...model import shape
from ...parallel import log_work_bytes, ordered_map, pool_pays
from ...records.batch import Batch
from ...records.file_records import LogReader
from ...records.scan import scan_v2_records
from ...records.v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch
from ...source import FileSource
from ..batch_findings import NoBatch, crc_problem
from ..compare_replicas import broker_id_of, logdir_of
from ..verdict import TAIL_PROBLEMS, LostTracker, Tail, finds_gaps, held_pieces, judge_tail
from ..verdict.tail import judge_closed_tail
from .size_run import install, native_size_run_available

LEVELS = ("segment", "partition", "topic")

#: file kind -> the row field its size adds to
_SIZE_FIELDS = {
    "log": "log_bytes",
    "offset-index": "index_bytes",
    "time-index": "time_index_bytes",
    "txn-index": "txn_index_bytes",
    "producer-snapshot": "snapshot_bytes",
}


@dataclass(slots=True)
class CodecStats:
    batches: int = 0
    stored_bytes: int = 0
    uncompressed_bytes: int = 0

    def add(self, other: CodecStats) -> None:
        self.batches += other.batches
        self.stored_bytes += other.stored_bytes
        self.uncompressed_bytes += other.uncompressed_bytes


@dataclass(slots=True)
class SizeRow:
    """One row of the report: a segment, a partition, a topic, or the total."""

    level: str
    topic: str | None = None
    partition: int | None = None
    segment: str | None = None
    bytes: int = 0
    #: allocated bytes (st_blocks x 512, as du counts them); None: an input without block
    #: counts (an object store)
    disk_bytes: int | None = 0
    log_bytes: int = 0
    index_bytes: int = 0
    time_index_bytes: int = 0
    txn_index_bytes: int = 0
    snapshot_bytes: int = 0
    other_bytes: int = 0
    segments: int = 0
    batches: int = 0
    records: int = 0
    #: records of batches whose CRC fails (read in depth): apart from ``records``
    invalid_records: int = 0
    control_batches: int = 0
    control_records: int = 0
    transactional_batches: int = 0
    transactional_bytes: int = 0
    key_bytes: int = 0
    value_bytes: int = 0
    header_bytes: int = 0
    uncompressed_bytes: int = 0
    overhead_bytes: int = 0
    unreadable_bytes: int = 0
    first_offset: int | None = None
    last_offset: int | None = None
    min_timestamp: int | None = None
    max_timestamp: int | None = None
    producer_ids: set[int] = field(default_factory=set)
    codecs: dict[str, CodecStats] = field(default_factory=dict)
    exact_records: bool = True
    #: key/value/header/overhead bytes measured (False under --shallow: unknown)
    sizes_known: bool = True
    #: the broker log dir holding the replica (segment and partition rows) and its
    #: broker id (meta.properties): several log dirs are several replicas, kept apart
    log_dir: str | None = None
    broker_id: int | None = None
    #: topic and total rows: how replicas were counted (see SizeTotals.rows)
    replica_stats: dict[str, Any] | None = None
    #: records the batch headers claim, and those in batches whose CRC is valid
    records_claimed: int = 0
    records_readable: int = 0
    #: offsets the partition's witnesses prove written that no batch holds
    #: (kdump.ops.witnesses), and their ranges [first, last] (partition rows)
    offsets_lost: int = 0
    lost_ranges: list[list[int]] = field(default_factory=list)
    #: the partition directory a segment row's files are in (not output)
    directory: str | None = None
    #: look for gaps between batches (a delete-policy topic's segment rows; not output),
    #: the offset before the first batch when the row starts its segment, the gaps found
    find_gaps: bool = False
    gap_base: int | None = None
    #: the row's first batch's first offset, when that batch names it exactly
    first_exact: int | None = None
    gaps: list[tuple[int, int]] = field(default_factory=list)
    #: its logs' tail findings as judged (kdump.ops.verdict.tail), and whether active
    tails: list[tuple[Problem, bool]] = field(default_factory=list)

    def see_first(self, first: int) -> None:
        """The next batch starts at offset ``first`` (exactly: a v2 batch, an uncompressed
        v0/v1 message): a gap after the last one is noted (:attr:`find_gaps`)."""
        if self.last_offset is None and self.first_exact is None:
            self.first_exact = first
        if not self.find_gaps:
            return
        after = self.last_offset if self.last_offset is not None else self.gap_base
        if after is not None and first > after + 1:
            self.gaps.append((after + 1, first - 1))

    def merge(self, o: SizeRow) -> None:
        for name in ("bytes", "log_bytes", "index_bytes", "time_index_bytes", "txn_index_bytes",
                     "snapshot_bytes", "other_bytes", "segments", "batches", "records",
                     "invalid_records", "control_batches", "control_records", "transactional_batches",
                     "transactional_bytes", "key_bytes", "value_bytes", "header_bytes",
                     "uncompressed_bytes", "overhead_bytes", "unreadable_bytes",
                     "records_claimed", "records_readable", "offsets_lost"):
            setattr(self, name, getattr(self, name) + getattr(o, name))
        self.lost_ranges = self.lost_ranges + o.lost_ranges
        self.disk_bytes = _plus(self.disk_bytes, o.disk_bytes)
        self.first_offset = _min(self.first_offset, o.first_offset)
        self.last_offset = _max(self.last_offset, o.last_offset)
        self.min_timestamp = _min(self.min_timestamp, o.min_timestamp)
        self.max_timestamp = _max(self.max_timestamp, o.max_timestamp)
        self.producer_ids |= o.producer_ids
        for name, c in o.codecs.items():
            self.codecs.setdefault(name, CodecStats()).add(c)
        self.exact_records = self.exact_records and o.exact_records
        self.sizes_known = self.sizes_known and o.sizes_known

    @property
    def payload_bytes(self) -> int:
        return self.key_bytes + self.value_bytes + self.header_bytes

    @property
    def key(self) -> tuple[Any, ...]:
        # a partition's files outside segments (segment None) after its segments
        return (self.topic or "", self.partition or 0, self.log_dir or "",
                self.segment is None and self.level == "segment", self.segment or "")

    def to_json(self) -> dict[str, Any]:
        # --shallow does not decompress: a compressed batch's uncompressed size is unknown
        unmeasured = not self.sizes_known and any(
            c.batches and not c.uncompressed_bytes for c in self.codecs.values())
        obj: dict[str, Any] = {"type": self.level if self.level != "all" else "total"}
        if self.level in ("segment", "partition", "topic"):
            obj["topic"] = self.topic
        if self.level in ("segment", "partition"):
            obj["partition"] = self.partition
        if self.level == "segment":
            obj["segment"] = self.segment
        obj.update(
            bytes=self.bytes, disk_bytes=self.disk_bytes, log_bytes=self.log_bytes,
            index_bytes=self.index_bytes,
            time_index_bytes=self.time_index_bytes, txn_index_bytes=self.txn_index_bytes,
            snapshot_bytes=self.snapshot_bytes, other_bytes=self.other_bytes,
            segments=self.segments, batches=self.batches, records=self.records,
            records_exact=self.exact_records, invalid_records=self.invalid_records,
            control_batches=self.control_batches, control_records=self.control_records,
            transactional_batches=self.transactional_batches,
            transactional_bytes=self.transactional_bytes,
            key_bytes=self._known(self.key_bytes), value_bytes=self._known(self.value_bytes),
            header_bytes=self._known(self.header_bytes),
            payload_bytes=self._known(self.payload_bytes),
            overhead_bytes=self._known(self.overhead_bytes),
            uncompressed_bytes=None if unmeasured else self.uncompressed_bytes,
            compression_ratio=None if unmeasured else _ratio(self.uncompressed_bytes,
                                                             self.log_bytes_in_batches()),
            unreadable_bytes=self.unreadable_bytes,
            first_offset=self.first_offset, last_offset=self.last_offset,
            min_timestamp=self.min_timestamp, max_timestamp=self.max_timestamp,
            producers=len(self.producer_ids),
            records_claimed=self.records_claimed, records_readable=self.records_readable,
            offsets_lost=self.offsets_lost,
            codecs={name: {"batches": c.batches, "stored_bytes": c.stored_bytes,
                           "uncompressed_bytes": c.uncompressed_bytes,
                           "ratio": _ratio(c.uncompressed_bytes, c.stored_bytes)}
                    for name, c in sorted(self.codecs.items())},
        )
        if self.level in ("segment", "partition"):
            obj["log_dir"] = self.log_dir
            obj["broker_id"] = self.broker_id
        if self.level == "partition":
            obj["lost_ranges"] = self.lost_ranges
        if self.replica_stats:
            obj.update(self.replica_stats)
        return shape(obj.pop("type"), obj)

    def _known(self, n: int) -> int | None:
        """None where --shallow did not measure (never a misleading 0)."""
        return n if self.sizes_known else None

    def log_bytes_in_batches(self) -> int:
        return sum(c.stored_bytes for c in self.codecs.values())


def _ratio(a: int, b: int) -> float | None:
    """uncompressed / stored; None when either is unknown (shallow reports do not
    decompress)."""
    return round(a / b, 4) if a and b else None


def _plus(a: int | None, b: int | None) -> int | None:
    """A sum of allocated bytes: unknown (None) once any part is."""
    return None if a is None or b is None else a + b


def _min(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _max(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


@dataclass(slots=True)
class SizeOptions:
    by: str = "partition"
    top: int | None = None
    deep: bool = True
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
    #: topics' cleanup.policy for the witnesses' verdicts (kdump.ops.witnesses.
    #: CleanupPolicies; None: Kafka's own compacted topics, else delete)
    policies: Any = None
    #: the partition directories judged compacted where the policies were read (a Spark
    #: driver's: kdump.ops.verdict.compacted_dirs); None: judged here from ``policies``
    compacted: frozenset[str] | None = None


def size_report(paths: Iterable[str], opts: SizeOptions, jobs: int = 1
                ) -> Iterator[SizeRow | Problem]:
    """Rows at ``opts.by`` level (largest first when ``top`` is set), then the total.
    ``jobs`` worker processes read files in parallel (the same output for any ``jobs``).

    With ``jobs`` > 1 a large segment is read as byte ranges by several workers.  A range
    counts only when the reading of the one before it ended exactly at its start (the
    whole-file chain of batches reaches it); where it did not (damage that a whole-file
    read resynchronises past a boundary), the rest of that segment is read again here,
    from the last range that started in step, and the later ranges are dropped: the
    output is the whole-file read's, byte for byte.  Without ``--jobs``, a pool only
    for work that pays for one (:func:`kdump.parallel.pool_pays`)."""
    paths = list(paths)
    totals = SizeTotals(opts)
    parallel, walked = pool_pays(walk(paths), jobs, _log_bytes)
    if not parallel:
        jobs = 1
    tasks = segment_ranges(walked, _read_whole) if jobs > 1 else walked
    redone: str | None = None  # a segment read again from one of its ranges on
    for item in ordered_map(partial(_task_row, opts), tasks, jobs, _is_task):
        if isinstance(item, Problem):
            if item.severity != INFO:
                yield item
            continue
        if isinstance(item, KafkaFile):
            continue  # log-dir root files belong to no partition
        seg_row, problems, rng, in_step = item
        if rng is not None:
            if rng.file.path == redone:
                continue
            if not in_step:
                redone = rng.file.path
                seg_row, problems, _, _ = _task_row(opts, SegmentRange(rng.file, rng.start, None))
        for p in problems:
            if p.kind == "unreadable-file" and p.path:
                totals.unreadable.add(kfs.dirname(kfs.abspath(p.path)))
            yield p
        if seg_row is not None:
            totals.add(seg_row)
    yield from totals.judge_lost(paths)
    yield from totals.rows()


def _log_bytes(item: object) -> int:
    """The bytes of work in a walk's item: a segment's size (0 when it has none to give),
    discounted when its first batch is v2 uncompressed and the native walk reads it
    (:func:`kdump.parallel.log_work_bytes`)."""
    if not (isinstance(item, KafkaFile) and item.kind == "log" and _read_whole(item)):
        return 0
    try:
        size = kfs.getsize(item.path)
    except OSError:
        return 0  # its reader says why
    return log_work_bytes(item.path, size, legacy=False) if native_size_run_available() else size


def _read_whole(f: KafkaFile) -> bool:
    """A log whose batches are read (a leftover's are not: its bytes are other bytes)."""
    return _in_partition(f) and f.leftover is None


def _is_task(item: object) -> bool:
    return isinstance(item, SegmentRange) or _in_partition(item)


TaskRow = tuple[SizeRow | None, list[Problem], SegmentRange | None, bool]


def _task_row(opts: SizeOptions, task: KafkaFile | SegmentRange) -> TaskRow:
    """A file's row and problems, or one range's (with whether its reading ended in step
    with the next range's start)."""
    if isinstance(task, KafkaFile):
        row, problems, _ = _range_row(task, opts, 0, None)
        return row, problems, None, True
    row, problems, in_step = _range_row(task.file, opts, task.start, task.stop)
    return row, problems, task, in_step


def _range_row(f: KafkaFile, opts: SizeOptions, start: int, stop: int | None
               ) -> tuple[SizeRow | None, list[Problem], bool]:
    """The row of ``[start, stop)`` of a file (the whole file: ``0, None``; the range
    starting at 0 accounts the file's bytes too), its problems, and whether the reading
    ended in step (see :func:`_read_log`).  The row is None when the file cannot be read."""
    seg_row = _segment_row(f)
    problems: list[Problem] = []
    try:
        if start == 0:
            in_step = _yield_into(problems, _account(f, seg_row, opts, stop))
        else:
            in_step = _yield_into(problems, _read_log(f, seg_row, opts, start, stop))
    except KdumpError as e:
        problems.append(Problem(e.path or f.path, e.position, "unreadable-file", e.message))
        return None, problems, stop is None
    return seg_row, problems, in_step


def _yield_into(out: list[Problem], gen: Generator[Problem, None, bool]) -> bool:
    """Run ``gen`` to its end, its problems appended to ``out``; its return value."""
    while True:
        try:
            out.append(next(gen))
        except StopIteration as stop:
            return bool(stop.value)


def _in_partition(item: object) -> bool:
    """A partition's file, or a segment file lying outside any topic-N directory (read
    all the same: its partition is unknown, and its row says so)."""
    return isinstance(item, KafkaFile) and (
        item.topic is not None or (item.base_offset is not None and item.kind in _SIZE_FIELDS
                                   and item.leftover is None))


def file_row(f: KafkaFile, opts: SizeOptions) -> tuple[SizeRow | None, list[Problem]]:
    """One file's share of its segment's row, and the problems found reading it (the
    row is None when the file cannot be read).  :func:`size_report` merges these rows
    with :class:`SizeTotals`; ``kdump spark size-report`` computes them on executors."""
    row, problems, _ = _range_row(f, opts, 0, None)
    return row, problems


def _segment_row(f: KafkaFile) -> SizeRow:
    seg_row = SizeRow("segment", f.topic, f.partition, _segment_name(f))
    if f.topic is not None and f.partition_state is None and f.leftover is None:
        seg_row.directory = kfs.dirname(f.path)
    # a segment outside any topic-N directory: its own directory stands for the log dir
    seg_row.log_dir = (logdir_of(os.path.dirname(f.path) or ".") if f.topic is not None
                       else os.path.dirname(f.path) or ".")
    seg_row.broker_id = broker_id_of(seg_row.log_dir)
    return seg_row


class SizeTotals:
    """Merges :func:`file_row` rows into rows at ``opts.by`` level and the total."""

    def __init__(self, opts: SizeOptions) -> None:
        self.opts = opts
        self._rows: dict[tuple[Any, ...], SizeRow] = {}
        #: one row per replica (topic, partition, log dir), for --by topic and the total
        self._replicas: dict[tuple[Any, ...], SizeRow] = {}
        self.total = SizeRow("all")
        #: each replica's partition directory and the offsets its segments hold
        self._held: dict[tuple[Any, ...], tuple[str, list[tuple[int, int]]]] = {}
        #: partition directories a read failed in: nothing judged lost there
        self.unreadable: set[str] = set()
        #: each replica's judged tails (kdump.ops.verdict.Tail)
        self._tails: dict[tuple[Any, ...], list[Tail]] = {}

    def add(self, seg_row: SizeRow) -> None:
        by = self.opts.by
        rkey = (seg_row.topic, seg_row.partition, seg_row.log_dir)
        if seg_row.directory is not None:
            held = self._held.setdefault(rkey, (seg_row.directory, []))[1]
            if seg_row.first_offset is not None and seg_row.last_offset is not None:
                # from the segment's base offset: a v0/v1 compressed wrapper's offset is
                # its last inner message's, so its first batch may name a later one
                first = seg_row.first_offset
                ranged = seg_row.gap_base is None and seg_row.find_gaps and \
                    seg_row.first_exact == first  # a range of a segment, from its batch
                if seg_row.segment is not None and seg_row.segment.isdigit() and not ranged:
                    first = min(first, int(seg_row.segment))
                held += held_pieces(first, seg_row.last_offset, seg_row.gaps)
            self._tails.setdefault(rkey, []).extend(
                t for p, active in seg_row.tails if (t := Tail.of(p, active)) is not None)
        rep = self._replicas.get(rkey)
        if rep is None:
            rep = self._replicas[rkey] = SizeRow("partition", seg_row.topic, seg_row.partition,
                                                 log_dir=seg_row.log_dir,
                                                 broker_id=seg_row.broker_id)
        rep.merge(seg_row)
        self.total.merge(seg_row)
        if by == "topic":
            return
        key = _level_key(seg_row, by)
        row = self._rows.get(key)
        if row is None:
            row = self._rows[key] = SizeRow(by, seg_row.topic, seg_row.partition,
                                            seg_row.segment if by == "segment" else None,
                                            log_dir=seg_row.log_dir,
                                            broker_id=seg_row.broker_id)
        row.merge(seg_row)

    def judge_lost(self, paths: list[str]) -> list[Problem]:
        """Each partition directory read whole held against its witnesses
        (:mod:`kdump.ops.witnesses`): the ``data-lost`` findings, and each partition
        row's ``offsets_lost`` and ``lost_ranges``."""
        tracker = LostTracker(paths, self.opts.policies)
        out: list[Problem] = []
        for rkey, (directory, held) in sorted(self._held.items(), key=lambda kv: kv[1][0]):
            if kfs.abspath(directory) in self.unreadable:
                out += tracker.partition_unreadable(directory)
                continue
            out += tracker.partition(directory, held, self._tails.get(rkey, ()))
            verdict = tracker.verdicts.get(kfs.abspath(directory))
            if verdict is None:
                continue
            # the partition's verdict: its lost ranges, a tail's included
            n = verdict.offsets_lost
            ranges = [list(r) for r in verdict.lost_ranges]
            rows = [self._replicas[rkey]] if rkey in self._replicas else []
            if self.opts.by == "partition" and rkey in self._rows:
                rows.append(self._rows[rkey])
            for row in rows:
                row.offsets_lost += n
                row.lost_ranges = row.lost_ranges + ranges
            self.total.offsets_lost += n
        # the partitions each log dir's checkpoints name with no directory, and those
        # whose directory holds no file at all (no row here: the total counts them)
        rowed = set(tracker.verdicts)
        out += tracker.finish()
        self.total.offsets_lost += sum(v.offsets_lost for d, v in tracker.verdicts.items()
                                       if d not in rowed)
        for v in tracker.log_dirs.values():
            self.total.offsets_lost += sum(m.lost.count for m in v.missing
                                           if m.data_lost and m.lost is not None)
            self.total.offsets_lost += sum(a.written.count for a in v.absent
                                           if a.written is not None)
        return out

    def _partition_groups(self) -> list[list[tuple[Any, ...]]]:
        """The replicas' keys by partition: replica groups of
        :mod:`kdump.ops.replica_groups` (one cluster, topic, partition and topic id where
        known: two clusters' ``orders-0`` are two partitions); a file of no partition
        directory by its name."""
        from ..replica_groups import Identity, group_replicas, log_dir_identity, topic_id_of

        named = [k for k in self._replicas if k[0] is not None and k[1] is not None]
        clusters = {ld: log_dir_identity(ld).cluster_id if ld is not None else None
                    for _t, _p, ld in named}

        def tid(k: tuple[Any, ...]) -> str | None:
            held = self._held.get(k)
            return topic_id_of(held[0]) if held is not None else None

        groups, _notes = group_replicas(
            named, lambda k: Identity(k[0], k[1], clusters[k[2]], None, str(k[2])), tid)
        out = [g.members for g in groups]
        loose: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
        for k in self._replicas:
            if k[0] is None or k[1] is None:
                loose.setdefault(k[:2], []).append(k)
        return out + list(loose.values())

    def _topic_rows(self) -> list[SizeRow]:
        """--by topic: each partition counted once (its replica with the highest last
        offset, then the most bytes), with its replication: ``replicas`` found,
        ``replication_factor`` (the most replicas of any of its partitions) and
        ``replica_bytes`` (bytes on disk over every replica)."""
        topics: dict[Any, SizeRow] = {}
        for keys in self._partition_groups():
            reps = [self._replicas[k] for k in keys]
            topic = keys[0][0]
            best = max(reps, key=lambda r: (_n(r.last_offset), r.bytes))
            row = topics.get(topic)
            if row is None:
                row = topics[topic] = SizeRow("topic", topic, replica_stats={
                    "partitions": 0, "replicas": 0, "replication_factor": 0,
                    "replica_bytes": 0, "replica_disk_bytes": 0})
            row.merge(best)
            st = row.replica_stats
            assert st is not None
            st["partitions"] += 1
            st["replicas"] += len(reps)
            st["replication_factor"] = max(st["replication_factor"], len(reps))
            st["replica_bytes"] += sum(r.bytes for r in reps)
            for r in reps:
                st["replica_disk_bytes"] = _plus(st["replica_disk_bytes"], r.disk_bytes)
        return list(topics.values())

    def _total(self, topic_rows: list[SizeRow] | None) -> SizeRow:
        """The total: over every replica (what is on disk), or under --by topic over
        unique partitions; ``counts`` says which."""
        partitions = len(self._partition_groups())
        log_dirs = len({ld for _, _, ld in self._replicas})
        if topic_rows is None:
            total = self.total
            total.replica_stats = {"counts": "replicas", "partitions": partitions,
                                   "replicas": len(self._replicas), "log_dirs": log_dirs,
                                   "replica_bytes": total.bytes,
                                   "replica_disk_bytes": total.disk_bytes}
            return total
        total = SizeRow("all")
        for r in topic_rows:
            total.merge(r)
        total.replica_stats = {"counts": "partitions", "partitions": partitions,
                               "replicas": len(self._replicas), "log_dirs": log_dirs,
                               "replica_bytes": self.total.bytes,
                               "replica_disk_bytes": self.total.disk_bytes}
        return total

    def rows(self) -> list[SizeRow]:
        """The rows (sorted by name, or the ``top`` largest first), then the total."""
        topic_rows = self._topic_rows() if self.opts.by == "topic" else None
        rows = topic_rows if topic_rows is not None else list(self._rows.values())
        if self.opts.by == "segment":
            # files that belong to no segment (leader-epoch-checkpoint, partition.metadata,
            # a snapshot at the log end ...) are not segments: one row per partition,
            # segment null
            others: dict[tuple[Any, ...], SizeRow] = {}
            kept = []
            for r in rows:
                if r.segments:
                    kept.append(r)
                    continue
                o = others.get((r.topic, r.partition, r.log_dir))
                if o is None:
                    o = others[(r.topic, r.partition, r.log_dir)] = SizeRow(
                        "segment", r.topic, r.partition, log_dir=r.log_dir,
                        broker_id=r.broker_id)
                o.merge(r)
            rows = kept + list(others.values())
        ordered = sorted(rows, key=lambda r: r.key)
        if self.opts.top is not None:
            ordered = sorted(ordered, key=lambda r: (-r.bytes, r.key))[: self.opts.top]
        return [*ordered, self._total(topic_rows)]


def _segment_name(f: KafkaFile) -> str:
    """Files of one segment share a row: the name without its suffix."""
    name = os.path.basename(f.path)
    if f.base_offset is not None and f.kind in _SIZE_FIELDS:
        return f"{f.base_offset:0{L.OFFSET_DIGITS}d}"
    return name


def _level_key(row: SizeRow, by: str) -> tuple[Any, ...]:
    if by == "topic":
        return (row.topic,)
    if by == "partition":
        return (row.topic, row.partition, row.log_dir)
    return (row.topic, row.partition, row.log_dir, row.segment)


def _n(x: int | None) -> int:
    return -1 if x is None else x


def _account(f: KafkaFile, row: SizeRow, opts: SizeOptions, stop: int | None = None
             ) -> Generator[Problem, None, bool]:
    """A file's size and, for a log, its batches (up to ``stop``: see :func:`_read_log`)."""
    try:
        size, allocated = kfs.getsizes(f.path)
    except OSError as e:
        yield Problem(f.path, None, "unreadable-file", (e.strerror or str(e)).lower())
        return True
    row.bytes += size
    row.disk_bytes = _plus(row.disk_bytes, allocated)
    name = _SIZE_FIELDS.get(f.kind)
    if name is None or f.leftover is not None:
        row.other_bytes += size
        if f.kind != "log" or f.leftover is not None:
            return True
    else:
        setattr(row, name, getattr(row, name) + size)
    if f.kind != "log":
        return True
    row.segments += 1
    return (yield from _read_log(f, row, opts, 0, stop))


def _read_log(f: KafkaFile, row: SizeRow, opts: SizeOptions, start: int, stop: int | None
              ) -> Generator[Problem, None, bool]:
    """Account the batches of a log from ``start``: to its end, or (``stop`` given) those
    starting before ``stop``.  Returns whether the reading ended in step: at the end, or
    at an intact batch starting exactly at ``stop``."""
    row.find_gaps = finds_gaps(f, opts.policies, opts.compacted)
    row.gap_base = f.base_offset - 1 if start == 0 and f.base_offset is not None else None
    with FileSource(f.path) as src:
        reader = LogReader(src, start=start, active=f.active, max_batch_bytes=opts.max_batch_bytes,
                           chunk=window_for(start, stop))
        in_step = stop is None
        # runs of intact v2 batches accounted natively (kdump.ops.size_report.size_run)
        install(reader, row, opts.max_batch_bytes, stop,
                add_run if opts.deep else add_shallow_run, opts.deep, row.find_gaps)
        try:
            in_step = yield from _read_items(reader, row, opts, stop, f)
        finally:
            reader.close()
        row.unreadable_bytes += reader.unreadable_bytes
    return in_step


def _read_items(reader: LogReader, row: SizeRow, opts: SizeOptions, stop: int | None,
                f: KafkaFile | None = None) -> Generator[Problem, None, bool]:
    """The items of ``reader`` accounted into ``row`` (see :func:`_read_log`)."""
    in_step = stop is None
    whole = reader.start == 0 and stop is None
    nothing = NoBatch(reader.path)
    batches = row.batches
    for item in reader:
        if stop is not None and item.position is not None and item.position >= stop:
            in_step = item.position == stop and not isinstance(item, Problem)
            break
        if isinstance(item, Problem):
            if f is not None and f.kind == "log" and item.kind in TAIL_PROBLEMS \
                    and item.path == f.path:
                # the tail as the partition's witnesses judge it (verify-crc's words)
                item = judge_closed_tail(judge_tail(item, f, row.last_offset), f,
                                         row.last_offset)
                row.tails.append((item, f.active))
                nothing.see(item)
                yield item  # the tail as verify-crc says it, in flight included
                continue
            nothing.see(item)
            if item.severity != INFO:
                yield item
            continue
        if isinstance(item, RecordBatch) or not item.is_compressed:
            row.see_first(item.first_offset)
        err = _batch(item, row, opts)
        if opts.deep and not item.crc_valid:
            # not what was written: a problem (exit 1, as verify-crc), its records counted
            # apart (invalid_records), the row's records no longer exact (issue 46)
            row.exact_records = False
            yield crc_problem(item)
        if err is not None:
            # its records were not counted: the totals are a lower bound
            row.exact_records = False
            yield Problem(item.path, item.position,
                          "batch-too-large" if isinstance(err, LimitExceeded)
                          else "unreadable-batch",
                          f"{err.message}; its records are not counted (records_exact "
                          "false)", base_offset=item.base_offset)
    src = reader.source
    if whole and (p := nothing.problem(src.size, row.batches - batches,
                                       lambda: src.pread(0, 8),
                                       _base_of(reader.path))) is not None:
        yield p  # a file named like a segment that holds no batch (issue 39)
    return in_step


def _base_of(path: str) -> int | None:
    stem = os.path.basename(path).partition(".")[0]
    return int(stem) if stem.isdigit() else None


def add_shallow_run(row: SizeRow, batches: int, totals: tuple[Any, ...]) -> None:
    """:func:`add_run` of a --shallow walk: the sizes of keys and values are unknown."""
    row.sizes_known = False
    add_run(row, batches, totals)


def add_run(row: SizeRow, batches: int, totals: tuple[Any, ...]) -> None:
    """Add what the native walk (kdump.ops.size_report.size_run) accounted of a run of batches, as
    :func:`_batch` adds each of them."""
    (records, control_batches, control_records, txn_batches, txn_bytes, key_bytes,
     value_bytes, header_bytes, unc, overhead, first, last, lo, hi, codecs, claimed) = totals
    row.see_first(first)
    row.batches += batches
    row.records += records
    row.records_claimed += claimed  # the run's batches all have a valid CRC
    row.records_readable += records
    row.control_batches += control_batches
    row.control_records += control_records
    row.transactional_batches += txn_batches
    row.transactional_bytes += txn_bytes
    row.key_bytes += key_bytes
    row.value_bytes += value_bytes
    row.header_bytes += header_bytes
    row.uncompressed_bytes += unc
    row.overhead_bytes += overhead
    row.first_offset = _min(row.first_offset, first)
    row.last_offset = _max(row.last_offset, last)
    row.min_timestamp = _min(row.min_timestamp, lo)
    row.max_timestamp = _max(row.max_timestamp, hi)
    for code, n, stored, unc_bytes in codecs:
        c = row.codecs.setdefault(L.CODEC_NAMES[code], CodecStats())
        c.batches += n
        c.stored_bytes += stored
        c.uncompressed_bytes += unc_bytes


def _batch(b: Batch, row: SizeRow, opts: SizeOptions) -> KdumpError | None:
    """Account one batch; the error that kept its records from being counted, if any.
    Its records are claimed (the header's count; a v0/v1 entry's messages read), and
    readable when its CRC is valid (``--shallow`` checks no CRC, as it counts no invalid
    records: there every record claimed is taken as readable)."""
    before = row.records
    err = _batch_sizes(b, row, opts)
    counted = row.records - before
    claimed = max(b.records_count, 0) if isinstance(b, RecordBatch) else counted
    row.records_claimed += claimed
    if err is None and (not opts.deep or b.crc_valid):
        row.records_readable += min(counted, claimed) if isinstance(b, RecordBatch) else counted
    return err


def _batch_sizes(b: Batch, row: SizeRow, opts: SizeOptions) -> KdumpError | None:
    row.batches += 1
    first = b.first_offset
    row.first_offset = _min(row.first_offset, first)
    row.last_offset = _max(row.last_offset, b.last_offset)
    codec = row.codecs.setdefault(b.compression_name, CodecStats())
    codec.batches += 1
    codec.stored_bytes += b.size
    if isinstance(b, RecordBatch):
        if b.producer_id >= 0:
            row.producer_ids.add(b.producer_id)
        if b.is_transactional:
            row.transactional_batches += 1
            row.transactional_bytes += b.size
        if b.is_control:
            row.control_batches += 1
        ts_lo = ts_hi = b.max_timestamp
        if not opts.deep:
            row.sizes_known = False
            row.records += max(b.records_count, 0)
            if b.is_control:
                row.control_records += max(b.records_count, 0)
            if b.compression == L.CODEC_NONE:
                codec.uncompressed_bytes += b.size
                row.uncompressed_bytes += b.size
            if b.base_timestamp >= 0 and not b.has_delete_horizon:
                ts_lo = min(ts_lo, b.base_timestamp)
        elif not b.crc_valid:  # its records are not what was written: counted apart
            row.invalid_records += max(b.records_count, 0)
            return None
        else:
            try:
                buf, start, end = b.payload(opts.max_batch_bytes)
            except KdumpError as e:
                row.unreadable_bytes += b.size
                return e
            s = scan_v2_records(buf, start, end, max(b.records_count, 0))
            row.records += s.records
            if b.is_control:
                row.control_records += s.records
            row.key_bytes += s.key_bytes
            row.value_bytes += s.value_bytes
            row.header_bytes += s.header_bytes
            unc = L.RECORD_BATCH_OVERHEAD + (end - start)
            codec.uncompressed_bytes += unc
            row.uncompressed_bytes += unc
            row.overhead_bytes += unc - s.key_bytes - s.value_bytes - s.header_bytes
            if s.records and b.timestamp_type == L.CREATE_TIME:
                ts_lo = b.base_timestamp + s.min_ts_delta
                ts_hi = max(b.max_timestamp, b.base_timestamp + s.max_ts_delta)
        if b.records_count > 0 or opts.deep:
            if ts_lo >= 0:
                row.min_timestamp = _min(row.min_timestamp, ts_lo)
            if ts_hi >= 0:
                row.max_timestamp = _max(row.max_timestamp, ts_hi)
        return None
    # legacy entry
    if b.max_timestamp >= 0:  # a v0/v1 entry's one timestamp
        row.min_timestamp = _min(row.min_timestamp, b.max_timestamp)
        row.max_timestamp = _max(row.max_timestamp, b.max_timestamp)
    if opts.deep and not b.crc_valid:  # a v0/v1 entry whose CRC-32 fails: apart
        row.invalid_records += 1
        return None
    if not b.is_compressed:
        row.records += 1
        codec.uncompressed_bytes += b.size
        row.uncompressed_bytes += b.size
        try:
            rec = next(iter(b.records()))
            k, v = max(rec.key_size, 0), max(rec.value_size, 0)
        except (KdumpError, StopIteration):
            k = v = 0
        row.key_bytes += k
        row.value_bytes += v
        row.overhead_bytes += b.size - k - v
        return None
    if not opts.deep:
        row.records += 1
        row.exact_records = False
        row.sizes_known = False
        return None
    unc = L.LOG_OVERHEAD + (L.RECORD_OVERHEAD_V1 if b.magic >= 1 else L.RECORD_OVERHEAD_V0)
    k = v = n = 0
    error = None
    try:
        for rec in b.records(opts.max_batch_bytes):
            n += 1
            unc += rec.size
            k += max(rec.key_size, 0)
            v += max(rec.value_size, 0)
            if rec.timestamp >= 0:
                row.min_timestamp = _min(row.min_timestamp, rec.timestamp)
    except KdumpError as e:
        row.unreadable_bytes += b.size
        error = e
    row.records += n
    row.key_bytes += k
    row.value_bytes += v
    codec.uncompressed_bytes += unc
    row.uncompressed_bytes += unc
    row.overhead_bytes += unc - k - v
    return error
