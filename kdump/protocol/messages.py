"""Kafka's message-definition encoding: kdump's reader of it and its JSON rendering.

Kafka generates a Java class per JSON message definition (``*.json`` under
``.../resources/common/message``).  Coordinator records, KRaft metadata records, KRaft
control records and ConsumerProtocol bytes are all written with that generated code.
This module is kdump's own reader for that encoding, driven by small Python schema
tables (:class:`Schema` / :class:`Field`), plus the renderer that gives the dict
Kafka's generated ``*JsonConverter.write(message, version)`` builds, and
:func:`json_text`, which prints such a dict the way Jackson's ``JsonNode.toString()``
does (compact, Java number formatting).

Encoding rules (per message *version*):

* bool / int8 / int16 / uint16 / int32 / uint32 / int64 / float64: fixed, big-endian.
* uuid: 16 bytes; rendered as URL-safe base64 without padding (``Uuid.toString``).
* string / bytes / records / arrays: non-flexible versions use an int16 (string) or
  int32 length, -1 = null; flexible versions use uvarint(N + 1), 0 = null.
* nullable struct fields (not tagged): int8 marker, negative = null.
* nullable struct fields in the tagged section: a uvarint marker at the start of the
  field's payload, 0 (or negative, as a Java int) = null, 1 = present, then the struct.
  Kafka writes a null only when the field's default is not null (tag, size 1, marker
  0); a field whose default is null is left out when null.
* every struct read at a flexible version ends with a tagged-field section:
  uvarint count, then (uvarint tag, uvarint size, payload) per field.  Fields whose
  ``tagged_versions`` contain the version live only there.  Unknown tags are
  skipped (Kafka keeps them as ``_unknownTaggedFields``; its JSON converters never
  print them, so neither does kdump).

Reading produces the *message* (every field of the struct, absent ones at their
default, like the generated Java object); :func:`to_json` then renders the fields
present in a version, tagged fields only when they differ from their default.

All decoding problems raise :class:`SchemaError`.

Size: one module of ~730 lines because its sections (versions, schema tables, defaults,
reader, JSON converter, Jackson text) are the one encoding read and written back, each
following the same per-type table of Kafka's generated code; they are split by the
``# ---`` headers below.
"""

from __future__ import annotations

import base64
import json
import json.encoder
import math
import re
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from ..errors import CorruptDataError, RecordTooLarge
from ..limits import DEFAULT_MAX_BATCH_BYTES, OBJECT_COST, max_objects

__all__ = [
    "ZERO_UUID",
    "Field",
    "Reader",
    "Schema",
    "SchemaError",
    "Versions",
    "clamp_version",
    "decode",
    "default_value",
    "java_double_str",
    "json_text",
    "read_message",
    "read_struct",
    "to_json",
    "uuid_str",
]

MAX_VERSION = 0x7FFF
ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA"

PRIMITIVE_TYPES = frozenset(
    {
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
        "records",
    }
)
_INT_TYPES = frozenset({"int8", "int16", "uint16", "int32", "uint32", "int64"})
_VARIABLE = frozenset({"string", "bytes", "records"})


class SchemaError(CorruptDataError, ValueError):
    """The bytes do not decode with the schema (truncated, bad length, bad version...)."""


#: elements (array items) one decoded message may hold: the objects a record expands to
#: are bounded like its bytes, by ``--max-batch-bytes`` (see :func:`set_max_batch_bytes`)
_max_batch_bytes = DEFAULT_MAX_BATCH_BYTES


def set_max_batch_bytes(max_batch_bytes: int) -> None:
    """The ``--max-batch-bytes`` of this run: decoded messages hold at most
    ``max_batch_bytes // OBJECT_COST`` array elements (else :class:`RecordTooLarge`)."""
    global _max_batch_bytes
    _max_batch_bytes = max_batch_bytes


def _too_large(n: int) -> RecordTooLarge:
    return RecordTooLarge(
        f"the record decodes to more than {max_objects(_max_batch_bytes)} elements, the most "
        f"--max-batch-bytes {_max_batch_bytes} allows ({OBJECT_COST} bytes each; an array "
        f"declares {n}); raise --max-batch-bytes to read it")


# ----------------------------------------------------------------------------- versions


@dataclass(frozen=True, slots=True)
class Versions:
    """An inclusive version range; ``lo > hi`` means "none"."""

    lo: int
    hi: int

    @staticmethod
    def parse(spec: str | None) -> Versions:
        """Parse Kafka's version notation: ``"0+"``, ``"1-3"``, ``"2"``, ``"none"``."""
        if spec is None or spec == "" or spec == "none":
            return _NO_VERSIONS
        spec = spec.strip()
        try:
            if spec.endswith("+"):
                return Versions(int(spec[:-1]), MAX_VERSION)
            if "-" in spec:
                lo, hi = spec.split("-", 1)
                return Versions(int(lo), int(hi))
            v = int(spec)
        except ValueError as e:
            raise SchemaError(f"bad version range {spec!r}") from e
        return Versions(v, v)

    @property
    def empty(self) -> bool:
        return self.lo > self.hi

    def __contains__(self, version: int) -> bool:
        return self.lo <= version <= self.hi

    def __str__(self) -> str:
        if self.empty:
            return "none"
        if self.hi == MAX_VERSION:
            return f"{self.lo}+"
        if self.lo == self.hi:
            return str(self.lo)
        return f"{self.lo}-{self.hi}"


_NO_VERSIONS = Versions(1, 0)


def clamp_version(version: int, valid: Versions) -> int:
    """The layout Kafka's generated code uses for ``version``.

    The generated readers and JSON converters never reject a version outside the
    message's valid range: their range checks are emitted only where the valid range
    makes them necessary, so a newer version reads like the highest known one and a
    negative version like the lowest.  Clamping reproduces that exactly.
    """
    if valid.empty:
        return version
    return min(max(version, valid.lo), valid.hi)


# ----------------------------------------------------------------------------- schema tables


def _lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


@dataclass(frozen=True)
class Field:
    """One field of a message-schema struct, as in Kafka's JSON definitions.

    ``type`` uses the schema notation: a primitive (``"int32"``, ``"string"``, ...),
    ``"[]int32"`` for arrays, or a struct name (``"TopicPartition"`` /
    ``"[]TopicPartition"``) whose members are given in ``fields``.  ``default`` is the
    schema's default (``"null"``, ``-1``, ``"true"`` ...); omitted means the type's zero.
    ``versions`` defaults to ``tagged_versions`` for tagged fields (as in Kafka), else
    ``"0+"``.
    """

    name: str
    type: str
    versions: str | None = None
    nullable_versions: str | None = None
    tag: int | None = None
    tagged_versions: str | None = None
    default: str | int | float | bool | None = None
    fields: tuple[Field, ...] = ()

    def __post_init__(self) -> None:
        elem = self.type[2:] if self.type.startswith("[]") else self.type
        is_struct = elem not in PRIMITIVE_TYPES
        if not is_struct and self.fields:
            raise SchemaError(f"field {self.name}: primitive type {self.type} with sub-fields")
        tagged = Versions.parse(self.tagged_versions)
        if not tagged.empty and self.tag is None:
            raise SchemaError(f"field {self.name} has tagged versions but no tag")
        object.__setattr__(self, "json_name", _lower_first(self.name))
        object.__setattr__(self, "is_array", self.type.startswith("[]"))
        object.__setattr__(self, "elem_type", elem)
        object.__setattr__(self, "is_struct", is_struct)
        # Kafka's FieldSpec: without "versions", a tagged field exists in its tagged
        # versions; kdump's tables also default plain fields to "0+".
        if self.versions is None:
            present = tagged if not tagged.empty else Versions.parse("0+")
        else:
            present = Versions.parse(self.versions)
        object.__setattr__(self, "v_present", present)
        object.__setattr__(self, "v_nullable", Versions.parse(self.nullable_versions))
        object.__setattr__(self, "v_tagged", tagged)

    # Derived in __post_init__.
    json_name: str = dc_field(init=False, repr=False, compare=False, default="")
    is_array: bool = dc_field(init=False, repr=False, compare=False, default=False)
    elem_type: str = dc_field(init=False, repr=False, compare=False, default="")
    is_struct: bool = dc_field(init=False, repr=False, compare=False, default=False)
    v_present: Versions = dc_field(init=False, repr=False, compare=False, default=_NO_VERSIONS)
    v_nullable: Versions = dc_field(init=False, repr=False, compare=False, default=_NO_VERSIONS)
    v_tagged: Versions = dc_field(init=False, repr=False, compare=False, default=_NO_VERSIONS)


@dataclass(frozen=True)
class Schema:
    """A top-level message: name, valid and flexible versions, fields (and api key)."""

    name: str
    valid_versions: str
    flexible_versions: str
    fields: tuple[Field, ...]
    api_key: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "v_valid", Versions.parse(self.valid_versions))
        object.__setattr__(self, "v_flexible", Versions.parse(self.flexible_versions))

    v_valid: Versions = dc_field(init=False, repr=False, compare=False, default=_NO_VERSIONS)
    v_flexible: Versions = dc_field(init=False, repr=False, compare=False, default=_NO_VERSIONS)

    def decode(self, data: bytes, version: int, *, exact: bool = False) -> dict[str, Any]:
        """Shorthand for :func:`decode`."""
        return decode(self, data, version, exact=exact)


# ----------------------------------------------------------------------------- defaults


def _int_default(field: Field) -> int:
    d = field.default
    if d is None or d == "":
        return 0
    if isinstance(d, bool):
        raise SchemaError(f"field {field.name}: bad default {d!r}")
    if isinstance(d, int):
        return d
    s = str(d)
    if s.startswith("0x"):
        return int(s[2:], 16)
    return int(s)


def default_value(field: Field) -> Any:
    """The value a generated Java object holds for ``field`` when it is not read."""
    d = field.default
    if field.is_array:
        return None if d == "null" else []
    t = field.type
    if field.is_struct:
        return None if d == "null" else struct_defaults(field.fields)
    if t == "bool":
        if d is None or d == "":
            return False
        if isinstance(d, bool):
            return d
        return str(d).lower() == "true"
    if t in _INT_TYPES:
        return _int_default(field)
    if t == "float64":
        return 0.0 if d is None or d == "" else float(d)
    if t == "uuid":
        return ZERO_UUID if d is None or d == "" else str(d)
    if t == "string":
        if d == "null":
            return None
        return "" if d is None else str(d)
    if t == "bytes":
        return None if d == "null" else b""
    if t == "records":
        return None
    raise SchemaError(f"field {field.name}: unsupported type {t}")


def struct_defaults(fields: Sequence[Field]) -> dict[str, Any]:
    """A struct whose every field holds its default."""
    return {f.json_name: default_value(f) for f in fields}


# ----------------------------------------------------------------------------- reader


def _wrap32(n: int) -> int:
    n &= 0xFFFFFFFF
    return n - 0x100000000 if n & 0x80000000 else n


def uuid_str(raw: bytes) -> str:
    """Kafka's ``Uuid.toString()``: URL-safe base64 of the 16 bytes, no padding."""
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


class Reader:
    """A bounds-checked cursor over bytes; every failure is a :class:`SchemaError`."""

    __slots__ = ("budget", "data", "end", "pos")

    def __init__(self, data: bytes | bytearray | memoryview, pos: int = 0, end: int | None = None,
                 budget: int | None = None):
        self.data = bytes(data)
        self.pos = pos
        self.end = len(self.data) if end is None else end
        #: array elements this read may still produce
        self.budget = max_objects(_max_batch_bytes) if budget is None else budget

    @property
    def remaining(self) -> int:
        return self.end - self.pos

    def take(self, n: int) -> bytes:
        if n < 0:
            raise SchemaError(f"negative length {n}")
        if n > self.end - self.pos:
            raise SchemaError(f"needed {n} byte(s) at position {self.pos}, only {self.end - self.pos} left")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def int8(self) -> int:
        return int.from_bytes(self.take(1), "big", signed=True)

    def int16(self) -> int:
        return int.from_bytes(self.take(2), "big", signed=True)

    def uint16(self) -> int:
        return int.from_bytes(self.take(2), "big")

    def int32(self) -> int:
        return int.from_bytes(self.take(4), "big", signed=True)

    def uint32(self) -> int:
        return int.from_bytes(self.take(4), "big")

    def int64(self) -> int:
        return int.from_bytes(self.take(8), "big", signed=True)

    def float64(self) -> float:
        return float(struct.unpack(">d", self.take(8))[0])

    def uuid(self) -> str:
        return uuid_str(self.take(16))

    def uvarint(self) -> int:
        """Kafka's ``readUnsignedVarint``: at most 5 bytes, result as a Java int."""
        result = 0
        for i in range(5):
            if self.pos >= self.end:
                raise SchemaError(f"truncated varint at position {self.pos}")
            b = self.data[self.pos]
            self.pos += 1
            result |= (b & 0x7F) << (7 * i)
            if not b & 0x80:
                return _wrap32(result)
        raise SchemaError("Varint is too long, the most significant bit in the 5th byte is set")

    def short_uvarint(self, what: str) -> int:
        """An unsigned varint that must fit in an int16 (KRaft frame headers)."""
        try:
            val = self.uvarint()
        except SchemaError as e:
            raise SchemaError(f"Error while reading {what}") from e
        if val > 0x7FFF:
            raise SchemaError(f"Value for {what} was too large.")
        return ((val + 0x8000) & 0xFFFF) - 0x8000


def _read_fixed(r: Reader, t: str) -> Any:
    if t == "bool":
        return r.int8() != 0
    if t == "int8":
        return r.int8()
    if t == "int16":
        return r.int16()
    if t == "uint16":
        return r.uint16()
    if t == "int32":
        return r.int32()
    if t == "uint32":
        return r.uint32()
    if t == "int64":
        return r.int64()
    if t == "float64":
        return r.float64()
    if t == "uuid":
        return r.uuid()
    raise SchemaError(f"unsupported type {t}")


def _read_length(r: Reader, t: str, flexible: bool) -> int:
    if flexible:
        return _wrap32(r.uvarint() - 1)
    if t == "string":
        return r.int16()
    return r.int32()


def _read_variable(r: Reader, name: str, t: str, version: int, flexible: bool, nullable: bool) -> Any:
    n = _read_length(r, t, flexible)
    if n < 0:
        if not nullable:
            raise SchemaError(f"non-nullable field {name} was serialized as null")
        return None
    if t == "string":
        if n > 0x7FFF:
            raise SchemaError(f"string field {name} had invalid length {n}")
        return r.take(n).decode("utf-8", errors="replace")
    return r.take(n)  # bytes, records


def _read_array(r: Reader, field: Field, version: int, flexible: bool, nullable: bool) -> Any:
    n = _read_length(r, "array", flexible)
    if n < 0:
        if not nullable:
            raise SchemaError(f"non-nullable field {field.json_name} was serialized as null")
        return None
    if n > r.remaining:
        raise SchemaError(
            f"Tried to allocate a collection of size {n}, but there are only {r.remaining} bytes remaining."
        )
    r.budget -= n
    if r.budget < 0:
        raise _too_large(n)
    et = field.elem_type
    out: list[Any] = []
    if field.is_struct:
        for _ in range(n):
            out.append(read_struct(r, field.fields, version, flexible))
    elif et in _VARIABLE:
        for _ in range(n):
            out.append(_read_variable(r, f"{field.json_name} element", et, version, flexible, False))
    else:
        for _ in range(n):
            out.append(_read_fixed(r, et))
    return out


def _read_value(r: Reader, field: Field, version: int, flexible: bool, tagged: bool) -> Any:
    nullable = version in field.v_nullable
    if field.is_array:
        return _read_array(r, field, version, flexible, nullable)
    if field.is_struct:
        if nullable:
            # Kafka's MessageDataGenerator.generateStructReader (4.0 to trunk): a tagged
            # nullable struct starts with readUnsignedVarint() (<= 0: null), a positional
            # one with readByte() (< 0: null); generateClassWriter writes the tagged one as
            # size + 1, writeUnsignedVarint(1), the struct (a null: size 1, marker 0, and
            # only when the default is not null).  An int8 -1 (0xff) as the whole of a
            # tagged field's bytes is no marker Kafka writes (its reader would run on past
            # the field), but it is the positional marker an encoder following the
            # non-tagged rule writes, and it can mean nothing but null: read as null.
            if tagged:
                if r.end - r.pos == 1 and r.data[r.pos] == 0xFF:
                    r.pos += 1
                    return None
                if r.uvarint() <= 0:
                    return None
            elif r.int8() < 0:
                return None
        return read_struct(r, field.fields, version, flexible)
    if field.type in _VARIABLE:
        return _read_variable(r, field.json_name, field.type, version, flexible, nullable)
    return _read_fixed(r, field.type)


_TAG_CACHE: dict[int, tuple[Sequence[Field], dict[int, Field]]] = {}


def _tagged_fields(fields: Sequence[Field]) -> dict[int, Field]:
    cached = _TAG_CACHE.get(id(fields))
    if cached is not None and cached[0] is fields:
        return cached[1]
    by_tag = {f.tag: f for f in fields if f.tag is not None and not f.v_tagged.empty}
    _TAG_CACHE[id(fields)] = (fields, by_tag)  # keeps ``fields`` alive: the id stays valid
    return by_tag


def read_struct(r: Reader, fields: Sequence[Field], version: int, flexible: bool) -> dict[str, Any]:
    """Read one struct at ``version``; returns every field (absent ones at default)."""
    out: dict[str, Any] = {}
    for f in fields:
        if version in f.v_present and version not in f.v_tagged:
            out[f.json_name] = _read_value(r, f, version, flexible, False)
        else:
            out[f.json_name] = default_value(f)
    if flexible:
        count = r.uvarint()
        by_tag = _tagged_fields(fields)
        for _ in range(max(count, 0)):
            tag = r.uvarint()
            size = r.uvarint()
            if size < 0:
                raise SchemaError(f"tagged field {tag} has negative size {size}")
            start = r.pos
            r.take(size)
            tf = by_tag.get(tag)
            if tf is None:
                continue  # unknown tagged field: Kafka keeps it aside, never prints it
            if version not in tf.v_tagged or version not in tf.v_present:
                raise SchemaError(f"Tag {tag} is not valid for version {version}")
            # the field's own bytes, positions counted in the whole message (as Kafka's)
            sub = Reader(r.data, start, start + size, budget=r.budget)
            out[tf.json_name] = _read_value(sub, tf, version, True, True)
            r.budget = sub.budget
    return out


def read_message(schema: Schema, data: bytes, version: int, *, pos: int = 0) -> tuple[dict[str, Any], int]:
    """Read ``schema`` at ``version`` from ``data[pos:]``; returns (message, end position).

    ``version`` must be within the schema's valid versions (clamp first with
    :func:`clamp_version` to read the way Kafka does beyond them).
    """
    if version not in schema.v_valid:
        raise SchemaError(f"Can't read version {version} of {schema.name}")
    r = Reader(data, pos)
    msg = read_struct(r, schema.fields, version, version in schema.v_flexible)
    return msg, r.pos


# ----------------------------------------------------------------------------- JSON


def _is_default(field: Field, value: Any) -> bool:
    """Kafka's ``FieldSpec.generateNonDefaultValueCheck`` (3.9-4.4), negated: what the
    generated ``*JsonConverter.write`` leaves out of a tagged field.  A nullable array,
    bytes, string, uuid or struct whose default is not ``"null"`` is not default when
    null (``x == null || !x.isEmpty()``); one whose default is ``"null"`` is default only
    when null, so ``[]`` prints; a records field's default is always null."""
    d = "null" if field.type == "records" else field.default
    if field.is_array or field.type in ("bytes", "records"):
        if d == "null":
            return value is None
        if value is None:
            return False  # null differs from a non-null default
        return len(value) == 0
    if field.is_struct or field.type in ("string", "uuid"):
        if d == "null":
            return value is None
        if value is None:
            return False
        return bool(value == default_value(field))
    return bool(value == default_value(field))


def _json_scalar(t: str, value: Any) -> Any:
    if value is None:
        return None
    if t == "bytes":
        return base64.b64encode(bytes(value)).decode("ascii")
    if t == "records":
        return ""  # Kafka's converter writes an empty BinaryNode for records
    if t == "float64":
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return float(value)
    return value


def _json_value(field: Field, value: Any, version: int) -> Any:
    if value is None:
        return None
    if field.is_array:
        if field.is_struct:
            return [to_json(field.fields, v, version) for v in value]
        return [_json_scalar(field.elem_type, v) for v in value]
    if field.is_struct:
        return to_json(field.fields, value, version)
    return _json_scalar(field.type, value)


def to_json(fields: Sequence[Field], message: dict[str, Any], version: int) -> dict[str, Any]:
    """What Kafka's generated ``*JsonConverter.write(message, version)`` produces.

    Fields absent in ``version`` are left out; tagged fields appear only when they
    differ from their default; bytes are base64 (Jackson ``BinaryNode``), uuids
    their text form, nulls ``None``.
    """
    out: dict[str, Any] = {}
    for f in fields:
        if version not in f.v_present:
            continue
        value = message[f.json_name] if f.json_name in message else default_value(f)
        if version in f.v_tagged and _is_default(f, value):
            continue
        out[f.json_name] = _json_value(f, value, version)
    return out


def decode(schema: Schema, data: bytes, version: int, *, exact: bool = False) -> dict[str, Any]:
    """Read ``data`` as ``schema`` at ``version`` and render it like Kafka's converter.

    With ``exact``, bytes left after the message are an error.
    """
    msg, end = read_message(schema, data, version)
    if exact and end != len(data):
        raise SchemaError(f"Found {len(data) - end} byte(s) of garbage after {schema.name}")
    return to_json(schema.fields, msg, version)


# ----------------------------------------------------------------------------- Jackson text


def java_double_str(x: float) -> str:
    """Java's ``Double.toString`` (JDK 19+ shortest-decimal algorithm)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    ax = abs(x)
    shortest = Decimal(repr(ax))
    t = shortest.as_tuple()
    digits = "".join(map(str, t.digits)).rstrip("0") or "0"
    assert isinstance(t.exponent, int)
    sci_exp = len(t.digits) - 1 + t.exponent
    if len(digits) == 1:
        # Java considers decimals of length 1 *or 2* when the shortest has one digit and
        # keeps the one closest to the exact binary value.
        exact = Decimal(ax)
        two = exact.quantize(Decimal(1).scaleb(exact.adjusted() - 1), rounding=ROUND_HALF_EVEN)
        if float(two) == ax and abs(two - exact) < abs(shortest - exact):
            t2 = two.as_tuple()
            assert isinstance(t2.exponent, int)
            digits = "".join(map(str, t2.digits)).rstrip("0") or "0"
            sci_exp = len(t2.digits) - 1 + t2.exponent
    if 1e-3 <= ax < 1e7:
        if sci_exp >= 0:
            int_part = digits[: sci_exp + 1].ljust(sci_exp + 1, "0")
            frac = digits[sci_exp + 1 :] or "0"
        else:
            int_part = "0"
            frac = "0" * (-sci_exp - 1) + digits
        return f"{sign}{int_part}.{frac}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{sci_exp}"


_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


_CONTROL_CHARS = re.compile("[\x00-\x1f]")
_encode_basestring: Callable[[str], str] = json.encoder.encode_basestring


def _json_string(s: str) -> str:
    if _CONTROL_CHARS.search(s) is None:
        # No control characters: Jackson and json escape exactly '"' and '\\'.
        return _encode_basestring(s)
    out = ['"']
    for ch in s:
        esc = _SHORT_ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _json_parts(obj: object, out: list[str]) -> None:
    if isinstance(obj, str):
        out.append(_json_string(obj))
    elif isinstance(obj, dict):
        out.append("{")
        first = True
        for k, v in obj.items():
            if first:
                first = False
            else:
                out.append(",")
            out.append(_json_string(str(k)))
            out.append(":")
            _json_parts(v, out)
        out.append("}")
    elif obj is None:
        out.append("null")
    elif obj is True:
        out.append("true")
    elif obj is False:
        out.append("false")
    elif isinstance(obj, int):
        out.append(str(obj))
    elif isinstance(obj, list | tuple):
        out.append("[")
        for i, v in enumerate(obj):
            if i:
                out.append(",")
            _json_parts(v, out)
        out.append("]")
    elif isinstance(obj, float):
        text = java_double_str(obj)
        out.append(text if math.isfinite(obj) else f'"{text}"')
    elif isinstance(obj, bytes | bytearray):
        out.append('"' + base64.b64encode(bytes(obj)).decode("ascii") + '"')
    else:
        raise TypeError(f"cannot render {type(obj).__name__} as JSON")


def json_text(obj: object) -> str:
    """Compact JSON exactly as Jackson's ``JsonNode.toString()`` prints it.

    Differences from ``json.dumps(separators=(",", ":"), ensure_ascii=False)``:
    control characters are escaped with upper-case hex (``\\u001F``), doubles use
    Java's ``Double.toString`` (``1.0E7``, ``1.0E-4``), and non-finite doubles are
    quoted strings (``"NaN"``).
    """
    out: list[str] = []
    _json_parts(obj, out)
    return "".join(out)
