"""Independent encoder for Apache Kafka's on-disk files, used to build test fixtures.

This module is written from the format description in ``FORMATS.md`` and cross-checked against
the Kafka sources (read for facts only). It deliberately shares no code with ``kdump`` so that it
can serve as an oracle for the decoder.

Everything here is deterministic: no randomness, no wall-clock time. All multi-byte integers are
big-endian unless noted (the LZ4 frame uses little-endian words).

Command line::

    python tests/writer.py sample DIR                     # a small broker log dir
    python tests/writer.py big DIR SIZE [CODEC] [TOPIC]   # DIR/<TOPIC>-0: one large segment

``sample`` writes orders-0 (three segments, every codec, a transaction, an aborted one),
orders-1 (magic 0/1 messages before v2 batches, a deleted log start), customers-0
(compacted: gaps, tombstones, an emptied batch) and the log dir's checkpoints and
meta.properties.  ``big`` writes one partition directory ``DIR/<TOPIC>-0`` (TOPIC
defaults to ``big``) holding one segment of about SIZE bytes (``1073741824``, ``200M``,
``1G``) with its indexes; CODEC is none (default), gzip, snappy, lz4 or zstd.  DIR must
be empty or absent.
"""

from __future__ import annotations

import base64
import struct
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

import crc32c
import lz4.block
import snappy
import zstandard

__all__ = [
    "DEFAULT_TIMESTAMP",
    "GZIP",
    "LZ4",
    "NONE",
    "SNAPPY",
    "ZSTD",
    "PartitionWriter",
    "ProducerEntry",
    "Rec",
    "big_segment",
    "compress",
    "encode_record_v2",
    "end_txn_marker_batch",
    "gzip_compress",
    "kraft_control_batch",
    "kraft_version_value",
    "leader_change_value",
    "leader_epoch_checkpoint",
    "legacy_compressed",
    "legacy_message",
    "lz4_frame",
    "meta_properties",
    "offset_checkpoint",
    "offset_index",
    "partition_metadata",
    "producer_snapshot",
    "snappy_compress",
    "snapshot_footer_value",
    "snapshot_header_value",
    "time_index",
    "txn_index",
    "uuid_str",
    "uvarint",
    "varint",
    "varlong",
    "voters_value",
    "write_sample_logdir",
    "xxhash32",
    "zstd_compress",
]

# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------

NONE, GZIP, SNAPPY, LZ4, ZSTD = 0, 1, 2, 3, 4

DEFAULT_TIMESTAMP = 1700000000000  # 2023-11-14T22:13:20Z

# v2 batch attribute bits
ATTR_TIMESTAMP_TYPE = 0x08
ATTR_TRANSACTIONAL = 0x10
ATTR_CONTROL = 0x20
ATTR_DELETE_HORIZON = 0x40

# control record types
CONTROL_ABORT, CONTROL_COMMIT = 0, 1
CONTROL_LEADER_CHANGE, CONTROL_SNAPSHOT_HEADER, CONTROL_SNAPSHOT_FOOTER = 2, 3, 4
CONTROL_KRAFT_VERSION, CONTROL_KRAFT_VOTERS = 5, 6

V2_HEADER_SIZE = 61
LOG_OVERHEAD = 12
INDEX_ENTRY_SIZE = 8
TIME_INDEX_ENTRY_SIZE = 12
TXN_INDEX_ENTRY_SIZE = 34
PRODUCER_ENTRY_SIZE = 46
DEFAULT_MAX_INDEX_BYTES = 10485760  # segment.index.bytes / log.index.size.max.bytes

XERIAL_MAGIC = b"\x82SNAPPY\x00"
XERIAL_BLOCK_SIZE = 32 * 1024  # snappy-java SnappyOutputStream default block size
LZ4_MAGIC = b"\x04\x22\x4d\x18"  # 0x184D2204 little-endian
LZ4_INCOMPRESSIBLE = 0x80000000

_INT32_MAX = (1 << 31) - 1
_U64 = (1 << 64) - 1
_U32 = (1 << 32) - 1


# --------------------------------------------------------------------------------------------
# Primitive encodings
# --------------------------------------------------------------------------------------------


def uvarint(n: int) -> bytes:
    """Unsigned base-128 varint (low groups first)."""
    if n < 0:
        raise ValueError(f"uvarint must be >= 0, got {n}")
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def varint(n: int) -> bytes:
    """ZigZag-encoded signed 32-bit varint."""
    if not -(1 << 31) <= n <= _INT32_MAX:
        raise ValueError(f"varint out of int32 range: {n}")
    return uvarint(((n << 1) ^ (n >> 31)) & _U32)


def varlong(n: int) -> bytes:
    """ZigZag-encoded signed 64-bit varlong."""
    if not -(1 << 63) <= n < (1 << 63):
        raise ValueError(f"varlong out of int64 range: {n}")
    return uvarint(((n << 1) ^ (n >> 63)) & _U64)


def _read_uvarint(buf: bytes | bytearray | memoryview, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _read_varint(buf: bytes | bytearray | memoryview, pos: int) -> tuple[int, int]:
    u, pos = _read_uvarint(buf, pos)
    return (u >> 1) ^ -(u & 1), pos


def _vbytes(b: bytes | None) -> bytes:
    """varint length + bytes; null -> length -1."""
    if b is None:
        return varint(-1)
    return varint(len(b)) + b


def _compact_str(s: str) -> bytes:
    raw = s.encode("utf-8")
    return uvarint(len(raw) + 1) + raw


def _compact_array(items: list[bytes]) -> bytes:
    return uvarint(len(items) + 1) + b"".join(items)


NO_TAGGED_FIELDS = b"\x00"


def uuid_str(raw16: bytes) -> str:
    """Kafka's Uuid text form: URL-safe base64 without padding (22 chars)."""
    if len(raw16) != 16:
        raise ValueError("a Uuid is 16 bytes")
    return base64.urlsafe_b64encode(raw16).rstrip(b"=").decode("ascii")


# --------------------------------------------------------------------------------------------
# xxHash32 (public algorithm, needed for LZ4 frame header / block checksums)
# --------------------------------------------------------------------------------------------

_P1, _P2, _P3, _P4, _P5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393


def _rotl32(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _U32


def xxhash32(data: bytes | bytearray | memoryview, seed: int = 0) -> int:
    """xxHash32 of ``data`` (little-endian lanes), as an unsigned 32-bit int."""
    mv = memoryview(data).cast("B")
    n = len(mv)
    pos = 0
    if n >= 16:
        v1 = (seed + _P1 + _P2) & _U32
        v2 = (seed + _P2) & _U32
        v3 = seed & _U32
        v4 = (seed - _P1) & _U32
        limit = n - 16
        while pos <= limit:
            a, b, c, d = struct.unpack_from("<4I", mv, pos)
            v1 = (_rotl32((v1 + a * _P2) & _U32, 13) * _P1) & _U32
            v2 = (_rotl32((v2 + b * _P2) & _U32, 13) * _P1) & _U32
            v3 = (_rotl32((v3 + c * _P2) & _U32, 13) * _P1) & _U32
            v4 = (_rotl32((v4 + d * _P2) & _U32, 13) * _P1) & _U32
            pos += 16
        h = (_rotl32(v1, 1) + _rotl32(v2, 7) + _rotl32(v3, 12) + _rotl32(v4, 18)) & _U32
    else:
        h = (seed + _P5) & _U32
    h = (h + n) & _U32
    while pos + 4 <= n:
        (lane,) = struct.unpack_from("<I", mv, pos)
        h = (_rotl32((h + lane * _P3) & _U32, 17) * _P4) & _U32
        pos += 4
    while pos < n:
        h = (_rotl32((h + mv[pos] * _P5) & _U32, 11) * _P1) & _U32
        pos += 1
    h ^= h >> 15
    h = (h * _P2) & _U32
    h ^= h >> 13
    h = (h * _P3) & _U32
    h ^= h >> 16
    return h


# --------------------------------------------------------------------------------------------
# Compression framing, as Kafka writes it
# --------------------------------------------------------------------------------------------


def gzip_compress(data: bytes, level: int | None = None) -> bytes:
    """gzip member as java.util.zip.GZIPOutputStream writes it.

    Header: 1f 8b 08, FLG 0, MTIME 0, XFL 0, OS 0xff (JDK 16+ writes OS "unknown"; older JDKs 0).
    Body: raw deflate (zlib, default level unless given). Trailer: CRC-32 and ISIZE little-endian.
    """
    co = zlib.compressobj(-1 if level is None else level, zlib.DEFLATED, -15)
    body = co.compress(data) + co.flush()
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    return header + body + struct.pack("<II", zlib.crc32(data) & _U32, len(data) & _U32)


def snappy_compress(data: bytes, framing: str = "xerial") -> bytes:
    """Snappy as stored by Kafka.

    ``"xerial"``: snappy-java SnappyOutputStream framing (Java clients/brokers): 8-byte magic,
    int32 version 1, int32 compatible version 1, then per 32 KiB of input an int32 BE length and a
    raw snappy block. ``"raw"``: one raw snappy block (librdkafka-based producers).
    """
    if framing == "raw":
        return bytes(snappy.compress(data))
    if framing != "xerial":
        raise ValueError(f"unknown snappy framing {framing!r}")
    out = bytearray(XERIAL_MAGIC + struct.pack(">ii", 1, 1))
    for i in range(0, len(data), XERIAL_BLOCK_SIZE):
        block = bytes(snappy.compress(data[i : i + XERIAL_BLOCK_SIZE]))
        out += struct.pack(">i", len(block))
        out += block
    return bytes(out)


def lz4_frame(
    data: bytes,
    *,
    broken_hc: bool = False,
    block_checksum: bool = False,
    level: int | None = None,
    block_size_id: int = 4,
) -> bytes:
    """LZ4 frame exactly as Kafka's Lz4BlockOutputStream lays it out.

    FLG 0x60 (+0x10 with block checksums), BD = block_size_id << 4 (4 -> 64 KiB blocks), header
    checksum = second byte of xxHash32 over FLG..BD (or over magic..BD with ``broken_hc``, the
    KAFKA-1493 variant written for magic 0). Each block: uint32 LE size word, bit 31 set when the
    block is stored uncompressed (compression did not shrink it); optional xxHash32 of the stored
    bytes; end mark 0. No content size, no content checksum.
    """
    if not 4 <= block_size_id <= 7:
        raise ValueError("block_size_id must be 4..7")
    flg = 0x60 | (0x10 if block_checksum else 0)
    bd = block_size_id << 4
    descriptor = bytes([flg, bd])
    hc = (xxhash32(LZ4_MAGIC + descriptor if broken_hc else descriptor) >> 8) & 0xFF
    out = bytearray(LZ4_MAGIC + descriptor + bytes([hc]))
    max_block = 1 << (2 * block_size_id + 8)
    for i in range(0, len(data), max_block):
        chunk = data[i : i + max_block]
        if level is None or level == 9:  # Kafka's default level -> lz4-java fast compressor
            comp = lz4.block.compress(chunk, mode="default", store_size=False)
        else:
            comp = lz4.block.compress(
                chunk, mode="high_compression", compression=min(level, 12), store_size=False
            )
        if len(comp) >= len(chunk):
            stored, word = chunk, len(chunk) | LZ4_INCOMPRESSIBLE
        else:
            stored, word = comp, len(comp)
        out += struct.pack("<I", word)
        out += stored
        if block_checksum:
            out += struct.pack("<I", xxhash32(stored))
    out += b"\x00\x00\x00\x00"
    return bytes(out)


def zstd_compress(data: bytes, level: int | None = None) -> bytes:
    """One Zstandard frame, streamed-style (no content size, no checksum), default level 3."""
    cctx = zstandard.ZstdCompressor(
        level=3 if level is None else level, write_content_size=False, write_checksum=False
    )
    return bytes(cctx.compress(data))


def compress(
    codec: int,
    data: bytes,
    *,
    snappy_framing: str = "xerial",
    lz4_broken_hc: bool = False,
    lz4_block_checksum: bool = False,
    level: int | None = None,
) -> bytes:
    if codec == NONE:
        return data
    if codec == GZIP:
        return gzip_compress(data, level)
    if codec == SNAPPY:
        return snappy_compress(data, snappy_framing)
    if codec == LZ4:
        return lz4_frame(
            data, broken_hc=lz4_broken_hc, block_checksum=lz4_block_checksum, level=level
        )
    if codec == ZSTD:
        return zstd_compress(data, level)
    raise ValueError(f"unknown codec {codec}")


# --------------------------------------------------------------------------------------------
# Record batch v2
# --------------------------------------------------------------------------------------------


@dataclass
class Rec:
    """One v2 record (or a legacy message's content)."""

    key: bytes | None = None
    value: bytes | None = None
    headers: list[tuple[bytes | str, bytes | None]] = field(default_factory=list)
    timestamp: int | None = None  # absolute ms; None -> the batch's first_timestamp
    offset_delta: int | None = None  # None -> its index in the batch
    attributes: int = 0


def encode_record_v2(rec: Rec, base_timestamp: int, offset_delta: int) -> bytes:
    """Length-prefixed v2 record. ``rec.timestamp`` None means ``base_timestamp``."""
    ts = base_timestamp if rec.timestamp is None else rec.timestamp
    parts = [
        bytes([rec.attributes & 0xFF]),
        varlong(ts - base_timestamp),
        varint(offset_delta),
        _vbytes(rec.key),
        _vbytes(rec.value),
        varint(len(rec.headers)),
    ]
    for hkey, hval in rec.headers:
        hk = hkey.encode("utf-8") if isinstance(hkey, str) else hkey
        parts.append(varint(len(hk)) + hk)
        parts.append(_vbytes(hval))
    body = b"".join(parts)
    return varint(len(body)) + body


def v2_batch(
    records: list[Rec],
    *,
    base_offset: int = 0,
    partition_leader_epoch: int = 0,
    codec: int = NONE,
    snappy_framing: str = "xerial",
    log_append_time: int | None = None,
    first_timestamp: int | None = None,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    transactional: bool = False,
    control: bool = False,
    delete_horizon_ms: int | None = None,
    last_offset_delta: int | None = None,
    records_count: int | None = None,
    max_timestamp: int | None = None,
    crc: int | None = None,
    attributes_extra: int = 0,
    lz4_block_checksum: bool = False,
    compress_level: int | None = None,
    magic: int = 2,
    batch_length: int | None = None,
    raw_records: bytes | None = None,
) -> bytes:
    """A complete v2 record batch (61-byte header + records area).

    ``raw_records``: the records area's bytes before compression, as given (to write
    malformed records); ``records`` then only set the header's defaults.

    Defaults follow Kafka's MemoryRecordsBuilder: ``first_timestamp`` = first record's timestamp
    (or 1700000000000; -1 for an empty batch, as the log cleaner writes it); record timestamps
    default to ``first_timestamp``; deltas are relative to ``delete_horizon_ms`` when given (bit 6);
    ``maxTimestamp`` = max record timestamp, or ``log_append_time`` (bit 3). ``last_offset_delta``,
    ``records_count``, ``max_timestamp``, ``crc``, ``magic`` and ``batch_length`` override the
    computed values to build inconsistent/broken batches.
    """
    if first_timestamp is None:
        if records:
            ts0 = records[0].timestamp
            first_timestamp = DEFAULT_TIMESTAMP if ts0 is None else ts0
        else:
            first_timestamp = -1
    base_ts = first_timestamp if delete_horizon_ms is None else delete_horizon_ms

    encoded = []
    abs_timestamps = []
    deltas = []
    for i, rec in enumerate(records):
        od = i if rec.offset_delta is None else rec.offset_delta
        ts = first_timestamp if rec.timestamp is None else rec.timestamp
        abs_timestamps.append(ts)
        deltas.append(od)
        encoded.append(encode_record_v2(replace(rec, timestamp=ts), base_ts, od))
    raw = b"".join(encoded) if raw_records is None else raw_records
    area = compress(
        codec,
        raw,
        snappy_framing=snappy_framing,
        lz4_block_checksum=lz4_block_checksum,
        level=compress_level,
    )

    attrs = codec & 0x07
    if log_append_time is not None:
        attrs |= ATTR_TIMESTAMP_TYPE
    if transactional:
        attrs |= ATTR_TRANSACTIONAL
    if control:
        attrs |= ATTR_CONTROL
    if delete_horizon_ms is not None:
        attrs |= ATTR_DELETE_HORIZON
    attrs |= attributes_extra

    if last_offset_delta is None:
        last_offset_delta = deltas[-1] if deltas else 0
    if records_count is None:
        records_count = len(records)
    if max_timestamp is None:
        if log_append_time is not None:
            max_timestamp = log_append_time
        else:
            max_timestamp = max(abs_timestamps) if abs_timestamps else -1

    after_crc = (
        struct.pack(
            ">HiqqqhiI",
            attrs & 0xFFFF,
            last_offset_delta,
            base_ts,
            max_timestamp,
            producer_id,
            producer_epoch,
            base_sequence,
            records_count & _U32,
        )
        + area
    )
    if crc is None:
        crc = crc32c.crc32c(after_crc)
    if batch_length is None:
        batch_length = 4 + 1 + 4 + len(after_crc)
    return (
        struct.pack(">qiibI", base_offset, batch_length, partition_leader_epoch, magic, crc & _U32)
        + after_crc
    )


def end_txn_marker_batch(
    commit: bool,
    *,
    base_offset: int,
    producer_id: int,
    producer_epoch: int,
    coordinator_epoch: int,
    partition_leader_epoch: int = 0,
    timestamp: int = DEFAULT_TIMESTAMP,
) -> bytes:
    """COMMIT/ABORT control batch (attributes 0x30, one record, baseSequence -1)."""
    ctype = CONTROL_COMMIT if commit else CONTROL_ABORT
    rec = Rec(
        key=struct.pack(">hh", 0, ctype),
        value=struct.pack(">hi", 0, coordinator_epoch),
        timestamp=timestamp,
    )
    return v2_batch(
        [rec],
        base_offset=base_offset,
        partition_leader_epoch=partition_leader_epoch,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=-1,
        transactional=True,
        control=True,
        first_timestamp=timestamp,
    )


def kraft_control_batch(
    records: list[tuple[int, bytes]],
    *,
    base_offset: int = 0,
    partition_leader_epoch: int = 0,
    timestamp: int = DEFAULT_TIMESTAMP,
) -> bytes:
    """KRaft control batch: one record per (control type, value); key = int16 0 + int16 type."""
    recs = [
        Rec(key=struct.pack(">hh", 0, ctype), value=value, timestamp=timestamp)
        for ctype, value in records
    ]
    return v2_batch(
        recs,
        base_offset=base_offset,
        partition_leader_epoch=partition_leader_epoch,
        control=True,
        first_timestamp=timestamp,
    )


def snapshot_header_value(last_contained_log_timestamp: int) -> bytes:
    """SnapshotHeaderRecord v0 (flexible): Version int16, LastContainedLogTimestamp int64, tags."""
    return struct.pack(">hq", 0, last_contained_log_timestamp) + NO_TAGGED_FIELDS


def snapshot_footer_value() -> bytes:
    """SnapshotFooterRecord v0 (flexible): Version int16, tags."""
    return struct.pack(">h", 0) + NO_TAGGED_FIELDS


def kraft_version_value(kraft_version: int) -> bytes:
    """KRaftVersionRecord v0 (flexible): Version int16, KRaftVersion int16, tags."""
    return struct.pack(">hh", 0, kraft_version) + NO_TAGGED_FIELDS


def voters_value(voters: list[tuple[int, bytes, list[tuple[str, str, int]], int, int]]) -> bytes:
    """VotersRecord v0 (flexible).

    Each voter: (VoterId, 16-byte VoterDirectoryId, [(Name, Host, Port)], MinSupportedVersion,
    MaxSupportedVersion). Every struct (voter, endpoint, KRaftVersionFeature, top level) ends with
    an empty tagged-field section.
    """
    items = []
    for voter_id, dir_id, endpoints, vmin, vmax in voters:
        if len(dir_id) != 16:
            raise ValueError("VoterDirectoryId must be 16 bytes")
        eps = [
            _compact_str(name) + _compact_str(host) + struct.pack(">H", port) + NO_TAGGED_FIELDS
            for name, host, port in endpoints
        ]
        items.append(
            struct.pack(">i", voter_id)
            + dir_id
            + _compact_array(eps)
            + struct.pack(">hh", vmin, vmax)
            + NO_TAGGED_FIELDS  # KRaftVersionFeature struct
            + NO_TAGGED_FIELDS  # Voter struct
        )
    return struct.pack(">h", 0) + _compact_array(items) + NO_TAGGED_FIELDS


def leader_change_value(leader_id: int, voters: list[int], granting_voters: list[int]) -> bytes:
    """LeaderChangeMessage v0 (flexible): Version, LeaderId, Voters[], GrantingVoters[]."""

    def voter_array(ids: list[int]) -> bytes:
        return _compact_array([struct.pack(">i", v) + NO_TAGGED_FIELDS for v in ids])

    return (
        struct.pack(">hi", 0, leader_id)
        + voter_array(voters)
        + voter_array(granting_voters)
        + NO_TAGGED_FIELDS
    )


# --------------------------------------------------------------------------------------------
# Legacy message format v0 / v1
# --------------------------------------------------------------------------------------------


def _legacy_bytes(b: bytes | None) -> bytes:
    if b is None:
        return struct.pack(">i", -1)
    return struct.pack(">i", len(b)) + b


def legacy_message(
    magic: int,
    key: bytes | None,
    value: bytes | None,
    *,
    offset: int = 0,
    timestamp: int = -1,
    log_append_time: bool = False,
    codec: int = NONE,
    crc: int | None = None,
    attributes_extra: int = 0,
) -> bytes:
    """One ``[offset][size][message]`` entry, magic 0 or 1.

    ``codec`` only sets attribute bits 0-2 (the value is stored verbatim; see
    :func:`legacy_compressed` for real wrappers). ``timestamp`` is ignored for magic 0. The CRC is
    standard CRC-32 from the magic byte to the end of the message.
    """
    if magic not in (0, 1):
        raise ValueError("legacy magic must be 0 or 1")
    attrs = (codec & 0x07) | attributes_extra
    if log_append_time and magic == 1:
        attrs |= ATTR_TIMESTAMP_TYPE
    body = struct.pack(">bB", magic, attrs & 0xFF)
    if magic == 1:
        body += struct.pack(">q", timestamp)
    body += _legacy_bytes(key) + _legacy_bytes(value)
    if crc is None:
        crc = zlib.crc32(body) & _U32
    message = struct.pack(">I", crc & _U32) + body
    return struct.pack(">qi", offset, len(message)) + message


def legacy_compressed(
    magic: int,
    messages: list[Rec],
    *,
    last_offset: int,
    codec: int,
    wrapper_timestamp: int | None = None,
    log_append_time: bool = False,
    inner_relative_offsets: bool | None = None,
    lz4_broken_hc: bool | None = None,
    snappy_framing: str = "xerial",
    compress_level: int | None = None,
    allow_zstd: bool = False,
) -> bytes:
    """A compressed wrapper message (magic 0 or 1) holding ``messages`` as inner messages.

    Wrapper offset = ``last_offset`` (absolute offset of the last inner message); key null; value =
    compressed inner message set. Inner offsets: record i has relative offset ``offset_delta`` (or
    i); written relative (0..n-1, default for magic 1) or absolute (default for magic 0).
    Inner timestamps (magic 1) = ``Rec.timestamp`` or the wrapper timestamp or -1; the wrapper
    timestamp defaults to the max inner timestamp. With ``log_append_time`` only the wrapper gets
    bit 3 (as when the broker stamps LogAppendTime in place). LZ4 frames get the broken header
    checksum for magic 0 unless told otherwise. ZSTD is invalid below magic 2 (``allow_zstd`` to
    build such a broken fixture anyway).
    """
    if magic not in (0, 1):
        raise ValueError("legacy magic must be 0 or 1")
    if codec == NONE:
        raise ValueError("a compressed wrapper needs a codec")
    if codec == ZSTD and not allow_zstd:
        raise ValueError("zstd is invalid for magic < 2 (pass allow_zstd=True to force)")
    if inner_relative_offsets is None:
        inner_relative_offsets = magic == 1
    if lz4_broken_hc is None:
        lz4_broken_hc = magic == 0
    rels = [i if m.offset_delta is None else m.offset_delta for i, m in enumerate(messages)]
    last_rel = rels[-1] if rels else 0
    inner_ts = [
        (
            m.timestamp
            if m.timestamp is not None
            else (wrapper_timestamp if wrapper_timestamp is not None else -1)
        )
        for m in messages
    ]
    inner = b"".join(
        legacy_message(
            magic,
            m.key,
            m.value,
            offset=rel if inner_relative_offsets else last_offset - last_rel + rel,
            timestamp=ts,
            attributes_extra=m.attributes,
        )
        for m, rel, ts in zip(messages, rels, inner_ts, strict=True)
    )
    if wrapper_timestamp is None:
        wrapper_timestamp = max(inner_ts) if inner_ts else -1
    value = compress(
        codec,
        inner,
        snappy_framing=snappy_framing,
        lz4_broken_hc=lz4_broken_hc,
        level=compress_level,
    )
    return legacy_message(
        magic,
        None,
        value,
        offset=last_offset,
        timestamp=wrapper_timestamp,
        log_append_time=log_append_time,
        codec=codec,
    )


# --------------------------------------------------------------------------------------------
# Index, txn index, producer snapshot, text files
# --------------------------------------------------------------------------------------------


def offset_index(entries: list[tuple[int, int]], *, preallocated_slots: int = 0) -> bytes:
    """``.index``: (relative offset int32, position int32) entries plus zero slots."""
    body = b"".join(struct.pack(">ii", rel, pos) for rel, pos in entries)
    return body + bytes(INDEX_ENTRY_SIZE * preallocated_slots)


def time_index(entries: list[tuple[int, int]], *, preallocated_slots: int = 0) -> bytes:
    """``.timeindex``: (timestamp int64, relative offset int32) entries plus zero slots."""
    body = b"".join(struct.pack(">qi", ts, rel) for ts, rel in entries)
    return body + bytes(TIME_INDEX_ENTRY_SIZE * preallocated_slots)


def txn_index(entries: list[tuple[int, int, int, int]], version: int = 0) -> bytes:
    """``.txnindex``: 34-byte entries (version, producerId, firstOffset, lastOffset, LSO)."""
    return b"".join(struct.pack(">hqqqq", version, *e) for e in entries)


@dataclass
class ProducerEntry:
    """One producer entry of a ``.snapshot`` file (46 bytes)."""

    producer_id: int
    epoch: int = -1
    last_sequence: int = -1
    last_offset: int = -1
    offset_delta: int = 0
    timestamp: int = -1
    coordinator_epoch: int = -1
    current_txn_first_offset: int = -1

    def encode(self) -> bytes:
        return struct.pack(
            ">qhiqiqiq",
            self.producer_id,
            self.epoch,
            self.last_sequence,
            self.last_offset,
            self.offset_delta,
            self.timestamp,
            self.coordinator_epoch,
            self.current_txn_first_offset,
        )


def producer_snapshot(
    entries: list[ProducerEntry], *, version: int = 1, crc: int | None = None
) -> bytes:
    """Producer-state snapshot: int16 version, uint32 CRC-32C of bytes 6.., int32 N, entries."""
    body = struct.pack(">i", len(entries)) + b"".join(e.encode() for e in entries)
    if crc is None:
        crc = crc32c.crc32c(body)
    return struct.pack(">hI", version, crc & _U32) + body


def _checkpoint(lines: list[str], version: int) -> bytes:
    return "".join(f"{line}\n" for line in [str(version), str(len(lines)), *lines]).encode("utf-8")


def offset_checkpoint(entries: list[tuple[str, int, int]], version: int = 0) -> bytes:
    """Offset checkpoint text file: version, count, ``topic partition offset`` lines."""
    return _checkpoint([f"{t} {p} {o}" for t, p, o in entries], version)


def leader_epoch_checkpoint(entries: list[tuple[int, int]], version: int = 0) -> bytes:
    """``leader-epoch-checkpoint``: version, count, ``epoch startOffset`` lines."""
    return _checkpoint([f"{e} {o}" for e, o in entries], version)


def partition_metadata(topic_id: bytes) -> bytes:
    """``partition.metadata`` (no trailing newline)."""
    return f"version: 0\ntopic_id: {uuid_str(topic_id)}".encode()


def _java_props_escape(s: str, escape_space: bool) -> str:
    out = []
    for i, ch in enumerate(s):
        if ch == " ":
            out.append("\\ " if i == 0 or escape_space else " ")
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\t\n\r\f":
            out.append({"\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f"}[ch])
        elif ch in "=:#!":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def meta_properties(props: dict[str, str], *, date: str = "Tue Nov 14 22:13:20 UTC 2023") -> bytes:
    """``meta.properties`` as ``Properties.store(writer, "")`` writes it (in dict order)."""
    lines = ["#", f"#{date}"]
    lines += [
        f"{_java_props_escape(k, True)}={_java_props_escape(v, False)}" for k, v in props.items()
    ]
    return "".join(f"{line}\n" for line in lines).encode("utf-8")


# --------------------------------------------------------------------------------------------
# Segment / partition writer
# --------------------------------------------------------------------------------------------


@dataclass
class _EntryInfo:
    """What the writer needs to know about one log entry (batch or legacy message)."""

    magic: int
    first_offset: int | None  # None: legacy compressed (first offset unknown without decompressing)
    last_offset: int
    max_timestamp: int
    size: int
    partition_leader_epoch: int = -1
    attributes: int = 0
    producer_id: int = -1
    producer_epoch: int = -1
    base_sequence: int = -1
    last_offset_delta: int = 0
    records_count: int = 0
    first_timestamp: int = -1
    records: bytes = b""


def _iter_entries(data: bytes) -> Iterator[_EntryInfo]:
    pos = 0
    while pos < len(data):
        if len(data) - pos < 17:
            raise ValueError("trailing bytes are not a complete log entry")
        offset, size = struct.unpack_from(">qi", data, pos)
        magic = data[pos + 16]
        total = LOG_OVERHEAD + size
        if pos + total > len(data):
            raise ValueError("truncated log entry")
        if magic == 2:
            (ple,) = struct.unpack_from(">i", data, pos + 12)
            attrs, lod, first_ts, max_ts, pid, pepoch, bseq, count = struct.unpack_from(
                ">hiqqqhii", data, pos + 21
            )
            yield _EntryInfo(
                magic=2,
                first_offset=offset,
                last_offset=offset + lod,
                max_timestamp=max_ts,
                size=total,
                partition_leader_epoch=ple,
                attributes=attrs,
                producer_id=pid,
                producer_epoch=pepoch,
                base_sequence=bseq,
                last_offset_delta=lod,
                records_count=count,
                first_timestamp=first_ts,
                records=data[pos + V2_HEADER_SIZE : pos + total],
            )
        elif magic in (0, 1):
            attrs = data[pos + 17]
            ts = struct.unpack_from(">q", data, pos + 18)[0] if magic == 1 else -1
            yield _EntryInfo(
                magic=magic,
                first_offset=offset if attrs & 0x07 == 0 else None,
                last_offset=offset,
                max_timestamp=ts,
                size=total,
                attributes=attrs,
            )
        else:
            raise ValueError(f"unknown magic {magic}")
        pos += total


def _increment_sequence(seq: int, delta: int) -> int:
    if seq > _INT32_MAX - delta:
        return delta - (_INT32_MAX - seq) - 1
    return seq + delta


class _Segment:
    def __init__(self, directory: Path, base_offset: int) -> None:
        self.base_offset = base_offset
        prefix = f"{base_offset:020d}"
        self.log_path = directory / f"{prefix}.log"
        self.index_path = directory / f"{prefix}.index"
        self.timeindex_path = directory / f"{prefix}.timeindex"
        self.txnindex_path = directory / f"{prefix}.txnindex"
        self.log: BinaryIO | None = open(self.log_path, "wb")
        self.index: BinaryIO | None = open(self.index_path, "wb")
        self.timeindex: BinaryIO | None = open(self.timeindex_path, "wb")
        self.size = 0
        self.bytes_since_last_index_entry = 0
        self.offset_entries = 0
        self.time_entries = 0
        self.max_timestamp_so_far = -1
        self.offset_of_max_timestamp = base_offset
        self.last_time_entry_ts = -1
        self.has_txnindex = False

    def relative(self, offset: int) -> int:
        return offset - self.base_offset

    def time_index_maybe_append(self, timestamp: int, offset: int) -> None:
        if timestamp > self.last_time_entry_ts:
            assert self.timeindex is not None
            self.timeindex.write(struct.pack(">qi", timestamp, self.relative(offset)))
            self.time_entries += 1
            self.last_time_entry_ts = timestamp

    def close(self, *, final_time_entry: bool, pad_offset_slots: int, pad_time_slots: int) -> None:
        if final_time_entry:
            self.time_index_maybe_append(self.max_timestamp_so_far, self.offset_of_max_timestamp)
        assert self.log is not None and self.index is not None and self.timeindex is not None
        if pad_offset_slots > self.offset_entries:
            self.index.write(bytes(INDEX_ENTRY_SIZE * (pad_offset_slots - self.offset_entries)))
        if pad_time_slots > self.time_entries:
            pad = pad_time_slots - self.time_entries
            self.timeindex.write(bytes(TIME_INDEX_ENTRY_SIZE * pad))
        for fh in (self.log, self.index, self.timeindex):
            fh.close()
        self.log = self.index = self.timeindex = None

    def paths(self) -> list[Path]:
        out = [self.log_path, self.index_path, self.timeindex_path]
        if self.has_txnindex:
            out.append(self.txnindex_path)
        return out


class PartitionWriter:
    """Writes a partition directory following the broker's append rules (LogSegment.append).

    * Index: before each append, if the bytes appended since the last index entry exceed
      ``index_interval_bytes``, an offset-index entry (append's last offset - base, append's start
      position) and a time-index attempt (maxTimestampSoFar, offset of it) are made; the counter
      then restarts and the append's size is added. Time-index entries only when strictly greater.
    * Roll: when the active segment is non-empty and size + append size > ``segment_bytes`` (or an
      index is full, or the offset doesn't fit the segment); new base = the append's first offset
      (legacy compressed wrappers: the log end offset, as on the leader). On roll / close a final
      time-index attempt is made and the indexes are trimmed.
    * ``preallocate_active_index``: simulate a copy taken from a live/crashed broker: the active
      segment's indexes are padded with zero slots to ``active_index_slots`` (default
      ``max_index_bytes // entry size``) and no final time-index entry is added on close.
    * Producer state (v2 batches with producerId >= 0), aborted transactions (written to the
      ``.txnindex`` of the segment holding the ABORT marker, with Kafka's LSO rule) and leader
      epochs (v2 batches only) are tracked automatically, see ``write_producer_snapshot`` and
      ``write_leader_epoch_checkpoint``.
    """

    def __init__(
        self,
        directory: Path,
        *,
        segment_bytes: int = 1 << 30,
        index_interval_bytes: int = 4096,
        preallocate_active_index: bool = False,
        active_index_slots: int | None = None,
        max_index_bytes: int = DEFAULT_MAX_INDEX_BYTES,
        snapshot_on_roll: bool = False,
        track_transactions: bool = True,
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.segment_bytes = segment_bytes
        self.index_interval_bytes = index_interval_bytes
        self.preallocate_active_index = preallocate_active_index
        self.active_index_slots = active_index_slots
        self.max_offset_entries = max_index_bytes // INDEX_ENTRY_SIZE
        self.max_time_entries = max_index_bytes // TIME_INDEX_ENTRY_SIZE
        self.snapshot_on_roll = snapshot_on_roll
        self.track_transactions = track_transactions
        self.segments: list[_Segment] = []
        self.log_end_offset = 0
        self.producers: dict[int, ProducerEntry] = {}
        self.ongoing_txns: dict[int, int] = {}  # producerId -> first offset
        self.leader_epochs: list[tuple[int, int]] = []
        self.aborted_txns: list[tuple[int, int, int, int]] = []
        self._extra_files: list[Path] = []
        self._closed = False

    # -- segments -------------------------------------------------------------------------

    @property
    def active(self) -> _Segment | None:
        if self.segments and self.segments[-1].log is not None:
            return self.segments[-1]
        return None

    def _new_segment(self, base_offset: int) -> _Segment:
        if self.segments and base_offset <= self.segments[-1].base_offset:
            raise ValueError(
                f"new segment base {base_offset} <= previous {self.segments[-1].base_offset}"
            )
        seg = _Segment(self.directory, base_offset)
        self.segments.append(seg)
        if self.snapshot_on_roll and len(self.segments) > 1:
            self.write_producer_snapshot(base_offset)
        return seg

    def _deactivate(self, seg: _Segment) -> None:
        seg.close(final_time_entry=True, pad_offset_slots=0, pad_time_slots=0)

    def roll(self) -> None:
        """Roll now: the new (empty) active segment starts at the log end offset."""
        if self._closed:
            raise RuntimeError("writer is closed")
        active = self.active
        if active is not None:
            if active.size == 0 and active.base_offset == self.log_end_offset:
                return
            self._deactivate(active)
        self._new_segment(self.log_end_offset)

    def _should_roll(self, seg: _Segment, size: int, last_offset: int) -> bool:
        if seg.size == 0:
            return False
        rel = last_offset - seg.base_offset
        return (
            seg.size > self.segment_bytes - size
            or seg.offset_entries >= self.max_offset_entries
            or seg.time_entries >= self.max_time_entries - 1
            or not 0 <= rel <= _INT32_MAX
        )

    # -- appends --------------------------------------------------------------------------

    def append(self, batch: bytes, *, first_offset: int | None = None) -> None:
        """Append one batch / legacy entry (or several concatenated ones) as one broker append."""
        if self._closed:
            raise RuntimeError("writer is closed")
        infos = list(_iter_entries(batch))
        if not infos:
            return
        if first_offset is None:
            first_offset = infos[0].first_offset
            if first_offset is None:  # legacy compressed: the leader uses the log end offset
                first_offset = min(self.log_end_offset, infos[0].last_offset)
        last_offset = max(i.last_offset for i in infos)
        max_ts, offset_of_max_ts = -1, -1
        for info in infos:
            if info.max_timestamp > max_ts:
                max_ts, offset_of_max_ts = info.max_timestamp, info.last_offset

        seg = self.active
        if seg is None:
            seg = self._new_segment(first_offset)
        elif self._should_roll(seg, len(batch), last_offset):
            self._deactivate(seg)
            seg = self._new_segment(first_offset)
        if last_offset < seg.base_offset:
            raise ValueError(f"offset {last_offset} below segment base {seg.base_offset}")

        position = seg.size
        assert seg.log is not None and seg.index is not None
        seg.log.write(batch)
        seg.size += len(batch)
        if max_ts > seg.max_timestamp_so_far:
            seg.max_timestamp_so_far, seg.offset_of_max_timestamp = max_ts, offset_of_max_ts
        if seg.bytes_since_last_index_entry > self.index_interval_bytes:
            seg.index.write(struct.pack(">ii", seg.relative(last_offset), position))
            seg.offset_entries += 1
            seg.time_index_maybe_append(seg.max_timestamp_so_far, seg.offset_of_max_timestamp)
            seg.bytes_since_last_index_entry = 0
        seg.bytes_since_last_index_entry += len(batch)
        self.log_end_offset = max(self.log_end_offset, last_offset + 1)

        for info in infos:
            if info.magic >= 2:
                self._track_epoch(info)
                if info.producer_id >= 0:
                    self._track_producer(info, seg)
            else:
                # UnifiedLog clears the epoch cache on a (downgrade) append with magic < 2
                self.leader_epochs.clear()

    def _track_epoch(self, info: _EntryInfo) -> None:
        """LeaderEpochFileCache.assign(batch epoch, batch base offset)."""
        epoch, start = info.partition_leader_epoch, info.first_offset
        assert start is not None
        if epoch < 0:
            return  # the broker would have stamped its own epoch; nothing to learn here
        if self.leader_epochs:
            last_epoch, last_start = self.leader_epochs[-1]
            if epoch == last_epoch and start >= last_start:
                return
        while self.leader_epochs and (
            self.leader_epochs[-1][0] >= epoch or self.leader_epochs[-1][1] >= start
        ):
            self.leader_epochs.pop()
        self.leader_epochs.append((epoch, start))

    def _track_producer(self, info: _EntryInfo, seg: _Segment) -> None:
        assert info.first_offset is not None
        pid = info.producer_id
        entry = self.producers.get(pid) or ProducerEntry(pid)
        self.producers[pid] = entry
        if info.attributes & ATTR_CONTROL:
            if info.records_count == 0 or info.attributes & 0x07:
                return  # cleaned-out control batch (or one we cannot read without decompressing)
            ctype, coord_epoch, ts = _parse_marker(info)
            if entry.epoch != info.producer_epoch:  # epoch bump drops batch metadata
                entry.last_sequence, entry.last_offset, entry.offset_delta = -1, -1, 0
            entry.epoch = info.producer_epoch
            if entry.current_txn_first_offset >= 0 and ctype in (CONTROL_ABORT, CONTROL_COMMIT):
                first = entry.current_txn_first_offset
                if ctype == CONTROL_ABORT and self.track_transactions:
                    others = [o for p, o in self.ongoing_txns.items() if p != pid]
                    lso = min(others) if others else info.first_offset + 1
                    self.add_txn_index_entry(pid, first, info.first_offset, lso, segment=seg)
                self.ongoing_txns.pop(pid, None)
            entry.coordinator_epoch = coord_epoch
            entry.current_txn_first_offset = -1
            entry.timestamp = ts
        else:
            entry.epoch = info.producer_epoch
            entry.last_sequence = (
                -1
                if info.base_sequence < 0
                else _increment_sequence(info.base_sequence, info.last_offset_delta)
            )
            entry.last_offset = info.last_offset
            entry.offset_delta = info.last_offset - info.first_offset
            entry.timestamp = info.max_timestamp
            if info.attributes & ATTR_TRANSACTIONAL and entry.current_txn_first_offset < 0:
                entry.current_txn_first_offset = info.first_offset
                self.ongoing_txns[pid] = info.first_offset

    # -- extra files ----------------------------------------------------------------------

    def add_txn_index_entry(
        self,
        producer_id: int,
        first_offset: int,
        last_offset: int,
        last_stable_offset: int,
        *,
        segment: _Segment | None = None,
        version: int = 0,
    ) -> Path:
        """Append an aborted-txn entry to the ``.txnindex`` of the segment holding last_offset."""
        if segment is None:
            candidates = [s for s in self.segments if s.base_offset <= last_offset]
            if not candidates:
                raise ValueError("no segment holds that offset")
            segment = candidates[-1]
        with open(segment.txnindex_path, "ab") as fh:
            fh.write(
                txn_index([(producer_id, first_offset, last_offset, last_stable_offset)], version)
            )
        segment.has_txnindex = True
        self.aborted_txns.append((producer_id, first_offset, last_offset, last_stable_offset))
        return segment.txnindex_path

    def _write_extra(self, name: str, data: bytes) -> Path:
        path = self.directory / name
        path.write_bytes(data)
        if path not in self._extra_files:
            self._extra_files.append(path)
        return path

    def write_producer_snapshot(
        self, offset: int | None = None, entries: list[ProducerEntry] | None = None
    ) -> Path:
        """``<offset>.snapshot`` (default: log end offset, tracked producers by id)."""
        if offset is None:
            offset = self.log_end_offset
        if entries is None:
            entries = [self.producers[p] for p in sorted(self.producers)]
        return self._write_extra(f"{offset:020d}.snapshot", producer_snapshot(entries))

    def write_leader_epoch_checkpoint(self, entries: list[tuple[int, int]] | None = None) -> Path:
        if entries is None:
            entries = self.leader_epochs
        return self._write_extra("leader-epoch-checkpoint", leader_epoch_checkpoint(entries))

    def write_partition_metadata(self, topic_id: bytes) -> Path:
        return self._write_extra("partition.metadata", partition_metadata(topic_id))

    def close(self) -> list[Path]:
        """Close the active segment (clean shutdown unless preallocated); list all files written."""
        if not self._closed:
            active = self.active
            if active is not None:
                if self.preallocate_active_index:
                    slots = self.active_index_slots
                    active.close(
                        final_time_entry=False,
                        pad_offset_slots=self.max_offset_entries if slots is None else slots,
                        pad_time_slots=self.max_time_entries if slots is None else slots,
                    )
                else:
                    self._deactivate(active)
            self._closed = True
        out: list[Path] = []
        for seg in self.segments:
            out.extend(seg.paths())
        out.extend(self._extra_files)
        return sorted(out)


def _parse_marker(info: _EntryInfo) -> tuple[int, int, int]:
    """(control type, coordinator epoch or -1, record timestamp) of a control batch's 1st record."""
    buf = info.records
    _, pos = _read_varint(buf, 0)  # length
    pos += 1  # attributes
    ts_delta, pos = _read_varint(buf, pos)
    _, pos = _read_varint(buf, pos)  # offset delta
    klen, pos = _read_varint(buf, pos)
    key = buf[pos : pos + max(klen, 0)]
    pos += max(klen, 0)
    vlen, pos = _read_varint(buf, pos)
    value = buf[pos : pos + max(vlen, 0)]
    ctype = struct.unpack(">h", key[2:4])[0] if len(key) >= 4 else -1
    coord = struct.unpack(">i", value[2:6])[0] if len(value) >= 6 else -1
    if info.attributes & ATTR_TIMESTAMP_TYPE:
        ts = info.max_timestamp
    else:
        ts = info.first_timestamp + ts_delta
    return ctype, coord, ts


# --------------------------------------------------------------------------------------------
# Sample log dir and big segment
# --------------------------------------------------------------------------------------------

TS0 = DEFAULT_TIMESTAMP
ORDERS_TOPIC_ID = bytes.fromhex("6f726465727300000000000000000001")
CUSTOMERS_TOPIC_ID = bytes.fromhex("637573746f6d65727300000000000002")
CLUSTER_ID = uuid_str(bytes.fromhex("4b646d7053616d706c65436c75737472"))
DIRECTORY_ID = uuid_str(bytes.fromhex("4b646d704c6f674469725f3030303031"))


def _order_value(n: int) -> bytes:
    return (
        f'{{"order_id":{n},"customer":"c-{n % 7:03d}","amount_cents":{(n * 137) % 10000},'
        f'"items":["sku-{n % 13}","sku-{(n * 3) % 17}"],"note":"{"x" * (n % 23)}"}}'
    ).encode()


class _Producer:
    """Small helper that assigns offsets / sequences the way a broker + producer would."""

    def __init__(self, writer: PartitionWriter) -> None:
        self.w = writer
        self.seq: dict[int, int] = {}

    @property
    def next_offset(self) -> int:
        return self.w.log_end_offset

    def batch(self, records: list[Rec], *, pid: int = -1, epoch: int = -1, **kw: Any) -> int:
        base = self.next_offset
        seq = -1
        if pid >= 0:
            seq = self.seq.get(pid, 0)
            self.seq[pid] = seq + len(records)
        data = v2_batch(
            records,
            base_offset=base,
            producer_id=pid,
            producer_epoch=epoch,
            base_sequence=seq,
            **kw,
        )
        self.w.append(data)
        return base

    def marker(self, commit: bool, *, pid: int, epoch: int, coord: int, ple: int, ts: int) -> int:
        base = self.next_offset
        self.w.append(
            end_txn_marker_batch(
                commit,
                base_offset=base,
                producer_id=pid,
                producer_epoch=epoch,
                coordinator_epoch=coord,
                partition_leader_epoch=ple,
                timestamp=ts,
            )
        )
        return base


def _orders_records(start: int, n: int, ts: int, *, headers: bool = True) -> list[Rec]:
    recs = []
    for i in range(n):
        k = start + i
        hdrs: list[tuple[bytes | str, bytes | None]] = []
        if headers:
            hdrs = [("source", b"web" if k % 2 else b"mobile"), ("trace-id", f"t-{k:06x}".encode())]
            if k % 5 == 0:
                hdrs.append(("retry", None))
        recs.append(
            Rec(
                key=f"order-{k}".encode(),
                value=_order_value(k),
                headers=hdrs,
                timestamp=ts + i * 10,
            )
        )
    return recs


def _write_orders_0(root: Path) -> tuple[int, int]:
    d = root / "orders-0"
    w = PartitionWriter(d, segment_bytes=8192, snapshot_on_roll=True)
    p = _Producer(w)
    ts = TS0
    # plain batches, epoch 0
    for b in range(12):
        recs = _orders_records(p.next_offset, 5, ts)
        if b == 3:
            recs[1].key = None  # null key
        if b == 4:
            recs[2].value = None  # tombstone
            recs[3].headers = []
        p.batch(recs, partition_leader_epoch=0)
        ts += 1000
    # one batch of each codec
    p.batch(_orders_records(p.next_offset, 8, ts), codec=GZIP, partition_leader_epoch=0)
    ts += 1000
    p.batch(_orders_records(p.next_offset, 8, ts), codec=LZ4, partition_leader_epoch=0)
    ts += 1000
    p.batch(_orders_records(p.next_offset, 8, ts), codec=ZSTD, partition_leader_epoch=0)
    ts += 1000
    p.batch(_orders_records(p.next_offset, 8, ts), codec=SNAPPY, partition_leader_epoch=0)
    ts += 1000
    p.batch(
        _orders_records(p.next_offset, 4, ts),
        codec=SNAPPY,
        snappy_framing="raw",
        partition_leader_epoch=0,
    )
    ts += 1000
    # leader epoch 1: idempotent producer, a late batch (older timestamps), LogAppendTime
    for _ in range(3):
        p.batch(_orders_records(p.next_offset, 6, ts), pid=2000, epoch=0, partition_leader_epoch=1)
        ts += 1000
    p.batch(_orders_records(p.next_offset, 3, TS0 - 60000), partition_leader_epoch=1)
    p.batch(
        _orders_records(p.next_offset, 3, ts - 500), log_append_time=ts, partition_leader_epoch=1
    )
    ts += 1000
    # transactions, leader epoch 3 (epoch 2 never appended anything here)
    ple = 3
    p.batch(
        _orders_records(p.next_offset, 4, ts),
        pid=1000,
        epoch=0,
        transactional=True,
        partition_leader_epoch=ple,
    )
    ts += 100
    p.batch(
        _orders_records(p.next_offset, 4, ts),
        pid=1000,
        epoch=0,
        transactional=True,
        codec=LZ4,
        partition_leader_epoch=ple,
    )
    ts += 100
    p.marker(True, pid=1000, epoch=0, coord=5, ple=ple, ts=ts)  # COMMIT
    ts += 1000
    p.batch(
        _orders_records(p.next_offset, 4, ts),
        pid=1000,
        epoch=0,
        transactional=True,
        partition_leader_epoch=ple,
    )  # txn to be aborted
    ts += 100
    p.batch(
        _orders_records(p.next_offset, 2, ts),
        pid=1001,
        epoch=7,
        transactional=True,
        partition_leader_epoch=ple,
    )  # another producer's txn, still open at the abort
    ts += 100
    p.batch(_orders_records(p.next_offset, 3, ts), partition_leader_epoch=ple)
    ts += 100
    p.marker(False, pid=1000, epoch=0, coord=5, ple=ple, ts=ts)  # ABORT -> txnindex, LSO = 1001's
    ts += 100
    p.batch(
        _orders_records(p.next_offset, 2, ts),
        pid=1001,
        epoch=7,
        transactional=True,
        partition_leader_epoch=ple,
    )
    ts += 100
    p.marker(True, pid=1001, epoch=7, coord=6, ple=ple, ts=ts)
    ts += 1000
    p.batch(
        _orders_records(p.next_offset, 4, ts),
        pid=1000,
        epoch=0,
        transactional=True,
        partition_leader_epoch=ple,
    )  # aborted with no concurrent txn -> LSO = marker + 1
    ts += 100
    p.marker(False, pid=1000, epoch=0, coord=5, ple=ple, ts=ts)
    ts += 1000
    for _ in range(3):
        p.batch(_orders_records(p.next_offset, 5, ts), partition_leader_epoch=ple)
        ts += 1000
    w.write_producer_snapshot()
    w.write_leader_epoch_checkpoint()
    w.write_partition_metadata(ORDERS_TOPIC_ID)
    w.close()
    return w.log_end_offset, 0


def _write_orders_1(root: Path) -> tuple[int, int]:
    """Format-upgrade history: magic 0, then magic 1, then v2 batches."""
    d = root / "orders-1"
    w = PartitionWriter(d, segment_bytes=8192, index_interval_bytes=1024)
    off = 0

    def msgs(n: int, ts: int | None) -> list[Rec]:
        return [
            Rec(
                key=f"legacy-{off + i}".encode(),
                value=_order_value(off + i),
                timestamp=None if ts is None else ts + i,
            )
            for i in range(n)
        ]

    for _ in range(3):
        w.append(legacy_message(0, f"legacy-{off}".encode(), _order_value(off), offset=off))
        off += 1
    w.append(legacy_message(0, None, b"v0 message with null key", offset=off))
    off += 1
    w.append(legacy_compressed(0, msgs(4, None), last_offset=off + 3, codec=GZIP))
    off += 4
    w.append(legacy_compressed(0, msgs(3, None), last_offset=off + 2, codec=LZ4))  # broken HC
    off += 3
    w.append(legacy_compressed(0, msgs(3, None), last_offset=off + 2, codec=SNAPPY))
    off += 3
    ts = TS0 - 3_600_000
    for _ in range(3):
        w.append(
            legacy_message(1, f"legacy-{off}".encode(), _order_value(off), offset=off, timestamp=ts)
        )
        off += 1
        ts += 1000
    w.append(
        legacy_message(
            1, b"lat", b"stamped by the broker", offset=off, timestamp=ts, log_append_time=True
        )
    )
    off += 1
    ts += 1000
    w.append(legacy_compressed(1, msgs(5, ts), last_offset=off + 4, codec=SNAPPY))
    off += 5
    ts += 1000
    w.append(legacy_compressed(1, msgs(4, ts), last_offset=off + 3, codec=GZIP))
    off += 4
    ts += 1000
    w.append(
        legacy_compressed(
            1,
            msgs(4, ts),
            last_offset=off + 3,
            codec=LZ4,
            wrapper_timestamp=ts + 5000,
            log_append_time=True,
        )
    )
    off += 4
    w.roll()  # the upgrade to message format v2 happened with a restart
    p = _Producer(w)
    ts = TS0
    for b in range(10):
        p.batch(
            _orders_records(p.next_offset, 4, ts, headers=b % 2 == 0),
            partition_leader_epoch=2 if b < 6 else 4,
            codec=[NONE, GZIP, ZSTD][b % 3],
        )
        ts += 1000
    w.write_producer_snapshot()  # no producers: the 10-byte empty snapshot
    w.write_leader_epoch_checkpoint()
    w.write_partition_metadata(ORDERS_TOPIC_ID)
    w.close()
    return w.log_end_offset, 2  # log start offset moved by DeleteRecords


def _write_customers_0(root: Path) -> tuple[int, int]:
    """A compacted, partially cleaned partition: offset gaps, an empty batch, a delete horizon."""
    d = root / "customers-0"
    w = PartitionWriter(d, segment_bytes=4096, index_interval_bytes=512)
    ts = TS0

    def cust(n: int, v: bytes | None, t: int, od: int | None = None) -> Rec:
        return Rec(key=f"customer-{n}".encode(), value=v, timestamp=t, offset_delta=od)

    # cleaned segment: surviving records keep their offsets (gaps inside and between batches)
    w.append(
        v2_batch(
            [cust(1, b'{"name":"Ada"}', ts, 0), cust(2, b'{"name":"Bob"}', ts + 5, 3)],
            base_offset=0,
            last_offset_delta=4,
        )
    )
    w.append(
        v2_batch(
            [],
            base_offset=5,
            last_offset_delta=2,
            producer_id=3000,
            producer_epoch=1,
            base_sequence=0,
            max_timestamp=ts + 20,
        )
    )  # emptied by the cleaner
    w.append(
        v2_batch(
            [cust(3, None, ts + 30, 1)],
            base_offset=8,
            last_offset_delta=1,
            delete_horizon_ms=ts + 86_400_000,
        )
    )  # tombstone kept until the horizon
    w.append(v2_batch([cust(4, b'{"name":"Dee"}', ts + 40)], base_offset=12))
    p = _Producer(w)
    w.roll()
    ts += 60_000
    for b in range(30):
        n = b % 6
        val = None if b % 11 == 10 else f'{{"name":"customer {n}","rev":{b}}}'.encode()
        p.batch([cust(n, val, ts)], partition_leader_epoch=0)
        ts += 250
    w.write_producer_snapshot()
    w.write_leader_epoch_checkpoint()
    w.write_partition_metadata(CUSTOMERS_TOPIC_ID)
    w.close()
    return w.log_end_offset, 0


def write_sample_logdir(root: Path) -> None:
    """Write a small but representative (deterministic) broker log dir under ``root``."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    leo0, _ = _write_orders_0(root)
    leo1, lso1 = _write_orders_1(root)
    leoc, _ = _write_customers_0(root)
    ends = [("orders", 0, leo0), ("orders", 1, leo1), ("customers", 0, leoc)]
    (root / "meta.properties").write_bytes(
        meta_properties(
            {
                "cluster.id": CLUSTER_ID,
                "directory.id": DIRECTORY_ID,
                "node.id": "1",
                "version": "1",
            }
        )
    )
    (root / "recovery-point-offset-checkpoint").write_bytes(offset_checkpoint(ends))
    (root / "replication-offset-checkpoint").write_bytes(offset_checkpoint(ends))
    (root / "log-start-offset-checkpoint").write_bytes(offset_checkpoint([("orders", 1, lso1)]))
    (root / "cleaner-offset-checkpoint").write_bytes(offset_checkpoint([("customers", 0, 13)]))
    (root / ".lock").write_bytes(b"")
    (root / ".kafka_cleanshutdown").write_bytes(b'{"version":0,"brokerEpoch":42}')


def big_segment(
    path: Path,
    target_bytes: int,
    *,
    records_per_batch: int = 100,
    value_size: int = 60,
    codec: int = NONE,
    index_interval_bytes: int = 4096,
) -> None:
    """Stream one large segment (``.log`` + ``.index`` + ``.timeindex``) into directory ``path``.

    Batches are written one at a time (bounded memory) until the log reaches ``target_bytes``.
    Keys ``k<offset>``, deterministic values of ``value_size`` bytes, timestamps +1 ms per record.
    """
    if target_bytes > _INT32_MAX - (1 << 24):
        raise ValueError("a segment's positions must fit in an int32 (segment.bytes <= 2 GiB)")
    w = PartitionWriter(
        Path(path), segment_bytes=_INT32_MAX, index_interval_bytes=index_interval_bytes
    )
    alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789"
    pattern = alphabet * (value_size // len(alphabet) + 2)
    offset = 0
    size = 0
    while size < target_bytes:
        recs = []
        for i in range(records_per_batch):
            o = offset + i
            start = o % len(alphabet)
            recs.append(
                Rec(key=b"k%d" % o, value=pattern[start : start + value_size], timestamp=TS0 + o)
            )
        data = v2_batch(recs, base_offset=offset, codec=codec)
        w.append(data)
        size += len(data)
        offset += records_per_batch
    w.close()


def tiered_storage_copy(partition_dir: Path, storage: Path, topic: str, partition: int,
                        topic_id: bytes, segment_ids: list[bytes]) -> list[dict[str, Any]]:
    """Copy the closed segments of ``partition_dir`` (written by :class:`PartitionWriter`)
    into ``storage`` in the layout of Kafka's LocalTieredStorage
    (RemoteTopicPartitionDirectory / RemoteLogSegmentFileset):
    ``<topic>-<partition>-<topicId>/<startOffset>-<segmentId>.{log,index,timeindex,
    txnindex,leader_epoch_checkpoint,snapshot}`` (start offset in decimal, no padding;
    ids as ``Uuid.toString``).  The active (last) segment stays local, as on a broker.
    Returns one dict per copied segment: start/end offsets, size, ids, leader epochs."""
    logs = sorted(partition_dir.glob("*.log"))
    tp_dir = storage / f"{topic}-{partition}-{uuid_str(topic_id)}"
    tp_dir.mkdir(parents=True, exist_ok=True)
    out = []
    for i, sid in enumerate(segment_ids[: max(0, len(logs) - 1)]):
        log, nxt = logs[i], logs[i + 1]
        start, end = int(log.stem), int(nxt.stem) - 1
        stem = f"{start}-{uuid_str(sid)}"
        (tp_dir / f"{stem}.log").write_bytes(log.read_bytes())
        for suffix in (".index", ".timeindex", ".txnindex"):
            src = log.with_suffix(suffix)
            if src.exists():
                (tp_dir / f"{stem}{suffix}").write_bytes(src.read_bytes())
        (tp_dir / f"{stem}.leader_epoch_checkpoint").write_bytes(leader_epoch_checkpoint([(0, 0)]))
        (tp_dir / f"{stem}.snapshot").write_bytes(producer_snapshot([]))
        out.append({"start": start, "end": end, "size": log.stat().st_size,
                    "topic_id": uuid_str(topic_id), "segment_id": uuid_str(sid),
                    "stem": stem, "dir": tp_dir})
    return out


# --------------------------------------------------------------------------------------------
# Several brokers: replicas of one partition (compare-replicas, lag, size-report)
# --------------------------------------------------------------------------------------------


def broker_logdir(
    root: Path,
    broker_id: int | None,
    *,
    high_watermarks: list[tuple[str, int, int]] | None = None,
    log_start_offsets: list[tuple[str, int, int]] | None = None,
    cleaner_offsets: list[tuple[str, int, int]] | None = None,
) -> Path:
    """A broker's log dir root: ``meta.properties`` (``broker.id``) and the offset
    checkpoints given (``replication-offset-checkpoint`` = high watermarks)."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    if broker_id is not None:
        (root / "meta.properties").write_bytes(
            meta_properties({"version": "0", "broker.id": str(broker_id),
                             "cluster.id": "kdump-test-cluster"}))
    for name, entries in (("replication-offset-checkpoint", high_watermarks),
                          ("log-start-offset-checkpoint", log_start_offsets),
                          ("cleaner-offset-checkpoint", cleaner_offsets)):
        if entries is not None:
            (root / name).write_bytes(offset_checkpoint(entries))
    return root


def numbered_records(first: int, n: int, *, tag: str = "v", ts0: int = TS0) -> list[Rec]:
    """``n`` records with keys ``k<offset>`` and values ``<tag><offset>``."""
    return [Rec(key=b"k%d" % o, value=(f"{tag}{o}").encode(), timestamp=ts0 + o)
            for o in range(first, first + n)]


def write_replica(
    directory: Path,
    batches: list[bytes],
    *,
    segment_bytes: int = 1 << 30,
    roll_before: set[int] | None = None,
    epochs: list[tuple[int, int]] | None = None,
    write_epochs: bool = True,
) -> PartitionWriter:
    """One replica: the batches appended in order, rolling by ``segment_bytes`` and
    before the batches whose index is in ``roll_before`` (brokers roll at different
    points); the leader-epoch-checkpoint as the appends made it (or ``epochs``)."""
    w = PartitionWriter(Path(directory), segment_bytes=segment_bytes)
    for k, b in enumerate(batches):
        if roll_before and k in roll_before and w.active is not None:
            w.roll()
        w.append(b)
    if write_epochs:
        w.write_leader_epoch_checkpoint(epochs)
    w.close()
    return w


def replica_batches(spans: list[tuple[int, int, int]], *, tag: str = "v",
                    codec: int = NONE) -> list[bytes]:
    """v2 batches from ``(base offset, records, partition leader epoch)`` spans."""
    return [v2_batch(numbered_records(base, n, tag=tag), base_offset=base,
                     partition_leader_epoch=epoch, codec=codec) for base, n, epoch in spans]


def replicas_pair(path: Path, target_bytes: int, *, diverge_tail: int = 10,
                  records_per_batch: int = 100, value_size: int = 60) -> None:
    """Two brokers' log dirs (``path/broker-1``, ``path/broker-2``) of one partition
    ``bench-0`` of about ``target_bytes`` each: the same batches (epoch 0) up to the last
    ``diverge_tail`` batches, which differ (broker 2: a new leader, epoch 1).  Streamed,
    one batch in memory."""
    alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789"
    pattern = alphabet * (value_size // len(alphabet) + 2)
    one = v2_batch([Rec(key=b"k0", value=pattern[:value_size], timestamp=TS0)] *
                   records_per_batch)
    n_batches = max(diverge_tail + 1, target_bytes // len(one))
    writers = []
    for broker in (1, 2):
        root = broker_logdir(path / f"broker-{broker}", broker)
        writers.append(PartitionWriter(root / "bench-0"))
    offset = 0
    for k in range(n_batches):
        tail = k >= n_batches - diverge_tail
        common = None
        for j, w in enumerate(writers):
            if common is None or tail:
                recs = []
                for i in range(records_per_batch):
                    o = offset + i
                    start = (o + (j if tail else 0)) % len(alphabet)
                    recs.append(Rec(key=b"k%d" % o, value=pattern[start : start + value_size],
                                    timestamp=TS0 + o))
                common = v2_batch(recs, base_offset=offset,
                                  partition_leader_epoch=(j if tail else 0))
            w.append(common)
        offset += records_per_batch
    for w in writers:
        w.write_leader_epoch_checkpoint()
        w.close()


def _kstr(text: str) -> bytes:
    b = text.encode()
    return struct.pack(">h", len(b)) + b


def offset_commit_key(group: str, topic: str, partition: int) -> bytes:
    """__consumer_offsets OffsetCommitKey (key version 1), FORMATS.md §12.2."""
    return struct.pack(">h", 1) + _kstr(group) + _kstr(topic) + struct.pack(">i", partition)


def offset_commit_value_v3(offset: int, ts: int, metadata: str = "", epoch: int = -1) -> bytes:
    """OffsetCommitValue version 3: offset, leaderEpoch, metadata, commitTimestamp."""
    return struct.pack(">hqi", 3, offset, epoch) + _kstr(metadata) + struct.pack(">q", ts)


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def _size(text: str) -> int:
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:], 1)
    return int(t[:-1] if mult > 1 else t) * mult


def _main(argv: list[str]) -> int:
    usage = ("usage: writer.py sample DIR | writer.py big DIR SIZE [CODEC] [TOPIC] | "
             "writer.py replicas DIR SIZE | writer.py schemas DIR")
    if len(argv) >= 2 and argv[0] in ("sample", "big", "replicas", "schemas"):
        target = Path(argv[1])
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            print(f"refusing to write into non-empty {target}", file=sys.stderr)
            return 1
        if argv[0] == "sample" and len(argv) == 2:
            write_sample_logdir(target)
            return 0
        if argv[0] == "big" and len(argv) in (3, 4, 5):
            codecs = {"none": NONE, "gzip": GZIP, "snappy": SNAPPY, "lz4": LZ4, "zstd": ZSTD}
            if len(argv) >= 4 and argv[3] not in codecs:
                print(f"unknown codec {argv[3]!r}: one of {', '.join(codecs)}", file=sys.stderr)
                return 2
            codec = codecs[argv[3]] if len(argv) >= 4 else NONE
            topic = argv[4] if len(argv) == 5 else "big"
            try:
                size = _size(argv[2])
            except ValueError:
                print(f"{argv[2]!r} is not a size (1073741824, 200M, 1G)", file=sys.stderr)
                return 2
            # a partition directory, as in a broker's log dir (and as ``sample`` writes)
            big_segment(target / f"{topic}-0", size, codec=codec)
            print(target / f"{topic}-0")
            return 0
        if argv[0] == "schemas" and len(argv) == 2:
            # the schema registry's _schemas and Avro / Protobuf / JSON Schema topics
            # (needs the schemas extra: fastavro, protobuf, grpcio-tools)
            import tempfile

            from tests.support import registry_writer

            with tempfile.TemporaryDirectory() as scratch:
                registry_writer.write_sample(target, Path(scratch))
            return 0
        if argv[0] == "replicas" and len(argv) == 3:
            replicas_pair(target, _size(argv[2]))
            return 0
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))


# --------------------------------------------------------------------------------------------
# KRaft __cluster_metadata: metadata records, log segments and snapshot .checkpoint files
# --------------------------------------------------------------------------------------------
# Record schemas written again from metadata/src/main/resources/common/metadata/*.json
# (apache/kafka trunk, 2024-10-25) and encoded with tests/message_writer.py; frame:
# MetadataRecordSerde (uvarint frame version 1, uvarint api key, uvarint version, body).

METADATA_DESCRIPTIONS = """
RegisterBrokerRecord versions=0-3 flexible=0+ apiKey=0 typeName=REGISTER_BROKER_RECORD
  brokerId int32
  isMigratingZkBroker bool v=2+ default=false
  incarnationId uuid
  brokerEpoch int64
  endPoints []
    name string
    host string
    port uint16
    securityProtocol int16
  features []
    name string
    minSupportedVersion int16
    maxSupportedVersion int16
  rack string null=0+
  fenced bool default=true
  inControlledShutdown bool v=1+ default=false
  logDirs []uuid v=3+ tag=0 tagv=3+

UnregisterBrokerRecord versions=0 flexible=0+ apiKey=1 typeName=UNREGISTER_BROKER_RECORD
  brokerId int32
  brokerEpoch int64

TopicRecord versions=0 flexible=0+ apiKey=2 typeName=TOPIC_RECORD
  name string
  topicId uuid

PartitionRecord versions=0-2 flexible=0+ apiKey=3 typeName=PARTITION_RECORD
  partitionId int32 default=-1
  topicId uuid
  replicas []int32
  isr []int32
  removingReplicas []int32
  addingReplicas []int32
  leader int32 default=-1
  leaderRecoveryState int8 default=0 tag=0 tagv=0+
  leaderEpoch int32 default=-1
  partitionEpoch int32 default=-1
  directories []uuid v=1+
  eligibleLeaderReplicas []int32 v=2+ null=2+ tag=1 tagv=2+ default=null
  lastKnownElr []int32 v=2+ null=2+ tag=2 tagv=2+ default=null

ConfigRecord versions=0 flexible=0+ apiKey=4 typeName=CONFIG_RECORD
  resourceType int8
  resourceName string
  name string
  value string null=0+

PartitionChangeRecord versions=0-2 flexible=0+ apiKey=5 typeName=PARTITION_CHANGE_RECORD
  partitionId int32 default=-1
  topicId uuid
  isr []int32 null=0+ tag=0 tagv=0+ default=null
  leader int32 default=-2 tag=1 tagv=0+
  replicas []int32 null=0+ tag=2 tagv=0+ default=null
  removingReplicas []int32 null=0+ tag=3 tagv=0+ default=null
  addingReplicas []int32 null=0+ tag=4 tagv=0+ default=null
  leaderRecoveryState int8 default=-1 tag=5 tagv=0+
  directories []uuid v=1+ null=1+ tag=8 tagv=1+ default=null
  eligibleLeaderReplicas []int32 v=2+ null=2+ tag=6 tagv=2+ default=null
  lastKnownElr []int32 v=2+ null=2+ tag=7 tagv=2+ default=null

FenceBrokerRecord versions=0 flexible=0+ apiKey=7 typeName=FENCE_BROKER_RECORD
  id int32
  epoch int64

UnfenceBrokerRecord versions=0 flexible=0+ apiKey=8 typeName=UNFENCE_BROKER_RECORD
  id int32
  epoch int64

RemoveTopicRecord versions=0 flexible=0+ apiKey=9 typeName=REMOVE_TOPIC_RECORD
  topicId uuid

DelegationTokenRecord versions=0 flexible=0+ apiKey=10 typeName=DELEGATION_TOKEN_RECORD
  owner string
  requester string
  renewers []string
  issueTimestamp int64
  maxTimestamp int64
  expirationTimestamp int64
  tokenId string

UserScramCredentialRecord versions=0 flexible=0+ apiKey=11 typeName=USER_SCRAM_CREDENTIAL_RECORD
  name string
  mechanism int8
  salt bytes
  storedKey bytes
  serverKey bytes
  iterations int32

FeatureLevelRecord versions=0 flexible=0+ apiKey=12 typeName=FEATURE_LEVEL_RECORD
  name string
  featureLevel int16

ClientQuotaRecord versions=0 flexible=0+ apiKey=14 typeName=CLIENT_QUOTA_RECORD
  entity []
    entityType string
    entityName string null=0+
  key string
  value float64
  remove bool

ProducerIdsRecord versions=0 flexible=0+ apiKey=15 typeName=PRODUCER_IDS_RECORD
  brokerId int32
  brokerEpoch int64 default=-1
  nextProducerId int64

BrokerRegistrationChangeRecord versions=0-2 flexible=0+ apiKey=17 \
typeName=BROKER_REGISTRATION_CHANGE_RECORD
  brokerId int32
  brokerEpoch int64
  fenced int8 tag=0 tagv=0+
  inControlledShutdown int8 v=1+ tag=1 tagv=1+
  logDirs []uuid v=2+ tag=2 tagv=2+

AccessControlEntryRecord versions=0 flexible=0+ apiKey=18 typeName=ACCESS_CONTROL_ENTRY_RECORD
  id uuid
  resourceType int8
  resourceName string
  patternType int8
  principal string
  host string
  operation int8
  permissionType int8

RemoveAccessControlEntryRecord versions=0 flexible=0+ apiKey=19 \
typeName=REMOVE_ACCESS_CONTROL_ENTRY_RECORD
  id uuid

NoOpRecord versions=0 flexible=0+ apiKey=20 typeName=NO_OP_RECORD

ZkMigrationStateRecord versions=0 flexible=0+ apiKey=21 typeName=ZK_MIGRATION_STATE_RECORD
  zkMigrationState int8

RemoveUserScramCredentialRecord versions=0 flexible=0+ apiKey=22 \
typeName=REMOVE_USER_SCRAM_CREDENTIAL_RECORD
  name string
  mechanism int8

BeginTransactionRecord versions=0 flexible=0+ apiKey=23 typeName=BEGIN_TRANSACTION_RECORD
  name string null=0+ tag=0 tagv=0+ default=null

EndTransactionRecord versions=0 flexible=0+ apiKey=24 typeName=END_TRANSACTION_RECORD

AbortTransactionRecord versions=0 flexible=0+ apiKey=25 typeName=ABORT_TRANSACTION_RECORD
  reason string null=0+ tag=0 tagv=0+ default=null

RemoveDelegationTokenRecord versions=0 flexible=0+ apiKey=26 typeName=REMOVE_DELEGATION_TOKEN_RECORD
  tokenId string

RegisterControllerRecord versions=0 flexible=0+ apiKey=27 typeName=REGISTER_CONTROLLER_RECORD
  controllerId int32
  incarnationId uuid
  zkMigrationReady bool
  endPoints []
    name string
    host string
    port uint16
    securityProtocol int16
  features []
    name string
    minSupportedVersion int16
    maxSupportedVersion int16
"""

_META_SCHEMAS: dict[str, Any] | None = None


def metadata_schemas() -> dict[str, Any]:
    """Every metadata record schema (parsed once), by name."""
    global _META_SCHEMAS
    if _META_SCHEMAS is None:
        from tests.support import message_writer as sw
        _META_SCHEMAS = sw.parse_many(METADATA_DESCRIPTIONS)
    return _META_SCHEMAS


def metadata_record(name: str, values: dict[str, Any] | None = None, *,
                    version: int | None = None, api_key: int | None = None) -> bytes:
    """A framed metadata record value: ``metadata_record("TopicRecord", {...})``.
    ``version`` defaults to the newest; ``api_key`` overrides the schema's (unknown types)."""
    from tests.support import message_writer as sw
    schema = metadata_schemas()[name]
    v = schema.valid[1] if version is None else version
    body = sw.encode(schema, values or {}, min(v, schema.valid[1]))
    key = schema.api_key if api_key is None else api_key
    return uvarint(1) + uvarint(key) + uvarint(v) + body


def uuid_of(n: int) -> str:
    """A deterministic Kafka Uuid text (URL-safe base64, no padding) for test ids."""
    return uuid_str(struct.pack(">QQ", 0x1000 + n, 0xABCDEF00 + n))


class MetadataLogWriter:
    """Writes a ``__cluster_metadata-0`` directory: batches of metadata records (and
    KRaft control batches) with consecutive offsets, rolling segments at
    ``segment_bytes`` or on :meth:`roll`.  Files are written as batches come, so
    large logs stream to disk (benchmarks)."""

    def __init__(self, directory: Path, *, segment_bytes: int = 1 << 30,
                 leader_epoch: int = 1) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.segment_bytes = segment_bytes
        self.leader_epoch = leader_epoch
        self.next_offset = 0
        self._file: BinaryIO | None = None
        self._size = 0
        self.segments: list[int] = []

    def _out(self, size: int) -> BinaryIO:
        if self._file is None or (self._size and self._size + size > self.segment_bytes):
            self.roll()
        assert self._file is not None
        return self._file

    def roll(self) -> None:
        if self._file is not None:
            self._file.close()
        self.segments.append(self.next_offset)
        self._file = open(self.directory / f"{self.next_offset:020d}.log", "wb")
        self._size = 0

    def append(self, records: list[bytes], *, timestamp: int = DEFAULT_TIMESTAMP,
               codec: int = NONE, crc: int | None = None) -> int:
        """One batch of framed metadata records; returns its base offset."""
        base = self.next_offset
        data = v2_batch([Rec(None, r, timestamp=timestamp) for r in records], base_offset=base,
                        partition_leader_epoch=self.leader_epoch, codec=codec,
                        first_timestamp=timestamp, crc=crc)
        self._out(len(data)).write(data)
        self._size += len(data)
        self.next_offset += len(records)
        return base

    def append_encoded(self, batch: bytes, count: int, *, timestamp: int) -> int:
        """A batch from :func:`v2_batch` (any base offset and timestamp) moved to the next
        offset and to ``timestamp`` (every record at that time), its CRC recomputed:
        benchmarks write large logs from a few encoded batches."""
        base = self.next_offset
        data = bytearray(batch)
        struct.pack_into(">q", data, 0, base)
        struct.pack_into(">qq", data, 27, timestamp, timestamp)
        struct.pack_into(">I", data, 17, crc32c.crc32c(bytes(data[21:])))
        self._out(len(data)).write(data)
        self._size += len(data)
        self.next_offset += count
        return base

    def control(self, records: list[tuple[int, bytes]], *,
                timestamp: int = DEFAULT_TIMESTAMP) -> int:
        base = self.next_offset
        data = kraft_control_batch(records, base_offset=base,
                                   partition_leader_epoch=self.leader_epoch, timestamp=timestamp)
        self._out(len(data)).write(data)
        self._size += len(data)
        self.next_offset += len(records)
        return base

    def skip(self, n: int) -> None:
        """Leave ``n`` offsets out (a gap: what a lost segment looks like)."""
        self.next_offset += n

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def metadata_snapshot(path: Path, records: list[bytes], *, timestamp: int = DEFAULT_TIMESTAMP,
                      epoch: int = 1, per_batch: int = 100) -> None:
    """A KRaft snapshot file: header control batch, the records, footer control batch
    (offsets from 0, as a snapshot numbers them)."""
    parts = [kraft_control_batch([(CONTROL_SNAPSHOT_HEADER, snapshot_header_value(timestamp))],
                                 base_offset=0, partition_leader_epoch=epoch, timestamp=timestamp)]
    off = 1
    for i in range(0, len(records), per_batch):
        chunk = records[i:i + per_batch]
        parts.append(v2_batch([Rec(None, r, timestamp=timestamp) for r in chunk],
                              base_offset=off, partition_leader_epoch=epoch,
                              first_timestamp=timestamp))
        off += len(chunk)
    parts.append(kraft_control_batch([(CONTROL_SNAPSHOT_FOOTER, snapshot_footer_value())],
                                     base_offset=off, partition_leader_epoch=epoch,
                                     timestamp=timestamp))
    Path(path).write_bytes(b"".join(parts))
