"""Typed columns of schema-registry payloads: an Avro schema or a Protobuf message as
an Arrow struct, one column set per schema id of the topic's subjects (the design is in
kdump/ops/export/typed.py's docstring)."""

from __future__ import annotations

import datetime
import decimal
import re
from collections.abc import Callable, Iterable
from typing import Any

from .convert import (
    TypedColumn,
    Typer,
    array,
    b64,
    decoded,
    list_conv,
    map_conv,
    struct_conv,
    text,
    to_float,
    to_int,
)


def topic_schema_ids(topic: str | None, reg: Any) -> dict[str, list[Any]]:
    """side -> the schema versions (one per id, Avro and Protobuf) registered under the
    topic's subjects (TopicNameStrategy, TopicRecordNameStrategy), by id."""
    from ...schemaregistry.storage import AVRO, PROTOBUF

    out: dict[str, dict[int, Any]] = {"key": {}, "value": {}}
    if topic is None:
        return {"key": [], "value": []}
    for v in reg.versions.values():
        subject = v.subject
        if v.schema_type not in (AVRO, PROTOBUF) or not subject.startswith(topic + "-"):
            continue
        side = "key" if subject == topic + "-key" else "value"
        out[side].setdefault(v.schema_id, v)
    return {side: [ids[i] for i in sorted(ids)] for side, ids in out.items()}


def schema_columns(topic: str | None, reg: Any, decoder: Any) -> list[TypedColumn]:
    """``key_schema_id`` / ``value_schema_id`` and a struct column per schema id of the
    topic's subjects."""
    import pyarrow as pa

    ids = topic_schema_ids(topic, reg)
    cols: list[TypedColumn] = []
    for side, attr in (("key", "key_json"), ("value", "value_json")):
        def ids_of(blocks: list[Any], attr: str = attr) -> list[int | None]:
            out: list[int | None] = []
            for d in decoded(blocks):
                j = getattr(d, attr, None) if d is not None else None
                out.append(j.get("schema_id") if isinstance(j, dict) and "format" in j else None)
            return out

        cols.append((pa.field(f"{side}_schema_id", pa.int32()), _ids_column(ids_of)))
        for v in ids[side]:
            for suffix, (typ, conv), message in schema_typers(v, reg, decoder):
                cols.append((pa.field(f"{side}_schema_{v.schema_id}{suffix}", typ),
                             _payloads(attr, v.schema_id, message, typ, conv)))
    return cols


def _ids_column(ids_of: Callable[[list[Any]], list[int | None]]) -> Callable[[list[Any]], Any]:
    def build(blocks: list[Any]) -> Any:
        import pyarrow as pa

        return pa.array(ids_of(blocks), type=pa.int32())
    return build


def _payloads(attr: str, schema_id: int, message: str | None, typ: Any,
              conv: Callable[[Any], Any] | None) -> Callable[[list[Any]], Any]:
    def build(blocks: list[Any]) -> Any:
        values = []
        for d in decoded(blocks):
            j = getattr(d, attr, None) if d is not None else None
            if isinstance(j, dict) and j.get("schema_id") == schema_id and "format" in j \
                    and (message is None or j.get("message") == message):
                values.append(j.get("data"))
            else:
                values.append(None)
        return array(values, typ, conv)
    return build


def schema_typers(v: Any, reg: Any, decoder: Any) -> list[tuple[str, Typer, str | None]]:
    """(column suffix, Arrow type, Protobuf message full name) of a schema's values: one
    for an Avro schema (suffix ""), one per message for a Protobuf schema (``_Name``,
    nested ``_Outer_Inner``); none when the schema cannot be read."""
    from ...schemaregistry.storage import AVRO

    reader = decoder.reader(v)
    if isinstance(reader, Exception):
        return []
    try:
        if v.schema_type == AVRO:
            return [("", avro_typer(reader.parsed, _avro_named(v, reg), set()), None)]
        out = []
        for desc in _messages(reader.file.message_types_by_name.values()):
            package = reader.file.package
            short = desc.full_name[len(package) + 1:] if package else desc.full_name
            out.append(("_" + re.sub(r"[^A-Za-z0-9_]", "_", short), proto_typer(desc, set()),
                        desc.full_name))
        return out
    except (RecursionError, ValueError, KeyError, TypeError, AttributeError):
        return []


def _messages(descs: Iterable[Any]) -> Iterable[Any]:
    for d in descs:
        if not d.GetOptions().map_entry:
            yield d
            yield from _messages(d.nested_types)


def _avro_named(v: Any, reg: Any) -> dict[str, Any]:
    """The named types of a schema's references (parsed as the reader parses them)."""
    import fastavro

    from ...schemaregistry.avro import parse_avro_schema, references_in_order

    named: dict[str, Any] = {}
    try:
        for ref in references_in_order(v, reg, set(), 0):
            fastavro.parse_schema(parse_avro_schema(ref.schema), named_schemas=named)
    except Exception:  # a reference that does not parse: its types as JSON text
        pass
    return named


def avro_typer(s: Any, named: dict[str, Any], busy: set[str], depth: int = 0) -> Typer:
    """Arrow type and converter of the JSON form kdump gives Avro values (see
    kdump/schemaregistry/avro.py): records as structs, enums as strings, arrays as lists,
    maps as maps, ``[null, T]`` as a nullable T; other unions and recursive types as JSON
    text."""
    import pyarrow as pa

    if depth > 64:
        return text()
    if isinstance(s, str):
        prim = {"null": (pa.null(), None), "boolean": (pa.bool_(), None),
                "int": (pa.int32(), None), "long": (pa.int64(), None),
                "float": (pa.float32(), to_float), "double": (pa.float64(), to_float),
                "bytes": (pa.binary(), b64), "string": (pa.string(), None)}
        if s in prim:
            return prim[s]
        if s in busy:
            return text()  # a recursive type
        if s in named:
            return avro_typer(named[s], named, busy, depth + 1)
        return text()
    if isinstance(s, list):
        branches = [b for b in s if b != "null"]
        if len(branches) == 1:
            return avro_typer(branches[0], named, busy, depth + 1)
        return text()
    if not isinstance(s, dict):
        return text()
    t = s.get("type")
    logical = s.get("logicalType")
    if logical == "decimal" and t in ("bytes", "fixed"):
        p, sc = int(s.get("precision", 0)), int(s.get("scale", 0))
        if 0 < p <= 38 and 0 <= sc <= p:
            return pa.decimal128(p, sc), decimal.Decimal
        return pa.string(), None
    if logical == "date" and t == "int":
        return pa.date32(), datetime.date.fromisoformat
    if logical == "time-millis" and t == "int":
        return pa.time32("ms"), datetime.time.fromisoformat
    if logical == "time-micros" and t == "long":
        return pa.time64("us"), datetime.time.fromisoformat
    if logical in ("timestamp-millis", "timestamp-micros", "local-timestamp-millis",
                   "local-timestamp-micros") and t == "long":
        unit = "ms" if logical.endswith("millis") else "us"
        tz = None if logical.startswith("local") else "UTC"
        return pa.timestamp(unit, tz=tz), datetime.datetime.fromisoformat
    if t == "record":
        full = _full_name(s)
        named[full] = s
        busy = busy | {full}
        fields, convs = [], []
        for f in s.get("fields", []):
            typ, conv = avro_typer(f.get("type"), named, busy, depth + 1)
            if pa.types.is_null(typ):
                typ = pa.string()
            fields.append((f["name"], typ))
            convs.append((f["name"], conv))
        if not fields:
            return text()
        return pa.struct(fields), struct_conv(convs)
    if t == "enum":
        named[_full_name(s)] = s
        return pa.string(), None
    if t == "fixed":
        named[_full_name(s)] = s
        return pa.binary(), b64
    if t == "array":
        typ, conv = avro_typer(s.get("items"), named, busy, depth + 1)
        return pa.list_(typ), list_conv(conv)
    if t == "map":
        typ, conv = avro_typer(s.get("values"), named, busy, depth + 1)
        return pa.map_(pa.string(), typ), map_conv(None, conv)
    if t is not None:
        return avro_typer(t, named, busy, depth + 1)
    return text()


def _full_name(s: dict[str, Any]) -> str:
    name = str(s.get("name", ""))
    ns = s.get("namespace")
    return name if "." in name or not ns else f"{ns}.{name}"


#: FieldDescriptor type numbers (descriptor.proto) -> Arrow type name and converter
_PROTO_SCALARS: dict[int, tuple[str, Callable[[Any], Any] | None]] = {
    1: ("float64", to_float), 2: ("float32", to_float),  # double, float
    3: ("int64", to_int), 4: ("uint64", to_int), 5: ("int32", None), 6: ("uint64", to_int),
    7: ("uint32", None), 8: ("bool_", None), 9: ("string", None), 12: ("binary", b64),
    13: ("uint32", None), 15: ("int32", None), 16: ("int64", to_int), 17: ("int32", None),
    18: ("int64", to_int), 14: ("string", None),  # enum: its value's name
}
_PROTO_DEFAULTS: dict[int, Any] = {1: 0.0, 2: 0.0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0, 8: False,
                                   9: "", 12: b"", 13: 0, 15: 0, 16: 0, 17: 0, 18: 0}


def proto_typer(desc: Any, busy: set[str], depth: int = 0) -> Typer:
    """Arrow type and converter of MessageToDict's form of a message (proto field names):
    messages as structs, repeated fields as lists, maps as maps, enums by name, 64-bit
    integers from their JSON strings; a scalar without presence that the JSON leaves out
    is its default (proto3), as the bytes mean.  Well-known types (google.protobuf.*) and
    recursive messages as JSON text."""
    import pyarrow as pa

    if depth > 64 or desc.full_name in busy or desc.full_name.startswith("google.protobuf."):
        return text()
    busy = busy | {desc.full_name}
    fields, convs, defaults = [], [], []
    for fd in desc.fields:
        typ, fconv = _proto_field(fd, busy, depth)
        fields.append((fd.name, typ))
        convs.append((fd.name, fconv))
        if not _has_presence(fd) and not _repeated(fd) and fd.type in _PROTO_DEFAULTS:
            defaults.append((fd.name, _PROTO_DEFAULTS[fd.type]))
    if not fields:
        return text()
    inner = struct_conv(convs)

    def conv(v: Any) -> Any:
        if not isinstance(v, dict):
            return None
        if defaults:
            v = {**dict(defaults), **v}
        return inner(v) if inner is not None else v
    return pa.struct(fields), conv


def _proto_field(fd: Any, busy: set[str], depth: int) -> Typer:
    import pyarrow as pa

    if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
        kt, kc = _proto_field(fd.message_type.fields_by_name["key"], busy, depth + 1)
        vt, vc = _proto_field(fd.message_type.fields_by_name["value"], busy, depth + 1)
        key_conv = _json_map_key(kt, kc)
        return pa.map_(kt, vt), map_conv(key_conv, vc)
    if fd.message_type is not None:
        typ, conv = proto_typer(fd.message_type, busy, depth + 1)
    elif fd.type in _PROTO_SCALARS:
        name, conv = _PROTO_SCALARS[fd.type]
        typ = getattr(pa, name)()
    else:
        typ, conv = text()
    if _repeated(fd):
        return pa.list_(typ), list_conv(conv)
    return typ, conv


def _json_map_key(typ: Any, conv: Callable[[Any], Any] | None) -> Callable[[Any], Any] | None:
    """Map keys are JSON object keys (strings): back to their type."""
    import pyarrow as pa

    if pa.types.is_boolean(typ):
        return lambda k: k == "true"
    if pa.types.is_integer(typ):
        return int
    return conv


def _repeated(fd: Any) -> bool:
    rep = getattr(fd, "is_repeated", None)  # protobuf >= 6; ``label`` before
    return bool(rep) if rep is not None else fd.label == fd.LABEL_REPEATED


def _has_presence(fd: Any) -> bool:
    got = getattr(fd, "has_presence", None)
    return bool(got) if got is not None else False
