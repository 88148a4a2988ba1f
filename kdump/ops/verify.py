"""``kdump verify-crc``: every fault in every log, located to the byte.

Checks per batch: the checksum (v2 CRC-32C over attributes..end; v0/v1 CRC-32 of the
message, and of every message inside a compressed wrapper), decompression, and the
batch's internal consistency (records count vs records present, record lengths
filling the batch exactly, offset deltas ascending and within lastOffsetDelta, record
timestamps not above maxTimestamp), plus offsets ascending from batch to batch and
not below the segment's base offset.  Framing damage comes from the walker
(:mod:`kdump.records.file_records`), which resynchronises after it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .. import fs as kfs
from .. import layouts as L
from ..errors import KdumpError
from ..files.logdir import KafkaFile, walk
from ..findings import ERROR, INFO, Problem
from ..fs import Listing
from ..parallel import Spilled, ordered_map
from ..records.control import parse_control
from ..records.file_records import Batch, LogReader
from ..records.scan import scan_v2_records
from ..records.v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch
from ..source import FileSource
from .batch_findings import crc_problem, record_problem

LOG_KINDS = ("log", "kraft-snapshot", "bootstrap-snapshot")


@dataclass(slots=True)
class VerifyOptions:
    deep: bool = True
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
    resync: bool = True


@dataclass(slots=True)
class FileResult:
    """One log checked."""

    path: str
    size: int = 0
    batches: int = 0
    valid_batches: int = 0
    invalid_batches: int = 0
    records: int = 0
    unreadable_bytes: int = 0
    problems: int = 0


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
        self.batches += r.batches
        self.valid_batches += r.valid_batches
        self.invalid_batches += r.invalid_batches
        self.records += r.records
        self.unreadable_bytes += r.unreadable_bytes

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "summary",
            "command": self.command,
            "files": self.files,
            "bytes": self.bytes,
            "batches": self.batches,
            "valid_batches": self.valid_batches,
            "invalid_batches": self.invalid_batches,
            "records": self.records,
            "unreadable_bytes": self.unreadable_bytes,
            "problems": self.problems,
            "errors": self.by_severity["error"],
            "warnings": self.by_severity["warning"],
            "infos": self.by_severity["info"],
            "by_kind": dict(sorted(self.by_kind.items())),
            "in_flight": self.by_kind["in-flight"],
            "clean": self.clean,
        }


def verify_crc(paths: Iterable[str], opts: VerifyOptions, jobs: int = 1
               ) -> Iterator[Problem | FileResult | Summary]:
    """Every log under ``paths``; ``jobs`` worker processes check logs in parallel (the
    output is the same for any ``jobs``)."""
    summary = Summary("verify-crc")
    if jobs <= 1:  # streaming, problems as they are found
        yield from _verify_serial(paths, opts, summary)
        return
    work = partial(verify_one, opts)
    here = partial(_verify_here, opts)  # a single log: checked here, problems streamed
    for done in ordered_map(work, walk(paths), jobs, _is_log, inline=here):
        if isinstance(done, Problem):
            if done.severity != INFO:
                summary.add_problem(done)
                yield done
            continue
        if isinstance(done, KafkaFile):
            continue
        problems, result = done
        n = 0
        for p in problems:
            n += 1
            summary.add_problem(p)
            yield p
        result.problems = n
        summary.add_file(result)
        yield result
    yield summary


def _verify_serial(paths: Iterable[str], opts: VerifyOptions, summary: Summary
                   ) -> Iterator[Problem | FileResult | Summary]:
    for item in walk(paths):
        if isinstance(item, Problem):
            if item.severity != INFO:
                summary.add_problem(item)
                yield item
            continue
        if item.kind not in LOG_KINDS:
            continue
        result = FileResult(item.path)
        for p in verify_log(item, opts, result):
            summary.add_problem(p)
            result.problems += 1
            yield p
        summary.add_file(result)
        yield result
    yield summary


def _verify_here(opts: VerifyOptions, f: KafkaFile) -> tuple[Iterator[Problem], FileResult]:
    result = FileResult(f.path)
    return verify_log(f, opts, result), result


def _is_log(item: object) -> bool:
    return isinstance(item, KafkaFile) and item.kind in LOG_KINDS


def verify_one(opts: VerifyOptions, f: KafkaFile) -> tuple[Spilled, FileResult]:
    """One log checked: its problems (spilled to disk past a few thousand) and its result
    (a worker's unit of work)."""
    result = FileResult(f.path)
    problems = Spilled(verify_log(f, opts, result))
    result.problems = problems.count
    return problems, result


def verify_log(f: KafkaFile, opts: VerifyOptions, result: FileResult) -> Iterator[Problem]:
    try:
        src = FileSource(f.path)
    except KdumpError as e:
        yield Problem(f.path, None, "unreadable-file", e.message)
        return
    with src:
        result.size = src.size
        reader = LogReader(src, active=f.active, resync=opts.resync,
                           max_batch_bytes=opts.max_batch_bytes)
        prev_last: int | None = None
        segment_base = f.base_offset if f.kind == "log" else None

        def on_run(batches: int, records: int, last: int) -> None:
            nonlocal prev_last
            result.batches += batches
            result.valid_batches += batches
            result.records += records
            prev_last = last

        reader.skip_clean_v2_batches(lambda: prev_last, segment_base, opts.deep, on_run)
        try:
            for item in reader:
                if isinstance(item, Problem):
                    if item.kind == "truncated" and f.kind == "log" and not f.active:
                        item = _with_lost_offsets(item, f, prev_last)
                    yield item
                    continue
                batch = item
                result.batches += 1
                bad = False
                if not batch.crc_valid:
                    bad = True
                    yield crc_problem(batch)
                first = batch.first_offset
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
                    result.records += n
                if bad:
                    result.invalid_batches += 1
                else:
                    result.valid_batches += 1
        except KdumpError as e:  # a read failed (EIO ...): say so, and go on with other files
            yield Problem(e.path or f.path, e.position, "unreadable-file", e.message,
                          base_offset=e.base_offset)
        finally:
            result.unreadable_bytes = reader.unreadable_bytes


def _next_segment_base(f: KafkaFile) -> int | None:
    """The base offset of the segment after ``f`` in its partition directory, if any."""
    try:
        names = Listing().listdir(kfs.dirname(f.path))
    except OSError:
        return None
    bases = [int(n[:-4]) for n in names
             if n.endswith(".log") and len(n) == 24 and n[:20].isdigit()]
    later = [b for b in bases if f.base_offset is not None and b > f.base_offset]
    return min(later) if later else None


def _with_lost_offsets(p: Problem, f: KafkaFile, prev_last: int | None) -> Problem:
    """A closed segment cut short loses every offset from the cut batch up to the next
    segment's base offset: say which (``lost_offsets``: first and last, inclusive)."""
    nxt = _next_segment_base(f)
    first = prev_last + 1 if prev_last is not None else p.base_offset
    if nxt is None or first is None or first >= nxt:
        return p
    last = nxt - 1
    p.detail += (f"; offsets {first}-{last} lost (the next segment starts at {nxt})"
                 if last > first else f"; offset {first} lost (the next segment starts at {nxt})")
    p.extra = {**(p.extra or {}), "lost_offsets": [first, last]}
    return p


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
