"""``kdump verify-index``'s run: the walk gathered into one job per partition (in worker
processes with ``--jobs``), each partition's segments checked in offset order
(:mod:`.index_files`, :mod:`.segment_pass`, :mod:`.state_files`), then each log dir's
checkpoints (:mod:`.checkpoints`) and the tiered storage's segments.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from ... import fs as kfs
from ...errors import KdumpError, OutputError
from ...files.logdir import KafkaFile, parse_partition_dir, walk
from ...findings import INFO, Problem
from ...parallel import Spilled, ordered_map, pool_pays
from .. import tiered
from ..verdict import LostTracker, Tail, cleanup_of, held_pieces
from ..verify_crc import Summary
from .checkpoints import verify_root_checkpoints
from .index_files import index_sanity, orphan_index
from .options import PartitionPass, PartitionState, Segment, VerifyIndexOptions
from .segment_pass import check_segment
from .state_files import (
    check_leader_epochs,
    check_snapshot,
    check_txn_index,
    log_start_offset,
    snapshot_sanity,
)


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
        if isinstance(item, Problem) or (item.topic is None and not _loose_segment_file(item)):
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


def _loose_segment_file(f: KafkaFile) -> bool:
    """A segment's file outside a topic-partition directory (checked as a partition of
    unknown name)."""
    return f.base_offset is not None and f.kind in (
        "log", "offset-index", "time-index", "txn-index", "producer-snapshot")


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


def _job_bytes(item: object) -> int:
    """The bytes of logs a walk's item holds (a partition's logs; 0 for anything else)."""
    if not isinstance(item, _PartitionJob):
        return 0
    total = 0
    for f in item.files:
        if f.kind == "log":
            try:
                total += kfs.getsize(f.path)
            except OSError:
                pass  # its reader says why
    return total


def _verify(paths: Iterable[str], opts: VerifyIndexOptions, summary: Summary, jobs: int = 1
            ) -> Iterator[Problem]:
    if not opts.rebuild_into:
        yield from _verify_all(paths, opts, summary, jobs)
        return
    from ..rebuild import staged_rebuild

    paths = list(paths)
    _check_rebuild_dir(paths, opts.rebuild_into)
    # the rebuilt indexes are staged beside DIR and published when the run ends
    # (kdump/output.py): a failure or a signal leaves DIR as it was
    with staged_rebuild(paths, opts.rebuild_into):
        yield from _verify_all(paths, opts, summary, jobs)


def _verify_all(paths: Iterable[str], opts: VerifyIndexOptions, summary: Summary, jobs: int = 1
                ) -> Iterator[Problem]:
    roots: dict[str, list[KafkaFile]] = {}
    partitions: dict[str, dict[tuple[str, int], PartitionState]] = {}

    def is_job(item: object) -> bool:
        return isinstance(item, _PartitionJob)

    remote_logs: list[KafkaFile] = []
    metadata_logs: list[KafkaFile] = []
    paths = list(paths)
    lost = LostTracker(paths, opts.policies)

    def noted(walked: Iterable[Any]) -> Iterator[Any]:
        """Remember the tiered storage's segments and __remote_log_metadata's logs."""
        for job in walked:
            if isinstance(job, _PartitionJob):
                remote_logs.extend(f for f in job.files if tiered.is_remote_log(f))
                metadata_logs.extend(f for f in job.files if tiered.is_metadata_log(f))
            yield job

    # a pool only for work that pays for one when kdump chose the jobs (no --jobs):
    # kdump.parallel.pool_pays, as verify-crc and size-report do
    parallel, walked = pool_pays(noted(_walk_partitions(paths)), jobs, _job_bytes)
    if not parallel:  # streaming: a partition's problems as they are found
        items: Iterable[Any] = _serial_jobs(walked, opts, summary)
    else:
        items = ordered_map(partial(_partition_job, opts), walked, jobs,
                            is_job, inline=partial(_partition_here, opts))
    for item in items:
        if isinstance(item, Problem):
            if item.severity != INFO or item.detail.endswith("partition unknown"):
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
        if not opts.sanity_only:
            yield from (lost.partition_unreadable(state.path) if state.unreadable
                        else lost.partition(state.path, [
                            piece for a, b in state.held
                            for piece in held_pieces(a, b, state.gaps)],
                            [t for p, active in state.tails
                             if (t := Tail.of(p, active)) is not None]))
        logdir = os.path.dirname(kfs.abspath(state.path))
        special = parse_partition_dir(os.path.basename(state.path))
        if special is None or special.state is not None:
            continue  # -delete/-future/-stray or a folder of loose segments: not live
        partitions.setdefault(logdir, {})[(state.topic, state.partition)] = state
    if not opts.sanity_only:
        for logdir, files in roots.items():
            yield from verify_root_checkpoints(files, partitions.get(logdir, {}))
        # the partitions the log dirs' checkpoints name with no directory
        yield from lost.finish()
        yield from tiered.check(remote_logs, metadata_logs)


def _check_rebuild_dir(paths: Iterable[str], out: str) -> None:
    from ...output import check_outside

    check_outside(out, list(paths), "--rebuild-into")


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

    ppass = PartitionPass()
    part = parse_partition_dir(os.path.basename(directory))
    ppass.find_gaps = part is not None and part.state is None and part.topic_id is None \
        and not kfs.is_url(directory) and not cleanup_of(
            directory, part.topic, part.partition, opts.policies).compacted
    snaps = sorted(snapshots, key=lambda s: s.base_offset or 0)
    ppass.snapshots.extend(snaps)
    bases = sorted(segments)
    for base in bases:
        seg = segments[base]
        if seg.log is None:
            for idx_file in (seg.index, seg.time_index, seg.txn_index):
                if idx_file is not None:
                    yield orphan_index(idx_file.path)
        yield from _guarded(index_sanity(seg, base == active_base), directory)
        if opts.sanity_only or seg.log is None:
            continue
        before = ppass.next_offset
        for p in _guarded(check_segment(seg, base == active_base, opts, ppass, summary),
                          seg.log.path):
            if p.kind == "unreadable-file":
                state.unreadable = True
            yield p
        if ppass.next_offset is not None and ppass.next_offset != before:
            state.held.append((min(base, ppass.next_offset - 1), ppass.next_offset - 1))
    if opts.sanity_only:
        for snap in snaps:
            yield from snapshot_sanity(snap)
        return
    while ppass.snapshots:  # snapshots at or past the log end: the final state
        yield from check_snapshot(ppass.snapshots.popleft(), ppass)
    # a segment's .txnindex holds the aborted transactions whose ABORT marker it holds
    for k, base in enumerate(bases):
        end = bases[k + 1] if k + 1 < len(bases) else None
        yield from check_txn_index(segments[base], end, ppass, opts)
    if epoch_file is not None:
        special = parse_partition_dir(os.path.basename(directory))
        log_start = (log_start_offset(directory, special.topic, special.partition)
                     if special is not None and special.state is None else None)
        yield from check_leader_epochs(epoch_file, ppass, log_start)
    state.first_offset = ppass.first_offset
    state.gaps, state.tails = ppass.gaps, ppass.tails
    # Kafka's log end offset is the last segment's LogSegment.readNextOffset: after its
    # last batch, or its base offset when it is empty (an empty active segment named
    # above the last batch, as kdump repair writes one to reserve offsets: 4.0-4.3)
    logs = [b for b, sg in segments.items() if sg.log is not None]
    if ppass.next_offset is None:
        state.log_end_offset = max(segments) if segments else None
    else:
        state.log_end_offset = max([ppass.next_offset, *logs])


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
