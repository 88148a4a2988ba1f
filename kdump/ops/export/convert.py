"""Values as Arrow takes them: the JSON form decoders give (base64 bytes, decimal and
time strings, 64-bit integers as strings) converted per Arrow type, and arrays built so
that a value that does not fit its type is null (the JSON text column keeps it), never
an error."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable
from typing import Any

#: (Arrow field, builder: the column's array from the blocks of one record batch)
TypedColumn = tuple[Any, Callable[[list[Any]], Any]]
#: (Arrow type, converter of one JSON-form value to what pyarrow takes; None: as is)
Typer = tuple[Any, Callable[[Any], Any] | None]


def decoded(blocks: list[Any]) -> Iterable[Any]:
    """Each row's :class:`~kdump.decoders.base.Decoded` (None: a control record)."""
    for _shared, _cols, n, kept in blocks:
        if kept is None:
            yield from [None] * n
        else:
            yield from kept


def array(values: list[Any], typ: Any, conv: Callable[[Any], Any] | None) -> Any:
    """``values`` (JSON form) as an Arrow array of ``typ``; a value that does not fit
    (the JSON text keeps it) is null."""
    import pyarrow as pa

    if conv is not None:
        values = [safe(conv, v) for v in values]
    try:
        return pa.array(values, type=typ)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, ValueError, TypeError):
        out = []
        for v in values:
            try:
                pa.array([v], type=typ)
                out.append(v)
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, ValueError, TypeError):
                out.append(None)
        return pa.array(out, type=typ)


def safe(conv: Callable[[Any], Any], v: Any) -> Any:
    if v is None:
        return None
    try:
        return conv(v)
    except (ValueError, TypeError, ArithmeticError, AttributeError, KeyError):
        return None


def json_text(v: Any) -> str | None:
    if v is None:
        return None
    return v if isinstance(v, str) else json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def b64(v: Any) -> bytes | None:
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    if not isinstance(v, str):
        return None
    try:
        return base64.b64decode(v, validate=True)
    except ValueError:
        return v.encode("utf-8")  # "[redacted]", or text a decoder left as it was


def to_float(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float, str)) else None


def to_int(v: Any) -> int | None:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, str)):
        return int(v)
    return None


def struct_conv(members: list[tuple[str, Callable[[Any], Any] | None]]
                 ) -> Callable[[Any], Any] | None:
    if all(c is None for _, c in members):
        return None
    convs = [(n, c) for n, c in members if c is not None]

    def conv(v: Any) -> Any:
        if not isinstance(v, dict):
            return None
        out = dict(v)
        for n, c in convs:
            if n in out:
                out[n] = safe(c, out[n])
        return out
    return conv


def list_conv(item: Callable[[Any], Any] | None) -> Callable[[Any], Any] | None:
    if item is None:
        return None
    return lambda v: [safe(item, x) for x in v] if isinstance(v, list) else None


def text() -> Typer:
    import pyarrow as pa

    return pa.string(), json_text


def map_conv(key: Callable[[Any], Any] | None, value: Callable[[Any], Any] | None
              ) -> Callable[[Any], Any]:
    def conv(v: Any) -> Any:
        if not isinstance(v, dict):
            return None
        return [(safe(key, k) if key else k, safe(value, x) if value else x)
                for k, x in v.items()]
    return conv
