"""A replica's own events, read from its batch headers only (61 bytes a batch, no record
decoding; a control batch, ~80 bytes, is read whole for its marker; the batches between
two that change something said here are one run of the header walk, walked in C:
kdump.ops.compare_replicas.header_run), plus its files:

* ``leader-epoch-checkpoint``: an epoch's start is dated by the first batch at or after
  its start offset whose partitionLeaderEpoch is the epoch (LeaderEpochFileCache.assign,
  storage/.../epoch/LeaderEpochFileCache.java, 3.9-4.3: an epoch starts where the leader
  appended its first batch); an epoch in the batches the checkpoint lacks is said too;
* segment rolls: a segment's name is its base offset; it was rolled at about its first
  batch's time (an estimate, the previous segment's last batch bounds it from below);
* the log start: ``log-start-offset-checkpoint`` holds only the current one, and a move
  has no time of its own: it is placed at the first batch kept (an estimate);
* producers from the headers: an epoch going up (a new session of a transactional id,
  or a fencing), a transaction's first batch, its COMMIT or ABORT marker with the
  coordinator epoch (the leader writes the marker with its own clock:
  KafkaApis.handleWriteTxnMarkersRequest -> MemoryRecords.withEndTransactionMarker,
  System.currentTimeMillis(), 4.0), and transactions still open at the log's end;
* damage the header walk finds (a finding), placed after the last good batch before it;
* each log dir's ``.kafka_cleanshutdown`` (the last stop was clean) or its absence,
  placed at the log dir's last batch (an estimate).

A batch's time is its maxTimestamp: the producer's clock under CreateTime, the leader's
under LogAppendTime (attribute bit 3; FORMATS.md §4.3).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ... import fs as kfs
from ... import layouts as L
from ...errors import KdumpError
from ...files.text import read_json
from ...findings import INFO, Problem
from ...records.control import parse_control
from ...records.file_records import make_batch
from ...records.v2 import RecordBatch
from ...source import FileSource
from ..compare_replicas import (
    NO_LIMIT,
    EpochCache,
    Head,
    HeaderWalk,
    Replica,
    Run,
    follower_truncation,
    read_epoch_checkpoint,
)
from ..verdict import (
    Cleanup,
    CleanupPolicies,
    cleanup_of,
    lost_problem,
    partition_witnesses,
    take_cleanup,
)
from .event import TimelineEvent, duration, iso, pending_epoch_text


def batch_clock(attributes: int, internal: bool = False) -> str:
    """Whose clock a batch's maxTimestamp is on: the leader's under LogAppendTime, else
    its producer's (for an internal topic's batch, the coordinator that wrote it)."""
    if attributes & L.V2_TIMESTAMP_TYPE_MASK:
        return "broker"
    return "coordinator" if internal else "producer"


class LogDirEnd:
    """What a log dir's replicas saw last: its shutdown event's time."""

    def __init__(self) -> None:
        self.last_time: int | None = None
        self.clock = "producer"

    def saw(self, t: int, clock: str) -> None:
        if t >= 0 and (self.last_time is None or t > self.last_time):
            self.last_time = t
            self.clock = clock


class _Markers:
    """Reads control batches whole, keeping the last file open."""

    def __init__(self) -> None:
        self.src: FileSource | None = None
        self.bytes_read = 0

    def read(self, h: Head) -> Any:
        try:
            if self.src is None or self.src.path != h.path:
                self.close()
                self.src = FileSource(h.path)
            data = self.src.pread(h.position, h.size)
        except KdumpError:
            return None
        self.bytes_read += len(data)
        if len(data) < h.size:
            return None
        b = make_batch(h.path, h.position, data, 0)
        if not isinstance(b, RecordBatch):
            return None
        try:
            for rec in b.records(1 << 20):
                return parse_control(rec)
        except KdumpError:
            return None
        return None

    def close(self) -> None:
        if self.src is not None:
            self.src.close()
            self.src = None


@dataclass(slots=True)
class ReplicaEnd:
    """What a replica's walk found at its end: its leader epochs (the checkpoint's, else
    the batches'), its log end offset and the time of its last batch."""

    stream: ReplicaStream
    epochs: list[tuple[int, int]]
    leo: int
    last_time: int | None
    clock: str


class PartitionReplicas:
    """A partition's replicas, gathered as each one's walk ends; when the last one ends,
    the truncations Kafka would make of followers whose log diverged from the leader's
    (compare-replicas' rules: kdump.ops.compare_replicas.epochs.follower_truncation,
    AbstractFetcherThread's OffsetsForLeaderEpoch exchange) are events of that walk.

    The leader is taken to be the replica with the latest leader epoch (then the longest
    log): the files do not say which replica leads."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.ends: list[ReplicaEnd] = []

    def done(self, end: ReplicaEnd) -> Iterator[TimelineEvent]:
        self.ends.append(end)
        if len(self.ends) < self.count or len(self.ends) < 2:
            return
        caches = [(e, EpochCache(e.epochs)) for e in self.ends if e.epochs]
        if len(caches) < 2:
            return
        lead, lcache = max(caches, key=lambda c: (c[1].latest_epoch() or -1, c[0].leo))
        lr = lead.stream.replica
        for e, cache in caches:
            if e is lead:
                continue
            r = e.stream.replica
            t = follower_truncation(lcache, lead.leo, cache, e.leo, r.high_watermark)
            if t.offset is None or t.offset >= e.leo:
                continue
            ahead = next(((ep, s) for ep, s in lcache.entries if s >= t.offset), None)
            keys = () if ahead is None else (("epoch", r.topic, r.partition, ahead[0]),)
            why = "" if ahead is None else f" (epoch {ahead[0]} starts at offset {ahead[1]:,} there)"
            when = max((x for x in (e.last_time, lead.last_time) if x is not None),
                       default=None)
            yield e.stream.ev(when, e.clock, "truncation",
                              f"offsets {t.offset:,} to {e.leo - 1:,} {e.stream.on} are not "
                              f"on broker {lr.broker_id}'s replica{why}: following it, this "
                              f"replica truncates to offset {t.offset:,} ({t.reason})",
                              estimate=True, offset=t.offset, keys=keys)


class HeldRanges:
    """The offsets a replica's batches hold, as ranges merged as they come, each with
    the times of its first and last batch (the data-lost events are placed by them)."""

    def __init__(self) -> None:
        #: [first offset, last offset, first batch's time, last batch's time]
        self.spans: list[list[int]] = []

    def add(self, first: int, last: int, t: int) -> None:
        s = self.spans
        if s and first <= s[-1][1] + 1:
            s[-1][1] = max(s[-1][1], last)
            s[-1][3] = t if t >= 0 else s[-1][3]
        else:
            s.append([first, last, t, t])

    def ranges(self) -> list[tuple[int, int]]:
        return [(a, b) for a, b, _, _ in self.spans]

    def around(self, first: int, last: int) -> tuple[int | None, int | None]:
        """The time of the last batch below ``first`` and of the first one above
        ``last`` (None: there is none, or it has no time)."""
        after = before = None
        for a, b, t0, t1 in self.spans:
            if b < first and t1 >= 0:
                after = t1
            if a > last and before is None and t0 >= 0:
                before = t0
        return after, before


@dataclass(slots=True)
class WitnessContext:
    """What judging data lost needs beyond a replica: the topics' cleanup policies and
    the other log dirs given (replica witnesses)."""

    policies: CleanupPolicies | None
    log_dirs: list[str]
    #: partition directory -> compacted, judged already (what a Spark task is given)
    judged: dict[str, bool] | None = None
    #: what gives ``policies`` when first asked (a replay of the metadata log: only a
    #: partition with offsets to judge asks)
    load: Callable[[], CleanupPolicies | None] | None = None

    def compacted(self, partition_dir: str, topic: str, partition: int) -> bool:
        return self.cleanup(partition_dir, topic, partition).compacted

    def cleanup(self, partition_dir: str, topic: str, partition: int) -> Cleanup:
        """:func:`cleanup_of` under these policies (a Spark task's: compacted or not, as
        the driver judged it)."""
        if self.judged is not None and partition_dir in self.judged:
            return Cleanup(self.judged[partition_dir], "judged by the Spark driver", True)
        if self.load is not None:
            self.policies, self.load = self.load(), None
        return cleanup_of(partition_dir, topic, partition, self.policies)


class ReplicaStream:
    """One replica's events (see the module docstring), in the order its bytes are read."""

    def __init__(self, replica: Replica, end: LogDirEnd, max_batch_bytes: int,
                 partition: PartitionReplicas | None = None,
                 witnesses: WitnessContext | None = None) -> None:
        self.replica = replica
        self.witnesses = witnesses
        self.end = end
        self.partition = partition
        self.max_batch_bytes = max_batch_bytes
        self.bytes_read = 0
        self.problems: list[Problem] = []
        #: Kafka's own topics (__consumer_offsets, ...): their coordinators write them
        self.internal = replica.topic.startswith("__")

    def ev(self, time: int | None, clock: str, kind: str, text: str, *,
           h: Head | None = None, **kw: Any) -> TimelineEvent:
        """An event of this replica (``h``: the batch it is read from)."""
        r = self.replica
        if h is not None:
            kw.setdefault("file", h.path)
            kw.setdefault("position", h.position)
            kw.setdefault("offset", h.base)
        kw.setdefault("source", "replica")
        return TimelineEvent(time, clock, kind, kw.pop("source"), f"{r.topic}/{r.partition}",
                             text, broker=r.broker_id, log_dir=r.log_dir, topic=r.topic,
                             partition=r.partition, where=self.on, **kw)

    @property
    def clock0(self) -> str:
        return "coordinator" if self.internal else "producer"

    @property
    def on(self) -> str:
        r = self.replica
        return f"on broker {r.broker_id}" if r.broker_id is not None else f"in {r.log_dir}"

    def __iter__(self) -> Iterator[TimelineEvent]:
        r = self.replica
        on = self.on
        epochs, problem = read_epoch_checkpoint(r.path)
        if problem is not None:
            self.problems.append(problem)
        pending = sorted(epochs or [], key=lambda e: (e[1], e[0]))
        in_checkpoint = {e for e, _ in pending}
        seen_epochs: set[int] = set()
        batch_epochs: list[tuple[int, int]] = []  # (epoch, first offset) from the batches
        held = HeldRanges()
        log_start_ckpt = r.logdir.log_start_offsets.get((r.topic, r.partition))
        producers: dict[int, int] = {}  # producer id -> epoch
        open_txn: dict[int, tuple[int, int, int]] = {}  # pid -> (first offset, time, epoch)
        markers = _Markers()
        walk = HeaderWalk(r.path, max_batch_bytes=self.max_batch_bytes, runs=True)
        self.problems.extend(walk.problems)
        prev: Head | None = None
        last_offset = -1
        prev_time = -1
        seg_path: str | None = None
        try:
            for item in walk.items():
                if isinstance(item, Run):
                    # batches after ``prev`` that change nothing said here (the same
                    # segment, epoch, producer and epoch, clock, transactional flag;
                    # no control batch; contiguous; none reaching a pending epoch)
                    self.end.saw(item.max_timestamp, batch_clock(prev.attributes, self.internal)
                                 if prev is not None else self.clock0)
                    held.add(item.first, item.last, item.last_timestamp)
                    last_offset = item.last
                    if item.last_timestamp >= 0:
                        prev_time = item.last_timestamp
                    continue
                if isinstance(item, Problem):
                    if item.severity == INFO:
                        continue
                    ev = self.ev(prev_time, self.clock0 if prev is None else
                                  batch_clock(prev.attributes, self.internal), "finding",
                                  f"{item.kind}: {item.detail}", estimate=True,
                                  source="finding", file=item.path, position=item.position,
                                  offset=item.base_offset, severity=item.severity)
                    ev.problem = item
                    yield ev
                    continue
                h = item
                t = h.max_timestamp
                clock = batch_clock(h.attributes, self.internal)
                self.end.saw(t, clock)
                if prev is None:
                    yield from self._log_start(h, log_start_ckpt, on)
                elif h.path != seg_path:
                    yield self.ev(t, clock, "segment-roll",
                                   f"segment {os.path.basename(h.path)} rolled {on} at offset "
                                   f"{h.base} (at about its first batch's time; the previous "
                                   f"segment's last batch: {iso(prev_time if prev_time >= 0 else None)})",
                                   h=h, estimate=True)
                seg_path = h.path
                # epochs: the checkpoint's, dated by the first batch of each
                if h.magic >= 2 and h.epoch >= 0:
                    if not batch_epochs or batch_epochs[-1][0] < h.epoch:
                        batch_epochs.append((h.epoch, h.base))
                    while pending and pending[0][1] <= h.last:
                        e, start = pending[0]
                        if h.epoch < e:
                            break
                        pending.pop(0)
                        seen_epochs.add(e)
                        if h.epoch == e:
                            yield self.ev(t, clock, "epoch-start",
                                           f"epoch {e} starts at offset {start:,} {on}",
                                           h=h, keys=(("epoch", r.topic, r.partition, e),))
                        else:
                            yield self.ev(t, clock, "epoch-start",
                                           f"epoch {e} starts at offset {start:,} {on} "
                                           f"(leader-epoch-checkpoint); no batch of it: the "
                                           f"next batch is epoch {h.epoch}'s", h=h,
                                           estimate=True,
                                           keys=(("epoch", r.topic, r.partition, e),))
                    if h.epoch not in seen_epochs and h.epoch not in in_checkpoint:
                        seen_epochs.add(h.epoch)
                        yield self.ev(t, clock, "epoch-start",
                                       f"epoch {h.epoch} first seen at offset {h.base:,} {on} "
                                       "(batches; not in leader-epoch-checkpoint)", h=h,
                                       keys=(("epoch", r.topic, r.partition, h.epoch),))
                    yield from self._producer(h, t, clock, producers, open_txn, markers)
                held.add(h.base, h.last, t)
                prev, prev_time = h, (t if t >= 0 else prev_time)
                last_offset = h.last
                # a run after this head stops where a pending epoch would start
                walk.until = pending[0][1] if (pending and h.magic >= 2 and h.epoch >= 0
                                               and pending[0][0] <= h.epoch) else NO_LIMIT
        finally:
            markers.close()
            self.bytes_read += walk.bytes_read + markers.bytes_read
        end_time = prev_time if prev_time >= 0 else None
        last_clock = self.clock0 if prev is None else batch_clock(prev.attributes, self.internal)
        # an empty replica's epochs have no time at all: not events of a timeline.  An
        # epoch starting past every batch began after the last one: its time here is a
        # lower bound (the leader assigns it at its log end offset as it becomes leader:
        # Partition.makeLeader -> maybeAssignEpochStartOffset 3.9, assignEpochStartOffset
        # 4.0-4.3); the leader change in the metadata log
        # dates it where there is one (correlate: offset, the start; no position)
        for e, start in pending if prev is not None else ():
            yield self.ev(end_time, last_clock, "epoch-start",
                          pending_epoch_text(e, start, on, end_time), estimate=True,
                          file=os.path.join(r.path, "leader-epoch-checkpoint"), offset=start,
                          keys=(("epoch", r.topic, r.partition, e),))
        for pid, (first, since, epoch) in sorted(open_txn.items()):
            held_for = f", {duration(end_time - since)} before the log's last batch" \
                if end_time is not None and since >= 0 else ""
            yield self.ev(end_time, last_clock, "txn-open",
                           f"transaction of producer {pid} epoch {epoch} still open at the "
                           f"log's end {on}: begun at offset {first:,} "
                           f"({iso(since if since >= 0 else None)}){held_for}; it holds the last "
                           "stable offset back", estimate=True, offset=first, producer_id=pid,
                           source="producer", keys=(("producer", pid),))
        yield from self._lost(held, last_clock)
        if self.partition is not None:
            derived = batch_epochs if not epochs else list(epochs)
            yield from self.partition.done(ReplicaEnd(
                self, derived, (last_offset + 1) if prev is not None else 0, end_time, last_clock))

    def _lost(self, held: HeldRanges, clock: str) -> Iterator[TimelineEvent]:
        """``data-lost``: offsets the partition's witnesses prove written that no batch
        holds (kdump.ops.witnesses, verify-crc's judgement), placed between the batches
        around them (an estimate); a gap the cleaner or a replica behind explains is no
        event."""
        r = self.replica
        if self.witnesses is None:
            return
        try:
            pw = partition_witnesses(r.path, replicas=self.witnesses.log_dirs)
        except (KdumpError, OSError):
            return
        if pw is None:
            return
        # judged as not compacted first: no range then, none either way (compaction, now
        # or before the policy changed, only explains ranges witnesses prove); else the
        # topic's policy is asked for
        ranges = pw.lost_ranges(held.ranges())
        if ranges:
            cleanup = self.witnesses.cleanup(r.path, r.topic, r.partition)
            if cleanup.compacted or cleanup.history is not None:
                take_cleanup(pw, cleanup)
                ranges = pw.lost_ranges(held.ranges())
        for lost in ranges:
            if lost.explained is not None:
                continue
            p = lost_problem(pw, lost)
            after, before = held.around(lost.first, lost.last)
            between = f" (after {iso(after)}" + (f", before {iso(before)})" if before is not
                                                 None else ": the log's tail)")
            ev = self.ev(after, clock, "data-lost",
                         f"{lost.offsets_text} ({lost.count:,}) lost {self.on}: written "
                         f"({lost.witnesses_text}), in no batch on disk{between}",
                         source="finding", estimate=True, file=r.path, offset=lost.first,
                         severity=p.severity)
            ev.problem = p
            yield ev

    def _log_start(self, h: Head, ckpt: int | None, on: str) -> Iterator[TimelineEvent]:
        t = h.max_timestamp
        seg_base = int(os.path.basename(h.path).split(".")[0] or 0)
        if ckpt is not None and ckpt > h.base:
            text = (f"log start offset {ckpt:,} {on} (log-start-offset-checkpoint), inside its "
                    f"first segment (base {seg_base:,}): records below it were deleted "
                    "(deleteRecords, retention or the cleaner) after this batch")
        elif seg_base > 0 or h.base > 0:
            text = (f"log starts at offset {h.base:,} {on}: offsets below it were deleted "
                    "(retention, deleteRecords or the cleaner) after this batch")
        else:
            text = f"log starts at offset {h.base:,} {on}"
        yield self.ev(t, batch_clock(h.attributes, self.internal), "log-start", text, h=h, estimate=True)

    def _producer(self, h: Head, t: int, clock: str, producers: dict[int, int],
                  open_txn: dict[int, tuple[int, int, int]], markers: _Markers
                  ) -> Iterator[TimelineEvent]:
        pid, pe = h.producer_id, h.producer_epoch
        if pid < 0:
            return
        was = producers.get(pid)
        producers[pid] = pe if was is None else max(was, pe)
        if was is not None and pe > was:
            yield self.ev(t, clock, "producer-epoch", f"producer {pid} epoch {was} -> {pe} "
                           "(a new session of its transactional id, or a fencing)", h=h,
                           source="producer", producer_id=pid, keys=(("producer", pid),))
        control = bool(h.attributes & L.V2_CONTROL_FLAG)
        if control:
            ctl = markers.read(h)
            if ctl is None or ctl.type_id not in (L.CONTROL_ABORT, L.CONTROL_COMMIT):
                return
            began = open_txn.pop(pid, None)
            word = "committed" if ctl.type_id == L.CONTROL_COMMIT else "aborted"
            span = "" if began is None else f", begun at offset {began[0]:,}"
            yield self.ev(t, "broker", "txn-commit" if word == "committed" else "txn-abort",
                           f"transaction of producer {pid} epoch {pe} {word} (coordinator "
                           f"epoch {ctl.coordinator_epoch}){span}", h=h, source="producer",
                           producer_id=pid, keys=(("producer", pid),))
        elif h.attributes & L.V2_TRANSACTIONAL_FLAG and pid not in open_txn:
            open_txn[pid] = (h.base, t, pe)
            yield self.ev(t, clock, "txn-begin", f"transaction of producer {pid} epoch {pe} "
                           f"begins at offset {h.base:,}", h=h, source="producer",
                           producer_id=pid)


def clean_shutdown_event(log_dir: str, broker: int | None, end: LogDirEnd
                         ) -> TimelineEvent:
    """The log dir's last stop: clean (``.kafka_cleanshutdown``, CleanShutdownFileHandler,
    3.7+ with the broker epoch in it) or not (the broker recovers from the recovery point
    on its next start: LogManager.loadLogs, 3.9-4.3)."""
    marker = os.path.join(log_dir, ".kafka_cleanshutdown")
    who = f"broker {broker}" if broker is not None else log_dir
    try:
        clean = kfs.isfile(marker)
    except OSError:
        clean = False
    if clean:
        epoch = ""
        try:  # {"version": 0, "brokerEpoch": N} (3.7+); empty before
            with FileSource(marker) as src:
                content = read_json(src)
            if isinstance(content, dict) and isinstance(content.get("brokerEpoch"), int):
                epoch = f" with broker epoch {content['brokerEpoch']}"
        except (KdumpError, OSError):
            pass
        return TimelineEvent(end.last_time, end.clock, "clean-shutdown", "logdir", who,
                             f"last stop was clean (.kafka_cleanshutdown{epoch}), after the "
                             "log dir's last batch", estimate=True, file=marker, broker=broker,
                             log_dir=log_dir)
    return TimelineEvent(end.last_time, end.clock, "unclean-shutdown", "logdir", who,
                         "last stop was not clean (no .kafka_cleanshutdown; or the copy was "
                         "taken while it ran): the broker recovers its logs from the recovery "
                         "point on its next start", estimate=True, broker=broker,
                         log_dir=log_dir)
