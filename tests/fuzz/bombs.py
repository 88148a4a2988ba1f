"""Hostile schemas for the schema-registry surfaces (issue #27 item 6): small texts that
declare enormous or endless things.  Used in-process by tests/fuzz/surfaces.py and
through the CLI (``kdump dump --schemas``, ``kdump schemas``, ``kdump report``) by
tests/hostile/test_fuzz_bombs.py.

Each bomb is ``(name, subject, schema id, schema text, schema type, references,
payload)``: the schema is registered under ``subject`` version 1 with that id, and the
payload (the bytes after Confluent's frame) is what a record would hold.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from typing import Any


@dataclass(frozen=True)
class Bomb:
    name: str
    subject: str
    sid: int
    schema: str
    stype: str | None  # None: Avro (the registry's default)
    payload: bytes
    refs: list[dict[str, Any]] = field(default_factory=list)
    indexes: list[int] | None = None  # Protobuf message indexes


def million_field_avro(leaf: str = "null", fanout: int = 4, depth: int = 10) -> str:
    """An Avro record of ``fanout ** depth`` leaf fields (4 ** 10, a million, by default) in about
    1 KB: each level's record has ``fanout`` fields of the level below's record, defined
    once and named after."""
    def level(d: int) -> Any:
        name = chr(64 + d)  # A, B, C ...
        if d == depth:
            return {"type": "record", "name": name,
                    "fields": [{"name": chr(97 + i), "type": leaf} for i in range(fanout)]}
        below = level(d + 1)
        return {"type": "record", "name": name,
                "fields": [{"name": chr(97 + i), "type": below if i == 0 else chr(65 + d)}
                           for i in range(fanout)]}
    return json.dumps(level(1), separators=(",", ":"))


def nested_proto(depth: int = 300) -> str:
    """Messages declared ``depth`` deep, the innermost one holding the outermost."""
    head = "".join(f"message N{i} {{\n" for i in range(depth))
    tail = "  N0 back = 1;\n" + "}\n" * depth
    return 'syntax = "proto3";\n' + head + tail


def recursive_proto_payload(depth: int) -> bytes:
    """A value of ``message R { R r = 1; }`` nested ``depth`` deep (field 1, length
    delimited, around the next)."""
    inner = b""
    for _ in range(depth):
        n = len(inner)
        size = bytearray()
        while True:
            b = n & 0x7F
            n >>= 7
            size.append(b | (0x80 if n else 0))
            if not n:
                break
        inner = b"\x0a" + bytes(size) + inner
    return inner


REF_CYCLE_JSON = json.dumps({
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$ref": "#/definitions/a",
    "definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}})
SELF_REF_JSON = json.dumps({"$schema": "http://json-schema.org/draft-07/schema#",
                            "$ref": "#"})


#: a payload that fills the million-field record (decoded whole: about 0.7 s and 100 MB
#: in-process, so through the CLI only, tests/hostile/test_fuzz_bombs.py)
MEGABYTE_OF_INTS = b"\x02" * (1 << 20)


@cache
def bombs() -> tuple[Bomb, ...]:
    """Every hostile schema, with a payload that names it (built once: the 100,000-deep
    value takes a moment)."""
    return (
        Bomb("a 1 KB Avro schema of a million null fields", "million-null-value", 101,
             million_field_avro("null"), None, b""),
        Bomb("a 1 KB Avro schema of a million int fields", "million-int-value", 102,
             million_field_avro("int"), None, b"\x02" * 64),
        Bomb("a 1 KB Avro schema of a million int fields, 64 KB of payload",
             "million-int-value", 102, million_field_avro("int"), None, b"\x02" * (64 << 10)),
        Bomb("Protobuf messages declared 300 deep", "nested-proto-value", 103,
             nested_proto(300), "PROTOBUF", b"\x0a\x00", indexes=[0]),
        Bomb("a Protobuf message holding itself, a value 100,000 deep", "recursive-proto-value",
             104, 'syntax = "proto3";\nmessage R { R r = 1; }\n', "PROTOBUF",
             recursive_proto_payload(100_000), indexes=[0]),
        Bomb("a .proto importing itself", "self-import-value", 105,
             'syntax = "proto3";\nimport "self.proto";\nmessage M { int32 a = 1; }\n',
             "PROTOBUF", b"\x08\x01",
             refs=[{"name": "self.proto", "subject": "self-import-value", "version": 1}],
             indexes=[0]),
        Bomb("a JSON Schema whose $ref goes round a cycle", "ref-cycle-value", 106,
             REF_CYCLE_JSON, "JSON", b'{"a": 1}'),
        Bomb("a JSON Schema that is its own $ref", "self-ref-value", 107, SELF_REF_JSON, "JSON",
             b"[1, 2, 3]"),
        Bomb("a JSON Schema referring to itself by subject", "json-self-subject-value", 108,
             json.dumps({"$ref": "me.json"}), "JSON", b"{}",
             refs=[{"name": "me.json", "subject": "json-self-subject-value", "version": 1}]),
    )


__all__ = ["MEGABYTE_OF_INTS", "Bomb", "bombs", "million_field_avro", "nested_proto",
           "recursive_proto_payload"]
