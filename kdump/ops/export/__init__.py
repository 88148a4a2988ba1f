"""``kdump export``: segments to Parquet, Arrow IPC or JSON Lines on one machine, and the
row-making it shares with the ``kafka_log`` Spark data source.

The facade other code imports from:

* :mod:`.rows` — planning segments and reading them into rows (``kdump export`` and
  kdump/spark/ both: one path); columns from :data:`kdump.model.SPARK_COLUMNS`;
* :mod:`.typed` — typed columns of decoded payloads (internal topics, schema-registry
  Avro and Protobuf);
* :mod:`.output` — the output directory's checks and staged files;
* :mod:`.formats` — Parquet, Arrow IPC and JSON Lines sinks;
* :mod:`.run` — the operation (:func:`export`).
"""

from __future__ import annotations

from .rows import ReadOptions, plan, rows
from .run import (
    DEFAULT_ROW_GROUP_BYTES,
    DEFAULT_ROW_GROUP_ROWS,
    FINDINGS,
    MANIFEST,
    ExportedFile,
    ExportEnd,
    ExportOptions,
    export,
)

__all__ = ["DEFAULT_ROW_GROUP_BYTES", "DEFAULT_ROW_GROUP_ROWS", "FINDINGS", "MANIFEST",
           "ExportEnd", "ExportOptions", "ExportedFile", "ReadOptions", "export", "plan", "rows"]
