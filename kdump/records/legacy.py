"""Legacy message sets: magic 0 and 1.

clients/src/main/java/org/apache/kafka/common/record/LegacyRecord.java,
AbstractLegacyRecordBatch.java (``DeepRecordsIterator`` for compressed wrappers).
A :class:`LegacyBatch` is one top-level ``[offset][size][message]`` entry: a plain
message, or a compressed wrapper whose value holds an inner message set.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import layouts as L
from ..checksums import crc32
from ..codecs import decompress
from ..errors import CorruptDataError, DecompressionError, KdumpError
from .record import Record
from .v2 import DEFAULT_MAX_BATCH_BYTES


def _timestamp_type(magic: int, attributes: int) -> str:
    if magic == 0:
        return L.NO_TIMESTAMP_TYPE
    return L.LOG_APPEND_TIME if attributes & L.LEGACY_TIMESTAMP_TYPE_MASK else L.CREATE_TIME


def _key_value(data: bytes, i: int, end: int, magic: int) -> tuple[bytes | None, bytes | None]:
    """Key and value of the message at ``data[i:end]`` (``i`` = entry start)."""
    pos = i + (L.LEGACY_V1_KEY_SIZE_OFFSET if magic >= 1 else L.LEGACY_V0_KEY_SIZE_OFFSET)
    if pos + 4 > end:
        raise CorruptDataError("message too short for its key length")
    (klen,) = L.INT32.unpack_from(data, pos)
    pos += 4
    key: bytes | None = None
    if klen >= 0:
        if pos + klen > end:
            raise CorruptDataError(f"key length {klen} runs past the message")
        key = data[pos : pos + klen]
        pos += klen
    if pos + 4 > end:
        raise CorruptDataError("message too short for its value length")
    (vlen,) = L.INT32.unpack_from(data, pos)
    pos += 4
    value: bytes | None = None
    if vlen >= 0:
        if pos + vlen > end:
            raise CorruptDataError(f"value length {vlen} runs past the message")
        value = data[pos : pos + vlen]
        pos += vlen
    if pos != end:
        raise CorruptDataError(f"{end - pos} bytes follow the value inside the message")
    return key, value


def _walk_inner(raw: bytes) -> tuple[int, int, int, str | None]:
    """Where the inner message set of a wrapper ends, as DeepRecordsIterator reads it:
    ``(end position, messages, last inner offset, problem or None)``; no record is
    built."""
    pos = count = last = 0
    end = len(raw)
    while end - pos >= L.LOG_OVERHEAD:
        offset, size = L.LOG_HEADER.unpack_from(raw, pos)
        if size < L.RECORD_OVERHEAD_V0:
            return pos, count, last, (
                f"inner message at decompressed byte {pos} has size {size}, below the "
                f"minimum of {L.RECORD_OVERHEAD_V0}"
            )
        if pos + L.LOG_OVERHEAD + size > end:
            break  # DataLogInputStream stops quietly at a partial inner message
        magic, attributes = L.LEGACY_HEADER.unpack_from(raw, pos)[3:]
        entry_end = pos + L.LOG_OVERHEAD + size
        try:
            _key_value(raw, pos, entry_end, magic)
        except CorruptDataError as e:
            return pos, count, last, f"inner message at decompressed byte {pos}: {e.message}"
        if attributes & L.LEGACY_COMPRESSION_MASK:
            return pos, count, last, f"inner message at decompressed byte {pos} is itself compressed"
        count += 1
        last = offset
        pos = entry_end
    return pos, count, last, None


class LegacyBatch:
    """One top-level v0/v1 entry at ``position``; ``data[index:index+size]`` holds it."""

    __slots__ = (
        "_base_offset",
        "_crc_valid",
        "attributes",
        "crc",
        "data",
        "index",
        "magic",
        "message_size",
        "offset",
        "path",
        "position",
        "size",
        "timestamp",
    )

    # what AbstractLegacyRecordBatch answers for v2-only fields
    partition_leader_epoch = L.NO_PARTITION_LEADER_EPOCH
    producer_id = L.NO_PRODUCER_ID
    producer_epoch = L.NO_PRODUCER_EPOCH
    base_sequence = L.NO_SEQUENCE
    last_sequence = L.NO_SEQUENCE
    is_transactional = False
    is_control = False
    has_delete_horizon = False
    delete_horizon_ms = None
    count = None  # countOrNull

    def __init__(self, path: str, position: int, data: bytes, index: int) -> None:
        self.offset, self.message_size, self.crc, self.magic, self.attributes = (
            L.LEGACY_HEADER.unpack_from(data, index)
        )
        self.path = path
        self.position = position
        self.data = data
        self.index = index
        self.size = L.LOG_OVERHEAD + self.message_size
        if self.magic >= 1 and self.message_size >= L.RECORD_OVERHEAD_V1:
            (self.timestamp,) = L.INT64.unpack_from(data, index + L.LEGACY_V1_TIMESTAMP_OFFSET)
        else:
            self.timestamp = L.NO_TIMESTAMP
        self._crc_valid: bool | None = None
        self._base_offset: int | None = None

    @property
    def last_offset(self) -> int:
        return self.offset

    @property
    def first_offset(self) -> int:
        """The first offset known without decompressing: the entry's own offset (for
        a compressed wrapper, its last inner offset)."""
        return self.offset

    @property
    def checksum_name(self) -> str:
        return "CRC-32"

    @property
    def base_offset(self) -> int:
        """First record's offset (Kafka decompresses a wrapper to learn it)."""
        if self._base_offset is None:
            if not self.is_compressed:
                self._base_offset = self.offset
            else:
                try:
                    self._base_offset = next(iter(self.records())).offset
                except (KdumpError, StopIteration):
                    self._base_offset = self.offset
        return self._base_offset

    @property
    def compression(self) -> int:
        return self.attributes & L.LEGACY_COMPRESSION_MASK

    @property
    def compression_name(self) -> str:
        return L.CODEC_NAMES.get(self.compression, f"unknown({self.compression})")

    @property
    def is_compressed(self) -> bool:
        return self.compression != L.CODEC_NONE

    @property
    def timestamp_type(self) -> str:
        return _timestamp_type(self.magic, self.attributes)

    @property
    def max_timestamp(self) -> int:
        return self.timestamp

    @property
    def first_timestamp(self) -> int:
        return self.timestamp

    @property
    def stored_payload_size(self) -> int:
        """Bytes of the value as stored (the compressed inner set for a wrapper)."""
        try:
            _, value = _key_value(self.data, self.index, self.index + self.size, self.magic)
        except CorruptDataError:
            return 0
        return 0 if value is None else len(value)

    def compute_crc(self) -> int:
        i = self.index
        return crc32(memoryview(self.data)[i + L.MAGIC_OFFSET : i + self.size])

    @property
    def crc_valid(self) -> bool:
        """``LegacyRecord.isValid``: at least the v0 overhead and the stored CRC matches."""
        if self._crc_valid is None:
            self._crc_valid = (
                self.message_size >= L.RECORD_OVERHEAD_V0 and self.crc == self.compute_crc()
            )
        return self._crc_valid

    def _fail(self, message: str, cls: type[CorruptDataError] = CorruptDataError) -> CorruptDataError:
        """An error about this entry (``cls`` keeps a decompression error's class)."""
        return cls(message, path=self.path, position=self.position, base_offset=self.offset)

    def records(self, max_bytes: int = DEFAULT_MAX_BATCH_BYTES) -> Iterator[Record]:
        """The message itself, or a wrapper's inner messages with absolute offsets."""
        end = self.index + self.size
        try:
            key, value = _key_value(self.data, self.index, end, self.magic)
        except CorruptDataError as e:
            raise self._fail(e.message) from None
        if not self.is_compressed:
            yield Record(
                self.offset,
                self.timestamp,
                key,
                value,
                [],
                magic=self.magic,
                attributes=self.attributes,
                size=self.size,
                position=self.position,
                crc=self.crc,
                crc_valid=self.crc_valid,
            )
            return
        yield from self._inner(value, max_bytes)

    def _inner(self, value: bytes | None, max_bytes: int) -> Iterator[Record]:
        if self.magic not in (0, 1):
            raise self._fail(f"invalid wrapper magic {self.magic}")
        if self.compression == L.CODEC_ZSTD:
            raise self._fail("zstd is not allowed in a magic 0/1 wrapper", DecompressionError)
        if value is None:
            raise self._fail("compressed message set with a null value")
        try:
            raw = decompress(self.compression, value, max_bytes, magic=self.magic)
        except CorruptDataError as e:  # DecompressionError, LimitExceeded
            raise self._fail(e.message, type(e)) from None
        # DeepRecordsIterator reads the whole inner set first (v1 offsets need the last
        # one): a first pass finds where the set ends and its last offset without
        # building records, so a wrapper of a million tiny messages costs its
        # decompressed bytes only; the second pass yields the records one at a time
        stop, count, last_inner, problem = _walk_inner(raw)
        if not count and problem is None:
            raise self._fail("compressed message set with no inner messages")
        base = 0
        if self.magic == 1 and count:
            if self.offset == 0:
                base = 0  # librdkafka produce-request quirk, kept by Kafka's reader
            elif self.offset < last_inner:
                raise self._fail(
                    f"wrapper offset {self.offset} is less than the last inner relative "
                    f"offset {last_inner}"
                )
            else:
                base = self.offset - last_inner
        wrapper_append_time = bool(self.magic >= 1 and self.attributes & L.LEGACY_TIMESTAMP_TYPE_MASK)
        pos = 0
        while pos < stop:
            offset, size, crc, magic, attributes = L.LEGACY_HEADER.unpack_from(raw, pos)
            if magic >= 1 and size >= L.RECORD_OVERHEAD_V1:
                (ts,) = L.INT64.unpack_from(raw, pos + L.LEGACY_V1_TIMESTAMP_OFFSET)
                if wrapper_append_time:
                    ts = self.timestamp
            else:
                ts = L.NO_TIMESTAMP
            entry_end = pos + L.LOG_OVERHEAD + size
            key, val = _key_value(raw, pos, entry_end, magic)
            rec = Record(
                offset,
                ts,
                key,
                val,
                [],
                magic=magic,
                attributes=attributes,
                size=L.LOG_OVERHEAD + size,
                position=pos,
                in_payload=True,
                crc=crc,
                crc_valid=crc == crc32(memoryview(raw)[pos + L.MAGIC_OFFSET : entry_end]),
            )
            if self.magic == 1:
                rec.offset_delta = offset
                rec.offset = offset + base
            yield rec
            pos = entry_end
        if problem is not None:
            raise self._fail(problem)

    def __repr__(self) -> str:
        return (
            f"LegacyBatch(path={self.path!r}, position={self.position}, magic={self.magic}, "
            f"offset={self.offset}, size={self.size}, codec={self.compression_name})"
        )
