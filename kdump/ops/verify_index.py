"""``kdump verify-index``: indexes, snapshots and checkpoints against the logs.

* ``.index`` / ``.timeindex``: what DumpLogSegments checks (each offset entry points
  at a batch whose last offset is the entry's offset; each time entry names a batch's
  last offset and that batch's max timestamp; time entries strictly increase), plus
  the broker's sanity checks (AbstractIndex/OffsetIndex/TimeIndex ``sanityCheck``),
  entries ascending, positions inside the log, trailing zero slots recognised.
* ``.txnindex``: rebuilt from the partition's transaction markers
  (ProducerStateManager.lastStableOffset gives each entry's LSO) and compared.
* producer ``.snapshot``: each producer's epoch, last sequence and last offset against
  its last batch before the snapshot offset.
* ``leader-epoch-checkpoint``: against the epochs the batches carry (LogSegment.recover
  assigns an epoch at the first batch that raises it).
* log-dir checkpoints: against the partitions that exist.

``rebuild`` computes the index files Kafka would rebuild (LogSegment.recover) and can
write them into a separate directory; inputs are never written.
"""

from __future__ import annotations

import os
from array import array
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import pairwise
from typing import Any

from .. import fs as kfs
from .. import layouts as L
from ..errors import KdumpError, OutputError, UsageError
from ..files.index import OffsetIndex, TimeIndex, offset_index_sanity, time_index_sanity
from ..files.logdir import KafkaFile, walk
from ..files.snapshot import ProducerSnapshot, read_producer_snapshot
from ..files.text import OFFSET_CHECKPOINTS, iter_checkpoint, read_checkpoint
from ..files.txnindex import AbortedTxn, partial_tail, read_txn_index
from ..findings import ERROR, INFO, WARNING, Problem
from ..parallel import Spilled, ordered_map
from ..records.control import parse_control
from ..records.file_records import LogReader
from ..records.v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch
from ..source import FileSource
from . import tiered
from .verify import Summary

#: an index with more used entries than this is checked by sanity rules only (entries
#: not loaded); a full index at Kafka's default segment.index.bytes (10 MiB) has 1.3 M
MAX_INDEX_ENTRIES = 2 << 20


@dataclass(slots=True)
class VerifyIndexOptions:
    sanity_only: bool = False
    rebuild_into: str | None = None
    index_interval_bytes: int = L.DEFAULT_INDEX_INTERVAL_BYTES
    #: batches larger than this (decompressed) are reported, not held
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
    #: stop reading a log at its first damaged batch instead of resynchronising
    strict: bool = False


@dataclass(slots=True)
class Segment:
    base: int
    log: KafkaFile | None = None
    index: KafkaFile | None = None
    time_index: KafkaFile | None = None
    txn_index: KafkaFile | None = None
    #: index entries, loaded once by the sanity checks and reused by the log pass
    offset_entries: _Entries | None = None
    time_entries: _Entries | None = None


@dataclass(slots=True)
class PartitionState:
    """What a pass over a partition's logs learns (for the log-dir checkpoints)."""

    topic: str
    partition: int
    path: str
    first_offset: int | None = None
    log_end_offset: int | None = None


@dataclass(slots=True)
class _Producer:
    epoch: int = -1
    last_sequence: int = -1
    last_offset: int = -1
    coordinator_epoch: int = -1
    has_data: bool = False


@dataclass(slots=True)
class _PartitionPass:
    """State carried across the segments of one partition."""

    producers: dict[int, _Producer] = field(default_factory=dict)
    ongoing: dict[int, int] = field(default_factory=dict)  # pid -> first offset of open txn
    aborted: dict[int, list[tuple[int, int, int, int]]] = field(default_factory=dict)
    epochs: list[tuple[int, int]] = field(default_factory=list)  # (epoch, start offset)
    first_offset: int | None = None
    next_offset: int | None = None
    snapshots: deque[KafkaFile] = field(default_factory=deque)


def verify_index(paths: Iterable[str], opts: VerifyIndexOptions, jobs: int = 1
                 ) -> Iterator[Problem | Summary]:
    """``jobs`` worker processes check partitions in parallel (the same output for any
    ``jobs``)."""
    summary = Summary("verify-index")
    for p in _verify(paths, opts, summary, jobs):
        summary.add_problem(p)
        yield p
    yield summary


@dataclass(slots=True)
class _PartitionJob:
    directory: str
    files: list[KafkaFile]


def _walk_partitions(paths: Iterable[str]) -> Iterator[Problem | KafkaFile | _PartitionJob]:
    """The walk, each partition's files gathered into one job (root files as they are)."""
    current: list[KafkaFile] = []
    current_dir: str | None = None
    for item in walk(paths):
        if isinstance(item, Problem) or item.topic is None:
            yield item
            continue
        d = os.path.dirname(kfs.abspath(item.path))
        if d != current_dir:
            if current and current_dir is not None:
                yield _PartitionJob(current_dir, current)
            current, current_dir = [], d
        current.append(item)
    if current and current_dir is not None:
        yield _PartitionJob(current_dir, current)


def _partition_job(opts: VerifyIndexOptions, job: _PartitionJob
                   ) -> tuple[Spilled, PartitionState, Summary]:
    """One partition verified (a worker's unit of work): its problems, what the pass
    learnt, and the counts for the summary."""
    files = job.files
    state = PartitionState(files[0].topic or "", files[0].partition or 0, job.directory)
    counts = Summary("verify-index")
    problems = Spilled(verify_partition(job.directory, files, opts, state, counts))
    return problems, state, counts


def _partition_here(opts: VerifyIndexOptions, job: _PartitionJob) -> Any:
    """A single partition, checked in this process: problems streamed as found (the
    counts are complete once they have all been read)."""
    files = job.files
    state = PartitionState(files[0].topic or "", files[0].partition or 0, job.directory)
    counts = Summary("verify-index")
    return verify_partition(job.directory, files, opts, state, counts), state, counts


def _serial_jobs(jobs: Iterable[Any], opts: VerifyIndexOptions, summary: Summary
                 ) -> Iterator[Any]:
    for job in jobs:
        if isinstance(job, _PartitionJob):
            state = PartitionState(job.files[0].topic or "", job.files[0].partition or 0,
                                   job.directory)
            yield job, verify_partition(job.directory, job.files, opts, state, summary), state
        else:
            yield job


def _verify(paths: Iterable[str], opts: VerifyIndexOptions, summary: Summary, jobs: int = 1
            ) -> Iterator[Problem]:
    if opts.rebuild_into:
        _check_rebuild_dir(paths, opts.rebuild_into)
    roots: dict[str, list[KafkaFile]] = {}
    partitions: dict[str, dict[tuple[str, int], PartitionState]] = {}

    def is_job(item: object) -> bool:
        return isinstance(item, _PartitionJob)

    remote_logs: list[KafkaFile] = []
    metadata_logs: list[KafkaFile] = []

    def noted(walked: Iterable[Any]) -> Iterator[Any]:
        """Remember the tiered storage's segments and __remote_log_metadata's logs."""
        for job in walked:
            if isinstance(job, _PartitionJob):
                remote_logs.extend(f for f in job.files if tiered.is_remote_log(f))
                metadata_logs.extend(f for f in job.files if tiered.is_metadata_log(f))
            yield job

    if jobs <= 1:  # streaming: a partition's problems as they are found
        items: Iterable[Any] = _serial_jobs(noted(_walk_partitions(paths)), opts, summary)
    else:
        items = ordered_map(partial(_partition_job, opts), noted(_walk_partitions(paths)), jobs,
                            is_job, inline=partial(_partition_here, opts))
    for item in items:
        if isinstance(item, Problem):
            if item.severity != INFO:
                yield item
            continue
        if isinstance(item, KafkaFile):  # log-dir root file
            roots.setdefault(os.path.dirname(kfs.abspath(item.path)), []).append(item)
            continue
        if isinstance(item[0], _PartitionJob):
            _job, found, state = item
            yield from found
        else:
            found, state, counts = item
            yield from found
            for name in ("files", "bytes", "batches", "valid_batches", "invalid_batches",
                         "records", "unreadable_bytes"):
                setattr(summary, name, getattr(summary, name) + getattr(counts, name))
        logdir = os.path.dirname(kfs.abspath(state.path))
        partitions.setdefault(logdir, {})[(state.topic, state.partition)] = state
    if not opts.sanity_only:
        for logdir, files in roots.items():
            yield from verify_root_checkpoints(files, partitions.get(logdir, {}))
        yield from tiered.check(remote_logs, metadata_logs)


def _check_rebuild_dir(paths: Iterable[str], out: str) -> None:
    real_out = os.path.realpath(out)
    for p in paths:
        real = os.path.realpath(p)
        base = real if os.path.isdir(real) else os.path.dirname(real)
        if real_out == base or real_out.startswith(base + os.sep):
            raise UsageError(f"--rebuild-into {out} lies inside the input {p}: indexes are never "
                             "written next to the data they describe")


# --- one partition ---------------------------------------------------------------------
def verify_partition(
    directory: str, files: list[KafkaFile], opts: VerifyIndexOptions, state: PartitionState,
    summary: Summary,
) -> Iterator[Problem]:
    segments: dict[int, Segment] = {}
    snapshots: list[KafkaFile] = []
    epoch_file: KafkaFile | None = None
    active_base: int | None = None
    for f in files:
        if f.leftover is not None or f.base_offset is None:
            if f.kind == "leader-epoch-checkpoint" and f.leftover is None:
                epoch_file = f
            continue
        if f.kind == "producer-snapshot":
            snapshots.append(f)
            continue
        seg = segments.setdefault(f.base_offset, Segment(f.base_offset))
        if f.kind == "log":
            seg.log = f
            if f.active:
                active_base = f.base_offset
        elif f.kind == "offset-index":
            seg.index = f
        elif f.kind == "time-index":
            seg.time_index = f
        elif f.kind == "txn-index":
            seg.txn_index = f

    ppass = _PartitionPass()
    snaps = sorted(snapshots, key=lambda s: s.base_offset or 0)
    ppass.snapshots.extend(snaps)
    bases = sorted(segments)
    for base in bases:
        seg = segments[base]
        yield from _guarded(_sanity(seg, base == active_base), directory)
        if opts.sanity_only or seg.log is None:
            continue
        yield from _guarded(_segment_pass(seg, base == active_base, opts, ppass, summary),
                            seg.log.path)
    if opts.sanity_only:
        for snap in snaps:
            yield from _snapshot_sanity(snap)
        return
    while ppass.snapshots:  # snapshots at or past the log end: the final state
        yield from _check_snapshot(ppass.snapshots.popleft(), ppass)
    # a segment's .txnindex holds the aborted transactions whose ABORT marker it holds
    for k, base in enumerate(bases):
        end = bases[k + 1] if k + 1 < len(bases) else None
        yield from _check_txn_index(segments[base], end, ppass, opts)
    if epoch_file is not None:
        yield from _check_leader_epochs(epoch_file, ppass)
    state.first_offset = ppass.first_offset
    state.log_end_offset = ppass.next_offset if ppass.next_offset is not None else (
        max(segments) if segments else None)


def _guarded(problems: Iterator[Problem], path: str) -> Iterator[Problem]:
    """``problems``, and a read that fails midway (EIO, a file cut short under us) as
    one more finding instead of the end of the run: the walk goes on."""
    try:
        yield from problems
    except OutputError:
        raise  # --rebuild-into cannot write: the run stops (exit 2)
    except KdumpError as err:
        yield Problem(err.path or path, err.position, "unreadable-file", err.message,
                      base_offset=err.base_offset)


def _sanity(seg: Segment, active: bool) -> Iterator[Problem]:
    """The broker's startup checks, and entries ascending, for one segment's indexes."""
    log_size = None
    if seg.log is not None:
        try:
            log_size = kfs.getsize(seg.log.path)
        except OSError:
            log_size = None
    for f, cls in ((seg.index, OffsetIndex), (seg.time_index, TimeIndex)):
        if f is None:
            if seg.log is not None and log_size:
                yield Problem(seg.log.path, None, "index-missing",
                              f"segment has no {'.index' if cls is OffsetIndex else '.timeindex'}"
                              " file (the broker rebuilds it)", severity=WARNING)
            continue
        try:
            src = FileSource(f.path)
        except KdumpError as err:
            yield Problem(f.path, None, "unreadable-file", err.message)
            continue
        with src:
            idx = cls(src, seg.base)
            if not idx.size_is_multiple:
                yield Problem(f.path, (src.size // idx.entry_size) * idx.entry_size, "index-size",
                              f"{src.size} bytes is not a multiple of the {idx.entry_size}-byte "
                              "entry size", length=src.size % idx.entry_size)
            why = (offset_index_sanity(idx) if isinstance(idx, OffsetIndex)
                   else time_index_sanity(idx))
            used = idx.used_slots()
            zero_slots = idx.slots - used
            if why is not None and not (zero_slots and active and "time index" in why):
                yield Problem(f.path, 0, "index-sanity", why + " (the broker would rebuild it)",
                              severity=WARNING)
            if zero_slots:
                yield Problem(
                    f.path, used * idx.entry_size, "index-zero-slots",
                    f"{zero_slots} zero entries after the {used} used ones (preallocated "
                    + ("for the active segment" if active else
                       "and never trimmed: the segment was not closed cleanly") + ")",
                    length=zero_slots * idx.entry_size, severity=INFO if active else WARNING)
        entries = _load_entries(f, cls, seg.base)
        if entries is None:
            continue
        if cls is OffsetIndex:
            seg.offset_entries = entries
            yield from _offset_order(f.path, entries, seg.base, log_size)
        else:
            seg.time_entries = entries
            yield from _time_order(f.path, entries)
    if seg.txn_index is not None:
        try:
            with FileSource(seg.txn_index.path) as src:
                for txn in read_txn_index(src):
                    if txn.version != 0:
                        yield Problem(src.path, txn.position, "txn-index",
                                      f"entry {txn.slot} has version {txn.version}; Kafka knows 0")
                    if txn.last_offset < seg.base:
                        yield Problem(src.path, txn.position, "index-sanity",
                                      f"last offset {txn.last_offset} of aborted transaction "
                                      f"{txn.slot} is less than start offset {seg.base}")
                tail = partial_tail(src)
                if tail:
                    yield Problem(src.path, src.size - tail, "index-size",
                                  f"{tail} trailing bytes are not a whole 34-byte entry",
                                  length=tail, severity=WARNING)
        except KdumpError as err:
            yield Problem(seg.txn_index.path, None, "unreadable-file", err.message)


def _offset_order(path: str, e: _Entries, base: int, log_size: int | None) -> Iterator[Problem]:
    """Offset index entries ascend (offset and position) and point inside the log."""
    size = L.OFFSET_INDEX_ENTRY_SIZE
    for slot in range(len(e)):
        key, pos = base + e.first[slot], e.second[slot]
        if slot and (e.first[slot] <= e.first[slot - 1] or pos <= e.second[slot - 1]):
            yield Problem(path, slot * size, "index-order",
                          f"entry {slot} (offset {key}, position {pos}) does not ascend from "
                          f"the previous (offset {base + e.first[slot - 1]}, position "
                          f"{e.second[slot - 1]})")
        if log_size is not None and pos >= log_size:
            yield Problem(path, slot * size, "index-position",
                          f"entry {slot} points at byte {pos}, past the end of the log "
                          f"({log_size} bytes)", extra={"index_offset": key, "log_offset": -1})


def _time_order(path: str, e: _Entries) -> Iterator[Problem]:
    """Time index timestamps strictly increase."""
    for slot in range(1, len(e)):
        if e.first[slot] <= e.first[slot - 1]:
            yield Problem(path, slot * L.TIME_INDEX_ENTRY_SIZE, "index-order",
                          f"entry {slot}: timestamp {e.first[slot]} is not above the previous "
                          f"entry's {e.first[slot - 1]}")


@dataclass(slots=True)
class _Entries:
    """The used entries of an index, compact, by slot: a full 10 MiB index holds 1.3 M
    entries, which as objects (and a dict by position) took 700 MB.  Offset index:
    ``first`` relative offsets, ``second`` positions; time index: ``first`` timestamps,
    ``second`` relative offsets."""

    first: array[int]
    second: array[int]

    def __len__(self) -> int:
        return len(self.first)


def _load_entries(f: KafkaFile | None, cls: type, base: int) -> _Entries | None:
    if f is None:
        return None
    try:
        with FileSource(f.path) as src:
            idx = cls(src, base)
            used = idx.used_slots()
            if used > MAX_INDEX_ENTRIES:
                return None
            st = L.OFFSET_INDEX_ENTRY if cls is OffsetIndex else L.TIME_INDEX_ENTRY
            entries = _Entries(array("i" if cls is OffsetIndex else "q"), array("i"))
            step = 1 << 16
            for start in range(0, used, step):
                data = src.pread(start * st.size, min(step, used - start) * st.size)
                for a, b in st.iter_unpack(data[: len(data) - len(data) % st.size]):
                    entries.first.append(a)
                    entries.second.append(b)
            return entries
    except KdumpError:
        return None


def _order(values: array[int]) -> Sequence[int]:
    """Slots in ascending order of ``values``, ties in slot order (no list when the
    values already ascend, as in a sane index)."""
    if all(a <= b for a, b in pairwise(values)):
        return range(len(values))
    return sorted(range(len(values)), key=values.__getitem__)


def _segment_pass(
    seg: Segment, active: bool, opts: VerifyIndexOptions, pp: _PartitionPass, summary: Summary,
) -> Iterator[Problem]:
    """One shallow pass over a segment's batches checks both indexes, rebuilds them, and
    feeds the partition-level producer, transaction and epoch state."""
    assert seg.log is not None
    base = seg.base
    offset_entries = seg.offset_entries  # loaded by _sanity
    time_entries = seg.time_entries
    empty = _Entries(array("i"), array("i"))
    # offset entries merged with the batches by position, time entries by offset (both
    # ascend in a sane segment); entries matching no batch are kept by slot
    o_rel, o_pos = (offset_entries or empty).first, (offset_entries or empty).second
    o_order = _order(o_pos)
    oj = 0
    unmatched = array("i")
    t_ts, t_rel = (time_entries or empty).first, (time_entries or empty).second
    t_order = _order(t_rel)
    tj = 0
    index_path = seg.index.path if seg.index else seg.log.path
    time_path = seg.time_index.path if seg.time_index else seg.log.path
    inside = 0  # entries naming a record inside a batch (older brokers)
    # LogSegment.recover, to rebuild
    rebuilt_offsets: list[tuple[int, int]] = []
    rebuilt_times: list[tuple[int, int]] = []
    max_ts, max_ts_offset = L.NO_TIMESTAMP, seg.base
    valid_bytes = last_index_entry = 0
    rebuilding = True
    try:
        src = FileSource(seg.log.path)
    except KdumpError as err:
        yield Problem(seg.log.path, None, "unreadable-file", err.message)
        return
    with src:
        summary.files += 1
        summary.bytes += src.size
        reader = LogReader(src, active=active, resync=not opts.strict,
                           max_batch_bytes=opts.max_batch_bytes)
        for item in reader:
            if isinstance(item, Problem):
                rebuilding = False  # recover() truncates at the first invalid batch
                continue
            b = item
            summary.batches += 1
            valid = b.crc_valid
            if valid:
                summary.valid_batches += 1
            else:
                summary.invalid_batches += 1
                rebuilding = False
            while oj < len(o_order) and o_pos[o_order[oj]] <= b.position:
                slot = o_order[oj]
                oj += 1
                if o_pos[slot] < b.position:
                    unmatched.append(slot)  # no batch starts there
                    continue
                offset = base + o_rel[slot]
                if offset != b.last_offset:
                    yield Problem(
                        index_path, slot * L.OFFSET_INDEX_ENTRY_SIZE, "index-mismatch",
                        f"entry {slot} says offset {offset} is at byte {b.position}, but the "
                        f"batch there ends at offset {b.last_offset}",
                        extra={"index_offset": offset, "log_offset": b.last_offset})
            base_offset = b.first_offset
            while tj < len(t_order) and base + t_rel[t_order[tj]] <= b.last_offset:
                slot = t_order[tj]
                tj += 1
                offset, timestamp = base + t_rel[slot], t_ts[slot]
                where = slot * L.TIME_INDEX_ENTRY_SIZE
                if offset < base_offset:
                    yield Problem(time_path, where, "index-mismatch",
                                  f"entry {slot}: offset {offset} is in no batch",
                                  extra={"check": "offset-not-found", "index_offset": offset,
                                         "log_offset": b.last_offset})
                    continue
                if offset != b.last_offset:
                    inside += 1
                if timestamp != b.max_timestamp:
                    yield Problem(
                        time_path, where, "index-mismatch",
                        f"entry {slot}: timestamp {timestamp} for offset {offset}, but that "
                        f"batch's max timestamp is {b.max_timestamp}",
                        extra={"check": "timestamp", "index_timestamp": timestamp,
                               "log_timestamp": b.max_timestamp})
            if rebuilding:
                if b.max_timestamp > max_ts:
                    max_ts, max_ts_offset = b.max_timestamp, b.last_offset
                if valid_bytes - last_index_entry > opts.index_interval_bytes:
                    rebuilt_offsets.append((b.last_offset, valid_bytes))
                    if not rebuilt_times or max_ts > rebuilt_times[-1][0]:
                        rebuilt_times.append((max_ts, max_ts_offset))
                    last_index_entry = valid_bytes
                valid_bytes += b.size
            first = b.first_offset
            while pp.snapshots and (pp.snapshots[0].base_offset or 0) <= first:
                yield from _check_snapshot(pp.snapshots.popleft(), pp)
            _feed(pp, b)
        unmatched.extend(o_order[oj:])
        for slot in sorted(unmatched):
            offset = base + o_rel[slot]
            yield Problem(
                index_path, slot * L.OFFSET_INDEX_ENTRY_SIZE, "index-mismatch",
                f"entry {slot} (offset {offset}) points at byte {o_pos[slot]}, where no "
                "batch starts", extra={"index_offset": offset, "log_offset": -1})
        for slot in t_order[tj:]:
            offset = base + t_rel[slot]
            yield Problem(time_path, slot * L.TIME_INDEX_ENTRY_SIZE, "index-mismatch",
                          f"entry {slot}: offset {offset} is beyond the last batch",
                          extra={"check": "offset-not-found", "index_offset": offset,
                                 "log_offset": -1})
        if inside:
            yield Problem(time_path, None, "index-mismatch",
                          f"{inside} entries name a record inside a batch rather than the batch's "
                          "last offset, as brokers before Kafka 3.8 (KAFKA-16310) wrote them; "
                          "their timestamps match", severity=INFO, extra={"check": "older-broker"})
    if max_ts >= 0 and (not rebuilt_times or max_ts > rebuilt_times[-1][0]):
        rebuilt_times.append((max_ts, max_ts_offset))
    yield from _compare_rebuilt(seg, offset_entries, time_entries, rebuilt_offsets, rebuilt_times,
                                active, opts)


def _fitting_entries(entries: list[tuple[int, int]], base: int, what: str) -> int:
    """How many leading entries fit an index file: relative offsets and positions are
    int32 there (AbstractIndex.relativeOffset, OffsetIndex.append)."""
    for k, (a, b) in enumerate(entries):
        rel, position = (a - base, b) if what == "offset" else (b - base, 0)
        if not (-L.INT32_MAX - 1 <= rel <= L.INT32_MAX and 0 <= position <= L.INT32_MAX):
            return k
    return len(entries)


def _compare_rebuilt(
    seg: Segment, offset_entries: _Entries | None, time_entries: _Entries | None,
    rebuilt_offsets: list[tuple[int, int]], rebuilt_times: list[tuple[int, int]], active: bool,
    opts: VerifyIndexOptions,
) -> Iterator[Problem]:
    from .rebuild import write_rebuilt

    base = seg.base
    pairs = (
        (seg.index, offset_entries, rebuilt_offsets, "offset", L.INDEX_SUFFIX),
        (seg.time_index, time_entries, rebuilt_times, "time", L.TIME_INDEX_SUFFIX),
    )
    for f, loaded, rebuilt, what, suffix in pairs:
        if opts.rebuild_into:
            assert seg.log is not None
            fits = _fitting_entries(rebuilt, seg.base, what)
            if fits < len(rebuilt):
                bad = rebuilt[fits]
                offset = bad[0] if what == "offset" else bad[1]
                yield Problem(
                    seg.log.path, None, "index-differs",
                    f"offset {offset} lies {offset - seg.base} from the segment's base offset "
                    f"{seg.base}: no 4-byte relative {what}-index entry holds it (Kafka splits "
                    "such a segment, LogSegmentOffsetOverflowException); the rebuilt "
                    f"{suffix} stops after {fits} entries", severity=WARNING)
            write_rebuilt(opts.rebuild_into, seg.log.path, seg.base, suffix, rebuilt[:fits])
        if f is None or loaded is None:
            continue
        a, b = loaded.first, loaded.second
        on_disk = len(loaded)
        common = min(on_disk, len(rebuilt))
        if what == "offset":
            first = next((i for i in range(common) if (base + a[i], b[i]) != rebuilt[i]), common)
        else:
            first = next((i for i in range(common) if (a[i], base + b[i]) != rebuilt[i]), common)
        if first == common and on_disk == len(rebuilt):
            continue  # the same entries
        if not opts.rebuild_into and first == common and active:
            continue  # the active segment's index is written as data arrives
        yield Problem(
            f.path, first * (L.OFFSET_INDEX_ENTRY_SIZE if what == "offset" else
                             L.TIME_INDEX_ENTRY_SIZE), "index-differs",
            f"{on_disk} {what}-index entries on disk, {len(rebuilt)} when rebuilt from the "
            f"log with index.interval.bytes={opts.index_interval_bytes}; first difference at "
            f"entry {first} (a topic with another index.interval.bytes, or appends of several "
            "batches at once, index differently)",
            severity=INFO, extra={"entries_on_disk": on_disk, "entries_rebuilt": len(rebuilt),
                                  "first_difference": first})


def _feed(pp: _PartitionPass, b: Any) -> None:
    """Producer, transaction and leader-epoch state, batch by batch."""
    if pp.first_offset is None:
        pp.first_offset = b.base_offset
    pp.next_offset = b.last_offset + 1
    if not isinstance(b, RecordBatch):
        return
    if b.partition_leader_epoch >= 0 and (not pp.epochs or b.partition_leader_epoch > pp.epochs[-1][0]):
        pp.epochs.append((b.partition_leader_epoch, b.base_offset))
    pid = b.producer_id
    if pid < 0:
        return
    prod = pp.producers.setdefault(pid, _Producer())
    if b.is_control:
        ctl_type = None
        try:
            for rec in b.records():
                ctl = parse_control(rec)
                ctl_type = ctl.type_id
                if ctl.coordinator_epoch is not None:
                    prod.coordinator_epoch = ctl.coordinator_epoch
                break
        except KdumpError:
            return
        if b.producer_epoch > prod.epoch:
            prod.epoch = b.producer_epoch
        if ctl_type in (0, 1) and b.is_transactional:
            first = pp.ongoing.pop(pid, None)
            if ctl_type == 0:
                others = [o for p, o in pp.ongoing.items() if p != pid]
                lso = min(others) if others else b.base_offset + 1
                pp.aborted.setdefault(b.base_offset, []).append(
                    (pid, -1 if first is None else first, b.base_offset, lso))
        return
    prod.epoch = b.producer_epoch
    prod.last_sequence = b.last_sequence
    prod.last_offset = b.last_offset
    prod.has_data = True
    if b.is_transactional and pid not in pp.ongoing:
        pp.ongoing[pid] = b.base_offset


def _check_txn_index(
    seg: Segment, end: int | None, pp: _PartitionPass, opts: VerifyIndexOptions
) -> Iterator[Problem]:
    """Compare a segment's .txnindex with the aborted transactions whose ABORT marker
    lies in ``[seg.base, end)``."""
    expected = sorted(
        (t for marker, ts in pp.aborted.items() for t in ts
         if marker >= seg.base and (end is None or marker < end)),
        key=lambda t: t[2],
    )
    if opts.rebuild_into and seg.log is not None and (expected or seg.txn_index is not None):
        from .rebuild import write_rebuilt_txn

        write_rebuilt_txn(opts.rebuild_into, seg.log.path, seg.base, expected)
    # the entries whose marker the log has, by marker offset (the last one of each wins);
    # the others are reported in a second pass over the file, so memory follows the log,
    # not a (possibly huge, hostile) .txnindex
    markers = {t[2] for t in expected}
    have: dict[int, AbortedTxn] = {}
    if seg.txn_index is not None:
        try:
            with FileSource(seg.txn_index.path) as src:
                for txn in read_txn_index(src):
                    if txn.last_offset in markers:
                        have[txn.last_offset] = txn
        except KdumpError:
            return
    path = seg.txn_index.path if seg.txn_index is not None else (seg.log.path if seg.log else "")
    for pid, first, last, lso in expected:
        t = have.get(last)
        if t is None:
            yield Problem(path, None, "txn-index",
                          f"aborted transaction of producer {pid} (ABORT marker at offset {last}) "
                          "is missing from the transaction index")
            continue
        diffs = []
        if t.producer_id != pid:
            diffs.append(f"producer {t.producer_id}, the marker's is {pid}")
        if first >= 0 and t.first_offset != first:
            diffs.append(f"first offset {t.first_offset}, the log says {first}")
        if t.last_stable_offset != lso:
            diffs.append(f"last stable offset {t.last_stable_offset}, the log says {lso}")
        if diffs:
            yield Problem(path, t.position, "txn-index",
                          f"entry {t.slot} (marker at offset {last}): " + "; ".join(diffs),
                          severity=WARNING if t.producer_id == pid else ERROR)
    if seg.txn_index is None:
        return
    try:
        with FileSource(seg.txn_index.path) as src:
            for txn in read_txn_index(src):
                if txn.last_offset not in markers:
                    yield Problem(path, txn.position, "txn-index",
                                  f"entry {txn.slot}: no ABORT marker of producer "
                                  f"{txn.producer_id} at offset {txn.last_offset} in this segment")
    except KdumpError:
        return


def _check_snapshot(f: KafkaFile, pp: _PartitionPass) -> Iterator[Problem]:
    try:
        with FileSource(f.path) as src:
            snap = read_producer_snapshot(src)
    except KdumpError as err:
        yield Problem(f.path, err.position, "snapshot-corrupt", err.message)
        return
    if not snap.crc_valid:
        yield Problem(f.path, 2, "snapshot-crc",
                      f"stored CRC-32C {snap.crc} does not match the computed {snap.computed_crc}")
        return
    yield from _compare_snapshot(snap, pp)


def _snapshot_sanity(f: KafkaFile) -> Iterator[Problem]:
    try:
        with FileSource(f.path) as src:
            snap = read_producer_snapshot(src)
    except KdumpError as err:
        yield Problem(f.path, err.position, "snapshot-corrupt", err.message)
        return
    if not snap.crc_valid:
        yield Problem(f.path, 2, "snapshot-crc",
                      f"stored CRC-32C {snap.crc} does not match the computed {snap.computed_crc}")


def _compare_snapshot(snap: ProducerSnapshot, pp: _PartitionPass) -> Iterator[Problem]:
    for k, e in enumerate(snap.entries):
        where = L.SNAPSHOT_HEADER_SIZE + k * L.SNAPSHOT_ENTRY_SIZE
        prod = pp.producers.get(e.producer_id)
        if prod is None or not prod.has_data:
            if e.has_batch_metadata and pp.first_offset is not None and \
                    e.last_offset >= pp.first_offset:
                yield Problem(snap.path, where, "snapshot-mismatch",
                              f"producer {e.producer_id} has last offset {e.last_offset}, but no "
                              "batch of it is in the log before the snapshot", severity=WARNING)
            continue
        if not e.has_batch_metadata:
            continue
        diffs = []
        if e.last_offset != prod.last_offset:
            diffs.append(f"last offset {e.last_offset}, the log says {prod.last_offset}")
        if e.last_sequence != prod.last_sequence:
            diffs.append(f"last sequence {e.last_sequence}, the log says {prod.last_sequence}")
        if e.producer_epoch < prod.epoch:
            diffs.append(f"epoch {e.producer_epoch}, the log says {prod.epoch}")
        if diffs:
            yield Problem(snap.path, where, "snapshot-mismatch",
                          f"producer {e.producer_id}: " + "; ".join(diffs), severity=WARNING)


def _check_leader_epochs(f: KafkaFile, pp: _PartitionPass) -> Iterator[Problem]:
    try:
        with FileSource(f.path) as src:
            cp = read_checkpoint(src, "leader-epoch-checkpoint")
    except KdumpError as err:
        yield Problem(f.path, err.position, "checkpoint", err.message)
        return
    entries = [(e.fields["epoch"], e.fields["start_offset"]) for e in cp.entries]
    for (e1, s1), (e2, s2) in pairwise(entries):
        if e2 <= e1 or s2 < s1:
            yield Problem(f.path, None, "leader-epoch",
                          f"entries (epoch {e1}, start {s1}) and (epoch {e2}, start {s2}) do not "
                          "ascend")
    have = dict(entries)
    for epoch, start in pp.epochs:
        got = have.get(epoch)
        if got is None:
            yield Problem(f.path, None, "leader-epoch",
                          f"batches carry leader epoch {epoch} from offset {start}, but the "
                          "checkpoint has no entry for it", severity=WARNING)
        elif got != start and not (pp.first_offset is not None and got < pp.first_offset
                                   and start == pp.first_offset):
            yield Problem(f.path, None, "leader-epoch",
                          f"epoch {epoch} starts at offset {got} in the checkpoint, but its first "
                          f"batch in the log is at offset {start}", severity=WARNING)
    log_epochs = {e for e, _ in pp.epochs}
    for epoch, start in entries:
        if epoch not in log_epochs and pp.next_offset is not None and start < pp.next_offset and \
                (pp.first_offset is None or start >= pp.first_offset):
            yield Problem(f.path, None, "leader-epoch",
                          f"checkpoint says epoch {epoch} starts at offset {start}, but no batch "
                          "in the log carries that epoch", severity=WARNING)


# --- the log dir's checkpoints -----------------------------------------------------------
def _check_root_entries(
    f: KafkaFile, src: FileSource, field_name: str,
    partitions: dict[tuple[str, int], PartitionState], seen_recovery: set[tuple[str, int]],
) -> Iterator[Problem]:
    """A log-dir checkpoint's entries against the partitions, an entry at a time."""
    for e in iter_checkpoint(src, f.kind):
        key = (e.fields["topic"], e.fields["partition"])
        value = e.fields[field_name]
        if f.kind == "recovery-point-offset-checkpoint" and key in partitions:
            seen_recovery.add(key)
        st = partitions.get(key)
        if st is None:
            if partitions:
                yield Problem(f.path, None, "checkpoint",
                              f"line {e.line}: {key[0]}-{key[1]} is not a partition of this "
                              "log dir", severity=WARNING)
            continue
        leo = st.log_end_offset
        if leo is not None and value > leo:
            what = {"recovery_point": "recovery point", "high_watermark": "high watermark",
                    "log_start_offset": "log start offset",
                    "cleaner_checkpoint": "cleaner checkpoint"}[field_name]
            yield Problem(f.path, None, "checkpoint",
                          f"line {e.line}: {what} {value} of {key[0]}-{key[1]} is beyond its "
                          f"log end offset {leo}", severity=WARNING,
                          extra={"topic": key[0], "partition": key[1], field_name: value,
                                 "log_end_offset": leo})


def verify_root_checkpoints(
    files: list[KafkaFile], partitions: dict[tuple[str, int], PartitionState]
) -> Iterator[Problem]:
    seen_recovery: set[tuple[str, int]] = set()
    have_recovery_file = False
    for f in files:
        if f.kind not in OFFSET_CHECKPOINTS or f.leftover is not None:
            continue
        try:
            with FileSource(f.path) as src:
                for _ in iter_checkpoint(src, f.kind):  # the whole file parses first
                    pass
        except KdumpError as err:
            yield Problem(f.path, err.position, "checkpoint", err.message)
            continue
        field_name = OFFSET_CHECKPOINTS[f.kind]
        if f.kind == "recovery-point-offset-checkpoint":
            have_recovery_file = True
        try:
            src = FileSource(f.path)
        except KdumpError as err:
            yield Problem(f.path, err.position, "checkpoint", err.message)
            continue
        with src:
            try:
                yield from _check_root_entries(f, src, field_name, partitions, seen_recovery)
            except KdumpError as err:  # changed between the two reads
                yield Problem(f.path, err.position, "checkpoint", err.message)
    if have_recovery_file:
        for key, st in sorted(partitions.items()):
            if key not in seen_recovery:
                yield Problem(st.path, None, "checkpoint",
                              "partition is not in recovery-point-offset-checkpoint (the broker "
                              "recovers it from its first segment)", severity=INFO)


__all__ = ["ERROR", "VerifyIndexOptions", "verify_index"]
