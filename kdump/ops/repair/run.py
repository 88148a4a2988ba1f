"""``kdump repair``'s run: the plan, each log dir and partition copied into the staging
directory, every input hashed before (as it is read) and after (read again once the copy
is written), the manifest written as the objects come and moved into DIR last."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ...custody import HashingSource, file_digest, utc_iso
from ...errors import UsageError
from ...model import shape
from ...output import inside
from ...records.v2 import DEFAULT_MAX_BATCH_BYTES
from ...source import FileSource
from ...version import __version__
from ..verdict import CleanupPolicies
from .absent import absent_objects, is_damage
from .fill import check_replicas
from .logdir import CLEANER, LogDirContext, lone_cleaner_checkpoint, read_context, root_files
from .partition import DAMAGED, intact_log, repair_partition
from .plan import PartitionInput, RepairPlan, plan_repair
from .staging import MANIFEST, Output, Stage, input_bytes
from .topic_ids import TopicIds


@dataclass(slots=True)
class RepairOptions:
    into: str
    dry_run: bool = False
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
    #: None: inferred per partition from the input's .index files
    index_interval_bytes: int | None = None
    #: other brokers' log dirs a dropped range is filled from (``--replica``)
    replicas: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Seen:
    size: int | None
    mtime_ns: int | None
    sha: str | None


@dataclass
class InputHashes:
    """Every input file's SHA-256 as it was read (a log's from the same read as its
    batches), size and modification time."""

    seen: dict[str, _Seen] = field(default_factory=dict)
    _readers: dict[str, HashingSource] = field(default_factory=dict)

    def _stat(self, path: str) -> tuple[int | None, int | None]:
        try:
            st = os.stat(path)
        except OSError:
            return None, None
        return st.st_size, st.st_mtime_ns

    def before(self, path: str) -> None:
        if path in self.seen:
            return
        size, mtime = self._stat(path)
        sha, _, _ = file_digest(path)
        self.seen[path] = _Seen(size, mtime, sha)

    def reader_source(self, path: str, src: FileSource) -> HashingSource:
        h = HashingSource(src)
        self._readers[path] = h
        return h

    def finish_reader(self, path: str) -> None:
        h = self._readers.pop(path)
        size, mtime = self._stat(path)
        sha, _, _ = h.digest()
        self.seen[path] = _Seen(size, mtime, sha)

    def objects(self) -> Iterator[dict[str, Any]]:
        for path in sorted(self.seen):
            b = self.seen[path]
            size, mtime = self._stat(path)
            sha, _, _ = file_digest(path)
            yield shape("repair_input", {
                "file": path, "size": b.size,
                "modified": None if b.mtime_ns is None else utc_iso(b.mtime_ns / 1e6),
                "sha256_before": b.sha, "sha256_after": sha,
                "unchanged": sha is not None and sha == b.sha and size == b.size
                and mtime == b.mtime_ns})


class Repair:
    """The run, as an iterator of the manifest's objects; :meth:`close` (also on Ctrl-C
    or an error) removes a copy that did not complete."""

    def __init__(self, paths: list[str], opts: RepairOptions,
                 plan: RepairPlan | None = None) -> None:
        self.paths = paths
        self.opts = opts
        #: the topics' cleanup.policy from the KRaft metadata among the inputs (a gap
        #: between batches of a delete-policy topic is lost, a compacted one's may not be),
        #: and its partition assignments (a gone directory deleted or moved away)
        self.policies = CleanupPolicies.for_inputs(
            [p for p in paths if "://" not in p], (), opts.max_batch_bytes)
        self.plan = plan if plan is not None else plan_repair(
            paths, opts.into, self.policies.metadata if self.policies is not None else None,
            opts.replicas)
        self.replicas = check_replicas(
            opts.replicas, [*(ld.path for ld in self.plan.logdirs),
                            *(p.log_dir for p in self.plan.partitions)], opts.into)
        for r in opts.replicas:
            for p in paths:
                real_r, real_p = os.path.realpath(r), os.path.realpath(p)
                if inside(real_r, [real_p]) or inside(real_p, [real_r]):
                    raise UsageError(f"--replica {r} overlaps the input {p}: give another "
                                     "broker's log dir")
        # what the copy takes: the partitions and root files it copies (kdump/output.py)
        self.stage = Stage(opts.into, opts.dry_run, needed=None if opts.dry_run else input_bytes(
            [*(p.path for p in self.plan.all_partitions()),
             *(f for d in self.plan.logdirs for f in d.root_files)]))
        self.hashes = InputHashes()
        #: a gone partition directory's topic id (recreated only with it)
        self.topic_ids = TopicIds([*(ld.path for ld in self.plan.logdirs),
                                   *(r.path for r in self.replicas)], opts.max_batch_bytes,
                                  on_read=self.hashes.before)
        self._manifest: Output | None = None
        self._done = False
        self.totals = _Totals()
        self._gen = self._run()

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return self

    def __next__(self) -> dict[str, Any]:
        return next(self._gen)

    @property
    def clean(self) -> bool | None:
        """The run's verdict, its exit status: True when it ended with nothing dropped
        (zeros preallocated at the end of an active segment aside), False when damage was
        found and repaired around, None while it has not ended (an error, Ctrl-C).  The
        manifest's ``repair_end`` says the same (``clean``)."""
        return not self.totals.dirty if self._done else None

    def close(self) -> None:
        self._gen.close()
        if not self._done:
            if self._manifest is not None:
                self._manifest.discard()
            self.stage.abort()

    def _emit(self, obj: dict[str, Any]) -> dict[str, Any]:
        self.totals.seen(obj)
        if self._manifest is not None:
            self._manifest.write((json.dumps(obj, separators=(",", ":")) + "\n").encode())
        return obj

    def _run(self) -> Generator[dict[str, Any], None, None]:
        opts = self.opts
        try:
            self.stage.open()
            if not opts.dry_run:
                self._manifest = self.stage.create(MANIFEST)
            yield self._emit(shape("repair", {
                "kdump_version": __version__, "into": opts.into, "dry_run": opts.dry_run,
                "inputs": list(self.paths), "replicas": list(opts.replicas),
                "started": utc_iso(time.time() * 1000)}))
            totals = self.totals
            for r in self.replicas:  # read for its cluster.id and node.id: evidence too
                self.hashes.before(os.path.join(r.path, "meta.properties"))
            for ld in self.plan.logdirs:
                ctx = read_context(ld.path)
                for f in ld.root_files:
                    self.hashes.before(f)
                for a in ld.absent:  # another replica's files proving offsets written here
                    for w in a.written.witnesses if a.written is not None else ():
                        for f in sorted(os.listdir(w.path)) if os.path.isdir(w.path) else ():
                            if os.path.isfile(os.path.join(w.path, f)):
                                self.hashes.before(os.path.join(w.path, f))
                parts: list[dict[str, Any]] = []
                for pin in ld.partitions:
                    for obj in self._partition(pin, ctx, ""):
                        if obj["type"] == "repair_partition" and pin.name.state is None:
                            parts.append(obj)
                        yield self._emit(obj)
                for path, why in ld.skipped:
                    yield self._emit(shape("repair_file", {
                        "file": path, "output": None, "action": "left-out", "detail": why,
                        "size": None, "sha256": None}))
                # replicas assigned here with no directory: named, no directory made
                # unless offsets were proved written on them (then among the partitions)
                for obj in absent_objects(ld.absent, self.replicas,
                                          {(o["topic"], o["partition"]): o for o in parts}):
                    yield self._emit(obj)
                self.stage.mkdir(ld.target)
                for obj in root_files(ctx, ld.root_files, parts, ld.target, self.stage,
                                      lambda p: intact_log(p, opts.max_batch_bytes)):
                    yield self._emit(obj)
            lone: list[tuple[LogDirContext | None, dict[str, Any]]] = []
            for pin in self.plan.partitions:
                pctx = read_context(pin.log_dir) if pin.log_dir is not None else None
                assumed = "" if pctx is not None else (
                    "assumed: no log dir beside it to say the recovery point or a clean shutdown")
                if pin.log_dir is not None and os.path.isfile(os.path.join(pin.log_dir, CLEANER)):
                    self.hashes.before(os.path.join(pin.log_dir, CLEANER))
                for obj in self._partition(pin, pctx, assumed):
                    if obj["type"] == "repair_partition" and pin.name.state is None:
                        lone.append((pctx, obj))
                    yield self._emit(obj)
            # beside them, the input's cleaner-offset-checkpoint (the cleanup-policy evidence)
            entry = lone_cleaner_checkpoint(lone, self.stage) if lone else None
            if entry is not None:
                yield self._emit(entry)
            for obj in self.hashes.objects():
                yield self._emit(obj)
            if not opts.dry_run:
                self.stage.commit_data()
            end = shape("repair_end", {
                "into": opts.into, "dry_run": opts.dry_run, "partitions": totals.partitions,
                "damaged_partitions": totals.damaged, "batches": totals.batches,
                "records": totals.records, "regions_dropped": totals.regions,
                "bytes_dropped": totals.bytes_dropped, "saved_batches": totals.saved_batches,
                "saved_records": totals.saved_records, "saved_bytes": totals.saved_bytes,
                "inputs": totals.inputs, "inputs_unchanged": totals.unchanged,
                "outputs": totals.outputs, "filled_batches": totals.filled,
                "reserved_partitions": totals.reserved, "absent_replicas": totals.absent,
                "manifest": None if opts.dry_run else MANIFEST,
                "complete": not opts.dry_run, "clean": not totals.dirty})
            self._emit(end)
            if self._manifest is not None:
                self.stage.finish(self._manifest)
                self._manifest = None
                self.stage.commit_manifest()
            self._done = True
            yield end
        except BaseException:
            if not self._done:
                if self._manifest is not None:
                    self._manifest.discard()
                    self._manifest = None
                self.stage.abort()
            raise

    def _partition(self, pin: PartitionInput, ctx: LogDirContext | None, assumed: str
                   ) -> Iterator[dict[str, Any]]:
        return repair_partition(pin, ctx, self.stage, self.hashes,
                                max_batch_bytes=self.opts.max_batch_bytes,
                                interval_option=self.opts.index_interval_bytes, assumed=assumed,
                                replicas=self.replicas, policies=self.policies,
                                topic_ids=self.topic_ids)


@dataclass(slots=True)
class _Totals:
    partitions: int = 0
    damaged: int = 0
    batches: int = 0
    records: int = 0
    regions: int = 0
    bytes_dropped: int = 0
    saved_batches: int = 0
    saved_records: int = 0
    saved_bytes: int = 0
    inputs: int = 0
    unchanged: bool = True
    outputs: int = 0
    dirty: bool = False
    filled: int = 0
    reserved: int = 0
    absent: int = 0
    #: the partition being read has dropped a region that is damage (not info)
    _damaged: bool = False

    def seen(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if kind == "repair_partition":
            self.partitions += 1
            self.damaged += self._damaged or obj["data_lost"] or bool(obj["filled_offsets"])
            self._damaged = False
            # offsets written that the copy holds no batch of: lost, even with no region
            # to drop (a .log gone, a segment gone from the middle)
            self.dirty = self.dirty or obj["data_lost"]
            self.batches += obj["batches"]
            self.records += obj["records"]
            self.regions += obj["regions_dropped"]
            self.bytes_dropped += obj["bytes_dropped"]
            self.saved_batches += obj["saved_batches"]
            self.saved_records += obj["saved_records"]
            self.saved_bytes += obj["saved_bytes"]
            self.reserved += obj["reserved_offsets"] is not None
        elif kind == "repair_fill":
            # offered only offsets the input lost: damage found, even when all filled
            self.dirty = True
            self.filled += obj["batches"] if obj["filled"] else 0
        elif kind == "repair_dropped":
            # zeros preallocated or a batch in flight past every witness: not damage
            self._damaged = self._damaged or obj["severity"] != "info"
            self.dirty = self.dirty or obj["severity"] != "info"
        elif kind == "repair_file":
            if obj["output"] is not None:
                self.outputs += 1
            elif obj["detail"].startswith(DAMAGED):
                self.dirty = True
        elif kind == "repair_absent":
            # the log dir's verdict: a warning or data lost is the one exit rule's 1
            self.absent += 1
            self.dirty = self.dirty or is_damage(obj)
        elif kind == "repair_input":
            self.inputs += 1
            self.unchanged = self.unchanged and bool(obj["unchanged"])


class _NoHashes(InputHashes):
    """The report hashes the inputs itself (its custody section): no second hash here."""

    def before(self, path: str) -> None:
        return

    def finish_reader(self, path: str) -> None:
        self._readers.pop(path, None)


def what_repair_would_do(partition_dirs: list[str], max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
                         ) -> Iterator[dict[str, Any]]:
    """For the report's findings: per partition directory, what ``kdump repair --dry-run``
    would keep and drop (its repair_dropped objects, then its repair_partition), computed by
    the same code with nothing written.  Directories that are not partitions are passed
    over."""
    from ...files.logdir import parse_partition_dir
    from ..verdict import judge_log_dir
    from .plan import is_partition_dir, parent_logdir

    stage = Stage("", dry_run=True)
    for d in sorted(set(partition_dirs)):
        base = os.path.basename(os.path.normpath(d))
        logdir = parent_logdir(d)
        missing = None
        if not os.path.isdir(d):  # gone while its log dir's checkpoints name it
            missing = next((m for m in (judge_log_dir(logdir).missing if logdir else ())
                            if m.data_lost and os.path.normpath(m.directory) ==
                            os.path.normpath(os.path.abspath(d))), None)
            if missing is None:
                continue
            name = parse_partition_dir(base)
        else:
            name = is_partition_dir(d)
        if name is None or parse_partition_dir(base) is None:
            continue
        pin = PartitionInput(d, base, name, logdir, in_logdir=logdir is not None,
                             missing=missing)
        ctx = read_context(logdir) if logdir is not None else None
        ids = TopicIds([logdir] if logdir is not None else [], max_batch_bytes)
        for obj in repair_partition(pin, ctx, stage, _NoHashes(), max_batch_bytes=max_batch_bytes,
                                    interval_option=None, assumed="" if ctx else
                                    "assumed: no log dir beside it", topic_ids=ids):
            if obj["type"] in ("repair_dropped", "repair_partition"):
                yield obj


def what_repair_would_do_absent(log_dirs: list[str], others: list[str], metadata: Any,
                                max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
                                ) -> Iterator[dict[str, Any]]:
    """For the report's findings: per log dir, the replicas the KRaft metadata
    (``metadata``, the image's configs and placements verify-crc judged with) assigns to
    its broker with no directory there, as ``kdump repair --dry-run`` names them: a
    ``repair_absent`` each, and for one with offsets proved written on it, its
    recreation's repair_dropped and repair_partition first (``others``: every log dir
    given, as the verdict is judged)."""
    from ..verdict import judge_log_dir
    from .plan import recreated_absent

    stage = Stage("", dry_run=True)
    for logdir in sorted(set(log_dirs)):
        v = judge_log_dir(logdir, [o for o in others if o != logdir], metadata=metadata)
        if not v.absent:
            continue
        ctx = read_context(logdir)
        ids = TopicIds([logdir], max_batch_bytes)
        parts: dict[tuple[str, int], dict[str, Any]] = {}
        for pin in recreated_absent(v.log_dir, v.absent):
            for obj in repair_partition(pin, ctx, stage, _NoHashes(),
                                        max_batch_bytes=max_batch_bytes, interval_option=None,
                                        assumed="", topic_ids=ids):
                if obj["type"] == "repair_partition":
                    parts[(obj["topic"], obj["partition"])] = obj
                if obj["type"] in ("repair_dropped", "repair_partition"):
                    yield obj
        yield from absent_objects(list(v.absent), [], parts)


def with_repair_plans(findings: Iterable[Any], max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
                      inputs: Iterable[str] = (), metadata: Any = None) -> Iterator[Any]:
    """verify-crc's objects as they come, then :func:`what_repair_would_do` for each local
    partition directory they found damage in (``kdump report``'s findings): a damaged log,
    or offsets lost with no log to blame (``data-lost`` on the partition directory: a
    segment gone from the middle, a ``.log`` gone); then, for the log dirs where they
    found a replica the KRaft metadata assigns with no directory (``assigned-absent``,
    or ``data-lost`` where offsets are proved written on it),
    :func:`what_repair_would_do_absent` (``inputs``: the paths given, ``metadata``: the
    image verify-crc was given)."""
    from ...files.logdir import parse_partition_dir
    from ...findings import Problem
    from ..verdict import log_dirs_of

    damaged: set[str] = set()
    absent_in: set[str] = set()
    for found in findings:
        if isinstance(found, Problem) and found.path and "://" not in found.path:
            named = parse_partition_dir(os.path.basename(os.path.normpath(found.path)))
            if found.kind in ("assigned-absent", "data-lost") and named is not None \
                    and not os.path.isdir(found.path):
                absent_in.add(os.path.dirname(os.path.normpath(found.path)))
            if found.severity != "info" and found.path.endswith(".log"):
                damaged.add(os.path.dirname(found.path))
            elif found.severity != "info" and found.kind == "data-lost" and named is not None:
                # the partition directory itself (a segment gone), or where it was
                damaged.add(os.path.normpath(found.path))
        yield found
    yield from what_repair_would_do(sorted(damaged), max_batch_bytes)
    if absent_in and metadata is not None:
        yield from what_repair_would_do_absent(sorted(absent_in), log_dirs_of(list(inputs)),
                                               metadata, max_batch_bytes)


__all__ = ["InputHashes", "Repair", "RepairOptions", "what_repair_would_do",
           "what_repair_would_do_absent", "with_repair_plans"]
