"""Write the index files Kafka would rebuild, into a directory of the user's choosing.

Layout: ``DIR/<log dir>/<partition directory name>/<base offset>.index|.timeindex|.txnindex``,
one subdirectory per input log dir (``broker-<id>`` when its meta.properties names the
broker, else the log dir's name; ``-2``, ``-3`` ... when two share a name), so two
replicas of one partition are never merged.  Byte-exact with what LogSegment.recover
writes (offset index entries of relative offset and position; time index entries of
timestamp and relative offset; 34-byte aborted-transaction entries of version 0).

The evidence is never touched: :func:`plan_rebuild` refuses, before anything is
written, a DIR whose targets resolve (symlinks followed) into an input (a file input by
itself; a partition's directory and log dir), and targets that already exist (unless
``force``).  The run's files are staged beside DIR and published when the run ends
(:func:`staged_rebuild`, :mod:`kdump.output` ``kind="merge"``): into an absent or empty
DIR by one rename, into a DIR holding other files file by file, each whole, never
through a symlink.  A failure, a full disk or a signal leaves DIR as it was.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .. import fs as kfs
from .. import layouts as L
from ..errors import OutputError, UsageError
from ..files.logdir import broker_label
from ..output import Staged, input_roots, inside, safe_name


@dataclass
class RebuildPlan:
    """Where the rebuilt indexes of each input log dir go, and what must not be touched."""

    out_dir: str
    force: bool = False
    #: real paths of the inputs (a file's directory): never written into
    protected: list[str] = field(default_factory=list)
    #: real path of a log dir -> its subdirectory name under ``out_dir``
    labels: dict[str, str] = field(default_factory=dict)
    #: where the run's files are staged (:func:`staged_rebuild` opens and publishes it)
    stage: Staged | None = None

    def label(self, logdir: str) -> str:
        real = os.path.realpath(logdir)
        if real not in self.labels:
            base = broker_label(real)
            used = set(self.labels.values())
            name, n = base, 2
            while name in used:
                name, n = f"{base}-{n}", n + 1
            self.labels[real] = name
        return self.labels[real]

    def partition_dir(self, log_path: str) -> str:
        part_dir = os.path.dirname(os.path.abspath(log_path))
        logdir = os.path.dirname(part_dir)
        return os.path.join(self.out_dir, self.label(logdir),
                            safe_name(os.path.basename(part_dir)))

    def check_dir(self, d: str, shown_for: str, error: type[UsageError | OutputError] = UsageError
                  ) -> None:
        real = os.path.realpath(d)
        hit = inside(real, self.protected)
        if hit is not None:
            raise error(
                f"--rebuild-into {self.out_dir}: the indexes of {shown_for} would be written "
                f"to {d}, which resolves to {real}, inside {hit} (an input, or its log dir); indexes are "
                "never written next to the data they describe: choose another DIR")


_PLANS: dict[str, RebuildPlan] = {}


def plan_rebuild(inputs: list[str], out_dir: str, *, force: bool = False) -> RebuildPlan:
    """Check ``out_dir`` against every input (and the log dir of a partition or segment
    given) before anything is written and remember
    the plan for :func:`write_rebuilt`.  Raises :class:`UsageError` when a target
    resolves into an input or (without ``force``) already exists."""
    roots = input_roots(inputs)
    protected = [real for real, _ in roots]
    plan = RebuildPlan(out_dir, force, protected)
    real_out = os.path.realpath(out_dir)
    hit = inside(real_out, protected)
    if hit is not None:
        raise UsageError(f"--rebuild-into {out_dir} lies inside {hit} (an input, or its log dir): "
                         "indexes are never written next to the data they describe")
    if os.path.lexists(out_dir) and not os.path.isdir(out_dir):
        raise UsageError(f"--rebuild-into {out_dir} exists and is not a directory")
    existing: list[str] = []
    for log in _logs_under(inputs):
        d = plan.partition_dir(log)
        plan.check_dir(d, os.path.dirname(log))
        stem = os.path.basename(log)[: -len(L.LOG_SUFFIX)]
        for suffix in (L.INDEX_SUFFIX, L.TIME_INDEX_SUFFIX, L.TXN_INDEX_SUFFIX):
            t = os.path.join(d, safe_name(stem) + suffix)
            if os.path.lexists(t):
                existing.append(t)
    if existing and not force:
        more = f" and {len(existing) - 1} more" if len(existing) > 1 else ""
        raise UsageError(f"--rebuild-into {out_dir}: {existing[0]}{more} already exist; "
                         "kdump does not replace files unless told to (--force)")
    _PLANS[os.path.abspath(out_dir)] = plan
    return plan


def _logs_under(inputs: list[str]) -> list[str]:
    """The .log files the walk will visit (partition dirs one or two levels down; no
    symlinked directories followed)."""
    out: list[str] = []
    for p in inputs:
        if os.path.isfile(p):
            if p.endswith(L.LOG_SUFFIX):
                out.append(p)
            continue
        if not os.path.isdir(p):
            continue
        for root, dirs, files in kfs.walk_local(p):
            depth = os.path.relpath(root, p).count(os.sep) + (root != p)
            if depth >= 2:
                dirs[:] = []
            out += [os.path.join(root, f) for f in sorted(files) if f.endswith(L.LOG_SUFFIX)]
    return out


@contextmanager
def staged_rebuild(inputs: list[str], out_dir: str) -> Iterator[RebuildPlan]:
    """The rebuild of one run: its plan (:func:`plan_rebuild`'s, or made here), its
    staging area opened for the block and published when the block ends without an
    error; removed otherwise (DIR as it was)."""
    plan = _PLANS.get(os.path.abspath(out_dir)) or plan_rebuild(inputs, out_dir)
    plan.stage = Staged(out_dir, kind="merge", replace=plan.force, option="--rebuild-into")
    try:
        with plan.stage:
            yield plan
            plan.stage.publish()
    finally:
        plan.stage = None
        _PLANS.pop(os.path.abspath(out_dir), None)


def _plan_for(out_dir: str, log_path: str) -> RebuildPlan:
    plan = _PLANS.get(os.path.abspath(out_dir))
    if plan is None:  # called without plan_rebuild: protect at least the log's directory
        plan = RebuildPlan(out_dir, False, [os.path.dirname(os.path.realpath(log_path))])
        _PLANS[os.path.abspath(out_dir)] = plan
    return plan


def _target(out_dir: str, log_path: str, base: int, suffix: str) -> tuple[RebuildPlan, str]:
    plan = _plan_for(out_dir, log_path)
    d = plan.partition_dir(log_path)
    plan.check_dir(d, os.path.dirname(log_path), OutputError)
    return plan, os.path.join(d, f"{base:0{L.OFFSET_DIGITS}d}{suffix}")


def _write(plan: RebuildPlan, target: str, data: bytes) -> None:
    """``data`` staged as ``target`` (published with the run), or, outside a staged run
    (a library call), written whole at once through :mod:`kdump.output`."""
    rel = os.path.relpath(target, plan.out_dir)
    if plan.stage is not None:
        plan.stage.write(rel, data)
        return
    with Staged(plan.out_dir, kind="merge", replace=plan.force, option="--rebuild-into") as one:
        one.write(rel, data)
        one.publish()


class RecoverIndexes:
    """The offset and time index entries LogSegment.recover writes for a segment's
    batches, fed one batch at a time (storage/.../log/LogSegment.java, ``recover``, 4.0-4.3
    and 3.9 alike): an offset entry ``(batch.lastOffset, bytes before the batch)`` when
    more than ``index.interval.bytes`` were read since the last entry, a time entry of
    the largest batch max timestamp so far and its batch's last offset at the same
    moment (TimeIndex.maybeAppend: only when larger than the last one), and a last time
    entry at the end.  ``verify-index --rebuild-into`` and ``kdump repair`` build their
    indexes here, so both write the same bytes."""

    __slots__ = ("base", "interval", "last_index_entry", "max_ts", "max_ts_offset", "offsets",
                 "times", "valid_bytes")

    def __init__(self, base: int, interval: int = L.DEFAULT_INDEX_INTERVAL_BYTES) -> None:
        self.base = base
        self.interval = interval
        self.valid_bytes = 0
        self.last_index_entry = 0
        self.max_ts = L.NO_TIMESTAMP
        self.max_ts_offset = base
        #: (absolute offset, position) and (timestamp, absolute offset)
        self.offsets: list[tuple[int, int]] = []
        self.times: list[tuple[int, int]] = []

    def add(self, last_offset: int, max_timestamp: int, size: int) -> None:
        """One batch, in file order."""
        if max_timestamp > self.max_ts:
            self.max_ts, self.max_ts_offset = max_timestamp, last_offset
        if self.valid_bytes - self.last_index_entry > self.interval:
            self.offsets.append((last_offset, self.valid_bytes))
            # TimeIndex.maybeAppend (4.0-4.3): only a timestamp above the last entry's,
            # and an empty index's lastEntry is (RecordBatch.NO_TIMESTAMP, baseOffset):
            # a segment without timestamps (magic 0/1 with -1) gets no entry, never (-1, x)
            if self.max_ts > (self.times[-1][0] if self.times else L.NO_TIMESTAMP):
                self.times.append((self.max_ts, self.max_ts_offset))
            self.last_index_entry = self.valid_bytes
        self.valid_bytes += size

    def finish(self) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """The entries, with recover's closing time entry (``maybeAppend(..., true)``)."""
        if self.max_ts > (self.times[-1][0] if self.times else L.NO_TIMESTAMP):
            self.times.append((self.max_ts, self.max_ts_offset))
        return self.offsets, self.times


def offset_index_bytes(base: int, entries: list[tuple[int, int]]) -> bytes:
    """An ``.index`` file: (relative offset, position) per entry (OffsetIndex.append)."""
    return b"".join(L.OFFSET_INDEX_ENTRY.pack(o - base, p) for o, p in entries)


def time_index_bytes(base: int, entries: list[tuple[int, int]]) -> bytes:
    """A ``.timeindex`` file: (timestamp, relative offset) per entry (TimeIndex)."""
    return b"".join(L.TIME_INDEX_ENTRY.pack(t, o - base) for t, o in entries)


def txn_index_bytes(entries: list[tuple[int, int, int, int]]) -> bytes:
    """A ``.txnindex`` file: a version-0 AbortedTxn per (producer id, first offset, last
    offset, last stable offset)."""
    return b"".join(L.TXN_INDEX_ENTRY.pack(0, pid, first, last, lso)
                    for pid, first, last, lso in entries)


def write_rebuilt(out_dir: str, log_path: str, base: int, suffix: str,
                  entries: list[tuple[int, int]]) -> str:
    """``entries``: (offset, position) for ``.index``, (timestamp, offset) for
    ``.timeindex``; offsets absolute."""
    plan, target = _target(out_dir, log_path, base, suffix)
    data = (offset_index_bytes if suffix == L.INDEX_SUFFIX else time_index_bytes)(base, entries)
    _write(plan, target, data)
    return target


def write_rebuilt_txn(out_dir: str, log_path: str, base: int,
                      entries: list[tuple[int, int, int, int]]) -> str:
    plan, target = _target(out_dir, log_path, base, L.TXN_INDEX_SUFFIX)
    _write(plan, target, txn_index_bytes(entries))
    return target
