"""Runs of batch headers that change nothing a header walk's reader reports (issue 48
What 5: ``kdump timeline``'s walk of a data partition): after a batch the walk yielded,
the v2 batches that follow it in the same segment with the same partitionLeaderEpoch,
producer id and epoch, timestamp type and transactional flag, none a control batch,
each one's first offset the one after the previous one's last, are consumed as one
:class:`Run` (their count, last offset, greatest and last maxTimestamp), read exactly as
:class:`~kdump.ops.compare_replicas.headers.HeaderWalk` reads them (the same windows,
the same bytes counted).  The run stops before any batch the walk would frame otherwise
or not at all, and before a batch whose last offset reaches ``until``.

``header_run`` in kdump/_speedups_runs.c walks it without Python between batches;
:func:`header_run_py` is its pure-Python twin (tests/native/test_speedups.py and
tests/ops/timeline prove them alike).
"""

from __future__ import annotations

from ... import layouts as L
from ...records.native import speedups
from ...source import FileSource

#: below this batch size the next header is probably in the bytes already read: read
#: large windows; above it, read each 61-byte header alone (HeaderWalk's rule)
SMALL_BATCH = 4096
WINDOW = 256 << 10

#: the attribute bits a run keeps: timestamp type, transactional, control
RUN_ATTRIBUTES = L.V2_TIMESTAMP_TYPE_MASK | L.V2_TRANSACTIONAL_FLAG | L.V2_CONTROL_FLAG

#: no offset bound for a run
NO_LIMIT = (1 << 63) - 1

_native = None if speedups is None else getattr(speedups, "header_run", None)

#: (position after the run, window, window's position, last batch's size, batches,
#: last offset, greatest maxTimestamp, last maxTimestamp >= 0 (else -1), bytes read,
#: furthest position read)
RunState = tuple[int, bytes, int, int, int, int, int, int, int, int]


class Run:
    """Batches a header walk consumed in one go (see the module docstring)."""

    __slots__ = ("batches", "first", "last", "last_timestamp", "max_timestamp", "path",
                 "position")

    def __init__(self, path: str, position: int, first: int, last: int, batches: int,
                 max_timestamp: int, last_timestamp: int) -> None:
        self.path = path
        self.position = position
        self.first = first
        self.last = last
        self.batches = batches
        #: the greatest maxTimestamp of the run's batches (-1: none >= 0)
        self.max_timestamp = max_timestamp
        #: the maxTimestamp of the run's last batch with one >= 0 (-1: none)
        self.last_timestamp = last_timestamp


def native_header_run_available() -> bool:
    return _native is not None


def header_run(src: FileSource, buf: bytes, buf_at: int, pos: int, last_size: int,
               prev_last: int, attributes: int, epoch: int, producer_id: int,
               producer_epoch: int, until: int, max_batch_bytes: int,
               native: bool = True) -> RunState:
    """The run from ``pos`` (see the module docstring), native where built; the bytes
    read are counted on ``src``."""
    if native and _native is not None:
        r: RunState = _native(src.fd, src.size, buf, buf_at, pos, last_size, prev_last,
                              attributes & RUN_ATTRIBUTES, epoch, producer_id,
                              producer_epoch, until, max_batch_bytes)
        if r[8]:
            src.note_read(r[9] - r[8], r[8])
        return r
    return header_run_py(src, buf, buf_at, pos, last_size, prev_last, attributes, epoch,
                         producer_id, producer_epoch, until, max_batch_bytes)


def header_run_py(src: FileSource, buf: bytes, buf_at: int, pos: int, last_size: int,
                  prev_last: int, attributes: int, epoch: int, producer_id: int,
                  producer_epoch: int, until: int, max_batch_bytes: int) -> RunState:
    """The pure-Python twin of the native ``header_run``."""
    size = src.size
    keep = attributes & RUN_ATTRIBUTES
    batches = 0
    max_ts = last_ts = -1
    nread = 0
    furthest = 0
    limit = max_batch_bytes + L.RECORD_BATCH_OVERHEAD
    unpack = L.V2_HEADER.unpack_from
    if keep & L.V2_CONTROL_FLAG:
        return pos, buf, buf_at, last_size, 0, prev_last, -1, -1, 0, 0
    while pos < size:
        remaining = size - pos
        need = min(L.RECORD_BATCH_OVERHEAD, remaining)
        if not (buf_at <= pos and pos + need <= buf_at + len(buf)):
            n = WINDOW if last_size < SMALL_BATCH else L.RECORD_BATCH_OVERHEAD
            buf = src.pread(pos, max(n, need))
            buf_at = pos
            nread += len(buf)
            furthest = pos + len(buf)
        i = pos - buf_at
        if len(buf) - i < L.RECORD_BATCH_OVERHEAD:
            break
        (base, length, bepoch, magic, _crc, attrs, delta, _first_ts, max_t, pid, pe, _bs,
         count) = unpack(buf, i)
        total = L.LOG_OVERHEAD + length
        if (base < 0 or magic != 2 or total > remaining or total > limit
                or length < L.V2_MIN_BATCH_LENGTH or attrs & ~0x7F or (attrs & 7) > 4
                or delta < 0 or count < 0 or base != prev_last + 1
                or attrs & RUN_ATTRIBUTES != keep or bepoch != epoch or pid != producer_id
                or pe != producer_epoch or base + delta >= until):
            break
        batches += 1
        prev_last = base + delta
        if max_t >= 0:
            last_ts = max_t
            if max_t > max_ts:
                max_ts = max_t
        last_size = total
        pos += total
    return pos, buf, buf_at, last_size, batches, prev_last, max_ts, last_ts, nread, furthest
