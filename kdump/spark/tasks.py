"""The work Spark executors do for ``kdump spark size-report`` and ``verify-crc``, and
how it is cut into tasks.  Plain Python (no pyspark import): each task receives a
few file names, opens the files itself and reads them in chunks with kdump's own
readers (:class:`~kdump.records.file_records.LogReader` over a
:class:`~kdump.source.FileSource`), and sends back small results only: one
:class:`~kdump.ops.size_report.SizeRow` per file, or the file's problems and counts.

Everything that crosses the wire is a tuple or a dict of plain values (no kdump
classes), so a driver and an executor only need the same kdump version.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .. import fs as kfs
from ..files.logdir import KafkaFile
from ..findings import Problem
from ..ops.size_report import CodecStats, SizeOptions, SizeRow, file_row
from ..ops.verify_crc import FileResult, VerifyOptions, verify_log

#: a file as sent to an executor: KafkaFile's fields, in order
FileWire = tuple[Any, ...]
#: one unit of work: (sequence number in the walk, file)
Item = tuple[int, FileWire]

#: aim for tasks of about this many bytes when there are many small files
TASK_BYTES = 128 << 20


# --- wire formats ------------------------------------------------------------------------
_FILE_FIELDS = tuple(f.name for f in dataclasses.fields(KafkaFile))
_PROBLEM_FIELDS = tuple(f.name for f in dataclasses.fields(Problem))


def file_to_wire(f: KafkaFile) -> FileWire:
    return tuple(getattr(f, name) for name in _FILE_FIELDS)


def file_from_wire(t: FileWire) -> KafkaFile:
    return KafkaFile(*t)


def problem_to_wire(p: Problem) -> dict[str, Any]:
    return {name: getattr(p, name) for name in _PROBLEM_FIELDS}


def problem_from_wire(d: dict[str, Any]) -> Problem:
    return Problem(**d)


def row_to_wire(r: SizeRow) -> dict[str, Any]:
    d = {f.name: getattr(r, f.name) for f in dataclasses.fields(SizeRow)}
    d["producer_ids"] = sorted(r.producer_ids)
    d["codecs"] = {k: (c.batches, c.stored_bytes, c.uncompressed_bytes) for k, c in r.codecs.items()}
    # the judged tails (kdump.ops.verdict) travel as plain problems
    d["tails"] = [(problem_to_wire(p), active) for p, active in r.tails]
    d["gaps"] = [list(g) for g in r.gaps]
    return d


def row_from_wire(d: dict[str, Any]) -> SizeRow:
    d = dict(d)
    d["producer_ids"] = set(d["producer_ids"])
    d["codecs"] = {k: CodecStats(*v) for k, v in d["codecs"].items()}
    d["tails"] = [(problem_from_wire(p), bool(active)) for p, active in d.get("tails", [])]
    d["gaps"] = [(int(a), int(b)) for a, b in d.get("gaps", [])]
    return SizeRow(**d)


def result_to_wire(r: FileResult) -> dict[str, Any]:
    return dataclasses.asdict(r)


def result_from_wire(d: dict[str, Any]) -> FileResult:
    d = dict(d)
    d["gaps"] = [(int(a), int(b)) for a, b in d.get("gaps", [])]
    return FileResult(**d)


def size_options_to_wire(o: SizeOptions) -> tuple[Any, ...]:
    # the cleanup policies stay on the driver; what they decide for each partition
    # travels (the compacted partition directories: kdump.ops.verdict.compacted_dirs)
    return (o.by, o.top, o.deep, o.max_batch_bytes, None, o.compacted)


def verify_options_to_wire(o: VerifyOptions) -> tuple[Any, ...]:
    return (o.deep, o.max_batch_bytes, o.resync, None, o.compacted)


# --- cutting the work into tasks ---------------------------------------------------------
def _size(path: str) -> int:
    try:
        return kfs.getsize(path)
    except OSError:
        return 0


def segment_groups(items: Iterable[tuple[int, KafkaFile]]) -> list[list[Item]]:
    """Files grouped by segment (a .log with its indexes and snapshot), in walk order;
    files that belong to no segment (checkpoints, partition.metadata) go together per
    directory."""
    groups: dict[tuple[str, int | None], list[Item]] = {}
    for seq, f in items:
        key = (os.path.dirname(f.path), f.base_offset)
        groups.setdefault(key, []).append((seq, file_to_wire(f)))
    return list(groups.values())


def pack(groups: Sequence[list[Item]], parallelism: int,
         task_bytes: int = TASK_BYTES) -> list[list[Item]]:
    """Spread the groups over tasks, longest first onto the least loaded task (LPT).

    One task per group when there are few; with many small segments, about
    ``task_bytes`` per task but never fewer than four tasks per core, so every core
    stays busy and one straggler cannot hold the job for long.
    """
    if not groups:
        return []
    weights = [sum(_size(file_from_wire(f).path) for _, f in g) for g in groups]
    total = sum(weights)
    n = min(len(groups), max(4 * max(parallelism, 1), math.ceil(total / task_bytes)))
    if n >= len(groups):
        return [list(g) for g in groups]
    heap = [(0, i) for i in range(n)]
    tasks: list[list[Item]] = [[] for _ in range(n)]
    for w, g in sorted(zip(weights, groups, strict=True), key=lambda wg: -wg[0]):
        load, i = heapq.heappop(heap)
        tasks[i].extend(g)
        heapq.heappush(heap, (load + w, i))
    return [sorted(t) for t in tasks if t]


# --- what an executor runs ---------------------------------------------------------------
def in_dir(cwd: str | None, fn: Callable[..., Any], task: list[Item], opts: tuple[Any, ...]) -> Any:
    """Run a task from the driver's working directory, so relative paths given on the
    command line name the same files (and show the same way) as in the local command.
    A Python worker runs one task at a time, so changing its directory is safe."""
    if cwd is None:
        return fn(task, opts)
    old = os.getcwd()
    try:
        os.chdir(cwd)
    except OSError:
        return fn(task, opts)
    try:
        return fn(task, opts)
    finally:
        os.chdir(old)


def size_task(task: list[Item], opts: tuple[Any, ...]) -> list[tuple[int, Any, list[Any]]]:
    """:func:`~kdump.ops.size_report.file_row` of each file: (seq, row, problems)."""
    o = SizeOptions(*opts)
    out = []
    for seq, wire in task:
        row, problems = file_row(file_from_wire(wire), o)
        out.append((seq, None if row is None else row_to_wire(row),
                    [problem_to_wire(p) for p in problems]))
    return out


def verify_task(task: list[Item], opts: tuple[Any, ...]) -> list[tuple[int, Any, list[Any]]]:
    """:func:`~kdump.ops.verify_crc.verify_log` of each log: (seq, file result, problems)."""
    o = VerifyOptions(*opts)
    out = []
    for seq, wire in task:
        f = file_from_wire(wire)
        result = FileResult(f.path)
        problems = [problem_to_wire(p) for p in verify_log(f, o, result)]
        result.problems = len(problems)
        out.append((seq, result_to_wire(result), problems))
    return out


def timeline_task(task: list[tuple[str, list[tuple[str, str, int, str, bool]]]],
                  opts: tuple[Any, ...]) -> list[tuple[str, dict[str, Any]]]:
    """kdump timeline's reading of partitions (``"p"``: a partition's replicas, read
    together for their truncations) and coordinator partitions (``"c"``), each named by
    (path, topic, partition, log dir, compacted): ``(kind, {path: ReplicaResult})``."""
    from ..ops.compare_replicas import Replica, read_logdir
    from ..ops.timeline import WitnessContext, read_coordinator, read_partition

    max_batch_bytes, kafka_version, log_dirs = opts
    context = WitnessContext(None, list(log_dirs),
                             {w[0]: w[4] for _kind, wires in task for w in wires})
    logdirs: dict[str, Any] = {}

    def replica(path: str, topic: str, partition: int, log_dir: str, _compacted: bool
                ) -> Replica:
        if log_dir not in logdirs:
            logdirs[log_dir] = read_logdir(log_dir)
        return Replica(path, topic, partition, logdirs[log_dir])

    out: list[tuple[str, dict[str, Any]]] = []
    for kind, wires in task:
        reps = [replica(*w) for w in wires]
        if kind == "c":
            out.append((kind, {reps[0].path: read_coordinator(reps[0], max_batch_bytes,
                                                              kafka_version)}))
        else:
            out.append((kind, dict(read_partition(reps, max_batch_bytes, context))))
    return out
