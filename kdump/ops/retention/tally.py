"""The bytes of ``kdump retention``'s verdicts: each segment's files, apparent and
allocated (:func:`files_bytes`), added up per partition, topic and log dir
(:class:`Tally`), and what a rolled active segment preallocates
(:func:`rolled_index_bytes`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ... import fs as kfs
from ..topics.config import HOUR_MS
from .rules import Verdict
from .segment_ages import Segment

DAY_MS = 24 * HOUR_MS


@dataclass(slots=True)
class Tally:
    """Bytes of a partition, a topic or a log dir: deletable now, soon, and held; each in
    apparent bytes (st_size, as ls shows them) and in allocated ones (``disk_*``: st_blocks
    x 512, as du counts them, what deleting gives the disk back; None: no block counts)."""

    partitions: int = 0
    segments: int = 0
    bytes: int = 0
    now: int = 0
    day: int = 0
    week: int = 0
    held: dict[str, int] = field(default_factory=dict)
    pending_delete: int = 0
    #: allocated bytes, as above (None once a file without block counts is met)
    disk: int | None = 0
    disk_now: int | None = 0
    disk_day: int | None = 0
    disk_week: int | None = 0
    held_disk: dict[str, int] = field(default_factory=dict)
    blocks_known: bool = True
    #: apparent bytes of the new active segment's preallocated indexes that deleting the
    #: active segment rolls (beside the deletable bytes: no disk block)
    rolled: int = 0

    def add(self, o: Tally) -> None:
        self.partitions += o.partitions
        self.segments += o.segments
        self.bytes += o.bytes
        self.now += o.now
        self.day += o.day
        self.week += o.week
        self.pending_delete += o.pending_delete
        self.rolled += o.rolled
        for k, v in o.held.items():
            self.held[k] = self.held.get(k, 0) + v
        self.blocks_known = self.blocks_known and o.blocks_known
        self.disk = _plus(self.disk, o.disk)
        self.disk_now = _plus(self.disk_now, o.disk_now)
        self.disk_day = _plus(self.disk_day, o.disk_day)
        self.disk_week = _plus(self.disk_week, o.disk_week)
        for k, v in o.held_disk.items():
            self.held_disk[k] = self.held_disk.get(k, 0) + v

    def fields(self) -> dict[str, Any]:
        known = self.blocks_known
        return {"segments": self.segments, "bytes": self.bytes,
                "disk_bytes": self.disk if known else None,
                "deletable_disk_bytes": self.disk_now if known else None,
                "deletable_bytes": self.now,
                "deletable_24h_disk_bytes": self.disk_day if known else None,
                "deletable_24h_bytes": self.day,
                "deletable_7d_disk_bytes": self.disk_week if known else None,
                "deletable_7d_bytes": self.week,
                "held_disk": (dict(sorted(self.held_disk.items(), key=lambda kv: (-kv[1], kv[0])))
                              if known else None),
                "held": dict(sorted(self.held.items(), key=lambda kv: (-kv[1], kv[0]))),
                "rolled_bytes": self.rolled,
                "pending_delete_bytes": self.pending_delete}


def _plus(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def files_bytes(seg: Segment, counted: set[str]) -> tuple[int, int | None]:
    """The segment's .log and index files: (apparent bytes, allocated bytes: None in an
    object store); their paths added to ``counted``."""
    stem = seg.path[: -len(".log")]
    total = seg.size
    disk: int | None = 0
    try:
        disk = kfs.getsizes(seg.path)[1]
    except OSError:
        pass
    counted.add(seg.path)
    for suffix in (".index", ".timeindex", ".txnindex"):
        try:
            size, allocated = kfs.getsizes(stem + suffix)
        except OSError:
            continue
        total += size
        disk = None if disk is None or allocated is None else disk + allocated
        counted.add(stem + suffix)
    return total, disk


def rolled_index_bytes(segment_index_bytes: int) -> int:
    """Apparent bytes of a new segment's ``.index`` and ``.timeindex``: each is created at
    segment.index.bytes rounded down to whole entries (AbstractIndex's constructor:
    ``raf.setLength(roundDownToExactMultiple(maxIndexSize, entrySize))``, 8-byte offset
    entries, 12-byte time entries; Kafka 3.9 and 4.0-4.3 alike).  setLength extends the
    file without writing it: sparse on Linux's filesystems, no block allocated until an
    entry is written, so the disk gives none of it back and takes none of it."""
    return sum(segment_index_bytes // entry * entry for entry in (8, 12))


def count(tally: Tally, b: int, disk: int | None, v: Verdict, now: int) -> None:
    """One segment's bytes into its partition's tally: deletable now, within a day, a
    week, or held by its reason; apparent and allocated alike."""
    tally.segments += 1
    tally.bytes += b
    if disk is None:
        tally.blocks_known = False
        disk = 0
    tally.disk = _plus(tally.disk, disk)
    if v.deletable:
        windows = (True, True, True)
    else:
        tally.held[v.reason] = tally.held.get(v.reason, 0) + b
        tally.held_disk[v.reason] = tally.held_disk.get(v.reason, 0) + disk
        at = v.deletable_at
        windows = (False, at is not None and at <= now + DAY_MS,
                   at is not None and at <= now + 7 * DAY_MS)
    if windows[0]:
        tally.now += b
        tally.disk_now = _plus(tally.disk_now, disk)
    if windows[1]:
        tally.day += b
        tally.disk_day = _plus(tally.disk_day, disk)
    if windows[2]:
        tally.week += b
        tally.disk_week = _plus(tally.disk_week, disk)


__all__ = ["DAY_MS", "Tally", "count", "files_bytes", "rolled_index_bytes"]
