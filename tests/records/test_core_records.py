"""The parsing core, without the command line: v2 batches, legacy message sets, control
records, codecs and the log walker's resynchronisation.

Fixtures come from tests/writer.py; FORMATS.md §16 hex vectors are used verbatim.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from kdump import layouts as L
from kdump.codecs import decompress
from kdump.errors import CorruptDataError, DecompressionError, LimitExceeded
from kdump.findings import Problem
from kdump.records.control import parse_control
from kdump.records.file_records import LogReader
from kdump.records.legacy import LegacyBatch
from kdump.records.record import Record
from kdump.records.v2 import RecordBatch, decrement_sequence, increment_sequence
from kdump.source import FileSource
from tests.support import writer as w

TS = w.DEFAULT_TIMESTAMP
H = bytes.fromhex

V16_1 = H("0000000000000000000000400000000002db5e9cdd0000000000000000018bcfe568000000018bcfe56800"
          "ffffffffffffffffffffffffffff000000011c000000066b65790a76616c756500")
V16_2_V0 = H("000000000000000000000016" "2356c137" "00" "00" "000000036b6579" "0000000576616c7565")
V16_2_V1 = H("00000000000000000000001e" "6ad05db8" "01" "00" "0000018bcfe56800" "000000036b6579"
             "0000000576616c7565")
V16_3 = H("000000000000002a" "00000042" "00000003" "02" "a7d9b82a" "0030" "00000000"
          "0000018bcfe56800" "0000018bcfe56800" "00000000000003e8" "0002" "ffffffff" "00000001"
          "20000000" "0800000001" "0c000000000005" "00")
V16_4 = H("00000000000000000000004f000000000252cd43460003000000000000018bcfe568000000018bcfe56800"
          "ffffffffffffffffffffffffffff0000000104224d186040820f0000801c000000066b65790a76616c7565"
          "0000000000")
V16_5 = H("00000000000000000000005600000000021e8178b00002000000000000018bcfe568000000018bcfe56800"
          "ffffffffffffffffffffffffffff0000000182534e41505059000000000100000001000000110f381c0000"
          "00066b65790a76616c756500")


def batch(data: bytes, position: int = 0) -> RecordBatch | LegacyBatch:
    if data[16] == 2:
        return RecordBatch("x.log", position, data, 0)
    return LegacyBatch("x.log", position, data, 0)


def records(data: bytes) -> list[Record]:
    return list(batch(data).records())


# ---------------------------------------------------------------------------------------
# FORMATS.md §16 vectors
# ---------------------------------------------------------------------------------------


def test_vector_16_1_v2_batch() -> None:
    assert len(V16_1) == 76
    b = batch(V16_1)
    assert isinstance(b, RecordBatch)
    assert (b.base_offset, b.last_offset, b.batch_length, b.size, b.partition_leader_epoch,
            b.magic, b.crc, b.attributes, b.first_timestamp, b.max_timestamp, b.producer_id,
            b.producer_epoch, b.base_sequence, b.count) == (
        0, 0, 64, 76, 0, 2, 0xDB5E9CDD, 0, TS, TS, -1, -1, -1, 1)
    assert b.crc_valid and b.compute_crc() == 0xDB5E9CDD
    assert (b.compression_name, b.timestamp_type, b.is_transactional, b.is_control,
            b.delete_horizon_ms, b.last_sequence) == ("none", "CreateTime", False, False, None, -1)
    [r] = records(V16_1)
    assert (r.offset, r.timestamp, r.key, r.value, r.headers, r.sequence, r.size,
            r.key_size, r.value_size) == (0, TS, b"key", b"value", [], -1, 15, 3, 5)
    # the writer builds the same bytes
    assert w.v2_batch([w.Rec(b"key", b"value")]) == V16_1


def test_vector_16_2_legacy_messages() -> None:
    for raw, magic, crc, ts, ts_type in ((V16_2_V0, 0, 0x2356C137, -1, "NoTimestampType"),
                                         (V16_2_V1, 1, 0x6AD05DB8, TS, "CreateTime")):
        b = batch(raw)
        assert isinstance(b, LegacyBatch)
        assert (b.magic, b.crc, b.crc_valid, b.size, b.max_timestamp, b.timestamp_type,
                b.count, b.compression_name) == (magic, crc, True, len(raw), ts, ts_type, None,
                                                 "none")
        [r] = records(raw)
        assert (r.offset, r.key, r.value, r.timestamp, r.crc, r.crc_valid) == (
            0, b"key", b"value", ts, crc, True)


def test_vector_16_3_commit_marker() -> None:
    assert len(V16_3) == 78
    b = batch(V16_3)
    assert (b.base_offset, b.partition_leader_epoch, b.producer_id, b.producer_epoch,
            b.crc, b.crc_valid, b.is_control, b.is_transactional) == (
        42, 3, 1000, 2, 0xA7D9B82A, True, True, True)
    [r] = records(V16_3)
    c = parse_control(r)
    assert (c.type_id, c.type_name, c.key_version, c.coordinator_epoch, c.value_version,
            c.error, c.is_end_txn_marker) == (1, "COMMIT", 0, 5, 0, None, True)


@pytest.mark.parametrize(("raw", "crc", "codec"), [(V16_4, 0x52CD4346, "lz4"),
                                                   (V16_5, 0x1E8178B0, "snappy")])
def test_vectors_16_4_and_16_5_compressed(raw: bytes, crc: int, codec: str) -> None:
    b = batch(raw)
    assert (b.crc, b.crc_valid, b.compression_name) == (crc, True, codec)
    [r] = records(raw)
    assert (r.key, r.value, r.in_payload) == (b"key", b"value", True)


def test_vector_16_5_raw_snappy_block_as_librdkafka_writes_it() -> None:
    block = H("0f381c000000066b65790a76616c756500")
    assert decompress(L.CODEC_SNAPPY, block, 100) == H("1c000000066b65790a76616c756500")


def test_lz4_broken_header_checksum_only_for_magic_0() -> None:
    # Lz4BlockInputStream skips the HC check only for magic 0 (KAFKA-1493, KIP-57)
    payload = b"abc" * 100
    broken = w.lz4_frame(payload, broken_hc=True)
    assert broken[:7] == H("04224d1860401a")
    assert decompress(L.CODEC_LZ4, broken, 1000, magic=0) == payload
    for magic in (1, 2):
        with pytest.raises(DecompressionError, match="header checksum"):
            decompress(L.CODEC_LZ4, broken, 1000, magic=magic)
        assert decompress(L.CODEC_LZ4, w.lz4_frame(payload), 1000, magic=magic) == payload


def test_lz4_magic_1_wrapper_with_broken_checksum_is_reported() -> None:
    wrapper = w.legacy_compressed(1, [w.Rec(b"a", b"b", timestamp=TS)], last_offset=0,
                                  codec=w.LZ4, lz4_broken_hc=True)
    with pytest.raises(CorruptDataError, match="header checksum"):
        records(wrapper)


# ---------------------------------------------------------------------------------------
# codecs
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 1000, 70_000, 300_000])
def test_every_codec_round_trips(size: int) -> None:
    data = (os.urandom(size // 2) + b"kafka" * size)[:size]
    cases = [
        (L.CODEC_GZIP, w.gzip_compress(data)),
        (L.CODEC_SNAPPY, w.snappy_compress(data)),
        (L.CODEC_SNAPPY, w.snappy_compress(data, "raw")),
        (L.CODEC_LZ4, w.lz4_frame(data)),
        (L.CODEC_LZ4, w.lz4_frame(data, block_checksum=True, block_size_id=5)),
        (L.CODEC_LZ4, w.lz4_frame(data, level=12, block_size_id=7)),
        (L.CODEC_ZSTD, w.zstd_compress(data)),
    ]
    for codec, blob in cases:
        assert decompress(codec, blob, max(size, 1)) == data, codec


def test_concatenated_gzip_members_and_zstd_frames() -> None:
    # GZIPInputStream reads concatenated members; zstd-jni's stream reads on across frames
    assert decompress(L.CODEC_GZIP, w.gzip_compress(b"one") + w.gzip_compress(b"two"), 10) == \
        b"onetwo"
    assert decompress(L.CODEC_ZSTD, w.zstd_compress(b"one") + w.zstd_compress(b"two"), 10) == \
        b"onetwo"


@pytest.mark.parametrize("codec", [w.GZIP, w.SNAPPY, w.LZ4, w.ZSTD])
def test_decompression_is_bounded(codec: int) -> None:
    blob = w.compress(codec, b"x" * 100_000)
    assert decompress(codec, blob, 100_000) == b"x" * 100_000
    with pytest.raises(LimitExceeded):
        decompress(codec, blob, 99_999)


def test_zstd_decompressor_shared_across_batches_survives_errors() -> None:
    """One ZstdDecompressor serves every batch of a process: a corrupt frame and a bomb
    stopped at the limit leave it ready for the next batch."""
    import hashlib

    data = b"".join(hashlib.sha256(b"%d" % i).digest() for i in range(300))
    good = w.zstd_compress(data)
    assert decompress(L.CODEC_ZSTD, good, 1 << 20) == data
    with pytest.raises(DecompressionError, match="zstd"):
        decompress(L.CODEC_ZSTD, good[:8] + b"\xff" * 20 + good[28:], 1 << 20)
    assert decompress(L.CODEC_ZSTD, good, 1 << 20) == data
    with pytest.raises(LimitExceeded):
        decompress(L.CODEC_ZSTD, w.zstd_compress(b"\0" * (4 << 20)), 1 << 20)
    assert decompress(L.CODEC_ZSTD, w.zstd_compress(b"next"), 10) == b"next"


def test_zstd_is_invalid_below_magic_2() -> None:
    wrapper = w.legacy_compressed(1, [w.Rec(b"a", b"b", timestamp=TS)], last_offset=0,
                                  codec=w.ZSTD, allow_zstd=True)
    with pytest.raises(CorruptDataError, match="zstd"):
        records(wrapper)


def test_corrupt_compressed_payload_raises_with_position() -> None:
    good = w.v2_batch([w.Rec(b"k", b"v" * 100)], codec=w.GZIP, base_offset=7)
    bad = good[:70] + bytes(len(good) - 70)
    b = batch(bad, position=1234)
    with pytest.raises(CorruptDataError) as e:
        list(b.records())
    assert (e.value.path, e.value.position, e.value.base_offset) == ("x.log", 1234, 7)


# ---------------------------------------------------------------------------------------
# v2 details
# ---------------------------------------------------------------------------------------


def test_sequence_arithmetic_wraps_like_default_record_batch() -> None:
    assert increment_sequence(2147483646, 1) == 2147483647
    assert increment_sequence(2147483647, 1) == 0
    assert increment_sequence(2147483646, 3) == 1
    assert decrement_sequence(1, 3) == 2147483646
    assert decrement_sequence(5, 5) == 0
    b = batch(w.v2_batch([w.Rec(b"a", b"1")] * 4, producer_id=1, producer_epoch=0,
                         base_sequence=2147483645))
    assert b.last_sequence == 0
    assert [r.sequence for r in b.records()] == [2147483645, 2147483646, 2147483647, 0]


def test_record_fields_headers_nulls_and_deltas() -> None:
    recs = [
        w.Rec(None, None, headers=[("a", None), ("b", b"")], timestamp=TS + 300),
        w.Rec(b"", b"", timestamp=TS - 5, offset_delta=4),
    ]
    raw = w.v2_batch(recs, base_offset=1000, first_timestamp=TS, last_offset_delta=4)
    r0, r1 = records(raw)
    assert (r0.offset, r0.key, r0.value, r0.headers, r0.timestamp, r0.timestamp_delta) == (
        1000, None, None, [(b"a", None), (b"b", b"")], TS + 300, 300)
    assert (r0.key_size, r0.value_size) == (-1, -1)
    assert (r1.offset, r1.offset_delta, r1.key, r1.value, r1.timestamp) == (
        1004, 4, b"", b"", TS - 5)
    assert r0.position == 61 and r1.position == 61 + r0.size


def test_log_append_time_and_delete_horizon() -> None:
    lat = batch(w.v2_batch([w.Rec(b"a", b"1", timestamp=TS), w.Rec(b"b", b"2", timestamp=TS + 9)],
                           log_append_time=TS + 60_000))
    assert lat.timestamp_type == "LogAppendTime"
    assert [r.timestamp for r in lat.records()] == [TS + 60_000] * 2
    # the producer's CreateTime deltas are still there for forensics
    assert [r.timestamp_delta for r in lat.records()] == [0, 9]
    dh = batch(w.v2_batch([w.Rec(b"a", None, timestamp=TS)], delete_horizon_ms=TS + 1000))
    assert (dh.delete_horizon_ms, dh.first_timestamp) == (TS + 1000, TS + 1000)
    assert [r.timestamp for r in dh.records()] == [TS]


def test_record_count_larger_than_the_records() -> None:
    raw = w.v2_batch([w.Rec(b"a", b"1"), w.Rec(b"b", b"2")], records_count=3)
    b = batch(raw)
    assert b.crc_valid  # the count is under the CRC; the writer computed it with 3
    it = b.records()
    assert next(it).key == b"a" and next(it).key == b"b"
    with pytest.raises(CorruptDataError, match="declares 3 records but its data ends after 2"):
        next(it)


def test_record_count_smaller_than_the_records() -> None:
    raw = w.v2_batch([w.Rec(b"a", b"1"), w.Rec(b"b", b"2")], records_count=1)
    with pytest.raises(CorruptDataError, match="remain after the 1 records"):
        records(raw)


def test_negative_header_count_is_rejected() -> None:
    body = b"\x00" + w.varlong(0) + w.varint(0) + w.varint(-1) + w.varint(-1) + w.varint(-2)
    rec = w.varint(len(body)) + body
    header = w.v2_batch([], records_count=1, first_timestamp=TS)[:61]
    raw = bytearray(header + rec)
    struct.pack_into(">i", raw, 8, len(raw) - 12)
    with pytest.raises(CorruptDataError, match="invalid number of record headers -2"):
        records(bytes(raw))


def test_empty_batch() -> None:
    b = batch(w.v2_batch([], base_offset=5, last_offset_delta=2, producer_id=9,
                         producer_epoch=0, base_sequence=3, max_timestamp=TS))
    assert (b.size, b.count, b.last_offset, b.first_timestamp, b.last_sequence,
            list(b.records())) == (61, 0, 7, -1, 5, [])


# ---------------------------------------------------------------------------------------
# legacy details
# ---------------------------------------------------------------------------------------


def test_v0_wrapper_inner_offsets_absolute_and_base_offset() -> None:
    msgs = [w.Rec(b"a", b"1"), w.Rec(b"b", b"2"), w.Rec(b"c", b"3")]
    b = batch(w.legacy_compressed(0, msgs, last_offset=22, codec=w.GZIP))
    assert isinstance(b, LegacyBatch)
    assert (b.last_offset, b.base_offset) == (22, 20)
    assert [(r.offset, r.timestamp) for r in b.records()] == [(20, -1), (21, -1), (22, -1)]


def test_v1_wrapper_inner_offsets_relative() -> None:
    msgs = [w.Rec(b"a", b"1", timestamp=TS), w.Rec(b"b", b"2", timestamp=TS + 1)]
    b = batch(w.legacy_compressed(1, msgs, last_offset=51, codec=w.SNAPPY))
    assert [(r.offset, r.offset_delta, r.timestamp) for r in b.records()] == [
        (50, 0, TS), (51, 1, TS + 1)]
    assert b.max_timestamp == TS + 1


def test_v1_wrapper_offset_below_the_last_inner_offset_is_invalid() -> None:
    msgs = [w.Rec(b"a", b"1", timestamp=TS)] * 4
    raw = w.legacy_compressed(1, msgs, last_offset=2, codec=w.GZIP, inner_relative_offsets=True)
    with pytest.raises(CorruptDataError, match="wrapper offset 2 is less than the last inner"):
        records(raw)


def test_inner_message_crc_is_checked_separately() -> None:
    inner = w.legacy_message(1, b"a", b"1", offset=0, timestamp=TS, crc=99)
    wrapper = w.legacy_message(1, None, w.gzip_compress(inner), offset=0, timestamp=TS,
                               codec=w.GZIP)
    [r] = records(wrapper)
    assert (r.crc, r.crc_valid) == (99, False)
    assert batch(wrapper).crc_valid


def test_wrapper_with_no_inner_messages_is_invalid() -> None:
    wrapper = w.legacy_message(1, None, w.gzip_compress(b""), offset=0, timestamp=TS,
                               codec=w.GZIP)
    with pytest.raises(CorruptDataError, match="no inner messages"):
        records(wrapper)


def test_nested_compression_is_invalid() -> None:
    inner = w.legacy_compressed(1, [w.Rec(b"a", b"1", timestamp=TS)], last_offset=0,
                                codec=w.GZIP)
    wrapper = w.legacy_message(1, None, w.gzip_compress(inner), offset=0, timestamp=TS,
                               codec=w.GZIP)
    with pytest.raises(CorruptDataError, match="itself compressed"):
        records(wrapper)


# ---------------------------------------------------------------------------------------
# control records
# ---------------------------------------------------------------------------------------


def _control(key: bytes | None, value: bytes | None) -> Record:
    return Record(0, TS, key, value, [])


def test_control_record_parsing_rules() -> None:
    # ControlRecordType.parseTypeId: >= 4 bytes, version >= 0, higher versions read as v0
    assert parse_control(_control(b"\x00\x05\x00\x00", H("00000000000a"))).type_name == "ABORT"
    assert parse_control(_control(b"\x00\x00\x00\x07", b"")).type_name == "UNKNOWN"
    c = parse_control(_control(b"\x00\x00\x00", None))
    assert c.error and "at least 4 bytes" in c.error
    c = parse_control(_control(b"\xff\xff\x00\x01", H("000000000001")))
    assert c.error and "version -1" in c.error
    c = parse_control(_control(b"\x00\x00\x00\x01", b"\x00\x00\x00"))
    assert c.error and "at least 6 bytes" in c.error


def test_kraft_control_values() -> None:
    vid = bytes(range(16))
    c = parse_control(_control(b"\x00\x00\x00\x06", w.voters_value(
        [(7, vid, [("CONTROLLER", "h", 9093), ("X", "y", 1)], 0, 1)])))
    assert c.data == {"version": 0, "voters": [{
        "voterId": 7, "voterDirectoryId": w.uuid_str(vid),
        "endpoints": [{"name": "CONTROLLER", "host": "h", "port": 9093},
                      {"name": "X", "host": "y", "port": 1}],
        "kRaftVersionFeature": {"minSupportedVersion": 0, "maxSupportedVersion": 1}}]}
    c = parse_control(_control(b"\x00\x00\x00\x03", w.snapshot_header_value(TS)))
    assert c.data == {"version": 0, "lastContainedLogTimestamp": TS}
    c = parse_control(_control(b"\x00\x00\x00\x04", w.snapshot_footer_value()))
    assert c.data == {"version": 0}
    c = parse_control(_control(b"\x00\x00\x00\x02", w.leader_change_value(2, [1, 2], [2])))
    assert c.data == {"version": 0, "leaderId": 2, "voters": [{"voterId": 1}, {"voterId": 2}],
                      "grantingVoters": [{"voterId": 2}]}
    c = parse_control(_control(b"\x00\x00\x00\x05", b"\x00"))
    assert c.data is None and c.error


# ---------------------------------------------------------------------------------------
# the walker: framing and resynchronisation, with exact byte positions
# ---------------------------------------------------------------------------------------


def walk_log(path: Path, **kw) -> list[tuple]:  # type: ignore[no-untyped-def]
    out: list[tuple] = []
    with FileSource(str(path)) as src:
        for it in LogReader(src, **kw):
            if isinstance(it, Problem):
                out.append(("problem", it.position, it.kind, it.length))
            else:
                out.append(("batch", it.position, it.last_offset))
    return out


def _b(i: int) -> bytes:
    return w.v2_batch([w.Rec(b"k%d" % i, b"v" * 20)], base_offset=i)


SZ = len(_b(0))


def test_clean_log(tmp_path: Path) -> None:
    p = tmp_path / "a.log"
    p.write_bytes(_b(0) + _b(1) + _b(2))
    assert walk_log(p) == [("batch", 0, 0), ("batch", SZ, 1), ("batch", 2 * SZ, 2)]


def test_garbage_between_batches(tmp_path: Path) -> None:
    p = tmp_path / "a.log"
    p.write_bytes(_b(0) + _b(1) + bytes(range(1, 50)) + _b(2))
    assert walk_log(p) == [("batch", 0, 0), ("batch", SZ, 1),
                           ("problem", 2 * SZ, "bad-magic", 49), ("batch", 2 * SZ + 49, 2)]


def test_zeroed_region_in_the_middle(tmp_path: Path) -> None:
    p = tmp_path / "a.log"
    p.write_bytes(_b(0) + bytes(100) + _b(1))
    assert walk_log(p) == [("batch", 0, 0), ("problem", SZ, "zeroed-region", 100),
                           ("batch", SZ + 100, 1)]


def test_zeroed_batch_in_place(tmp_path: Path) -> None:
    p = tmp_path / "a.log"
    p.write_bytes(_b(0) + bytes(SZ) + _b(2))
    assert walk_log(p) == [("batch", 0, 0), ("problem", SZ, "zeroed-region", SZ),
                           ("batch", 2 * SZ, 2)]


def test_only_the_magic_byte_damaged(tmp_path: Path) -> None:
    # the v2 CRC does not cover the magic byte: the rest proves the batch intact
    x = bytearray(_b(1))
    x[16] = 9
    p = tmp_path / "a.log"
    p.write_bytes(_b(0) + bytes(x) + _b(2))
    assert walk_log(p) == [("batch", 0, 0), ("problem", SZ, "bad-magic", None),
                           ("batch", SZ, 1), ("batch", 2 * SZ, 2)]


def test_size_field_damaged(tmp_path: Path) -> None:
    x = bytearray(_b(1))
    struct.pack_into(">i", x, 8, 500)
    p = tmp_path / "a.log"
    p.write_bytes(_b(0) + bytes(x) + _b(2) + _b(3))
    assert walk_log(p) == [("batch", 0, 0), ("problem", SZ, "bad-length", SZ),
                           ("batch", 2 * SZ, 2), ("batch", 3 * SZ, 3)]


def test_flipped_crc_is_framed_and_invalid(tmp_path: Path) -> None:
    x = bytearray(_b(1))
    x[20] ^= 0x80
    p = tmp_path / "a.log"
    p.write_bytes(_b(0) + bytes(x) + _b(2))
    assert walk_log(p) == [("batch", 0, 0), ("batch", SZ, 1), ("batch", 2 * SZ, 2)]
    with FileSource(str(p)) as src:
        valid = [b.crc_valid for b in LogReader(src) if not isinstance(b, Problem)]
    assert valid == [True, False, True]


def test_truncated_last_batch(tmp_path: Path) -> None:
    p = tmp_path / "a.log"
    p.write_bytes(_b(0) + _b(1)[:50])
    assert walk_log(p) == [("batch", 0, 0), ("problem", SZ, "truncated", 50)]
    # the active segment's last batch may still be being written
    assert walk_log(p, active=True) == [("batch", 0, 0), ("problem", SZ, "in-flight", 50)]


def test_tails(tmp_path: Path) -> None:
    p = tmp_path / "a.log"
    p.write_bytes(_b(0) + bytes(500))
    assert walk_log(p) == [("batch", 0, 0), ("problem", SZ, "zero-tail", 500)]
    p.write_bytes(_b(0) + b"\x07" * 17)
    assert walk_log(p) == [("batch", 0, 0), ("problem", SZ, "trailing-bytes", 17)]
    p.write_bytes(_b(0) + bytes(5))
    assert walk_log(p) == [("batch", 0, 0), ("problem", SZ, "zero-tail", 5)]


def test_strict_mode_stops_at_the_first_damage(tmp_path: Path) -> None:
    p = tmp_path / "a.log"
    p.write_bytes(_b(0) + bytes(100) + _b(1))
    # like DumpLogSegments (FileLogInputStream throws at size < 14): nothing after it is read
    assert walk_log(p, resync=False) == [("batch", 0, 0), ("problem", SZ, "bad-length", 100 + SZ)]


def test_end_bound_reads_whole_batches_only(tmp_path: Path) -> None:
    p = tmp_path / "a.log"
    p.write_bytes(_b(0) + _b(1) + _b(2))
    assert walk_log(p, end=2 * SZ + 10) == [("batch", 0, 0), ("batch", SZ, 1)]
    assert walk_log(p, start=SZ) == [("batch", SZ, 1), ("batch", 2 * SZ, 2)]


def test_mixed_magics_and_legacy_damage(tmp_path: Path) -> None:
    m0 = w.legacy_message(0, b"a", b"0", offset=0)
    m1 = w.legacy_message(1, b"b", b"1", offset=1, timestamp=TS)
    p = tmp_path / "a.log"
    p.write_bytes(m0 + b"\x01" * 30 + m1 + _b(2))
    # 01 01 01 01 read as a size field: far past the end of the file
    assert walk_log(p) == [("batch", 0, 0), ("problem", len(m0), "bad-length", 30),
                           ("batch", len(m0) + 30, 1), ("batch", len(m0) + 30 + len(m1), 2)]


def test_big_log_streams_with_bounded_reads(tmp_path: Path) -> None:
    d = tmp_path / "big-0"
    w.big_segment(d, 6 << 20, records_per_batch=50)
    log = d / "00000000000000000000.log"
    with FileSource(str(log)) as src:
        n = sum(1 for it in LogReader(src) if not isinstance(it, Problem))
        assert src.bytes_read <= src.size + (16 << 20)
    assert n > 100
