"""The ``kafka_log`` data source's options: Spark's option map parsed into
:class:`~kdump.ops.export.rows.ReadOptions`.

Planning and reading segments into rows is the operations floor's
(:mod:`kdump.ops.export.rows`, shared with ``kdump export``: one path); its names are
re-exported here for the data source and for code written against this module.
Plain Python (no pyspark import), so it runs and is tested without Spark.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..decoders import INTERNAL, JAVA_CLASSES, SIMPLE
from ..ops.export.arrow import arrow_batches
from ..ops.export.rows import (
    BATCH_FIELDS,
    DECODER_FIELDS,
    DEFAULT_SPLIT_BYTES,
    LEVELS,
    RECORD_FIELDS,
    VERIFY_FIELDS,
    Block,
    ReadOptions,
    Slice,
    batch_blocks,
    blocks,
    layout,
    make_decoder,
    plan,
    record_blocks,
    rows,
    segment_name,
    slice_batches,
    wanted,
)
from ..records.v2 import DEFAULT_MAX_BATCH_BYTES

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
        skip_damaged=_bool("skip_damaged", opts["skip_damaged"])
        if "skip_damaged" in opts else False,
        schemas=tuple(p.strip() for p in opts.get("schemas", "").split(",") if p.strip()),
        schemas_topic=opts.get("schemas_topic", "_schemas").strip() or "_schemas",
    )


__all__ = ["BATCH_FIELDS", "DECODER_FIELDS", "DECODER_NAMES", "DEFAULT_SPLIT_BYTES", "LEVELS",
           "RECORD_FIELDS", "VERIFY_FIELDS", "Block", "ReadOptions", "Slice", "arrow_batches",
           "batch_blocks", "blocks", "layout", "make_decoder", "parse_options", "plan",
           "record_blocks", "rows", "segment_name", "slice_batches", "wanted"]
