"""What Kafka's own log loading would have done with the input partition: which intact
batches it would have lost, for ``kdump repair``'s manifest ("bytes and records saved").

Modelled from the source (release 4.1; 4.0, 4.2, 4.3 and trunk do the same, 3.9's Scala
LogLoader too, except that 3.9 catches only InvalidOffsetException around a segment's
recovery):

* storage/.../log/LogLoader.java, ``loadSegmentFiles``: a segment whose ``.index`` is
  missing (LogSegment.sanityCheck throws NoSuchFileException) is recovered at once,
  whatever the shutdown: truncated at its first invalid batch, later segments kept;
* LogLoader.``recoverLog``: without ``.kafka_cleanshutdown`` (LogManager.loadLogs reads
  it per log dir), every segment from the one holding the recovery point
  (``LogSegments.values(recoveryPoint, MAX)``: its floor segment) is recovered in turn;
  the first one that truncates bytes (``truncatedBytes > 0``, zeros included) ends it and
  every later segment of that set is deleted (``removeAndDeleteSegmentsAsync``).  A
  segment already recovered because its index was missing truncates nothing the second
  time, so it ends nothing.  An InvalidOffsetException (offsets not ascending where an
  index entry is appended, OffsetIndex.append) empties the segment (``truncateTo(base)``);
* LogSegment.``recover``: reads batches (FileLogInputStream.nextBatch: a size below 14,
  a batch past the end, fewer than 17 bytes left end it) and ``ensureValid`` (the size
  and the checksum; not the magic byte, nor the offsets' order) until the first invalid
  one, then truncates the file there;
* LogLoader.``deleteSegmentsIfLogStartGreaterThanLogEnd``: a log end below the
  log-start-offset checkpoint deletes every segment.

``__cluster_metadata`` is loaded by KafkaMetadataLog.apply with recovery point 0 and
``lastShutdownClean = false``: always recovered from its first segment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Counts:
    batches: int = 0
    records: int = 0
    bytes: int = 0

    def add(self, batches: int, records: int, nbytes: int) -> None:
        self.batches += batches
        self.records += records
        self.bytes += nbytes

    def add_counts(self, other: Counts) -> None:
        self.add(other.batches, other.records, other.bytes)


@dataclass(slots=True)
class SegmentFacts:
    """One input segment, as Kafka's recovery would meet it."""

    path: str
    base: int
    size: int
    has_index: bool
    #: position of the first batch LogSegment.recover rejects (None: it reads to the end)
    fault: int | None = None
    #: recover would throw InvalidOffsetException (the segment emptied)
    wipe: bool = False
    #: batches the repair keeps from this segment, and those of them at or past ``fault``
    kept: Counts = field(default_factory=Counts)
    kept_after_fault: Counts = field(default_factory=Counts)
    #: last offset of the last intact batch before ``fault``, and of the last intact one
    last_before_fault: int | None = None
    last_intact: int | None = None
    # recover's offset-index bookkeeping, for ``wipe``
    _valid_bytes: int = 0
    _last_entry: int = 0
    _last_index_offset: int | None = None

    def batch(self, position: int, size: int, last_offset: int, interval: int) -> None:
        """An intact batch of the input segment, in file order (any, kept or not)."""
        self.last_intact = last_offset
        if self.fault is not None:
            return
        self.last_before_fault = last_offset
        if self._valid_bytes - self._last_entry > interval:
            if self._last_index_offset is not None and last_offset <= self._last_index_offset:
                self.wipe = True  # OffsetIndex.append: "no larger than the last offset"
            self._last_index_offset = last_offset
            self._last_entry = self._valid_bytes
        self._valid_bytes += size

    def invalid(self, position: int) -> None:
        if self.fault is None:
            self.fault = position

    def kept_batch(self, records: int, size: int) -> None:
        self.kept.add(1, records, size)
        if self.fault is not None:
            self.kept_after_fault.add(1, records, size)


@dataclass(slots=True)
class KafkaOutcome:
    recovery: str
    recovered_from: int | None
    truncated: list[dict[str, Any]] = field(default_factory=list)
    deleted_segments: list[str] = field(default_factory=list)
    bytes_removed: int = 0
    lost: Counts = field(default_factory=Counts)
    log_end_offset: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"recovery": self.recovery, "recovered_from": self.recovered_from,
                "truncated": self.truncated, "deleted_segments": self.deleted_segments,
                "bytes_removed": self.bytes_removed,
                "intact_batches_lost": self.lost.batches,
                "intact_records_lost": self.lost.records,
                "intact_bytes_lost": self.lost.bytes, "log_end_offset": self.log_end_offset}


def kafka_recovery(segments: list[SegmentFacts], *, clean_shutdown: bool,
                   recovery_point: int, log_start: int, assumed: str = "") -> KafkaOutcome:
    """The outcome of LogLoader.load over ``segments`` (in base-offset order)."""
    state: dict[int, str] = {}  # index -> "cut" | "deleted"
    out = KafkaOutcome("", None)

    def cut(k: int) -> bool:
        """LogSegment.recover on segment ``k``: True when it truncated bytes."""
        s = segments[k]
        if state.get(k) is not None:
            return False  # recovered already: nothing left to truncate
        if s.wipe:
            state[k] = "cut"
            out.truncated.append({"file": s.path, "position": 0, "bytes": s.size,
                                  "why": "offsets not ascending (InvalidOffsetException): "
                                         "the segment is emptied"})
            out.bytes_removed += s.size
            out.lost.add_counts(s.kept)
            return s.size > 0
        if s.fault is None:
            return False
        state[k] = "cut"
        out.truncated.append({"file": s.path, "position": s.fault, "bytes": s.size - s.fault,
                              "why": "the first invalid batch"})
        out.bytes_removed += s.size - s.fault
        out.lost.add_counts(s.kept_after_fault)
        return s.size > s.fault

    for k, s in enumerate(segments):
        if not s.has_index:
            cut(k)  # LogLoader.loadSegmentFiles: NoSuchFileException -> recoverSegment
    if clean_shutdown:
        out.recovery = "none: the log dir holds .kafka_cleanshutdown (only segments missing " \
                       "their .index are recovered)"
    else:
        start = 0
        for k, s in enumerate(segments):
            if s.base <= recovery_point:
                start = k
        out.recovered_from = segments[start].base if segments else None
        out.recovery = (f"from segment {out.recovered_from} (recovery point {recovery_point}"
                        f"{'; ' + assumed if assumed else ''})")
        for k in range(start, len(segments)):
            if cut(k):
                for j in range(k + 1, len(segments)):
                    state[j] = "deleted"
                    out.deleted_segments.append(segments[j].path)
                    out.bytes_removed += segments[j].size
                    out.lost.add_counts(segments[j].kept)
                break
    out.log_end_offset = _log_end(segments, state, log_start)
    if out.log_end_offset < log_start:
        # LogLoader.deleteSegmentsIfLogStartGreaterThanLogEnd
        for k, s in enumerate(segments):
            if state.get(k) == "deleted":
                continue
            out.deleted_segments.append(s.path)
            kept = s.kept if state.get(k) is None else Counts(
                s.kept.batches - s.kept_after_fault.batches,
                s.kept.records - s.kept_after_fault.records,
                s.kept.bytes - s.kept_after_fault.bytes)
            out.lost.add_counts(kept)
            state[k] = "deleted"
        out.log_end_offset = log_start
    return out


def _log_end(segments: list[SegmentFacts], state: dict[int, str], log_start: int) -> int:
    """The log end offset left (from the intact batches; an empty last segment: its base)."""
    for k in range(len(segments) - 1, -1, -1):
        s = segments[k]
        st = state.get(k)
        if st == "deleted":
            continue
        last = s.last_intact if st is None else (None if s.wipe else s.last_before_fault)
        return s.base if last is None else max(last + 1, s.base)
    return log_start


__all__ = ["Counts", "KafkaOutcome", "SegmentFacts", "kafka_recovery"]
