"""``kdump verify-crc``: every fault in every log, located to the byte.

Checks per batch: the checksum (v2 CRC-32C over attributes..end; v0/v1 CRC-32 of the
message, and of every message inside a compressed wrapper), decompression, and the
batch's internal consistency (records count vs records present, record lengths
filling the batch exactly, offset deltas ascending and within lastOffsetDelta, record
timestamps not above maxTimestamp), plus offsets ascending from batch to batch and
not below the segment's base offset.  Framing damage comes from the walker
(:mod:`kdump.records.file_records`), which resynchronises after it.

Size: one module because the walk over logs, the summary it closes with and the
judgement of what the witnesses prove lost all read the same per-file results.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from .. import fs as kfs
from .. import layouts as L
from ..errors import KdumpError
from ..files.logdir import KafkaFile, walk
from ..findings import ERROR, INFO, Problem
from ..model import shape
from ..parallel import (
    VERIFY_PLAIN_LOG_DISCOUNT,
    Spilled,
    log_work_bytes,
    ordered_map,
    pool_pays,
)
from ..records.control import parse_control
from ..records.file_records import Batch, LogReader, native_walk_available
from ..records.scan import scan_v2_records
from ..records.v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch
from ..source import FileSource
from .batch_findings import NoBatch, crc_problem, record_problem
from .verdict import TAIL_PROBLEMS, CleanupPolicies, LostTracker, finds_gaps, judge_tail
from .verdict.tail import judge_closed_tail

if TYPE_CHECKING:
    # ranges of a log (--jobs): imported where used, so that a plain verify-crc does
    # not load them (tests/house/test_startup.py)
    from ..files.splits import SegmentRange

LOG_KINDS = ("log", "kraft-snapshot", "bootstrap-snapshot")
_native_walk = native_walk_available()


@dataclass(slots=True)
class VerifyOptions:
    deep: bool = True
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
    resync: bool = True
    #: topics' cleanup.policy (a compacted topic's gaps are information); None: Kafka's
    #: own topics and cleaner-offset-checkpoint entries are compacted, others delete
    policies: CleanupPolicies | None = None
    #: the partition directories judged compacted where the policies were read (a Spark
    #: driver's, for its executors: :func:`kdump.ops.verdict.compacted_dirs`); None: judged
    #: here from ``policies``
    compacted: frozenset[str] | None = None


@dataclass(slots=True)
class FileResult:
    """One log checked."""

    path: str
    size: int = 0
    batches: int = 0
    valid_batches: int = 0
    invalid_batches: int = 0
    records: int = 0
    invalid_records: int = 0
    unreadable_bytes: int = 0
    problems: int = 0
    #: the offsets its framed batches hold (the segment's base offset .. the highest last
    #: offset; None: no batch framed): what the partition's witnesses are held against
    first_offset: int | None = None
    last_offset: int | None = None
    #: offsets between two of its batches that no batch holds (first, last, inclusive),
    #: looked for in a delete-policy topic's segment: the partition's verdict says them
    gaps: list[tuple[int, int]] = field(default_factory=list)
    #: an active segment (its tail is judged as a live broker's)
    active: bool = False


@dataclass(slots=True)
class Summary:
    """The closing object of a verification run."""

    command: str
    files: int = 0
    bytes: int = 0
    batches: int = 0
    valid_batches: int = 0
    invalid_batches: int = 0
    records: int = 0
    invalid_records: int = 0
    unreadable_bytes: int = 0
    problems: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    by_severity: Counter[str] = field(default_factory=Counter)

    @property
    def clean(self) -> bool:
        return self.by_severity["error"] == 0 and self.by_severity["warning"] == 0

    def add_problem(self, p: Problem) -> None:
        self.problems += 1
        self.by_kind[p.kind] += 1
        self.by_severity[p.severity] += 1

    def add_file(self, r: FileResult) -> None:
        self.files += 1
        self.bytes += r.size
        _add_counts(self, r)

    def to_json(self) -> dict[str, Any]:
        return shape("summary", {"command": self.command,
            "files": self.files,
            "bytes": self.bytes,
            "batches": self.batches,
            "valid_batches": self.valid_batches,
            "invalid_batches": self.invalid_batches,
            "records": self.records,
            "invalid_records": self.invalid_records,
            "unreadable_bytes": self.unreadable_bytes,
            "problems": self.problems,
            "errors": self.by_severity["error"],
            "warnings": self.by_severity["warning"],
            "infos": self.by_severity["info"],
            "by_kind": dict(sorted(self.by_kind.items())),
            "in_flight": self.by_kind["in-flight"],
            "clean": self.clean,
        })


def verify_crc(paths: Iterable[str], opts: VerifyOptions, jobs: int = 1
               ) -> Iterator[Problem | FileResult | Summary]:
    """Every log under ``paths``; ``jobs`` worker processes check logs in parallel (the
    output is the same for any ``jobs``; without ``--jobs``, a pool only for work that
    pays for one: :func:`kdump.parallel.pool_pays`)."""
    paths = list(paths)
    return summarize(_verified(paths, opts, jobs), Summary("verify-crc"),
                     LostTracker(paths, opts.policies))


def _verified(paths: Iterable[str], opts: VerifyOptions, jobs: int) -> Iterator[object]:
    parallel, walked = pool_pays(walk(paths), jobs, _log_bytes)
    if parallel:
        yield from _parallel(opts, walked, jobs)
        return
    for x in walked:  # streaming, problems as they are found
        yield _verify_here(opts, x) if isinstance(x, KafkaFile) and _is_log(x) else x


def _log_bytes(item: object) -> int:
    """The bytes of work in a walk's item: a log's size (0 when it has none to give),
    discounted when its first batch is uncompressed and the native walk reads it
    (:func:`kdump.parallel.log_work_bytes`)."""
    if not (isinstance(item, KafkaFile) and _is_log(item)):
        return 0
    try:
        size = kfs.getsize(item.path)
    except OSError:
        return 0  # its reader says why
    return log_work_bytes(item.path, size, legacy=True,
                          discount=VERIFY_PLAIN_LOG_DISCOUNT) if _native_walk else size


def _parallel(opts: VerifyOptions, walked: Iterable[object], jobs: int) -> Iterator[object]:
    """:func:`summarize`'s items, from ``jobs`` workers: a large log comes back as ranges,
    given on as one log (its problems as they come, one merged result)."""
    from ..files.splits import segment_ranges

    done_items = iter(ordered_map(partial(verify_one, opts),
                                  segment_ranges(walked, _is_log), jobs, _is_task,
                                  inline=partial(_verify_here, opts)))
    for done in done_items:
        if isinstance(done, tuple) and len(done) == 4:
            merged = FileResult(done[2].file.path)
            yield _merged_ranges(opts, done, done_items, merged), merged
        else:
            yield done  # a walk problem, a file that is not a log, a whole log


def _merged_ranges(opts: VerifyOptions, first: Any, rest: Iterator[Any], merged: FileResult
                   ) -> Iterator[Problem]:
    """The problems of a log read as ranges (``first``, then the next ones from ``rest``,
    up to the range that ends the log), its counts merged into ``merged``.  A range
    counts when the whole-file read would have seen it as its worker did; otherwise the
    rest of the log is read here from that range's start, and its later ranges dropped."""
    prev: int | None = None  # the highest last offset of the ranges so far
    done, redone = first, False
    while True:
        problems, part, rng, ended = cast("tuple[Spilled, FileResult, SegmentRange, RangeEnd]",
                                          done)
        if redone:
            _discard(problems)
        elif ended.in_step and (rng.start == 0 or (
                prev is not None and ended.min_last is not None and ended.min_last > prev)):
            if rng.start and prev is not None and ended.first is not None \
                    and ended.first > prev + 1 \
                    and finds_gaps(rng.file, opts.policies, opts.compacted):
                part.gaps.insert(0, (prev + 1, ended.first - 1))  # at the range's start
            yield from problems
            prev = ended.max_last if prev is None or ended.max_last is None \
                else max(prev, ended.max_last)
            _add_counts(merged, part)
        else:
            # damage resynchronised past the range's end, or offsets not after the
            # ranges before it: the rest of the log, read here
            _discard(problems)
            redone = True
            part = FileResult(rng.file.path)
            yield from verify_log(rng.file, opts, part, rng.start, None, prev, prev is None)
            _add_counts(merged, part)
        if rng.stop is None:
            return
        done = next(rest)


def _counted(problems: Iterable[Problem], result: FileResult, summary: Summary
             ) -> Iterator[Problem]:
    for p in problems:
        result.problems += 1
        summary.add_problem(p)
        yield p


#: what a log's result adds to a summary, and a range's result to its log's
_COUNTS = ("batches", "valid_batches", "invalid_batches", "records", "invalid_records",
           "unreadable_bytes")


def _add_counts(into: FileResult | Summary, part: FileResult) -> None:
    if isinstance(into, FileResult):
        into.size += part.size
        into.gaps += part.gaps
        into.active = into.active or part.active
        if part.first_offset is not None:
            into.first_offset = part.first_offset if into.first_offset is None \
                else min(into.first_offset, part.first_offset)
        if part.last_offset is not None:
            into.last_offset = part.last_offset if into.last_offset is None \
                else max(into.last_offset, part.last_offset)
    for name in _COUNTS:
        setattr(into, name, getattr(into, name) + getattr(part, name))


def _discard(problems: Spilled) -> None:
    for _ in problems:  # removes the spill file, if any
        pass


def _is_task(item: object) -> bool:
    from ..files.splits import SegmentRange

    return isinstance(item, SegmentRange) or _is_log(item)


def summarize(items: Iterable[object], summary: Summary, lost: LostTracker | None = None
              ) -> Iterator[Problem | FileResult | Summary]:
    """The output of a verification: the walk's problems (info left out), each log's
    problems and result (``items`` gives a log as a ``(problems, result)`` pair; other
    files are passed over), then ``summary``, which counts them all.  ``lost``: each
    partition directory's ``data-lost`` findings, when the walk leaves it."""
    for item in items:
        if isinstance(item, Problem):
            if item.severity != INFO:
                summary.add_problem(item)
                yield item
            continue
        if not isinstance(item, tuple):
            if lost is not None and isinstance(item, KafkaFile):
                yield from _lost(lost.enter(item.path), summary)
            continue  # a file that is not a log
        problems, result = item
        if lost is not None:
            yield from _lost(lost.enter(result.path), summary)
        result.problems = 0
        for p in _counted(problems, result, summary):
            if lost is not None and p.kind == "unreadable-file":
                lost.unreadable(result.path)
            elif lost is not None and p.kind in TAIL_PROBLEMS and p.path == result.path:
                lost.tail(p, result.active)
            yield p
        summary.add_file(result)
        if lost is not None:
            lost.held(result.path, result.first_offset, result.last_offset, result.gaps)
        yield result
    if lost is not None:
        yield from _lost(lost.finish(), summary)
    yield summary


def _lost(problems: list[Problem], summary: Summary) -> Iterator[Problem]:
    for p in problems:
        summary.add_problem(p)
        yield p


def _window(start: int, stop: int | None) -> int | None:
    if stop is None:  # a whole log: the reader's default window
        return None
    from ..files.splits import window_for

    return window_for(start, stop)


def _verify_here(opts: VerifyOptions, f: KafkaFile) -> tuple[Iterator[Problem], FileResult]:
    result = FileResult(f.path)
    return verify_log(f, opts, result), result


def _is_log(item: object) -> bool:
    return isinstance(item, KafkaFile) and item.kind in LOG_KINDS


def verify_one(opts: VerifyOptions, task: KafkaFile | SegmentRange
               ) -> tuple[Spilled, FileResult] | tuple[Spilled, FileResult, SegmentRange, RangeEnd]:
    """One log, or one range of one, checked: its problems (spilled to disk past a few
    thousand) and its result (a worker's unit of work); for a range, also the range and
    how its reading ended."""
    from ..files.splits import SegmentRange

    if isinstance(task, SegmentRange):
        result, ended = FileResult(task.file.path), RangeEnd()
        problems = Spilled(verify_log(task.file, opts, result, task.start, task.stop,
                                      ended=ended))
        return problems, result, task, ended
    result = FileResult(task.path)
    problems = Spilled(verify_log(task, opts, result))
    result.problems = problems.count
    return problems, result


@dataclass(slots=True)
class RangeEnd:
    """How the reading of a range of a log ended (``--jobs``, see :func:`verify_crc`)."""

    #: it stopped at an intact batch starting exactly at the range's end (or at the end)
    in_step: bool = True
    #: the lowest last offset of the range's batches (None: no batch)
    min_last: int | None = None
    #: the highest last offset read (the next range's "previous last offset")
    max_last: int | None = None
    #: the first offset of the v2 batch the range starts at (a gap before it: the ranges
    #: before it end below it)
    first: int | None = None


def verify_log(f: KafkaFile, opts: VerifyOptions, result: FileResult, start: int = 0,
               stop: int | None = None, prev: int | None = None, at_log_start: bool | None = None,
               ended: RangeEnd | None = None) -> Iterator[Problem]:
    """The problems of one log; ``result`` is filled in as it is read.  A range of it:
    from ``start`` (an intact batch) up to the first batch at or past ``stop``; ``prev``
    is the highest last offset of the batches before ``start`` (None: unknown), ``at_log_start``
    whether there is none (default: ``start`` is 0), so that the first batch read is
    checked against the segment's base offset; ``ended`` says how the reading ended."""
    try:
        src = FileSource(f.path)
    except KdumpError as e:
        yield Problem(f.path, None, "unreadable-file", e.message)
        if ended is not None:
            ended.in_step = stop is None
        return
    if ended is None:
        ended = RangeEnd()
    result.active = f.active
    gaps = finds_gaps(f, opts.policies, opts.compacted)
    with src:
        if start == 0:
            result.size = src.size
        else:
            ended.min_last = _last_offset_at(src, start)
            ended.first = _first_offset_at(src, start)
        reader = LogReader(src, start=start, active=f.active, resync=opts.resync,
                           max_batch_bytes=opts.max_batch_bytes, chunk=_window(start, stop))
        prev_last: int | None = prev
        if at_log_start is None:
            at_log_start = start == 0
        segment_base = f.base_offset if f.kind == "log" and at_log_start else None

        def on_run(batches: int, records: int, last: int) -> None:
            nonlocal prev_last
            result.batches += batches
            result.valid_batches += batches
            result.records += records
            prev_last = last

        reader.skip_clean_batches(lambda: prev_last, segment_base, opts.deep, on_run,
                                  limit=stop, gaps=gaps)
        ended.in_step = stop is None
        nothing = NoBatch(f.path) if start == 0 and stop is None and f.kind == "log" else None
        try:
            for item in reader:
                if stop is not None and item.position is not None and item.position >= stop:
                    ended.in_step = item.position == stop and not isinstance(item, Problem)
                    break
                if isinstance(item, Problem):
                    if item.kind == "truncated" and f.kind == "log" and not f.active:
                        item = judge_closed_tail(item, f, prev_last)
                    elif item.kind == "zero-tail" and f.kind == "log" and f.active:
                        item = judge_tail(item, f, prev_last)
                    elif item.kind == "in-flight" and f.kind == "log" and f.active:
                        item = judge_tail(item, f, prev_last)
                    if nothing is not None:
                        nothing.see(item)
                    yield item
                    continue
                batch = item
                result.batches += 1
                bad = crc_failed = not batch.crc_valid
                if crc_failed:
                    yield crc_problem(batch)
                first = batch.first_offset
                if gaps and (isinstance(batch, RecordBatch) or not batch.is_compressed):
                    after = prev_last if prev_last is not None else (
                        segment_base - 1 if segment_base is not None else None)
                    if after is not None and first > after + 1:
                        result.gaps.append((after + 1, first - 1))
                if ended.min_last is None or batch.last_offset < ended.min_last:
                    ended.min_last = batch.last_offset
                if prev_last is None and segment_base is not None and batch.last_offset < segment_base:
                    bad = True
                    yield Problem(f.path, batch.position, "below-segment-base",
                                  f"batch offsets {first}..{batch.last_offset} lie below the "
                                  f"segment's base offset {segment_base}", base_offset=first)
                if prev_last is not None and batch.last_offset <= prev_last:
                    bad = True
                    yield Problem(f.path, batch.position, "offset-order",
                                  f"batch ends at offset {batch.last_offset}, not after the "
                                  f"previous batch's last offset {prev_last}", base_offset=first)
                prev_last = batch.last_offset if prev_last is None else max(prev_last,
                                                                            batch.last_offset)
                if opts.deep:
                    n = 0
                    for p in check_records(batch, opts.max_batch_bytes):
                        if isinstance(p, int):
                            n = p
                            continue
                        if p.severity != INFO:
                            bad = True
                        yield p
                    if crc_failed:  # not what was written: counted apart
                        result.invalid_records += n
                    else:
                        result.records += n
                if bad:
                    result.invalid_batches += 1
                else:
                    result.valid_batches += 1
            if nothing is not None and (none := nothing.problem(
                    src.size, result.batches, lambda: src.pread(0, 8),
                    f.base_offset)):
                yield none
        except KdumpError as e:  # a read failed (EIO ...): say so, and go on with other files
            yield Problem(e.path or f.path, e.position, "unreadable-file", e.message,
                          base_offset=e.base_offset)
        finally:
            reader.close()
            result.unreadable_bytes = reader.unreadable_bytes
            ended.max_last = prev_last
            if prev_last is not None:
                result.last_offset = prev_last
                if start == 0 and f.base_offset is not None and f.kind == "log":
                    result.first_offset = min(f.base_offset, prev_last)


def _first_offset_at(src: FileSource, position: int) -> int | None:
    """The base offset of the v2 batch at ``position`` (None: not a v2 batch header)."""
    head = src.pread(position, L.RECORD_BATCH_OVERHEAD)
    if len(head) < L.RECORD_BATCH_OVERHEAD or head[L.MAGIC_OFFSET] != 2:
        return None
    return int(L.LOG_HEADER.unpack_from(head, 0)[0])


def _last_offset_at(src: FileSource, position: int) -> int | None:
    """The last offset of the v2 batch at ``position`` (None: not a v2 batch header)."""
    head = src.pread(position, L.RECORD_BATCH_OVERHEAD)
    if len(head) < L.RECORD_BATCH_OVERHEAD or head[L.MAGIC_OFFSET] != 2:
        return None
    base, _size = L.LOG_HEADER.unpack_from(head, 0)
    last_delta = L.V2_HEADER.unpack_from(head, 0)[6]
    return int(base) + int(last_delta)


def check_records(batch: Batch, max_batch_bytes: int) -> Iterator[Problem | int]:
    """Record-level checks of one batch; yields problems, then the record count."""
    if isinstance(batch, RecordBatch):
        yield from _check_v2(batch, max_batch_bytes)
    else:
        yield from _check_legacy(batch, max_batch_bytes)


def _check_v2(b: RecordBatch, max_batch_bytes: int) -> Iterator[Problem | int]:
    path, pos, base = b.path, b.position, b.base_offset
    try:
        buf, start, end = b.payload(max_batch_bytes)
    except KdumpError as e:
        yield record_problem(b, e)
        yield 0
        return
    s = scan_v2_records(buf, start, end, b.records_count, max_batch_bytes)
    if s.fault is not None:
        yield record_problem(b, b.located_fault(s.fault, start, max_batch_bytes))
    if s.records:
        if s.first_delta < 0 or not s.ascending:
            yield Problem(path, pos, "offset-delta",
                          "record offset deltas are not strictly ascending from 0",
                          base_offset=base)
        if s.last_delta > b.last_offset_delta:
            yield Problem(path, pos, "offset-delta",
                          f"last record's offset delta {s.last_delta} is beyond the batch's "
                          f"lastOffsetDelta {b.last_offset_delta}", base_offset=base)
        elif s.fault is None and s.last_delta < b.last_offset_delta:
            yield Problem(path, pos, "offset-delta",
                          f"last record's offset delta {s.last_delta} is below lastOffsetDelta "
                          f"{b.last_offset_delta} (records removed by compaction)",
                          base_offset=base, severity=INFO)
        if b.timestamp_type == L.CREATE_TIME and not b.has_delete_horizon and b.max_timestamp >= 0:
            top = b.base_timestamp + s.max_ts_delta
            if top > b.max_timestamp:
                yield Problem(path, pos, "timestamp-range",
                              f"a record timestamp {top} is above the batch's maxTimestamp "
                              f"{b.max_timestamp}", base_offset=base)
            elif s.fault is None and top != b.max_timestamp:
                yield Problem(path, pos, "max-timestamp",
                              f"maxTimestamp {b.max_timestamp} is not the largest record "
                              f"timestamp {top}", base_offset=base, severity=INFO)
    if b.is_control and s.fault is None:
        try:
            for rec in b.records(max_batch_bytes):
                ctl = parse_control(rec)
                if ctl.error:
                    yield Problem(path, pos, "invalid-control", f"offset {rec.offset}: {ctl.error}",
                                  base_offset=base)
        except KdumpError as e:
            yield record_problem(b, e)
    yield s.records


def _check_legacy(b: Batch, max_batch_bytes: int) -> Iterator[Problem | int]:
    n = 0
    try:
        for rec in b.records(max_batch_bytes):
            n += 1
            if b.is_compressed and rec.crc_valid is False:
                yield Problem(b.path, b.position, "inner-crc-mismatch",
                              f"inner message at offset {rec.offset} (decompressed byte "
                              f"{rec.position}) fails its CRC-32", base_offset=b.first_offset)
    except KdumpError as e:
        yield record_problem(b, e)
    yield n


__all__ = ["ERROR", "FileResult", "Summary", "VerifyOptions", "verify_crc", "verify_log"]
