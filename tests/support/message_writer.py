"""An independent *encoder* for Kafka's message-schema encoding, for tests.

It does not import ``kdump.protocol``: schemas are described here in a small indented
text format, written again from Kafka's JSON definitions, so a test that encodes with
this module and decodes with kdump checks two separate readings of the same facts.

Description format (two spaces of indentation per nesting level)::

    GroupMetadataValue versions=0-4 flexible=4+
      protocolType string
      currentStateTimestamp int64 v=2+ default=-1
      members []
        memberId string
        groupInstanceId string v=3+ null=3+ default=null

A header line holds the message name and ``versions=`` / ``flexible=`` (plus optional
``apiKey=`` and ``typeName=``).  A field line is ``<jsonName> <type> [v=] [null=] [tag=]
[tagv=] [default=]``; types are the primitives, ``[]<primitive>``, ``[]`` (array of the
struct described by the indented lines below) or ``{}`` (a struct).

Values are plain Python: ints, floats, bools, ``str`` for strings and uuids (uuid in
Kafka's URL-safe base64 text form), ``bytes`` for bytes, lists, dicts, ``None``.
:func:`expected_json` gives what Kafka's JSON converter shows for such values.
"""

from __future__ import annotations

import base64
import math
import random
import struct
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "WField",
    "WSchema",
    "encode",
    "expected_json",
    "parse",
    "parse_many",
    "sample",
    "uvarint",
    "versions_of",
]

TOP = 0x7FFF
PRIMS = {
    "bool",
    "int8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "float64",
    "uuid",
    "string",
    "bytes",
}
ZERO_UUID_TEXT = "AAAAAAAAAAAAAAAAAAAAAA"


def _range(spec: str | None) -> tuple[int, int] | None:
    if spec is None or spec == "none":
        return None
    if spec.endswith("+"):
        return int(spec[:-1]), TOP
    if "-" in spec:
        a, b = spec.split("-")
        return int(a), int(b)
    return int(spec), int(spec)


def _in(v: int, r: tuple[int, int] | None) -> bool:
    return r is not None and r[0] <= v <= r[1]


@dataclass
class WField:
    name: str
    type: str
    versions: tuple[int, int] | None
    nullable: tuple[int, int] | None = None
    tag: int | None = None
    tagged: tuple[int, int] | None = None
    default: str | None = None
    children: list[WField] = field(default_factory=list)

    @property
    def is_array(self) -> bool:
        return self.type.startswith("[]")

    @property
    def elem(self) -> str:
        return self.type[2:] if self.is_array else self.type

    @property
    def is_struct(self) -> bool:
        return self.elem not in PRIMS  # "[]" / "{}" / a struct name


@dataclass
class WSchema:
    name: str
    valid: tuple[int, int]
    flexible: tuple[int, int] | None
    fields: list[WField]
    api_key: int | None = None
    type_name: str | None = None

    def versions(self) -> range:
        return range(self.valid[0], self.valid[1] + 1)


def versions_of(schema: WSchema) -> range:
    return schema.versions()


def parse(text: str) -> WSchema:
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
    head, *rest = lines
    indent0 = len(head) - len(head.lstrip())
    parts = head.split()
    opts = dict(p.split("=", 1) for p in parts[1:])
    valid = _range(opts["versions"])
    assert valid is not None
    schema = WSchema(
        parts[0],
        valid,
        _range(opts.get("flexible", "none")),
        [],
        int(opts["apiKey"]) if "apiKey" in opts else None,
        opts.get("typeName"),
    )
    stack: list[tuple[int, list[WField]]] = [(indent0, schema.fields)]
    for ln in rest:
        ind = len(ln) - len(ln.lstrip())
        words = ln.split()
        o = dict(p.split("=", 1) for p in words[2:])
        f = WField(
            words[0],
            words[1],
            _range(o.get("v", "0+")),
            _range(o.get("null")),
            int(o["tag"]) if "tag" in o else None,
            _range(o.get("tagv")),
            o.get("default"),
        )
        while stack and stack[-1][0] >= ind:
            stack.pop()
        stack[-1][1].append(f)
        stack.append((ind, f.children))
    return schema


def parse_many(text: str) -> dict[str, WSchema]:
    """Several descriptions separated by blank lines, keyed by message name."""
    out: dict[str, WSchema] = {}
    for block in text.strip().split("\n\n"):
        if block.strip():
            s = parse(block)
            out[s.name] = s
    return out


# ----------------------------------------------------------------------------- defaults


def default_of(f: WField) -> Any:
    d = f.default
    if f.is_array:
        return None if d == "null" else []
    if f.is_struct:
        if d == "null":
            return None
        return {c.name: default_of(c) for c in f.children}
    t = f.type
    if t == "bool":
        return d == "true"
    if t in ("int8", "int16", "uint16", "int32", "uint32", "int64"):
        return int(d) if d else 0
    if t == "float64":
        return float(d) if d else 0.0
    if t == "uuid":
        return d or ZERO_UUID_TEXT
    if t == "string":
        return None if d == "null" else (d or "")
    if t == "bytes":
        return None if d == "null" else b""
    raise ValueError(t)


# ----------------------------------------------------------------------------- encoding


def uvarint(n: int) -> bytes:
    out = bytearray()
    n &= 0xFFFFFFFF
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _uuid_bytes(text: str) -> bytes:
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    assert len(raw) == 16
    return raw


_FMT = {"int8": ">b", "int16": ">h", "uint16": ">H", "int32": ">i", "uint32": ">I", "int64": ">q"}


def _prim(t: str, v: Any) -> bytes:
    if t == "bool":
        return b"\x01" if v else b"\x00"
    if t in _FMT:
        return struct.pack(_FMT[t], v)
    if t == "float64":
        return struct.pack(">d", v)
    if t == "uuid":
        return _uuid_bytes(v)
    raise ValueError(t)


def _length(n: int, flexible: bool, kind: str) -> bytes:
    if flexible:
        return uvarint(n + 1)
    return struct.pack(">h" if kind == "string" else ">i", n)


def _var(t: str, v: Any, flexible: bool) -> bytes:
    if v is None:
        return uvarint(0) if flexible else struct.pack(">h" if t == "string" else ">i", -1)
    raw = v.encode("utf-8") if t == "string" else bytes(v)
    return _length(len(raw), flexible, t) + raw


def _value(f: WField, v: Any, version: int, flexible: bool, opts: dict[str, Any]) -> bytes:
    if f.is_array:
        if v is None:
            return uvarint(0) if flexible else struct.pack(">i", -1)
        out = bytearray(_length(len(v), flexible, "array"))
        for e in v:
            if f.is_struct:
                out += _struct(f.children, e, version, flexible, opts)
            elif f.elem in ("string", "bytes"):
                out += _var(f.elem, e, flexible)
            else:
                out += _prim(f.elem, e)
        return bytes(out)
    if f.is_struct:
        return _struct(f.children, v, version, flexible, opts)
    if f.type in ("string", "bytes"):
        return _var(f.type, v, flexible)
    return _prim(f.type, v)


def _struct(
    fields: list[WField], values: dict[str, Any], version: int, flexible: bool, opts: dict[str, Any]
) -> bytes:
    out = bytearray()
    tagged: list[tuple[int, bytes]] = []
    for f in fields:
        if not _in(version, f.versions):
            continue
        v = values.get(f.name, default_of(f))
        if _in(version, f.tagged):
            if v == default_of(f) and not opts.get("write_defaults"):
                continue
            assert f.tag is not None
            if f.is_struct and not f.is_array and _in(version, f.nullable):
                payload = uvarint(0) if v is None else uvarint(1) + _value(f, v, version, True, opts)
            else:
                payload = _value(f, v, version, True, opts)
            tagged.append((f.tag, payload))
            continue
        if f.is_struct and not f.is_array and _in(version, f.nullable):
            if v is None:
                out += b"\xff"
                continue
            out += b"\x01"
        out += _value(f, v, version, flexible, opts)
    if flexible:
        extra = opts.get("unknown_tags")
        if extra:
            tagged.extend(extra)
        tagged.sort(key=lambda t: t[0])
        out += uvarint(len(tagged))
        for tag, payload in tagged:
            out += uvarint(tag) + uvarint(len(payload)) + payload
    return bytes(out)


def encode(
    schema: WSchema,
    values: dict[str, Any],
    version: int,
    *,
    unknown_tags: list[tuple[int, bytes]] | None = None,
    write_defaults: bool = False,
) -> bytes:
    """The body of ``schema`` at ``version`` (no version prefix, no frame).

    ``unknown_tags`` are added to *every* struct's tagged section in flexible versions;
    ``write_defaults`` writes tagged fields even when they hold their default.
    """
    flexible = _in(version, schema.flexible)
    opts = {"unknown_tags": unknown_tags, "write_defaults": write_defaults}
    return _struct(schema.fields, values, version, flexible, opts)


# ----------------------------------------------------------------------------- JSON


def _json_scalar(t: str, v: Any) -> Any:
    if v is None:
        return None
    if t == "bytes":
        return base64.b64encode(v).decode("ascii")
    if t == "float64" and not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    return v


def _json_fields(fields: list[WField], values: dict[str, Any], version: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields:
        if not _in(version, f.versions):
            continue
        v = values.get(f.name, default_of(f))
        if _in(version, f.tagged) and v == default_of(f):
            continue
        if v is None:
            out[f.name] = None
        elif f.is_array:
            if f.is_struct:
                out[f.name] = [_json_fields(f.children, e, version) for e in v]
            else:
                out[f.name] = [_json_scalar(f.elem, e) for e in v]
        elif f.is_struct:
            out[f.name] = _json_fields(f.children, v, version)
        else:
            out[f.name] = _json_scalar(f.type, v)
    return out


def expected_json(schema: WSchema, values: dict[str, Any], version: int) -> dict[str, Any]:
    """What Kafka's ``*JsonConverter.write(message, version)`` gives for ``values``."""
    return _json_fields(schema.fields, values, version)


# ----------------------------------------------------------------------------- samples

_STRINGS = ["", "a", "group-1", "ünïcødé ✓", "日本語", "emoji 😀", "x" * 40, "tab\there"]


def _sample_scalar(t: str, rng: random.Random) -> Any:
    if t == "bool":
        return rng.random() < 0.5
    if t == "int8":
        return rng.randint(-128, 127)
    if t == "int16":
        return rng.randint(-(2**15), 2**15 - 1)
    if t == "uint16":
        return rng.randint(0, 2**16 - 1)
    if t == "int32":
        return rng.randint(-(2**31), 2**31 - 1)
    if t == "uint32":
        return rng.randint(0, 2**32 - 1)
    if t == "int64":
        return rng.choice([-1, 0, 1700000000000, rng.randint(-(2**63), 2**63 - 1)])
    if t == "float64":
        return rng.choice([0.0, 1.5, 1048576.0, 1e7, 1e-4, rng.uniform(-1e9, 1e9)])
    if t == "uuid":
        raw = bytes(rng.getrandbits(8) for _ in range(16))
        return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")
    if t == "string":
        return rng.choice(_STRINGS)
    if t == "bytes":
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 9)))
    raise ValueError(t)


def _sample_field(f: WField, rng: random.Random, version: int, depth: int) -> Any:
    if _in(version, f.tagged) and rng.random() < 0.4:
        return default_of(f)
    if _in(version, f.nullable) and rng.random() < 0.25:
        return None
    if f.is_array:
        n = rng.randint(0, 3 if depth < 2 else 1)
        if f.is_struct:
            return [_sample_struct(f.children, rng, version, depth + 1) for _ in range(n)]
        return [_sample_scalar(f.elem, rng) for _ in range(n)]
    if f.is_struct:
        return _sample_struct(f.children, rng, version, depth + 1)
    return _sample_scalar(f.type, rng)


def _sample_struct(fields: list[WField], rng: random.Random, version: int, depth: int) -> dict[str, Any]:
    return {f.name: _sample_field(f, rng, version, depth) for f in fields}


def sample(schema: WSchema, rng: random.Random, version: int) -> dict[str, Any]:
    """Random values for every field of ``schema`` (nulls only where nullable)."""
    return _sample_struct(schema.fields, rng, version, 0)
