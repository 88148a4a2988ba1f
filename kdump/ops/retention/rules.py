"""UnifiedLog.deleteOldSegments over a partition replica's segments: which go now, by
which rule, and why and until when each other one stays.

What Kafka does (UnifiedLog.scala in 3.x and 4.0, UnifiedLog.java in 4.1-4.3; the
walk is the same in every release, checked line by line):

* ``deleteOldSegments``: with ``delete`` in cleanup.policy, the log-start-offset rule,
  then the size rule, then the time rule, each on what the one before left; without it
  the log-start-offset rule alone.  From 4.2, an *empty* cleanup.policy on a topic with
  remote storage copying applies all three to the local log (local.retention.*); an
  empty policy otherwise, and compact, keep the log-start-offset rule only.
* ``deletableSegments`` walks from the oldest segment and stops at the first it does
  not take.  It takes a segment when the high watermark is at or past its upper bound
  (the next segment's base offset; the log end offset for the last), the rule holds,
  it is not the last segment while empty, and (remote storage copying) it is already
  in remote storage (upper bound - 1 <= highestOffsetInRemoteStorage) or the log start
  offset passed it.  The rule is not even asked when the high watermark is short.
* The last (active) segment: without remote storage it is taken like any other, and
  ``deleteSegments``, deleting every segment, rolls a new empty active segment first;
  with remote storage a breached active segment is rolled (``shouldRoll``) and, like
  every segment, deleted once copied.  (FORMATS.md section 20 says "rolled first and
  deleted once no longer active" for every case: the source does that only with
  remote storage.)
* Time: ``startMs - segment.largestTimestamp > retentionMs``; retention.ms < 0 turns it
  off.  Size: only when ``size >= retentionSize >= 0``; ``diff = size - retentionSize``
  and a segment goes while ``diff - segment.size >= 0`` (then ``diff -= size``).  Log
  start offset: the next segment's base offset <= the log start offset (the local log
  start offset with remote storage).
* With remote storage copying, retention.ms/bytes are local.retention.ms/bytes (-2:
  the same as retention.*): ``UnifiedLog.localRetentionMs`` / ``localRetentionSize``.
* LogManager.cleanupLogs runs deleteOldSegments on the non-compacted logs; the cleaner
  thread runs it on the compacted ones (LogCleaner's ``deletableLogs``): with
  ``log.cleaner.enable=false`` nothing deletes a compacted log's segments.

Kept segments get a date when time alone stands in the way (the earliest moment every
segment from the oldest kept one up to it is breached: ``max(largest timestamp) +
retention.ms + 1``), ``None`` when nothing but a change (a high watermark moving, a copy
to remote storage, a new config, more data) lets it go.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...protocol.definitions import KafkaVersion
from ...textsafe import inert
from .segment_ages import Segment

LONG_MAX = 2**63 - 1

#: why a segment stays (the ``reason`` of a kept segment), in words
HOLD_REASONS = {
    "high-watermark": "the high watermark is below the segment's upper bound (the next "
                      "segment's base offset, or the log end offset): deletableSegments "
                      "never passes it",
    "empty-active-segment": "the last segment is empty: a log keeps one segment",
    "not-copied-to-remote": "remote storage is on and the segment is not copied yet "
                            "(upper bound - 1 > the highest offset in remote storage)",
    "future-timestamp": "the segment's largest timestamp is later than now: time retention "
                        "keeps it until that timestamp + retention.ms",
    "within-retention": "the segment's largest timestamp is within retention.ms of now",
    "pinned": "an older segment is kept, and the walk stops at the first segment it keeps",
    "no-time-retention": "retention.ms is negative (no time retention) and the size rule "
                         "does not reach the segment",
    "compact-policy": "cleanup.policy=compact: retention deletes nothing but what lies "
                      "below the log start offset",
    "empty-policy": "cleanup.policy is empty: retention deletes nothing but what lies below "
                    "the log start offset",
    "cleaner-disabled": "log.cleaner.enable=false: compacted logs are neither cleaned nor "
                        "passed to deleteOldSegments (LogManager.cleanupLogs)",
    "kraft-metadata": "the KRaft metadata log is trimmed after snapshots "
                      "(metadata.max.retention.ms/bytes), not by topic retention",
}

#: the rules that delete (the ``reason`` and ``rule`` of a deletable segment)
RULES = ("log-start-offset", "retention.bytes", "retention.ms", "local.retention.bytes",
         "local.retention.ms")


@dataclass(slots=True)
class Policy:
    """What decides one log's retention."""

    release: str  # the Kafka release whose rules apply (3.9, 4.0 ... 4.3)
    delete: bool
    compact: bool
    retention_ms: int  # the effective one (local.retention.ms with remote copying)
    retention_bytes: int
    remote: bool = False  # UnifiedLog.remoteLogEnabled
    remote_copy: bool = False  # remote && !remote.log.copy.disable
    highest_remote_offset: int = -1
    cleaner_enabled: bool = True
    kraft_metadata: bool = False

    @property
    def time_name(self) -> str:
        return "local.retention.ms" if self.remote_copy else "retention.ms"

    @property
    def size_name(self) -> str:
        return "local.retention.bytes" if self.remote_copy else "retention.bytes"

    def rules_applied(self) -> tuple[bool, str | None]:
        """(size and time rules applied, why not when they are not)."""
        if self.kraft_metadata:
            return False, "kraft-metadata"
        if self.compact and not self.cleaner_enabled:
            return False, "cleaner-disabled"
        if self.delete:
            return True, None
        if self.compact:
            return False, "compact-policy"
        # an empty cleanup.policy: 4.2+ applies local retention with remote copying
        if self.remote_copy and KafkaVersion.parse(self.release).at_least("4.2"):
            return True, None
        return False, "empty-policy"


@dataclass(slots=True)
class LogState:
    """One partition replica's offsets: what the walk compares against."""

    segments: list[Segment]
    log_end_offset: int
    high_watermark: int
    log_start_offset: int
    #: the local log start offset (remote storage): the first local segment's base
    local_log_start_offset: int

    def upper(self, i: int) -> int:
        segs = self.segments
        return segs[i + 1].base_offset if i + 1 < len(segs) else self.log_end_offset

    @property
    def size(self) -> int:
        return sum(s.size for s in self.segments)


@dataclass(slots=True)
class Verdict:
    deletable: bool
    reason: str
    rule: str | None = None
    deletable_at: int | None = None
    detail: str = ""
    #: the segment (index) whose timestamp sets the date, when not this one
    pinned_by: int | None = None
    #: a kept segment with no date: what must change before it can go, in words (the one
    #: phrase text, JSON and the report all show; None when deletable or dated)
    until: str | None = None


def _date(largest: int | None, retention_ms: int) -> int | None:
    if largest is None:
        return None
    at = largest + retention_ms + 1
    return at if at <= LONG_MAX else None


def decide(log: LogState, policy: Policy, now: int) -> list[Verdict]:
    """A verdict per segment of ``log`` at ``now`` (epoch ms)."""
    segs = log.segments
    n = len(segs)
    out: list[Verdict | None] = [None] * n
    start = 0
    rolled_note = ""

    def eligible(i: int, upper: int) -> bool:
        if not policy.remote_copy:
            return True
        nxt = segs[i + 1] if i + 1 < n else None
        return (upper > 0 and upper - 1 <= policy.highest_remote_offset) or (
            nxt is not None and log.log_start_offset >= nxt.base_offset)

    def walk(rule: str, predicate: Callable[[int], bool], why: Callable[[int], str],
             since: Callable[[int], int | None] = lambda i: None) -> None:
        nonlocal start, rolled_note
        i = start
        first = None  # the time rule: the latest date of the segments taken so far
        while i < n:
            upper = log.upper(i)
            last_empty = i == n - 1 and segs[i].size == 0
            holds = log.high_watermark >= upper and predicate(i)
            if holds and policy.remote and i == n - 1 and segs[i].size > 0:
                rolled_note = (f"{rule} is breached by the active segment: the broker rolls "
                               "it (deletableSegments) and deletes it once copied to remote "
                               "storage")
            if holds and not last_empty and eligible(i, upper):
                detail = why(i)
                if i == n - 1:
                    detail += ("; the active segment: deleteSegments rolls a new empty "
                               "segment first, as it deletes every segment")
                at = since(i)
                if at is not None:
                    first = at if first is None else max(first, at)
                out[i] = Verdict(True, rule, rule, first if at is not None else None, detail)
                i += 1
            else:
                break
        start = i

    applied, not_applied = policy.rules_applied()
    lso = log.local_log_start_offset if policy.remote else log.log_start_offset
    if not_applied not in ("cleaner-disabled", "kraft-metadata"):
        # (those logs never reach deleteOldSegments at all)
        walk("log-start-offset",
             lambda i: i + 1 < n and segs[i + 1].base_offset <= lso,
             lambda i: f"the next segment starts at {segs[i + 1].base_offset}, at or below "
                       f"the log start offset {lso}")
    ret_ms, ret_bytes = policy.retention_ms, policy.retention_bytes
    if applied:
        size_left = sum(s.size for s in segs[start:])
        if ret_bytes >= 0 and size_left >= ret_bytes:
            diff = [size_left - ret_bytes]

            def by_size(i: int) -> bool:
                if diff[0] - segs[i].size >= 0:
                    diff[0] -= segs[i].size
                    return True
                return False

            excess = diff[0]
            walk(policy.size_name, by_size,
                 lambda i: f"the log's {size_left} bytes exceed {policy.size_name}="
                           f"{ret_bytes} by {excess}, which covers this segment")
        if ret_ms >= 0:
            walk(policy.time_name,
                 lambda i: now - _largest(segs[i]) > ret_ms,
                 lambda i: f"its largest timestamp {_largest(segs[i])} is more than "
                           f"{policy.time_name}={ret_ms} before now",
                 lambda i: _date(_largest(segs[i]), ret_ms))
    # the kept ones
    size_note = _size_note(log, policy, start) if applied else ""
    best: tuple[int, int] | None = None  # (latest date so far, the segment setting it)
    hard: tuple[str, int] | None = None  # the first kept segment with no date
    for i in range(start, n):
        seg = segs[i]
        upper = log.upper(i)
        own, own_date = _own_hold(seg, i, n, upper, log, policy, applied, not_applied,
                                  now, eligible(i, upper))
        if own_date is None:
            until = _until(own, upper, log, policy, applied)
            out[i] = Verdict(False, own, None, None, _why(own, seg, upper, log, policy, until),
                             until=until)
            if hard is None:
                hard = (own, i)
            continue
        if hard is not None:
            v = _pinned(hard[1], segs, None)
            v.detail = f"kept behind {segs[hard[1]].name} ({hard[0]}), which has no date"
            v.until = f"not before {segs[hard[1]].name} goes ({hard[0]})"
            out[i] = v
        elif best is not None and best[0] > own_date:
            out[i] = _pinned(best[1], segs, best[0])
        else:
            out[i] = Verdict(False, own, None, own_date,
                             _why(own, seg, upper, log, policy, None))
        if best is None or own_date > best[0]:
            best = (own_date, i)
    verdicts = [v if v is not None else Verdict(False, "within-retention") for v in out]
    if rolled_note and n:
        verdicts[-1].detail += ("; " if verdicts[-1].detail else "") + rolled_note
    if size_note:
        for v in verdicts[start:]:
            v.detail += ("; " if v.detail else "") + size_note
    return verdicts


def _largest(seg: Segment) -> int:
    return seg.largest_timestamp if seg.largest_timestamp is not None else -1


def _own_hold(seg: Segment, i: int, n: int, upper: int, log: LogState, policy: Policy,
              applied: bool, not_applied: str | None, now: int, eligible: bool
              ) -> tuple[str, int | None]:
    """Why segment ``i`` alone stays, and from when time alone would let it go (None:
    never by time)."""
    if not_applied in ("kraft-metadata", "cleaner-disabled"):
        return not_applied, None
    if i == n - 1 and seg.size == 0:
        return "empty-active-segment", None
    if log.high_watermark < upper:
        return "high-watermark", None
    if not applied:
        return not_applied or "compact-policy", None
    if not eligible:
        return "not-copied-to-remote", None
    if policy.retention_ms < 0:
        return "no-time-retention", None
    largest = _largest(seg)
    date = _date(largest, policy.retention_ms)
    if largest > now:
        return "future-timestamp", date
    if date is None or date > now:
        return "within-retention", date
    return "pinned", date  # breached itself: only an older segment keeps it


def _pinned(by: int, segs: list[Segment], date: int | None) -> Verdict:
    b = segs[by]
    return Verdict(False, "pinned", None, date,
                   f"kept behind {b.name} (largest timestamp {_largest(b)})", pinned_by=by)


def _until(reason: str, upper: int, log: LogState, policy: Policy, applied: bool) -> str:
    """What must change before a kept segment with no date can go, in words."""
    lso_only = ("cleanup.policy=compact" if policy.compact else "cleanup.policy is empty") + \
        (": only the log-start-offset rule deletes (DeleteRecords, or a log start offset "
         "moved past it); the log cleaner rewrites segments, it deletes none by age")
    if reason == "high-watermark":
        if applied:
            return f"not before the high watermark reaches {upper}"
        return (f"not before the high watermark and the log start offset reach {upper} "
                f"({lso_only})")
    if reason in ("compact-policy", "empty-policy"):
        return f"not before the log start offset reaches {upper} ({lso_only})"
    if reason == "empty-active-segment":
        return "not while it is the log's empty last segment (a log keeps one segment)"
    if reason == "not-copied-to-remote":
        return f"not before its offsets up to {upper - 1} are copied to remote storage"
    if reason == "no-time-retention":
        return (f"not by time ({policy.time_name}={policy.retention_ms}): only when the size "
                "rule or the log start offset reaches it")
    if reason == "cleaner-disabled":
        return "not while log.cleaner.enable=false"
    if reason == "kraft-metadata":
        return ("not by retention: the KRaft metadata log is trimmed after snapshots "
                "(metadata.max.retention.ms/bytes)")
    return HOLD_REASONS.get(reason, reason)


def _why(reason: str, seg: Segment, upper: int, log: LogState, policy: Policy,
         until: str | None) -> str:
    if reason == "high-watermark":
        return (f"the high watermark {log.high_watermark} is below its upper bound {upper}: "
                f"{until or 'deletableSegments never passes it'}")
    if reason == "future-timestamp":
        return (f"its largest timestamp {_largest(seg)} is in the future: "
                f"{policy.time_name}={policy.retention_ms} counts from it")
    if reason == "within-retention":
        return (f"its largest timestamp {_largest(seg)} is within {policy.time_name}="
                f"{policy.retention_ms}")
    if reason == "not-copied-to-remote":
        return (f"its offsets up to {upper - 1} are not in remote storage yet (highest copied: "
                f"{policy.highest_remote_offset}): RemoteLogManager copies closed segments up "
                "to the last stable offset first")
    if reason == "no-time-retention":
        return f"{policy.time_name}={policy.retention_ms}: no time retention"
    return HOLD_REASONS.get(reason, reason)


def _size_note(log: LogState, policy: Policy, start: int) -> str:
    """Why the size rule stops where it does (said on every kept segment)."""
    if policy.retention_bytes < 0:
        return ""
    left = sum(s.size for s in log.segments[start:])
    if left < policy.retention_bytes:
        return (f"size rule: the log's {left} bytes are within {policy.size_name}="
                f"{policy.retention_bytes}")
    return (f"size rule: the excess {left - policy.retention_bytes} bytes over "
            f"{policy.size_name}={policy.retention_bytes} does not cover the oldest kept "
            "segment")


def describe(seg: Segment) -> str:
    """A segment for a sentence (its name is the data's: inert)."""
    return inert(seg.name)


__all__ = ["HOLD_REASONS", "RULES", "LogState", "Policy", "Verdict", "decide"]
