"""One partition directory copied by ``kdump repair``: its logs (:mod:`.copier`), its other files, and the
``repair_partition`` object that says what was kept, what was dropped and what Kafka's own recovery would
have done instead.  The work is :class:`PartitionRepair`'s phases, in the order
:meth:`PartitionRepair.run` calls them, each saying the Kafka behaviour it follows.

Per file kind (Kafka 4.1's source; 3.9-4.3 alike unless said):

* ``.index``/``.timeindex``/``.txnindex``: rebuilt for every segment written (the input's are never
  copied: they describe the input's byte positions).  Their ``index.interval.bytes`` is inferred from the
  input's ``.index`` files (:func:`infer_interval`: Kafka's default when their entries allow it, else the
  largest value that reproduces every entry), so an intact input's indexes come out byte for byte the
  same; Kafka's default (4096) when no entry tells.
* ``leader-epoch-checkpoint``: rebuilt from the kept batches, an entry at the first batch of each larger
  partition leader epoch, as LogSegment.recover assigns them (LeaderEpochFileCache.assign); the input's
  entries that no kept batch carries are named in the notes (LogLoader truncates the cache to the log's
  ends at load anyway: truncateFromEndAsyncFlush, truncateFromStartAsyncFlush).  A 3.9 broker set to a
  message format before v2 deletes the file (UnifiedLog.maybeCreateLeaderEpochCache, 3.9).
* producer ``.snapshot``: a snapshot at offset S summarises offsets below S; it is copied when its CRC
  holds, S is not above the copy's log end, and no data-holding batch below S was dropped; otherwise it is
  left out.  ProducerStateManager.truncateAndReload then loads the latest snapshot kept and
  UnifiedLog.rebuildProducerState replays the log after it (from the log start when none is left), which
  is exactly the state of the copy.
* ``partition.metadata``: copied byte for byte when it parses; otherwise left out, and the broker writes
  it again from the controller's topic id (UnifiedLog.assignTopicId).
* ``__cluster_metadata``: ``quorum-state`` copied; a KRaft snapshot (``.checkpoint``) copied when every
  batch in it is intact, else left out (KafkaMetadataLog.recoverSnapshots then starts from an older one,
  or refuses to start when none covers the log start).
* leftovers (``.deleted``, ``.cleaned``, ``.swap``, ``.tmp``, ``.checkpoint.part``) and files Kafka does
  not write: left out, named."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from ... import layouts as L
from ...errors import CorruptDataError, KdumpError
from ...files.logdir import KafkaFile, walk
from ...files.snapshot import read_producer_snapshot
from ...files.text import read_partition_metadata
from ...findings import Problem
from ...model import shape
from ...records.file_records import LogReader
from ...source import FileSource
from ..compare_replicas import read_epoch_checkpoint
from ..replica_groups import topic_id_of
from ..verdict import cleanup_of, judge_partition
from .absent import RECREATED, absent_written, recreated_note
from .copier import SegmentCopier
from .fill import Filler, ReplicaLogDir
from .index_interval import infer_interval
from .kafka_model import KafkaOutcome, kafka_recovery
from .logdir import LogDirContext, clamp_checkpoints, copy_file, epoch_checkpoint_bytes
from .losses import Loss, copy_losses, missing_segment_notes, policy_notes
from .notes import epoch_notes, metadata_notes
from .partition_log import PartitionLog
from .plan import PartitionInput
from .reserve import Written, keep_highest_epoch, reserve_notes, written_by_witnesses
from .staging import Stage, file_entry
from .topic_ids import TopicIds, not_recreated, partition_metadata_bytes, zookeeper_era

METADATA_TOPIC = "__cluster_metadata"
#: how the detail of a file left out for damage begins (the run's exit code counts them)
DAMAGED = "damaged"
#: the hashing callbacks: before(path) for a file read whole, reader_source(path, src)
Hashes = Any


def intact_log(path: str, max_batch_bytes: int) -> str | None:
    """None when every byte of the file frames as intact batches, else why not."""
    try:
        with FileSource(path) as src:
            for item in LogReader(src, resync=False, max_batch_bytes=max_batch_bytes):
                if isinstance(item, Problem):
                    return f"{item.kind} at byte {item.position}"
                if not item.crc_valid:
                    return f"crc-mismatch at byte {item.position}"
    except KdumpError as e:
        return str(e)
    return None


def repair_partition(pin: PartitionInput, ctx: LogDirContext | None, stage: Stage,
                     hashes: Hashes, *, max_batch_bytes: int, interval_option: int | None,
                     assumed: str, replicas: list[ReplicaLogDir] | None = None,
                     policies: Any = None, topic_ids: TopicIds | None = None
                     ) -> Iterator[dict[str, Any]]:
    """The objects of one partition: repair_dropped, repair_fill and repair_file as they
    come, then its repair_partition.  ``replicas``: other brokers' log dirs a dropped range
    is filled from (:mod:`.fill`).  The phases are :class:`PartitionRepair`'s."""
    yield from PartitionRepair(pin, ctx, stage, hashes, max_batch_bytes=max_batch_bytes,
                               interval_option=interval_option, assumed=assumed,
                               replicas=replicas, policies=policies,
                               topic_ids=topic_ids).run()


class PartitionRepair:
    """One partition directory's repair, phase by phase (:meth:`run` says the order).
    Each phase's docstring names the Kafka behaviour it follows."""

    # set by the phases, in the order run() calls them
    files: list[KafkaFile]
    left: list[dict[str, Any]]
    logs: dict[int, KafkaFile]
    by_kind: dict[str, list[KafkaFile]]
    indexes: list[KafkaFile]
    bases: list[int]
    interval: int
    interval_from: str
    plog: PartitionLog
    written: Written
    own_epochs: Any
    copier: SegmentCopier
    empty_last: bool
    leo: int
    reserved: list[int] | None
    epochs: list[tuple[int, int]]
    kept_snaps: list[int]
    left_snaps: list[int]
    kraft_kept: list[int]
    checkpoints: dict[str, list[int | None]]
    kafka: KafkaOutcome
    compacted: bool
    losses: list[Loss]

    def __init__(self, pin: PartitionInput, ctx: LogDirContext | None, stage: Stage,
                 hashes: Hashes, *, max_batch_bytes: int, interval_option: int | None,
                 assumed: str, replicas: list[ReplicaLogDir] | None = None,
                 policies: Any = None, topic_ids: TopicIds | None = None) -> None:
        self.pin, self.ctx, self.stage, self.hashes = pin, ctx, stage, hashes
        #: the topics' cleanup policies (a witnesses.CleanupPolicies; None: the
        #: cleaner's checkpoint and Kafka's own compacted topics decide)
        self.policies = policies
        #: a gone directory's topic id, and where it was read (None: unknown)
        self.topic_id: tuple[str, str] | None = None
        #: a gone directory is recreated: its topic id is known, or its broker takes one
        #: from the controller (a ZooKeeper-era log dir)
        self.recreate = pin.missing is None
        if pin.missing is not None and topic_ids is not None and pin.log_dir is not None:
            self.topic_id = topic_ids.find(pin.name.topic, pin.log_dir)
            self.recreate = self.topic_id is not None or zookeeper_era(pin.log_dir)
        self.max_batch_bytes = max_batch_bytes
        self.interval_option = interval_option
        self.assumed = assumed
        self.replicas = replicas
        self.topic, self.partition = pin.name.topic, pin.name.partition
        self.metadata = self.topic == METADATA_TOPIC
        #: not a partition directory renamed aside (``-delete``, ``-future``, ``-stray``)
        self.live = pin.name.state is None
        self.notes: list[str] = []

    def run(self) -> Iterator[dict[str, Any]]:
        """The phases in order (what each yields comes out in this order): the inputs
        read, the logs copied and closed, offsets reserved, the other files, then the
        checkpoints, Kafka's recovery and the partition's object."""
        if not self.recreate:
            yield self.not_recreated()
            return
        if self.pin.missing is not None and self.topic_id is None:
            self.notes.append(
                f"the partition directory {self.topic}-{self.partition} is gone while the log "
                "dir's checkpoints name it: recreated with no partition.metadata, its topic id "
                "being unknown; this log dir is a ZooKeeper-mode broker's, which takes the id "
                "from the controller's LeaderAndIsrRequest (ReplicaManager."
                "becomeLeaderOrFollower, UnifiedLog.assignTopicId, 3.9); a KRaft broker would "
                "take it for a stray (LogManager.isStrayKraftReplica)")
        elif self.pin.absent is not None and self.topic_id is not None:
            self.notes.append(recreated_note(self.pin.absent, self.topic_id))
        elif self.pin.missing is not None and self.topic_id is not None:
            self.notes.append(
                f"the partition directory {self.topic}-{self.partition} is gone while the log "
                f"dir's checkpoints name it: recreated with partition.metadata (topic id "
                f"{self.topic_id[0]}, from {self.topic_id[1]}), as an empty log from its old "
                "log start to its old end (a broker given no directory would create it at "
                "offset 0: LogManager.getOrCreateLog)")
        self.stage.mkdir(self.pin.target)
        self.read_inputs()
        self.choose_index_interval()
        self.read_witnesses()
        yield from self.copy_segments()
        yield from self.close_log()
        self.reserve_offsets()
        self.judge_losses()
        yield from self.name_inputs()
        yield from self.leader_epoch_checkpoint()
        yield from self.producer_snapshots()
        yield from self.small_files()
        yield from self.left_out()
        self.checkpoints_and_recovery()
        yield self.summary()

    def read_inputs(self) -> None:
        """The partition directory's files, each placed as Kafka's loader places it
        (LogLoader.loadSegmentFiles: a ``.log`` named by an offset is a segment, leftovers
        of a crash or a swap are ``.deleted``/``.cleaned``/``.swap``); every file but the
        logs hashed now (the logs are hashed as they are read).  What the walk cannot place
        is left out, named, and still hashed: it is evidence."""
        self.files, self.left = [], []
        for item in walk([self.pin.path] if self.pin.missing is None else [], verbose=True):
            if isinstance(item, Problem):
                if item.path and os.path.isfile(item.path):
                    self.hashes.before(item.path)  # passed over (an editor's or the OS's)
                if item.path:
                    self.left.append(file_entry(item.path, None, "left-out", item.detail, None,
                                                None))
                continue
            self.files.append(item)
        self.logs = {f.base_offset: f for f in self.files
                     if f.kind == "log" and f.leftover is None and f.base_offset is not None}
        self.by_kind = {}
        for f in self.files:
            if f.kind != "log":
                self.hashes.before(f.path)
            self.by_kind.setdefault(f.kind if f.leftover is None else "leftover", []).append(f)
        self.indexes = [f for f in self.by_kind.get("offset-index", [])
                        if f.base_offset is not None]
        self.bases = sorted(self.logs)

    def choose_index_interval(self) -> None:
        """The index.interval.bytes the rebuilt indexes are written with (LogSegment.recover
        appends an entry when the bytes since the last exceed it): the option, else as the
        input's ``.index`` files tell it (:func:`.index_interval.infer_interval`), else
        Kafka's default (4096)."""
        inferred = infer_interval(self.indexes, self.logs)
        if self.interval_option is not None:
            self.interval = self.interval_option
            self.interval_from = "the --index-interval-bytes option"
        elif inferred is not None:
            self.interval, self.interval_from = inferred, "inferred from the input's .index files"
        else:
            self.interval, self.interval_from = L.DEFAULT_INDEX_INTERVAL_BYTES, "Kafka's default"

    def read_witnesses(self) -> None:
        """What the log dir and the partition's own files prove was written: the topic's
        cleanup policy (a gap between batches of a delete-policy topic is lost, a compacted
        topic's may be the cleaner's), the witnesses of the highest offset written
        (:mod:`.reserve`; an active segment's torn or zeroed end is judged by them, as
        verify-crc judges it: :meth:`.regions.Regions.problem_region`), the
        input's leader-epoch-checkpoint (LeaderEpochFileCache) a replica's batches are
        checked against; then the replicas a dropped range is filled from and the copier.
        The metadata log has none of these (KafkaMetadataLog keeps no log-dir
        checkpoints)."""
        topic, partition = self.topic, self.partition
        plog = PartitionLog(self.pin.path, self.interval, self.pin.log_dir, topic, partition)
        self.compacted = cleanup_of(self.pin.path, topic, partition, self.policies).compacted
        plog.compacted = self.compacted
        self.written = Written() if self.metadata else absent_written(self.pin.absent) \
            if self.pin.absent else written_by_witnesses(self.pin.path)  # absent: another's epoch
        witnessed = self.written.last
        plog.witnessed_end = None if witnessed is None else witnessed + 1
        self.own_epochs = None
        epoch_inputs = self.by_kind.get("leader-epoch-checkpoint", [])
        if epoch_inputs:
            self.own_epochs, _ = read_epoch_checkpoint(os.path.dirname(epoch_inputs[0].path))
        if self.replicas and not self.metadata:
            plog.filler = Filler(self.replicas, topic, partition, self.own_epochs,
                                 self.max_batch_bytes, on_read=self.hashes.before,
                                 topic_id=topic_id_of(self.pin.path)
                                 or (self.topic_id[0] if self.topic_id else None))
        self.plog = plog
        self.copier = SegmentCopier(plog, self.stage, self.pin.target, self.max_batch_bytes)

    def copy_segments(self) -> Iterator[dict[str, Any]]:
        """Every input segment in offset order, as LogLoader loads them, batch by batch
        (:class:`.copier.SegmentCopier`); offsets lost with a segment gone from between
        two others (its ``.log``, or all its files in a delete-policy topic) offered to the
        replicas between the segments around it."""
        plog, copier, bases = self.plog, self.copier, self.bases
        has_index = {f.base_offset for f in self.indexes}
        for k, base in enumerate(bases):
            f = self.logs[base]
            try:
                raw = FileSource(f.path)
            except KdumpError as e:
                raise KdumpError(f"cannot read: {e.message}", path=f.path) from None
            if k > 0 and plog.filler is not None and plog.prev_last is not None and \
                    not plog.pending and (not self.compacted or any(
                        bases[k - 1] < m < base for m in self.written.missing_logs)):
                # offsets between the last kept batch and this log's first batch (a segment
                # gone from the middle, with or without its indexes; a compacted topic's only
                # when its indexes still name it) offered to the replicas; after a dropped
                # region the next kept batch offers its gap (copier.resolve)
                yield from copier.fill_between(plog.prev_last + 1, f.path)
            with raw:
                yield from copier.copy_log(f, k == len(bases) - 1,
                                           self.hashes.reader_source(f.path, raw), raw,
                                           base in has_index,
                                           bases[k + 1] if k + 1 < len(bases) else None)
                self.hashes.finish_reader(f.path)

    def close_log(self) -> Iterator[dict[str, Any]]:
        """The log's end: the regions there resolved (filled from a replica up to the
        witnessed end first, so that fill comes before an empty last segment's name);
        offsets written that no region names offered to the replicas; a last segment that
        kept nothing kept empty under its name, as LogSegment.recover leaves it (truncated
        to 0 bytes), so the log end offset stays at its base (LogLoader)."""
        plog, bases = self.plog, self.bases
        yield from self.copier.resolve(None)
        yield from self.copier.fill_lost(plog.prev_last + 1 if plog.prev_last is not None
                                         else self.written.start)
        self.empty_last = bool(bases) and (plog.prev_last is None or
                                           bases[-1] > plog.prev_last) and \
            not plog.facts[-1].kept.batches
        if self.empty_last:
            self.copier.empty_segment(bases[-1], self.logs[bases[-1]].path,
                                      was_empty=plog.facts[-1].size == 0)
        self.leo = _log_end(plog, bases, self.ctx, self.topic, self.partition, self.empty_last)

    def reserve_offsets(self) -> None:
        """Never hand out an offset twice: when the witnesses prove offsets written at or
        past the copy's log end, the log end goes one past the highest of them, at an empty
        active segment named there (:mod:`.reserve`; a broker's next offset is its log end,
        UnifiedLog.logEndOffset)."""
        self.reserved = None
        witnessed = self.written.last
        if witnessed is not None and witnessed >= self.leo:
            # offsets below the log start were deleted by design (retention, DeleteRecords):
            # never lost, never reserved (a copy with no batch left starts at the old start)
            self.reserved = [max(self.leo, self.written.start), witnessed]
            if self.plog.segments_written == 0:
                # no segment left (a .log or the whole directory gone): an empty one at
                # the old log start, so the copy's log starts where the input's did
                self.copier.writer.start_segment(self.reserved[0], witnessed)
            self.copier.reserved_segment(witnessed + 1, self.reserved[0],
                                         self.written.witnesses)
            self.leo = witnessed + 1

    def judge_losses(self) -> None:
        """The offsets the copy lacks that were written (:func:`.losses.copy_losses`): the
        manifest's ``lost_offsets``, and ``data_lost`` when there are any; those no dropped
        region or reservation names (a segment gone from the middle) said in the notes."""
        verdict = judge_partition(self.pin.path, self.plog.held, policies=self.policies,
                                  witnesses=self.written.pw)
        self.losses = losses = copy_losses(verdict, self.plog.holes, self.reserved)
        self.notes += missing_segment_notes(losses, bool(self.replicas)) + policy_notes(verdict, losses)

    def name_inputs(self) -> Iterator[dict[str, Any]]:
        """The segments and their rebuilt indexes, each index beside the input's of the same
        name and whether it came out the same (the input's are never copied: Kafka's
        recovery rebuilds them, LogSegment.recover)."""
        outputs = self.plog.outputs
        _name_inputs(outputs, self.files, self.pin)
        yield from outputs

    def leader_epoch_checkpoint(self) -> Iterator[dict[str, Any]]:
        """leader-epoch-checkpoint rebuilt from the kept batches, an entry at the first
        batch of each larger epoch (LeaderEpochFileCache.assign, as LogSegment.recover
        assigns them); with offsets reserved, the input's highest epoch kept from where it
        starts; the input's entries no kept batch carries named in the notes."""
        plog, leo = self.plog, self.leo
        epochs = list(plog.pp.epochs)
        if self.reserved is not None and self.own_epochs:
            epochs = keep_highest_epoch(epochs, self.own_epochs, self.reserved[0], leo)
        self.epochs = epochs
        epoch_files = self.by_kind.get("leader-epoch-checkpoint", [])
        if epochs or epoch_files:
            rel = f"{self.pin.target}/leader-epoch-checkpoint"
            n, h = self.stage.write(rel, epoch_checkpoint_bytes(epochs))
            src = epoch_files[0].path if epoch_files else None
            detail = f"rebuilt from the kept batches: {len(epochs)} epochs"
            if self.reserved is not None and epochs != list(plog.pp.epochs):
                detail += (f"; the input's highest epoch {epochs[-1][0]} kept (from offset "
                           f"{epochs[-1][1]}, in the reserved offsets)")
            if src is not None:
                self.notes += epoch_notes(src, epochs, leo)
            yield file_entry(src, rel, "rebuilt", detail, n, h)

    def producer_snapshots(self) -> Iterator[dict[str, Any]]:
        """A producer snapshot copied when its CRC holds, it is not above the copy's log
        end and no data-holding batch below it was dropped; else left out, and the broker
        rebuilds producer state from the latest snapshot kept and the log after it
        (ProducerStateManager.truncateAndReload, UnifiedLog.rebuildProducerState)."""
        self.kept_snaps, self.left_snaps = [], []
        for f in sorted(self.by_kind.get("producer-snapshot", []),
                        key=lambda x: x.base_offset or 0):
            offset = f.base_offset or 0
            why = _snapshot_problem(f, self.leo, self.plog.frontier)
            if why is None:
                self.kept_snaps.append(offset)
                yield copy_file(f.path, f"{self.pin.target}/{os.path.basename(f.path)}",
                                self.stage, "copied byte for byte: its CRC holds and every "
                                "batch below its offset was kept")
            else:
                self.left_snaps.append(offset)
                yield file_entry(f.path, None, "left-out", why + "; the broker rebuilds producer "
                                 "state from the latest snapshot kept and the log after it "
                                 "(UnifiedLog.rebuildProducerState)", None, None)

    def small_files(self) -> Iterator[dict[str, Any]]:
        """partition.metadata copied when it parses (else the broker writes it again,
        UnifiedLog.assignTopicId), quorum-state copied, a KRaft snapshot copied when every
        batch in it is intact (else KafkaMetadataLog.recoverSnapshots starts from an older
        one).  A gone directory's partition.metadata written from its topic id
        (:mod:`.topic_ids`: a KRaft broker takes a log with none for a stray,
        LogManager.isStrayKraftReplica)."""
        self.kraft_kept = []
        if self.pin.missing is not None and self.topic_id is not None:
            tid, where = self.topic_id
            rel = f"{self.pin.target}/partition.metadata"
            n, h = self.stage.write(rel, partition_metadata_bytes(tid))
            yield file_entry(None, rel, "rebuilt", f"topic id {tid}, from {where}: " + (
                RECREATED if self.pin.absent else "the partition directory is gone, recreated "
                "as an empty log at its old end"), n, h)
        for kind in ("partition-metadata", "quorum-state", "kraft-snapshot"):
            for f in self.by_kind.get(kind, []):
                rel = f"{self.pin.target}/{os.path.basename(f.path)}"
                why = _small_file_problem(f, kind, self.max_batch_bytes)
                if why is None:
                    if kind == "kraft-snapshot":
                        self.kraft_kept.append(f.base_offset or 0)
                    yield copy_file(f.path, rel, self.stage, "copied byte for byte" + (
                        ": every batch intact" if kind == "kraft-snapshot" else ""))
                else:
                    yield file_entry(f.path, None, "left-out", why, None, None)

    def left_out(self) -> Iterator[dict[str, Any]]:
        """Every other file named as left out, with what Kafka's loader does with it
        (LogLoader.removeTempFilesAndCollectSwapFiles deletes or completes leftovers,
        LogLoader.loadSegmentFiles deletes an index with no log), then what the walk could
        not place."""
        by_kind, logs = self.by_kind, self.logs
        consumed = {f.path for f in logs.values()}
        consumed |= {f.path for k in ("offset-index", "time-index", "txn-index")
                     for f in by_kind.get(k, []) if f.base_offset in logs}
        consumed |= {f.path for k in ("leader-epoch-checkpoint", "producer-snapshot",
                                      "partition-metadata", "quorum-state", "kraft-snapshot")
                     for f in by_kind.get(k, [])}
        for f in self.files:
            if f.path not in consumed:
                self.left.append(file_entry(f.path, None, "left-out", _why_left(f), None, None))
        yield from self.left

    def checkpoints_and_recovery(self) -> None:
        """The log-dir checkpoints clamped to the copy (:func:`.logdir.clamp_checkpoints`:
        never above its log end), what Kafka's own recovery would have done instead
        (:func:`.kafka_model.kafka_recovery`: LogLoader and LogSegment.recover, skipped
        after a clean shutdown), and the notes: open transactions whose marker may be gone
        (read_committed consumers stop at them), a clean-shutdown marker that would have
        hidden the damage, the metadata log's holes weighed against its snapshots."""
        pin, ctx, plog, leo, reserved = self.pin, self.ctx, self.plog, self.leo, self.reserved
        topic, partition, metadata = self.topic, self.partition, self.metadata
        notes = self.notes
        checkpoints, cp_notes = clamp_checkpoints(ctx, topic, partition, leo, plog.first_offset,
                                                  self.live, metadata)
        notes += cp_notes
        if reserved is not None:
            notes += reserve_notes(reserved, leo)
        if not pin.in_logdir and checkpoints:
            notes.append("a partition given alone: the log-dir checkpoints but the cleaner's are "
                         "not written; the values shown are what the log dir holding it should say")
        clean = bool(ctx and ctx.clean_shutdown) and not metadata
        rp = 0 if metadata or ctx is None else (
            ctx.value("recovery-point-offset-checkpoint", topic, partition) or 0)
        lso = 0 if metadata or ctx is None else (
            ctx.value("log-start-offset-checkpoint", topic, partition) or 0)
        why_assumed = "KafkaMetadataLog loads it from 0, unclean" if metadata else self.assumed
        kafka = kafka_recovery(plog.facts, clean_shutdown=clean, recovery_point=rp,
                               log_start=lso,
                               assumed=why_assumed if (metadata or ctx is None) else "")
        if plog.data_lost:
            for pid, first in sorted(plog.pp.ongoing.items()):
                notes.append(f"producer {pid}'s transaction from offset {first} has no marker in "
                             "the copy (it may have been in a dropped region): read_committed "
                             f"consumers stop at offset {first} until it is aborted "
                             "(kafka-transactions.sh abort)")
        if clean and plog.data_lost:
            notes.append("the input's log dir holds .kafka_cleanshutdown: a broker would not "
                         "recover this partition at all and would serve its damaged batches "
                         "(consumers fail on them); the copy has no such marker")
        if metadata:
            notes += metadata_notes(self.by_kind, self.bases, plog.holes, self.kraft_kept)
        self.checkpoints, self.kafka = checkpoints, kafka

    def not_recreated(self) -> dict[str, Any]:
        """A gone partition directory whose topic id nothing given says
        (:func:`.topic_ids.not_recreated`)."""
        return not_recreated(self.pin, self.ctx, self.interval_option)

    def summary(self) -> dict[str, Any]:
        """The repair_partition object: what was kept, dropped, filled and reserved, the
        rebuilt files' choices, the checkpoints and Kafka's recovery beside it; each note
        once."""
        pin, plog, reserved, kafka = self.pin, self.plog, self.reserved, self.kafka
        return shape("repair_partition", {
            "log_dir": pin.log_dir, "topic": self.topic, "partition": self.partition,
            "input": pin.path, "output": pin.target, "segments": plog.segments_written,
            "batches": plog.batches,
            "records": plog.records, "bytes": plog.bytes, "first_offset": plog.first_offset,
            "log_end_offset": self.leo,
            "input_log_end_offset": None if plog.input_last is None else plog.input_last + 1,
            "regions_dropped": plog.regions, "bytes_dropped": plog.bytes_dropped,
            "data_lost": bool(self.losses),
            "lost_offsets": [[x.first, x.last] for x in self.losses],
            "reserved_offsets": reserved,
            "witnesses": self.written.witnesses,
            "filled_offsets": [list(f) for f in plog.filled],
            "index_interval_bytes": self.interval, "index_interval_from": self.interval_from,
            "leader_epochs": [list(e) for e in self.epochs],
            "producer_snapshots": {"kept": self.kept_snaps, "left_out": self.left_snaps},
            "checkpoints": self.checkpoints, "kafka": kafka.to_json(),
            "saved_batches": kafka.lost.batches, "saved_records": kafka.lost.records,
            "saved_bytes": kafka.lost.bytes, "notes": list(dict.fromkeys(self.notes))})  # each once


def _log_end(plog: PartitionLog, bases: list[int], ctx: LogDirContext | None, topic: str,
             partition: int, empty_last: bool) -> int:
    """After the last kept batch; at the last segment's base when that segment is kept
    empty; with no log at all, where Kafka starts one: the log start offset
    (LogLoader.recoverLog)."""
    if empty_last:
        return bases[-1]
    if plog.prev_last is not None:
        return plog.prev_last + 1
    start = None if ctx is None else ctx.value("log-start-offset-checkpoint", topic, partition)
    return start or 0


def _name_inputs(outputs: list[dict[str, Any]], files: list[KafkaFile], pin: PartitionInput
                 ) -> None:
    """A rebuilt index's input of the same name, and whether it came out the same."""
    by_name = {os.path.basename(f.path): f.path for f in files}
    for o in outputs:
        if o["action"] != "rebuilt" or o["file"] is not None or o["output"] is None:
            continue
        src = by_name.get(os.path.basename(o["output"]))
        if src is None:
            o["detail"] += "; the input had none"
            continue
        o["file"] = src
        try:
            same = _same_bytes(src, o["sha256"])
        except KdumpError:
            same = False
        o["detail"] += "; the same bytes as the input's" if same else "; the input's differs"


def _same_bytes(path: str, sha: str) -> bool:
    import hashlib

    h = hashlib.sha256()
    with FileSource(path) as src:
        pos = 0
        while pos < src.size:
            chunk = src.pread(pos, min(1 << 20, src.size - pos))
            if not chunk:
                break
            h.update(chunk)
            pos += len(chunk)
    return h.hexdigest() == sha


def _snapshot_problem(f: KafkaFile, leo: int, frontier: int | None) -> str | None:
    offset = f.base_offset or 0
    try:
        with FileSource(f.path) as src:
            snap = read_producer_snapshot(src)
    except KdumpError as e:
        return f"{DAMAGED}: does not parse ({e.message})"
    if not snap.crc_valid:
        return f"{DAMAGED}: its CRC-32C fails (stored {snap.crc}, computed {snap.computed_crc})"
    if offset > leo:
        return (f"at offset {offset}, above the copy's log end offset {leo} (Kafka deletes "
                "such a snapshot: ProducerStateManager.truncateAndReload)")
    if frontier is not None and offset > frontier:
        return (f"at offset {offset}: it counts batches at or above offset {frontier} that "
                "were dropped as damaged")
    return None


def _small_file_problem(f: KafkaFile, kind: str, max_batch_bytes: int) -> str | None:
    if kind == "kraft-snapshot":
        why = intact_log(f.path, max_batch_bytes)
        return None if why is None else (f"{DAMAGED} ({why}): not copied (KafkaMetadataLog "
                                         "starts from an older snapshot, or from the log)")
    if kind == "partition-metadata":
        try:
            with FileSource(f.path) as src:
                read_partition_metadata(src)
        except (CorruptDataError, KdumpError) as e:
            return (f"{DAMAGED}: does not parse ({e}): not copied; the broker writes it again from the "
                    "controller's topic id (UnifiedLog.assignTopicId)")
    return None


def _why_left(f: KafkaFile) -> str:
    from ...files.logdir import LEFTOVER_MEANING

    if f.leftover is not None:
        return (f"{LEFTOVER_MEANING[f.leftover]} (.{f.leftover}): not copied; Kafka's loader "
                "deletes or completes such files (LogLoader.removeTempFilesAndCollectSwapFiles)")
    if f.kind == "log":
        return "a .log whose name is not an offset: Kafka does not load it"
    if f.kind in ("offset-index", "time-index", "txn-index"):
        return "an index with no log of its name: Kafka deletes it (LogLoader.loadSegmentFiles)"
    return "not a file Kafka writes in a partition directory"



__all__ = ["DAMAGED", "METADATA_TOPIC", "PartitionRepair", "intact_log", "repair_partition"]
