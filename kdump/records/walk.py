"""The Python v2 record walker: the one place Python reads DefaultRecord bytes.

clients/src/main/java/org/apache/kafka/common/record/DefaultRecord.java (readFrom):

    length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
    keyLength varint | key | valueLength varint | value | headerCount varint |
    headers: (keyLength varint, key, valueLength varint, value)*

:func:`walk_v2` checks every record exactly as Kafka's reader does, plus the batch's
records count against the records present, and yields each record's fields; decoding
(:mod:`kdump.records.v2`, which builds :class:`~kdump.records.record.Record` objects)
and scanning (:mod:`kdump.records.scan`, which only counts) both run on it.  Its C
twin is ``walk_v2`` in ``kdump/_speedups_walk.c``; tests/native/test_speedups.py proves they agree.
Faults are raised as :class:`WalkFault` carrying a :data:`~kdump.records.faults.FaultTuple`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .faults import Fault, FaultTuple


class WalkFault(Exception):
    """The walk stopped at a fault (internal to the records layer)."""

    def __init__(self, fault: FaultTuple) -> None:
        super().__init__(fault)
        self.fault = fault


class _Varint(Exception):
    def __init__(self, code: Fault, a: int) -> None:
        super().__init__(code)
        self.code = code
        self.a = a


def _uvarint(buf: Any, pos: int, end: int, max_bytes: int) -> tuple[int, int]:
    """ByteUtils.readUnsignedVarint/Varlong: ``(value, next position)``."""
    result = 0
    shift = 0
    for _ in range(max_bytes):
        if pos >= end:
            raise _Varint(Fault.VARINT_PAST_END, 0)
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & (0xFFFFFFFF if max_bytes == 5 else 0xFFFFFFFFFFFFFFFF), pos
        shift += 7
    raise _Varint(Fault.VARINT_TOO_LONG, max_bytes)


def _varint(buf: Any, pos: int, limit: int, max_bytes: int) -> tuple[int, int]:
    """A ZigZag varint/varlong: ``(value, next position)``; one byte inline."""
    b = buf[pos] if pos < limit else 0x80
    if b < 0x80:  # the common case
        return (b >> 1) ^ -(b & 1), pos + 1
    u, pos = _uvarint(buf, pos, limit, max_bytes)
    return (u >> 1) ^ -(u & 1), pos


#: the fields :func:`walk_v2` yields for one record.  With ``build``: ``(start, limit,
#: attributes, timestamp_delta, offset_delta, key, value, headers)`` (key/value bytes or
#: None, headers a list of (key, value) pairs); without: ``(start, limit, attributes,
#: timestamp_delta, offset_delta, key_size, value_size, header_count, header_bytes)``
#: (sizes -1 for null).
RawRecord = tuple[Any, ...]


def walk_v2(buf: Any, pos: int, end: int, record: int, count: int, want: int,
            headers_left: int, headers_max: int, build: bool) -> Iterator[RawRecord]:
    """The records of ``buf[pos:end]``, from record index ``record`` of ``count``, at
    most ``want`` of them.  After the last of ``count`` records no byte may remain.

    ``headers_left``: headers the records walked here may hold before the batch is
    :attr:`~Fault.TOO_MANY_HEADERS` (``headers_max`` is the batch's whole allowance,
    for the message).  Raises :class:`WalkFault` at the first fault, after yielding
    the records before it.
    """
    if count < 0:
        raise WalkFault((Fault.COUNT_NEGATIVE, record, pos, 0, 0))
    stop = min(count, record + want)
    while record < stop:
        if pos >= end:
            raise WalkFault((Fault.COUNT_SHORT, record, pos, 0, 0))
        start = pos
        try:
            length, pos = _varint(buf, pos, end, 5)
            body = pos
            limit = pos + length
            if length < 6:
                raise WalkFault((Fault.LENGTH_INVALID, record, start, length, 0))
            if limit > end:
                raise WalkFault((Fault.LENGTH_PAST_END, record, start, length, end - pos))
            attributes = buf[pos]
            pos += 1
            ts_delta, pos = _varint(buf, pos, limit, 10)
            offset_delta, pos = _varint(buf, pos, limit, 5)
            klen, pos = _varint(buf, pos, limit, 5)
            key_at = pos
            if klen >= 0:
                if pos + klen > limit:
                    raise WalkFault((Fault.KEY_PAST_END, record, start, klen, 0))
                pos += klen
            vlen, pos = _varint(buf, pos, limit, 5)
            value_at = pos
            if vlen >= 0:
                if pos + vlen > limit:
                    raise WalkFault((Fault.VALUE_PAST_END, record, start, vlen, 0))
                pos += vlen
            nh, pos = _varint(buf, pos, limit, 5)
            if nh < 0:
                raise WalkFault((Fault.HEADER_COUNT_NEGATIVE, record, start, nh, 0))
            if nh > headers_left:
                raise WalkFault((Fault.TOO_MANY_HEADERS, record, start, nh, headers_max))
            headers_left -= nh
            headers: list[tuple[bytes, bytes | None]] | None = [] if build else None
            header_bytes = 0
            for _ in range(nh):
                hk, pos = _varint(buf, pos, limit, 5)
                if hk < 0:
                    raise WalkFault((Fault.HEADER_KEY_NEGATIVE, record, start, hk, 0))
                if pos + hk > limit:
                    raise WalkFault((Fault.HEADER_KEY_PAST_END, record, start, hk, 0))
                hk_at = pos
                pos += hk
                hv, pos = _varint(buf, pos, limit, 5)
                if hv >= 0:
                    if pos + hv > limit:
                        raise WalkFault((Fault.HEADER_VALUE_PAST_END, record, start, hv, 0))
                    if headers is not None:
                        headers.append((buf[hk_at:hk_at + hk], buf[pos:pos + hv]))
                    pos += hv
                    header_bytes += hk + hv
                else:
                    if headers is not None:
                        headers.append((buf[hk_at:hk_at + hk], None))
                    header_bytes += hk
            if pos != limit:
                raise WalkFault((Fault.BODY_SIZE, record, start, length, pos - body))
        except _Varint as v:
            raise WalkFault((v.code, record, start, v.a, 0)) from None
        if build:
            yield (start, limit, attributes, ts_delta, offset_delta,
                   None if klen < 0 else buf[key_at:key_at + klen],
                   None if vlen < 0 else buf[value_at:value_at + vlen], headers)
        else:
            yield (start, limit, attributes, ts_delta, offset_delta, klen, vlen, nh,
                   header_bytes)
        record += 1
    if record >= count and pos != end:
        raise WalkFault((Fault.BYTES_REMAIN, record, pos, end - pos, 0))


__all__ = ["RawRecord", "WalkFault", "walk_v2"]
