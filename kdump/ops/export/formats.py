"""The file formats ``kdump export`` writes, each from Arrow record batches: Parquet and
Arrow IPC (pyarrow's own writers) and JSON Lines (one object a row; binary columns as
base64 strings, structs as objects, lists as arrays).

A sink writes one file: :meth:`write` takes a ``pyarrow.RecordBatch`` (Parquet: one row
group each, so memory is bounded by the row group), :meth:`close` finishes the file,
:meth:`abandon` lets go of one that is thrown away.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
from typing import Any

FORMATS = ("parquet", "arrow", "jsonl")
SUFFIX = {"parquet": ".parquet", "arrow": ".arrow", "jsonl": ".jsonl"}


class _PyArrowSink:
    """What the pyarrow writers' sinks share: ``self.writer`` is closed when the file is
    whole, or abandoned when it will be thrown away."""

    writer: Any

    def close(self) -> None:
        self.writer.close()

    def abandon(self) -> None:
        """The file will be thrown away (Ctrl-C, a full disk): the writer is finished
        now, while its file is open, not by its finalizer at exit (which would write
        to a closed file and print a traceback)."""
        try:
            self.writer.close()
        except Exception:  # the write that failed may fail again: the file goes anyway
            pass


class ParquetSink(_PyArrowSink):
    """Parquet (Snappy, as Spark writes it); dictionary encoding and statistics for the
    columns that gain from them (names, offsets, timestamps: what queries filter on),
    not for keys, values and headers (unique bytes, where both only cost time)."""

    def __init__(self, fh: Any, schema: Any, compression: str = "snappy") -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        plain = [f.name for f in schema if pa.types.is_string(f.type)]
        stats = [f.name for f in schema
                 if not (pa.types.is_binary(f.type) or pa.types.is_nested(f.type))]
        self.writer = pq.ParquetWriter(fh, schema, compression=compression,
                                       use_dictionary=plain, write_statistics=stats)

    def write(self, batch: Any) -> None:
        self.writer.write_batch(batch, row_group_size=max(1, batch.num_rows))



class ArrowSink(_PyArrowSink):
    """Arrow IPC file format (``.arrow``: Feather v2)."""

    def __init__(self, fh: Any, schema: Any, compression: str = "zstd") -> None:
        import pyarrow as pa

        options = pa.ipc.IpcWriteOptions(compression=compression)
        self.writer = pa.ipc.new_file(fh, schema, options=options)

    def write(self, batch: Any) -> None:
        self.writer.write_batch(batch)



def _json_default(v: Any) -> Any:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(v)).decode("ascii")
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    raise TypeError(f"{type(v).__name__} is not JSON")


def _plain(v: Any) -> Any:
    """Map columns (lists of pairs in Python) as objects; bytes left to the encoder."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


class JsonlSink:
    """One JSON object per row, columns in schema order; binary as base64."""

    def __init__(self, fh: Any, schema: Any, compression: str = "none") -> None:
        self.fh = fh
        self.names = schema.names
        self.encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False,
                                        default=_json_default)

    def write(self, batch: Any) -> None:
        enc = self.encoder.encode
        lines = [enc(_plain(row)) for row in batch.to_pylist()]
        if lines:
            self.fh.write(("\n".join(lines) + "\n").encode("utf-8"))

    def close(self) -> None:
        pass

    def abandon(self) -> None:
        pass


SINKS = {"parquet": ParquetSink, "arrow": ArrowSink, "jsonl": JsonlSink}


def sink(fmt: str, fh: Any, schema: Any) -> Any:
    return SINKS[fmt](fh, schema)
