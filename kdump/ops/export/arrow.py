"""Blocks of rows (:mod:`kdump.ops.export.rows`) as Arrow record batches: the one place
``kdump export`` and the ``kafka_log`` Spark data source build Arrow arrays.

Arrays are built from buffers Arrow wraps without a copy: the packed record columns
(:mod:`kdump.records.packed`) joined per row group, and the other plain columns
(integers, booleans, text) by :func:`plain_array`, not ``pa.array``.  pyarrow is
imported where arrays are built, not at import.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ...errors import KdumpError
from ...records import packed as P
from ...records.packed import bitmap, lengths_offsets
from .rows import N_PACKED, Block


def varsize_array(typ: Any, lengths: bytes, data: bytes) -> Any:
    """A binary or string column from packed lengths (-1: null) and the values' bytes,
    the buffers wrapped by Arrow without a copy."""
    import pyarrow as pa

    try:
        offsets, validity, nulls = lengths_offsets(lengths)
    except OverflowError:
        raise KdumpError(f"a row group's {typ} column would hold more than 2 GiB "
                         "(Arrow's 32-bit offsets): lower --max-batch-bytes") from None
    n = len(lengths) // 4
    return pa.Array.from_buffers(typ, n, [None if validity is None else pa.py_buffer(validity),
                                          pa.py_buffer(offsets), pa.py_buffer(data)],
                                 null_count=nulls)


def packed_arrays(parts: list[bytes], types: list[Any]) -> list[Any]:
    """The six packed columns' arrays (offset, timestamp, key, value, headers, sequence)
    from their parts joined (:data:`~kdump.records.packed.Packed` order), of ``types``."""
    import pyarrow as pa

    n = len(parts[P.OFFSETS]) // 8
    t_off, t_ts, t_key, t_value, t_headers, t_seq = types
    item = t_headers.value_type
    items = pa.StructArray.from_arrays(
        [varsize_array(item.field(0).type, parts[P.HEADER_KEY_LENGTHS], parts[P.HEADER_KEYS]),
         varsize_array(item.field(1).type, parts[P.HEADER_VALUE_LENGTHS],
                       parts[P.HEADER_VALUES])],
        fields=[item.field(0), item.field(1)])
    list_offsets, _, _ = lengths_offsets(parts[P.HEADER_COUNTS])
    return [
        pa.Array.from_buffers(t_off, n, [None, pa.py_buffer(parts[P.OFFSETS])]),
        pa.Array.from_buffers(t_ts, n, [None, pa.py_buffer(parts[P.TIMESTAMPS])]),
        varsize_array(t_key, parts[P.KEY_LENGTHS], parts[P.KEYS]),
        varsize_array(t_value, parts[P.VALUE_LENGTHS], parts[P.VALUES]),
        pa.ListArray.from_arrays(pa.Array.from_buffers(pa.int32(), n + 1,
                                                       [None, pa.py_buffer(list_offsets)]),
                                 items, type=t_headers),
        pa.Array.from_buffers(t_seq, n, [None, pa.py_buffer(parts[P.SEQUENCES])]),
    ]


_INT_CODES = {"int8": "b", "int16": "h", "int32": "i", "int64": "q"}


def plain_array(values: list[Any], typ: Any) -> Any:
    """A column of ints, booleans, strings or bytes (None: null) from a Python list,
    its buffers built here and wrapped.  Not ``pa.array``: with numpy installed, its
    first call imports pandas when pandas is installed too (pyarrow's array-like check),
    about a second of every export's start-up for a library it does not use; over
    Python ints it also costs several times more.  Other types, and values a type does
    not take, go to ``pa.array`` (which gives its own error)."""
    import pyarrow as pa

    name = str(typ)
    nulls = values.count(None)
    validity = bitmap(v is not None for v in values) if nulls else None
    valid = None if validity is None else pa.py_buffer(validity)
    code = _INT_CODES.get(name)
    if code is not None:
        try:
            packed = array(code, values if not nulls else [0 if v is None else v for v in values])
        except (TypeError, OverflowError):
            return pa.array(values, type=typ)
        return pa.Array.from_buffers(typ, len(values), [valid, pa.py_buffer(packed)],
                                     null_count=nulls)
    if name == "bool":
        if any(v is not None and type(v) is not bool for v in values):
            return pa.array(values, type=typ)
        return pa.Array.from_buffers(typ, len(values), [valid, pa.py_buffer(bitmap(values))],
                                     null_count=nulls)
    if name in ("string", "binary"):
        try:
            raw = [v.encode("utf-8") if name == "string" and v is not None else v
                   for v in values]
        except (AttributeError, UnicodeEncodeError):
            return pa.array(values, type=typ)
        if any(v is not None and type(v) is not bytes for v in raw):
            return pa.array(values, type=typ)
        lengths = array("i", [-1 if v is None else len(v) for v in raw])
        return varsize_array(typ, lengths.tobytes(), b"".join(filter(None, raw)))
    return pa.array(values, type=typ)


def keep_pandas_out() -> None:
    """Tell pyarrow, once per process, that pandas is not there for ``pa.array``.

    ``pa.array`` asks of every Python list whether it is a pandas array-like
    (``_is_array_like``, pyarrow's array.pxi), importing pandas to find out: 50 MB of
    resident memory and 0.4 s for a log dir of a few kilobytes whose internal topics'
    typed columns go through ``pa.array``, though kdump export never converts to or
    from pandas.  pyarrow remembers the first answer (``_PandasAPIShim``) for that test
    alone: what asks for pandas itself (``Table.to_pandas``) imports it still."""
    import sys

    if "pandas" in sys.modules:
        return
    import pyarrow as pa

    class NoPandas:  # an import finder that answers "not installed" for pandas alone
        @staticmethod
        def find_spec(name: str, *_: Any) -> None:
            if name == "pandas":
                raise ModuleNotFoundError("No module named 'pandas'", name=name)

    finder = NoPandas()
    sys.meta_path.insert(0, finder)
    try:
        pa.array([0], type=pa.int8())
    finally:
        sys.meta_path.remove(finder)


def arrow_batches(source: Iterable[Block], schema: Any, layout_: tuple[list[int], list[int]], *,
                  max_rows: int = 8192, max_bytes: int = 32 << 20,
                  extra: Callable[[list[Block]], list[Any]] | None = None) -> Iterator[Any]:
    """Blocks gathered into ``pyarrow.RecordBatch`` objects of ``schema``, bounded in rows
    and in key + value bytes.  The shared values are converted once per batch and
    repeated with ``take``; the packed columns' parts are joined and wrapped (no value
    by value conversion); the other per-record columns are converted from their lists.
    ``extra(blocks)``: the arrays of the columns of ``schema`` past the layout's (the
    typed decoded columns of ``kdump export``), built from the blocks gathered."""
    import pyarrow as pa

    shared_pos, rec_pos = layout_
    packed_pos = rec_pos[:N_PACKED]
    list_pos = rec_pos[N_PACKED:]
    width = len(shared_pos) + len(rec_pos)
    shared_rows: list[tuple[Any, ...]] = []
    index: list[int] = []
    parts: list[list[bytes]] = [[] for _ in P.PACKED_PARTS]
    lists: list[list[Any]] = [[] for _ in list_pos]
    held: list[Block] = []
    nbytes = 0

    def flush() -> Any:
        arrays: list[Any] = [None] * width
        take = plain_array(index, pa.int32())
        for j, i in enumerate(shared_pos):
            small = plain_array([t[j] for t in shared_rows], schema.field(i).type)
            # one row per block (batch level): the index is the identity
            arrays[i] = small if len(shared_rows) == len(index) else small.take(take)
        if packed_pos:
            built = packed_arrays([b"".join(p) for p in parts],
                                  [schema.field(i).type for i in packed_pos])
            for i, arr in zip(packed_pos, built, strict=True):
                arrays[i] = arr
        for j, i in enumerate(list_pos):
            arrays[i] = plain_array(lists[j], schema.field(i).type)
        if extra is not None:
            arrays += extra(held)
        return pa.RecordBatch.from_arrays(arrays, schema=schema)

    for block in source:
        shared, block_cols, n, _ = block
        k = len(shared_rows)
        shared_rows.append(shared)
        index.extend([k] * n)
        if extra is not None:
            held.append(block)
        if packed_pos:
            packed = block_cols[0]
            for p, part in zip(parts, packed, strict=True):
                p.append(part)
            nbytes += len(packed[P.KEYS]) + len(packed[P.VALUES])
            for c, more in zip(lists, block_cols[1:], strict=True):
                c.extend(more)
        if len(index) >= max_rows or nbytes >= max_bytes:
            yield flush()
            shared_rows, index, held, nbytes = [], [], [], 0
            parts = [[] for _ in P.PACKED_PARTS]
            lists = [[] for _ in list_pos]
    if index:
        yield flush()
