"""The ``kafka_log`` PySpark data source (``pyspark.sql.datasource``, Spark 4).

    import kdump.spark
    kdump.spark.register(spark)
    df = spark.read.format("kafka_log").load("/data/kafka-logs")

One row per record (``level=batch``: per batch), with the columns of
:data:`kdump.spark.segments.RECORD_FIELDS`.  Options:

``level``            ``record`` (default) or ``batch``
``decoder``          add ``key_decoded``/``value_decoded``/``decode_error``: ``auto`` (by
                     topic: internal topics decoded, others as strings), a simple decoder
                     (string, hex, base64, json, int, long, none) or an internal one
                     (offsets, transaction-log, cluster-metadata, share-group-state,
                     remote-log-metadata); ``auto`` also decodes schema-registry payloads
                     (Avro, Protobuf, JSON Schema) when the registry's topic is among or
                     beside the paths; ``avro``, ``protobuf``, ``json-schema``,
                     ``schema-registry`` force it for values: ``value_decoded`` is then
                     the JSON object ``{format, schema_id, subject, version, deleted,
                     message, data}`` (as dump's ``decoded.value``)
``schemas``          comma-separated: where else the schemas are (a ``_schemas`` partition
                     copy, a folder of exported schema files)
``schemas_topic``    the registry's topic (default ``_schemas``)
``kafka_version``    with ``decoder``: the Kafka release (4.0 ... 4.3) whose layouts internal
                     topics are read with (as dump's ``--kafka-version``; default: each
                     log dir's metadata.version, else the layout that fits)
``verify``           ``true`` adds ``crc_valid`` (the batch checksum; v0/v1: and the message's)
``split_bytes``      segments larger than this are read by several tasks (default 128M)
``topics``           comma-separated topics to read (the others are not even listed)
``all_files``        ``true`` also reads leftovers (.deleted, .cleaned, .swap), -delete /
                     -future / -stray partition directories and KRaft snapshots
``ignore_unreadable`` ``true`` skips paths that cannot be read instead of failing
``max_batch_bytes``  most bytes one batch may decompress to (default 16M)

Planning lists the files where the query is planned (the driver); every task opens
its segment itself and reads it in chunks.  Paths must be readable from the driver
and from every executor (a shared mount on a cluster); use absolute paths.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from ..findings import Problem
from ..render.common import problem_line
from .segments import ReadOptions, arrow_batches, blocks, layout, parse_options, plan


class KafkaLogDataSource(DataSource):
    """``spark.read.format("kafka_log")``: Kafka log segments, read by kdump."""

    @classmethod
    def name(cls) -> str:
        return "kafka_log"

    def _opts(self) -> ReadOptions:
        return parse_options(self.options)

    def schema(self) -> str:
        return self._opts().ddl()

    def reader(self, schema: StructType) -> DataSourceReader:
        return KafkaLogReader(self._opts(), schema)


class KafkaLogReader(DataSourceReader):
    def __init__(self, opts: ReadOptions, schema: StructType) -> None:
        self.opts = opts
        self.schema = schema

    def partitions(self) -> list[InputPartition]:
        slices, problems = plan(self.opts)
        if not self.opts.ignore_unreadable:
            fatal = [p for p in problems if p.kind == "unreadable-file" and p.severity == "error"]
            if fatal:
                raise ValueError(_unreadable_message(fatal))
        return [InputPartition(s) for s in slices]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        from pyspark.sql.pandas.types import to_arrow_schema

        if partition.value is None:  # nothing to read: Spark's placeholder partition
            return iter(())
        arrow_schema = to_arrow_schema(self.schema, timezone="UTC")
        return arrow_batches(blocks(partition.value, self.opts), arrow_schema,
                             layout(self.opts))


def _unreadable_message(problems: list[Problem]) -> str:
    first = problem_line(problems[0])
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"kafka_log: cannot read {first}{more}; option ignore_unreadable=true skips such paths"
