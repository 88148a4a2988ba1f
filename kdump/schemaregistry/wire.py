"""Confluent's framing of schema-registry payloads.

Facts from confluentinc/schema-registry,
schema-serializer/src/main/java/io/confluent/kafka/serializers/schema/id/SchemaId.java
(``fromBytes``, ``idToBytes``, ``guidToBytes`` and ``SchemaMessageIndexes``):

* in the payload: magic byte 0x00, big-endian int32 schema id, then (Protobuf only) the
  message indexes, then the serialized data;
* or in a record header ``__key_schema_id`` / ``__value_schema_id``: 0x00 + int32 id, or
  0x01 + a 16-byte GUID (``UUID(msb, lsb)``: the schema's MD5, the ``md5`` the registry
  stores), then (Protobuf only) the message indexes; the payload is then the data alone;
* message indexes: a zigzag varint count, then that many zigzag varint indexes (the path
  to the message: the n-th top-level message, then the n-th nested one ...); a count of 0
  (the single byte 0x00) means ``[0]``, the file's first message.

Nothing here raises: a frame that cannot be read is a :class:`FrameError` value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

MAGIC_BYTE_V0 = 0x00  # SchemaId.MAGIC_BYTE_V0: an int32 id follows
MAGIC_BYTE_V1 = 0x01  # SchemaId.MAGIC_BYTE_V1: a 16-byte GUID follows
ID_SIZE = 4  # SchemaId.ID_SIZE
GUID_SIZE = 16
KEY_SCHEMA_ID_HEADER = b"__key_schema_id"  # SchemaId.KEY_SCHEMA_ID_HEADER
VALUE_SCHEMA_ID_HEADER = b"__value_schema_id"  # SchemaId.VALUE_SCHEMA_ID_HEADER

#: message indexes are a path into nested messages: more than this is not a real schema
MAX_MESSAGE_INDEXES = 64


@dataclass(frozen=True, slots=True)
class Frame:
    """Where a payload's schema is named and where its data starts."""

    #: the schema id (magic 0x00), or None when a GUID names the schema
    schema_id: int | None
    #: the 16-byte GUID (magic 0x01), or None
    guid: bytes | None
    #: offset of the data in the payload (0 when the id came from a header)
    start: int
    #: "payload" or "header"
    source: str


@dataclass(frozen=True, slots=True)
class FrameError:
    reason: str


def id_headers(headers: Iterable[tuple[bytes, bytes | None]]
               ) -> tuple[bytes | None, bytes | None]:
    """The values of a record's ``__key_schema_id`` and ``__value_schema_id`` headers
    (None when absent; the last one when a header repeats, as a header lookup by name in
    Kafka's ``Headers.lastHeader`` gives)."""
    kh = vh = None
    for hk, hv in headers:
        if hk == KEY_SCHEMA_ID_HEADER:
            kh = hv
        elif hk == VALUE_SCHEMA_ID_HEADER:
            vh = hv
    return kh, vh


def read_id(buf: bytes, source: str) -> Frame | FrameError:
    """The id or GUID at the start of ``buf`` (a payload, or a schema-id header value)."""
    if not buf:
        return FrameError("empty")
    magic = buf[0]
    if magic == MAGIC_BYTE_V0:
        if len(buf) < 1 + ID_SIZE:
            return FrameError(f"{len(buf)} bytes: too short for the magic byte and a schema id")
        return Frame(int.from_bytes(buf[1:5], "big", signed=True), None, 1 + ID_SIZE, source)
    if magic == MAGIC_BYTE_V1:
        if len(buf) < 1 + GUID_SIZE:
            return FrameError(f"{len(buf)} bytes: too short for the magic byte and a GUID")
        return Frame(None, bytes(buf[1:17]), 1 + GUID_SIZE, source)
    return FrameError(f"magic byte {magic:#04x}, not 0x00 or 0x01")


def read_message_indexes(buf: bytes, pos: int) -> tuple[list[int], int] | FrameError:
    """Protobuf's message indexes at ``buf[pos:]``: (indexes, position after them).
    Indexes that do not read as zigzag varints are read as the unsigned varints of the
    serializers' deprecated format (``use.deprecated.format``), when that reads."""
    got = _read_indexes(buf, pos, zigzag=True)
    if isinstance(got, FrameError):
        old = _read_indexes(buf, pos, zigzag=False)
        if not isinstance(old, FrameError):
            return old
    return got


def _read_indexes(buf: bytes, pos: int, zigzag: bool) -> tuple[list[int], int] | FrameError:
    count, pos = _read_varint(buf, pos, zigzag)
    if count is None:
        return FrameError("message indexes are truncated")
    if count == 0:
        return [0], pos
    if count < 0 or count > MAX_MESSAGE_INDEXES:
        return FrameError(f"message index count {count} is not plausible")
    out = []
    for _ in range(count):
        n, pos = _read_varint(buf, pos, zigzag)
        if n is None:
            return FrameError("message indexes are truncated")
        if n < 0:
            return FrameError(f"negative message index {n}")
        out.append(n)
    return out, pos


def _read_varint(buf: bytes, pos: int, zigzag: bool = True) -> tuple[int | None, int]:
    """Kafka's ByteUtils.readVarint: a zigzag-encoded varint of at most 5 bytes
    (``zigzag=False``: ByteUtils.readUnsignedVarint)."""
    value = shift = 0
    while shift < 35:
        if pos >= len(buf):
            return None, pos
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return ((value >> 1) ^ -(value & 1)) if zigzag else value, pos
        shift += 7
    return None, pos


def message_indexes_bytes(indexes: list[int]) -> bytes:
    """SchemaMessageIndexes.toByteArray (for tests and tools that frame payloads)."""
    if indexes == [0]:
        return b"\x00"
    out = bytearray()
    for n in [len(indexes), *indexes]:
        z = (n << 1) ^ (n >> 31)
        while z & ~0x7F:
            out.append((z & 0x7F) | 0x80)
            z >>= 7
        out.append(z)
    return bytes(out)


def frame(schema_id: int, data: bytes, indexes: list[int] | None = None) -> bytes:
    """A payload as Confluent's serializers write it (magic 0x00, id, [indexes], data)."""
    head = bytes([MAGIC_BYTE_V0]) + schema_id.to_bytes(4, "big", signed=True)
    return head + (message_indexes_bytes(indexes) if indexes is not None else b"") + data
