#!/usr/bin/env python3
"""The floor for schema-registry payloads: a bare loop over the same payloads kdump
dumps, each decoded by the format's own library and written with ``json.dumps``.

    schema_loop.py avro PAYLOADS SCHEMA.avsc
    schema_loop.py protobuf PAYLOADS MODULE_DIR MODULE MESSAGE

PAYLOADS: the framed values (magic byte, id, [message indexes], data), each prefixed by
a 4-byte big-endian length.  Avro: fastavro ``schemaless_reader`` with the parsed writer
schema.  Protobuf: the generated class's ``FromString`` then ``MessageToDict``.  The
framing is skipped by position (5 bytes, or 6 for Protobuf's single 0x00 index): the
loop knows its schema, as an application's consumer does.  Output goes to stdout.
"""

from __future__ import annotations

import io
import json
import sys


def payloads(path: str):  # type: ignore[no-untyped-def]
    with open(path, "rb") as fh:
        data = fh.read()
    pos = 0
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        yield data[pos + 4:pos + 4 + n]
        pos += 4 + n


def main(argv: list[str]) -> None:
    out = sys.stdout
    dumps = json.dumps
    if argv[0] == "avro":
        import fastavro

        with open(argv[2]) as fh:
            schema = fastavro.parse_schema(json.load(fh))
        reader = fastavro.schemaless_reader
        for p in payloads(argv[1]):
            out.write(dumps(reader(io.BytesIO(p[5:]), schema, None)) + "\n")
    else:
        import importlib

        from google.protobuf.json_format import MessageToDict

        sys.path.insert(0, argv[2])
        cls = getattr(importlib.import_module(argv[3]), argv[4])
        for p in payloads(argv[1]):
            msg = cls.FromString(p[6:])
            out.write(dumps(MessageToDict(msg, preserving_proto_field_name=True)) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
