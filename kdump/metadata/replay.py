"""Replay ``__cluster_metadata`` into an image: the latest snapshot at or before the
target, then the log records after the snapshot's end offset.

A KRaft snapshot ``<offset>-<epoch>.checkpoint`` holds the image of every record below
``offset`` (raft/.../snapshot/Snapshots.java); its records are applied to an empty image
(``MetadataDelta.finishSnapshot``).  Log records from ``offset`` on are applied in
order; Begin/End/AbortTransaction records make the records between them apply at the
END record, or never (``MetadataBatchLoader``).  Which files were used, where snapshot
and log overlap and where offsets are missing are said in the result.

Memory: batches are streamed (one at a time); only the image is held, plus the records
of a transaction still open.

Size: over 600 lines, as it is one subject: choosing the snapshot and segments, walking
them in order (``steps``) and applying each record, the problems said as they are met.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import fs as kfs
from ..errors import InputError, KdumpError, UsageError
from ..files.logdir import classify
from ..findings import ERROR, INFO, WARNING, Problem
from ..records.control import parse_control
from ..records.file_records import LogReader
from ..records.v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch
from ..source import FileSource
from .health import BrokerMoments, Health, cluster_health
from .image import (
    APPLIED_TYPES,
    NO_EFFECT,
    TRANSACTION_TYPES,
    ApplyError,
    Change,
    MetadataImage,
)
from .records import RecordError, decode_record

__all__ = ["Event", "Replay", "Sources", "Target", "find_sources", "parse_point"]

METADATA_DIR = "__cluster_metadata-0"
#: problems of one kind kept one by one (the rest are counted)
MAX_PROBLEMS_PER_KIND = 1000


@dataclass(frozen=True, slots=True)
class SnapshotFile:
    path: str
    end_offset: int  # records below this offset are in it
    epoch: int


@dataclass(frozen=True, slots=True)
class Segment:
    path: str
    base_offset: int


@dataclass
class Sources:
    """What a PATH holds: snapshots and log segments of ``__cluster_metadata-0``."""

    path: str
    directory: str | None
    snapshots: list[SnapshotFile] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    quorum_state: str | None = None
    #: files named like metadata files but not used, with why
    ignored: list[tuple[str, str]] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return [s.path for s in self.snapshots] + [s.path for s in self.segments]


def find_sources(path: str) -> Sources:
    """PATH: a ``__cluster_metadata-0`` directory, a log dir holding one, or a snapshot
    ``.checkpoint`` file.  Raises :class:`InputError` / :class:`UsageError`."""
    if not kfs.exists(path):
        raise InputError("no such file or directory", path=path)
    if not kfs.isdir(path):
        f = classify(path)
        if f.kind not in ("kraft-snapshot", "bootstrap-snapshot") or f.leftover is not None:
            raise UsageError("not a KRaft snapshot (.checkpoint), a __cluster_metadata-0 "
                             "directory or a log dir holding one", path=path)
        return Sources(path, None, [SnapshotFile(path, f.base_offset or 0, f.epoch or 0)])
    directory = path
    try:
        names = _listdir(path)
    except OSError as e:
        raise InputError((e.strerror or str(e)).lower(), path=path) from None
    if METADATA_DIR in names and kfs.isdir(os.path.join(path, METADATA_DIR)):
        directory = os.path.join(path, METADATA_DIR)
        try:
            names = _listdir(directory)
        except OSError as e:
            raise InputError((e.strerror or str(e)).lower(), path=directory) from None
    src = Sources(path, directory)
    for name in sorted(names):
        full = os.path.join(directory, name)
        if kfs.isdir(full):
            continue
        f = classify(full, in_partition=False)
        if name == "quorum-state":
            src.quorum_state = full
        elif f.leftover is not None and f.kind in ("log", "kraft-snapshot"):
            src.ignored.append((full, f"leftover (.{f.leftover}): not part of the log"))
        elif f.kind == "kraft-snapshot" and f.base_offset is not None:
            src.snapshots.append(SnapshotFile(full, f.base_offset, f.epoch or 0))
        elif f.kind == "log" and f.base_offset is not None:
            src.segments.append(Segment(full, f.base_offset))
    src.snapshots.sort(key=lambda s: (s.end_offset, s.epoch))
    src.segments.sort(key=lambda s: s.base_offset)
    if not src.snapshots and not src.segments:
        raise UsageError("holds no __cluster_metadata snapshot or log segment", path=path)
    return src


@dataclass(frozen=True, slots=True)
class Target:
    """Where to stop: an offset (inclusive), a time (epoch ms, inclusive), or the end."""

    offset: int | None = None
    time: int | None = None

    def describe(self) -> str:
        if self.offset is not None:
            return f"offset {self.offset}"
        if self.time is not None:
            return f"time {self.time}"
        return "end"


def parse_point(text: str) -> Target:
    """``--diff`` points: ``123`` (offset), ``@1700000000000`` or an ISO-8601 time."""
    from ..timestamps import parse_timestamp

    t = text.strip()
    if t.isdigit():
        return Target(offset=int(t))
    if t.startswith("@"):
        return Target(time=parse_timestamp(t[1:], "--diff"))
    return Target(time=parse_timestamp(t, "--diff"))


@dataclass(slots=True)
class Event:
    """What one record did: for ``--history``."""

    offset: int | None  # None: loaded from the snapshot
    timestamp: int | None
    record_type: str
    changes: list[Change]
    #: records of a transaction: the END record's offset, where they took effect
    committed_at: int | None = None
    #: the file and byte position of the batch holding the record (kdump timeline)
    path: str | None = None
    position: int | None = None


@dataclass(slots=True)
class _Pending:
    offset: int
    timestamp: int
    name: str
    message: dict[str, Any]


class Replay:
    """One replay of ``sources`` up to ``target``.

    ``earliest``: start from the earliest point the files allow (the log from its
    start when it starts at offset 0, else the earliest usable snapshot) - for
    ``--history``.  ``on_event`` sees every record's changes; ``on_changes``, given
    instead, sees them as the Event's fields, in its order, no Event made (kdump
    timeline's callback in C: a busy log has millions).
    """

    def __init__(self, sources: Sources, target: Target = Target(), *, earliest: bool = False,
                 on_event: Callable[[Event], None] | None = None,
                 on_control: Callable[[str, RecordBatch, Any], None] | None = None,
                 max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
                 on_changes: Callable[..., None] | None = None) -> None:
        self.sources = sources
        self.target = target
        self.earliest = earliest
        self.on_event = on_event
        self.on_changes = on_changes
        self.on_control = on_control  # (path, batch, ControlRecord): timeline's quorum leaders
        self.max_batch_bytes = max_batch_bytes
        self.image = MetadataImage()
        self.problems: list[Problem] = []
        self.snapshot: SnapshotFile | None = None
        self.snapshot_timestamp: int | None = None
        self.segments_used: list[str] = []
        self.segments_skipped: list[tuple[str, str]] = []
        self.offset: int | None = None  # last offset contained in the image
        self.timestamp: int | None = None
        self.records_applied = 0
        self.records_by_type: Counter[str] = Counter()
        self.no_effect: Counter[str] = Counter()
        self.records_failed = 0
        self.transactions_committed = 0
        self.transactions_aborted = 0
        self.records_aborted = 0
        self.overlap: tuple[int, int] | None = None  # log offsets also in the snapshot
        self.gaps: list[tuple[int, int]] = []
        self.log_start: int | None = None
        self.log_end: int | None = None  # last offset read from the log
        self.reached_target = False
        self._kinds: Counter[str] = Counter()
        self._dropped: Counter[tuple[str, str]] = Counter()
        self._txn: list[_Pending] | None = None
        self._txn_begin: tuple[int, str | None] | None = None
        self._stop = False
        #: when each broker was fenced / entered controlled shutdown (kdump.metadata.health)
        self.moments = BrokerMoments()

    # ------------------------------------------------------------------ problems
    def _problem(self, path: str, position: int | None, kind: str, detail: str, *,
                 base_offset: int | None = None, severity: str = ERROR) -> None:
        self._add(Problem(path, position, kind, detail, base_offset=base_offset,
                          severity=severity))

    def _add(self, p: Problem) -> None:
        """Keep a problem; past MAX_PROBLEMS_PER_KIND of a kind only count them, so a log
        of nothing but bad records cannot fill memory (the count is said at the end)."""
        n = self._kinds[p.kind]
        self._kinds[p.kind] = n + 1
        if n < MAX_PROBLEMS_PER_KIND:
            self.problems.append(p)
        elif p.is_failure:
            self._dropped[(p.kind, p.severity)] += 1

    # ------------------------------------------------------------------ snapshot choice
    def _snapshot_time(self, snap: SnapshotFile) -> int | None:
        """lastContainedLogTimestamp from the snapshot's header (None: unreadable)."""
        try:
            with _open(snap.path) as src:
                for item in LogReader(src, max_batch_bytes=self.max_batch_bytes):
                    if isinstance(item, RecordBatch) and item.is_control:
                        for rec in item.records(self.max_batch_bytes):
                            ctl = parse_control(rec)
                            if ctl.type_name == "SNAPSHOT_HEADER" and ctl.data:
                                return int(ctl.data.get("lastContainedLogTimestamp", -1))
                    return None
        except KdumpError:
            return None
        return None

    def _candidates(self) -> list[SnapshotFile]:
        """Snapshots at or before the target, latest first."""
        snaps = self.sources.snapshots
        t = self.target
        if t.offset is not None:
            snaps = [s for s in snaps if s.end_offset <= t.offset + 1]
        elif t.time is not None:
            keep = []
            for s in snaps:
                ts = self._snapshot_time(s)
                if ts is not None and ts <= t.time:
                    keep.append(s)
            snaps = keep
        return list(reversed(snaps))

    def _choose_start(self) -> list[SnapshotFile]:
        cands = self._candidates()
        segs = self.sources.segments
        if self.earliest:
            if (segs and segs[0].base_offset == 0) or not cands:
                return []
            # the earliest snapshot the log continues from
            first_log = segs[0].base_offset if segs else None
            usable = [s for s in reversed(cands) if first_log is None or s.end_offset >= first_log]
            return usable[:1] + [s for s in cands if s not in usable[:1]]
        return cands

    # ------------------------------------------------------------------ running
    def run(self) -> Replay:
        for _ in self.steps():
            pass
        return self

    def steps(self) -> Iterator[None]:
        """The replay (what :meth:`run` does), pausing after each batch of the log: a
        caller handed the records' events by ``on_event`` takes them at each step, in
        the one thread (``kdump timeline`` streams a log of any size this way)."""
        start = 0
        for snap in self._choose_start():
            if self._load_snapshot(snap):
                self.snapshot = snap
                start = snap.end_offset
                break
            self.image = MetadataImage()  # a damaged snapshot: try the one before it
            self.offset = self.timestamp = None
        yield from self._replay_log(start)
        self._finish()

    def _load_snapshot(self, snap: SnapshotFile) -> bool:
        before = len(self.problems)
        header = footer = False
        try:
            with _open(snap.path) as src:
                for item in LogReader(src, max_batch_bytes=self.max_batch_bytes):
                    if isinstance(item, Problem):
                        self._add(item)
                        continue
                    if not isinstance(item, RecordBatch):
                        self._problem(snap.path, item.position, "metadata-record",
                                      f"a magic {item.magic} entry in a KRaft snapshot")
                        continue
                    if not item.crc_valid:
                        self._problem(snap.path, item.position, "crc-mismatch",
                                      "snapshot batch fails its CRC-32C: not applied",
                                      base_offset=item.base_offset)
                        continue
                    for rec in item.records(self.max_batch_bytes):
                        if item.is_control:
                            ctl = parse_control(rec)
                            if ctl.type_name == "SNAPSHOT_HEADER":
                                header = True
                                if ctl.data:
                                    self.snapshot_timestamp = int(
                                        ctl.data.get("lastContainedLogTimestamp", -1))
                            elif ctl.type_name == "SNAPSHOT_FOOTER":
                                footer = True
                            else:
                                self._control(snap.path, item, ctl)
                            continue
                        self._apply_one(snap.path, item, rec.offset, rec.value, None)
        except KdumpError as e:
            self._problem(e.path or snap.path, e.position, "metadata-record", e.message,
                          base_offset=e.base_offset)
        if not header or not footer:
            missing = " and ".join(w for w, ok in (("header", header), ("footer", footer)) if not ok)
            self._problem(snap.path, None, "metadata-snapshot",
                          f"snapshot has no {missing} record: it may be incomplete",
                          severity=WARNING)
        if any(p.is_failure and p.kind != "metadata-snapshot" for p in self.problems[before:]):
            later = [s for s in self._candidates() if s.end_offset < snap.end_offset]
            if later:
                self._problem(snap.path, None, "metadata-snapshot",
                              "snapshot is damaged: replaying from an earlier one instead",
                              severity=WARNING)
                return False
        self.offset = snap.end_offset - 1
        self.timestamp = self.snapshot_timestamp
        return True

    def _replay_log(self, start: int) -> Iterator[None]:
        segs = self.sources.segments
        expected = start
        t = self.target
        for i, seg in enumerate(segs):
            nxt = segs[i + 1].base_offset if i + 1 < len(segs) else None
            if nxt is not None and nxt <= start:
                self.segments_skipped.append((seg.path, f"below the snapshot's end offset {start}"))
                self._note_overlap(seg.base_offset, nxt - 1, start)
                if self.log_start is None:
                    self.log_start = seg.base_offset
                continue
            if t.offset is not None and seg.base_offset > t.offset:
                self.segments_skipped.append((seg.path, f"after the target offset {t.offset}"))
                continue
            if self._stop:
                self.segments_skipped.append((seg.path, "after the target"))
                continue
            self.segments_used.append(seg.path)
            expected = yield from self._replay_segment(seg, expected, start,
                                                       active=nxt is None)

    def _note_overlap(self, first: int, last: int, start: int) -> None:
        hi = min(last, start - 1)
        if hi < first:
            return
        if self.overlap is None:
            self.overlap = (first, hi)
        else:
            self.overlap = (min(self.overlap[0], first), max(self.overlap[1], hi))

    def _replay_segment(self, seg: Segment, expected: int, start: int, *, active: bool
                        ) -> Generator[None, None, int]:
        t = self.target
        try:
            with _open(seg.path) as src:
                for item in LogReader(src, active=active, max_batch_bytes=self.max_batch_bytes):
                    if isinstance(item, Problem):
                        self._add(item)
                        continue
                    if not isinstance(item, RecordBatch):
                        self._problem(seg.path, item.position, "metadata-record",
                                      f"a magic {item.magic} entry in the metadata log: skipped")
                        continue
                    if self.log_start is None:
                        self.log_start = item.base_offset
                    if item.last_offset < expected:
                        self._note_overlap(item.base_offset, item.last_offset, start)
                        continue
                    if item.base_offset < start:
                        self._note_overlap(item.base_offset, start - 1, start)
                    if item.base_offset > expected:
                        if t.offset is not None and t.offset < item.base_offset:
                            self._stop = True
                            self.reached_target = True
                        self.gaps.append((expected, item.base_offset - 1))
                        self._problem(seg.path, item.position, "metadata-gap",
                                      f"offsets {expected} to {item.base_offset - 1} are missing "
                                      "(not in any snapshot or segment): the image lacks their "
                                      "records", base_offset=item.base_offset)
                        if self._stop:
                            return expected
                    if t.time is not None and item.base_timestamp > t.time \
                            and item.max_timestamp > t.time:
                        self._stop = True
                        self.reached_target = True
                        return expected
                    if not item.crc_valid:
                        self._problem(seg.path, item.position, "crc-mismatch",
                                      "metadata batch fails its CRC-32C: its records are not "
                                      "applied", base_offset=item.base_offset)
                        expected = item.last_offset + 1
                        self.log_end = item.last_offset
                        continue
                    self._batch(seg.path, item, expected)
                    self.log_end = item.last_offset if not self._stop else self.log_end
                    yield
                    if self._stop:
                        return expected
                    expected = item.last_offset + 1
        except KdumpError as e:
            self._problem(e.path or seg.path, e.position, "metadata-record", e.message,
                          base_offset=e.base_offset)
        return expected

    def _batch(self, path: str, batch: RecordBatch, expected: int) -> None:
        t = self.target
        max_off = t.offset if t.offset is not None else 1 << 63
        max_ts = t.time if t.time is not None else 1 << 63
        control = batch.is_control
        try:
            for rec in batch.records(self.max_batch_bytes):
                off = rec.offset
                if off < expected:
                    continue
                if off > max_off or rec.timestamp > max_ts:
                    self._stop = True
                    self.reached_target = True
                    return
                self.log_end = off
                if control:
                    self._control(path, batch, parse_control(rec))
                else:
                    self._apply_one(path, batch, off, rec.value, rec.timestamp)
                self.offset = off
                self.timestamp = rec.timestamp
        except KdumpError as e:
            self._problem(e.path or path, e.position, "metadata-record", e.message,
                          base_offset=batch.base_offset)

    def _control(self, path: str, batch: RecordBatch, ctl: Any) -> None:
        if ctl.error:
            self._problem(path, batch.position, "invalid-control", ctl.error,
                          base_offset=batch.base_offset)
            return
        if self.on_control is not None:
            self.on_control(path, batch, ctl)
        data = ctl.data or {}
        img = self.image
        if ctl.type_name == "LEADER_CHANGE":
            img.leader_id = int(data.get("leaderId", -1))
            img.leader_epoch = batch.partition_leader_epoch
            voters = [int(v["voterId"]) for v in data.get("voters", [])]
            if voters and img.kraft_version in (None, 0):
                img.voters = sorted(voters)
        elif ctl.type_name == "KRAFT_VERSION":
            img.kraft_version = int(data.get("kRaftVersion", 0))
        elif ctl.type_name == "KRAFT_VOTERS":
            img.voters = sorted(int(v["voterId"]) for v in data.get("voters", []))
        self.records_by_type[ctl.type_name] += 1

    # ------------------------------------------------------------------ records
    def _apply_one(self, path: str, batch: RecordBatch, offset: int, value: bytes | None,
                   timestamp: int | None) -> None:
        in_snapshot = timestamp is None
        try:
            rec = decode_record(value)
        except RecordError as e:
            self.records_failed += 1
            self._problem(path, batch.position, "metadata-record",
                          f"record at offset {offset} not applied: {e}",
                          base_offset=batch.base_offset)
            return
        if rec.unknown_version:
            self._problem(path, batch.position, "metadata-record",
                          f"{rec.name} version {rec.version} at offset {offset} is newer than "
                          "kdump knows: applied as read with the newest known layout",
                          base_offset=batch.base_offset, severity=WARNING)
        name = rec.name
        self.records_by_type[name] += 1
        ts = timestamp if timestamp is not None else self.snapshot_timestamp
        if name in TRANSACTION_TYPES and not in_snapshot:
            self._transaction(path, batch, offset, ts, name, rec.message)
            return
        if self._txn is not None:
            self._txn.append(_Pending(offset, ts if ts is not None else -1, name, rec.message))
            return
        self._apply(path, batch, None if in_snapshot else offset, ts, name, rec.message, None)

    def _apply(self, path: str, batch: RecordBatch | None, offset: int | None, ts: int | None,
               name: str, message: dict[str, Any], committed_at: int | None) -> None:
        if name in NO_EFFECT or name not in APPLIED_TYPES:
            self.no_effect[name] += 1
            self.records_applied += 1
            return
        try:
            changes = self.image.apply(name, message)
        except ApplyError as e:
            self.records_failed += 1
            where = "in the snapshot" if offset is None else f"at offset {offset}"
            self._problem(path, None if batch is None else batch.position, "metadata-apply",
                          f"{name} {where} cannot be applied: {e}",
                          base_offset=None if batch is None else batch.base_offset)
            return
        self.records_applied += 1
        if changes:
            self.moments.observe(changes, offset, ts)
            if self.on_changes is not None:
                self.on_changes(offset, ts, name, changes, committed_at, path,
                                None if batch is None else batch.position)
            elif self.on_event is not None:
                pos = None if batch is None else batch.position
                self.on_event(Event(offset, ts, name, changes, committed_at, path, pos))

    def _transaction(self, path: str, batch: RecordBatch, offset: int, ts: int | None,
                     name: str, message: dict[str, Any]) -> None:
        pos, base = batch.position, batch.base_offset
        if name == "BEGIN_TRANSACTION_RECORD":
            if self._txn is not None:
                self._problem(path, pos, "metadata-apply",
                              f"BeginTransactionRecord at offset {offset} while the transaction "
                              f"begun at offset {self._txn_begin[0] if self._txn_begin else '?'} "
                              "is still open (Kafka fails the same way)", base_offset=base)
                return
            self._txn = []
            self._txn_begin = (offset, message.get("name"))
            return
        if self._txn is None:
            self._problem(path, pos, "metadata-apply",
                          f"{'End' if name == 'END_TRANSACTION_RECORD' else 'Abort'}"
                          f"TransactionRecord at offset {offset} without a "
                          "BeginTransactionRecord", base_offset=base)
            return
        pending, self._txn, self._txn_begin = self._txn, None, None
        if name == "END_TRANSACTION_RECORD":
            self.transactions_committed += 1
            for p in pending:
                self._apply(path, batch, p.offset, p.timestamp, p.name, p.message, offset)
        else:
            self.transactions_aborted += 1
            self.records_aborted += len(pending)

    def _finish(self) -> None:
        for (kind, severity), n in sorted(self._dropped.items()):
            self.problems.append(Problem(self.sources.path, None, kind,
                                         f"{n} more {kind} problems, not listed one by one",
                                         severity=severity))
        t = self.target
        if t.offset is not None and not self.reached_target and self.offset is not None \
                and self.offset < t.offset:
            self._problem(self.sources.path, None, "metadata-target",
                          f"offset {t.offset} is past the last offset read ({self.offset}): "
                          "the image is the latest", severity=INFO)
        segs = self.sources.segments
        first = self.log_start if self.log_start is not None else (
            segs[0].base_offset if segs else None)
        if self.snapshot is None and first not in (None, 0) and \
                not (self.gaps and self.gaps[0][0] == 0):
            assert first is not None
            self.gaps.insert(0, (0, first - 1))
            self._problem(segs[0].path, None, "metadata-gap",
                          f"the log starts at offset {first} and no snapshot at or before the "
                          f"target covers offsets 0 to {first - 1}: the image lacks their records")
        if self.offset is None and not self.gaps:
            what = f"offset {t.offset}" if t.offset is not None else f"time {t.time}"
            self._problem(self.sources.path, None, "metadata-target",
                          f"no record at or before {what}", severity=WARNING)

    # ------------------------------------------------------------------ result
    @property
    def pending_transaction(self) -> dict[str, Any] | None:
        if self._txn is None or self._txn_begin is None:
            return None
        return {"begin_offset": self._txn_begin[0], "name": self._txn_begin[1],
                "records": len(self._txn)}

    def health(self) -> Health:
        """The cluster's health in the image (stopped, running: kdump.metadata.health)."""
        snap = self.snapshot
        return cluster_health(self.image, self.moments,
                              snapshot_offset=None if snap is None else snap.end_offset - 1,
                              snapshot_timestamp=self.snapshot_timestamp)

    @property
    def complete(self) -> bool:
        return not self.gaps and not self.records_failed


def _open(path: str) -> FileSource:
    return FileSource(path)


def _listdir(path: str) -> list[str]:
    """A directory's names: local (with O_NOATIME) or a URL's (one listing)."""
    return kfs.Listing().listdir(path) if kfs.is_url(path) else kfs.listdir(path)
