"""Where a log dir's bytes are besides the segments retention judges: partition
directories renamed aside (``-delete``, ``-future``, ``-stray``), files a partition
renamed and has not removed yet (``.deleted``, ``.cleaned``, ``.swap``, ``.tmp``), and the
rest (checkpoints, producer snapshots, KRaft snapshots ...), so that a log dir's bytes
add up.

What Kafka does with each, from its source (3.9 to 4.3; ``core/.../log/LogManager.scala``,
``storage/.../log/LogLoader.java``, ``storage/.../log/LocalLog.java``):

* ``<topic>-<p>.<uuid>-delete``: LogManager.asyncDelete renames a deleted topic's (or a
  replica moved away's) directory and queues it (addLogToBeDeleted, with the time of the
  rename); LogManager.deleteLogs (the ``kafka-delete-logs`` task) deletes it
  ``file.delete.delay.ms`` of the broker's *default* config (currentDefaultConfig, the
  broker's log.segment.delete.delay.ms) later.  A broker that stops first finds it at its
  next start: LogManager.loadLog queues it again (and LogLoader.load skips its recovery),
  so it goes ``file.delete.delay.ms`` after that start.
* ``<topic>-<p>.<uuid>-future``: an AlterReplicaLogDirs move in progress
  (ReplicaAlterLogDirsThread copies the replica into this log dir): the partition's bytes
  are on disk twice until the copy catches up; then LogManager.replaceCurrentWithFutureLog
  renames it to the partition's name and the source replica to ``-delete``.  Until then
  LogManager.cleanupLogs runs deleteOldSegments on it too, after the current replica.
* ``<topic>-<p>.<uuid>-stray``: a KRaft replica the metadata no longer assigns to this
  broker (LogManager.loadLog with isStray, LogManager.asyncDelete(isStray = true); 3.7+).
  It is renamed aside and kept: LogManager only remembers it (addStrayLog), no release up to
  4.3 deletes it.  An operator removes it once sure it is not needed.
* ``.deleted`` files: a segment retention or the cleaner removed (LocalLog.deleteSegmentFiles
  renames, then deletes ``file.delete.delay.ms`` of the topic later); LogLoader.load deletes
  any left at the next start (removeTempFilesAndCollectSwapFiles).
* ``.cleaned``: the cleaner's output being written (LocalLog.createNewCleanedSegment);
  LogLoader.load deletes them at the next start.  ``.swap``: cleaned (or split) output
  about to replace its segments (LocalLog.replaceSegments); at the next start LogLoader.load
  renames a valid one into place, deleting the segments it replaces, and deletes one at or
  above the lowest ``.cleaned`` offset (an unfinished split).
* ``.tmp``: a checkpoint or ``partition.metadata`` written beside its file before the
  atomic rename (CheckpointFile.write, PartitionMetadataFile); nothing deletes a left one,
  the next write of that file overwrites it.  ``.part`` and a KRaft snapshot's
  ``.checkpoint.deleted``: KafkaMetadataLog.recoverSnapshots deletes them at start.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ... import fs as kfs
from ... import layouts as L
from ...files.logdir import LEFTOVERS, parse_partition_dir
from ...files.tiered import parse_remote_partition_dir
from ...fs import Listing
from ...model import shape
from ..compare_replicas.logdirs import LogDir, ReplicaSet
from ..topics.config import Resolver

#: a renamed-aside directory's state -> what holds its bytes (the ``held_by`` of a
#: retention_held_dir row)
HELD_BY = {"delete": "awaiting-deletion", "future": "future-replica", "stray": "stray-replica"}

#: what the broker does with each, in words (see the module docstring for the source)
HELD_MEANING = {
    "awaiting-deletion": "renamed by LogManager.asyncDelete (a deleted topic, or a replica "
                         "moved or reassigned away): the broker's kafka-delete-logs task "
                         "deletes it file.delete.delay.ms after the rename, or after its next "
                         "start (LogManager.loadLog queues it again)",
    "future-replica": "an AlterReplicaLogDirs move in progress: the partition's bytes are on "
                      "disk twice until the copy catches up; then "
                      "LogManager.replaceCurrentWithFutureLog makes it the replica and renames "
                      "the source to -delete (meanwhile LogManager.cleanupLogs runs retention "
                      "on it after the current replica's, deleteOldSegments with the topic's "
                      "configs)",
    "stray-replica": "a replica the KRaft metadata no longer assigns to this broker, renamed "
                     "aside and kept (LogManager.loadLog / asyncDelete with isStray, 3.7+): "
                     "no Kafka release up to 4.3 deletes it; remove it by hand once sure it "
                     "is not needed",
}

#: a leftover file's kind -> what becomes of it
LEFTOVER_FATE = {
    "deleted": "a segment's files renamed for deletion (LocalLog.deleteSegmentFiles): gone "
               "file.delete.delay.ms after the rename, or at the next start (LogLoader; a "
               "KRaft snapshot's: KafkaMetadataLog.recoverSnapshots)",
    "cleaned": "the log cleaner's output being written: deleted at the next start (LogLoader)",
    "swap": "cleaned output about to replace its segments: renamed into place at the next "
            "start (LogLoader), the segments it replaces deleted",
    "tmp": "a checkpoint written before its atomic rename: overwritten by the next write of "
           "that file, never deleted by Kafka",
    "part": "a KRaft snapshot being written: deleted at the next start "
            "(KafkaMetadataLog.recoverSnapshots)",
}

#: the remainder of a log dir's bytes, by what the files are
OTHER_KINDS = {
    "log-dir-files": "the log dir's own files: offset checkpoints, meta.properties, .lock",
    "producer-snapshots": "producer state snapshots (.snapshot)",
    "partition-checkpoints": "leader-epoch-checkpoint, partition.metadata, quorum-state",
    "kraft-snapshots": "KRaft metadata snapshots (.checkpoint)",
    "indexes-without-segment": "index files whose .log is not there",
    "remote-storage-copies": "tiered storage's copies of remote segments in the log dir",
    "other": "files Kafka does not name",
    "directories": "the directories' own blocks (du counts them; ls shows no size)",
}

_INDEX_SUFFIXES = (L.INDEX_SUFFIX, L.TIME_INDEX_SUFFIX, L.TXN_INDEX_SUFFIX)


def leftover_kind(name: str) -> str | None:
    """The leftover suffix a file name ends with (``.deleted`` ...), as its kind."""
    return next((what for suffix, what in LEFTOVERS.items()
                 if name.endswith(suffix) and name != suffix), None)


def _join(directory: str, name: str) -> str:
    return directory.rstrip("/") + "/" + name if kfs.is_url(directory) \
        else os.path.join(directory, name)


def _files(directory: str, listing: Listing, dirs: list[str] | None = None
           ) -> Iterator[tuple[str, list[str]]]:
    """Every file under ``directory`` (symlinks not followed): its path and its names
    below ``directory``; ``dirs``, when given, gets every directory met (``directory``
    itself included)."""
    stack: list[tuple[str, list[str]]] = [(directory, [])]
    while stack:
        d, parts = stack.pop()
        try:
            entries = listing.entries(d)
        except OSError:
            continue
        if dirs is not None:
            dirs.append(d)
        for name, is_dir in entries:
            full = _join(d, name)
            if is_dir:
                stack.append((full, [*parts, name]))
            elif kfs.is_url(full) or not os.path.islink(full):
                yield full, [*parts, name]


def _sizes(path: str, listing: Listing) -> tuple[int, int | None]:
    """(apparent bytes, allocated bytes: None in an object store); (0, 0) when gone."""
    try:
        if kfs.is_url(path):
            return int(listing.stat(path).st_size), None
        st = os.lstat(path)
        return st.st_size, kfs.disk_bytes_of(st)
    except OSError:
        return 0, 0


@dataclass(slots=True)
class HeldDir:
    """A partition directory renamed aside, as found on disk."""

    path: str
    topic: str
    partition: int
    state: str
    files: int = 0
    bytes: int = 0
    #: allocated bytes (None: no block counts)
    disk_bytes: int | None = 0
    segments: int = 0
    #: the newest mtime of its files (epoch ms; None: none known)
    last_modified: int | None = None


def read_held_dir(path: str, listing: Listing) -> HeldDir | None:
    """A ``-delete``/``-future``/``-stray`` directory's files, bytes and newest mtime
    (None when the name is not one)."""
    pd = parse_partition_dir(os.path.basename(path.rstrip("/")))
    if pd is None or pd.state is None:
        return None
    h = HeldDir(path, pd.topic, pd.partition, pd.state)
    for full, parts in _files(path, listing):
        h.files += 1
        size, allocated = _sizes(full, listing)
        h.bytes += size
        h.disk_bytes = None if h.disk_bytes is None or allocated is None \
            else h.disk_bytes + allocated
        if parts[-1].endswith(L.LOG_SUFFIX) and parts[-1][: -len(L.LOG_SUFFIX)].isdigit():
            h.segments += 1
        # an object store's times are the upload's, not the broker's: none (and no request)
        m = None if kfs.is_url(full) else kfs.mtime_ms(full)
        if m is not None and (h.last_modified is None or m > h.last_modified):
            h.last_modified = m
    return h


@dataclass(slots=True)
class Parts:
    """Bytes of a log dir by where they are (they add up)."""

    segments: int = 0
    leftovers: dict[str, int] = field(default_factory=dict)
    held_dirs: dict[str, int] = field(default_factory=dict)
    other: dict[str, int] = field(default_factory=dict)

    def add(self, where: dict[str, int], key: str, n: int) -> None:
        where[key] = where.get(key, 0) + n


@dataclass(slots=True)
class DiskAccount:
    """A log dir's bytes by where they are: apparent ones (``apparent``, adding up to
    ``bytes``) and allocated ones (``allocated``, adding up to ``disk``, directories'
    own blocks included: what du says; None in an object store, which keeps no block
    counts)."""

    #: allocated bytes (st_blocks x 512, as du counts them); None: no block counts
    disk: int | None = 0
    #: apparent bytes (st_size, as ls shows them)
    bytes: int = 0
    files: int = 0
    apparent: Parts = field(default_factory=Parts)
    allocated: Parts = field(default_factory=Parts)


def account(log_dir: str, segment_files: set[str], listing: Listing) -> DiskAccount:
    """Every file under ``log_dir`` put in one place: a judged segment's file (its path in
    ``segment_files``), a leftover, a renamed-aside directory, or the remainder by kind."""
    acc = DiskAccount()
    segment_files = {_norm(p) for p in segment_files}
    dirs: list[str] = []
    for full, parts in _files(log_dir, listing, dirs):
        size, allocated = _sizes(full, listing)
        acc.bytes += size
        acc.disk = None if acc.disk is None or allocated is None else acc.disk + allocated
        acc.files += 1
        for where, n in ((acc.apparent, size), (acc.allocated, allocated or 0)):
            _place(where, full, parts, segment_files, n)
    if acc.disk is not None:
        # du counts each directory's own blocks too (4 KiB a directory on ext4)
        blocks = sum(_sizes(d, listing)[1] or 0 for d in dirs)
        if blocks:
            acc.disk += blocks
            acc.allocated.add(acc.allocated.other, "directories", blocks)
    return acc


def _place(where: Parts, full: str, parts: list[str], segment_files: set[str], n: int
           ) -> None:
    name = parts[-1]
    if _norm(full) in segment_files:
        where.segments += n
        return
    pd = parse_partition_dir(parts[0]) if len(parts) > 1 else None
    if pd is not None and pd.state is not None:
        where.add(where.held_dirs, pd.state, n)
        return
    kind = leftover_kind(name)
    if kind is not None:
        where.add(where.leftovers, kind, n)
        return
    where.add(where.other, _other_kind(parts, pd is not None), n)


def _norm(path: str) -> str:
    return path if kfs.is_url(path) else os.path.normpath(path)


def _other_kind(parts: list[str], in_partition: bool) -> str:
    name = parts[-1]
    if len(parts) == 1:
        return "log-dir-files" if name in _LOG_DIR_FILES else "other"
    if parse_remote_partition_dir(parts[0]) is not None:
        return "remote-storage-copies"
    if not in_partition or len(parts) > 2:
        return "other"
    stem, _, suffix = name.partition(".")
    if name in ("leader-epoch-checkpoint", "partition.metadata", "quorum-state"):
        return "partition-checkpoints"
    if suffix == "snapshot" and stem.isdigit():
        return "producer-snapshots"
    if name.endswith(".checkpoint"):
        return "kraft-snapshots"
    if stem.isdigit() and "." + suffix in _INDEX_SUFFIXES:
        return "indexes-without-segment"
    return "other"


_LOG_DIR_FILES = {"recovery-point-offset-checkpoint", "replication-offset-checkpoint",
                  "log-start-offset-checkpoint", "cleaner-offset-checkpoint", "meta.properties",
                  ".lock", ".kafka_cleanshutdown", "bootstrap.checkpoint"}


def held_dir_rows(ld: LogDir, dirs: list[HeldDir], rs: ReplicaSet, resolver: Resolver,
               now: int) -> Iterator[Any]:
    """A ``retention_held_dir`` row per renamed-aside partition directory of the log
    dir."""
    for h in dirs:
        held_by = HELD_BY[h.state]
        delay: int | None = None
        earliest: int | None = None
        current: str | None = None
        detail = HELD_MEANING[held_by]
        if h.state == "delete":
            # LogManager.deleteLogs uses the broker's default config (currentDefaultConfig),
            # not the topic's: Resolver.broker_default
            st = resolver.broker_default("file.delete.delay.ms", ld.broker_id)
            delay = int(st.value)
            if h.last_modified is not None:
                # renamed after its files were last written: deleted no earlier than this
                earliest = h.last_modified + delay
            detail += f"; file.delete.delay.ms={delay} [{st.source}]"
            if h.last_modified is None:
                detail += ("; no file time known (an object store keeps the upload's time, "
                           "not the broker's): no earliest deletion said")
            if earliest is not None and earliest <= now:
                detail += ("; its earliest deletion has passed: a broker running since then "
                           "would have deleted it (look for kafka-delete-logs errors in its "
                           "server.log), or the broker has not run since")
        if h.state in ("delete", "stray") and len(os.path.basename(h.path.rstrip("/"))) >= 255:
            detail += ("; the directory's name is 255 characters long: the topic name in it may "
                       "be cut short (LocalLog.logDirNameWithSuffixCappedLength)")
        if h.state == "future":
            mates = [r for r in rs.replicas.get((h.topic, h.partition), [])
                     if ld.broker_id is not None and r.broker_id == ld.broker_id
                     and r.log_dir != ld.path]
            if mates:
                current = mates[0].path
                detail += f"; the current replica: {current}"
        yield shape("retention_held_dir", {
            "log_dir": ld.path, "broker_id": ld.broker_id, "topic": h.topic,
            "partition": h.partition, "directory": h.path, "state": h.state,
            "held_by": held_by, "files": h.files, "bytes": h.bytes, "disk_bytes": h.disk_bytes,
            "segments": h.segments,
            "last_modified": h.last_modified, "file_delete_delay_ms": delay,
            "earliest_deletion": earliest, "current_replica": current, "detail": detail})


def disk_row(ld: LogDir, listing: Listing, counted: set[str]) -> dict[str, Any]:
    """The log dir's ``retention_disk`` row: its bytes, every file in one place (they
    add up, apparent and allocated apart); ``counted``: the judged segments' files."""
    acc = account(ld.path, counted, listing)
    ap, al = acc.apparent, acc.allocated
    known = acc.disk is not None
    other = dict(sorted(ap.other.items(), key=lambda kv: (-kv[1], kv[0])))
    other_disk = dict(sorted(al.other.items(), key=lambda kv: (-kv[1], kv[0])))
    return shape("retention_disk", {
        "log_dir": ld.path, "broker_id": ld.broker_id, "disk_bytes": acc.disk,
        "bytes": acc.bytes, "files": acc.files, "segment_bytes": ap.segments,
        "segment_disk_bytes": al.segments if known else None,
        "leftover_bytes": dict(sorted(ap.leftovers.items())),
        "leftover_disk_bytes": dict(sorted(al.leftovers.items())) if known else None,
        "held_dir_bytes": {HELD_BY[k]: v for k, v in sorted(ap.held_dirs.items())},
        "held_dir_disk_bytes": ({HELD_BY[k]: v for k, v in sorted(al.held_dirs.items())}
                                if known else None),
        "other_bytes": sum(other.values()), "other": other,
        "other_disk_bytes": sum(other_disk.values()) if known else None,
        "other_disk": other_disk if known else None,
        "notes": [f"{k} files: {LEFTOVER_FATE[k]}" for k in sorted(ap.leftovers)]
        + [f"{k}: {OTHER_KINDS[k]}" for k in other]
        + ([f"directories: {OTHER_KINDS['directories']}"] if "directories" in other_disk else [])
        + ([kfs.NO_BLOCK_COUNTS] if not known else [])})


def inside_inputs(log_dir: str, paths: Iterable[str]) -> bool:
    """The log dir is one of the inputs or lies under one (its bytes were asked for, not
    only some of its partitions')."""
    ld = kfs.abspath(log_dir).rstrip("/")
    for p in paths:
        a = kfs.abspath(p).rstrip("/")
        if ld == a or ld.startswith(a + "/"):
            return True
    return False


__all__ = ["HELD_BY", "HELD_MEANING", "LEFTOVER_FATE", "OTHER_KINDS", "DiskAccount", "HeldDir", "Parts",
           "account", "disk_row", "held_dir_rows", "inside_inputs", "leftover_kind",
           "read_held_dir"]
