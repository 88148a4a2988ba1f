"""``kdump find-offset`` and ``kdump find-time``'s answers (kdump/ops/find.py)."""

from __future__ import annotations

from .fields import Kinds, typed

KINDS: Kinds = typed({
    "found": ("find-offset / find-time answer", [
        ("query", "str", "offset or timestamp"), ("target", "int", "what was asked"), ("file", "str", ""),
        ("position", "int", "position of the batch"), ("base_offset", "int", ""), ("last_offset", "int", ""),
        ("count", "int|null", ""),
        ("batch_size", "int", ""),
        ("max_timestamp", "int", ""),
        ("timestamp_type", "str", ""),
        ("compression", "str", ""), ("offset", "int", "the record's offset"),
        ("timestamp", "int", "the record's timestamp"),
        ("method", "str", "index, time index + offset index, or scan"),
        ("index_entry", "object|null", "{slot, offset, position} of the index entry used, or null"),
        ("bytes_scanned", "int", "log bytes scanned from the starting position"),
        ("bytes_read", "int", "bytes read from all files"), ("notes", "list", "fallbacks taken"),
        ("key?", "str|null", "--print-data-log"),
        ("key_encoding?", "str|null", ""),
        ("value?", "str|null", ""),
        ("value_encoding?", "str|null", ""), ("headers?", "list", ""),
        ("decoded?", "object", "--print-data-log: decoded payloads, as in record"),
        ("decode_error?", "str", "--print-data-log: what the decoder (--decoder, auto by directory "
                                 "name) could not decode"),
    ]),
    "not_found": ("find-offset / find-time: not there (exit 1)", [
        ("query", "str", ""),
        ("target", "int", ""),
        ("file", "str|null", ""),
        ("position", "int|null", ""),
        ("method", "str|null", ""),
        ("index_entry", "object|null", ""),
        ("bytes_scanned", "int", ""),
        ("bytes_read", "int", ""),
        ("notes", "list", ""),
        ("reason", "str", "below the log start, above the log end, in a gap ..."),
        ("nearest_below", "int|null", "nearest offset below that holds a record"),
        ("nearest_above", "int|null", "nearest offset above that holds a record"),
    ]),
})
