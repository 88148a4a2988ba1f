"""``kdump browse``'s tree: log dirs (with their broker id), topics and partitions, each
with its segments and disk bytes at once, and its records and findings (verify-crc's and
verify-index's, counted by severity) when :func:`partition_findings` has read it.

Several log dirs are several brokers: a partition is a row of its own log dir, never
added up with a replica of another.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ... import fs as kfs
from ... import layouts as L
from ...files.logdir import KafkaFile, parse_partition_dir, walk
from ...findings import ERROR, INFO, WARNING, Problem, finding_key
from ..compare_replicas.logdirs import broker_id_of, logdir_of

if TYPE_CHECKING:
    from ..verdict import CleanupPolicies

#: the order severities are counted and shown in
SEVERITIES = (ERROR, WARNING, INFO)


class Evidence:
    """What browse judges a partition with, the evidence verify-crc is given for the
    same inputs: the topics' cleanup policies (``--config`` ``overrides``, the KRaft
    metadata among ``paths``; with the cleaner-offset-checkpoint and Kafka's defaults
    :func:`kdump.ops.verdict.cleanup_of` decides).  Read once, when a partition is first
    judged (in browse's worker threads: the metadata log may be long), thread-safe."""

    def __init__(self, paths: Iterable[str], overrides: Iterable[str] = (),
                 max_batch_bytes: int | None = None) -> None:
        self.paths = list(paths)
        self.overrides = tuple(overrides)
        self.max_batch_bytes = max_batch_bytes
        self._lock = threading.Lock()
        self._read = False
        self._policies: CleanupPolicies | None = None

    def policies(self) -> CleanupPolicies | None:
        """The cleanup policies (None: neither --config nor KRaft metadata given)."""
        with self._lock:
            if not self._read:
                from ...errors import KdumpError
                from ..verdict import CleanupPolicies

                try:
                    self._policies = CleanupPolicies.for_inputs(
                        self.paths, self.overrides, self.max_batch_bytes)
                except KdumpError:  # the metadata unreadable: Kafka's defaults stand
                    self._policies = None
                self._read = True
            return self._policies


@dataclass(slots=True)
class SegmentInfo:
    """One ``.log`` segment of a partition."""

    base_offset: int
    path: str
    size: int
    active: bool = False


@dataclass(slots=True)
class PartitionFindings:
    """What reading a partition whole found: its records, and the findings of
    verify-crc and verify-index, each once (:func:`~kdump.findings.finding_key`), in
    offset order (the order ``n`` and ``N`` go through them)."""

    records: int = 0
    batches: int = 0
    findings: list[Problem] = field(default_factory=list)

    @property
    def by_severity(self) -> dict[str, int]:
        c = Counter(str(p.severity) for p in self.findings)
        return {str(getattr(s, "value", s)): c.get(s, 0) for s in SEVERITIES}


@dataclass(slots=True)
class PartitionNode:
    log_dir: str
    broker_id: int | None
    topic: str
    partition: int
    path: str
    state: str | None = None  # "delete" / "future" / "stray" directories
    segments: list[SegmentInfo] = field(default_factory=list)
    #: bytes the partition's files take on disk (st_blocks * 512: a sparse, preallocated
    #: index counts what it holds, not its length)
    disk_bytes: int = 0
    #: None until :func:`partition_findings` has read the partition
    checked: PartitionFindings | None = None
    #: why the directory cannot be read (permission denied, vanished): the walk's
    #: finding; or, the directory gone while the log dir's checkpoints name it, the
    #: verdict's data-lost finding (:func:`missing_partitions`); the partition is a row
    #: of the tree all the same, with this finding
    unreadable: Problem | None = None
    #: the files of it given by name (``kdump browse .../00000000000000000000.log``):
    #: its bytes, records and findings are theirs, not the whole partition's; None when
    #: the directory was given (or found under a log dir)
    given: list[str] | None = None
    #: what it is judged with (the cleanup policies), shared by the tree's partitions
    evidence: Evidence | None = field(default=None, repr=False, compare=False)

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}" + (f"-{self.state}" if self.state else "")


@dataclass(slots=True)
class TopicNode:
    name: str
    partitions: list[PartitionNode] = field(default_factory=list)


@dataclass(slots=True)
class LogDirNode:
    path: str
    broker_id: int | None
    topics: list[TopicNode] = field(default_factory=list)
    #: what the walk could not place (unreadable directories, stray files ...)
    problems: list[Problem] = field(default_factory=list)

    @property
    def partitions(self) -> list[PartitionNode]:
        return [p for t in self.topics for p in t.partitions]


def _disk_bytes(path: str) -> int:
    """What ``du`` counts of the file (a sparse, preallocated index: what it holds, 0 when
    it holds nothing); an object store keeps no block counts: its objects' size."""
    try:
        apparent, allocated = kfs.getsizes(path)
    except OSError:
        return 0
    return apparent if allocated is None else allocated


def browse_tree(paths: Iterable[str], evidence: Evidence | None = None) -> list[LogDirNode]:
    """Every partition under ``paths``, by log dir (in the order given) and topic (by
    name).  Only names and ``stat`` are read here, and each log dir's meta.properties.
    Each partition is judged with ``evidence`` (default: the KRaft metadata among
    ``paths``, as verify-crc given them reads it)."""
    paths = list(paths)
    if evidence is None:
        evidence = Evidence(paths)
    dirs: dict[str, LogDirNode] = {}
    parts: dict[str, PartitionNode] = {}
    loose: list[Problem] = []
    named = {os.path.abspath(p) for p in paths if "://" not in p and os.path.isfile(p)}
    scoped: dict[str, list[str]] = {}  # partition dir -> its files, given by name or not
    for item in walk(paths):
        if isinstance(item, Problem):
            loose.append(item)
            continue
        f: KafkaFile = item
        if f.topic is None or f.partition is None or f.segment_id is not None:
            continue  # log-dir files (checkpoints ...), tiered copies
        directory = os.path.dirname(f.path)
        node = parts.get(directory)
        if node is None:
            node = parts[directory] = _partition_node(dirs, directory, f.topic, f.partition)
        scoped.setdefault(directory, []).append(f.path)
        node.disk_bytes += _disk_bytes(f.path)
        if f.kind == "log" and f.leftover is None and f.base_offset is not None:
            node.segments.append(SegmentInfo(f.base_offset, f.path, _size(f.path), f.active))
    for directory, files in scoped.items():
        if named and all(os.path.abspath(f) in named for f in files):
            parts[directory].given = files
    for prob in loose:
        pd = parse_partition_dir(os.path.basename(os.path.normpath(prob.path)))
        if pd is not None and prob.kind == "unreadable-file" and prob.path not in parts:
            # a partition directory that cannot be listed: a row of its own, with its
            # finding (verify-crc names it unreadable-file too), not a silent absence
            node = parts[prob.path] = _partition_node(dirs, prob.path, pd.topic, pd.partition)
            node.unreadable = prob
            node.checked = PartitionFindings(findings=[prob])
            continue
        ld = dirs.get(logdir_of(os.path.dirname(prob.path))) or dirs.get(
            os.path.dirname(prob.path)) or dirs.get(prob.path)
        if ld is None:  # nothing of Kafka's beside it: a log dir node that holds only it
            where = prob.path if os.path.isdir(prob.path) else os.path.dirname(prob.path)
            ld = dirs[where or "."] = LogDirNode(where or ".", None)
        ld.problems.append(prob)
    for prob in missing_partitions(paths):
        if prob.path in parts:
            continue
        extra = prob.extra or {}
        topic_name, partition = str(extra["topic"]), int(extra["partition"])
        node = parts[prob.path] = _partition_node(dirs, prob.path, topic_name, partition)
        node.unreadable = prob
        node.checked = PartitionFindings(findings=[prob])
    for ld in dirs.values():
        ld.topics.sort(key=lambda t: t.name)
        for t in ld.topics:
            t.partitions.sort(key=lambda p: (p.partition, p.state or ""))
            for p in t.partitions:
                p.segments.sort(key=lambda s: s.base_offset)
                p.evidence = evidence
    return list(dirs.values())


def missing_partitions(paths: Iterable[str], policies: CleanupPolicies | None = None
                       ) -> list[Problem]:
    """The partitions the log dirs given name in their checkpoints with no directory,
    lost (kdump.ops.verdict's LogDirVerdict): each its ``data-lost`` finding, as
    verify-crc names it.  Without ``policies`` (a CleanupPolicies) only the log dirs'
    checkpoints are read; with them, the KRaft metadata's assignments too (a topic it
    no longer holds was deleted: Kafka's own work, no loss)."""
    return [p for p in log_dir_verdicts(paths, policies)
            if p.kind == "data-lost" and isinstance(p.extra, dict) and "topic" in p.extra]


def log_dir_verdicts(paths: Iterable[str], policies: CleanupPolicies | None = None
                     ) -> list[Problem]:
    """Every finding of the log dirs given (kdump.ops.verdict's LogDirVerdict), as
    verify-crc names them: partitions the checkpoints name with no directory and, with
    ``policies`` holding the KRaft metadata, the replicas it assigns here and absent."""
    from ..verdict import LostTracker

    return LostTracker(list(paths), policies).missing_partitions()


def add_absent(logdirs: list[LogDirNode], found: Iterable[Problem]) -> int:
    """The findings among ``found`` of partitions the KRaft metadata assigns here with no
    directory (``assigned-absent``, and the ``data-lost`` of one whose offsets another
    replica proves written here, which no row of the tree stands for) added to their log
    dir's node (its findings, ``f`` in the tree), each once.  How many were added."""
    by_path = {ld.path: ld for ld in logdirs}
    rows = {p.path for ld in logdirs for p in ld.partitions}
    added = 0
    for p in found:
        if p.kind != "assigned-absent" and not (p.kind == "data-lost" and p.path not in rows):
            continue
        ld = by_path.get(kfs.dirname(p.path))
        if ld is None or any(q.kind == p.kind and q.path == p.path for q in ld.problems):
            continue
        ld.problems.append(p)
        added += 1
    return added


def is_missing_row(node: PartitionNode) -> bool:
    """A row :func:`missing_partitions` made (no directory: the checkpoints name it)."""
    return node.unreadable is not None and node.unreadable.kind == "data-lost"


def drop_explained(logdirs: list[LogDirNode], lost: Iterable[str]) -> int:
    """Remove the missing rows whose directory is not in ``lost`` (judged again with the
    metadata: Kafka's own work); topics left empty go too.  How many went."""
    keep = set(lost)
    gone = 0
    for ld in logdirs:
        for t in ld.topics:
            before = len(t.partitions)
            t.partitions = [p for p in t.partitions
                            if not is_missing_row(p) or p.path in keep]
            gone += before - len(t.partitions)
        ld.topics = [t for t in ld.topics if t.partitions]
    return gone


def _partition_node(dirs: dict[str, LogDirNode], directory: str, topic_name: str,
                    partition: int) -> PartitionNode:
    """A new partition of ``directory``, in its log dir's node and topic (made if new)."""
    log_dir = logdir_of(directory)
    ld = dirs.get(log_dir)
    if ld is None:
        ld = dirs[log_dir] = LogDirNode(log_dir, broker_id_of(log_dir))
    pd = parse_partition_dir(os.path.basename(os.path.normpath(directory)))
    node = PartitionNode(log_dir, ld.broker_id, topic_name, partition, directory,
                         state=pd.state if pd is not None else None)
    topic = next((t for t in ld.topics if t.name == topic_name), None)
    if topic is None:
        topic = TopicNode(topic_name)
        ld.topics.append(topic)
    topic.partitions.append(node)
    return node


def what_is_there(paths: Iterable[str]) -> list[str]:
    """Why nothing is shown: for each path, what it is (missing, an empty directory, a
    directory whose entries are none of Kafka's, a file that is no segment), a line each."""
    out = []
    for p in paths:
        if "://" in p:
            out.append(f"{p}: no Kafka partition found")
            continue
        try:
            if os.path.isdir(p):
                names = sorted(os.listdir(p))
                if not names:
                    out.append(f"{p}: an empty directory")
                    continue
                shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
                n = len(names)
                out.append(f"{p}: a directory of {n} entr{'ies' if n != 1 else 'y'} ({shown}), "
                           "none a partition directory (<topic>-<partition>) or a segment")
            elif os.path.exists(p):
                out.append(f"{p}: a file of {os.path.getsize(p)} bytes that is not Kafka data "
                           "(not named as Kafka names its files, no record batch at its start)")
            else:
                out.append(f"{p}: no such file or directory")
        except OSError as e:
            out.append(f"{p}: cannot be read ({e.strerror or e})")
    return out


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def partition_findings(node: PartitionNode, *, max_batch_bytes: int | None = None
                       ) -> PartitionFindings:
    """Read the partition whole (or the files of it given by name), as ``verify-crc``
    and ``verify-index`` do, judged with the same evidence (the node's
    :class:`Evidence`: --config, the KRaft metadata among the inputs): its records and
    every finding, each once, in offset order."""
    from ..verify_crc import FileResult, VerifyOptions, verify_crc
    from ..verify_index import VerifyIndexOptions, verify_index

    if node.unreadable is not None:
        return PartitionFindings(findings=[node.unreadable])
    policies = node.evidence.policies() if node.evidence is not None else None
    vopts = VerifyOptions(policies=policies) if max_batch_bytes is None else VerifyOptions(
        max_batch_bytes=max_batch_bytes, policies=policies)
    scope = _with_indexes(node.given) if node.given else [node.path]
    out = PartitionFindings()
    seen: set[tuple[object, ...]] = set()

    def add(p: Problem) -> None:
        key = finding_key(p.path, p.position, p.kind, p.base_offset, p.detail)
        if key not in seen:
            seen.add(key)
            out.findings.append(p)

    for item in verify_crc(scope, vopts, jobs=1):
        if isinstance(item, Problem):
            add(item)
        elif isinstance(item, FileResult):
            out.records += item.records
            out.batches += item.batches
    for item in verify_index(scope, VerifyIndexOptions(policies=policies), jobs=1):
        if isinstance(item, Problem):
            add(item)
    out.findings.sort(key=lambda p: finding_order(p, node))
    return out


def _with_indexes(files: list[str]) -> list[str]:
    """The files given and, beside each segment, its indexes (a segment given alone is
    checked against its own .index/.timeindex, as verify-index checks the partition)."""
    out = list(files)
    for f in files:
        if f.endswith(L.LOG_SUFFIX):
            for suffix in (L.INDEX_SUFFIX, L.TIME_INDEX_SUFFIX, L.TXN_INDEX_SUFFIX):
                sibling = f[: -len(L.LOG_SUFFIX)] + suffix
                if sibling not in out and os.path.exists(sibling):
                    out.append(sibling)
    return out


def finding_order(p: Problem, node: PartitionNode) -> tuple[int, int, int, int]:
    """Offset order: by the segment the finding's file belongs to (the base offset in its
    name), then the batch's base offset, then the byte; findings of no segment last."""
    name = os.path.basename(p.path)
    stem = name.split(".")[0]
    seg = int(stem) if stem.isdigit() and os.path.dirname(p.path) == node.path else 2**63
    log_first = 0 if name.endswith(".log") else 1
    return (seg, log_first, p.base_offset if p.base_offset is not None else -1,
            p.position if p.position is not None else -1)
