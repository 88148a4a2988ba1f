"""``kdump export``: every segment's records (or batches) to Parquet, Arrow IPC or JSON
Lines, partitioned as ``kdump spark export`` partitions them, on one machine.

Layout: ``DIR/topic=T/partition=P/<log dir>-<segment>.<ext>``, one file per segment and
log dir (``broker-<id>`` when the log dir's meta.properties names the broker, else the
log dir's name; ``-2``, ``-3`` ... when two share one), so several brokers' replicas of a
partition are files of their own, and every row says its ``log_dir`` and ``broker_id``.
Then ``DIR/_findings`` (JSON Lines: what was skipped, and why: the damaged batches, each with
file, byte position, base offset and reason) and, last, ``DIR/_manifest.json``: the
inputs read and the files written, each with its SHA-256.  An export without its
manifest is not whole (a full disk, Ctrl-C): its files are whole, but some are missing.

A segment larger than ``split_bytes`` is cut into byte ranges at batch boundaries its
``.index`` gives (:func:`kdump.files.splits.split_points`, each checked), each range a
file of its own (``<label>-<segment>-<start>.<ext>``): the same files for any ``--jobs``.
Each range is one unit of work (``--jobs`` workers write their own files); rows are
gathered into record batches of at most ``row_group_rows`` rows or ``row_group_bytes``
bytes of keys and values, each written as one Parquet row group, so memory is bounded by
the row group, not by the segment.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ... import fs as kfs
from ...custody import HashingSource, resume_digest
from ...files.logdir import refuse_not_kafka_data
from ...findings import Problem
from ...model import shape
from ...parallel import Spilled, ordered_map, pool_pays
from ...source import ReadCounter
from ...version import __version__
from .arrow import arrow_batches, keep_pandas_out
from .formats import SUFFIX, sink
from .output import OutputDir, safe_name
from .rows import (
    ReadOptions,
    Slice,
    batch_blocks,
    decoder_name,
    layout,
    plan,
    record_blocks,
)
from .rows import registry as load_registry
from .schema import PARTITION_COLUMNS, arrow_schema

DEFAULT_ROW_GROUP_ROWS = 64 * 1024
DEFAULT_ROW_GROUP_BYTES = 64 << 20
MANIFEST = "_manifest.json"
FINDINGS = "_findings"
#: Hive's name for a null partition value (a segment outside any topic-N directory)
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"


@dataclass(frozen=True)
class ExportOptions:
    """``kdump export``'s options."""

    output: str
    read: ReadOptions
    fmt: str = "parquet"
    row_group_rows: int = DEFAULT_ROW_GROUP_ROWS
    row_group_bytes: int = DEFAULT_ROW_GROUP_BYTES
    #: typed columns of decoded payloads beside the JSON ones (kdump/ops/export/typed.py)
    typed: bool = True
    #: worker processes, each writing the files of the segments it reads
    jobs: int = 1


@dataclass
class ExportedFile:
    """One file written."""

    file: str
    topic: str | None
    partition: int | None
    segment: str
    source: str
    log_dir: str
    broker_id: int | None
    rows: int
    size: int
    sha256: str
    columns: list[str] = field(default_factory=list)
    #: bytes allocated on disk to it (st_blocks x 512, as du counts them)
    disk_bytes: int | None = None

    def to_json(self) -> dict[str, Any]:
        return shape("export_file", {
            "file": self.file, "topic": self.topic, "partition": self.partition,
            "segment": self.segment, "source": self.source, "log_dir": self.log_dir,
            "broker_id": self.broker_id, "rows": self.rows, "size": self.size,
            "disk_bytes": self.disk_bytes, "sha256": self.sha256, "columns": self.columns})


@dataclass
class ExportEnd:
    """The closing object: what was written where."""

    output: str
    format: str
    level: str
    rows: int
    files: int
    segments: int
    findings: int
    manifest: str | None

    def to_json(self) -> dict[str, Any]:
        return shape("export_end", {
            "output": self.output, "format": self.format,
            "partitioned_by": list(PARTITION_COLUMNS), "level": self.level, "rows": self.rows,
            "files": self.files, "segments": self.segments, "findings": self.findings,
            "manifest": self.manifest})


@dataclass
class _SliceResult:
    file: ExportedFile | None
    problems: Any  # Spilled of Problem
    source: dict[str, Any] | None
    pid: int
    size: int


def _labels(slices: list[Slice]) -> dict[str, str]:
    """log dir -> its name in the export's file names (``broker-<id>``, else the log
    dir's own name, made unique)."""
    from .rows import slice_log_dir

    out: dict[str, str] = {}
    used: set[str] = set()
    for s in slices:
        log_dir, broker = slice_log_dir(s)
        if log_dir in out:
            continue
        base = f"broker-{broker}" if broker is not None else safe_name(
            os.path.basename(log_dir.rstrip("/")) or "logdir")
        name, n = base, 2
        while name in used:
            name, n = f"{base}-{n}", n + 1
        used.add(name)
        out[log_dir] = name
    return out


def relative_path(s: Slice, label: str, fmt: str) -> str:
    """``topic=T/partition=P/<label>-<segment>.<ext>`` (names from the disk made safe)."""
    _path, topic, partition, segment, _active, start, _end = s
    t = safe_name(topic) if topic is not None else NULL_PARTITION
    p = str(partition) if partition is not None else NULL_PARTITION
    tail = f"-{start:010d}" if start else ""
    return f"topic={t}/partition={p}/{label}-{safe_name(segment)}{tail}{SUFFIX[fmt]}"


def export(paths: Iterable[str], opts: ExportOptions) -> Iterator[Problem | ExportedFile | ExportEnd]:
    """Export every segment under ``paths`` (see the module doc); yields the problems
    met (listing, damaged batches: skipped), each file written, then the closing
    :class:`ExportEnd`."""
    paths = list(paths)
    refuse_not_kafka_data(paths)  # no dataset of a text file: exit 2, DIR untouched
    inputs = [kfs.abspath(p) for p in paths]  # URLs as given
    out = OutputDir(opts.output, inputs)
    out.check()
    try:
        yield from _export(out, inputs, opts)
    except BaseException:
        # an error, a full disk, a signal, the consumer gone: DIR is left as it was
        out.abort()
        raise


def _export(out: OutputDir, inputs: list[str], opts: ExportOptions
            ) -> Iterator[Problem | ExportedFile | ExportEnd]:
    read = ReadOptions(**{**opts.read.__dict__, "paths": tuple(inputs), "skip_damaged": True})
    opts = ExportOptions(**{**opts.__dict__, "read": read})
    keep_pandas_out()  # before the pool forks: no worker imports pandas either
    # a segment past split_bytes is read (and written) as ranges cut at batch boundaries
    # its .index gives: files of their own, so --jobs spreads one big segment over workers;
    # the same ranges for any --jobs, so the dataset does not depend on it
    slices, problems = plan(read, split=True)
    findings: list[Problem] = []
    for p in problems:
        findings.append(p)
        yield p
    if read.decoder is not None:
        load_registry(read)  # once, here: forked workers share it
    labels = _labels(slices)
    from .rows import slice_log_dir

    items = [(s, relative_path(s, labels[slice_log_dir(s)[0]], opts.fmt)) for s in slices]
    out.open(estimate_bytes(slices, opts.fmt))
    work = functools.partial(_export_slice, out, opts)
    files: list[ExportedFile] = []
    sources: list[dict[str, Any]] = []
    rows = 0
    me = os.getpid()
    # kdump's own choice of jobs starts a pool only for work that pays for one
    pool, todo = pool_pays(items, opts.jobs, _item_bytes)
    for result in ordered_map(work, todo, opts.jobs if pool else 1, lambda _: True):
        if result.pid != me:  # read by a worker: the progress bar counts it here
            ReadCounter.covered += result.size
        for p in result.problems:
            findings.append(p)
            yield p
        if result.source is not None:
            sources.append(result.source)
        if result.file is not None:
            files.append(result.file)
            rows += result.file.rows
            yield result.file
    manifest = _finish(out, opts, inputs, sources, files, findings)
    out.publish()  # the whole dataset appears at once, its manifest with it
    yield ExportEnd(opts.output, opts.fmt, read.level, rows, len(files),
                    len({s[0] for s in slices}), len(findings), manifest)


#: an export's size per byte of input, by format (Parquet and Arrow about the records'
#: bytes, JSON Lines about twice them: base64 and field names), for a full disk's message
_OUTPUT_PER_INPUT = {"parquet": 1.0, "arrow": 1.0, "jsonl": 2.0}


def estimate_bytes(slices: list[Slice], fmt: str) -> int | None:
    """About how many bytes the export of ``slices`` writes (None: unknown)."""
    total = 0
    for s in slices:
        try:
            end = s[6] if s[6] is not None else kfs.getsize(s[0])
        except OSError:
            return None
        total += end - s[5]
    return int(total * _OUTPUT_PER_INPUT.get(fmt, 1.0))


def _item_bytes(item: tuple[Slice, str]) -> int:
    try:
        return kfs.getsize(item[0][0])
    except OSError:
        return 0


def _export_slice(out: OutputDir, opts: ExportOptions, item: tuple[Slice, str]) -> _SliceResult:
    """Read one segment and write its file (a worker's unit of work)."""
    import pyarrow as pa

    from .typed import typed_columns

    s, rel = item
    read = opts.read
    if read.decoder == "auto" and decoder_name(s[1], read) == "string":
        # a plain topic: its raw key and value are the whole story (no text copies)
        read = dataclasses.replace(read, decoder=None)
    path, topic, partition, segment = s[0], s[1], s[2], s[3]
    from .rows import slice_decoder, slice_log_dir

    log_dir, broker = slice_log_dir(s)
    found: list[Problem] = []
    hashing: list[Any] = []
    decoder = slice_decoder(s, read) if read.level == "record" else None
    fields = [f for f in read.fields() if f[0] not in PARTITION_COLUMNS]
    shared_pos, rec_pos = layout(read)
    # the partition columns are in the path: their positions dropped from the layout
    names = [n for n, _ in read.fields()]
    keep = [i for i, n in enumerate(names) if n not in PARTITION_COLUMNS]
    remap = {old: new for new, old in enumerate(keep)}
    typed = typed_columns(topic, decoder, read, s) if opts.typed and decoder is not None else []
    schema = arrow_schema(fields)
    for f, _ in typed:
        schema = schema.append(f)

    def source(src: Any) -> Any | None:
        # the custody's hashing reader: the SHA-256 from the bytes read for the batches (the
        # range from byte 0 hashes the segment; the others do not hash it again)
        if s[5] != 0:
            return src
        h = HashingSource(src)
        hashing.append(h)
        return h

    if read.level == "record":
        blocks = record_blocks(s, read, found.append, decoder=decoder, keep_decoded=bool(typed),
                               source=source)
    else:
        blocks = batch_blocks(s, read, found.append, source=source)
    lay = ([remap[i] for i in shared_pos if i in remap], [remap[i] for i in rec_pos])
    # topic and partition lead the shared values (they lead the model's columns)
    drop = [j for j, i in enumerate(shared_pos) if i not in remap]
    assert drop == list(range(len(drop)))
    cut = len(drop)

    def trimmed() -> Iterator[Any]:
        for shared, cols, n, kept in blocks:
            yield shared[cut:], cols, n, kept

    extra = None
    if typed:
        def extra(held: list[Any]) -> list[Any]:
            return [build(held) for _, build in typed]

    exported: ExportedFile | None = None
    nrows = 0
    batches = arrow_batches(trimmed(), schema, lay, max_rows=opts.row_group_rows,
                            max_bytes=opts.row_group_bytes, extra=extra)
    first = next(batches, None)
    if first is not None:
        with out.staged(rel) as fh:
            w = sink(opts.fmt, fh, schema)
            try:
                w.write(first)
                nrows += first.num_rows
                del first
                for b in batches:
                    w.write(b)
                    nrows += b.num_rows
                w.close()
            except BaseException:
                w.abandon()
                raise
        exported = ExportedFile(rel, topic, partition, segment, path, log_dir, broker, nrows,
                                fh.size, fh.sha256, [f.name for f, _ in typed])
        try:
            exported.disk_bytes = kfs.getsizes(out.written_path(rel))[1]
        except OSError:
            pass
    del pa
    src: dict[str, Any] | None = None
    size = (s[6] if s[6] is not None else kfs.getsize(path)) - s[5]
    if s[5] == 0:
        sha, hashed, error = resume_digest(path, hashing[0] if hashing else None)
        src = {"file": path, "size": hashed, "sha256": sha}
        if error is not None:
            src["error"] = error
    return _SliceResult(exported, Spilled(found), src, os.getpid(), size)


def _finish(out: OutputDir, opts: ExportOptions, inputs: list[str], sources: list[dict[str, Any]],
            files: list[ExportedFile], findings: list[Problem]) -> str:
    """``_findings``, then ``_manifest.json`` (last: its presence says the export
    is whole).  Returns the manifest's path."""
    with out.staged(FINDINGS) as fh:
        for p in findings:
            fh.write((json.dumps(problem_object(p), separators=(",", ":"), ensure_ascii=False)
                      + "\n").encode("utf-8"))
    findings_entry = {"file": FINDINGS, "size": fh.size, "sha256": fh.sha256,
                      "findings": len(findings)}
    read = opts.read
    manifest = {
        "kdump_version": __version__,
        "format": opts.fmt,
        "level": read.level,
        "partitioned_by": list(PARTITION_COLUMNS),
        "inputs": inputs,
        "read": sources,
        "files": [f.to_json() for f in files],
        "findings": findings_entry,
        "rows": sum(f.rows for f in files),
    }
    with out.staged(MANIFEST) as fh:
        fh.write((json.dumps(manifest, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    return os.path.join(opts.output, MANIFEST)


def problem_object(p: Problem) -> dict[str, Any]:
    """A finding as every command's JSON Lines write it (kdump/render/jsonl.py)."""
    obj = shape("problem", {"file": p.path, "position": p.position, "kind": p.kind,
                            "severity": p.severity, "detail": p.detail,
                            "base_offset": p.base_offset, "length": p.length})
    for k, v in (p.extra or {}).items():
        obj.setdefault(k, v)
    return obj
