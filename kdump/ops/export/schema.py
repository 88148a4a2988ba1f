"""The Arrow schema of ``kdump export``'s files: the output model's columns
(:data:`kdump.model.SPARK_COLUMNS`, the ``kafka_log`` source's, one definition for both),
their Spark SQL types mapped to the Arrow types Spark itself writes to Parquet."""

from __future__ import annotations

from typing import Any

#: the hive partition columns: in the path (topic=T/partition=P), not in the files
PARTITION_COLUMNS = ("topic", "partition")


def arrow_type(spark_type: str) -> Any:
    """``string`` -> ``pa.string()``, ``array<struct<key:string,value:binary>>`` -> ..."""
    import pyarrow as pa

    t = spark_type.strip()
    simple = {"string": pa.string(), "int": pa.int32(), "bigint": pa.int64(),
              "binary": pa.binary(), "boolean": pa.bool_(), "smallint": pa.int16(),
              "tinyint": pa.int8(), "double": pa.float64(), "float": pa.float32()}
    if t in simple:
        return simple[t]
    if t.startswith("array<") and t.endswith(">"):
        return pa.list_(arrow_type(t[6:-1]))
    if t.startswith("struct<") and t.endswith(">"):
        return pa.struct([(name, arrow_type(sub)) for name, sub in _members(t[7:-1])])
    raise ValueError(f"no Arrow type for the Spark type {spark_type!r}")


def _members(body: str) -> list[tuple[str, str]]:
    out, depth, start = [], 0, 0
    for i, ch in enumerate(body + ","):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "," and depth == 0:
            name, _, typ = body[start:i].partition(":")
            out.append((name.strip(), typ.strip()))
            start = i + 1
    return out


def arrow_schema(fields: list[tuple[str, str]]) -> Any:
    """The Arrow schema of ``(name, Spark type)`` columns, in order."""
    import pyarrow as pa

    return pa.schema([(name, arrow_type(t)) for name, t in fields])
