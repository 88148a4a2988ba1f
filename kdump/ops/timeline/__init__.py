"""``kdump timeline``: what happened, when, across the whole cluster, from its log dirs.

One time-ordered stream of typed events (:class:`TimelineEvent`), each with its time,
whose clock it is on (or that it is an estimate), the file and byte position it comes
from, what it is about and what changed in words.  Sources, one stream each:

* the KRaft metadata log, through the one metadata replay (:mod:`.metadata`);
* each replica's batch headers and files (:mod:`.replicas`): epoch starts, segment
  rolls, the log start, producers and transactions, damage, each log dir's last stop;
* the coordinators' partitions, ``__consumer_offsets`` and ``__transaction_state``,
  decoded record by record from one replica each (the one with the highest log end
  offset: the others are copies) (:mod:`.coordinators`).

The streams are merged by time in bounded memory (:mod:`.event`: a reorder heap per
stream, then ``heapq.merge``; an event out of order past the heap is marked ``late``),
annotated where events explain each other (:mod:`.correlate`), then filtered.  A log
dir with no metadata log (ZooKeeper era) gives what its files hold and one event saying
that no metadata log is there.

``partition_events`` is the public entry for one partition's timeline (for ``kdump
browse``'s key).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ... import fs as kfs
from ...decoders import Releases
from ...errors import KdumpError
from ...findings import INFO, Problem
from ...model import shape
from ...records.v2 import DEFAULT_MAX_BATCH_BYTES
from ..compare_replicas import (
    HeaderWalk,
    LogDir,
    Replica,
    ReplicaSet,
    log_end_offset,
    read_logdir,
)
from ..witnesses import CleanupPolicies
from .coordinators import OFFSETS_TOPIC, TRANSACTION_TOPIC, CoordinatorStream
from .correlate import correlate
from .event import TimelineEvent, coalesce, iso, merge
from .replicas import (
    LogDirEnd,
    PartitionReplicas,
    ReplicaStream,
    WitnessContext,
    clean_shutdown_event,
)
from .summary import MinuteCounts

if TYPE_CHECKING:
    from .metadata import MetadataStream

__all__ = [
    "Reader",
    "ReplicaResult",
    "Timeline",
    "TimelineCount",
    "TimelineEnd",
    "TimelineEvent",
    "TimelineOptions",
    "WitnessContext",
    "iso",
    "partition_events",
    "read_coordinator",
    "read_partition",
    "timeline",
]

METADATA_TOPIC = "__cluster_metadata"
#: files a broker writes in its log dirs once it runs (LogManager's checkpoints, and the
#: clean-shutdown marker)
_RAN = (".kafka_cleanshutdown", "recovery-point-offset-checkpoint",
        "replication-offset-checkpoint", "log-start-offset-checkpoint")
#: events a replica's reorder heap holds (its events are sparse: epoch starts, rolls,
#: transactions); a replica with fewer is read whole as the merge starts, its files
#: closed, so thousands of partitions never hold thousands of open files
REPLICA_REORDER = 1000


@dataclass(slots=True)
class TimelineOptions:
    start: int | None = None  # --from (epoch ms, inclusive)
    end: int | None = None  # --to (inclusive)
    topics: tuple[str, ...] = ()
    partitions: tuple[int, ...] = ()
    brokers: tuple[int, ...] = ()
    groups: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    summary: bool = False
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
    kafka_version: str | None = None

    def filters(self) -> bool:
        """Whether any filter is set (else every event is wanted)."""
        return bool(self.start is not None or self.end is not None or self.topics
                    or self.partitions or self.brokers or self.groups or self.kinds)

    def wants(self, ev: TimelineEvent) -> bool:
        if self.start is not None and (ev.time is None or ev.time < self.start):
            return False
        if self.end is not None and (ev.time is None or ev.time > self.end):
            return False
        if self.topics and ev.topic not in self.topics:
            return False
        if self.partitions and ev.partition not in self.partitions:
            return False
        if self.brokers and ev.broker not in self.brokers and \
                not any(b in self.brokers for b in ev.involves):
            return False
        if self.groups and ev.group not in self.groups:
            return False
        return not self.kinds or any(ev.kind == k or ev.kind.startswith(k + "-")
                                     for k in self.kinds)

    def reads(self, topic: str, partition: int, broker: int | None) -> bool:
        """A replica whose events the filters can keep (others are not read)."""
        if self.topics and topic not in self.topics:
            return False
        if self.partitions and partition not in self.partitions:
            return False
        return not (self.brokers and broker not in self.brokers)


@dataclass(slots=True)
class TimelineCount:
    """--summary: events of a kind in one minute."""

    minute: int
    kind: str
    count: int

    def to_json(self) -> dict[str, Any]:
        return shape("timeline_count", {"minute": self.minute, "kind": self.kind,
                                        "count": self.count})


@dataclass(slots=True)
class TimelineEnd:
    events: int = 0
    shown: int = 0
    sources: list[dict[str, Any]] = field(default_factory=list)
    first_time: int | None = None
    last_time: int | None = None
    late: int = 0
    bytes_read: int = 0

    def to_json(self) -> dict[str, Any]:
        return shape("timeline_end", {
            "events": self.events, "shown": self.shown, "sources": self.sources,
            "first_time": self.first_time, "last_time": self.last_time, "late": self.late,
            "bytes_read": self.bytes_read})


def _metadata_copy(copies: list[Replica]) -> Replica:
    """The copy of ``__cluster_metadata-0`` that reaches furthest (every broker and
    controller holds one: one replay is enough)."""
    if len(copies) == 1:
        return copies[0]
    best, best_leo = copies[0], -1
    for r in copies:
        leo, _ = log_end_offset(r.path)
        if leo is not None and leo > best_leo:
            best, best_leo = r, leo
    return best


def _chosen(copies: list[Replica], max_batch_bytes: int) -> Replica:
    if len(copies) == 1:
        return copies[0]
    best, best_leo = copies[0], -1
    for r in copies:
        leo, _ = log_end_offset(r.path, max_batch_bytes)
        if leo is not None and leo > best_leo:
            best, best_leo = r, leo
    return best


def _no_metadata_event(ld: LogDir) -> TimelineEvent:
    who = f"broker {ld.broker_id}" if ld.broker_id is not None else ld.path
    era = " (meta.properties version 0: a ZooKeeper-era log dir)" if ld.meta_version == 0 \
        else ""
    return TimelineEvent(None, "unknown", "no-metadata-log", "logdir", who,
                         f"no KRaft metadata log among the inputs{era}: brokers, leaders, "
                         "ISRs, topics and configs have no history here (ZooKeeper or "
                         "another log dir holds it); replicas, producers and groups are "
                         "read from the files", broker=ld.broker_id, log_dir=ld.path)


@dataclass(slots=True)
class ReplicaResult:
    """One replica's (or coordinator partition's) events, read whole: what ``kdump spark
    timeline``'s executors send back (:func:`read_partition`, :func:`read_coordinator`)."""

    events: list[TimelineEvent]
    problems: list[Problem]
    bytes_read: int
    last_time: int | None = None
    clock: str = "producer"


def read_partition(replicas: list[Replica], max_batch_bytes: int,
                   context: WitnessContext | None = None) -> dict[str, ReplicaResult]:
    """The events of a partition's replicas, by replica path (its truncations with the
    last one's): a partition's whole work, as one Spark task does it."""
    together = PartitionReplicas(len(replicas)) if len(replicas) > 1 else None
    out = {}
    for r in replicas:
        end = LogDirEnd()
        s = ReplicaStream(r, end, max_batch_bytes, together, context)
        events = list(s)
        out[r.path] = ReplicaResult(events, s.problems, s.bytes_read, end.last_time, end.clock)
    return out


def read_coordinator(replica: Replica, max_batch_bytes: int, kafka_version: str | None
                     ) -> ReplicaResult:
    """A coordinator partition's events, read whole (a Spark task's work)."""
    c = CoordinatorStream(replica, Releases(kafka_version), max_batch_bytes)
    events = list(c)
    return ReplicaResult(events, [p for p in c.problems if p.severity != INFO], c.bytes_read)


#: a reader of the replicas and coordinator partitions elsewhere (Spark): given each
#: partition's replicas to read, the coordinator replicas and what judging data lost
#: needs, their results by path
Reader = Callable[[list[list[Replica]], list[Replica], WitnessContext],
                  tuple[dict[str, ReplicaResult], dict[str, ReplicaResult]]]


class Timeline:
    """One run: its streams, then its events (:meth:`events`) and its closing object."""

    def __init__(self, paths: Iterable[str], opts: TimelineOptions) -> None:
        self.paths = list(paths)
        self.opts = opts
        self.end = TimelineEnd()
        self.problems: list[Problem] = []
        self._replicas: list[ReplicaStream] = []
        self._coordinators: list[CoordinatorStream] = []
        self._results: list[ReplicaResult] = []
        self._metadata: MetadataStream | None = None
        #: each log dir's copy of the metadata log (its last batch dates the log dir's
        #: last stop too)
        self._metadata_logs: dict[str, Replica] = {}

    def streams(self, reader: Reader | None = None) -> list[Iterable[TimelineEvent]]:
        """Every source's stream; with ``reader``, the replicas and coordinator
        partitions are read by it (whole, elsewhere) and their events streamed from
        what it gives back."""
        opts = self.opts
        rs = ReplicaSet(self.paths)
        self.problems.extend(rs.problems)
        streams: list[Iterable[TimelineEvent]] = []
        meta_copies = rs.replicas.get((METADATA_TOPIC, 0), [])
        self._metadata_logs = {r.log_dir: r for r in meta_copies}
        if meta_copies:
            # the replay's modules are imported only when there is a metadata log to
            # replay (a log dir without one starts sooner: bench/README.md)
            from ...metadata.replay import find_sources
            from .metadata import MetadataStream

            m = _metadata_copy(meta_copies)
            try:
                sources = find_sources(m.path)
            except KdumpError as e:
                self.problems.append(Problem(e.path or m.path, e.position, "metadata-record",
                                             e.message))
            else:
                self._metadata = MetadataStream(sources, opts.max_batch_bytes, {
                    k for k in rs.replicas if k[0] != METADATA_TOPIC})
                streams.append(self._metadata)
                self.end.sources.append({"source": "metadata", "path": m.path,
                                         "broker": m.broker_id})
        idle = self._idle_logdirs(rs)
        if not meta_copies:
            every = {d.path: d for d in [*rs.all_logdirs(), *idle]}
            streams.extend([_no_metadata_event(ld)] for ld in sorted(
                every.values(), key=lambda d: (d.broker_id or -1, d.path)))
        jobs: list[list[Replica]] = []
        coordinators: list[Replica] = []
        for (topic, partition), copies in sorted(rs.replicas.items()):
            if topic == METADATA_TOPIC:
                continue
            if topic in (OFFSETS_TOPIC, TRANSACTION_TOPIC) and not (
                    opts.brokers and not any(r.broker_id in opts.brokers for r in copies)):
                coordinators.append(_chosen(copies, opts.max_batch_bytes))
            read = [r for r in copies if opts.reads(topic, partition, r.broker_id)]
            if read:
                jobs.extend(_apart(read, rs))
        for c in coordinators:
            self.end.sources.append({"source": "coordinator", "path": c.path,
                                     "broker": c.broker_id})
        if reader is None:
            streams.extend(self._local(jobs, coordinators))
        else:
            streams.extend(self._read(reader, jobs, coordinators))
        for ld in sorted({r.log_dir for job in jobs for r in job},
                         key=lambda d: (rs.logdirs[d].broker_id or -1, d)):
            self.end.sources.append({"source": "log_dir", "path": ld,
                                     "broker": rs.logdirs[ld].broker_id})
        for logdir in idle:
            if not (opts.brokers and logdir.broker_id not in opts.brokers):
                streams.append(_shutdown(logdir, self._end_of(logdir)))
                self.end.sources.append({"source": "log_dir", "path": logdir.path,
                                         "broker": logdir.broker_id})
        return streams

    def _idle_logdirs(self, rs: ReplicaSet) -> list[LogDir]:
        """The log dirs among the inputs that hold no data partition but show a node ran
        on them (a metadata log, a checkpoint a broker writes, or its clean-shutdown
        marker; a log dir only formatted, meta.properties and bootstrap.checkpoint, never
        ran): a ZooKeeper-era one still says it has no metadata log, and each its last
        stop."""
        data = {r.log_dir for (topic, _), copies in rs.replicas.items()
                if topic != METADATA_TOPIC for r in copies}
        # a KRaft node's log dir with its metadata log alone (a controller's, or a broker's
        # holding no partition yet) ran: the metadata log's last batch dates its stop
        out = [ld for path, ld in rs.logdirs.items() if path not in data]
        for path in dict.fromkeys(rs.meta_dirs):
            if path in rs.logdirs or not any(
                    kfs.isfile(os.path.join(path, name)) for name in _RAN):
                continue
            ld = read_logdir(path)
            self.problems.extend(ld.problems)
            out.append(ld)
        return sorted(out, key=lambda d: (d.broker_id or -1, d.path))

    def _by_dir(self, jobs: list[list[Replica]]) -> list[tuple[LogDir, list[Replica]]]:
        by_dir: dict[str, list[Replica]] = {}
        logdirs: dict[str, LogDir] = {}
        for job in jobs:
            for r in job:
                by_dir.setdefault(r.log_dir, []).append(r)
                logdirs[r.log_dir] = r.logdir
        order = sorted(by_dir, key=lambda d: (logdirs[d].broker_id or -1, d))
        return [(logdirs[d], by_dir[d]) for d in order]

    def _local(self, jobs: list[list[Replica]], coordinators: list[Replica]
               ) -> list[Iterable[TimelineEvent]]:
        """Streams reading the files as the merge asks (one open segment a replica)."""
        opts = self.opts
        releases = Releases(opts.kafka_version)
        streams: list[Iterable[TimelineEvent]] = []
        for r in coordinators:
            c = CoordinatorStream(r, releases, opts.max_batch_bytes)
            self._coordinators.append(c)
            streams.append(c)
        context = self._witness_context(jobs)
        together: dict[str, PartitionReplicas | None] = {}
        for job in jobs:
            shared = PartitionReplicas(len(job)) if len(job) > 1 else None
            together.update((r.path, shared) for r in job)
        for logdir, replicas in self._by_dir(jobs):
            end = self._end_of(logdir)
            reps = [ReplicaStream(r, end, opts.max_batch_bytes, together[r.path], context)
                    for r in replicas]
            self._replicas.extend(reps)
            streams.append(itertools.chain(merge(list(reps), REPLICA_REORDER),
                                           _shutdown(logdir, end)))
        return streams

    def _end_of(self, logdir: LogDir) -> LogDirEnd:
        """What dates the log dir's last stop, its metadata log's last batch first: a
        KRaft node writes its copy of ``__cluster_metadata`` until it stops (a real
        cluster's controllers fenced its brokers 13 minutes after their data logs'
        last batches, then stopped).  Only that copy's last segment's headers are read
        (the replay reads one copy, perhaps another log dir's)."""
        end = LogDirEnd()
        m = self._metadata_logs.get(logdir.path)
        if m is not None:
            try:
                walk = HeaderWalk(m.path, max_batch_bytes=self.opts.max_batch_bytes,
                                  from_segment=1, runs=True)
                for item in walk:  # heads and runs of them (in C), each its maxTimestamp
                    if not isinstance(item, Problem):
                        end.saw(item.max_timestamp, "controller")
            except KdumpError:
                pass  # the replay (or verify-crc) says what is wrong with it
        return end

    def _witness_context(self, jobs: list[list[Replica]]) -> WitnessContext:
        """The topics' cleanup policies (the KRaft metadata among the inputs, read when
        a partition first needs them: a replay of its own) and the log dirs given, for
        the data-lost judgement."""
        return WitnessContext(None, sorted({r.log_dir for job in jobs for r in job}),
                              load=self._policies)

    def _policies(self) -> CleanupPolicies | None:
        try:
            return CleanupPolicies.for_inputs(self.paths, (), self.opts.max_batch_bytes)
        except KdumpError:
            return None

    def _read(self, reader: Reader, jobs: list[list[Replica]], coordinators: list[Replica]
              ) -> list[Iterable[TimelineEvent]]:
        """Streams of what ``reader`` read."""
        replicas, coords = reader(jobs, coordinators, self._witness_context(jobs))
        streams: list[Iterable[TimelineEvent]] = []
        for r in coordinators:
            res = coords[r.path]
            self._results.append(res)
            streams.append(res.events)
        for logdir, reps in self._by_dir(jobs):
            end = self._end_of(logdir)
            for r in reps:
                res = replicas[r.path]
                self._results.append(res)
                if res.last_time is not None:
                    end.saw(res.last_time, res.clock)
            streams.append(itertools.chain(
                merge([replicas[r.path].events for r in reps], REPLICA_REORDER),
                _shutdown(logdir, end)))
        return streams

    def annotated(self, streams: list[Iterable[TimelineEvent]]) -> Iterator[TimelineEvent]:
        """The events in time order, annotated, not counted (the caller counts
        ``end.events`` and ``end.late``, as :meth:`events` does)."""
        return correlate(coalesce(merge(streams)), self._metadata)

    def events(self, streams: list[Iterable[TimelineEvent]]) -> Iterator[TimelineEvent]:
        for ev in self.annotated(streams):
            self.end.events += 1
            if ev.late:
                self.end.late += 1
            yield ev

    def finish(self) -> list[Problem]:
        """The sources' problems, once their streams have ended."""
        out: list[Problem] = []
        if self._metadata is not None:
            out.extend(self._metadata.problems)
        for s in self._replicas:
            out.extend(s.problems)
            self.end.bytes_read += s.bytes_read
        for c in self._coordinators:
            out.extend(p for p in c.problems if p.severity != INFO)
            self.end.bytes_read += c.bytes_read
        for res in self._results:
            out.extend(res.problems)
            self.end.bytes_read += res.bytes_read
        return out


def _apart(copies: list[Replica], rs: ReplicaSet) -> list[list[Replica]]:
    """A partition's copies as read together: a copy in a log dir that is one node
    twice with another's (ReplicaSet.apart, its node-twice warning) stands alone, never
    judged against its twin nor, which of the two is the node's current copy being
    unknown, against the others (compare-replicas' rule): two runs of one node are not
    a leader and its follower, and their difference no truncation."""
    if not rs.twins:
        return [copies]
    twins = [r for r in copies if any(rs.apart(r.log_dir, o.log_dir) for o in copies)]
    rest = [r for r in copies if r not in twins]
    return ([rest] if rest else []) + [[r] for r in twins]


def _shutdown(logdir: LogDir, end: LogDirEnd) -> Iterator[TimelineEvent]:
    """The log dir's last stop, once its replicas have been read (their last batch
    dates it)."""
    yield clean_shutdown_event(logdir.path, logdir.broker_id, end)


def timeline(paths: Iterable[str], opts: TimelineOptions | None = None, *,
             reader: Reader | None = None
             ) -> Iterator[TimelineEvent | TimelineCount | TimelineEnd | Problem]:
    """The run: events (or, with ``summary``, counts per kind per minute) in time order,
    each finding's Problem right after its event (the exit code counts it, filtered or
    not), the problems of the sources, and a closing :class:`TimelineEnd`.  ``reader``:
    the replicas are read by it (``kdump spark timeline``), else here as streams."""
    opts = opts or TimelineOptions()
    run = Timeline(paths, opts)
    streams = run.streams(reader)
    yield from run.problems
    counts = MinuteCounts() if opts.summary else None
    end = run.end
    wants = opts.wants if opts.filters() else None
    # counted in locals, set on ``end`` once the events have ended (a busy metadata log
    # gives millions)
    n_events = late = shown = 0
    first: int | None = None
    last: int | None = None
    for ev in run.annotated(streams):
        n_events += 1
        if ev.late:
            late += 1
        if wants is None or wants(ev):
            shown += 1
            t = ev.time
            if t is not None:
                if first is None or t < first:
                    first = t
                if last is None or t > last:
                    last = t
            if counts is not None:
                counts.add(-1 if t is None else t - t % 60_000, ev.kind)
            else:
                yield ev
        if ev.problem is not None:
            yield ev.problem
    end.events += n_events
    end.late += late
    end.shown += shown
    end.first_time, end.last_time = first, last
    if counts is not None:
        # written at the end: a late event can still add to any minute (summary.py)
        for minute, kind, n in counts:
            yield TimelineCount(minute, kind, n)
    yield from run.finish()
    yield run.end


def partition_events(paths: Iterable[str], topic: str, partition: int, *,
                     max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> Iterator[TimelineEvent]:
    """One partition's timeline (its replicas under ``paths``, and the metadata log's
    events about it), events only: what ``kdump browse`` shows for a partition."""
    opts = TimelineOptions(topics=(topic,), partitions=(partition,),
                           max_batch_bytes=max_batch_bytes)
    for item in timeline(paths, opts):
        if isinstance(item, TimelineEvent):
            yield item

