"""``--format json``: JSON Lines, one object per line, each with a ``type``.

Field names are part of kdump's interface (documented in docs/json-schema.md and the man pages,
held fixed by tests): snake_case, Kafka's concepts under Kafka's names.  Every object is
shaped by the output model (kdump/model.py): a field declared there and given a value
here (:func:`record_values`, :func:`batch_values`) is written, in the model's order.
The native record writer (kdump/_speedups_writers.c) is used only while the model's record
fields are the ones it writes (:data:`NATIVE_RECORD_FIELDS`).
"""

from __future__ import annotations

import json
import json.encoder
import math
import os
import re
from functools import lru_cache
from typing import Any, TextIO

from ..decoders.base import Decoded
from ..decoders.redact import REDACTED, RedactedRecord
from ..files.logdir import parse_partition_dir
from ..findings import Problem
from ..model import SCHEMA, fields_of, shape
from ..ops import events as de  # the dump events, as de.BatchEvent ...
from ..records.file_records import Batch
from ..records.native import speedups
from ..records.record import Record
from .common import encode_payload

# allow_nan=False: NaN and Infinity are not JSON; a value holding them (an Avro double,
# a JSON payload's NaN token) is written with them as strings (see json_text)
_raw_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode
_native_json = None if speedups is None else speedups.json_record_lines
_raw_jstr = json.encoder.encode_basestring  # what _raw_dumps writes a str with

#: Characters written as ``\uXXXX`` escapes in every JSON string (the same value once
#: parsed): C1 controls, bidirectional-text controls (a line of evidence must read as it
#: is), and lone surrogates -- the ``\udc80``-``\udcff`` code points Python's
#: surrogateescape gives the bytes of a file name that are not UTF-8 (``os.fsencode`` of
#: the parsed string gives the name's bytes back), which could not be written as UTF-8.
#: The C writer (kdump/_speedups_writers.c, buf_json_utf8) escapes the same set.
_ESCAPED = re.compile("[\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                      "\ud800-\udfff]")


def _escape_match(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def _escape(text: str) -> str:
    """JSON text with the characters of ``_ESCAPED`` as ``\\uXXXX`` escapes (they only
    ever occur inside strings: JSON's own syntax is ASCII)."""
    if text.isascii():
        return text
    return _ESCAPED.sub(_escape_match, text)


def json_text(obj: Any) -> str:
    """One object as kdump writes it: compact, UTF-8, the ``_ESCAPED`` set escaped; a
    float that is not finite as the string "NaN", "Infinity" or "-Infinity" (as
    protobuf's JSON mapping writes them), so every line is JSON."""
    try:
        return _escape(_raw_dumps(obj))
    except ValueError:
        return _escape(_raw_dumps(_finite(obj)))


def _finite(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    return v


def _jstr(s: str) -> str:
    return _escape(_raw_jstr(s))


def json_str(s: str) -> str:
    """One string as :func:`json_text` writes it (quoted, escaped)."""
    return _escape(_raw_jstr(s))


@lru_cache(maxsize=256)
def topic_partition(path: str) -> tuple[str | None, int | None]:
    """The topic and partition a file belongs to, from its partition directory's name
    (``<topic>-<partition>``), or ``(None, None)`` when the directory is not one."""
    pd = parse_partition_dir(os.path.basename(os.path.dirname(path)))
    if pd is None:
        return None, None
    return pd.topic, pd.partition
#: encode_payload's encodings as the native renderer numbers them (anything else: base64)
_ENCODING_CODES = {"utf8": 0, "base64": 1, "hex": 2}


def batch_object(b: Batch) -> dict[str, Any]:
    """The ``batch`` object of ``b``."""
    return shape("batch", batch_values(b))


def batch_values(b: Batch) -> dict[str, Any]:
    """The values of ``b``'s batch object (what :func:`batch_object` shapes)."""
    values: dict[str, Any] = {
        "file": b.path, "position": b.position, "base_offset": b.base_offset,
        "last_offset": b.last_offset, "count": b.count, "size": b.size, "magic": b.magic,
        "compression": b.compression_name, "timestamp_type": b.timestamp_type,
        "max_timestamp": b.max_timestamp, "crc": b.crc, "crc_valid": b.crc_valid,
        "attributes": b.attributes,
    }
    if b.magic >= 2:
        values.update(
            first_timestamp=b.first_timestamp,
            partition_leader_epoch=b.partition_leader_epoch,
            producer_id=b.producer_id,
            producer_epoch=b.producer_epoch,
            base_sequence=b.base_sequence,
            last_sequence=b.last_sequence,
            is_transactional=b.is_transactional,
            is_control=b.is_control,
            delete_horizon_ms=b.delete_horizon_ms,
        )
    return values


def _record_head(b: Batch) -> dict[str, Any]:
    """The values every record object of ``b`` shares (the fields before ``offset``)."""
    topic, partition = topic_partition(b.path)
    return {"file": b.path, "topic": topic, "partition": partition,
            "batch_position": b.position, "producer_id": b.producer_id,
            "producer_epoch": b.producer_epoch, "is_transactional": b.is_transactional,
            "is_control": b.is_control}


#: The batch fields the native writer (kdump/_speedups_writers.c, batch_json) writes, in the
#: model's order (the optional replica fields are never given by dump), and the record
#: fields before ``offset`` it continues the record prefix with: it is used only while
#: the model declares exactly these (a field added is written by Python until C learns it).
NATIVE_BATCH_FIELDS = (
    "file", "position", "base_offset", "last_offset", "count", "size", "magic",
    "compression", "timestamp_type", "max_timestamp", "crc", "crc_valid", "first_timestamp",
    "partition_leader_epoch", "producer_id", "producer_epoch", "base_sequence",
    "last_sequence", "is_transactional", "is_control", "delete_horizon_ms", "attributes",
    "replica", "log_dir", "broker_id")
_native_batch = None if speedups is None else speedups.batch_json
_native_batch_model: list[Any] = [None, None, False]  # [batch decl, record decl, matches]


def native_batch_matches_model() -> bool:
    """The native batch writer writes the batch fields and record prefix the model
    declares."""
    decl, rdecl = SCHEMA["batch"], SCHEMA["record"]
    if _native_batch_model[0] is not decl or _native_batch_model[1] is not rdecl:
        _native_batch_model[:] = [decl, rdecl, (
            tuple(f.name for f in fields_of("batch")) == NATIVE_BATCH_FIELDS
            and NATIVE_RECORD_FIELDS[:8] == tuple(f.name for f in fields_of("record"))[:8])]
    return bool(_native_batch_model[2])


@lru_cache(maxsize=256)
def _heads(path: str) -> tuple[str, str]:
    """The text a batch object and a record prefix of ``path`` start with (up to the
    file's value, and up to ``"batch_position":``), as Python's JSON writer writes it."""
    topic, partition = topic_partition(path)
    batch = json_text({"type": "batch", "file": path})[:-1]
    record = json_text({"type": "record", "file": path, "topic": topic,
                     "partition": partition})[:-1] + ',"batch_position":'
    return batch, record


def batch_lines(b: Batch) -> tuple[str, str]:
    """The line of a v2 batch's ``batch`` object (newline included) and its record
    prefix: written natively when the extension is built (``batch_json``), else (and
    as its twin) :func:`batch_object` and :func:`record_prefix`."""
    if _native_batch is not None and native_batch_matches_model():
        bh, rh = _heads(b.path)
        got = _native_batch(b.data, b.index, b.position,  # type: ignore[attr-defined]
                            b.crc_valid, bh, rh)
        if got is not NotImplemented:
            return got
    return json_text(batch_object(b)) + "\n", record_prefix(b)


_TIMESTAMP_TYPE_JSON: dict[str, str] = {}


def record_prefix(b: Batch) -> str:
    """The JSON text every record object of ``b`` starts with, up to the offset's value:
    what the native writer continues (the same fields and order as ``record_object``,
    both from kdump.model)."""
    text = json_text(shape("record", _record_head(b), upto="offset"))
    return text[:-1] + ',"offset":'


def record_object(b: Batch, ev: de.RecordEvent, encoding: str,
                  structured: tuple[bool, bool]) -> dict[str, Any]:
    """The ``record`` object of ``ev`` in ``b`` (payloads per ``encoding``, decoded
    structure on the sides ``structured`` says)."""
    return shape("record", record_values(b, ev, encoding, structured))


def record_values(b: Batch, ev: de.RecordEvent, encoding: str,
                  structured: tuple[bool, bool]) -> dict[str, Any]:
    """The values of a record object (what :func:`record_object` shapes): the one place
    a record field gets its value, for ``--format json`` and ``--format table``."""
    r = ev.record
    obj = _record_head(b)
    obj.update({
        "offset": r.offset,
        "timestamp": r.timestamp,
        "timestamp_type": b.timestamp_type,
        "key_size": r.key_size,
        "value_size": r.value_size,
    })
    d = ev.decoded
    obj["key"], obj["key_encoding"] = encode_payload(r.key, encoding)
    if isinstance(r, RedactedRecord):  # secrets: not printed unless --show-secrets
        obj["value"], obj["value_encoding"] = REDACTED, "redacted"
    else:
        obj["value"], obj["value_encoding"] = encode_payload(r.value, encoding)
    headers = []
    for hk, hv in r.headers:
        # header keys are Strings in Kafka: text under every --payload-encoding
        k, kenc = encode_payload(hk, "utf8")
        v, venc = encode_payload(hv, encoding)
        headers.append({"key": k, "key_encoding": kenc, "value": v, "value_encoding": venc})
    obj["headers"] = headers
    if b.magic >= 2:
        obj["sequence"] = r.sequence
        obj["crc_valid"] = b.crc_valid  # the batch's CRC-32C covers its records
    else:
        obj["magic"] = r.magic
        obj["crc"] = r.crc
        obj["crc_valid"] = r.crc_valid
    obj["size"] = r.size
    if ev.control is not None:
        c = ev.control
        ctl: dict[str, Any] = {"type": c.type_name, "type_id": c.type_id,
                               "key_version": c.key_version}
        if c.coordinator_epoch is not None:
            ctl["coordinator_epoch"] = c.coordinator_epoch
        if c.value_version is not None:
            ctl["value_version"] = c.value_version
        if c.data is not None:
            ctl["data"] = c.data
        if c.error is not None:
            ctl["error"] = c.error
        obj["control"] = ctl
    if d is not None and ((structured[0] and r.key is not None)
                          or (structured[1] and r.value is not None)):
        dec: dict[str, Any] = {}
        if structured[0] and r.key is not None:
            dec["key"] = d.key_json
        if structured[1] and r.value is not None:
            dec["value"] = d.value_json
        if d.note:
            dec["layout"] = d.note
        key_note = getattr(d, "key_note", None)
        if key_note and "key" in dec:
            dec["key_note"] = key_note
        obj["decoded"] = dec
    if d is not None and d.error:
        obj["decode_error"] = d.error
    return obj


#: The record fields the native writer (kdump/_speedups_writers.c, json_record_lines) writes:
#: those of :func:`record_prefix`, then offset ... size of a v2 record.  It is used only
#: while the output model's record fields are exactly these (checked per batch against
#: the model's declaration, cheaply): a field added to the model is written by the Python
#: writer until the C writer learns it and this list says so (tests/test_model.py).
NATIVE_RECORD_FIELDS = (
    "file", "topic", "partition", "batch_position", "producer_id", "producer_epoch",
    "is_transactional", "is_control", "offset", "timestamp", "timestamp_type", "key_size",
    "value_size", "key", "key_encoding", "value", "value_encoding", "headers", "sequence?",
    "magic?", "crc?", "crc_valid", "size", "control?", "decoded?", "decode_error?",
    "replica?", "log_dir?", "broker_id?")
_native_model: list[Any] = [None, False]  # [the record declaration checked, it matches]


def native_matches_model() -> bool:
    """The native writer writes the record fields the model declares."""
    decl = SCHEMA["record"]
    if _native_model[0] is not decl:
        _native_model[:] = [decl, tuple(f[0] for f in fields_of("record"))
                            == NATIVE_RECORD_FIELDS]
    return bool(_native_model[1])


def _json_lines_decoded(records: list[de.RecordEvent], prefix: str, timestamp_type: str,
                        code: int, crc_valid: bool) -> str | Any:
    """Records with a decoded structure (schema-registry payloads ...) written fast: the
    native writer writes each record without it, then ``decoded`` / ``decode_error`` --
    the last fields of a dump record (kdump.model) -- close each line, as
    :func:`record_object` writes them (tests/test_schemaregistry.py compares the two)."""
    assert _native_json is not None
    bare = [de.RecordEvent(ev.record) for ev in records]
    text = _native_json(bare, prefix, json_text(timestamp_type), code, de.RecordEvent, Record,
                        Decoded, crc_valid)
    if text is NotImplemented:
        return text
    lines = text.split("\n")
    out = []
    for line, ev in zip(lines, records, strict=False):
        d = ev.decoded
        if d is None:
            out.append(line)
            continue
        r = ev.record
        tail = ""
        kj, vj = d.key_json, d.value_json
        if (kj is not None and r.key is not None) or (vj is not None and r.value is not None):
            dec: dict[str, Any] = {}
            if kj is not None and r.key is not None:
                dec["key"] = kj
            if vj is not None and r.value is not None:
                dec["value"] = vj
            if d.note:
                dec["layout"] = d.note
            key_note = getattr(d, "key_note", None)
            if key_note and "key" in dec:
                dec["key_note"] = key_note
            tail = ',"decoded":' + json_text(dec)
        if d.error:
            tail += ',"decode_error":' + _jstr(d.error)
        out.append(line[:-1] + tail + "}" if tail else line)
    out.append("")
    return "\n".join(out)


def problem_object(p: Problem) -> dict[str, Any]:
    obj = shape("problem", {"file": p.path, "position": p.position, "kind": p.kind,
                            "severity": p.severity, "detail": p.detail,
                            "base_offset": p.base_offset, "length": p.length})
    if p.extra:  # the kind's own fields (documented under problem as "name?")
        for k, v in p.extra.items():
            obj.setdefault(k, v)
    return obj


class JsonRenderer:
    """Writes one JSON object per line.  Used by every command: objects that are not
    dump events are written with their ``to_json()`` or as given when dicts."""

    format = "json"

    def __init__(self, out: TextIO, *, payload_encoding: str = "utf8",
                 structured: tuple[bool, bool] | None = None) -> None:
        self.out = out
        self.encoding = payload_encoding
        self.structured = structured

    def _write(self, obj: dict[str, Any]) -> None:
        self.out.write(json_text(obj) + "\n")

    def emit(self, item: object) -> None:
        w = self._write
        if isinstance(item, de.BatchEvent):
            b = item.batch
            prefix = None
            if b.magic >= 2:
                line, prefix = batch_lines(b)
                if not item.continued:
                    self.out.write(line)
            elif not item.continued:
                w(batch_object(b))
            if item.records:
                text: Any = NotImplemented
                if prefix is not None and self.structured is None:
                    # the same objects, written alike in one go (natively when the extension
                    # is built; tests/test_speedups.py)
                    code = _ENCODING_CODES.get(self.encoding, 1)
                    if _native_json is not None and native_matches_model():
                        tt = b.timestamp_type
                        tt_json = _TIMESTAMP_TYPE_JSON.get(tt)
                        if tt_json is None:
                            tt_json = _TIMESTAMP_TYPE_JSON.setdefault(tt, json_text(tt))
                        text = _native_json(item.records, prefix, tt_json, code,
                                            de.RecordEvent, Record, Decoded, b.crc_valid)
                        if text is NotImplemented and not b.is_control:
                            text = _json_lines_decoded(item.records, prefix, b.timestamp_type,
                                                       code, b.crc_valid)
                if text is not NotImplemented:
                    self.out.write(text)
                    return
                for ev in item.records:
                    structured = self.structured
                    if structured is None:
                        structured = structured_of(ev)
                    w(record_object(b, ev, self.encoding, structured))
        elif isinstance(item, Problem):
            w(problem_object(item))
        elif isinstance(item, de.FileStart):
            f = item.file
            w(shape("file", {"file": f.path, "kind": f.kind, "description": f.description,
                             "size": item.size, "base_offset": f.base_offset, "epoch": f.epoch,
                             "topic": f.topic, "partition": f.partition, "active": f.active,
                             "leftover": f.leftover, "partition_state": f.partition_state}))
        elif isinstance(item, de.LogEnd):
            w(shape("log_end", {"file": item.path, "size": item.size, "end": item.end,
                                "valid_bytes": item.valid_bytes,
                                "trailing_bytes": item.trailing_bytes,
                                "unreadable_bytes": item.unreadable_bytes,
                                "batches": item.batches, "records": item.records,
                                "limited": item.limited}))
        elif isinstance(item, de.IndexEntryEvent):
            w(shape("index_entry", {"file": item.path, "slot": item.slot, "offset": item.offset,
                                    "position": item.position}))
        elif isinstance(item, de.TimeIndexEntryEvent):
            w(shape("time_index_entry", {"file": item.path, "slot": item.slot,
                                         "timestamp": item.timestamp, "offset": item.offset}))
        elif isinstance(item, de.IndexStatus):
            w(shape("index_status", {"file": item.path, "status": item.status,
                                     "message": item.message}))
        elif isinstance(item, de.TxnIndexEntryEvent):
            t = item.txn
            w(shape("txn_index_entry", {"file": item.path, "slot": t.slot, "version": t.version,
                                        "producer_id": t.producer_id,
                                        "first_offset": t.first_offset,
                                        "last_offset": t.last_offset,
                                        "last_stable_offset": t.last_stable_offset}))
        elif isinstance(item, de.SnapshotEntryEvent):
            e = item.entry
            w(shape("producer_snapshot_entry", {
                "file": item.path, "producer_id": e.producer_id,
                "producer_epoch": e.producer_epoch, "coordinator_epoch": e.coordinator_epoch,
                "current_txn_first_offset": e.current_txn_first_offset
                if e.current_txn_first_offset >= 0 else None,
                "last_timestamp": e.timestamp,
                "first_sequence": e.first_sequence if e.has_batch_metadata else None,
                "last_sequence": e.last_sequence, "last_offset": e.last_offset,
                "offset_delta": e.offset_delta, "timestamp": e.timestamp}))
        elif isinstance(item, de.CheckpointEntryEvent):
            w(shape("checkpoint_entry", {"file": item.path, "kind": item.kind,
                                         "line": item.line, **item.fields}))
        elif isinstance(item, de.PropertiesEvent):
            w(shape("properties", {"file": item.path, "kind": item.kind, "values": item.values}))
        elif isinstance(item, de.LayoutNote):
            pass  # each record says its layout (decoded.layout)
        elif isinstance(item, de.Note):
            w(shape("note", {"file": item.path, "text": item.text}))
        elif isinstance(item, dict):
            w(item)
        else:
            to_json = getattr(item, "to_json", None)
            if to_json is not None:
                w(to_json())

    def close(self) -> None:
        self.out.flush()


def structured_of(ev: de.RecordEvent) -> tuple[bool, bool]:
    d = ev.decoded
    if d is None:
        return (False, False)
    # internal-topic decoders always give structure; simple ones say so per side
    return (d.key_json is not None, d.value_json is not None)
