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

import re
from collections.abc import Callable, Iterable
from typing import Any

from .convert import TypedColumn, Typer, array, b64, decoded, json_text, list_conv, struct_conv, to_float

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
        from .registry_types import schema_columns

        return schema_columns(topic, reg, decoder) if reg else []
    return []

# --- internal topics -----------------------------------------------------------------------
_SCALARS = {"bool": "bool_", "int8": "int8", "int16": "int16", "uint16": "uint16",
            "int32": "int32", "uint32": "uint32", "int64": "int64", "float64": "float64",
            "string": "string", "uuid": "string", "bytes": "binary", "records": "binary"}


def _kafka_scalar(t: str) -> Typer:
    import pyarrow as pa

    typ = getattr(pa, _SCALARS[t])()
    if t in ("bytes", "records"):
        return typ, b64
    if t == "float64":
        return typ, to_float
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
            typ, conv = pa.list_(typ), list_conv(conv)
        prev = into.get(f.json_name)
        if prev is None or (not isinstance(prev, _Merged) and prev[0] == typ):
            into[f.json_name] = (typ, conv)
        elif not isinstance(prev, _Merged) and pa.types.is_integer(prev[0]) \
                and pa.types.is_integer(typ):
            into[f.json_name] = (pa.int64(), None)  # widened (uint16 in 4.0, int32 in 4.1)
        else:
            into[f.json_name] = (pa.string(), json_text)


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
        typ, conv = pa.struct(fields), struct_conv(convs)
        if self.is_array:
            return pa.list_(typ), list_conv(conv)
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
        for d in decoded(blocks):
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
        return array([r[di] if r[ti] == want else None for r in rows_of(blocks)], typ, conv)
    return build
