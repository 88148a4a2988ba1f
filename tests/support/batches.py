"""Record batches: v2 batches and their records, control batches (transaction markers,
KRaft's snapshot header/footer, kraft.version, voters, leader change) and the legacy
v0 / v1 messages and their compressed wrappers."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field, replace

import crc32c

from tests.support.encoding import (
    _U32,
    ATTR_CONTROL,
    ATTR_DELETE_HORIZON,
    ATTR_TIMESTAMP_TYPE,
    ATTR_TRANSACTIONAL,
    CONTROL_ABORT,
    CONTROL_COMMIT,
    DEFAULT_TIMESTAMP,
    NO_TAGGED_FIELDS,
    NONE,
    ZSTD,
    _compact_array,
    _compact_str,
    _vbytes,
    compress,
    varint,
    varlong,
)

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
