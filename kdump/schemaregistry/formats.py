"""The schema registry's schema types and the decoder names that force one: the words
the storage reader (:mod:`.storage`), the payload decoder (:mod:`.decoder`), the
command's source of decoders (:mod:`.source`) and the options share.  Imports nothing,
so a command names them without loading the decoder."""

from __future__ import annotations

#: schema types as the registry's SchemaValue spells them (``schemaType``; absent: AVRO)
AVRO, PROTOBUF, JSON = "AVRO", "PROTOBUF", "JSON"

#: decoder names (--key-decoder / --value-decoder) -> the schema type they force
#: (``schema-registry``: any of them)
MODES: dict[str, str | None] = {"avro": AVRO, "protobuf": PROTOBUF, "json-schema": JSON,
                                "schema-registry": None}
#: the decoder names that force schema-registry decoding
SCHEMA_MODES = tuple(MODES)
#: schema type -> the name a decoded payload's ``format`` says
FORMAT_NAMES = {AVRO: "avro", PROTOBUF: "protobuf", JSON: "json-schema"}

__all__ = ["AVRO", "FORMAT_NAMES", "JSON", "MODES", "PROTOBUF", "SCHEMA_MODES"]
