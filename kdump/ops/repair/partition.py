"""One partition directory copied by ``kdump repair``: its logs
(:mod:`.segments`), its other files, and the ``repair_partition`` object that says what
was kept, what was dropped and what Kafka's own recovery would have done instead.

Per file kind (Kafka 4.1's source; 3.9-4.3 alike unless said):

* ``.index``/``.timeindex``/``.txnindex``: rebuilt for every segment written (the
  input's are never copied: they describe the input's byte positions).  Their
  ``index.interval.bytes`` is inferred from the input's ``.index`` files
  (:func:`infer_interval`: Kafka's default when their entries allow it, else the largest
  value that reproduces every entry), so an intact input's indexes come out byte for
  byte the same; Kafka's default (4096) when no entry tells.
* ``leader-epoch-checkpoint``: rebuilt from the kept batches, an entry at the first batch
  of each larger partition leader epoch, as LogSegment.recover assigns them
  (LeaderEpochFileCache.assign); the input's entries that no kept batch carries are named
  in the notes (LogLoader truncates the cache to the log's ends at load anyway:
  truncateFromEndAsyncFlush, truncateFromStartAsyncFlush).  A 3.9 broker set to a message
  format before v2 deletes the file (UnifiedLog.maybeCreateLeaderEpochCache, 3.9).
* producer ``.snapshot``: a snapshot at offset S summarises offsets below S; it is copied
  when its CRC holds, S is not above the copy's log end, and no data-holding batch below S
  was dropped; otherwise it is left out.  ProducerStateManager.truncateAndReload then loads
  the latest snapshot kept and UnifiedLog.rebuildProducerState replays the log after it
  (from the log start when none is left), which is exactly the state of the copy.
* ``partition.metadata``: copied byte for byte when it parses; otherwise left out, and
  the broker writes it again from the controller's topic id (UnifiedLog.assignTopicId).
* ``__cluster_metadata``: ``quorum-state`` copied; a KRaft snapshot (``.checkpoint``)
  copied when every batch in it is intact, else left out (KafkaMetadataLog.recoverSnapshots
  then starts from an older one, or refuses to start when none covers the log start).
* leftovers (``.deleted``, ``.cleaned``, ``.swap``, ``.tmp``, ``.checkpoint.part``) and
  files Kafka does not write: left out, named.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from ... import layouts as L
from ...errors import CorruptDataError, KdumpError
from ...files.index import OffsetIndex
from ...files.logdir import KafkaFile, walk
from ...files.snapshot import read_producer_snapshot
from ...files.text import read_checkpoint, read_partition_metadata
from ...findings import Problem
from ...model import shape
from ...records.file_records import LogReader
from ...source import FileSource
from ..compare_replicas import read_epoch_checkpoint
from .copier import SegmentCopier
from .fill import Filler, ReplicaLogDir
from .kafka_model import kafka_recovery
from .logdir import LogDirContext, clamp_checkpoints, copy_file, epoch_checkpoint_bytes
from .partition_log import PartitionLog
from .plan import PartitionInput
from .reserve import Written, keep_highest_epoch, reserve_notes, written_by_witnesses
from .staging import Stage, file_entry

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


#: index entries of a segment whose preceding batches are walked for the lower bound
_LOWER_BOUND_ENTRIES = 64


def infer_interval(indexes: list[KafkaFile], logs: dict[int, KafkaFile]) -> int | None:
    """The topic's index.interval.bytes, as far as the input's ``.index`` files tell
    (LogSegment.recover appends an entry when the bytes read since the last one exceed
    it).  Every entry bounds it from above (its distance from the previous entry, minus
    one); every batch before an entry that got none bounds it from below (its distance
    from the previous entry: the batch headers before the first entries of a segment are
    walked for these).  Kafka's default (4096) when it lies within the bounds, else the
    largest value that reproduces every entry; None when no entry tells, or the entries
    are not what recover writes (appends of several batches index differently)."""
    hi: int | None = None
    lo = 0
    for f in indexes:
        if f.base_offset is None or f.base_offset not in logs:
            continue
        try:
            with FileSource(f.path) as src:
                used = OffsetIndex(src, f.base_offset).used_slots()
                prev_pos, prev_rel = 0, 0
                positions: list[int] = []
                for rel, position in _entries(src, used):
                    if position <= prev_pos or rel <= prev_rel:
                        break  # not an index recover wrote: tells nothing more
                    gap = position - prev_pos - 1
                    hi = gap if hi is None else min(hi, gap)
                    prev_pos, prev_rel = position, rel
                    if len(positions) < _LOWER_BOUND_ENTRIES:
                        positions.append(position)
            lo = max(lo, _lower_bound(logs[f.base_offset].path, positions))
        except KdumpError:
            continue
    if hi is None:
        return None
    if lo <= L.DEFAULT_INDEX_INTERVAL_BYTES <= hi:
        return L.DEFAULT_INDEX_INTERVAL_BYTES
    return hi if lo <= hi else None


def _entries(src: FileSource, used: int) -> Iterator[tuple[int, int]]:
    """(relative offset, position) of the first ``used`` slots, read a chunk at a time."""
    chunk = (1 << 20) // L.OFFSET_INDEX_ENTRY_SIZE
    for first in range(0, used, chunk):
        n = min(chunk, used - first)
        data = src.pread(first * L.OFFSET_INDEX_ENTRY_SIZE, n * L.OFFSET_INDEX_ENTRY_SIZE)
        whole = len(data) - len(data) % L.OFFSET_INDEX_ENTRY_SIZE
        yield from L.OFFSET_INDEX_ENTRY.iter_unpack(data[:whole])
        if whole < n * L.OFFSET_INDEX_ENTRY_SIZE:
            return


def _lower_bound(log: str, entries: list[int]) -> int:
    """The largest distance from the previous entry (or 0) of a batch that got no entry,
    walking the batch headers up to the last of ``entries`` (positions)."""
    lo = 0
    if not entries:
        return lo
    wanted = set(entries)
    with FileSource(log) as src:
        pos = last = 0
        while pos < entries[-1]:
            head = src.pread(pos, L.LOG_OVERHEAD)
            if len(head) < L.LOG_OVERHEAD:
                break
            _, size = L.LOG_HEADER.unpack_from(head, 0)
            if size < L.RECORD_OVERHEAD_V0:
                break  # damage: what was walked still counts
            if pos in wanted:
                last = pos
            else:
                lo = max(lo, pos - last)
            pos += L.LOG_OVERHEAD + size
        return lo


def repair_partition(pin: PartitionInput, ctx: LogDirContext | None, stage: Stage,
                     hashes: Hashes, *, max_batch_bytes: int, interval_option: int | None,
                     assumed: str, replicas: list[ReplicaLogDir] | None = None
                     ) -> Iterator[dict[str, Any]]:
    """The objects of one partition: repair_dropped, repair_fill and repair_file as they
    come, then its repair_partition.  ``replicas``: other brokers' log dirs a dropped range
    is filled from (:mod:`.fill`)."""
    topic, partition = pin.name.topic, pin.name.partition
    metadata = topic == METADATA_TOPIC
    live = pin.name.state is None
    stage.mkdir(pin.target)
    files: list[KafkaFile] = []
    left: list[dict[str, Any]] = []
    for item in walk([pin.path], verbose=True):
        if isinstance(item, Problem):
            if item.path and os.path.isfile(item.path):
                hashes.before(item.path)  # passed over (an editor's or the OS's): still evidence
            if item.path:
                left.append(file_entry(item.path, None, "left-out", item.detail, None, None))
            continue
        files.append(item)
    logs = {f.base_offset: f for f in files
            if f.kind == "log" and f.leftover is None and f.base_offset is not None}
    by_kind: dict[str, list[KafkaFile]] = {}
    for f in files:
        if f.kind != "log":
            hashes.before(f.path)
        by_kind.setdefault(f.kind if f.leftover is None else "leftover", []).append(f)
    indexes = [f for f in by_kind.get("offset-index", []) if f.base_offset is not None]
    inferred = infer_interval(indexes, logs)
    if interval_option is not None:
        interval, interval_from = interval_option, "the --index-interval-bytes option"
    elif inferred is not None:
        interval, interval_from = inferred, "inferred from the input's .index files"
    else:
        interval, interval_from = L.DEFAULT_INDEX_INTERVAL_BYTES, "Kafka's default"
    plog = PartitionLog(pin.path, interval, pin.log_dir, topic, partition)
    if ctx is not None and not metadata:
        marks = [ctx.value(k, topic, partition) for k in ("replication-offset-checkpoint",
                                                          "recovery-point-offset-checkpoint")]
        plog.written_end = max((m for m in marks if m is not None), default=None)
    written = Written() if metadata else written_by_witnesses(pin.path)
    witnessed, witnesses = written.last, written.witnesses
    plog.witnessed_end = None if witnessed is None else witnessed + 1
    own_epochs = None
    epoch_inputs = by_kind.get("leader-epoch-checkpoint", [])
    if epoch_inputs:
        own_epochs, _ = read_epoch_checkpoint(os.path.dirname(epoch_inputs[0].path))
    if replicas and not metadata:
        plog.filler = Filler(replicas, topic, partition, own_epochs, max_batch_bytes,
                             on_read=hashes.before)
    copier = SegmentCopier(plog, stage, pin.target, max_batch_bytes)
    has_index = {f.base_offset for f in indexes}
    bases = sorted(logs)
    for k, base in enumerate(bases):
        f = logs[base]
        try:
            raw = FileSource(f.path)
        except KdumpError as e:
            raise KdumpError(f"cannot read: {e.message}", path=f.path) from None
        if k > 0 and plog.filler is not None and plog.prev_last is not None and any(
                bases[k - 1] < m < base for m in written.missing_logs):
            # a segment between them lost its .log (its indexes still name it): offered
            # to the replicas, between the last kept batch and this log's first batch
            yield from copier.fill_between(plog.prev_last + 1, f.path)
        with raw:
            yield from copier.copy_log(f, k == len(bases) - 1, hashes.reader_source(f.path, raw),
                                       raw, base in has_index,
                                       bases[k + 1] if k + 1 < len(bases) else None)
            hashes.finish_reader(f.path)
    # the regions at the log's end first: a fill from a replica there comes before an
    # empty last segment's name
    yield from copier.resolve(None)
    # offsets written that no region names (a .log gone): offered to the replicas too
    yield from copier.fill_lost(plog.prev_last + 1 if plog.prev_last is not None
                                else written.start)
    empty_last = bool(bases) and (plog.prev_last is None or bases[-1] > plog.prev_last) and \
        not plog.facts[-1].kept.batches
    if empty_last:
        # the last segment kept nothing: keep its name, so the log end stays at its base
        copier.empty_segment(bases[-1], logs[bases[-1]].path,
                             was_empty=plog.facts[-1].size == 0)
    leo = _log_end(plog, bases, ctx, topic, partition, empty_last)
    notes: list[str] = []
    reserved: list[int] | None = None
    if witnessed is not None and witnessed >= leo:
        # never hand out an offset twice: the copy's log end goes one past the highest
        # offset written, at an empty active segment named there (see reserve_offsets)
        reserved = [leo, witnessed]
        copier.reserved_segment(witnessed + 1, leo, witnesses)
        leo = witnessed + 1
    outputs = plog.outputs
    _name_inputs(outputs, files, pin)
    yield from outputs
    # leader-epoch-checkpoint
    epochs = list(plog.pp.epochs)
    if reserved is not None and own_epochs:
        epochs = keep_highest_epoch(epochs, own_epochs, reserved[0], leo)
    epoch_files = by_kind.get("leader-epoch-checkpoint", [])
    if epochs or epoch_files:
        rel = f"{pin.target}/leader-epoch-checkpoint"
        n, h = stage.write(rel, epoch_checkpoint_bytes(epochs))
        src = epoch_files[0].path if epoch_files else None
        detail = f"rebuilt from the kept batches: {len(epochs)} epochs"
        if reserved is not None and epochs != list(plog.pp.epochs):
            detail += (f"; the input's highest epoch {epochs[-1][0]} kept (from offset "
                       f"{epochs[-1][1]}, in the reserved offsets)")
        if src is not None:
            notes += _epoch_notes(src, epochs, leo)
        yield file_entry(src, rel, "rebuilt", detail, n, h)
    # producer snapshots
    kept_snaps: list[int] = []
    left_snaps: list[int] = []
    for f in sorted(by_kind.get("producer-snapshot", []), key=lambda x: x.base_offset or 0):
        offset = f.base_offset or 0
        why = _snapshot_problem(f, leo, plog.frontier)
        if why is None:
            kept_snaps.append(offset)
            yield copy_file(f.path, f"{pin.target}/{os.path.basename(f.path)}", stage,
                        "copied byte for byte: its CRC holds and every batch below its offset "
                        "was kept")
        else:
            left_snaps.append(offset)
            yield file_entry(f.path, None, "left-out", why + "; the broker rebuilds producer state "
                        "from the latest snapshot kept and the log after it "
                        "(UnifiedLog.rebuildProducerState)", None, None)
    # small files
    kraft_kept: list[int] = []
    for kind in ("partition-metadata", "quorum-state", "kraft-snapshot"):
        for f in by_kind.get(kind, []):
            rel = f"{pin.target}/{os.path.basename(f.path)}"
            why = _small_file_problem(f, kind, max_batch_bytes)
            if why is None:
                if kind == "kraft-snapshot":
                    kraft_kept.append(f.base_offset or 0)
                yield copy_file(f.path, rel, stage, "copied byte for byte" + (
                    ": every batch intact" if kind == "kraft-snapshot" else ""))
            else:
                yield file_entry(f.path, None, "left-out", why, None, None)
    consumed = {f.path for f in logs.values()}
    consumed |= {f.path for k in ("offset-index", "time-index", "txn-index")
                 for f in by_kind.get(k, []) if f.base_offset in logs}
    consumed |= {f.path for k in ("leader-epoch-checkpoint", "producer-snapshot",
                                  "partition-metadata", "quorum-state", "kraft-snapshot")
                 for f in by_kind.get(k, [])}
    for f in files:
        if f.path not in consumed:
            left.append(file_entry(f.path, None, "left-out", _why_left(f), None, None))
    yield from left
    # checkpoints, Kafka's recovery, the partition
    checkpoints, cp_notes = clamp_checkpoints(ctx, topic, partition, leo, plog.first_offset,
                                              live, metadata)
    notes += cp_notes
    if reserved is not None:
        notes += reserve_notes(checkpoints, reserved, leo, plog.batches == 0)
    if not pin.in_logdir and checkpoints:
        notes.append("a partition given alone: the log-dir checkpoints are not written; the "
                     "values shown are what the log dir holding the copy should say")
    clean = bool(ctx and ctx.clean_shutdown) and not metadata
    rp = 0 if metadata or ctx is None else (ctx.value("recovery-point-offset-checkpoint", topic,
                                                      partition) or 0)
    lso = 0 if metadata or ctx is None else (ctx.value("log-start-offset-checkpoint", topic,
                                                       partition) or 0)
    why_assumed = "KafkaMetadataLog loads it from 0, unclean" if metadata else assumed
    kafka = kafka_recovery(plog.facts, clean_shutdown=clean, recovery_point=rp, log_start=lso,
                           assumed=why_assumed if (metadata or ctx is None) else "")
    if plog.data_lost:
        for pid, first in sorted(plog.pp.ongoing.items()):
            notes.append(f"producer {pid}'s transaction from offset {first} has no marker in the "
                         "copy (it may have been in a dropped region): read_committed consumers "
                         f"stop at offset {first} until it is aborted (kafka-transactions.sh "
                         "abort)")
    if clean and plog.data_lost:
        notes.append("the input's log dir holds .kafka_cleanshutdown: a broker would not recover "
                     "this partition at all and would serve its damaged batches (consumers fail "
                     "on them); the copy has no such marker")
    if metadata:
        notes += _metadata_notes(by_kind, bases, plog.holes, kraft_kept)
    yield shape("repair_partition", {
        "log_dir": pin.log_dir, "topic": topic, "partition": partition, "input": pin.path,
        "output": pin.target, "segments": plog.segments_written, "batches": plog.batches,
        "records": plog.records, "bytes": plog.bytes, "first_offset": plog.first_offset,
        "log_end_offset": leo,
        "input_log_end_offset": None if plog.input_last is None else plog.input_last + 1,
        "regions_dropped": plog.regions, "bytes_dropped": plog.bytes_dropped,
        "data_lost": plog.data_lost or reserved is not None, "reserved_offsets": reserved,
        "witnesses": witnesses,
        "filled_offsets": [list(f) for f in plog.filled], "index_interval_bytes": interval,
        "index_interval_from": interval_from, "leader_epochs": [list(e) for e in epochs],
        "producer_snapshots": {"kept": kept_snaps, "left_out": left_snaps},
        "checkpoints": checkpoints, "kafka": kafka.to_json(),
        "saved_batches": kafka.lost.batches, "saved_records": kafka.lost.records,
        "saved_bytes": kafka.lost.bytes, "notes": list(dict.fromkeys(notes))})  # each once


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


def _epoch_notes(path: str, epochs: list[tuple[int, int]], leo: int) -> list[str]:
    try:
        with FileSource(path) as src:
            cp = read_checkpoint(src, "leader-epoch-checkpoint")
    except KdumpError as e:
        return [f"the input's leader-epoch-checkpoint does not parse ({e}): rebuilt from the "
                "batches"]
    have = dict(epochs)
    # one note per kind, each naming its epochs (a partition whose leadership moved 50
    # times with nothing written gave 50 lines of the same words)
    idle: list[tuple[int, int]] = []  # no batch, at or past the copy's end: never led
    gone: list[tuple[int, int]] = []  # no batch below the end: their batches were dropped
    moved: list[tuple[int, int, int]] = []
    for entry in cp.entries:
        epoch, start = entry.fields["epoch"], entry.fields["start_offset"]
        if epoch not in have:
            (idle if start >= leo else gone).append((epoch, start))
        elif have[epoch] != start:
            moved.append((epoch, have[epoch], start))
    notes = []
    if gone:
        notes.append(f"{_epochs(gone)} of the input's leader-epoch-checkpoint "
                     f"{'has' if len(gone) == 1 else 'have'} no batch in the copy: not written")
    if idle:
        notes.append(f"{_epochs(idle)} of the input's leader-epoch-checkpoint "
                     f"{'has' if len(idle) == 1 else 'have'} no batch in the copy: not written "
                     f"({'a leader' if len(idle) == 1 else 'leaders'} that wrote nothing: "
                     "LogLoader drops such an entry at load, "
                     "LeaderEpochFileCache.truncateFromEndAsyncFlush)")
    if moved:
        shown = ", ".join(f"{e} at offset {copy} ({inp} in the input)"
                          for e, copy, inp in moved[:_SHOWN])
        more = f" and {len(moved) - _SHOWN} more" if len(moved) > _SHOWN else ""
        notes.append(f"{'leader epoch' if len(moved) == 1 else 'leader epochs'} starting "
                     f"elsewhere in the copy than in the input's leader-epoch-checkpoint: "
                     f"{shown}{more}")
    return notes


#: epochs named one by one in a note; more are counted
_SHOWN = 5


def _epochs(entries: list[tuple[int, int]]) -> str:
    """``leader epoch 7 (from offset 120)``, or runs of consecutive epochs starting at one
    offset: ``50 leader epochs: 1-50 from offset 9``, ``3 leader epochs: 2 from offset 0,
    3-4 from offset 9`` (the first :data:`_SHOWN` runs, then a count)."""
    if len(entries) == 1:
        epoch, start = entries[0]
        return f"leader epoch {epoch} (from offset {start})"
    runs: list[list[int]] = []  # [first epoch, last epoch, start offset]
    for epoch, start in entries:
        if runs and runs[-1][1] + 1 == epoch and runs[-1][2] == start:
            runs[-1][1] = epoch
        else:
            runs.append([epoch, epoch, start])
    shown = ", ".join((f"{a}" if a == b else f"{a}-{b}") + f" from offset {o}"
                      for a, b, o in runs[:_SHOWN])
    more = f" and {len(runs) - _SHOWN} more" if len(runs) > _SHOWN else ""
    return f"{len(entries)} leader epochs ({shown}{more})"


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


def _metadata_notes(by_kind: dict[str, list[KafkaFile]], bases: list[int],
                    holes: list[tuple[int, int]], kept: list[int]) -> list[str]:
    """What a KRaft log's copy means for the quorum.  A replay starts from the latest
    snapshot (KafkaRaftClient, MetadataLoader): offsets missing below it are not needed;
    above it the replay would skip records, and a voter never fetches below its log end
    again.  With a log start above 0, a snapshot at or above it must exist, or the broker
    refuses to start (KafkaMetadataLog.recoverSnapshots, 4.1)."""
    notes = []
    latest = max(kept, default=None)
    for first, last in holes:
        if latest is not None and last < latest:
            notes.append(f"offsets {first}-{last} missing from the metadata log lie below the "
                         f"kept snapshot at offset {latest}: a replay starts from it and does "
                         "not need them")
        else:
            notes.append(f"offsets {first}-{last} missing from the metadata log: a replay "
                         "skips their records and a voter never fetches offsets below its log "
                         "end again; prefer a healthy controller's copy of this log")
    start = bases[0] if bases else 0
    if start > 0 and not any(s >= start for s in kept):
        notes.append(f"the metadata log starts at offset {start} and no intact KRaft snapshot "
                     "at or above it is kept: the broker will refuse to start (KafkaMetadataLog."
                     "recoverSnapshots: \"Inconsistent snapshot state\")")
    return notes


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



__all__ = ["DAMAGED", "METADATA_TOPIC", "infer_interval", "intact_log", "repair_partition"]
