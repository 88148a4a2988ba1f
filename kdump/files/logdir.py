"""Name every file and directory of a Kafka log dir for what it is, and walk paths in
Kafka's order: root files, then partitions sorted by topic and partition number, and
inside a partition the segments by base offset with each segment's files together.

storage/src/main/java/org/apache/kafka/storage/internals/log/LogFileUtils.java,
core/src/main/scala/kafka/log/LocalLog.scala (``-delete``/``-future``/``-stray`` dirs),
raft/src/main/java/org/apache/kafka/snapshot/Snapshots.java.

Size: one module because naming a file (``classify``), walking paths in Kafka's order and
telling what is not Kafka data read the same tables of names and suffixes.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .. import layouts as L
from .. import tempfiles
from ..findings import ERROR, INFO, Problem
from ..fs import Listing
from ..fs import abspath as _abspath
from .tiered import REMOTE_LEADER_EPOCH_SUFFIX, parse_remote_partition_dir, parse_remote_segment_stem

#: file kind -> what it is (docs/reads.md lists these)
FILE_KINDS = {
    "log": "log segment (record batches)",
    "offset-index": "offset index of a segment",
    "time-index": "time index of a segment",
    "txn-index": "aborted-transaction index of a segment",
    "producer-snapshot": "producer state snapshot",
    "kraft-snapshot": "KRaft metadata snapshot",
    "bootstrap-snapshot": "KRaft bootstrap snapshot (bootstrap.checkpoint)",
    "leader-epoch-checkpoint": "leader epoch checkpoint (epoch, start offset)",
    "recovery-point-offset-checkpoint": "recovery points of the log dir's partitions",
    "replication-offset-checkpoint": "high watermarks of the log dir's partitions",
    "log-start-offset-checkpoint": "log start offsets of the log dir's partitions",
    "cleaner-offset-checkpoint": "log cleaner's first dirty offsets",
    "partition-metadata": "partition.metadata (topic id)",
    "meta-properties": "meta.properties (cluster, broker/node and directory ids)",
    "quorum-state": "KRaft quorum state",
    "clean-shutdown": ".kafka_cleanshutdown marker: the last shutdown was clean",
    "lock": ".lock: the broker's lock file",
    "unknown": "not a file Kafka writes",
}

#: suffix (after the base offset) -> kind; order = order inside a segment's group
SEGMENT_SUFFIXES = {
    L.LOG_SUFFIX: "log",
    L.INDEX_SUFFIX: "offset-index",
    L.TIME_INDEX_SUFFIX: "time-index",
    L.TXN_INDEX_SUFFIX: "txn-index",
    L.PRODUCER_SNAPSHOT_SUFFIX: "producer-snapshot",
    L.KRAFT_SNAPSHOT_SUFFIX: "kraft-snapshot",
    REMOTE_LEADER_EPOCH_SUFFIX: "leader-epoch-checkpoint",  # tiered storage (files/tiered.py)
}
_SUFFIX_ORDER = {kind: i for i, kind in enumerate(SEGMENT_SUFFIXES.values())}

FIXED_NAMES = {
    "leader-epoch-checkpoint": "leader-epoch-checkpoint",
    "recovery-point-offset-checkpoint": "recovery-point-offset-checkpoint",
    "replication-offset-checkpoint": "replication-offset-checkpoint",
    "log-start-offset-checkpoint": "log-start-offset-checkpoint",
    "cleaner-offset-checkpoint": "cleaner-offset-checkpoint",
    "partition.metadata": "partition-metadata",
    "meta.properties": "meta-properties",
    "quorum-state": "quorum-state",
    ".kafka_cleanshutdown": "clean-shutdown",
    ".lock": "lock",
    L.BOOTSTRAP_CHECKPOINT: "bootstrap-snapshot",
}

#: leftover suffixes appended after a normal name
LEFTOVERS = {
    L.DELETED_SUFFIX: "deleted",
    L.CLEANED_SUFFIX: "cleaned",
    L.SWAP_SUFFIX: "swap",
    L.PART_SUFFIX: "part",
    ".tmp": "tmp",
}
LEFTOVER_MEANING = {
    "deleted": "scheduled for asynchronous deletion",
    "cleaned": "log cleaner output still being written",
    "swap": "finished cleaner/split output about to replace the segment",
    "part": "KRaft snapshot still being written",
    "tmp": "temporary copy written before an atomic rename",
}

#: what a log dir walk passes over (listed only when asked: ``dump --verbose``): files
#: and directories that hold no Kafka data.  ``.lock`` is Kafka's (LogManager.java
#: LOCK_FILE_NAME, empty); ``remote-log-index-cache`` is Kafka's too (RemoteIndexCache.java
#: DIR_NAME: a cache of indexes fetched from tiered storage, which LogManager.scala skips
#: when it loads the logs); the rest are the filesystem's, the OS's and editors'.
NOT_DATA_NAMES = {
    ".lock": "the broker's lock file (empty)",
    "remote-log-index-cache": "tiered storage's cache of remote indexes (Kafka writes it, "
                              "kdump does not read it)",
    "lost+found": "the filesystem's lost+found",
    ".DS_Store": "an OS file (macOS Finder)",
    ".Spotlight-V100": "an OS file (macOS)",
    ".fseventsd": "an OS file (macOS)",
    ".Trashes": "an OS file (macOS)",
    ".TemporaryItems": "an OS file (macOS)",
    "Thumbs.db": "an OS file (Windows)",
    "desktop.ini": "an OS file (Windows)",
    ".directory": "an OS file (KDE)",
}
_NOT_DATA_PATTERNS = (
    (re.compile(r"^\._"), "an OS file (macOS resource fork)"),
    (re.compile(r"^\..*\.sw[a-p]$"), "an editor's swap file"),
    (re.compile(r"~$"), "an editor's backup file"),
    (re.compile(r"^#.*#$"), "an editor's autosave file"),
    (re.compile(r"^\.#"), "an editor's lock file"),
    (re.compile(r"^\.nfs[0-9a-fA-F]+"), "an NFS client's file (deleted while open)"),
    (re.compile(r"^\.Trash(-\d+)?$"), "an OS file (trash)"),
)

_KAFKAS_OWN = frozenset({".lock", "remote-log-index-cache"})


def not_data(name: str) -> str | None:
    """Why a walk passes over the entry named ``name`` (it holds no Kafka data), or
    None when it may (a file Kafka writes and kdump reads, or something unknown, which
    is named as unknown)."""
    why = NOT_DATA_NAMES.get(name)
    if why is not None:
        return why
    for pattern, what in _NOT_DATA_PATTERNS:
        if pattern.search(name):
            return what
    return None


_PARTITION_DIR = re.compile(r"^(?P<topic>.+)-(?P<partition>\d+)$")
_SPECIAL_DIR = re.compile(
    r"^(?P<topic>.+)-(?P<partition>\d+)\.(?P<uid>[0-9a-fA-F]{32})-(?P<state>delete|future|stray)$"
)
_KRAFT_SNAPSHOT = re.compile(r"^(?P<offset>\d{20})-(?P<epoch>\d{10})$")


@dataclass(frozen=True, slots=True)
class PartitionDir:
    topic: str
    partition: int
    state: str | None  # None, "delete", "future", "stray"
    topic_id: str | None = None  # tiered storage: <topic>-<partition>-<topicId>


def parse_partition_dir(name: str) -> PartitionDir | None:
    m = _SPECIAL_DIR.match(name)
    if m:
        return PartitionDir(m["topic"], int(m["partition"]), m["state"])
    remote = parse_remote_partition_dir(name)
    if remote is not None:
        return PartitionDir(remote[0], remote[1], None, remote[2])
    m = _PARTITION_DIR.match(name)
    if m:
        return PartitionDir(m["topic"], int(m["partition"]), None)
    return None


def broker_label(logdir: str) -> str:
    """``broker-<id>`` from the log dir's meta.properties (``node.id`` or ``broker.id``),
    else the log dir's own name made a safe path component: how kdump's writers name a
    log dir's part of their output, so two brokers' replicas are never merged."""
    from ..errors import KdumpError
    from ..output import safe_name
    from ..source import FileSource

    try:
        # read as every input is (kdump.source: O_NONBLOCK, regular files only): a FIFO
        # in its place must not hang the writer (fuzz case k4:569)
        with FileSource(os.path.join(logdir, "meta.properties")) as src:
            text = src.pread(0, min(src.size, 64 << 10)).decode("latin-1")
    except (KdumpError, OSError):
        text = ""
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() in ("node.id", "broker.id") and value.strip().isdigit():
            return f"broker-{int(value.strip())}"
    return safe_name(os.path.basename(logdir.rstrip(os.sep)) or "logdir")


@dataclass(frozen=True, slots=True)
class KafkaFile:
    """A file, named for what it is."""

    path: str
    kind: str
    base_offset: int | None = None  # from the name: segment base / snapshot offset
    epoch: int | None = None  # KRaft snapshot epoch
    topic: str | None = None
    partition: int | None = None
    partition_state: str | None = None  # "delete" / "future" / "stray" directories
    leftover: str | None = None  # "deleted" / "cleaned" / "swap" / "part" / "tmp"
    active: bool = False  # the partition's active segment (largest base offset)
    #: tiered storage (files/tiered.py): the remote log segment id and the topic id
    segment_id: str | None = None
    topic_id: str | None = None

    @property
    def description(self) -> str:
        d = FILE_KINDS.get(self.kind, self.kind)
        if self.segment_id:
            d += f", tiered (remote log segment id {self.segment_id})"
        if self.leftover:
            d += f", {LEFTOVER_MEANING[self.leftover]} (.{self.leftover})"
        if self.partition_state:
            d += f", in a -{self.partition_state} partition directory"
        return d


def classify(path: str, partition: PartitionDir | None = None, *, in_partition: bool = True,
             listing: Listing | None = None) -> KafkaFile:
    """What the file at ``path`` is, from its name (contents are not read).  Without
    ``partition`` the parent directory's name says which partition it belongs to, unless
    ``in_partition`` is false (a log dir's root file, whatever the log dir's name)."""
    name = os.path.basename(path)
    if partition is None and in_partition:
        parent = os.path.dirname(_abspath(path))
        if not looks_like_logdir(parent, listing):
            partition = parse_partition_dir(os.path.basename(parent))
    topic = partition.topic if partition else None
    part = partition.partition if partition else None
    state = partition.state if partition else None
    leftover = None
    base = name
    for suffix, what in LEFTOVERS.items():
        if base.endswith(suffix) and base != suffix:
            leftover = what
            base = base[: -len(suffix)]
            break
    if leftover == "part":  # <offset>-<epoch>-<random>.checkpoint.part
        m = re.match(r"^(\d{20})-(\d{10})-.*(\.checkpoint)$", base)
        if m:
            base = f"{m.group(1)}-{m.group(2)}{m.group(3)}"
    if base in FIXED_NAMES:
        return KafkaFile(path, FIXED_NAMES[base], topic=topic, partition=part,
                         partition_state=state, leftover=leftover)
    stem, dot, suffix = base.partition(".")
    kind = SEGMENT_SUFFIXES.get(dot + suffix)
    if kind is not None:
        # named by suffix, as DumpLogSegments dispatches; a stem that is not an offset
        # (a renamed copy) leaves the base offset unknown
        if kind == "kraft-snapshot":
            m = _KRAFT_SNAPSHOT.match(stem)
            if m:
                return KafkaFile(path, kind, int(m["offset"]), int(m["epoch"]), topic, part,
                                 state, leftover)
        elif stem.isdigit():
            return KafkaFile(path, kind, int(stem), None, topic, part, state, leftover)
        elif (remote := parse_remote_segment_stem(stem)) is not None:
            return KafkaFile(path, kind, remote[0], None, topic, part, state, leftover,
                             segment_id=remote[1], topic_id=partition.topic_id if partition else None)
        return KafkaFile(path, kind, None, None, topic, part, state, leftover)
    return KafkaFile(path, "unknown", topic=topic, partition=part, partition_state=state,
                     leftover=leftover)


def _sort_key(f: KafkaFile) -> tuple[int, int, int, str]:
    if f.base_offset is not None:
        return (0, f.base_offset, _SUFFIX_ORDER.get(f.kind, 99), f.path)
    return (1, 0, 0, f.path)


class Walker:
    """Expands paths into :class:`KafkaFile` items (and :class:`Problem` items for what
    cannot be read), in Kafka's order.  A directory is a partition directory when its
    name says so; otherwise a log dir (its partitions inside), or a folder of log dirs.
    ``listing`` answers the filesystem questions (local paths and URLs alike).  What a
    directory holds that is no Kafka data (:func:`not_data`: the broker's ``.lock``,
    ``lost+found``, editor and OS droppings) is passed over, and named as skipped only
    when ``verbose``; a path given by name is always read."""

    def __init__(self, listing: Listing | None = None, *, verbose: bool = False) -> None:
        self._seen_dirs: set[tuple[int, int]] = set()
        #: name what the walk passes over (:func:`not_data`) as info problems
        self.verbose = verbose
        self._kafka = False  # anything Kafka-like met under the current path
        self.fs = listing if listing is not None else Listing()
        #: the real paths of the local trees given: a symlinked directory inside them is
        #: followed only when it stays inside one of them
        self._roots: list[str] = []

    def _escapes(self, full: str) -> str | None:
        """Where a symlinked directory at ``full`` leads when that is outside every tree
        given (a link to / must not make kdump walk the host); None otherwise."""
        if "://" in full or not os.path.islink(full):
            return None
        target = os.path.realpath(full)
        for root in self._roots:
            if target == root or target.startswith(root.rstrip(os.sep) + os.sep):
                return None
        return target

    def walk(self, paths: Iterable[str]) -> Iterator[KafkaFile | Problem]:
        for p in paths:
            self._kafka = False
            if "://" not in p:
                self._roots.append(os.path.realpath(p))
                tempfiles.protect(p)  # no temporary file of kdump's goes in there
            directory = False
            for item in self._path(p, depth=0):
                if isinstance(item, KafkaFile):
                    if item.kind != "unknown":
                        self._kafka = True
                elif item.kind != "unknown-file":
                    self._kafka = True  # a problem with something Kafka-like (or unreadable)
                yield item
            try:
                directory = self.fs.isdir(p)
            except OSError:
                directory = False
            if directory and not self._kafka:
                yield Problem(p, None, "unreadable-file", f"no Kafka data under {p}")

    def _path(self, path: str, depth: int) -> Iterator[KafkaFile | Problem]:
        try:
            st = self.fs.stat(path)
        except FileNotFoundError:
            yield Problem(path, None, "unreadable-file", "no such file or directory")
            return
        except PermissionError:
            yield Problem(path, None, "unreadable-file", "permission denied")
            return
        except OSError as e:
            yield Problem(path, None, "unreadable-file", _os_reason(e))
            return
        if stat.S_ISDIR(st.st_mode):
            key = (st.st_dev, st.st_ino)
            if key in self._seen_dirs:
                yield Problem(path, None, "unreadable-file",
                              "directory already visited (symlink loop?); skipped", severity=INFO)
                return
            self._seen_dirs.add(key)
            part = parse_partition_dir(os.path.basename(os.path.normpath(path)))
            if part is not None and not looks_like_logdir(path, self.fs):
                yield from self._partition(path, part)
            elif depth == 0 and _names_a_file(path):
                # asked for by a file's name (00000000000000000000.log, meta.properties,
                # ...): a directory there is an input error, not an empty log dir
                yield Problem(path, None, "unreadable-file", "is a directory, not a file")
            else:
                yield from self._logdir(path, depth)
        else:
            f = with_active_flag(classify(path, listing=self.fs), self.fs)
            if depth == 0 and f.kind == "unknown" and "://" not in path and f.leftover is None:
                if not holds_a_batch(path):
                    # given by name, named like nothing Kafka writes and holding no batch:
                    # not Kafka data; never "clean" (an input error, exit 2)
                    yield Problem(path, None, "unreadable-file", NOT_KAFKA_DATA)
                    return
                # a renamed segment: read as one (its base offset unknown)
                yield Problem(path, None, "unknown-file",
                              "not a name Kafka gives its files, but it starts with a record "
                              "batch: read as a log segment", severity=INFO)
                f = KafkaFile(path, "log", None, None, f.topic, f.partition, f.partition_state)
            yield f

    def _skipped(self, full: str, name: str) -> list[Problem] | None:
        """None when the walk goes into ``full``; otherwise what it says of passing over
        it (nothing unless verbose)."""
        why = not_data(name)
        if why is None:
            return None
        if not self.verbose:
            return []
        if name not in _KAFKAS_OWN:
            why += ", not Kafka data"
        return [Problem(full, None, "unknown-file", f"{why}; skipped", severity=INFO)]

    def _entries(self, path: str) -> list[str] | Problem:
        try:
            return self.fs.listdir(path)
        except PermissionError:
            return Problem(path, None, "unreadable-file", "permission denied (directory)")
        except FileNotFoundError:
            return Problem(path, None, "unreadable-file", "directory vanished while walking")
        except OSError as e:
            return Problem(path, None, "unreadable-file", _os_reason(e))

    def _partition(self, path: str, part: PartitionDir) -> Iterator[KafkaFile | Problem]:
        self._kafka = True  # a partition directory, even empty, is Kafka's
        names = self._entries(path)
        if isinstance(names, Problem):
            yield names
            return
        files: list[KafkaFile] = []
        for name in names:
            full = os.path.join(path, name)
            if (skip := self._skipped(full, name)) is not None:
                yield from skip
                continue
            try:
                is_dir = self.fs.isdir(full)
            except OSError:
                is_dir = False
            if is_dir:
                if _names_a_file(full):  # 00000000000000000000.index/, leader-epoch-checkpoint/
                    yield Problem(full, None, "unreadable-file", "is a directory, not a file")
                elif looks_like_logdir(full, self.fs) or parse_partition_dir(name) is not None:
                    # a log dir kept inside a folder named like a partition: read it
                    yield from self._path(full, 1)
                else:
                    yield Problem(full, None, "unknown-file",
                                  "unexpected directory inside a partition directory; skipped",
                                  severity=INFO)
                continue
            files.append(classify(full, part))
        logs = [f.base_offset for f in files
                if f.kind == "log" and f.leftover is None and f.base_offset is not None]
        active = max(logs) if logs and part.topic_id is None else None  # remote: all closed
        if active is not None:
            files = [
                KafkaFile(f.path, f.kind, f.base_offset, f.epoch, f.topic, f.partition,
                          f.partition_state, f.leftover, True)
                if f.kind == "log" and f.leftover is None and f.base_offset == active else f
                for f in files
            ]
        yield from sorted(files, key=_sort_key)

    def _logdir(self, path: str, depth: int) -> Iterator[KafkaFile | Problem]:
        names = self._entries(path)
        if isinstance(names, Problem):
            yield names
            return
        root_files: list[str] = []
        partitions: list[tuple[tuple[str, int, str], str, PartitionDir]] = []
        others: list[str] = []
        for name in names:
            full = os.path.join(path, name)
            if (skip := self._skipped(full, name)) is not None:
                yield from skip
                continue
            try:
                is_dir = self.fs.isdir(full)
            except OSError:
                is_dir = False
            if not is_dir:
                root_files.append(full)
                continue
            outside = self._escapes(full)
            if outside is not None:
                yield Problem(full, None, "unknown-file",
                              f"a symlink to a directory outside the tree given ({outside}); "
                              "not followed", severity=INFO)
                continue
            part = parse_partition_dir(name)
            # kafka-logs-1 with meta.properties, checkpoints or partitions inside is a log
            # dir wherever it is met: a partition directory never holds partition dirs
            if part is not None and not looks_like_logdir(full, self.fs):
                partitions.append(((part.topic, part.partition, part.state or ""), full, part))
            else:
                others.append(full)
        for full in root_files:
            f = classify(full, in_partition=False)
            if f.kind in _SEGMENT_KINDS and f.base_offset is not None:
                # a segment copied into a folder not named topic-N: read, partition unknown
                yield Problem(full, None, "unknown-file",
                              "not in a topic-partition directory: partition unknown",
                              severity=INFO)
                f = with_active_flag(f, self.fs)
            yield f
        for _, full, part in sorted(partitions):
            try:
                st = self.fs.stat(full)
                key = (st.st_dev, st.st_ino)
            except OSError:
                key = None
            if key is not None:
                if key in self._seen_dirs:
                    continue
                self._seen_dirs.add(key)
            yield from self._partition(full, part)
        for full in others:
            if depth < 3 and not os.path.basename(full).startswith("."):
                yield from self._path(full, depth + 1)
            else:
                yield Problem(full, None, "unknown-file", "not a partition directory; skipped",
                              severity=INFO)


#: why a file given by name is no input: what the walk says and commands that write refuse
NOT_KAFKA_DATA = ("not Kafka data: not a name Kafka gives its files (<offset>.log, .index, "
                  ".timeindex, .snapshot, a checkpoint ...) and no record batch at its start")


def not_kafka_data(path: str) -> str | None:
    """:data:`NOT_KAFKA_DATA` for a local file named like nothing Kafka writes that holds
    no record batch at its start; None for anything else (a directory, a URL, a Kafka
    file, a renamed segment, a path that is not there).  No command calls such an input
    clean; those that write refuse it before writing (exit 2)."""
    if "://" in path or not os.path.isfile(path):
        return None
    f = classify(path)
    if f.kind != "unknown" or f.leftover is not None or holds_a_batch(path):
        return None
    return NOT_KAFKA_DATA


def refuse_not_kafka_data(paths: Iterable[str]) -> None:
    """An :class:`~kdump.errors.InputError` (exit 2, one line) for the first input given
    by name that is not Kafka data (:func:`not_kafka_data`)."""
    from ..errors import InputError

    for p in paths:
        why = not_kafka_data(p)
        if why is not None:
            raise InputError(why, path=p)


def holds_a_batch(path: str) -> bool:
    """Does the file at ``path`` start with a record batch (framed, its CRC valid)?  What
    tells a renamed segment from a file that is not Kafka data."""
    from ..errors import KdumpError
    from ..records.file_records import LogReader
    from ..source import FileSource

    try:
        with FileSource(path) as src:
            if src.size == 0:
                return False
            reader = LogReader(src, resync=False)
            try:
                for item in reader:
                    return bool(getattr(item, "crc_valid", False))
            finally:
                reader.close()
    except KdumpError:
        return False
    return False


def _os_reason(e: OSError) -> str:
    """An OS error's reason, lower case (``permission denied``); a remote store's reason
    (errno 0: kdump.fs) as the store gave it (``HTTP 500 InternalError ...``)."""
    text = e.strerror or str(e)
    return text if not e.errno else text.lower()


def _names_a_file(path: str) -> bool:
    """Is the last component of ``path`` the name of a file Kafka writes (a segment file
    with an offset for a stem, or one of the fixed names)?"""
    f = classify(os.path.normpath(path))
    return f.kind in FIXED_NAMES.values() or (
        f.kind in SEGMENT_SUFFIXES.values() and f.base_offset is not None)


#: a segment's files (named <base offset>.<suffix>)
_SEGMENT_KINDS = frozenset({"log", "offset-index", "time-index", "txn-index",
                            "producer-snapshot"})

#: files only a log dir's root holds
LOGDIR_MARKERS = L.LOG_DIR_FILES


def looks_like_logdir(path: str, listing: Listing | None = None) -> bool:
    """A directory named like a partition (``kafka-logs-1``, ``broker-0``) is a log dir
    when it holds a log dir's root files or partition directories: partition directories
    hold files only."""
    try:
        for name, is_dir in (listing or Listing()).entries(path):
            if name in LOGDIR_MARKERS:
                return True
            if parse_partition_dir(name) is not None and is_dir:
                return True
    except OSError:
        return False
    return False


def with_active_flag(f: KafkaFile, listing: Listing | None = None) -> KafkaFile:
    """Mark a segment given on its own as active when no sibling log has a larger base."""
    if f.kind != "log" or f.leftover is not None or f.base_offset is None or f.segment_id:
        return f
    directory = os.path.dirname(_abspath(f.path))
    try:
        names = (listing or Listing()).listdir(directory)
    except OSError:
        return f
    for name in names:
        stem, _, suffix = name.partition(".")
        if suffix == "log" and stem.isdigit() and int(stem) > f.base_offset:
            return f
    return KafkaFile(f.path, f.kind, f.base_offset, f.epoch, f.topic, f.partition,
                     f.partition_state, f.leftover, True)


def walk(paths: Iterable[str], listing: Listing | None = None, *, verbose: bool = False
         ) -> Iterator[KafkaFile | Problem]:
    return Walker(listing, verbose=verbose).walk(paths)


__all__ = [
    "ERROR",
    "FILE_KINDS",
    "NOT_DATA_NAMES",
    "KafkaFile",
    "PartitionDir",
    "Walker",
    "broker_label",
    "classify",
    "not_data",
    "walk",
]


def list_segments(directory: str, listing: Listing | None = None) -> list[tuple[int, str]]:
    """``(base offset, path)`` of the partition's ``.log`` segments, by base offset.
    Only names are read: this is how a lookup picks its segment without opening any."""
    out = []
    for name in (listing or Listing()).listdir(directory):
        stem, dot, suffix = name.partition(".")
        if dot and suffix == "log" and stem.isdigit():
            out.append((int(stem), os.path.join(directory, name)))
    out.sort()
    return out
