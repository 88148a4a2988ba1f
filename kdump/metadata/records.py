"""Metadata records as the image applies them: the frame read into a message holding
every field (absent tagged fields at their schema default, as Kafka's generated classes
hold them), with the schema tables of :mod:`kdump.protocol.frame`.

Frame (``MetadataRecordSerde`` / ``AbstractApiMessageSerde``): unsigned varints frame
version (1), api key, record version, then the record body.
"""

from __future__ import annotations

import base64
import struct
from dataclasses import dataclass
from typing import Any

from ..protocol.frame import METADATA_SCHEMAS, record_type_name
from ..protocol.messages import Reader, SchemaError, clamp_version, read_message

__all__ = ["DecodedRecord", "RecordError", "decode_record"]


class RecordError(Exception):
    """A metadata record that does not decode."""


@dataclass(slots=True)
class DecodedRecord:
    name: str  # MetadataRecordType name: TOPIC_RECORD ...
    api_key: int
    version: int
    message: dict[str, Any]
    #: the version is beyond the known range: read with the nearest known layout
    unknown_version: bool


_NAMES = {k: record_type_name(s.name) for k, s in METADATA_SCHEMAS.items()}


_INT32 = struct.Struct(">i")
_I32_UUID = struct.Struct(">i16s")
_B64 = base64.urlsafe_b64encode

#: a topic id's text by its 16 bytes (a busy log names the same few topics over and
#: over); emptied when it holds this many
_TOPIC_IDS: dict[bytes, str] = {}
_TOPIC_IDS_MAX = 65_536


def _topic_id_text(raw: bytes) -> str:
    text = _TOPIC_IDS.get(raw)
    if text is None:
        if len(_TOPIC_IDS) >= _TOPIC_IDS_MAX:
            _TOPIC_IDS.clear()
        text = _TOPIC_IDS[raw] = _B64(raw).decode("ascii").rstrip("=")
    return text
#: PartitionChangeRecord tagged fields: tag -> (field, element kind, first version)
_PCR_TAGS: dict[int, tuple[str, str, int]] = {
    0: ("isr", "ints", 0), 1: ("leader", "int32", 0), 2: ("replicas", "ints", 0),
    3: ("removingReplicas", "ints", 0), 4: ("addingReplicas", "ints", 0),
    5: ("leaderRecoveryState", "int8", 0), 6: ("eligibleLeaderReplicas", "ints", 2),
    7: ("lastKnownElr", "ints", 2), 8: ("directories", "uuids", 1),
}


_PCR_DEFAULT: dict[str, Any] = {
    "partitionId": -1, "topicId": "", "isr": None, "leader": -2, "replicas": None,
    "removingReplicas": None, "addingReplicas": None, "leaderRecoveryState": -1,
    "directories": None, "eligibleLeaderReplicas": None, "lastKnownElr": None,
}


class _Fallback(Exception):
    pass


def _uv(b: bytes, p: int) -> tuple[int, int]:
    r = shift = 0
    for _ in range(5):
        if p >= len(b):
            raise _Fallback
        x = b[p]
        p += 1
        r |= (x & 0x7F) << shift
        if not x & 0x80:
            return r, p
        shift += 7
    raise _Fallback


def _partition_change(value: bytes, pos: int, version: int) -> dict[str, Any]:
    """PartitionChangeRecord v0-2, the record a busy log is mostly made of, read
    directly (the generic reader gives the same message: tests/metadata/test_metadata.py)."""
    if len(value) < pos + 20:
        raise _Fallback
    pid, raw = _I32_UUID.unpack_from(value, pos)
    msg = dict(_PCR_DEFAULT)
    msg["partitionId"] = pid
    msg["topicId"] = _topic_id_text(raw)
    p = pos + 20
    n_bytes = len(value)
    count = value[p] if p < n_bytes else 255
    if count < 128:
        p += 1
    else:
        count, p = _uv(value, p)
    for _ in range(count):
        if p + 2 <= n_bytes and value[p] < 128 and value[p + 1] < 128:
            tag, size = value[p], value[p + 1]
            p += 2
        else:
            tag, p = _uv(value, p)
            size, p = _uv(value, p)
        end = p + size
        if end > n_bytes:
            raise _Fallback
        spec = _PCR_TAGS.get(tag)
        if spec is not None:
            name, kind, since = spec
            if version < since:
                raise _Fallback
            if kind == "int32":
                if size != 4:
                    raise _Fallback
                msg[name] = _INT32.unpack_from(value, p)[0]
            elif kind == "int8":
                if size != 1:
                    raise _Fallback
                msg[name] = value[p] - 256 if value[p] > 127 else value[p]
            else:
                n, q = _uv(value, p)
                if n == 0:
                    msg[name] = None
                else:
                    width = 4 if kind == "ints" else 16
                    if q + (n - 1) * width != end:
                        raise _Fallback
                    if kind == "ints":
                        msg[name] = list(struct.unpack_from(f">{n - 1}i", value, q))
                    else:
                        msg[name] = [_B64(value[q + 16 * i:q + 16 * i + 16]).decode("ascii")
                                     .rstrip("=") for i in range(n - 1)]
        p = end
    if p != len(value):
        raise _Fallback
    return msg


_NO_OP = b"\x01\x14\x00\x00"


def decode_record(value: bytes | None) -> DecodedRecord:
    if value is None:
        raise RecordError("null value: a metadata record always has one")
    if value == _NO_OP:
        return DecodedRecord("NO_OP_RECORD", 20, 0, {}, False)
    if len(value) > 3 and value[0] == 1 and value[1] == 5 and value[2] <= 2:
        try:
            return DecodedRecord("PARTITION_CHANGE_RECORD", 5, value[2],
                                 _partition_change(value, 3, value[2]), False)
        except (_Fallback, struct.error):
            pass  # anything unusual: the generic reader says what is wrong
    return decode_generic(value)


def decode_generic(value: bytes | None) -> DecodedRecord:
    if value is None:
        raise RecordError("null value: a metadata record always has one")
    r = Reader(value)
    try:
        frame = r.short_uvarint("frame version")
        if frame != 1:
            raise RecordError(f"frame version {frame} (only frame version 1 is known)")
        api_key = r.short_uvarint("type")
        version = r.short_uvarint("version")
    except SchemaError as e:
        raise RecordError(str(e)) from None
    schema = METADATA_SCHEMAS.get(api_key)
    if schema is None:
        raise RecordError(f"unknown metadata record type (api key) {api_key}, version {version}")
    layout = clamp_version(version, schema.v_valid)
    try:
        msg, end = read_message(schema, r.data, layout, pos=r.pos)
    except SchemaError as e:
        raise RecordError(f"{_NAMES[api_key]} version {version} does not decode: {e}") from None
    if end != len(r.data):
        raise RecordError(f"{_NAMES[api_key]} version {version}: {len(r.data) - end} byte(s) "
                          "left after the record")
    return DecodedRecord(_NAMES[api_key], api_key, version, msg, version not in schema.v_valid)
