"""A partition's batch headers, in offset order, read 61 bytes a batch where batches are
large (what compare-replicas and lag compare and count), and a partition's log end
offset.  A stretch whose headers do not frame is handed to the resynchronising
:class:`~kdump.records.file_records.LogReader`, whose findings name the damage.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

from ... import layouts as L
from ...errors import KdumpError
from ...files.logdir import list_segments
from ...findings import INFO, Problem
from ...records.batch import Batch
from ...records.file_records import LogReader
from ...records.v2 import DEFAULT_MAX_BATCH_BYTES, RecordBatch
from ...source import FileSource
from .epochs import UNDEFINED_EPOCH
from .header_run import NO_LIMIT, Run, header_run

#: below this batch size the next header is probably in the bytes already read: read
#: large windows; above it, read each 61-byte header alone
_SMALL_BATCH = 4096
_WINDOW = 256 << 10


class Head:
    """A batch as its header describes it: what identifies it across replicas."""

    __slots__ = (
        "attributes",
        "base",
        "compressed",
        "count",
        "crc",
        "epoch",
        "first_timestamp",
        "last",
        "magic",
        "max_timestamp",
        "path",
        "position",
        "producer_epoch",
        "producer_id",
        "size",
    )

    def __init__(self, base: int, last: int, epoch: int, crc: int, magic: int, count: int,
                 size: int, path: str, position: int, attributes: int, compressed: bool,
                 first_timestamp: int = -1, max_timestamp: int = -1, producer_id: int = -1,
                 producer_epoch: int = -1) -> None:
        self.base = base
        self.last = last
        self.epoch = epoch
        self.crc = crc
        self.magic = magic
        self.count = count
        self.size = size
        self.path = path
        self.position = position
        self.attributes = attributes
        self.compressed = compressed
        #: v2: the header's baseTimestamp / maxTimestamp, producerId / producerEpoch
        #: (kdump timeline dates and follows producers by them); -1 for legacy batches
        self.first_timestamp = first_timestamp
        self.max_timestamp = max_timestamp
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch

    @property
    def identity(self) -> tuple[int, int, int, int, int]:
        return (self.base, self.last, self.epoch, self.crc, self.magic)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.path, "position": self.position, "base_offset": self.base,
                "last_offset": self.last, "partition_leader_epoch": self.epoch,
                "crc": self.crc, "magic": self.magic, "count": self.count, "size": self.size}


def _head_of(b: Batch, prev_last: int | None) -> Head:
    if isinstance(b, RecordBatch):
        return Head(b.base_offset, b.last_offset, b.partition_leader_epoch, b.crc, b.magic,
                    max(b.records_count, 0), b.size, b.path, b.position, b.attributes,
                    b.is_compressed, b.base_timestamp, b.max_timestamp, b.producer_id,
                    b.producer_epoch)
    base = b.last_offset if not b.is_compressed else (
        b.last_offset if prev_last is None else min(prev_last + 1, b.last_offset))
    ts = b.max_timestamp if b.magic == 1 else -1
    return Head(base, b.last_offset, UNDEFINED_EPOCH, b.crc, b.magic,
                1 if not b.is_compressed else b.last_offset - base + 1, b.size, b.path,
                b.position, b.attributes, b.is_compressed, ts, ts)


class HeaderWalk:
    """Batch headers of a partition's segments, in offset order, reading 61 bytes a batch
    where batches are large; a stretch whose headers do not frame is handed to the
    resynchronising :class:`LogReader`, whose findings name the damage."""

    def __init__(self, replica_path: str, *, max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
                 from_segment: int | None = None, runs: bool = False,
                 native: bool = True) -> None:
        self.path = replica_path
        #: after each head, the batches that change nothing a reader reports are one
        #: :class:`Run` (kdump.ops.compare_replicas.header_run), none reaching ``until``,
        #: which the reader may lower after each head (``native``: the C walk where built)
        self.runs = runs
        self.native = native
        self.until = NO_LIMIT
        self.max_batch_bytes = max_batch_bytes
        self.bytes_read = 0
        self.segments: list[tuple[int, str]] = []
        self.problems: list[Problem] = []
        try:
            self.segments = list_segments(replica_path)
        except OSError as e:
            self.problems.append(Problem(replica_path, None, "unreadable-file",
                                         (e.strerror or str(e)).lower()))
        if from_segment is not None and self.segments:
            self.segments = self.segments[-from_segment:]

    def __iter__(self) -> Iterator[Head | Problem]:
        # a Run only with ``runs`` (whose readers iterate :meth:`items`)
        return cast(Iterator[Head | Problem], self.items())

    def items(self) -> Iterator[Head | Run | Problem]:
        """The heads, problems and, with ``runs``, runs, in offset order."""
        prev_last: int | None = None
        n = len(self.segments)
        for k, (_base, seg) in enumerate(self.segments):
            try:
                src = FileSource(seg)
            except KdumpError as e:
                yield Problem(seg, None, "unreadable-file", e.message)
                continue
            with src:
                for item in self._segment(src, k == n - 1, prev_last):
                    if isinstance(item, (Head, Run)):
                        prev_last = item.last
                    yield item
                self.bytes_read += src.bytes_read

    def _segment(self, src: FileSource, active: bool, prev_last: int | None
                 ) -> Iterator[Head | Run | Problem]:
        size = src.size
        path = src.path
        pos = 0
        buf = b""
        buf_at = 0
        last_size = 0
        while pos < size:
            remaining = size - pos
            need = min(L.RECORD_BATCH_OVERHEAD, remaining)
            if not (buf_at <= pos and pos + need <= buf_at + len(buf)):
                n = _WINDOW if last_size < _SMALL_BATCH else L.RECORD_BATCH_OVERHEAD
                buf = src.pread(pos, max(n, need))
                buf_at = pos
            i = pos - buf_at
            head = self._frame(buf, i, len(buf) - i, pos, remaining, path, prev_last)
            if head is None:
                # not framed: the resynchronising reader takes over from here
                yield from self._resync(src, pos, active, prev_last)
                return
            yield head
            prev_last = head.last
            last_size = head.size
            pos += head.size
            if self.runs and head.magic == 2 and not head.attributes & L.V2_CONTROL_FLAG:
                start = pos
                (pos, buf, buf_at, last_size, batches, last, max_ts, last_ts, _n,
                 _f) = header_run(src, buf, buf_at, pos, last_size, head.last,
                                  head.attributes, head.epoch, head.producer_id,
                                  head.producer_epoch, self.until, self.max_batch_bytes,
                                  self.native)
                if batches:
                    yield Run(path, start, prev_last + 1, last, batches, max_ts, last_ts)
                    prev_last = last

    def _frame(self, buf: bytes, i: int, avail: int, pos: int, remaining: int, path: str,
               prev_last: int | None) -> Head | None:
        if avail <= L.HEADER_SIZE_UP_TO_MAGIC:
            return None
        offset, length = L.LOG_HEADER.unpack_from(buf, i)
        magic = buf[i + L.MAGIC_OFFSET]
        total = L.LOG_OVERHEAD + length
        if offset < 0 or total > remaining or magic > 2:
            return None
        if total > self.max_batch_bytes + L.RECORD_BATCH_OVERHEAD:
            return None
        if magic == 2:
            if length < L.V2_MIN_BATCH_LENGTH or avail < L.RECORD_BATCH_OVERHEAD:
                return None
            (base, _len, epoch, _m, crc, attributes, delta, first_ts, max_ts, pid, pe, _bs,
             count) = L.V2_HEADER.unpack_from(buf, i)
            if attributes & ~0x7F or (attributes & 7) > 4 or delta < 0 or count < 0:
                return None
            if prev_last is not None and base <= prev_last:
                return None
            return Head(base, base + delta, epoch, crc, 2, count, total, path, pos,
                        attributes, bool(attributes & 7), first_ts, max_ts, pid, pe)
        if length < L.RECORD_OVERHEAD_V0 or avail <= L.LEGACY_ATTRIBUTES_OFFSET:
            return None
        _o, _s, crc, _m, attributes = L.LEGACY_HEADER.unpack_from(buf, i)
        attributes &= 0xFF
        if attributes & (0xF8 if magic == 0 else 0xF0) or (attributes & 7) > 3:
            return None
        if prev_last is not None and offset <= prev_last:
            return None
        compressed = bool(attributes & 7)
        base = offset if not compressed else (
            offset if prev_last is None else min(prev_last + 1, offset))
        ts = -1
        if magic == 1 and avail >= L.LEGACY_V1_TIMESTAMP_OFFSET + 8:
            (ts,) = L.INT64.unpack_from(buf, i + L.LEGACY_V1_TIMESTAMP_OFFSET)
        return Head(base, offset, UNDEFINED_EPOCH, crc, magic,
                    1 if not compressed else offset - base + 1, total, path, pos,
                    attributes, compressed, ts, ts)

    def _resync(self, src: FileSource, start: int, active: bool, prev_last: int | None
                ) -> Iterator[Head | Problem]:
        reader = LogReader(src, start=start, active=active, max_batch_bytes=self.max_batch_bytes)
        for item in reader:
            if isinstance(item, Problem):
                yield item
                continue
            if not item.crc_valid:
                yield Problem(src.path, item.position, "crc-mismatch",
                              f"stored CRC {item.crc} but computed {item.compute_crc()}",
                              base_offset=item.base_offset if item.magic >= 2 else item.last_offset)
                continue
            h = _head_of(item, prev_last)
            prev_last = h.last
            yield h


def log_end_offset(replica_path: str, max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
                   ) -> tuple[int | None, list[Problem]]:
    """The log end offset of a partition directory: after the last batch of its last
    segment (the base offset of an empty last segment); only that segment's headers are
    read.  None when it holds no segment."""
    w = HeaderWalk(replica_path, max_batch_bytes=max_batch_bytes, from_segment=1)
    problems = list(w.problems)
    if not w.segments:
        return None, problems
    leo = w.segments[-1][0]
    for item in w:
        if isinstance(item, Problem):
            if item.severity != INFO:
                problems.append(item)
            continue
        leo = max(leo, item.last + 1)
    return leo, problems
