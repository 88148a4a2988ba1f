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
from ..errors import CorruptDataError, KdumpError
from ._native import speedups
from .record import Header, Record
from .varint import read_uvarint

#: bound on one batch's records, decompressed or stored (``--max-batch-bytes``): the
#: payload, its keys and values, their text and the output line (invalid UTF-8 printed
#: as U+FFFD takes three bytes per byte) stay under 300 MB of RSS (tests/test_bombs.py);
#: Kafka's batches are at most 1 MiB (message.max.bytes) as stored, so 16x fits
DEFAULT_MAX_BATCH_BYTES = 16 << 20


_native_decode = None if speedups is None else speedups.decode_v2_records

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

        Raises :class:`CorruptDataError` (path, position, base offset set) at the first
        record that does not parse, after yielding the ones before it, or when bytes are
        left over after ``recordsCount`` records.  Records are decoded ``RECORD_CHUNK`` at
        a time, so memory stays bounded whatever the records count.
        """
        if self.records_count <= RECORD_CHUNK:
            records, error = self.decode_records(max_bytes)
            yield from records
            if error is not None:
                raise error
            return
        buf, start, end = self.payload(max_bytes)
        compressed = self.compression != L.CODEC_NONE
        shift = self.position - self.index if not compressed else 0
        append_time = self.max_timestamp if self.attributes & L.V2_TIMESTAMP_TYPE_MASK else None
        count = self.records_count
        pos = start
        n = 0
        while True:
            k = min(RECORD_CHUNK, count - n)
            last = n + k == count
            args = (buf, pos, end, k, self.base_offset, self.base_timestamp, append_time,
                    self.base_sequence, shift, compressed)
            res = NotImplemented if _native_decode is None else _native_decode(*args, Record)
            if res is NotImplemented:
                res = decode_records_py(*args)
            records, message, stop = res
            got = len(records)
            n += got
            yield from records
            del records, res
            if message is not None and got == k and not last:
                pos = stop  # "bytes remain" after a full chunk: the next chunk starts there
                continue
            if message is None and last:
                return
            # the decoder saw only this chunk: say it for the whole batch
            if message is None or (got < k and stop >= end):
                message = f"batch declares {count} records but its data ends after {n}"
            elif got == k:
                message = f"{end - stop} bytes remain after the {count} records the batch declares"
            where = f"record {n}" + (
                f" (decompressed byte {stop - start})" if compressed else f" (byte {stop + shift})"
            )
            raise CorruptDataError(f"{where}: {message}", path=self.path, position=self.position,
                                   base_offset=self.base_offset)

    def decode_records(
        self, max_bytes: int = DEFAULT_MAX_BATCH_BYTES
    ) -> tuple[list[Record], CorruptDataError | None]:
        """All the records that parse, and the error that stopped the rest (or None).

        Errors of the payload itself (decompression, ``max_bytes``) are raised.
        """
        buf, start, end = self.payload(max_bytes)
        compressed = self.compression != L.CODEC_NONE
        # positions reported for a record: absolute in the file, or in the payload
        shift = self.position - self.index if not compressed else 0
        append_time = self.max_timestamp if self.attributes & L.V2_TIMESTAMP_TYPE_MASK else None
        args = (buf, start, end, self.records_count, self.base_offset, self.base_timestamp,
                append_time, self.base_sequence, shift, compressed)
        res = NotImplemented if _native_decode is None else _native_decode(*args, Record)
        if res is NotImplemented:
            res = decode_records_py(*args)
        records, message, pos = res
        if message is None:
            return records, None
        where = f"record {len(records)}" + (
            f" (decompressed byte {pos - start})" if compressed else f" (byte {pos + shift})"
        )
        return records, CorruptDataError(
            f"{where}: {message}", path=self.path, position=self.position,
            base_offset=self.base_offset,
        )

    def __repr__(self) -> str:
        return (
            f"RecordBatch(path={self.path!r}, position={self.position}, "
            f"base_offset={self.base_offset}, last_offset={self.last_offset}, "
            f"count={self.records_count}, size={self.size})"
        )


def decode_records_py(
    buf: bytes,
    start: int,
    end: int,
    count: int,
    base_offset: int,
    base_timestamp: int,
    append_time: int | None,
    base_sequence: int,
    shift: int,
    compressed: bool,
) -> tuple[list[Record], str | None, int]:
    """``count`` records from ``buf[start:end]``: ``(records, error, position)``.

    ``error`` is the message of the first problem (None when all ``count`` records
    parsed and no byte is left over) and ``position`` where reading stopped (the
    failing record's start).  The pure-Python twin of the native decoder.
    """
    records: list[Record] = []
    pos = start
    n = 0
    try:
        while n < count:
            if pos >= end:
                raise CorruptDataError(
                    f"batch declares {count} records but its data ends after {n}"
                )
            rec, pos = parse_record(buf, pos, end, base_offset, base_timestamp, append_time,
                                    base_sequence)
            rec.position += shift
            rec.in_payload = compressed
            n += 1
            records.append(rec)
        if pos != end:
            raise CorruptDataError(
                f"{end - pos} bytes remain after the {count} records the batch declares"
            )
    except CorruptDataError as e:
        return records, e.message, pos
    return records, None, pos


def parse_record(
    buf: bytes,
    pos: int,
    end: int,
    base_offset: int,
    base_timestamp: int,
    append_time: int | None,
    base_sequence: int,
) -> tuple[Record, int]:
    """One DefaultRecord at ``buf[pos:]``; returns it and the position after it.

    Mirrors DefaultRecord.readFrom's checks: declared body length within the data, no
    negative header count or header key length, and the body consumed exactly.
    """
    start = pos
    # length: ZigZag varint (one-byte fast path inline)
    b = buf[pos] if pos < end else -1
    if 0 <= b < 0x80:
        length = (b >> 1) ^ -(b & 1)
        pos += 1
    else:
        u, pos = read_uvarint(buf, pos, end, 5)
        length = (u >> 1) ^ -(u & 1)
    body = pos
    limit = pos + length
    if length < 6 or limit > end:
        raise CorruptDataError(
            f"invalid record length {length} with {end - pos} bytes left"
            if length >= 6
            else f"invalid record length {length}"
        )
    attributes = buf[pos]
    pos += 1
    b = buf[pos] if pos < limit else 0x80
    if b < 0x80:
        ts_delta = (b >> 1) ^ -(b & 1)
        pos += 1
    else:
        u, pos = read_uvarint(buf, pos, limit, 10)
        u &= 0xFFFFFFFFFFFFFFFF
        ts_delta = (u >> 1) ^ -(u & 1)
    b = buf[pos] if pos < limit else 0x80
    if b < 0x80:
        offset_delta = (b >> 1) ^ -(b & 1)
        pos += 1
    else:
        u, pos = read_uvarint(buf, pos, limit, 5)
        offset_delta = (u >> 1) ^ -(u & 1)
    b = buf[pos] if pos < limit else 0x80
    if b < 0x80:
        klen = (b >> 1) ^ -(b & 1)
        pos += 1
    else:
        u, pos = read_uvarint(buf, pos, limit, 5)
        klen = (u >> 1) ^ -(u & 1)
    if klen >= 0:
        if pos + klen > limit:
            raise CorruptDataError(f"key length {klen} runs past the record")
        key: bytes | None = buf[pos : pos + klen]
        pos += klen
    else:
        key = None
    b = buf[pos] if pos < limit else 0x80
    if b < 0x80:
        vlen = (b >> 1) ^ -(b & 1)
        pos += 1
    else:
        u, pos = read_uvarint(buf, pos, limit, 5)
        vlen = (u >> 1) ^ -(u & 1)
    if vlen >= 0:
        if pos + vlen > limit:
            raise CorruptDataError(f"value length {vlen} runs past the record")
        value: bytes | None = buf[pos : pos + vlen]
        pos += vlen
    else:
        value = None
    b = buf[pos] if pos < limit else 0x80
    if b < 0x80:
        nheaders = (b >> 1) ^ -(b & 1)
        pos += 1
    else:
        u, pos = read_uvarint(buf, pos, limit, 5)
        nheaders = (u >> 1) ^ -(u & 1)
    if nheaders < 0:
        raise CorruptDataError(f"invalid number of record headers {nheaders}")
    headers: list[Header] = []
    for _ in range(nheaders):
        u, pos = read_uvarint(buf, pos, limit, 5)
        hk = (u >> 1) ^ -(u & 1)
        if hk < 0 or pos + hk > limit:
            raise CorruptDataError(f"invalid header key length {hk}")
        hkey = buf[pos : pos + hk]
        pos += hk
        u, pos = read_uvarint(buf, pos, limit, 5)
        hv = (u >> 1) ^ -(u & 1)
        if hv >= 0:
            if pos + hv > limit:
                raise CorruptDataError(f"header value length {hv} runs past the record")
            headers.append((hkey, buf[pos : pos + hv]))
            pos += hv
        else:
            headers.append((hkey, None))
    if pos != limit:
        raise CorruptDataError(
            f"record body declares {length} bytes but its fields take {pos - body}"
        )
    if base_sequence >= 0:
        sequence = increment_sequence(base_sequence, offset_delta)
    else:
        sequence = L.NO_SEQUENCE
    rec = Record(
        base_offset + offset_delta,
        append_time if append_time is not None else base_timestamp + ts_delta,
        key,
        value,
        headers,
        attributes=attributes,
        sequence=sequence,
        size=limit - start,
        position=start,
        offset_delta=offset_delta,
        timestamp_delta=ts_delta,
    )
    return rec, pos
