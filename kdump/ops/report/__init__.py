"""``kdump report``: one incident report over log dirs, as a stream of plain objects.

The report runs the core operations every other command runs -- verify-crc,
verify-index, size-report, compare-replicas (several log dirs), lag, the KRaft metadata
replay, retention -- and hands on their objects unchanged, each section opened by a ``section``
object, so ``kdump report --format json`` is the report's data model and the HTML page
(kdump/render/html.py) is one view over it.  Its own objects (documented in
kdump/model/report.py) are the chain of custody (``report``, ``input_file``, ``report_end``),
the records-over-time buckets (``activity``) and the open transactions
(``transaction``), which one shallow pass over the batch headers gives, and how each data
topic's records name the schema registry's ids (``schema_usage``).

Groups: ``lag``'s objects, then the ``group`` and ``share_partition`` objects of the
``dump --summary`` replay (members, assignments, regular expressions, streams topologies,
share-partition state) when ``__consumer_offsets`` or ``__share_group_state`` is among the
inputs.  Schema registry (:mod:`kdump.ops.report.schemas`): when a ``_schemas``
partition is among or beside the inputs, the ``schema`` objects ``kdump schemas`` writes
(records per id counted from the pass that gives ``schema_usage``: the payloads'
framing and schema-id headers, nothing decoded).

Chain of custody: every file the walk lists is hashed (SHA-256, streamed through
:class:`kdump.source.FileSource`: read-only, O_NOATIME, bounded memory); a log segment's
hash comes from the same read as its batch headers (:class:`HashingSource`), so the first
pass reads every file once for both; files kdump does not interpret (``unknown`` kinds,
lock files, and files under an input directory that the walk passes over, kind
``other``) are listed with ``read: false``.  The inputs are never modified.

Memory: one batch at a time; the activity buckets are bounded (:data:`MAX_BUCKETS` per
partition replica, their width doubling as the time range grows), the metadata history
keeps the last :data:`kdump.ops.report.cluster.HISTORY_LIMIT` entries (and counts the rest).
"""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

from ... import fs as kfs
from ...custody import Digest, HashingSource, file_digest, utc_iso
from ...errors import KdumpError
from ...files.logdir import KafkaFile, not_data, walk
from ...findings import Problem, finding_key
from ...model import shape
from ...records.file_records import Batch, LogReader
from ...records.v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch
from ...source import FileSource, ReadCounter
from ...version import __version__
from .cluster import log_dir_objects, metadata_section
from .findings import replica_finding, with_hanging_findings

#: the sections, in the order the stream (and the page) gives them: (name, title)
SECTIONS: tuple[tuple[str, str], ...] = (
    ("custody", "Chain of custody"),
    ("cluster", "Cluster metadata"),
    ("data", "Data"),
    ("findings", "Findings"),
    ("groups", "Consumer groups and lag"),
    ("transactions", "Transactions"),
    ("schemas", "Schema registry"),
    ("retention", "Retention"),
    ("timeline", "Timeline"),
)
#: file kinds whose content no check reads (listed, hashed, marked read: false)
UNREAD_KINDS = ("unknown", "lock", "other")
#: activity buckets kept per partition replica (their width doubles to stay under it)
MAX_BUCKETS = 240
#: the smallest bucket: one minute
MIN_BUCKET_MS = 60_000
#: Kafka's transaction.max.timeout.ms default: an open transaction older than this (by
#: the partition's own clock, its last batch's timestamp) is reported as hanging
HANGING_AFTER_MS = 900_000
#: findings remembered to report each once (beyond it, repeats may show twice)
SEEN_LIMIT = 100_000
#: the group coordinators' topics: their presence asks for the groups' replay
GROUP_TOPICS = ("__consumer_offsets", "__share_group_state")


@dataclass(slots=True)
class ReportOptions:
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
    jobs: int = 1
    #: the command line, as given (for the chain of custody)
    argv: tuple[str, ...] = ()
    #: ``--kafka-version X.Y``: the release whose layouts internal topics are read with
    kafka_version: str | None = None
    #: ``--config TOPIC:cleanup.policy=...``: topics' cleanup policies above the KRaft
    #: metadata's, as verify-crc takes them
    overrides: tuple[str, ...] = ()


def section(name: str) -> dict[str, Any]:
    return shape("section", {"name": name, "title": dict(SECTIONS)[name]})


# ----------------------------------------------------------------------- custody


def input_file(f: KafkaFile, digest: Digest | None = None
               ) -> tuple[dict[str, Any], Problem | None]:
    sha, hashed, error = file_digest(f.path) if digest is None else digest
    mtime = kfs.mtime_ms(f.path)
    allocated: int | None = None
    if error is None:
        try:
            allocated = kfs.getsizes(f.path)[1]
        except OSError:
            pass
    obj = shape("input_file", {
        "file": f.path, "kind": f.kind, "topic": f.topic, "partition": f.partition,
        "size": hashed if error is None else None, "disk_bytes": allocated,
        "modified": None if mtime is None else utc_iso(mtime),
        "sha256": sha, "read": f.kind not in UNREAD_KINDS and error is None,
        "error": error})
    p = None if error is None else Problem(f.path, None, "unreadable-file", error)
    return obj, p


def _unwalked(paths: list[str], walked: set[str]) -> Iterator[str]:
    """Files under the local input directories that the walk does not list (editor
    folders, stray copies ...): present, hashed, listed as not read."""
    for p in paths:
        if kfs.is_url(p) or not os.path.isdir(p):
            continue
        for root, dirs, names in kfs.walk_local(p):
            dirs.sort()
            for name in sorted(names):
                full = os.path.join(root, name)
                if full not in walked and os.path.isfile(full) and not os.path.islink(full):
                    yield full


# ----------------------------------------------------------------------- activity


@dataclass(slots=True)
class _Open:
    producer_epoch: int
    first_offset: int
    first_timestamp: int


@dataclass(slots=True)
class _ReplicaActivity:
    """One partition replica's records over time and open transactions."""

    log_dir: str
    #: its partition directory
    path: str = ""
    width: int = MIN_BUCKET_MS
    buckets: dict[int, int] = field(default_factory=dict)  # bucket start -> records
    records: int = 0
    last_offset: int | None = None
    last_timestamp: int | None = None
    open: dict[int, _Open] = field(default_factory=dict)  # producer id -> transaction

    def add(self, b: Batch) -> None:
        n = b.records_count if isinstance(b, RecordBatch) else 1
        n = max(n, 0)
        self.records += n
        self.last_offset = b.last_offset
        ts = b.max_timestamp
        if ts > 0:
            if self.last_timestamp is None or ts > self.last_timestamp:
                self.last_timestamp = ts
            if not (isinstance(b, RecordBatch) and b.is_control):
                key = ts - ts % self.width
                self.buckets[key] = self.buckets.get(key, 0) + n
                self._bound()
        if isinstance(b, RecordBatch) and b.is_transactional and b.producer_id >= 0:
            if b.is_control:
                self.open.pop(b.producer_id, None)
            elif b.producer_id not in self.open:
                first_ts = b.base_timestamp if b.base_timestamp > 0 else b.max_timestamp
                self.open[b.producer_id] = _Open(b.producer_epoch, b.base_offset, first_ts)

    def _bound(self) -> None:
        while len(self.buckets) > 1:
            lo, hi = min(self.buckets), max(self.buckets)
            if (hi - lo) // self.width < MAX_BUCKETS:
                return
            self.width *= 2
            merged: dict[int, int] = {}
            for k, v in self.buckets.items():
                nk = k - k % self.width
                merged[nk] = merged.get(nk, 0) + v
            self.buckets = merged


def _is_partition_log(f: KafkaFile) -> bool:
    return f.kind == "log" and f.leftover is None and f.topic is not None \
        and f.partition is not None and f.partition_state is None and f.segment_id is None


def _first_pass(files: list[KafkaFile], max_batch_bytes: int
                ) -> tuple[dict[tuple[str, int], list[_ReplicaActivity]], dict[str, Digest]]:
    """One read of every file: each log segment's batch headers (no decompression), per
    partition replica, and every file's SHA-256 (a log's from the same read)."""
    out: dict[tuple[str, int], list[_ReplicaActivity]] = {}
    digests: dict[str, Digest] = {}
    current: dict[str, _ReplicaActivity] = {}
    for f in files:
        if not _is_partition_log(f):
            digests[f.path] = file_digest(f.path)
            continue
        assert f.topic is not None and f.partition is not None
        pdir = kfs.dirname(f.path)
        act = current.get(pdir)
        if act is None:
            act = current[pdir] = _ReplicaActivity(kfs.dirname(pdir), pdir)
            out.setdefault((f.topic, f.partition), []).append(act)
        try:
            with FileSource(f.path) as src:
                hashing = HashingSource(src)
                try:
                    reader = LogReader(cast(FileSource, hashing), active=f.active,
                                       max_batch_bytes=max_batch_bytes)
                    for item in reader:
                        if not isinstance(item, Problem):
                            act.add(item)
                except KdumpError:
                    pass  # verify-crc reports the damage; the hash goes on below
                digests[f.path] = hashing.digest()
        except (KdumpError, OSError) as e:
            digests[f.path] = (None, 0, getattr(e, "message", None) or str(e))
    return out, digests


def _partitions(acts: dict[tuple[str, int], list[_ReplicaActivity]]
                ) -> list[tuple[tuple[str, int], list[_ReplicaActivity]]]:
    """The replicas by partition: replica groups (:mod:`kdump.ops.replica_groups`: one
    cluster, topic, partition and topic id where known), in order."""
    from ..replica_groups import Identity, group_replicas, log_dir_identity, topic_id_of

    clusters: dict[str, str | None] = {}
    for reps in acts.values():
        for a in reps:
            if a.log_dir not in clusters:
                clusters[a.log_dir] = log_dir_identity(a.log_dir).cluster_id
    members = [(k, a) for k, reps in acts.items() for a in reps]
    groups, _notes = group_replicas(members, lambda m: Identity(
        m[0][0], m[0][1], clusters[m[1].log_dir], None, m[1].log_dir),
        lambda m: topic_id_of(m[1].path))
    return [(g.members[0][0], [a for _k, a in g.members]) for g in groups]


def _chosen(replicas: list[_ReplicaActivity]) -> _ReplicaActivity:
    """The replica with the most records (the first on a tie): replicas never add up."""
    return max(replicas, key=lambda r: r.records)


def activity_objects(acts: dict[tuple[str, int], list[_ReplicaActivity]]
                     ) -> Iterator[dict[str, Any]]:
    """Per topic, records per time bucket (each partition's fullest replica, summed);
    all topics share one bucket width, the widest any partition needed, widened again
    until all of them together span fewer than :data:`MAX_BUCKETS` (one partition's
    batches in 1970 and another's today would otherwise make the chart's axis, which
    runs from the first bucket to the last, tens of millions of minutes long)."""
    chosen = [(k, _chosen(v)) for k, v in _partitions(acts)]
    width = max((a.width for _k, a in chosen), default=MIN_BUCKET_MS)
    starts = [k for _p, a in chosen for k in a.buckets]
    if starts:
        lo, hi = min(starts), max(starts)
        while (hi - (hi % width)) - (lo - (lo % width)) >= width * MAX_BUCKETS:
            width *= 2
    per_topic: dict[str, dict[int, int]] = {}
    for (topic, _p), a in chosen:
        t = per_topic.setdefault(topic, {})
        for k, v in a.buckets.items():
            nk = k - k % width
            t[nk] = t.get(nk, 0) + v
    for topic, buckets in sorted(per_topic.items()):
        if not buckets:
            continue
        yield shape("activity", {"topic": topic, "bucket_ms": width,
                                 "buckets": [[k, v] for k, v in sorted(buckets.items())],
                                 "records": sum(buckets.values())})


def transaction_objects(acts: dict[tuple[str, int], list[_ReplicaActivity]]
                        ) -> Iterator[dict[str, Any]]:
    """Transactions with no marker yet at the end of each partition's fullest replica."""
    rows = []
    for (topic, partition), reps in _partitions(acts):
        a = _chosen(reps)
        for pid, o in sorted(a.open.items()):
            age = None
            if a.last_timestamp is not None and o.first_timestamp > 0:
                age = max(0, a.last_timestamp - o.first_timestamp)
            rows.append(shape("transaction", {
                "topic": topic, "partition": partition, "log_dir": a.log_dir,
                "producer_id": pid, "producer_epoch": o.producer_epoch,
                "first_offset": o.first_offset, "first_timestamp": o.first_timestamp,
                "last_offset": a.last_offset, "age_ms": age,
                "state": "hanging" if age is not None and age > HANGING_AFTER_MS else "open"}))
    rows.sort(key=lambda r: (-(r["age_ms"] or 0), r["topic"], r["partition"]))
    yield from rows


# ----------------------------------------------------------------------- groups


def _group_objects(files: list[KafkaFile], paths: list[str], max_batch_bytes: int
                   ) -> Iterator[Any]:
    """The ``group`` and ``share_partition`` objects of the ``dump --summary`` replay
    (its committed offsets are the lag rows already given); its problems are those lag
    met, reported once by :func:`report`."""
    # the logs offsets_summary replays (it refuses inputs holding none of them)
    if not any(f.topic in GROUP_TOPICS and f.kind == "log" and f.leftover is None
               for f in files):
        return
    from ...errors import UsageError
    from ..offsets_summary import DigestRow, offsets_summary

    try:
        for row in offsets_summary(paths, max_batch_bytes=max_batch_bytes):
            if isinstance(row, DigestRow) and row.kind in ("group", "share_partition"):
                yield row
            elif isinstance(row, Problem):
                yield row
    except UsageError:
        return  # nothing to replay after all: lag said what it found


# ----------------------------------------------------------------------- the report


def check_output(paths: list[str], output: str) -> None:
    """Refuse an output inside the evidence (an input, a file input itself, a partition
    input's directory or log dir: kdump.output.input_roots), a directory, a missing
    input, or a place kdump cannot write (read-only, no permission): UsageError or
    OutputError, before anything is read."""
    import errno

    from ...errors import InputError, OutputError, UsageError
    from ...files.logdir import refuse_not_kafka_data
    from ...output import input_roots, inside

    for p in paths:
        if not kfs.is_url(p) and not os.path.lexists(p):
            raise InputError("no such file or directory", path=p)
    refuse_not_kafka_data(paths)  # no page on a text file: it holds no evidence
    target = os.path.realpath(os.path.abspath(output))
    parent = os.path.dirname(target)
    if not os.path.isdir(parent):
        raise UsageError(f"--output {output}: no directory {os.path.dirname(output) or '.'} "
                         "to write it in")
    for real, shown in input_roots([p for p in paths if not kfs.is_url(p)]):
        if inside(target, [real]):
            raise UsageError(f"--output {output} lies inside the input {shown}: the report is "
                             "never written into the evidence")
    if os.path.isdir(output):
        raise UsageError(f"--output {output} is a directory")
    try:
        readonly = bool(os.statvfs(parent).f_flag & os.ST_RDONLY)
    except OSError:
        readonly = False
    if readonly:
        raise OutputError(f"cannot write: {os.strerror(errno.EROFS)}", path=output)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write: {os.strerror(errno.EACCES)}", path=output)


def _logdirs(files: list[KafkaFile]) -> list[str]:
    return sorted({kfs.dirname(kfs.dirname(f.path)) for f in files if f.topic is not None})


def report(paths: Iterable[str], opts: ReportOptions) -> Iterator[Any]:
    """The report's objects, section by section (see the module docstring), closed by
    ``report_end``: clean when no check found an error or a warning and every file was
    read."""
    started = time.time() * 1000
    counts = {"error": 0, "warning": 0, "info": 0}
    files: list[KafkaFile] = []
    seen: set[tuple[Any, ...]] = set()
    listed = 0
    for item in _sections(list(paths), opts, started, files):
        if isinstance(item, dict) and item.get("type") == "input_file":
            listed += 1
        if isinstance(item, Problem):
            # verify-crc and verify-index frame the same batches: a damaged one is one
            # finding, reported once (each check's summary still counts its own)
            key = finding_key(item.path, item.position, item.kind, item.base_offset,
                              item.detail)
            if key in seen:
                continue
            if len(seen) < SEEN_LIMIT:
                seen.add(key)
            counts[str(item.severity)] = counts.get(str(item.severity), 0) + 1
        yield item
    ended = time.time() * 1000
    yield shape("report_end", {"ended": utc_iso(ended),
                               "seconds": round((ended - started) / 1000, 3),
                               "files": listed, "errors": counts["error"],
                               "warnings": counts["warning"], "infos": counts["info"],
                               "clean": counts["error"] == 0 and counts["warning"] == 0})


def _policies(paths: list[str], max_batch_bytes: int, overrides: tuple[str, ...] = ()) -> Any:
    """The topics' cleanup policies from ``--config`` and the KRaft metadata among the
    inputs (None: neither; an unreadable metadata log is its own finding elsewhere)."""
    from ..verdict import CleanupPolicies

    try:
        return CleanupPolicies.for_inputs(paths, overrides, max_batch_bytes=max_batch_bytes)
    except KdumpError:
        return None


def _sections(paths: list[str], opts: ReportOptions, started: float, files: list[KafkaFile]
              ) -> Iterator[Any]:
    from ..lag import LagOptions, lag
    from ..size_report import SizeOptions, size_report
    from ..verify_crc import VerifyOptions, verify_crc
    from ..verify_index import VerifyIndexOptions, verify_index

    # the command line as given, less any secret it holds (a URL's password or query
    # string: kdump refuses such URLs, and the report does not repeat them)
    yield shape("report", {"kdump_version": __version__,
                           "command": [kfs.scrub(a) for a in
                                       (list(opts.argv) or ["kdump", "report", *paths])],
                           "inputs": [kfs.display_url(p) for p in paths], "cwd": os.getcwd(),
                           "host": socket.gethostname(),
                           "started": utc_iso(started), "python": sys.version.split()[0]})
    yield section("custody")
    ReadCounter.new_pass()
    passed_over: list[str] = []
    for item in walk(paths, verbose=True):
        if isinstance(item, Problem):
            if (item.kind == "unknown-file" and not_data(item.path.rstrip("/").rsplit("/", 1)[-1]) is not None
                    and kfs.isfile(item.path)):
                # what the walk passes over (the broker's .lock, OS and editor files):
                # present, hashed, listed as not read, local or remote alike
                passed_over.append(item.path)
            else:
                yield item
            continue
        files.append(item)
    acts, digests = _first_pass(files, opts.max_batch_bytes)
    for f in files:
        obj, p = input_file(f, digests.pop(f.path, None))
        yield obj
        if p is not None:
            yield p
    listed = {f.path for f in files} | set(passed_over)
    for path in [*passed_over, *_unwalked(paths, listed)]:
        obj, p = input_file(KafkaFile(path, "other"))
        yield obj
        if p is not None:
            yield p

    yield section("cluster")
    yield from metadata_section(files, opts.max_batch_bytes)

    yield section("data")
    yield from log_dir_objects(files)
    ReadCounter.new_pass()
    # every check judges a topic's gaps by its cleanup policy as verify-crc does (the
    # KRaft metadata's configs among the inputs; kdump.ops.verdict)
    policies = _policies(paths, opts.max_batch_bytes, opts.overrides)
    for row in size_report(paths, SizeOptions(by="partition", max_batch_bytes=opts.max_batch_bytes,
                                              policies=policies), opts.jobs):
        if not isinstance(row, Problem):  # the same damage verify-crc reports
            yield row
    yield from activity_objects(acts)
    if len(_logdirs(files)) > 1:
        from ..compare_replicas import CompareOptions, PartitionComparison, compare_replicas

        for c in compare_replicas(paths, CompareOptions(max_batch_bytes=opts.max_batch_bytes)):
            if isinstance(c, PartitionComparison):
                yield c
                yield from replica_finding(c)

    yield section("findings")
    ReadCounter.new_pass()
    from ..repair import with_repair_plans  # per damaged partition, what repair would do

    yield from with_repair_plans(verify_crc(paths, VerifyOptions(
        max_batch_bytes=opts.max_batch_bytes, policies=policies), opts.jobs),
        opts.max_batch_bytes, paths, policies.metadata if policies is not None else None)
    ReadCounter.new_pass()
    yield from verify_index(paths, VerifyIndexOptions(max_batch_bytes=opts.max_batch_bytes,
                                                      policies=policies), opts.jobs)

    yield section("groups")
    yield from lag(paths, LagOptions(max_batch_bytes=opts.max_batch_bytes,
                                     kafka_version=opts.kafka_version))
    yield from _group_objects(files, paths, opts.max_batch_bytes)

    yield section("transactions")
    yield from with_hanging_findings(transaction_objects(acts))

    yield section("schemas")
    from .schemas import schemas_section

    yield from schemas_section([f for f in files if _is_partition_log(f)], paths,
                               opts.max_batch_bytes)

    yield section("retention")  # judged at the report's start (kdump/ops/retention/__init__.py)
    from ..retention import retention_section

    yield from retention_section(paths, opts.max_batch_bytes, now=int(started))

    yield section("timeline")  # kdump timeline's events per minute, and around the first error
    ReadCounter.new_pass()
    from .timeline import timeline_section

    yield from timeline_section(paths, opts.max_batch_bytes, opts.kafka_version)


#: the passes over the inputs that :func:`report` starts (ReadCounter.new_pass): what a
#: progress bar's 100% is
PASSES = 5

__all__ = ["PASSES", "SECTIONS", "ReportOptions", "check_output", "report"]
