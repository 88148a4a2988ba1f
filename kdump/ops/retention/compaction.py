"""The log cleaner's view of a compacted log (cleanup.policy with ``compact``), as
LogCleanerManager computes it (core/.../LogCleanerManager.scala in 3.9,
storage/.../log/LogCleanerManager.java in 4.x; the arithmetic is the same):

* ``cleanableOffsets``: the first dirty offset is the cleaner-offset-checkpoint's entry,
  else the log start offset (reset to the log start offset when the entry is below it
  or past the log end offset).  The first uncleanable offset is the least of the last
  stable offset (an open transaction's first offset, else the high watermark), the
  active segment's base offset, and, with min.compaction.lag.ms > 0, the base offset of
  the first dirty non-active segment whose largest timestamp is later than
  ``now - min.compaction.lag.ms``.
* ``calculateCleanableBytes``: the first uncleanable segment is the non-active segment
  holding that offset (else the active one); cleanable bytes are the sizes of the
  segments from the one holding the first dirty offset up to it; clean bytes
  (``LogToClean.cleanBytes``) those of the segments below the first dirty offset;
  ``cleanableRatio = cleanable / (clean + cleanable)``.
* ``grabFilthiestCompactedLog``: a log with bytes is cleaned when its ratio is above
  min.cleanable.dirty.ratio, or when ``maxCompactionDelay`` > 0 (the earliest first-batch
  timestamp of its dirty non-active segments is older than ``now -
  max.compaction.lag.ms``) and it has cleanable bytes; the dirtiest such log first.
* Tombstones and transaction markers (``Cleaner.shouldRetainRecord``,
  ``MemoryRecords.filterTo``): the first cleaning that retains a batch holding them
  writes ``deleteHorizonMs = now + delete.retention.ms`` into its base timestamp (the
  delete-horizon attribute bit); a later cleaning drops them once that time has passed.
  v0/v1 tombstones go when their segment's mtime is delete.retention.ms older than the
  last clean segment's (``legacyDeleteHorizonMs``).  Nothing triggers a cleaning for a
  horizon alone: they go at the next cleaning the ratio or the max lag starts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ...errors import KdumpError
from ...files.snapshot import read_producer_snapshot
from ...findings import Problem
from ...records.scan import scan_v2_records
from ...records.v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch
from ...source import FileSource
from .segment_ages import Leftover, Segment, first_batch_timestamp, iter_batches

#: dirty data this much older than now in a cleanable log says the cleaner is not cleaning
STUCK_AFTER_MS = 24 * 3_600_000


@dataclass(slots=True)
class OpenTransaction:
    producer_id: int
    first_offset: int
    #: where it was learnt: a producer snapshot, or the batch that opened it
    source: str


def open_transactions(segments: list[Segment], snapshots: list[tuple[int, str]],
                      log_end_offset: int, problems: list[Problem],
                      max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
                      ) -> list[OpenTransaction]:
    """The transactions open at the log end (ProducerStateManager's ongoing ones): the
    newest readable producer snapshot at or below the log end, then the batches after
    it (a transactional data batch opens its producer's transaction, a control batch
    closes it), as the broker rebuilds producer state on load."""
    state: dict[int, OpenTransaction] = {}
    start = segments[0].base_offset if segments else 0
    for offset, path in sorted(snapshots, reverse=True):
        if offset > log_end_offset:
            continue
        try:
            with FileSource(path) as src:
                snap = read_producer_snapshot(src)
        except KdumpError:
            continue
        if not snap.crc_valid:
            continue  # ProducerStateManager deletes it and uses an older one
        for e in snap.entries:
            if e.current_txn_first_offset >= 0:
                state[e.producer_id] = OpenTransaction(
                    e.producer_id, e.current_txn_first_offset, f"producer snapshot {path}")
        start = offset
        break
    for seg, nxt in zip(segments, [*segments[1:], None], strict=True):
        if nxt is not None and nxt.base_offset <= start:
            continue
        for b in iter_batches(seg, 0, problems, max_batch_bytes):
            if b.last_offset < start or not isinstance(b, RecordBatch):
                continue
            if not b.is_transactional or b.producer_id < 0:
                continue
            if b.is_control:
                state.pop(b.producer_id, None)
            elif b.producer_id not in state:
                state[b.producer_id] = OpenTransaction(
                    b.producer_id, b.base_offset, f"{b.path} position {b.position}")
    return sorted(state.values(), key=lambda t: (t.first_offset, t.producer_id))


def log_segments(segments: list[Segment], start: int, stop: int) -> list[Segment]:
    """LogSegments.values(from, to): from the segment holding ``start`` (the first when
    none does) to the last one starting below ``stop``; none when start == stop."""
    if start >= stop:
        return []
    floor = None
    for s in segments:
        if s.base_offset <= start:
            floor = s.base_offset
    lo = floor if floor is not None else -(2**63)
    return [s for s in segments if lo <= s.base_offset < stop]


@dataclass(slots=True)
class Marks:
    """Tombstones (null values) or transaction markers of a log, by delete horizon."""

    count: int = 0
    past_horizon: int = 0  # horizon <= now: dropped at the next cleaning
    waiting: int = 0  # horizon > now
    no_horizon: int = 0  # not yet through a cleaning that sets one (or v0/v1)
    next_horizon: int | None = None  # the earliest horizon after now

    def add(self, n: int, horizon: int | None, now: int) -> None:
        if n <= 0:
            return
        self.count += n
        if horizon is None:
            self.no_horizon += n
        elif horizon <= now:
            self.past_horizon += n
        else:
            self.waiting += n
            if self.next_horizon is None or horizon < self.next_horizon:
                self.next_horizon = horizon

    def to_json(self) -> dict[str, int | None]:
        return {"count": self.count, "past_horizon": self.past_horizon, "waiting": self.waiting,
                "no_horizon": self.no_horizon, "next_horizon": self.next_horizon}


@dataclass(slots=True)
class CleanerView:
    checkpoint: int | None
    first_dirty_offset: int
    first_uncleanable_offset: int
    uncleanable_because: str
    clean_bytes: int
    cleanable_bytes: int
    dirty_ratio: float | None
    min_cleanable_ratio: float
    compaction_due: bool  # maxCompactionDelay > 0
    earliest_dirty_timestamp: int | None
    cleanable: bool
    last_stable_offset: int
    open_transactions: list[OpenTransaction]
    tombstones: Marks = field(default_factory=Marks)
    markers: Marks = field(default_factory=Marks)
    evidence: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    now: int = 0


def cleaner_view(segments: list[Segment], *, checkpoint: int | None, log_start_offset: int,
                 log_end_offset: int, high_watermark: int, open_txns: list[OpenTransaction],
                 min_ratio: float, min_lag_ms: int, max_lag_ms: int, now: int,
                 leftovers: Iterable[Leftover], problems: list[Problem],
                 max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> CleanerView:
    """LogCleanerManager's numbers for one compacted log (see the module docstring)."""
    notes: list[str] = []
    first_dirty = checkpoint if checkpoint is not None else log_start_offset
    if checkpoint is not None and checkpoint < log_start_offset:
        first_dirty = log_start_offset
        notes.append(f"the cleaner checkpoint {checkpoint} is below the log start offset "
                     f"{log_start_offset}: the cleaner resets it to the log start offset")
    elif checkpoint is not None and checkpoint > log_end_offset:
        first_dirty = log_start_offset
        notes.append(f"the cleaner checkpoint {checkpoint} is past the log end offset "
                     f"{log_end_offset}: the cleaner starts again from the log start offset")
    active = segments[-1]
    first_unstable = min((t.first_offset for t in open_txns), default=None)
    lso = high_watermark if first_unstable is None or first_unstable >= high_watermark \
        else first_unstable
    candidates: list[tuple[int, str]] = [
        (active.base_offset, f"the active segment {active.name}"),
        (lso, f"the last stable offset {lso}: "
              + (f"an open transaction of producer {open_txns[0].producer_id} from offset "
                 f"{open_txns[0].first_offset}" if first_unstable is not None
                 and first_unstable < high_watermark else "the high watermark"))]
    non_active = log_segments(segments[:-1], first_dirty, active.base_offset) \
        if first_dirty <= active.base_offset else []
    if min_lag_ms > 0:
        for s in non_active:
            if (s.largest_timestamp or -1) > now - min_lag_ms:
                candidates.append((s.base_offset, f"min.compaction.lag.ms={min_lag_ms}: "
                                   f"{s.name}'s largest timestamp {s.largest_timestamp} is "
                                   "within it"))
                break
    uncleanable, because = min(candidates, key=lambda c: c[0])
    uncleanable = max(first_dirty, uncleanable)
    holding = [s for s in segments[:-1] if s.base_offset <= uncleanable]
    if holding and uncleanable < active.base_offset:
        first_uncleanable = holding[-1].base_offset
    else:
        first_uncleanable = active.base_offset
    clean_bytes = sum(s.size for s in log_segments(segments, -1, first_dirty))
    cleanable_bytes = sum(s.size for s in log_segments(
        segments, min(first_dirty, first_uncleanable), first_uncleanable))
    total = clean_bytes + cleanable_bytes
    ratio = cleanable_bytes / total if total else None
    firsts = [t for s in non_active
              if (t := first_batch_timestamp(s, problems, max_batch_bytes)) is not None and t > 0]
    earliest = min(firsts) if firsts else None
    due = earliest is not None and earliest < now - max(max_lag_ms, 0)
    cleanable = total > 0 and ((due and cleanable_bytes > 0)
                               or (ratio is not None and ratio > min_ratio))
    view = CleanerView(checkpoint, first_dirty, first_uncleanable, because, clean_bytes,
                       cleanable_bytes, ratio, min_ratio, due, earliest, cleanable, lso,
                       open_txns, notes=notes, now=now)
    _marks(view, segments, now, problems, max_batch_bytes)
    view.evidence = _evidence(view, segments, leftovers)
    return view


def _marks(view: CleanerView, segments: list[Segment], now: int, problems: list[Problem],
           max_batch_bytes: int) -> None:
    """Count tombstones and markers by delete horizon (every batch's records read)."""
    for seg in segments:
        for b in iter_batches(seg, 0, problems, max_batch_bytes):
            if isinstance(b, RecordBatch):
                horizon = b.delete_horizon_ms
                if b.is_control:
                    view.markers.add(max(b.records_count, 0), horizon, now)
                    continue
                try:
                    buf, start, end = b.payload(max_batch_bytes)
                except KdumpError:
                    continue  # damage: verify-crc names it
                view.tombstones.add(scan_v2_records(buf, start, end,
                                                    max(b.records_count, 0)).null_values,
                                    horizon, now)
            else:
                try:
                    n = sum(1 for r in b.records(max_batch_bytes) if r.value is None)
                except KdumpError:
                    continue
                view.tombstones.add(n, None, now)


def _evidence(view: CleanerView, segments: list[Segment], leftovers: Iterable[Leftover]
              ) -> list[str]:
    """What the files say about the cleaner having run, or being stuck."""
    out = []
    if view.clean_bytes + view.cleanable_bytes == 0:
        # grabFilthiestCompactedLog passes over a log with no bytes below its first
        # uncleanable offset: nothing to say of the cleaner here
        return [f"{lo.path}: a .{lo.kind} file, left by a cleaning that did not finish"
                for lo in leftovers if lo.kind in ("cleaned", "swap")]
    if view.checkpoint is None:
        if view.cleanable:
            out.append("no cleaner-offset-checkpoint entry although the log is cleanable: "
                       "the cleaner has never cleaned it (log.cleaner.enable? a dead cleaner "
                       "thread? the partition marked uncleanable after an error: see "
                       "log-cleaner.log)")
        else:
            out.append("no cleaner-offset-checkpoint entry: the cleaner has not cleaned this "
                       "log (it never became cleanable)")
    elif view.cleanable:
        dirty = [s for s in segments if s.base_offset >= view.first_dirty_offset]
        oldest = dirty[0] if dirty else None
        since = (f"; the dirty part starts in {oldest.name} (largest timestamp "
                 f"{oldest.largest_timestamp})" if oldest is not None else "")
        out.append(f"cleanable now and the cleaner checkpoint is at {view.checkpoint}"
                   f"{since}: a running cleaner takes the dirtiest log first, every "
                   "log.cleaner.backoff.ms (15 s) at most when idle")
    if view.cleanable and view.earliest_dirty_timestamp is not None:
        age = view.now - view.earliest_dirty_timestamp
        if age > STUCK_AFTER_MS:
            out.append(f"dirty data from {view.earliest_dirty_timestamp} ({age // 3_600_000} h "
                       "before now) waits in a cleanable log: a cleaner that cleans would have "
                       "taken it; it is stuck, busy with dirtier logs (log.cleaner.threads), "
                       "or the partition is marked uncleanable (log-cleaner.log says which)")
    for lo in leftovers:
        if lo.kind in ("cleaned", "swap"):
            out.append(f"{lo.path}: a .{lo.kind} file, left by a cleaning that did not finish")
    return out


__all__ = ["CleanerView", "Marks", "OpenTransaction", "cleaner_view", "log_segments",
           "open_transactions"]
