"""size-report's accounting of runs of intact batches in one call (issue 33).

:func:`kdump.ops.size_report._batch` accounts one framed batch at a time in Python.
For a local log read in depth, ``size_run`` in kdump/_speedups_runs.c walks a whole buffer of
the file instead: it frames each v2 batch as :class:`~kdump.records.file_records.LogReader`
would, scans its records as ``scan_v2_records`` does, adds up what ``_batch`` adds up,
and stops before the first batch that LogReader or ``_batch`` would have anything to say
about (damage, a v0/v1 entry, a payload that does not decompress, a batch over
``--max-batch-bytes``): Python frames and accounts that one as before.  Under
``--shallow`` the same walk accounts the headers only, as ``_batch`` does then.
:func:`size_run_py` is its pure-Python twin (tests/native/test_speedups.py proves them alike);
the command's output is the same bytes with or without the extension.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import layouts as L
from ...checksums import crc32c_range
from ...records.faults import max_headers
from ...records.file_records import LogReader, walk_decompress
from ...records.native import speedups
from ...records.scan import RecordScan, scan_v2_records_py
from ...records.v2 import DEFAULT_MAX_BATCH_BYTES

_native_size_run = None if speedups is None else speedups.size_run

#: what size_run gives back for a run: (position after it, batches, last offset of the
#: last batch, totals) -- totals as the C function's comment lists them, or None
RunResult = tuple[int, int, int | None, tuple[Any, ...] | None]

#: the headers bound ``_batch`` scans records with (scan_v2_records' default)
SCAN_HEADERS = max_headers(DEFAULT_MAX_BATCH_BYTES)


def native_size_run_available() -> bool:
    return _native_size_run is not None


def install(reader: LogReader, row: Any, max_batch_bytes: int, limit: int | None,
            add: Callable[[Any, int, tuple[Any, ...]], None], deep: bool = True,
            gaps: bool = False) -> bool:
    """Give ``reader`` the native walk (records scanned, or with ``deep`` false the
    headers only, as --shallow): each run's totals added to ``row`` by
    ``add(row, batches, totals)``; ``gaps``: a run also ends before a batch whose first
    offset does not follow the last one's (a delete-policy topic's gap is lost data).
    False (nothing changed) without the extension."""
    run_c = _native_size_run
    if run_c is None:
        return False
    check = reader.check_lengths and reader.resync
    producers = row.producer_ids

    def run(data: Any, i: int, stop: int, end_index: int) -> tuple[int, int, int | None]:
        j, batches, last, totals = run_c(data, i, stop, end_index, check, SCAN_HEADERS,
                                         max_batch_bytes, walk_decompress, producers, deep,
                                         gaps)
        if batches:
            add(row, batches, totals)
        return j, batches, last

    reader.skip_batches(run, limit)
    return True


def size_run_py(data: bytes, start: int, stop: int, end: int, check_next: bool,
                headers: int, max_batch_bytes: int,
                decompress: Callable[[int, bytes, int], bytes | None],
                producer_ids: set[int], deep: bool = True, gaps: bool = False) -> RunResult:
    """The pure-Python twin of the native ``size_run`` (see kdump/_speedups_runs.c), for the
    headers bound ``_batch`` scans with (``headers`` must be :data:`SCAN_HEADERS`)."""
    if headers != SCAN_HEADERS:
        raise ValueError(f"size_run_py scans with {SCAN_HEADERS} headers at most")
    i64 = 1 << 63
    if max_batch_bytes < 0 or max_batch_bytes > (1 << 40):
        return start, 0, 0, None
    if start < 0 or stop > len(data) or end < stop:
        stop = -1
    pos = start
    batches = 0
    last = 0
    sums = [0] * 10
    claimed = 0
    first_off: int | None = None
    last_off: int | None = None
    lo_ts: int | None = None
    hi_ts: int | None = None
    codecs: dict[int, list[int]] = {}
    while stop - pos >= L.RECORD_BATCH_OVERHEAD:
        (offset, size, _, magic, stored_crc, attributes, last_delta, base_ts, max_ts,
         producer, _, _, count) = L.V2_HEADER.unpack_from(data, pos)
        if magic != 2 or size < L.V2_MIN_BATCH_LENGTH:
            break
        total = L.LOG_OVERHEAD + size
        if total > stop - pos or total > max_batch_bytes + L.RECORD_BATCH_OVERHEAD:
            break
        codec = attributes & L.V2_COMPRESSION_MASK
        if codec > 4:
            break
        last_offset = offset + last_delta
        if last_offset >= i64:
            break
        if gaps and batches and offset - 1 != last:
            break  # not contiguous: a run's first offset is then its lowest
        if check_next:
            nxt = pos + total
            if nxt >= end:
                ok = True
            elif end - nxt <= L.HEADER_SIZE_UP_TO_MAGIC:
                ok = False
            elif stop - nxt < L.HEADER_SIZE_UP_TO_MAGIC:
                break
            else:
                nsize = L.INT32.unpack_from(data, nxt + L.V2_LENGTH_OFFSET)[0]
                ok = (data[nxt + L.MAGIC_OFFSET] <= 2 and nsize >= L.RECORD_OVERHEAD_V0
                      and nxt + L.LOG_OVERHEAD + nsize <= end)
            if not ok and crc32c_range(data, pos + L.V2_ATTRIBUTES_OFFSET,
                                       pos + total) != stored_crc:
                break
        if deep and crc32c_range(data, pos + L.V2_ATTRIBUTES_OFFSET, pos + total) != stored_crc:
            break  # a batch whose CRC fails: its records are counted apart, by Python
        ts_lo = ts_hi = max_ts
        if not deep:  # --shallow: the header's count, an uncompressed batch's size
            s = RecordScan(records=max(count, 0))
            unc = total if codec == 0 else 0
            if base_ts >= 0 and not attributes & L.V2_DELETE_HORIZON_FLAG:
                ts_lo = min(ts_lo, base_ts)
        else:
            if codec == 0:
                payload: bytes = data
                pstart, pend = pos + L.RECORD_BATCH_OVERHEAD, pos + total
            else:
                raw = decompress(codec, bytes(data[pos + L.RECORD_BATCH_OVERHEAD:pos + total]),
                                 max_batch_bytes)
                if not isinstance(raw, bytes):
                    break
                payload, pstart, pend = raw, 0, len(raw)
            s = scan_v2_records_py(payload, pstart, pend, max(count, 0))
            unc = L.RECORD_BATCH_OVERHEAD + (pend - pstart)
            if s.records and not attributes & L.V2_TIMESTAMP_TYPE_MASK:
                ts_lo = base_ts + s.min_ts_delta
                top = base_ts + s.max_ts_delta
                if not -i64 <= ts_lo < i64 or not -i64 <= top < i64:
                    break
                ts_hi = max(max_ts, top)
        if producer >= 0:
            producer_ids.add(producer)
        c = codecs.setdefault(codec, [0, 0, 0])
        c[0] += 1
        c[1] += total
        c[2] += unc
        if attributes & L.V2_TRANSACTIONAL_FLAG:
            sums[2] += 1
            sums[3] += total
        if attributes & L.V2_CONTROL_FLAG:
            sums[0] += 1
            sums[1] += s.records
        sums[4] += s.records
        claimed += max(count, 0)
        sums[5] += s.key_bytes
        sums[6] += s.value_bytes
        sums[7] += s.header_bytes
        sums[8] += unc
        if deep:
            sums[9] += unc - s.key_bytes - s.value_bytes - s.header_bytes
        first_off = offset if first_off is None else min(first_off, offset)
        last_off = last_offset if last_off is None else max(last_off, last_offset)
        if deep or count > 0:
            if ts_lo >= 0:
                lo_ts = ts_lo if lo_ts is None else min(lo_ts, ts_lo)
            if ts_hi >= 0:
                hi_ts = ts_hi if hi_ts is None else max(hi_ts, ts_hi)
        last = last_offset
        batches += 1
        pos += total
    if not batches:
        return start, 0, 0, None
    cb, cr, tb, tbytes, records, kb, vb, hb, unc_total, ovh = sums
    return pos, batches, last, (
        records, cb, cr, tb, tbytes, kb, vb, hb, unc_total, ovh, first_off, last_off, lo_ts,
        hi_ts, tuple((code, *v) for code, v in codecs.items()), claimed)
