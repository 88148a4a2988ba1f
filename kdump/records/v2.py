"""Record batches of magic 2.

clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java,
DefaultRecord.java.  A :class:`RecordBatch` is a lazy view: the 61-byte header is
unpacked when the batch is framed, the CRC is computed when asked, records are decoded
(and decompressed) only when :meth:`RecordBatch.records` is called.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import layouts as L
from ..checksums import crc32c_range
from ..codecs import decompress
from ..errors import KdumpError
from .faults import DEFAULT_MAX_BATCH_BYTES, FaultTuple, RecordFault, located, max_headers
from .native import speedups
from .packed import Packed, pack_columns
from .record import Record
from .walk import WalkFault, walk_v2

_native_decode = None if speedups is None else speedups.decode_v2_records
_native_packed = None if speedups is None else speedups.packed_v2_records

#: records decoded at a time by :meth:`RecordBatch.records`: a small compressed batch
#: can hold millions of tiny records, and only this many exist as objects at once
RECORD_CHUNK = 4096


def increment_sequence(sequence: int, increment: int) -> int:
    """DefaultRecordBatch.incrementSequence: sequences wrap from 2^31-1 to 0."""
    if sequence > L.INT32_MAX - increment:
        return increment - (L.INT32_MAX - sequence) - 1
    return sequence + increment


def decrement_sequence(sequence: int, decrement: int) -> int:
    if sequence < decrement:
        return L.INT32_MAX - (decrement - sequence) + 1
    return sequence - decrement


class RecordBatch:
    """A v2 record batch at ``position`` of ``path``; ``data[index:index+size]`` holds it."""

    __slots__ = (
        "_crc_valid",
        "attributes",
        "base_offset",
        "base_sequence",
        "base_timestamp",
        "batch_length",
        "crc",
        "data",
        "index",
        "last_offset_delta",
        "magic",
        "max_timestamp",
        "partition_leader_epoch",
        "path",
        "position",
        "producer_epoch",
        "producer_id",
        "records_count",
        "size",
    )

    def __init__(self, path: str, position: int, data: bytes, index: int) -> None:
        (
            self.base_offset,
            self.batch_length,
            self.partition_leader_epoch,
            self.magic,
            self.crc,
            self.attributes,
            self.last_offset_delta,
            self.base_timestamp,
            self.max_timestamp,
            self.producer_id,
            self.producer_epoch,
            self.base_sequence,
            self.records_count,
        ) = L.V2_HEADER.unpack_from(data, index)
        self.path = path
        self.position = position
        self.data = data
        self.index = index
        self.size = L.LOG_OVERHEAD + self.batch_length
        self._crc_valid: bool | None = None

    # --- header fields, under Kafka's names -------------------------------------------
    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def first_offset(self) -> int:
        """The first offset without decompressing: baseOffset."""
        return self.base_offset

    @property
    def checksum_name(self) -> str:
        return "CRC-32C"

    @property
    def count(self) -> int:
        """``countOrNull``: the records count from the header."""
        return self.records_count

    @property
    def compression(self) -> int:
        return self.attributes & L.V2_COMPRESSION_MASK

    @property
    def compression_name(self) -> str:
        return L.CODEC_NAMES.get(self.compression, f"unknown({self.compression})")

    @property
    def timestamp_type(self) -> str:
        return L.LOG_APPEND_TIME if self.attributes & L.V2_TIMESTAMP_TYPE_MASK else L.CREATE_TIME

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & L.V2_TRANSACTIONAL_FLAG)

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & L.V2_CONTROL_FLAG)

    @property
    def has_delete_horizon(self) -> bool:
        return bool(self.attributes & L.V2_DELETE_HORIZON_FLAG)

    @property
    def delete_horizon_ms(self) -> int | None:
        return self.base_timestamp if self.has_delete_horizon else None

    @property
    def first_timestamp(self) -> int:
        return self.base_timestamp

    @property
    def last_sequence(self) -> int:
        if self.base_sequence == L.NO_SEQUENCE:
            return L.NO_SEQUENCE
        return increment_sequence(self.base_sequence, self.last_offset_delta)

    @property
    def is_compressed(self) -> bool:
        return self.compression != L.CODEC_NONE

    @property
    def stored_payload_size(self) -> int:
        """Bytes of the records area as stored (compressed when compressed)."""
        return self.size - L.RECORD_BATCH_OVERHEAD

    # --- integrity ---------------------------------------------------------------------
    def compute_crc(self) -> int:
        i = self.index
        return crc32c_range(self.data, i + L.V2_ATTRIBUTES_OFFSET, i + self.size)

    @property
    def crc_valid(self) -> bool:
        """``isValid``: size at least the header and the stored CRC-32C matches."""
        if self._crc_valid is None:
            self._crc_valid = self.size >= L.RECORD_BATCH_OVERHEAD and self.crc == self.compute_crc()
        return self._crc_valid

    # --- records -----------------------------------------------------------------------
    def payload(self, max_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> tuple[bytes, int, int]:
        """The records area, decompressed: ``(buffer, start, end)``."""
        start = self.index + L.V2_RECORDS_OFFSET
        end = self.index + self.size
        if self.compression == L.CODEC_NONE:
            return self.data, start, end
        try:
            raw = decompress(self.compression, self.data[start:end], max_bytes, magic=2)
        except KdumpError as e:
            e.path, e.position, e.base_offset = self.path, self.position, self.base_offset
            raise
        return raw, 0, len(raw)

    def records(self, max_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> Iterator[Record]:
        """Decode the records, in order.

        Raises :class:`~kdump.records.faults.RecordFault` (path, position, base offset
        set) at the first record that does not parse, after yielding the ones before it,
        or when bytes are left over after ``recordsCount`` records.  Records are decoded
        ``RECORD_CHUNK`` at a time, so memory stays bounded whatever the records count;
        the headers of all of them are bounded by ``max_bytes`` (``TOO_MANY_HEADERS``).
        """
        buf, start, end = self.payload(max_bytes)
        count = self.records_count
        headers_max = max_headers(max_bytes)
        headers_left = headers_max
        pos, n = start, 0
        while True:
            records, fault, pos = self._decode(buf, pos, end, n, RECORD_CHUNK, headers_left,
                                               headers_max)
            n += len(records)
            if fault is None and n < count and records:
                headers_left -= sum(len(r.headers) for r in records)
                yield from records
                continue
            yield from records
            if fault is not None:
                raise self.located_fault(fault, start, max_bytes)
            return

    def decode_records(
        self, max_bytes: int = DEFAULT_MAX_BATCH_BYTES
    ) -> tuple[list[Record], RecordFault | None]:
        """All the records that parse, and the fault that stopped the rest (or None).

        Errors of the payload itself (decompression, ``max_bytes``) are raised.
        """
        buf, start, end = self.payload(max_bytes)
        headers_max = max_headers(max_bytes)
        records, fault, _ = self._decode(buf, start, end, 0, self.records_count,
                                         headers_max, headers_max)
        if fault is None:
            return records, None
        return records, self.located_fault(fault, start, max_bytes)

    def packed_records(self, max_bytes: int = DEFAULT_MAX_BATCH_BYTES
                       ) -> tuple[Packed, int, RecordFault | None]:
        """The records as packed columns (:mod:`kdump.records.packed`, no Record objects):
        ``(parts, records packed, the fault that stopped the rest or None)``; the
        records before a fault are packed, as :meth:`decode_records` keeps them.

        Errors of the payload itself (decompression, ``max_bytes``) are raised.
        """
        buf, start, end = self.payload(max_bytes)
        append_time = self.max_timestamp if self.attributes & L.V2_TIMESTAMP_TYPE_MASK else None
        packed, n, fault, _ = packed_v2_records(
            buf, start, end, self.records_count, max_headers(max_bytes), self.base_offset,
            self.base_timestamp, append_time, self.base_sequence)
        if fault is None:
            return packed, n, None
        return packed, n, self.located_fault(fault, start, max_bytes)

    def _decode(self, buf: bytes, pos: int, end: int, record: int, want: int,
                headers_left: int, headers_max: int
                ) -> tuple[list[Record], FaultTuple | None, int]:
        """Records ``record ..`` (at most ``want``) from ``buf[pos:end]``, natively when
        the extension is built."""
        compressed = self.compression != L.CODEC_NONE
        # positions reported for a record: absolute in the file, or in the payload
        shift = self.position - self.index if not compressed else 0
        append_time = self.max_timestamp if self.attributes & L.V2_TIMESTAMP_TYPE_MASK else None
        args = (buf, pos, end, record, self.records_count, want, headers_left, headers_max,
                self.base_offset, self.base_timestamp, append_time, self.base_sequence, shift,
                compressed)
        res = NotImplemented if _native_decode is None else _native_decode(*args, Record)
        if res is NotImplemented:
            res = decode_records_py(*args)
        return res

    def located_fault(self, fault: FaultTuple, start: int, max_bytes: int) -> RecordFault:
        """A walker's fault in this batch's records area (``start``: where it begins in
        the walked buffer) as a located error."""
        compressed = self.compression != L.CODEC_NONE
        return located(fault, count=self.records_count, max_batch_bytes=max_bytes,
                       start=start, shift=self.position - self.index, compressed=compressed,
                       path=self.path, position=self.position, base_offset=self.base_offset)

    def __repr__(self) -> str:
        return (
            f"RecordBatch(path={self.path!r}, position={self.position}, "
            f"base_offset={self.base_offset}, last_offset={self.last_offset}, "
            f"count={self.records_count}, size={self.size})"
        )


def decode_records_py(
    buf: bytes,
    pos: int,
    end: int,
    record: int,
    count: int,
    want: int,
    headers_left: int,
    headers_max: int,
    base_offset: int,
    base_timestamp: int,
    append_time: int | None,
    base_sequence: int,
    shift: int,
    compressed: bool,
) -> tuple[list[Record], FaultTuple | None, int]:
    """Records ``record ..`` of ``count`` (at most ``want``) from ``buf[pos:end]``:
    ``(records, fault, position)``, ``position`` where reading stopped.  The
    pure-Python twin of the native decoder; both walk with the one walker of their
    language (:func:`kdump.records.walk.walk_v2`)."""
    records: list[Record] = []
    try:
        for (start, limit, attributes, ts_delta, offset_delta, key, value,
             headers) in walk_v2(buf, pos, end, record, count, want, headers_left,
                                 headers_max, True):
            records.append(Record(
                base_offset + offset_delta,
                append_time if append_time is not None else base_timestamp + ts_delta,
                key, value, headers,
                attributes=attributes,
                sequence=(increment_sequence(base_sequence, offset_delta)
                          if base_sequence >= 0 else L.NO_SEQUENCE),
                size=limit - start,
                position=start + shift,
                in_payload=compressed,
                offset_delta=offset_delta,
                timestamp_delta=ts_delta,
            ))
            pos = limit
    except WalkFault as f:
        return records, f.fault, f.fault[2]
    return records, None, pos


def packed_v2_records(buf: bytes, pos: int, end: int, count: int, headers_max: int,
                      base_offset: int, base_timestamp: int, append_time: int | None,
                      base_sequence: int) -> tuple[Packed, int, FaultTuple | None, int]:
    """The ``count`` records of a v2 records area ``buf[pos:end]`` packed: ``(parts,
    records packed, fault or None, position where reading stopped)``; the records before
    a fault are packed (natively when the extension is built)."""
    args = (buf, pos, end, count, headers_max, base_offset, base_timestamp, append_time,
            base_sequence)
    res = NotImplemented if _native_packed is None else _native_packed(*args)
    if res is NotImplemented:
        return packed_v2_records_py(*args)
    return res


def packed_v2_records_py(buf: bytes, pos: int, end: int, count: int, headers_max: int,
                         base_offset: int, base_timestamp: int, append_time: int | None,
                         base_sequence: int) -> tuple[Packed, int, FaultTuple | None, int]:
    """The pure-Python twin of the native ``packed_v2_records``."""
    records, fault, stop = decode_records_py(buf, pos, end, 0, count, count, headers_max,
                                             headers_max, base_offset, base_timestamp,
                                             append_time, base_sequence, 0, False)
    packed = pack_columns([r.offset for r in records], [r.timestamp for r in records],
                          [r.key for r in records], [r.value for r in records],
                          [r.headers for r in records], [r.sequence for r in records])
    return packed, len(records), fault, stop
