"""Record statistics without building record objects: the hot path of ``verify-crc``
(record-level consistency) and ``size-report`` (per-record sizes).

:func:`scan_v2_records` walks the records area of a v2 batch once and returns a
:class:`RecordScan`: counts, byte totals and the facts the consistency checks need.
It never raises for bad data: the first problem is returned in ``error``.  A native
implementation (``kdump._speedups``), when built, replaces it; tests prove both give
identical results.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import KdumpError
from ._native import speedups
from .varint import read_uvarint


@dataclass(slots=True)
class RecordScan:
    """What one pass over a batch's records found.

    ``records``: records parsed; ``record_bytes``: their total size (length varints
    included); ``key_bytes``/``value_bytes``: payload bytes (null counts 0);
    ``header_bytes``: header keys and values; ``first_delta``/``last_delta``: offset
    deltas of the first and last record; ``ascending``: offset deltas strictly
    increase; ``min_ts_delta``/``max_ts_delta``: timestamp deltas; ``error``: the first
    problem (None: all ``count`` records parsed and no byte was left over) and
    ``error_at``: its position in the buffer.
    """

    records: int = 0
    record_bytes: int = 0
    key_bytes: int = 0
    value_bytes: int = 0
    header_bytes: int = 0
    headers: int = 0
    null_keys: int = 0
    null_values: int = 0
    first_delta: int = -1
    last_delta: int = -1
    ascending: bool = True
    min_ts_delta: int = 0
    max_ts_delta: int = 0
    error: str | None = None
    error_at: int = -1


def _zz(u: int) -> int:
    return (u >> 1) ^ -(u & 1)


def scan_v2_records(buf: bytes, start: int, end: int, count: int) -> RecordScan:
    """Statistics of ``count`` records in ``buf[start:end]`` (native when built)."""
    if _native_scan is not None:
        s = _native_scan(buf, start, end, count, RecordScan)
        if s is not NotImplemented:
            return s
    return scan_v2_records_py(buf, start, end, count)


_native_scan = None if speedups is None else speedups.scan_v2_records


def scan_v2_records_py(buf: bytes, start: int, end: int, count: int) -> RecordScan:
    """The pure-Python twin of the native scan, and its reference."""
    s = RecordScan()
    pos = start
    prev_delta = -1
    min_ts = max_ts = None
    key_bytes = value_bytes = header_bytes = headers = null_keys = null_values = 0
    ascending = True
    n = 0
    try:
        while n < count:
            if pos >= end:
                s.error = f"batch declares {count} records but its data ends after {n}"
                s.error_at = pos
                break
            rec_start = pos
            b = buf[pos]
            if b < 0x80:
                length = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                u, pos = read_uvarint(buf, pos, end, 5)
                length = _zz(u)
            limit = pos + length
            if length < 6 or limit > end:
                s.error = f"record {n}: invalid record length {length}"
                s.error_at = rec_start
                break
            pos += 1  # attributes
            b = buf[pos] if pos < limit else 0x80  # one-byte varints inline
            if b < 0x80:
                ts_delta = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                u, pos = read_uvarint(buf, pos, limit, 10)
                ts_delta = _zz(u & 0xFFFFFFFFFFFFFFFF)
            b = buf[pos] if pos < limit else 0x80
            if b < 0x80:
                delta = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                u, pos = read_uvarint(buf, pos, limit, 5)
                delta = _zz(u)
            b = buf[pos] if pos < limit else 0x80
            if b < 0x80:
                klen = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                u, pos = read_uvarint(buf, pos, limit, 5)
                klen = _zz(u)
            if klen >= 0:
                key_bytes += klen
                pos += klen
            else:
                null_keys += 1
            b = buf[pos] if pos < limit else 0x80
            if b < 0x80:
                vlen = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                u, pos = read_uvarint(buf, pos, limit, 5)
                vlen = _zz(u)
            if vlen >= 0:
                value_bytes += vlen
                pos += vlen
            else:
                null_values += 1
            if pos > limit:
                s.error = f"record {n}: key or value runs past the record"
                s.error_at = rec_start
                break
            b = buf[pos] if pos < limit else 0x80
            if b < 0x80:
                nh = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                u, pos = read_uvarint(buf, pos, limit, 5)
                nh = _zz(u)
            if nh < 0:
                s.error = f"record {n}: invalid number of headers {nh}"
                s.error_at = rec_start
                break
            for _ in range(nh):
                u, pos = read_uvarint(buf, pos, limit, 5)
                hk = _zz(u)
                if hk < 0:
                    raise ValueError(f"record {n}: invalid header key length {hk}")
                pos += hk
                u, pos = read_uvarint(buf, pos, limit, 5)
                hv = _zz(u)
                if hv > 0:
                    pos += hv
                header_bytes += hk + max(hv, 0)
                if pos > limit:
                    raise ValueError(f"record {n}: header runs past the record")
            headers += nh
            if pos != limit:
                s.error = (f"record {n}: record body declares {length} bytes but its fields "
                           f"take {pos - (limit - length)}")
                s.error_at = rec_start
                break
            if n == 0:
                s.first_delta = delta
                min_ts = max_ts = ts_delta
            else:
                if delta <= prev_delta:
                    ascending = False
                if ts_delta < min_ts:  # type: ignore[operator]
                    min_ts = ts_delta
                elif ts_delta > max_ts:  # type: ignore[operator]
                    max_ts = ts_delta
            prev_delta = delta
            n += 1
        else:
            if pos != end:
                s.error = f"{end - pos} bytes remain after the {count} records the batch declares"
                s.error_at = pos
    except (ValueError, KdumpError) as e:  # bad varints, header errors above
        msg = e.message if isinstance(e, KdumpError) else str(e)
        s.error = msg if msg.startswith("record") else f"record {n}: {msg}"
        s.error_at = pos
    s.records = n
    s.record_bytes = pos - start
    s.key_bytes = key_bytes
    s.value_bytes = value_bytes
    s.header_bytes = header_bytes
    s.headers = headers
    s.null_keys = null_keys
    s.null_values = null_values
    s.last_delta = prev_delta
    s.ascending = ascending
    s.min_ts_delta = min_ts or 0
    s.max_ts_delta = max_ts or 0
    return s
