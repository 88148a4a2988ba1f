"""Segments as rows: the planning and reading behind the ``kafka_log`` data source.

Plain Python and pyarrow (no pyspark import), so it runs and is tested without Spark.

Planning (on the driver): the walker lists the ``.log`` segments; each becomes one
input partition, and a segment larger than ``split_bytes`` is cut into byte ranges at
batch boundaries taken from its offset index (an ``.index`` entry holds the position
where a batch starts).  Every boundary is checked before it is used: an intact batch
(checksum included) must start there; a segment with no usable index stays whole.

Reading (on an executor): a range ``[start, end)`` is read from ``start`` with kdump's
:class:`~kdump.records.file_records.LogReader`, chunk by chunk, and yields the batches
whose first byte lies in the range.  Since every boundary is a real batch start, the
batch chain from a boundary is the same chain a whole-file read frames, so each batch
(and each record) belongs to exactly one range.  Damage is skipped as the local
commands skip it (the reader resynchronises at the next intact batch).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .. import fs as kfs
from .. import layouts as L
from ..decoders import INTERNAL, JAVA_CLASSES, SIMPLE, TOPIC_DECODERS, KeyValueDecoder, Releases
from ..decoders.base import PayloadDecoder
from ..decoders.redact import holds_metadata, redact_record, shown
from ..decoders.release import log_dir_of
from ..errors import KdumpError
from ..files.logdir import KafkaFile, walk
from ..files.splits import split_points
from ..findings import INFO, Problem
from ..model import spark_fields
from ..records.batch import Batch
from ..records.file_records import LogReader
from ..records.v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch
from ..source import FileSource

DEFAULT_SPLIT_BYTES = 128 << 20

#: the columns, from the output model (kdump.model.SPARK_COLUMNS)
RECORD_FIELDS = spark_fields("record")
BATCH_FIELDS = spark_fields("batch")
VERIFY_FIELDS = spark_fields("verify")
DECODER_FIELDS = spark_fields("decoder")

LEVELS = ("record", "batch")


@dataclass(frozen=True)
class ReadOptions:
    """The data source's options, parsed and checked."""

    paths: tuple[str, ...]
    level: str = "record"
    decoder: str | None = None
    verify: bool = False
    split_bytes: int = DEFAULT_SPLIT_BYTES
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
    topics: tuple[str, ...] | None = None
    all_files: bool = False
    ignore_unreadable: bool = False
    #: where else the schema registry's schemas are (``schemas`` option, comma-separated)
    schemas: tuple[str, ...] = ()
    #: the registry's topic (``schemas_topic``)
    schemas_topic: str = "_schemas"
    #: ``kafka_version``: the release whose layouts internal topics are decoded with
    #: (None: each log dir's metadata.version, else the layout that fits)
    kafka_version: str | None = None

    def fields(self) -> list[tuple[str, str]]:
        out = list(RECORD_FIELDS if self.level == "record" else BATCH_FIELDS)
        if self.verify:
            out += VERIFY_FIELDS
        if self.decoder is not None and self.level == "record":
            out += DECODER_FIELDS
        return out

    def ddl(self) -> str:
        return ", ".join(f"`{name}` {t}" for name, t in self.fields())


_SIZE = re.compile(r"^\s*(\d+)\s*([kKmMgG]?)(i?[bB])?\s*$")


def _size(name: str, value: str) -> int:
    m = _SIZE.match(value)
    if not m:
        raise ValueError(f"kafka_log: option {name}={value!r} is not a size (e.g. 134217728, 128M)")
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2).lower()]


def _bool(name: str, value: str) -> bool:
    v = value.strip().lower()
    if v in ("true", "1", "yes"):
        return True
    if v in ("false", "0", "no"):
        return False
    raise ValueError(f"kafka_log: option {name}={value!r} is not true or false")


DECODER_NAMES = ("auto", *SIMPLE, *INTERNAL, "avro", "protobuf", "json-schema", "schema-registry")


def parse_options(options: Any) -> ReadOptions:
    """``options``: the (case-insensitive) map Spark hands the data source."""
    opts = {str(k).lower(): str(v) for k, v in dict(options).items()}
    paths: list[str] = []
    if "paths" in opts:
        raw = opts["paths"]
        try:
            loaded = json.loads(raw)
        except ValueError:
            loaded = raw.split(",")
        paths.extend(str(p) for p in (loaded if isinstance(loaded, list) else [loaded]))
    if opts.get("path"):
        paths.append(opts["path"])
    if not paths:
        raise ValueError('kafka_log: no path: spark.read.format("kafka_log").load(PATH)')
    level = opts.get("level", "record").strip().lower()
    if level not in LEVELS:
        raise ValueError(f"kafka_log: level={level!r}: use record or batch")
    decoder = opts.get("decoder")
    if decoder is not None:
        decoder = decoder.strip()
        if decoder not in DECODER_NAMES and decoder not in JAVA_CLASSES:
            raise ValueError(f"kafka_log: decoder={decoder!r}: use one of {', '.join(DECODER_NAMES)}")
    kafka_version = None
    if opts.get("kafka_version"):
        from ..decoders.release import check_release
        from ..protocol.messages import SchemaError

        try:
            kafka_version = check_release(opts["kafka_version"])
        except SchemaError as e:
            raise ValueError(f"kafka_log: kafka_version: {e}") from None
    topics = None
    if opts.get("topics"):
        topics = tuple(t.strip() for t in opts["topics"].split(",") if t.strip())
    return ReadOptions(
        paths=tuple(paths),
        level=level,
        decoder=decoder,
        verify=_bool("verify", opts["verify"]) if "verify" in opts else False,
        split_bytes=max(1, _size("split_bytes", opts["split_bytes"])) if "split_bytes" in opts
        else DEFAULT_SPLIT_BYTES,
        max_batch_bytes=_size("max_batch_bytes", opts["max_batch_bytes"])
        if "max_batch_bytes" in opts else DEFAULT_MAX_BATCH_BYTES,
        topics=topics,
        kafka_version=kafka_version,
        all_files=_bool("all_files", opts["all_files"]) if "all_files" in opts else False,
        ignore_unreadable=_bool("ignore_unreadable", opts["ignore_unreadable"])
        if "ignore_unreadable" in opts else False,
        schemas=tuple(p.strip() for p in opts.get("schemas", "").split(",") if p.strip()),
        schemas_topic=opts.get("schemas_topic", "_schemas").strip() or "_schemas",
    )


# --- planning ----------------------------------------------------------------------------
#: one input partition: (path, topic, partition, segment name, active, start, end or None)
Slice = tuple[str, str | None, int | None, str, bool, int, int | None]


def segment_name(f: KafkaFile) -> str:
    """As size-report names a segment: its base offset, zero padded (else the file name)."""
    if f.base_offset is not None:
        return f"{f.base_offset:0{L.OFFSET_DIGITS}d}"
    return os.path.basename(f.path)


def wanted(f: KafkaFile, opts: ReadOptions) -> bool:
    if opts.topics is not None and f.topic not in opts.topics:
        return False
    if opts.all_files:
        return f.kind in ("log", "kraft-snapshot", "bootstrap-snapshot")
    return f.kind == "log" and f.leftover is None and f.partition_state is None


def plan(opts: ReadOptions) -> tuple[list[Slice], list[Problem]]:
    """The input partitions, in walk order, and the problems met listing the files."""
    slices: list[Slice] = []
    problems: list[Problem] = []
    for item in walk(opts.paths):
        if isinstance(item, Problem):
            if item.severity != INFO:
                problems.append(item)
            continue
        if not wanted(item, opts):
            continue
        try:
            size = kfs.getsize(item.path)
        except OSError as e:
            problems.append(Problem(item.path, None, "unreadable-file",
                                    (e.strerror or str(e)).lower()))
            continue
        points = split_points(item, size, opts.split_bytes)
        name = segment_name(item)
        for i, start in enumerate(points):
            end = points[i + 1] if i + 1 < len(points) else None
            slices.append((item.path, item.topic, item.partition, name, item.active, start, end))
    return slices, problems


# --- reading -----------------------------------------------------------------------------
def make_decoder(name: str, topic: str | None, opts: ReadOptions | None = None,
                 path: str | None = None) -> PayloadDecoder:
    """The decoder of a topic's records (of the segment ``path``).  ``auto`` and the
    schema-registry decoders (avro, protobuf, json-schema, schema-registry) read the
    registry's storage found with the data source's paths (once per process); internal
    decoders read the layouts of the ``kafka_version`` option, else of the segment's log
    dir's metadata.version (:class:`~kdump.decoders.Releases`)."""
    from ..schemaregistry.formats import MODES

    if name == "auto":
        name = TOPIC_DECODERS.get(topic or "", "string")
        if name == "string" and opts is not None and _registry(opts):
            name = "schema-auto"
    if name in INTERNAL:
        version = opts.kafka_version if opts is not None else None
        if version not in _RELEASES:
            _RELEASES[version] = Releases(version)
        log_dir = log_dir_of(path, topic is not None) if path else None
        decoder: PayloadDecoder = _RELEASES[version].decoder(name, log_dir)
        return decoder
    if name in MODES or name == "schema-auto":
        from ..schemaregistry.decoder import SchemaRegistryDecoder

        mode = "auto" if name == "schema-auto" else name
        reg = _registry(opts) if opts is not None else None
        if reg is None:
            from ..schemaregistry.storage import Registry

            reg = Registry()
        return SchemaRegistryDecoder(reg, "auto", mode, topic=topic)
    return KeyValueDecoder(name, name)


_REGISTRIES: dict[tuple[Any, ...], Any] = {}
#: one :class:`Releases` per kafka_version per process (each log dir's evidence read once)
_RELEASES: dict[str | None, Releases] = {}


def _registry(opts: ReadOptions) -> Any:
    key = (opts.paths, opts.schemas_topic, opts.schemas)
    if key not in _REGISTRIES:
        from ..schemaregistry.storage import load

        _REGISTRIES[key] = load(opts.paths, opts.schemas_topic, opts.schemas,
                                opts.max_batch_bytes)
    return _REGISTRIES[key]


def _decoded(structured: bool, obj: object, text: str | None) -> str | None:
    if structured and obj is not None:
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return text


def slice_batches(s: Slice, *, max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
                  ignore_unreadable: bool = False) -> Iterator[Batch]:
    """The intact-framed batches whose first byte lies in the slice's range."""
    path, _topic, _partition, _segment, active, start, end = s
    try:
        src = FileSource(path)
    except KdumpError:
        if ignore_unreadable:
            return
        raise
    with src:
        reader = LogReader(src, start=start, active=active, max_batch_bytes=max_batch_bytes)
        for item in reader:
            pos = item.position
            if end is not None and pos is not None and pos >= end:
                return
            if isinstance(item, Problem):
                continue
            yield item


#: a block of rows from one batch: the values every row of it shares (in the order of
#: :func:`layout`'s first list), the per-record columns (its second list), the row count
Block = tuple[tuple[Any, ...], list[list[Any]], int]

#: record-level columns that vary from record to record (the others are the batch's)
_PER_RECORD = {"offset", "timestamp", "key", "value", "headers", "sequence", "crc_valid",
               "key_decoded", "value_decoded", "decode_error"}


def layout(opts: ReadOptions) -> tuple[list[int], list[int]]:
    """Schema positions of the shared columns and of the per-record columns of a
    :data:`Block` (at batch level every column is shared: one row per block)."""
    names = [n for n, _ in opts.fields()]
    if opts.level == "batch":
        return list(range(len(names))), []
    shared = [i for i, n in enumerate(names) if n not in _PER_RECORD]
    per_record = [i for i, n in enumerate(names) if n in _PER_RECORD]
    return shared, per_record


def batch_blocks(s: Slice, opts: ReadOptions) -> Iterator[Block]:
    """One block (one row) per batch, in :data:`BATCH_FIELDS` order (+ crc_valid)."""
    path, topic, partition, segment, _active, _start, _end = s
    verify = opts.verify
    for b in slice_batches(s, max_batch_bytes=opts.max_batch_bytes,
                           ignore_unreadable=opts.ignore_unreadable):
        row: tuple[Any, ...] = (
            topic, partition, segment, path, b.position, b.base_offset, b.last_offset, b.count,
            b.size, b.magic, b.compression_name, b.timestamp_type, b.first_timestamp,
            b.max_timestamp, b.partition_leader_epoch, b.producer_id, b.producer_epoch,
            b.base_sequence, b.last_sequence, b.is_transactional, b.is_control, b.crc,
            b.attributes,
        )
        yield ((*row, b.crc_valid) if verify else row), [], 1


def record_blocks(s: Slice, opts: ReadOptions) -> Iterator[Block]:
    """One block per batch holding its records, columns as :func:`layout` orders them."""
    path, topic, partition, segment, _active, _start, _end = s
    verify = opts.verify
    decoder = make_decoder(opts.decoder, topic, opts, path) if opts.decoder is not None else None
    with_headers = bool(getattr(decoder, "uses_headers", False))
    k_struct = bool(getattr(decoder, "key_structured", True))
    v_struct = bool(getattr(decoder, "value_structured", True))
    for b in slice_batches(s, max_batch_bytes=opts.max_batch_bytes,
                           ignore_unreadable=opts.ignore_unreadable):
        records = []
        try:
            for r in b.records(opts.max_batch_bytes):
                records.append(r)
        except KdumpError:
            pass  # the records before the fault stay, as the local dump lists them
        if not records:
            continue
        v2 = isinstance(b, RecordBatch)
        metadata = topic == "__cluster_metadata" or holds_metadata(path, decoder)
        shared = (topic, partition, segment, path, b.position, b.timestamp_type,
                  b.base_offset if v2 else records[0].offset, b.last_offset, b.size, b.magic,
                  b.compression_name, b.partition_leader_epoch, b.producer_id, b.producer_epoch,
                  b.base_sequence, b.is_transactional, b.is_control, b.crc)
        cols: list[list[Any]] = [
            [r.offset for r in records],
            [r.timestamp for r in records],
            [r.key for r in records],
            # secrets of metadata records are not exported raw (kdump.decoders.redact)
            [redact_record(r).value for r in records] if metadata
            else [r.value for r in records],
            [[(hk.decode("utf-8", "replace"), hv) for hk, hv in r.headers] if r.headers else []
             for r in records],
            [r.sequence for r in records],
        ]
        if verify:
            ok = b.crc_valid
            cols.append([ok if v2 or r.crc_valid is None else (ok and r.crc_valid)
                         for r in records])
        if decoder is not None:
            kd: list[str | None] = []
            vd: list[str | None] = []
            err: list[str | None] = []
            for r in records:
                if b.is_control:
                    kd.append(None)
                    vd.append(None)
                    err.append(None)
                    continue
                if with_headers:  # schema-registry payloads (ids in headers); never metadata
                    d = decoder.decode(r.key, r.value, r.offset, r.headers)  # type: ignore[call-arg]
                else:
                    _, d = shown(r, decoder, path, metadata=metadata)
                kd.append(_decoded(k_struct, d.key_json, d.key_text))
                vd.append(_decoded(v_struct, d.value_json, d.value_text))
                err.append(d.error)
            cols += [kd, vd, err]
        yield shared, cols, len(records)


def blocks(s: Slice, opts: ReadOptions) -> Iterator[Block]:
    return record_blocks(s, opts) if opts.level == "record" else batch_blocks(s, opts)


def rows(s: Slice, opts: ReadOptions) -> Iterator[tuple[Any, ...]]:
    """The slice's rows as tuples in schema order (for inspection and tests)."""
    shared_pos, rec_pos = layout(opts)
    width = len(shared_pos) + len(rec_pos)
    for shared, cols, n in blocks(s, opts):
        for k in range(n):
            row: list[Any] = [None] * width
            for i, v in zip(shared_pos, shared, strict=True):
                row[i] = v
            for i, c in zip(rec_pos, cols, strict=True):
                row[i] = c[k]
            yield tuple(row)


def arrow_batches(source: Iterable[Block], schema: Any, layout_: tuple[list[int], list[int]], *,
                  max_rows: int = 8192, max_bytes: int = 32 << 20) -> Iterator[Any]:
    """Blocks gathered into ``pyarrow.RecordBatch`` objects of ``schema``, bounded in rows
    and in key + value bytes.  The shared values are converted once per batch and
    repeated with ``take``; only the per-record columns are converted value by value."""
    import pyarrow as pa

    shared_pos, rec_pos = layout_
    names = schema.names
    ki = next((j for j, i in enumerate(rec_pos) if names[i] == "key"), None)
    vi = next((j for j, i in enumerate(rec_pos) if names[i] == "value"), None)
    shared_rows: list[tuple[Any, ...]] = []
    index: list[int] = []
    cols: list[list[Any]] = [[] for _ in rec_pos]
    nbytes = 0

    def flush() -> Any:
        arrays: list[Any] = [None] * len(names)
        take = pa.array(index, type=pa.int32())
        for j, i in enumerate(shared_pos):
            small = pa.array([t[j] for t in shared_rows], type=schema.field(i).type)
            # one row per block (batch level): the index is the identity
            arrays[i] = small if len(shared_rows) == len(index) else small.take(take)
        for j, i in enumerate(rec_pos):
            arrays[i] = pa.array(cols[j], type=schema.field(i).type)
        return pa.RecordBatch.from_arrays(arrays, schema=schema)

    for shared, block_cols, n in source:
        k = len(shared_rows)
        shared_rows.append(shared)
        index.extend([k] * n)
        for c, more in zip(cols, block_cols, strict=True):
            c.extend(more)
        if ki is not None and vi is not None:
            nbytes += sum(map(len, filter(None, block_cols[ki])))
            nbytes += sum(map(len, filter(None, block_cols[vi])))
        if len(index) >= max_rows or nbytes >= max_bytes:
            yield flush()
            shared_rows, index, cols, nbytes = [], [], [[] for _ in rec_pos], 0
    if index:
        yield flush()
