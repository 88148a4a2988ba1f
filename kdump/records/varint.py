"""Kafka's variable-length integers.

clients/src/main/java/org/apache/kafka/common/utils/ByteUtils.java:

``varint``/``varlong`` are ZigZag-encoded, ``uvarint`` is plain base-128.  Each reader
takes ``(buffer, position)`` and returns ``(value, next position)``; it raises
:class:`~kdump.errors.CorruptDataError` for a value that runs off the end or is longer
than Kafka allows (5 bytes for 32-bit, 10 for 64-bit).
"""

from __future__ import annotations

from ..errors import CorruptDataError


def read_uvarint(buf: bytes, pos: int, end: int, max_bytes: int = 5) -> tuple[int, int]:
    result = 0
    shift = 0
    for _ in range(max_bytes):
        if pos >= end:
            raise CorruptDataError("varint runs past the end of its data")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            if max_bytes == 5:
                result &= 0xFFFFFFFF
            return result, pos
        shift += 7
    raise CorruptDataError(f"varint is longer than {max_bytes} bytes")


def read_varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """ZigZag int32."""
    if pos < end:
        b = buf[pos]
        if b < 0x80:  # one-byte fast path: the common case for lengths and deltas
            return (b >> 1) ^ -(b & 1), pos + 1
    u, pos = read_uvarint(buf, pos, end, 5)
    return (u >> 1) ^ -(u & 1), pos


def read_varlong(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """ZigZag int64."""
    if pos < end:
        b = buf[pos]
        if b < 0x80:
            return (b >> 1) ^ -(b & 1), pos + 1
    u, pos = read_uvarint(buf, pos, end, 10)
    u &= 0xFFFFFFFFFFFFFFFF
    return (u >> 1) ^ -(u & 1), pos


def size_of_varint(n: int) -> int:
    u = ((n << 1) ^ (n >> 31)) & 0xFFFFFFFF
    size = 1
    while u >= 0x80:
        u >>= 7
        size += 1
    return size
