"""Record statistics without building record objects: the hot path of ``verify-crc``
(record-level consistency) and ``size-report`` (per-record sizes).

:func:`scan_v2_records` walks the records area of a v2 batch once, with the one record
walker (:func:`kdump.records.walk.walk_v2`, or its C twin when the extension is built),
and returns a :class:`RecordScan`: counts, byte totals and the facts the consistency
checks need.  It never raises for bad data: the first fault is returned in ``fault``
(:mod:`kdump.records.faults` turns it into words).
"""

from __future__ import annotations

from dataclasses import dataclass

from .faults import FaultTuple, max_headers
from .native import speedups
from .v2 import DEFAULT_MAX_BATCH_BYTES
from .walk import WalkFault, walk_v2


@dataclass(slots=True)
class RecordScan:
    """What one pass over a batch's records found, about the records that parsed.

    ``records``: records parsed; ``record_bytes``: their total size (length varints
    included); ``key_bytes``/``value_bytes``: payload bytes (null counts 0);
    ``header_bytes``: header keys and values; ``first_delta``/``last_delta``: offset
    deltas of the first and last record; ``ascending``: offset deltas strictly
    increase; ``min_ts_delta``/``max_ts_delta``: timestamp deltas; ``fault``: the first
    fault (None: all ``count`` records parsed and no byte was left over).
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
    fault: FaultTuple | None = None


def scan_v2_records(buf: bytes, start: int, end: int, count: int,
                    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> RecordScan:
    """Statistics of ``count`` records in ``buf[start:end]`` (native when built)."""
    if _native_scan is not None:
        s = _native_scan(buf, start, end, count, max_headers(max_batch_bytes), RecordScan)
        if s is not NotImplemented:
            return s
    return scan_v2_records_py(buf, start, end, count, max_batch_bytes)


_native_scan = None if speedups is None else speedups.scan_v2_records


def scan_v2_records_py(buf: bytes, start: int, end: int, count: int,
                       max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> RecordScan:
    """The pure-Python twin of the native scan, and its reference."""
    s = RecordScan()
    n = key_bytes = value_bytes = header_bytes = headers = null_keys = null_values = 0
    prev_delta = -1
    min_ts = max_ts = 0
    ascending = True
    pos = start
    limit_h = max_headers(max_batch_bytes)
    try:
        for (_, limit, _, ts_delta, delta, klen, vlen, nh,
             hbytes) in walk_v2(buf, start, end, 0, count, count, limit_h, limit_h,
                                False):
            if klen >= 0:
                key_bytes += klen
            else:
                null_keys += 1
            if vlen >= 0:
                value_bytes += vlen
            else:
                null_values += 1
            headers += nh
            header_bytes += hbytes
            if n == 0:
                s.first_delta = delta
                min_ts = max_ts = ts_delta
            else:
                if delta <= prev_delta:
                    ascending = False
                if ts_delta < min_ts:
                    min_ts = ts_delta
                elif ts_delta > max_ts:
                    max_ts = ts_delta
            prev_delta = delta
            pos = limit
            n += 1
    except WalkFault as f:
        s.fault = f.fault
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
    s.min_ts_delta = min_ts
    s.max_ts_delta = max_ts
    return s
