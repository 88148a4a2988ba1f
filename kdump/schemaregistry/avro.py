"""Avro payloads, read with fastavro (the writer's schema named by the payload's id).

JSON form of the values: records as objects, unions as the branch's plain value (no
type tag), ``bytes``/``fixed`` as base64 strings, ``decimal`` as a decimal string,
``date`` / ``time-*`` / ``timestamp-*`` / ``local-timestamp-*`` as ISO-8601 strings,
``uuid`` as its string.

Bounded: the schema's JSON text is parsed with a nesting limit, and an ``array`` or
``map`` whose items take no bytes (``null``, an empty record ...) is refused: a few
payload bytes could declare billions of them.  A recursive schema (a record naming
itself through a union or an array: a linked list, a tree) is legal Avro and decoded,
but its values are read by fastavro's Python reader, whose depth Python's recursion
limit bounds (the compiled reader has no such bound: a few hundred kilobytes of
payload nesting deeper than the C stack would crash the process); a value nesting
deeper is refused with a note.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import io
import json
import uuid
from typing import Any

from .storage import Registry, SchemaVersion

#: nesting of a schema (records in records ...) beyond this is refused
MAX_DEPTH = 64
#: a schema whose smallest value holds more values than this per payload byte is
#: refused: a few bytes of payload would expand to millions of objects
MAX_NODES_PER_BYTE = 10_000

_FIXED_SIZES = {"null": 0, "boolean": 1, "int": 1, "long": 1, "float": 4, "double": 8,
                "bytes": 1, "string": 1}


class SchemaProblem(Exception):
    """A schema that cannot be used (parse error, unresolved reference ...)."""


class PayloadProblem(ValueError):
    """Bytes that are not a value of the schema (the message says why)."""


class AvroReader:
    """One writer schema, parsed once."""

    format = "avro"

    def __init__(self, v: SchemaVersion, reg: Registry) -> None:
        import fastavro

        self._schemaless_reader = fastavro.schemaless_reader
        named: dict[str, Any] = {}
        seen: set[tuple[str, int]] = set()
        try:
            for ref in references_in_order(v, reg, seen, 0):
                ref_schema = parse_avro_schema(ref.schema)
                _check(ref_schema, named, 0)
                fastavro.parse_schema(ref_schema, named_schemas=named)
            schema = parse_avro_schema(v.schema)
            _check(schema, named, 0)
            self.parsed = fastavro.parse_schema(schema, named_schemas=named)
            recursive: set[str] = set()
            nodes, size = _expansion(self.parsed, named, {}, set(), 0, recursive)
            if nodes > MAX_NODES_PER_BYTE * max(size, 1):
                raise SchemaProblem(
                    f"a value of {size} bytes would hold {nodes:,} values (named types "
                    "nested in types that take no bytes): not decoded")
        except SchemaProblem:
            raise
        except Exception as e:  # fastavro raises SchemaParseException, ValueError, KeyError...
            raise SchemaProblem(f"the Avro schema does not parse: {_reason(e)}") from None
        self.convert = _needs_conversion(self.parsed, set())
        #: the named types that refer to themselves (their values may nest any depth)
        self.recursive = sorted(recursive)
        if recursive:
            from fastavro._read_py import schemaless_reader

            self._schemaless_reader = schemaless_reader

    def read(self, data: bytes) -> tuple[object, int]:
        """(JSON-able value, bytes consumed)"""
        bio = io.BytesIO(data)
        value = self._schemaless_reader(bio, self.parsed, None)
        if self.convert:
            value = to_json(value)
        return value, bio.tell()


def _reason(e: BaseException) -> str:
    text = str(e).splitlines()[0] if str(e) else ""
    return f"{e.__class__.__name__}: {text[:200]}" if text else e.__class__.__name__


def parse_avro_schema(text: str) -> Any:
    try:
        obj = json.loads(text)
    except RecursionError:
        raise SchemaProblem("the Avro schema nests too deeply") from None
    except ValueError:
        # a bare name ("string") is valid Avro but not a JSON document
        obj = text.strip()
        if not obj.isidentifier():
            raise SchemaProblem("the Avro schema is not JSON") from None
    return obj


def references_in_order(v: SchemaVersion, reg: Registry, seen: set[tuple[str, int]],
                         depth: int) -> list[SchemaVersion]:
    """The referenced schemas, depth first (a reference's own references before it)."""
    if depth > MAX_DEPTH:
        raise SchemaProblem("references nest too deeply")
    out: list[SchemaVersion] = []
    for ref in v.references:
        target = reg.resolve(ref["subject"], ref["version"])
        if target is None:
            raise SchemaProblem(f"reference {ref['name'][:100]!r} (subject "
                                f"{ref['subject'][:100]!r} version {ref['version']}) is not "
                                "in the registry's storage")
        key = (target.subject, target.version)
        if key in seen:
            continue
        seen.add(key)
        out += references_in_order(target, reg, seen, depth + 1)
        out.append(target)
    return out


_PRIMITIVE_ZERO = {"null"}


def _check(schema: Any, named: dict[str, Any], depth: int) -> None:
    """Refuse nesting deeper than MAX_DEPTH and arrays/maps of zero-byte items."""
    if depth > MAX_DEPTH:
        raise SchemaProblem(f"the Avro schema nests more than {MAX_DEPTH} levels")
    if isinstance(schema, list):
        for s in schema:
            _check(s, named, depth + 1)
    elif isinstance(schema, dict):
        t = schema.get("type")
        if t in ("array", "map"):
            items = schema.get("items" if t == "array" else "values")
            if _zero_size(items, named, 0):
                raise SchemaProblem(f"an {t} of items that take no bytes: a payload could "
                                    "declare any number of them; not decoded")
            _check(items, named, depth + 1)
        elif t == "record" or t == "error":
            fields = schema.get("fields")
            if isinstance(fields, list):
                for f in fields:
                    if isinstance(f, dict):
                        _check(f.get("type"), named, depth + 1)
        elif isinstance(t, (dict, list)):
            _check(t, named, depth + 1)


def _zero_size(s: Any, named: dict[str, Any], depth: int) -> bool:
    if depth > MAX_DEPTH:
        return False
    if isinstance(s, str):
        return s in _PRIMITIVE_ZERO
    if isinstance(s, dict):
        t = s.get("type")
        if t in _PRIMITIVE_ZERO:
            return True
        if t == "fixed":
            return s.get("size") == 0
        if t in ("record", "error"):
            fields = s.get("fields")
            return isinstance(fields, list) and all(
                isinstance(f, dict) and _zero_size(f.get("type"), named, depth + 1)
                for f in fields)
        if isinstance(t, (dict, list)):
            return _zero_size(t, named, depth + 1)
    return False


def _expansion(s: Any, named: dict[str, Any], memo: dict[str, tuple[int, int]],
               active: set[str], depth: int, recursive: set[str]) -> tuple[int, int]:
    """(values, bytes) of the smallest value of ``s``: how many values (objects, items,
    scalars) it holds and the fewest payload bytes it takes.  Named types are counted
    once per use (a 1 KB schema can nest named records ten deep, ten fields each: a
    million values); a recursive use counts as (1, 1) (recursion goes through a union or
    an array, which take a byte)."""
    if depth > 4 * MAX_DEPTH:
        raise SchemaProblem(f"the Avro schema nests more than {4 * MAX_DEPTH} levels")
    if isinstance(s, str):
        if s in _FIXED_SIZES:
            return 1, _FIXED_SIZES[s]
        if s in memo:
            return memo[s]
        if s in active:
            recursive.add(s)
            return 1, 1
        if s not in named:
            return 1, 1
        active.add(s)
        got = _expansion(named[s], named, memo, active, depth + 1, recursive)
        active.discard(s)
        memo[s] = got
        return got
    if isinstance(s, list):  # a union: an index, then one branch (the worst for values)
        if not s:
            return 1, 1
        branches = [_expansion(b, named, memo, active, depth + 1, recursive) for b in s]
        return 1 + max(n for n, _ in branches), 1 + min(b for _, b in branches)
    if not isinstance(s, dict):
        return 1, 1
    t = s.get("type")
    if t in ("record", "error"):
        name = s.get("name")
        if isinstance(name, str) and name in memo:
            return memo[name]
        if isinstance(name, str):
            active.add(name)
        n, b = 1, 0
        for f in s.get("fields") or ():
            fn, fb = _expansion(f.get("type") if isinstance(f, dict) else None, named, memo,
                                active, depth + 1, recursive)
            n, b = n + fn, b + fb
        if isinstance(name, str):
            active.discard(name)
            memo[name] = (n, b)
        return n, b
    if t in ("array", "map"):
        return 1, 1  # a block count; items were checked by _check (none of zero bytes)
    if t == "fixed":
        return 1, int(s.get("size") or 0)
    if t == "enum":
        return 1, 1
    return _expansion(t, named, memo, active, depth + 1, recursive)


def _needs_conversion(s: Any, seen: set[str]) -> bool:
    """Can values of this parsed schema hold something json.dumps cannot write?"""
    if isinstance(s, str):
        return s in ("bytes",)
    if isinstance(s, list):
        return any(_needs_conversion(x, seen) for x in s)
    if isinstance(s, dict):
        if "logicalType" in s or s.get("type") in ("bytes", "fixed"):
            return True
        name = s.get("name")
        if isinstance(name, str):
            if name in seen:
                return False
            seen.add(name)
        t = s.get("type")
        if t == "array":
            return _needs_conversion(s.get("items"), seen)
        if t == "map":
            return _needs_conversion(s.get("values"), seen)
        if t in ("record", "error"):
            return any(_needs_conversion(f.get("type"), seen) for f in s.get("fields", ()))
        return _needs_conversion(t, seen)
    return False


def to_json(v: Any) -> Any:
    """fastavro's Python values as plain JSON values (see the module docstring)."""
    if isinstance(v, dict):
        return {k: to_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [to_json(x) for x in v]
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(v).decode("ascii")
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, uuid.UUID):
        return str(v)
    return v
