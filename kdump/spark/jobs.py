"""The driver side of ``kdump spark size-report``, ``verify-crc`` and ``export``.

The driver walks the paths (:func:`kdump.files.logdir.walk`, names only), cuts the
files into tasks (:mod:`kdump.spark.tasks`), and Spark runs the tasks on executors,
which open and read the files themselves.  Back come per-file results only (a
SizeRow, a FileResult, problems as dicts); the driver replays them in walk order
through the very steps the local commands use (:class:`~kdump.ops.size_report.SizeTotals`,
:class:`~kdump.ops.verify_crc.Summary`), so the output is the local command's, object for
object.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from .. import fs as kfs
from ..files.logdir import KafkaFile, walk
from ..findings import INFO, Problem
from ..model import shape
from ..ops.size_report import SizeOptions, SizeRow, SizeTotals
from ..ops.verdict import LostTracker, compacted_dirs
from ..ops.verify_crc import LOG_KINDS, FileResult, Summary, VerifyOptions, summarize
from .session import KdumpSpark
from .tasks import (
    Item,
    file_to_wire,
    in_dir,
    pack,
    problem_from_wire,
    result_from_wire,
    row_from_wire,
    segment_groups,
    size_options_to_wire,
    size_task,
    verify_options_to_wire,
    verify_task,
)


def _run(ks: KdumpSpark, what: str, groups: list[list[Item]], fn: Callable[..., Any],
         opts: tuple[Any, ...], relative: bool) -> dict[int, Any]:
    """Run ``fn`` over the groups on the executors; results by walk sequence number."""
    sc = ks.sc
    tasks = pack(groups, sc.defaultParallelism)
    if not tasks:
        return {}
    sc.setJobDescription(f"kdump {what}: {sum(len(t) for t in tasks)} files in {len(tasks)} tasks")
    work = functools.partial(in_dir, os.getcwd() if relative else None, fn, opts=opts)
    out = sc.parallelize(tasks, len(tasks)).flatMap(work).collect()
    return {seq: rest for seq, *rest in out}


def _walked(paths: Iterable[str]) -> tuple[list[KafkaFile | Problem], bool]:
    walked = list(walk(paths))
    relative = any(isinstance(i, KafkaFile) and not os.path.isabs(i.path) and not kfs.is_url(i.path)
                   for i in walked)
    return walked, relative


def size_report(ks: KdumpSpark, paths: Iterable[str], opts: SizeOptions) -> Iterator[SizeRow | Problem]:
    """:func:`kdump.ops.size_report.size_report`, with the files read on executors."""
    paths = list(paths)
    walked, relative = _walked(paths)
    files = [(seq, item) for seq, item in enumerate(walked)
             if isinstance(item, KafkaFile) and item.topic is not None]
    opts = _judged(opts, [f for _s, f in files])
    results = _run(ks, "size-report", segment_groups(files), size_task,
                   size_options_to_wire(opts), relative)
    totals = SizeTotals(opts)
    for seq, item in enumerate(walked):
        if isinstance(item, Problem):
            if item.severity != INFO:
                yield item
            continue
        if item.topic is None:
            continue
        row, problems = results[seq]
        for p in problems:
            found = problem_from_wire(p)
            if found.kind == "unreadable-file" and found.path:
                totals.unreadable.add(kfs.dirname(kfs.abspath(found.path)))
            yield found
        if row is not None:
            totals.add(row_from_wire(row))
    yield from totals.judge_lost(paths)  # the witnesses, read on the driver
    yield from totals.rows()


Opts = TypeVar("Opts", SizeOptions, VerifyOptions)


def _judged(opts: Opts, files: list[KafkaFile]) -> Opts:
    """``opts`` with each partition's cleanup policy decided here, on the driver, which
    read the policies (--config, the KRaft metadata among the inputs): the executors are
    given the compacted partition directories, so they look for gaps where the local
    command does (without policies they judge as the local command does without)."""
    if opts.policies is None:
        return opts
    return replace(opts, compacted=compacted_dirs(files, opts.policies))


def verify_crc(ks: KdumpSpark, paths: Iterable[str],
               opts: VerifyOptions) -> Iterator[Problem | FileResult | Summary]:
    """:func:`kdump.ops.verify_crc.verify_crc`, with the logs read on executors (the
    partitions' witnesses read on the driver, as the walk is)."""
    paths = list(paths)
    walked, relative = _walked(paths)
    groups = [[(seq, file_to_wire(item))] for seq, item in enumerate(walked)
              if isinstance(item, KafkaFile) and item.kind in LOG_KINDS]
    opts = _judged(opts, [i for i in walked if isinstance(i, KafkaFile)])
    results = _run(ks, "verify-crc", groups, verify_task,
                   verify_options_to_wire(opts), relative)
    def items() -> Iterator[object]:
        for seq, item in enumerate(walked):
            if isinstance(item, KafkaFile) and item.kind in LOG_KINDS:
                wire_result, problems = results[seq]
                yield map(problem_from_wire, problems), result_from_wire(wire_result)
            else:
                yield item

    yield from summarize(items(), Summary("verify-crc"), LostTracker(paths, opts.policies))


@dataclass(slots=True)
class ExportResult:
    """The closing object of ``kdump spark export``."""

    output: str
    level: str
    rows: int
    segments: int
    tasks: int

    def to_json(self) -> dict[str, Any]:
        return shape("export", {"output": self.output, "format": "parquet",
                "partitioned_by": ["topic", "partition"], "level": self.level,
                "rows": self.rows, "segments": self.segments, "tasks": self.tasks})


def export(ks: KdumpSpark, paths: Iterable[str], output: str, *, options: dict[str, str],
           mode: str = "errorifexists") -> Iterator[Problem | ExportResult]:
    """Records (or batches) of every segment under ``paths`` to Parquet under ``output``,
    partitioned by topic and partition, through the ``kafka_log`` data source."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    from .segments import parse_options, plan

    abs_paths = [kfs.abspath(p) for p in paths]  # URLs as given
    opts = dict(options)
    opts["paths"] = _json_list(abs_paths)
    read_opts = parse_options(opts)
    slices, problems = plan(read_opts)
    yield from problems
    if any(p.kind == "unreadable-file" and p.severity == "error" for p in problems):
        opts["ignore_unreadable"] = "true"  # said above; export what can be read
    segments = len({s[0] for s in slices})
    if not slices:
        yield ExportResult(output, read_opts.level, 0, 0, 0)  # nothing written
        return
    df = ks.spark.read.format("kafka_log").options(**opts).load()
    obs = Observation("kdump-export")
    df = df.observe(obs, F.count(F.lit(1)).alias("rows"))
    ks.sc.setJobDescription(f"kdump export: {segments} segments to {output}")
    df.write.mode(mode).partitionBy("topic", "partition").parquet(output)
    rows = int(obs.get.get("rows", 0))
    yield ExportResult(output, read_opts.level, rows, segments, len(slices))


def timeline(ks: KdumpSpark, paths: Iterable[str], opts: Any) -> Iterator[Any]:
    """:func:`kdump.ops.timeline.timeline`, with the partitions' replicas and the
    coordinator partitions read on executors (each partition's replicas in one task, so
    its truncations are judged there), the metadata log replayed and every stream merged
    on the driver: the same events as the local command."""
    from ..ops.timeline import ReplicaResult
    from ..ops.timeline import timeline as local_timeline
    from .tasks import timeline_task

    paths = list(paths)
    relative = any(not os.path.isabs(p) and not kfs.is_url(p) for p in paths)

    def reader(jobs: list[list[Any]], coordinators: list[Any], context: Any
               ) -> tuple[dict[str, ReplicaResult], dict[str, ReplicaResult]]:
        # whether each partition is compacted is judged here (the policies come from the
        # metadata log the driver reads), shipped as a flag with the log dirs given
        items = [("p", [(r.path, r.topic, r.partition, r.log_dir,
                         context.compacted(r.path, r.topic, r.partition)) for r in job])
                 for job in jobs]
        items += [("c", [(r.path, r.topic, r.partition, r.log_dir, True)])
                  for r in coordinators]
        replicas: dict[str, ReplicaResult] = {}
        coords: dict[str, ReplicaResult] = {}
        if not items:
            return replicas, coords
        sc = ks.sc
        n = min(len(items), 4 * max(sc.defaultParallelism, 1))
        tasks = [items[i::n] for i in range(n)]
        sc.setJobDescription(f"kdump timeline: {len(items)} partitions in {n} tasks")
        work = functools.partial(in_dir, os.getcwd() if relative else None, timeline_task,
                                 opts=(opts.max_batch_bytes, opts.kafka_version,
                                       context.log_dirs))
        for kind, results in sc.parallelize(tasks, n).flatMap(work).collect():
            (coords if kind == "c" else replicas).update(results)
        return replicas, coords

    yield from local_timeline(paths, opts, reader=reader)


def _json_list(items: list[str]) -> str:
    import json

    return json.dumps(items)
