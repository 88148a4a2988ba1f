"""Segments as rows: the one row-making path of ``kdump export`` and of the ``kafka_log``
Spark data source (kdump/spark/, which only adds Spark's option parsing around it).

Plain Python and pyarrow (pyarrow imported only where Arrow batches are built).

Planning: the walker lists the ``.log`` segments; each becomes one slice, and a segment
larger than ``split_bytes`` is cut into byte ranges at batch boundaries taken from its
offset index (:func:`kdump.files.splits.split_points`: every boundary is checked, an
intact batch must start there; a segment with no usable index stays whole).

Reading: a range ``[start, end)`` is read from ``start`` with kdump's
:class:`~kdump.records.file_records.LogReader`, chunk by chunk, and yields the batches
whose first byte lies in the range, so each batch (and each record) belongs to exactly
one range.  Damage is skipped as the local commands skip it (the reader resynchronises
at the next intact batch); with ``skip_damaged`` (``kdump export``) a batch whose
checksum does not match, or whose records do not all read, is skipped whole and said as
a finding, so no row comes from a damaged batch.

Rows come in :data:`Block` s, one per batch: the values every row of the batch shares
(its batch's fields, the file, log dir, broker) once, and the per-record columns
(the records packed: :mod:`kdump.records.packed`; the others as lists);
:func:`kdump.ops.export.arrow.arrow_batches` turns blocks into ``pyarrow.RecordBatch``
objects bounded in rows and bytes.  The columns are the output model's
(:data:`kdump.model.SPARK_COLUMNS`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, NamedTuple

from ... import fs as kfs
from ... import layouts as L
from ...decoders import (
    INTERNAL,
    TOPIC_DECODERS,
    KeyValueDecoder,
    Releases,
    key_value_pair,
)
from ...decoders.base import Decoded, PayloadDecoder
from ...decoders.redact import holds_metadata, redact_record, shown
from ...decoders.release import log_dir_of
from ...errors import KdumpError
from ...files.logdir import KafkaFile, walk
from ...files.splits import split_points
from ...findings import INFO, Problem
from ...limits import SPLIT_BYTES
from ...model import spark_fields
from ...native import speedups
from ...records.batch import Batch
from ...records.file_records import LogReader
from ...records.packed import Packed, pack_columns, unpack
from ...records.v2 import DEFAULT_MAX_BATCH_BYTES, RECORD_CHUNK, RecordBatch
from ...source import FileSource
from ..batch_findings import crc_problem, record_problem
from ..compare_replicas.logdirs import broker_id_of, logdir_of
from ..verdict import TAIL_PROBLEMS, judge_tail
from ..verdict.tail import judge_closed_tail

#: the one default of ``split_bytes`` (kdump.limits.SPLIT_BYTES says why 128 MiB)
DEFAULT_SPLIT_BYTES = SPLIT_BYTES

#: the columns, from the output model (kdump.model.SPARK_COLUMNS)
RECORD_FIELDS = spark_fields("record")
BATCH_FIELDS = spark_fields("batch")
VERIFY_FIELDS = spark_fields("verify")
DECODER_FIELDS = spark_fields("decoder")

LEVELS = ("record", "batch")


@dataclass(frozen=True)
class ReadOptions:
    """What to read and how: the Spark data source's options, parsed and checked, and
    ``kdump export``'s."""

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
    #: with ``decoder=KEY_VALUE`` (kdump.decoders): the decoders of keys and of values (simple or schema ones)
    key_decoder: str = "string"
    value_decoder: str = "string"
    #: secrets of metadata records written as the data holds them (``--show-secrets``)
    show_secrets: bool = False
    #: a damaged batch (checksum, records that do not read) gives no rows (kdump export);
    #: otherwise its records are read as the local dump reads them (the Spark source)
    skip_damaged: bool = False

    def fields(self) -> list[tuple[str, str]]:
        out = list(RECORD_FIELDS if self.level == "record" else BATCH_FIELDS)
        if self.verify:
            out += VERIFY_FIELDS
        if self.decoder is not None and self.level == "record":
            out += DECODER_FIELDS
        return out

    def ddl(self) -> str:
        return ", ".join(f"`{name}` {t}" for name, t in self.fields())


# --- planning ----------------------------------------------------------------------------
#: one unit of reading: (path, topic, partition, segment name, active, start, end or None)
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


def plan(opts: ReadOptions, *, split: bool = True) -> tuple[list[Slice], list[Problem]]:
    """The slices, in walk order, and the problems met listing the files (``split``
    False: one slice per segment, whatever its size)."""
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
        points = split_points(item, size, opts.split_bytes) if split else [0]
        name = segment_name(item)
        for i, start in enumerate(points):
            end = points[i + 1] if i + 1 < len(points) else None
            slices.append((item.path, item.topic, item.partition, name, item.active, start, end))
    return slices, problems


def slice_log_dir(s: Slice) -> tuple[str, int | None]:
    """The log dir (the broker's ``log.dirs`` entry) of a slice's segment and its broker id
    (meta.properties; None without one): several log dirs are several brokers."""
    path, topic = s[0], s[1]
    directory = kfs.dirname(path) if kfs.is_url(path) else (os.path.dirname(path) or ".")
    log_dir = logdir_of(directory) if topic is not None else directory
    return log_dir, broker_id_of(log_dir)


# --- decoders ----------------------------------------------------------------------------
def decoder_name(topic: str | None, opts: ReadOptions) -> str | None:
    """The decoder ``opts.decoder`` comes to for ``topic`` (``auto``: the internal topic's,
    ``schema-auto`` beside a schema registry, else ``string``)."""
    name = opts.decoder
    if name == "auto":
        name = TOPIC_DECODERS.get(topic or "", "string")
        if name == "string" and _registry(opts):
            name = "schema-auto"
    return name


def make_decoder(name: str, topic: str | None, opts: ReadOptions | None = None,
                 path: str | None = None) -> PayloadDecoder:
    """The decoder of a topic's records (of the segment ``path``).  ``auto`` and the
    schema-registry decoders (avro, protobuf, json-schema, schema-registry) read the
    registry's storage found with the paths (once per process); internal decoders read
    the layouts of the ``kafka_version`` option, else of the segment's log dir's
    metadata.version (:class:`~kdump.decoders.Releases`);
    :data:`~kdump.decoders.KEY_VALUE` is ``opts.key_decoder`` / ``opts.value_decoder``."""
    from ...schemaregistry.formats import MODES

    if name == "auto":
        name = (decoder_name(topic, opts) if opts is not None else None) or \
            TOPIC_DECODERS.get(topic or "", "string")
    if name in INTERNAL:
        version = opts.kafka_version if opts is not None else None
        if version not in _RELEASES:
            _RELEASES[version] = Releases(version)
        log_dir = log_dir_of(path, topic is not None) if path else None
        decoder: PayloadDecoder = _RELEASES[version].decoder(name, log_dir)
        if opts is not None and opts.show_secrets and hasattr(decoder, "show_secrets"):
            decoder.show_secrets = True
        return decoder
    key, value = key_value_pair(name, opts.key_decoder if opts is not None else None,
                                opts.value_decoder if opts is not None else None) or (name, name)
    if name in MODES or name == "schema-auto" or key in MODES or value in MODES:
        from ...schemaregistry.decoder import SchemaRegistryDecoder

        reg = _registry(opts) if opts is not None else None
        if reg is None:
            from ...schemaregistry.storage import Registry

            reg = Registry()
        if name == "schema-auto":
            return SchemaRegistryDecoder(reg, "auto", "auto", topic=topic)
        if name in MODES:
            return SchemaRegistryDecoder(reg, "auto", name, topic=topic)
        return SchemaRegistryDecoder(reg, key, value, topic=topic)
    return KeyValueDecoder(key, value)


_REGISTRIES: dict[tuple[Any, ...], Any] = {}
#: one :class:`Releases` per kafka_version per process (each log dir's evidence read once)
_RELEASES: dict[str | None, Releases] = {}


def _registry(opts: ReadOptions) -> Any:
    key = (opts.paths, opts.schemas_topic, opts.schemas)
    if key not in _REGISTRIES:
        from ...schemaregistry.storage import load

        _REGISTRIES[key] = load(opts.paths, opts.schemas_topic, opts.schemas,
                                opts.max_batch_bytes)
    return _REGISTRIES[key]


def registry(opts: ReadOptions) -> Any:
    """The schema registry's storage found with ``opts.paths`` (read once per process)."""
    return _registry(opts)


def _decoded(structured: bool, obj: object, text: str | None) -> str | None:
    if structured and obj is not None:
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return text


# --- reading -----------------------------------------------------------------------------
#: where findings go (``kdump export``); None: damage is skipped silently (Spark)
Findings = Callable[[Problem], None] | None


#: wraps the segment's source before it is read (``kdump export`` hashes what it reads)
SourceWrap = Callable[[FileSource], Any] | None


def slice_items(s: Slice, *, max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
                ignore_unreadable: bool = False, source: SourceWrap = None
                ) -> Iterator[Batch | Problem]:
    """The batches whose first byte lies in the slice's range, and the problems met
    framing them (damaged stretches, each said once, by the range it starts in)."""
    path, _topic, _partition, _segment, active, start, end = s
    try:
        src = FileSource(path)
    except KdumpError:
        if ignore_unreadable:
            return
        raise
    with src:
        reader = LogReader(src if source is None else source(src), start=start, active=active,
                           max_batch_bytes=max_batch_bytes)
        for item in reader:
            pos = item.position
            if end is not None and pos is not None and pos >= end:
                return
            yield item


def slice_batches(s: Slice, *, max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
                  ignore_unreadable: bool = False) -> Iterator[Batch]:
    """The intact-framed batches whose first byte lies in the slice's range."""
    for item in slice_items(s, max_batch_bytes=max_batch_bytes,
                            ignore_unreadable=ignore_unreadable):
        if not isinstance(item, Problem):
            yield item


def _batches(s: Slice, opts: ReadOptions, findings: Findings, source: SourceWrap = None
             ) -> Iterator[Batch]:
    # a segment's first batch below its name: a second copy of offsets (a segment copied
    # under another base offset), named as verify-crc names it; its rows are written as
    # read (intact batches), so the finding is what tells a query they are there twice
    first = findings is not None and s[5] == 0 and s[3].isdigit()
    prev_last: int | None = None  # the last offset of the batch before a tail
    for item in slice_items(s, max_batch_bytes=opts.max_batch_bytes,
                            ignore_unreadable=opts.ignore_unreadable, source=source):
        if isinstance(item, Problem):
            if findings is not None:
                if item.kind in TAIL_PROBLEMS and (prev_last is not None or s[5] == 0):
                    # the tail as the partition's verdict judges it (verify-crc's words)
                    f = KafkaFile(s[0], "log", base_offset=int(s[3]) if s[3].isdigit()
                                  else None, topic=s[1], partition=s[2], active=s[4])
                    item = judge_closed_tail(judge_tail(item, f, prev_last), f, prev_last)
                findings(item)
            continue
        prev_last = item.last_offset
        if first:
            first = False
            base = int(s[3])
            if item.last_offset < base and findings is not None:
                findings(Problem(s[0], item.position, "below-segment-base",
                                 f"batch offsets {item.first_offset}..{item.last_offset} lie "
                                 f"below the segment's base offset {base}: a copy of offsets "
                                 "another segment may hold too (its rows are written as read)",
                                 base_offset=item.first_offset))
        if opts.skip_damaged and not item.crc_valid:
            if findings is not None:
                findings(crc_problem(item))
            continue
        yield item


class SharedColumns(NamedTuple):
    """The values every record row of one batch shares, named as the output model's
    columns (:data:`kdump.model.SPARK_COLUMNS`) and in their order: :func:`layout` checks
    that these are its shared columns, so a column added to the model and not here (or
    the other way round) fails at once rather than shifting values into the wrong
    column."""

    topic: str | None
    partition: int | None
    segment: str
    file: str
    log_dir: str | None
    broker_id: int | None
    position: int
    timestamp_type: Any
    base_offset: int
    last_offset: int
    batch_size: int
    magic: int
    compression: str
    partition_leader_epoch: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    is_transactional: bool
    is_control: bool
    crc: int


#: a block of rows from one batch: the values every row of it shares (record level:
#: :class:`SharedColumns`; batch level: the whole row; in the order of
#: :func:`layout`'s first list), the per-record columns, the row count, and (record
#: level, with a decoder) each record's :class:`Decoded` or None.  At record level the
#: per-record columns are the batch's records packed (:data:`~kdump.records.packed.Packed`:
#: offset, timestamp, key, value, headers, sequence) followed by the other per-record
#: columns as lists (crc_valid, the decoded columns), in :func:`layout`'s order; at batch
#: level there are none.
Block = tuple[tuple[Any, ...], list[Any], int, list[Decoded | None] | None]

#: record-level columns that vary from record to record (the others are the batch's);
#: the first six are the packed ones, in this order
_PER_RECORD = ("offset", "timestamp", "key", "value", "headers", "sequence", "crc_valid",
               "key_decoded", "value_decoded", "decode_error")
N_PACKED = 6


def layout(opts: ReadOptions) -> tuple[list[int], list[int]]:
    """Schema positions of the shared columns and of the per-record columns of a
    :data:`Block` (at batch level every column is shared: one row per block)."""
    names = [n for n, _ in opts.fields()]
    if opts.level == "batch":
        return list(range(len(names))), []
    shared = [i for i, n in enumerate(names) if n not in _PER_RECORD]
    per_record = [i for i, n in enumerate(names) if n in _PER_RECORD]
    # the packed columns lead, in Packed's order (the model's order is theirs)
    assert [names[i] for i in per_record[:N_PACKED]] == list(_PER_RECORD[:N_PACKED])
    # the shared values are SharedColumns, by name and in the model's order
    assert [names[i] for i in shared] == list(SharedColumns._fields)
    return shared, per_record


def batch_blocks(s: Slice, opts: ReadOptions, findings: Findings = None, *,
                 source: SourceWrap = None) -> Iterator[Block]:
    """One block (one row) per batch, in :data:`BATCH_FIELDS` order (+ crc_valid)."""
    path, topic, partition, segment, _active, _start, _end = s
    log_dir, broker = slice_log_dir(s)
    verify = opts.verify
    for b in _batches(s, opts, findings, source):
        # one row per batch, in BATCH_FIELDS' order (a tuple: BATCH_FIELDS has a
        # ``count``, which a NamedTuple cannot name without hiding tuple.count)
        row: tuple[Any, ...] = (
            topic, partition, segment, path, log_dir, broker, b.position, b.base_offset,
            b.last_offset, b.count, b.size, b.magic, b.compression_name, b.timestamp_type,
            b.first_timestamp, b.max_timestamp, b.partition_leader_epoch, b.producer_id,
            b.producer_epoch, b.base_sequence, b.last_sequence, b.is_transactional,
            b.is_control, b.crc, b.attributes,
        )
        yield ((*row, b.crc_valid) if verify else row), [], 1, None


def slice_decoder(s: Slice, opts: ReadOptions) -> PayloadDecoder | None:
    """The decoder of the slice's records (None without ``opts.decoder``)."""
    if opts.decoder is None:
        return None
    return make_decoder(opts.decoder, s[1], opts, s[0])


def record_blocks(s: Slice, opts: ReadOptions, findings: Findings = None, *,
                  decoder: PayloadDecoder | None = None, keep_decoded: bool = False,
                  source: SourceWrap = None) -> Iterator[Block]:
    """One block per batch holding its records, columns as :func:`layout` orders them.
    ``decoder``: the records' decoder (default :func:`slice_decoder`); ``keep_decoded``:
    the block carries each record's :class:`Decoded` (None for control records)."""
    path, topic, partition, segment, _active, _start, _end = s
    log_dir, broker = slice_log_dir(s)
    verify = opts.verify
    if decoder is None:
        decoder = slice_decoder(s, opts)
    with_headers = bool(getattr(decoder, "uses_headers", False))
    k_struct = bool(getattr(decoder, "key_structured", True))
    v_struct = bool(getattr(decoder, "value_structured", True))
    #: the schema-registry decoder in auto mode (a topic beside the registry's _schemas):
    #: a payload that is not framed is not decoded, so its decoded column is null, as
    #: ``dump --format json`` shows nothing under ``decoded`` for it (no text copy of the
    #: raw bytes: a binary payload would come out as text full of U+FFFD)
    framed = getattr(decoder, "framed", None)
    metadata = not opts.show_secrets and (topic == "__cluster_metadata"
                                          or holds_metadata(path, decoder))
    for b in _batches(s, opts, findings, source):
        v2 = isinstance(b, RecordBatch)
        records: list[Any] = []
        packed: Packed | None = None
        n = 0
        try:
            if isinstance(b, RecordBatch) and decoder is None and not metadata:
                # straight from the bytes into packed columns (natively when the extension
                # is built): no Record objects
                packed, n, fault = b.packed_records(opts.max_batch_bytes)
                if fault is not None:
                    raise fault
            elif isinstance(b, RecordBatch) and b.records_count <= RECORD_CHUNK:
                # in one go (natively when the extension is built), as dump's fast path
                records, fault = b.decode_records(opts.max_batch_bytes)
                if fault is not None:
                    raise fault
            else:
                for r in b.records(opts.max_batch_bytes):
                    records.append(r)
        except KdumpError as e:
            if opts.skip_damaged:
                if findings is not None:
                    findings(record_problem(b, e))
                continue
            # the records before the fault stay, as the local dump lists them
        if packed is None:
            n = len(records)
        if not n:
            continue
        shared = SharedColumns(
            topic=topic, partition=partition, segment=segment, file=path, log_dir=log_dir,
            broker_id=broker, position=b.position, timestamp_type=b.timestamp_type,
            base_offset=b.base_offset if v2 else records[0].offset, last_offset=b.last_offset,
            batch_size=b.size, magic=b.magic, compression=b.compression_name,
            partition_leader_epoch=b.partition_leader_epoch, producer_id=b.producer_id,
            producer_epoch=b.producer_epoch, base_sequence=b.base_sequence,
            is_transactional=b.is_transactional, is_control=b.is_control, crc=b.crc)
        if packed is None:
            # offset, timestamp, key, value, headers, sequence from the Record objects
            six = record_columns(records)
            if metadata:  # secrets of metadata records are not exported raw (kdump.decoders.redact)
                six[3] = [redact_record(r).value for r in records]
            packed = pack_columns(*six)
        cols: list[Any] = [packed]
        if verify:
            ok = b.crc_valid
            cols.append([ok] * n if v2 else
                        [ok if r.crc_valid is None else (ok and r.crc_valid) for r in records])
        kept: list[Decoded | None] | None = None
        if decoder is not None:
            kd: list[str | None] = []
            vd: list[str | None] = []
            err: list[str | None] = []
            kept = [] if keep_decoded else None
            for r in records:
                if b.is_control or (framed is not None and not framed(r.key, r.value,
                                                                      r.headers)):
                    kd.append(None)
                    vd.append(None)
                    err.append(None)
                    if kept is not None:
                        kept.append(None)
                    continue
                if with_headers:  # schema-registry payloads (ids in headers); never metadata
                    d = decoder.decode(r.key, r.value, r.offset, r.headers)  # type: ignore[call-arg]
                else:
                    _, d = shown(r, decoder, path, metadata=metadata)
                if framed is not None:  # the side that is not framed: null, as above
                    kd.append(_decoded(True, d.key_json, None))
                    vd.append(_decoded(True, d.value_json, None))
                else:
                    kd.append(_decoded(k_struct, d.key_json, d.key_text))
                    vd.append(_decoded(v_struct, d.value_json, d.value_text))
                err.append(d.error)
                if kept is not None:
                    kept.append(d)
            cols += [kd, vd, err]
        yield shared, cols, n, kept


_OFFSET = attrgetter("offset")
_TIMESTAMP = attrgetter("timestamp")
_KEY = attrgetter("key")
_VALUE = attrgetter("value")
_HEADERS = attrgetter("headers")
_SEQUENCE = attrgetter("sequence")

_native_columns = None if speedups is None else speedups.record_columns


def record_columns(records: list[Any]) -> list[list[Any]]:
    """The per-record columns of a batch's records: offsets, timestamps, keys, values,
    headers, sequences (natively in one pass when the extension is built:
    ``record_columns`` in kdump/_speedups_packed.c)."""
    if _native_columns is not None:
        cols = _native_columns(records)
        if cols is not NotImplemented:
            return cols
    return record_columns_py(records)


def record_columns_py(records: list[Any]) -> list[list[Any]]:
    """The pure-Python twin of the native ``record_columns``."""
    return [list(map(_OFFSET, records)), list(map(_TIMESTAMP, records)),
            list(map(_KEY, records)), list(map(_VALUE, records)),
            list(map(_HEADERS, records)), list(map(_SEQUENCE, records))]


def blocks(s: Slice, opts: ReadOptions, findings: Findings = None) -> Iterator[Block]:
    return record_blocks(s, opts, findings) if opts.level == "record" \
        else batch_blocks(s, opts, findings)


def rows(s: Slice, opts: ReadOptions) -> Iterator[tuple[Any, ...]]:
    """The slice's rows as tuples in schema order (for inspection and tests)."""
    shared_pos, rec_pos = layout(opts)
    width = len(shared_pos) + len(rec_pos)
    names = [n for n, _ in opts.fields()]
    hi = names.index("headers") if opts.level == "record" else None
    for shared, cols, n, _ in blocks(s, opts):
        if hi is not None:
            cols = [*unpack(cols[0]), *cols[1:]]
        for k in range(n):
            row: list[Any] = [None] * width
            for i, v in zip(shared_pos, shared, strict=True):
                row[i] = v
            for i, c in zip(rec_pos, cols, strict=True):
                row[i] = c[k]
            yield tuple(row)
