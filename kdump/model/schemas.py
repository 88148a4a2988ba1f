"""``kdump schemas``' objects (kdump/schemaregistry/subjects.py): the schema registry's
schemas as its ``_schemas`` topic stores them.
"""

from __future__ import annotations

from .fields import Kinds, typed

KINDS: Kinds = typed({
    "schema": ("a schema of the registry's storage, per subject and version (schemas)", [
        ("subject", "str", "the subject"), ("version", "int", "its version"),
        ("id", "int", "the schema id payloads carry"),
        ("schema_type", "str", "AVRO, PROTOBUF or JSON"),
        ("deleted", "str|null", "null, soft (deleted: true) or hard (a tombstone follows; the "
                                "schema record is still on disk until compaction)"),
        ("references", "list", "[{name, subject, version}]"),
        ("key_records", "int|null",
         "records under the inputs whose key names the id (null: not counted)"),
        ("value_records", "int|null", "records whose value names the id (null: not counted)"),
        ("file", "str", "where the schema was read: a _schemas log, or a schema file"),
        ("offset", "int|null", "the schema record's offset in file (null for a schema file)"),
    ]),
})
