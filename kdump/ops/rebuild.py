"""Write the index files Kafka would rebuild, into a directory of the user's choosing.

Layout: ``DIR/<log dir>/<partition directory name>/<base offset>.index|.timeindex|.txnindex``,
one subdirectory per input log dir (``broker-<id>`` when its meta.properties names the
broker, else the log dir's name; ``-2``, ``-3`` ... when two share a name), so two
replicas of one partition are never merged.  Byte-exact with what LogSegment.recover
writes (offset index entries of relative offset and position; time index entries of
timestamp and relative offset; 34-byte aborted-transaction entries of version 0).

The evidence is never touched: :func:`plan_rebuild` refuses, before anything is
written, a DIR whose targets resolve (symlinks followed) into an input, and targets
that already exist (unless ``force``).  Each file is written to a fresh private
temporary file (``O_CREAT|O_EXCL|O_NOFOLLOW``) and linked into place, never through a
symlink; a failed write (disk full) removes its temporary file.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from .. import fs as kfs
from .. import layouts as L
from ..errors import KdumpError, OutputError, UsageError
from ..source import FileSource

_SAFE = re.compile(r"[^A-Za-z0-9._-]")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_TMP_SUFFIX = ".kdump-tmp"


def _safe_name(name: str) -> str:
    """A path component from a file name read on disk: nothing from the data steers
    where kdump writes (no separators, no dot-dot, no control bytes)."""
    s = _SAFE.sub("_", name)
    return s if s.strip(".") else "_" + s


def _broker_label(logdir: str) -> str:
    """``broker-<id>`` from the log dir's meta.properties, else the log dir's name."""
    try:
        # read as every input is (kdump.source: O_NONBLOCK, regular files only): a FIFO
        # in its place must not hang the rebuild (fuzz case k4:569)
        with FileSource(os.path.join(logdir, "meta.properties")) as src:
            text = src.pread(0, min(src.size, 64 << 10)).decode("latin-1")
    except (KdumpError, OSError):
        text = ""
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() in ("node.id", "broker.id") and value.strip().isdigit():
            return f"broker-{int(value.strip())}"
    return _safe_name(os.path.basename(logdir.rstrip(os.sep)) or "logdir")


def _inside(path: str, roots: list[str]) -> str | None:
    for r in roots:
        if path == r or path.startswith(r.rstrip(os.sep) + os.sep):
            return r
    return None


@dataclass
class RebuildPlan:
    """Where the rebuilt indexes of each input log dir go, and what must not be touched."""

    out_dir: str
    force: bool = False
    #: real paths of the inputs (a file's directory): never written into
    protected: list[str] = field(default_factory=list)
    #: real path of a log dir -> its subdirectory name under ``out_dir``
    labels: dict[str, str] = field(default_factory=dict)

    def label(self, logdir: str) -> str:
        real = os.path.realpath(logdir)
        if real not in self.labels:
            base = _broker_label(real)
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
                            _safe_name(os.path.basename(part_dir)))

    def check_dir(self, d: str, shown_for: str, error: type[UsageError | OutputError] = UsageError
                  ) -> None:
        real = os.path.realpath(d)
        hit = _inside(real, self.protected)
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
    protected = []
    logdirs = []
    for p in inputs:
        real = os.path.realpath(p)
        d = real if os.path.isdir(real) else os.path.dirname(real)
        protected.append(d)
        if d != real or _holds_logs(d):
            # a segment or a partition: DIR may not be its log dir either
            logdirs.append(os.path.dirname(d))
    plan = RebuildPlan(out_dir, force, protected)
    real_out = os.path.realpath(out_dir)
    hit = _inside(real_out, protected) or (real_out if real_out in logdirs else None)
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
            t = os.path.join(d, _safe_name(stem) + suffix)
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


def _holds_logs(d: str) -> bool:
    try:
        return any(n.endswith(L.LOG_SUFFIX) for n in kfs.listdir(d))
    except OSError:
        return False


def _plan_for(out_dir: str, log_path: str) -> RebuildPlan:
    plan = _PLANS.get(os.path.abspath(out_dir))
    if plan is None:  # called without plan_rebuild: protect at least the log's directory
        plan = RebuildPlan(out_dir, False, [os.path.dirname(os.path.realpath(log_path))])
        _PLANS[os.path.abspath(out_dir)] = plan
    return plan


def _mkdirs(plan: RebuildPlan, d: str, log_path: str) -> None:
    """Create ``d`` below ``plan.out_dir``; no component below it may be a symlink."""
    try:
        os.makedirs(plan.out_dir, exist_ok=True)
    except OSError as e:
        raise OutputError(f"cannot create directory: {e.strerror}", path=plan.out_dir) from None
    rel = os.path.relpath(d, plan.out_dir)
    cur = plan.out_dir
    for part in rel.split(os.sep):
        cur = os.path.join(cur, part)
        try:
            os.mkdir(cur, 0o755)
        except FileExistsError:
            if os.path.islink(cur) or not os.path.isdir(cur):
                raise OutputError(f"--rebuild-into: {cur} exists and is not a plain directory "
                                 "(a symlink?): refusing to write through it") from None
        except OSError as e:
            raise OutputError(f"cannot create directory: {e.strerror}", path=cur) from None
    plan.check_dir(d, os.path.dirname(log_path), OutputError)


def _target(out_dir: str, log_path: str, base: int, suffix: str) -> tuple[RebuildPlan, str]:
    plan = _plan_for(out_dir, log_path)
    d = plan.partition_dir(log_path)
    _mkdirs(plan, d, log_path)
    return plan, os.path.join(d, f"{base:0{L.OFFSET_DIGITS}d}{suffix}")


def _write(plan: RebuildPlan, target: str, data: bytes) -> None:
    d, name = os.path.split(target)
    tmp = None
    try:
        for n in range(100):
            cand = os.path.join(d, f".{name}.{os.getpid()}.{n}{_TMP_SUFFIX}")
            try:
                fd = os.open(cand, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
            except FileExistsError:
                continue
            tmp = cand
            break
        else:
            raise OutputError("cannot create a temporary file (100 names taken)", path=d)
        try:
            view = memoryview(data)
            while view:
                k = os.write(fd, view)
                view = view[k:]
            os.fsync(fd)
        finally:
            os.close(fd)
        if plan.force:
            os.replace(tmp, target)  # replaces a symlink itself, never its target
        else:
            try:
                os.link(tmp, target, follow_symlinks=False)  # fails if the name exists
            except FileExistsError:
                raise OutputError(f"{target} already exists; kdump does not replace files "
                                 "unless told to (--force)") from None
            os.unlink(tmp)
        tmp = None
    except OSError as e:
        raise OutputError(f"cannot write: {e.strerror}", path=target) from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


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
