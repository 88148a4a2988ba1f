"""Typed columns of decoded payloads: ``kdump export`` writes what a decoder read as Arrow
structs beside the raw key and value (and beside the JSON text of ``key_decoded`` /
``value_decoded``, which every decoded topic has).

**Internal topics** (``__consumer_offsets``, ``__transaction_state``,
``__share_group_state``, ``__cluster_metadata``): one struct column per record type,
named after the type's newest layout (``key_OffsetCommitKey``, ``value_OffsetCommitValue``,
``value_PartitionRecord`` ...), its members the union of the fields of every version and
release layout of that type (Kafka's JSON names), typed from kdump's record definitions
(:mod:`kdump.protocol.definitions`); a row fills only the column of its own type.
``key_record`` / ``value_record`` name the type, ``value_version`` its version.  As in
Kafka's JSON converters, a tagged field at its default is null; secrets of metadata
records are ``[redacted]`` unless ``--show-secrets``.

**Schema-registry payloads** (Avro, Protobuf): one struct column per schema id
registered under the topic's subjects (``TopicNameStrategy``: ``T-key`` for keys,
``T-value`` and ``T-<record>`` for values), ``key_schema_<id>`` / ``value_schema_<id>``,
typed from that schema (Avro records, Protobuf messages as structs; logical types as
Arrow's: decimal, date, time, timestamp); ``key_schema_id`` / ``value_schema_id`` say which
id a row's payload names.  One column set per id, never merged: a topic whose schemas
changed incompatibly keeps each version's values in their own column.  Payloads whose
id belongs to no subject of the topic (``RecordNameStrategy``), JSON Schema payloads,
and schema parts Arrow cannot type (recursive types, unions of several non-null types)
are in the JSON text of ``value_decoded`` (those parts as JSON text in their struct).

Columns depend on the topic and the registry only, not on the data read, so every file
of a topic has the same schema.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

#: (Arrow field, builder: the column's array from the blocks of one record batch)
TypedColumn = tuple[Any, Callable[[list[Any]], Any]]
#: (Arrow type, converter of one JSON-form value to what pyarrow takes; None: as is)
Typer = tuple[Any, Callable[[Any], Any] | None]

#: internal decoder -> record definitions' family
FAMILIES = {"offsets": "group", "transaction-log": "transaction",
            "share-group-state": "share", "cluster-metadata": "metadata"}


def typed_columns(topic: str | None, decoder: Any, read: Any, s: Any) -> list[TypedColumn]:
    """The typed columns of a slice's rows decoded by ``decoder`` (none when it is a
    simple decoder)."""
    from .rows import decoder_name, registry

    if decoder is None or read.level != "record":
        return []
    name = read.decoder
    if name == "auto":
        name = decoder_name(topic, read)
    if name in FAMILIES:
        return internal_columns(FAMILIES[name])
    if getattr(decoder, "uses_headers", False):
        reg = registry(read)
        return schema_columns(topic, reg, decoder) if reg else []
    return []


# --- plumbing ------------------------------------------------------------------------------
def _decoded(blocks: list[Any]) -> Iterable[Any]:
    """Each row's :class:`~kdump.decoders.base.Decoded` (None: a control record)."""
    for _shared, _cols, n, kept in blocks:
        if kept is None:
            yield from [None] * n
        else:
            yield from kept


def _array(values: list[Any], typ: Any, conv: Callable[[Any], Any] | None) -> Any:
    """``values`` (JSON form) as an Arrow array of ``typ``; a value that does not fit
    (the JSON text keeps it) is null."""
    import pyarrow as pa

    if conv is not None:
        values = [_safe(conv, v) for v in values]
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


def _safe(conv: Callable[[Any], Any], v: Any) -> Any:
    if v is None:
        return None
    try:
        return conv(v)
    except (ValueError, TypeError, ArithmeticError, AttributeError, KeyError):
        return None


def _json_text(v: Any) -> str | None:
    if v is None:
        return None
    return v if isinstance(v, str) else json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def _b64(v: Any) -> bytes | None:
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    if not isinstance(v, str):
        return None
    try:
        return base64.b64decode(v, validate=True)
    except ValueError:
        return v.encode("utf-8")  # "[redacted]", or text a decoder left as it was


def _float(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float, str)) else None


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, str)):
        return int(v)
    return None


def _struct_conv(members: list[tuple[str, Callable[[Any], Any] | None]]
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
                out[n] = _safe(c, out[n])
        return out
    return conv


def _list_conv(item: Callable[[Any], Any] | None) -> Callable[[Any], Any] | None:
    if item is None:
        return None
    return lambda v: [_safe(item, x) for x in v] if isinstance(v, list) else None


# --- internal topics -----------------------------------------------------------------------
_SCALARS = {"bool": "bool_", "int8": "int8", "int16": "int16", "uint16": "uint16",
            "int32": "int32", "uint32": "uint32", "int64": "int64", "float64": "float64",
            "string": "string", "uuid": "string", "bytes": "binary", "records": "binary"}


def _kafka_scalar(t: str) -> Typer:
    import pyarrow as pa

    typ = getattr(pa, _SCALARS[t])()
    if t in ("bytes", "records"):
        return typ, _b64
    if t == "float64":
        return typ, _float
    return typ, None


def _kafka_fields(fields: Iterable[Any], into: dict[str, tuple[Any, Any]]) -> None:
    """Merge ``fields`` (a layout's) into ``into``: json name -> (Arrow type, converter);
    a name with two different types becomes JSON text."""
    import pyarrow as pa

    for f in fields:
        if f.is_struct:
            sub: dict[str, tuple[Any, Any]] = {}
            prev = into.get(f.json_name)
            if prev is not None and isinstance(prev, _Merged):
                sub = prev.members
            _kafka_fields(f.fields, sub)
            into[f.json_name] = _Merged(sub, f.is_array)  # type: ignore[assignment]
            continue
        typ, conv = _kafka_scalar(f.elem_type)
        if f.is_array:
            typ, conv = pa.list_(typ), _list_conv(conv)
        prev = into.get(f.json_name)
        if prev is None or (not isinstance(prev, _Merged) and prev[0] == typ):
            into[f.json_name] = (typ, conv)
        elif not isinstance(prev, _Merged) and pa.types.is_integer(prev[0]) \
                and pa.types.is_integer(typ):
            into[f.json_name] = (pa.int64(), None)  # widened (uint16 in 4.0, int32 in 4.1)
        else:
            into[f.json_name] = (pa.string(), _json_text)


class _Merged:
    """A struct member being merged from several layouts."""

    def __init__(self, members: dict[str, Any], is_array: bool) -> None:
        self.members = members
        self.is_array = is_array

    def __getitem__(self, i: int) -> Any:
        return self.typer()[i]

    def typer(self) -> Typer:
        import pyarrow as pa

        fields, convs = [], []
        for name, m in self.members.items():
            typ, conv = m.typer() if isinstance(m, _Merged) else m
            fields.append((name, typ))
            convs.append((name, conv))
        typ, conv = pa.struct(fields), _struct_conv(convs)
        if self.is_array:
            return pa.list_(typ), _list_conv(conv)
        return typ, conv


def _upper_snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


_INTERNAL_CACHE: dict[str, Any] = {}


def _internal_plan(family: str) -> Any:
    """(key columns: type -> (column, Typer), value columns: type -> (column, Typer),
    metadata type name -> type) of a family, from its record definitions."""
    got = _INTERNAL_CACHE.get(family)
    if got is not None:
        return got
    from ...protocol.definitions import definitions

    merged: dict[tuple[str, int], dict[str, Any]] = {}
    names: dict[tuple[str, int], str] = {}
    for d in definitions(family):
        role = "value" if d.role == "record" else d.role
        key = (role, d.record_type)
        _kafka_fields(d.schema.fields, merged.setdefault(key, {}))
        names[key] = d.schema.name  # later lines are newer layouts
    columns: dict[str, dict[int, tuple[str, Typer]]] = {"key": {}, "value": {}}
    for (role, rtype), members in merged.items():
        if members:  # a record with no fields (NoOpRecord) has no column: its type says all
            columns[role][rtype] = (f"{role}_{names[(role, rtype)]}",
                                    _Merged(members, False).typer())
    by_name = {_upper_snake(names[k]): k[1] for k in names if k[0] == "value"}
    record = {role: {t: n for (r, t), n in names.items() if r == role} for role in ("key", "value")}
    got = _INTERNAL_CACHE[family] = (columns["key"], columns["value"], by_name, record)
    return got


def internal_columns(family: str) -> list[TypedColumn]:
    """``key_record``, ``value_record``, ``value_version`` and a struct column per record
    type of ``family``."""
    import pyarrow as pa

    key_cols, value_cols, by_name, record = _internal_plan(family)
    metadata = family == "metadata"

    def types(blocks: list[Any]) -> list[tuple[int | None, Any, int | None, Any, Any]]:
        out = []
        for d in _decoded(blocks):
            kt = vt = version = None
            kdata = vdata = None
            if d is not None:
                kj, vj = d.key_json, d.value_json
                if not metadata and isinstance(kj, dict) and "data" in kj:
                    kt, kdata = _int_or_none(kj.get("type")), kj["data"]
                if isinstance(vj, dict) and "data" in vj:
                    vdata = vj["data"]
                    version = _int_or_none(vj.get("version", vj.get("type")) if not metadata
                                           else vj.get("version"))
                    vt = by_name.get(str(vj.get("type"))) if metadata else kt
            out.append((kt, kdata, vt, vdata, version))
        return out

    memo: list[Any] = [None, None]  # (the blocks, their rows): one batch's, shared by columns

    def rows_of(blocks: list[Any]) -> Any:
        if memo[0] is not blocks:
            memo[:] = [blocks, types(blocks)]
        return memo[1]

    cols: list[TypedColumn] = []
    if not metadata:
        cols.append((pa.field("key_record", pa.string()), lambda b: pa.array(
            [record["key"].get(t) if t is not None else None for t, *_ in rows_of(b)],
            type=pa.string())))
    cols.append((pa.field("value_record", pa.string()), lambda b: pa.array(
        [record["value"].get(vt) if vt is not None and vd is not None else None
         for _, _, vt, vd, _ in rows_of(b)], type=pa.string())))
    cols.append((pa.field("value_version", pa.int16()), lambda b: pa.array(
        [v if v is not None and -32768 <= v < 32768 else None for *_, v in rows_of(b)],
        type=pa.int16())))
    if not metadata:
        for t, (name, (typ, conv)) in sorted(key_cols.items()):
            cols.append((pa.field(name, typ), _picker(rows_of, 0, 1, t, typ, conv)))
    for t, (name, (typ, conv)) in sorted(value_cols.items()):
        cols.append((pa.field(name, typ), _picker(rows_of, 2, 3, t, typ, conv)))
    return cols


def _int_or_none(v: Any) -> int | None:
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def _picker(rows_of: Callable[[list[Any]], Any], ti: int, di: int, want: int, typ: Any,
            conv: Callable[[Any], Any] | None) -> Callable[[list[Any]], Any]:
    def build(blocks: list[Any]) -> Any:
        return _array([r[di] if r[ti] == want else None for r in rows_of(blocks)], typ, conv)
    return build


# --- schema-registry payloads ------------------------------------------------------------------
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
            for d in _decoded(blocks):
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
        for d in _decoded(blocks):
            j = getattr(d, attr, None) if d is not None else None
            if isinstance(j, dict) and j.get("schema_id") == schema_id and "format" in j \
                    and (message is None or j.get("message") == message):
                values.append(j.get("data"))
            else:
                values.append(None)
        return _array(values, typ, conv)
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

    from ...schemaregistry.avro import _load, _references_in_order

    named: dict[str, Any] = {}
    try:
        for ref in _references_in_order(v, reg, set(), 0):
            fastavro.parse_schema(_load(ref.schema), named_schemas=named)
    except Exception:  # a reference that does not parse: its types as JSON text
        pass
    return named


def _text() -> Typer:
    import pyarrow as pa

    return pa.string(), _json_text


def avro_typer(s: Any, named: dict[str, Any], busy: set[str], depth: int = 0) -> Typer:
    """Arrow type and converter of the JSON form kdump gives Avro values (see
    kdump/schemaregistry/avro.py): records as structs, enums as strings, arrays as lists,
    maps as maps, ``[null, T]`` as a nullable T; other unions and recursive types as JSON
    text."""
    import pyarrow as pa

    if depth > 64:
        return _text()
    if isinstance(s, str):
        prim = {"null": (pa.null(), None), "boolean": (pa.bool_(), None),
                "int": (pa.int32(), None), "long": (pa.int64(), None),
                "float": (pa.float32(), _float), "double": (pa.float64(), _float),
                "bytes": (pa.binary(), _b64), "string": (pa.string(), None)}
        if s in prim:
            return prim[s]
        if s in busy:
            return _text()  # a recursive type
        if s in named:
            return avro_typer(named[s], named, busy, depth + 1)
        return _text()
    if isinstance(s, list):
        branches = [b for b in s if b != "null"]
        if len(branches) == 1:
            return avro_typer(branches[0], named, busy, depth + 1)
        return _text()
    if not isinstance(s, dict):
        return _text()
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
            return _text()
        return pa.struct(fields), _struct_conv(convs)
    if t == "enum":
        named[_full_name(s)] = s
        return pa.string(), None
    if t == "fixed":
        named[_full_name(s)] = s
        return pa.binary(), _b64
    if t == "array":
        typ, conv = avro_typer(s.get("items"), named, busy, depth + 1)
        return pa.list_(typ), _list_conv(conv)
    if t == "map":
        typ, conv = avro_typer(s.get("values"), named, busy, depth + 1)
        return pa.map_(pa.string(), typ), _map_conv(None, conv)
    if t is not None:
        return avro_typer(t, named, busy, depth + 1)
    return _text()


def _full_name(s: dict[str, Any]) -> str:
    name = str(s.get("name", ""))
    ns = s.get("namespace")
    return name if "." in name or not ns else f"{ns}.{name}"


def _map_conv(key: Callable[[Any], Any] | None, value: Callable[[Any], Any] | None
              ) -> Callable[[Any], Any]:
    def conv(v: Any) -> Any:
        if not isinstance(v, dict):
            return None
        return [(_safe(key, k) if key else k, _safe(value, x) if value else x)
                for k, x in v.items()]
    return conv


#: FieldDescriptor type numbers (descriptor.proto) -> Arrow type name and converter
_PROTO_SCALARS: dict[int, tuple[str, Callable[[Any], Any] | None]] = {
    1: ("float64", _float), 2: ("float32", _float),  # double, float
    3: ("int64", _int), 4: ("uint64", _int), 5: ("int32", None), 6: ("uint64", _int),
    7: ("uint32", None), 8: ("bool_", None), 9: ("string", None), 12: ("binary", _b64),
    13: ("uint32", None), 15: ("int32", None), 16: ("int64", _int), 17: ("int32", None),
    18: ("int64", _int), 14: ("string", None),  # enum: its value's name
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
        return _text()
    busy = busy | {desc.full_name}
    fields, convs, defaults = [], [], []
    for fd in desc.fields:
        typ, fconv = _proto_field(fd, busy, depth)
        fields.append((fd.name, typ))
        convs.append((fd.name, fconv))
        if not _has_presence(fd) and not _repeated(fd) and fd.type in _PROTO_DEFAULTS:
            defaults.append((fd.name, _PROTO_DEFAULTS[fd.type]))
    if not fields:
        return _text()
    inner = _struct_conv(convs)

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
        return pa.map_(kt, vt), _map_conv(key_conv, vc)
    if fd.message_type is not None:
        typ, conv = proto_typer(fd.message_type, busy, depth + 1)
    elif fd.type in _PROTO_SCALARS:
        name, conv = _PROTO_SCALARS[fd.type]
        typ = getattr(pa, name)()
    else:
        typ, conv = _text()
    if _repeated(fd):
        return pa.list_(typ), _list_conv(conv)
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
