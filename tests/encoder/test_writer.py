"""Tests for the independent fixture encoder ``tests/writer.py``.

* every worked vector of FORMATS.md §16.1-16.6 reproduced byte for byte;
* xxHash32 against published values, the LZ4 HC table (§6.3) and python-lz4's own frames;
* round trips through independent readers: kafka-python 3.0.12 (v2 batches with every codec,
  legacy v0/v1 messages and wrappers, CRC validation), lz4.frame, gzip, zstandard, snappy;
* the segment writer's index / roll / producer-state rules on hand-computed cases.
"""

from __future__ import annotations

import gzip
import random
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import crc32c
import lz4.frame
import pytest
import snappy
import zstandard
from kafka.record import MemoryRecords
from kafka.record import legacy_records as kafka_legacy
from kafka.record.default_records import DefaultRecordBatch
from kafka.record.legacy_records import LegacyRecordBatch

from tests.support import writer as w

TS = 1700000000000
H = bytes.fromhex
WRITER = Path(__file__).resolve().parents[1] / "writer.py"  # the entry point README names


def _hex(s: str) -> bytes:
    return bytes.fromhex(s.replace(" ", "").replace("|", "").replace("\n", ""))


def _batches(data: bytes) -> list[DefaultRecordBatch | LegacyRecordBatch]:
    mr = MemoryRecords(data)
    out = []
    while True:
        b = mr.next_batch()
        if b is None:
            break
        out.append(b)
    return out


def _one_batch(data: bytes) -> DefaultRecordBatch:
    batches = _batches(data)
    assert len(batches) == 1
    assert isinstance(batches[0], DefaultRecordBatch)
    return batches[0]


def _entries(data: bytes) -> list[tuple[int, int, int, int]]:
    """(position, size, magic, last offset) of each entry in a .log file."""
    out = []
    pos = 0
    while pos < len(data):
        offset, size = struct.unpack_from(">qi", data, pos)
        magic = data[pos + 16]
        last = offset
        if magic == 2:
            last = offset + struct.unpack_from(">i", data, pos + 23)[0]
        out.append((pos, 12 + size, magic, last))
        pos += 12 + size
    assert pos == len(data)
    return out


def _prng(n: int, seed: int = 1) -> bytes:
    return random.Random(seed).randbytes(n)


@pytest.fixture
def old_kafka_lz4(monkeypatch: pytest.MonkeyPatch) -> None:
    """kafka-python needs the (absent) xxhash package for magic-0 LZ4; use python-lz4 instead.

    The replacement asserts the frame carries Kafka 0.8/0.9's broken header checksum (0x1a for
    FLG 0x60 / BD 0x40), swaps in the correct one (0x82) and decodes with lz4.frame.
    """

    def decode(payload: bytes) -> bytes:
        p = bytearray(payload)
        assert p[4:7] == b"\x60\x40\x1a"
        p[6] = 0x82
        return bytes(lz4.frame.decompress(bytes(p)))

    monkeypatch.setattr(kafka_legacy, "lz4_decode_old_kafka", decode)


# ---------------------------------------------------------------------------------------------
# §1 primitives
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "hexs"),
    [
        (0, "00"),
        (1, "01"),
        (127, "7f"),
        (128, "8001"),
        (255, "ff01"),
        (300, "ac02"),
        (16384, "808001"),
    ],
)
def test_uvarint(n: int, hexs: str) -> None:
    assert w.uvarint(n) == H(hexs)


@pytest.mark.parametrize(
    ("n", "hexs"),
    [
        (0, "00"),
        (-1, "01"),
        (1, "02"),
        (-2, "03"),
        (2, "04"),
        (63, "7e"),
        (-64, "7f"),
        (64, "8001"),
        (-65, "8101"),
        (150, "ac02"),
        (300, "d804"),
        (-300, "d704"),
        (2**31 - 1, "feffffff0f"),
        (-(2**31), "ffffffff0f"),
        (14, "1c"),
    ],
)
def test_varint(n: int, hexs: str) -> None:
    assert w.varint(n) == H(hexs)


@pytest.mark.parametrize(
    ("n", "hexs"),
    [
        (0, "00"),
        (-1, "01"),
        (1000, "d00f"),
        (-1000, "cf0f"),
        (2**63 - 1, "feffffffffffffffff01"),
        (-(2**63), "ffffffffffffffffff01"),
    ],
)
def test_varlong(n: int, hexs: str) -> None:
    assert w.varlong(n) == H(hexs)


def test_varint_ranges() -> None:
    with pytest.raises(ValueError):
        w.varint(2**31)
    with pytest.raises(ValueError):
        w.varlong(2**63)
    with pytest.raises(ValueError):
        w.uvarint(-1)


def test_uuid_str() -> None:
    assert w.uuid_str(bytes(15) + b"\x01") == "AAAAAAAAAAAAAAAAAAAAAQ"
    assert w.uuid_str(bytes(16)) == "AAAAAAAAAAAAAAAAAAAAAA"


# ---------------------------------------------------------------------------------------------
# xxHash32
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "seed", "expected"),
    [
        (b"", 0, 0x02CC5D05),
        (b"a", 0, 0x550D7456),
        (b"abc", 0, 0x32D153FF),
        (b"Nobody inspects the spammish repetition", 0, 0xE2293B2F),
    ],
)
def test_xxhash32_known_values(data: bytes, seed: int, expected: int) -> None:
    assert w.xxhash32(data, seed) == expected


@pytest.mark.parametrize(
    ("flg", "bd", "correct", "broken"),
    [
        (0x60, 0x40, 0x82, 0x1A),
        (0x70, 0x40, 0xAD, 0xEC),
        (0x64, 0x40, 0xA7, 0x0C),
        (0x68, 0x40, 0xCE, 0x26),
        (0x60, 0x50, 0xFB, 0x77),
        (0x60, 0x60, 0x51, 0xD6),
        (0x60, 0x70, 0x73, 0x10),
    ],
)
def test_lz4_hc_table(flg: int, bd: int, correct: int, broken: int) -> None:
    assert (w.xxhash32(bytes([flg, bd])) >> 8) & 0xFF == correct
    assert (w.xxhash32(w.LZ4_MAGIC + bytes([flg, bd])) >> 8) & 0xFF == broken


@pytest.mark.parametrize("n", [0, 1, 3, 4, 7, 15, 16, 17, 31, 32, 33, 100, 1000, 65536 + 5])
def test_xxhash32_against_lz4_frame_checksums(n: int) -> None:
    """python-lz4 writes xxHash32 of the content (content checksum) and of each block."""
    data = _prng(n, seed=n)
    frame = lz4.frame.compress(
        data,
        block_size=lz4.frame.BLOCKSIZE_MAX64KB,
        block_linked=False,
        content_checksum=True,
        block_checksum=True,
        store_size=False,
    )
    assert frame[4] & 0x04  # content checksum present
    assert struct.unpack("<I", frame[-4:])[0] == w.xxhash32(data)
    pos = 7
    while True:
        (word,) = struct.unpack_from("<I", frame, pos)
        pos += 4
        if word == 0:
            break
        size = word & 0x7FFFFFFF
        block = frame[pos : pos + size]
        pos += size
        assert struct.unpack_from("<I", frame, pos)[0] == w.xxhash32(block)
        pos += 4
    # and the header checksum python-lz4 computed
    assert frame[6] == (w.xxhash32(frame[4:6]) >> 8) & 0xFF


def test_xxhash32_seed() -> None:
    # the seed is mixed in: different seeds, different hashes; all results are uint32
    values = {w.xxhash32(b"kafka" * 5, seed) for seed in (0, 1, 2**32 - 1)}
    assert len(values) == 3
    assert all(0 <= v < 2**32 for v in values)


# ---------------------------------------------------------------------------------------------
# §16 worked vectors
# ---------------------------------------------------------------------------------------------

V16_1 = (
    "0000000000000000000000400000000002db5e9cdd0000000000000000018bcfe568000000018bcfe56800"
    "ffffffffffffffffffffffffffff000000011c000000066b65790a76616c756500"
)
V16_3 = (
    "00 00 00 00 00 00 00 2a  00 00 00 42  00 00 00 03  02  a7 d9 b8 2a"
    "00 30"
    "00 00 00 00  00 00 01 8b cf e5 68 00  00 00 01 8b cf e5 68 00"
    "00 00 00 00 00 00 03 e8  00 02  ff ff ff ff  00 00 00 01"
    "20 00 00 00"
    "08 00 00 00 01"
    "0c 00 00 00 00 00 05"
    "00"
)
V16_4 = (
    "00000000000000000000004f000000000252cd43460003000000000000018bcfe568000000018bcfe56800"
    "ffffffffffffffffffffffffffff0000000104224d186040820f0000801c000000066b65790a76616c7565"
    "0000000000"
)
V16_5 = (
    "00000000000000000000005600000000021e8178b00002000000000000018bcfe568000000018bcfe56800"
    "ffffffffffffffffffffffffffff0000000182534e41505059000000000100000001000000110f381c0000"
    "00066b65790a76616c756500"
)


def test_16_1_v2_batch() -> None:
    b = w.v2_batch([w.Rec(key=b"key", value=b"value")])
    assert b == _hex(V16_1)
    assert len(b) == 76
    assert crc32c.crc32c(b[21:]) == 0xDB5E9CDD
    # explicit timestamp / first_timestamp give the same bytes
    assert w.v2_batch([w.Rec(b"key", b"value", timestamp=TS)]) == b
    assert w.v2_batch([w.Rec(b"key", b"value")], first_timestamp=TS) == b


def test_16_1_record() -> None:
    assert w.encode_record_v2(w.Rec(b"key", b"value"), TS, 0) == _hex(
        "1c000000066b65790a76616c756500"
    )


def test_16_2_legacy_v0() -> None:
    m = w.legacy_message(0, b"key", b"value")
    assert m == _hex(
        "00 00 00 00 00 00 00 00 | 00 00 00 16 | 23 56 c1 37 | 00 | 00 | 00 00 00 03 6b 65 79 "
        "| 00 00 00 05 76 61 6c 75 65"
    )
    assert len(m) == 34


def test_16_2_legacy_v1() -> None:
    m = w.legacy_message(1, b"key", b"value", timestamp=TS)
    assert m == _hex(
        "00 00 00 00 00 00 00 00 | 00 00 00 1e | 6a d0 5d b8 | 01 | 00 | 00 00 01 8b cf e5 68 00 "
        "| 00 00 00 03 6b 65 79 | 00 00 00 05 76 61 6c 75 65"
    )
    assert len(m) == 42


def test_16_3_commit_marker() -> None:
    b = w.end_txn_marker_batch(
        True,
        base_offset=42,
        producer_id=1000,
        producer_epoch=2,
        coordinator_epoch=5,
        partition_leader_epoch=3,
    )
    assert b == _hex(V16_3)
    assert len(b) == 78


def test_16_3_abort_marker_differs_only_in_type_and_crc() -> None:
    c = w.end_txn_marker_batch(
        True,
        base_offset=42,
        producer_id=1000,
        producer_epoch=2,
        coordinator_epoch=5,
        partition_leader_epoch=3,
    )
    a = w.end_txn_marker_batch(
        False,
        base_offset=42,
        producer_id=1000,
        producer_epoch=2,
        coordinator_epoch=5,
        partition_leader_epoch=3,
    )
    diff = [i for i in range(len(c)) if a[i] != c[i]]
    assert set(diff) - {17, 18, 19, 20} == {len(c) - 9}  # low byte of the key type
    assert a[-9] == 0 and c[-9] == 1


def test_16_4_lz4_batch() -> None:
    b = w.v2_batch([w.Rec(b"key", b"value")], codec=w.LZ4)
    assert b == _hex(V16_4)
    assert len(b) == 91


def test_16_4_broken_hc_frame_header() -> None:
    frame = w.lz4_frame(b"x", broken_hc=True)
    assert frame[:7] == _hex("04 22 4d 18 60 40 1a")
    # the magic-0 wrapper uses it by default, magic 1 does not
    v0 = w.legacy_compressed(0, [w.Rec(b"k", b"v")], last_offset=0, codec=w.LZ4)
    v1 = w.legacy_compressed(1, [w.Rec(b"k", b"v", timestamp=TS)], last_offset=0, codec=w.LZ4)
    assert _hex("04224d1860401a") in v0
    assert _hex("04224d18604082") in v1


def test_16_5_snappy_xerial_batch() -> None:
    b = w.v2_batch([w.Rec(b"key", b"value")], codec=w.SNAPPY)
    assert b == _hex(V16_5)
    assert len(b) == 98


def test_16_5_snappy_raw() -> None:
    raw = _hex("0f 38 1c 00 00 00 06 6b 65 79 0a 76 61 6c 75 65 00")
    b = w.v2_batch([w.Rec(b"key", b"value")], codec=w.SNAPPY, snappy_framing="raw")
    assert b[61:] == raw
    assert len(b) == 61 + 17
    assert struct.unpack_from(">i", b, 8)[0] == len(b) - 12
    assert _one_batch(b).validate_crc()


def test_16_6_index_entries() -> None:
    assert w.offset_index([(50, 4123)]) == _hex("00 00 00 32 00 00 10 1b")
    assert w.time_index([(TS, 50)]) == _hex("00 00 01 8b cf e5 68 00 00 00 00 32")
    assert w.txn_index([(1000, 10, 42, 10)]) == _hex(
        "00 00 | 00 00 00 00 00 00 03 e8 | 00 00 00 00 00 00 00 0a | 00 00 00 00 00 00 00 2a "
        "| 00 00 00 00 00 00 00 0a"
    )


def test_16_6_producer_snapshot() -> None:
    e = w.ProducerEntry(1000, 2, 9, 41, 9, TS, 5, -1)
    snap = w.producer_snapshot([e])
    assert snap == _hex(
        "00 01 | eb b5 82 d6 | 00 00 00 01 | 00 00 00 00 00 00 03 e8 00 02 00 00 00 09 00 00 00 00"
        " 00 00 00 29 00 00 00 09 00 00 01 8b cf e5 68 00 00 00 00 05 ff ff ff ff ff ff ff ff"
    )
    assert len(snap) == 56


def test_16_6_empty_producer_snapshot() -> None:
    assert w.producer_snapshot([]) == _hex("00 01 48 67 4b c7 00 00 00 00")


def test_index_preallocated_slots() -> None:
    assert w.offset_index([(1, 2)], preallocated_slots=3) == _hex("0000000100000002") + bytes(24)
    assert w.time_index([], preallocated_slots=2) == bytes(24)


# ---------------------------------------------------------------------------------------------
# v2 batches through kafka-python
# ---------------------------------------------------------------------------------------------

RECS = [
    w.Rec(key=b"k0", value=b"v0" * 50, headers=[("h1", b"x"), (b"h2", None)], timestamp=TS + 5),
    w.Rec(key=None, value=b"null key", timestamp=TS - 1000),
    w.Rec(key=b"tombstone", value=None, timestamp=TS + 10**9),
    w.Rec(key=b"", value=b"", headers=[("\u00e9t\u00e9", b"\x00\xff")]),
    w.Rec(key=b"big", value=_prng(70000, seed=7), timestamp=TS + 7),  # > one LZ4 block
]

CODECS = [
    pytest.param(w.NONE, "xerial", id="none"),
    pytest.param(w.GZIP, "xerial", id="gzip"),
    pytest.param(w.SNAPPY, "xerial", id="snappy-xerial"),
    pytest.param(w.SNAPPY, "raw", id="snappy-raw"),
    pytest.param(w.LZ4, "xerial", id="lz4"),
    pytest.param(w.ZSTD, "xerial", id="zstd"),
]


def _expected_ts(rec: w.Rec, first: int) -> int:
    return first if rec.timestamp is None else rec.timestamp


@pytest.mark.parametrize(("codec", "framing"), CODECS)
def test_v2_roundtrip_kafka_python(codec: int, framing: str) -> None:
    data = w.v2_batch(
        RECS,
        base_offset=1234,
        partition_leader_epoch=7,
        codec=codec,
        snappy_framing=framing,
        producer_id=99,
        producer_epoch=3,
        base_sequence=500,
    )
    b = _one_batch(data)
    assert b.validate_crc()
    assert b.magic == 2
    assert b.compression_type == codec
    assert b.base_offset == 1234
    assert b.leader_epoch == 7
    assert b.last_offset_delta == len(RECS) - 1
    assert b.first_timestamp == TS + 5
    assert b.max_timestamp == TS + 10**9
    assert (b.producer_id, b.producer_epoch, b.base_sequence) == (99, 3, 500)
    assert b.records_count == len(RECS)
    assert not b.is_transactional and not b.is_control_batch
    assert b.timestamp_type == 0
    got = list(b)
    assert len(got) == len(RECS)
    for i, (r, exp) in enumerate(zip(got, RECS, strict=True)):
        assert r.offset == 1234 + i
        assert r.timestamp == _expected_ts(exp, TS + 5)
        assert r.key == exp.key
        assert r.value == exp.value
        assert r.headers == [(k if isinstance(k, str) else k.decode(), v) for k, v in exp.headers]
        assert r.validate_crc()


@pytest.mark.parametrize(("codec", "framing"), CODECS)
def test_v2_log_append_time_transactional(codec: int, framing: str) -> None:
    recs = [w.Rec(b"a", b"1", timestamp=TS), w.Rec(b"b", b"2", timestamp=TS + 1)]
    data = w.v2_batch(
        recs,
        codec=codec,
        snappy_framing=framing,
        log_append_time=TS + 999,
        transactional=True,
        producer_id=5,
        producer_epoch=0,
        base_sequence=0,
    )
    b = _one_batch(data)
    assert b.validate_crc()
    assert b.timestamp_type == 1
    assert b.is_transactional
    assert b.max_timestamp == TS + 999
    assert struct.unpack_from(">h", data, 21)[0] == 0x18 | codec
    assert [r.timestamp for r in b] == [TS + 999, TS + 999]
    # create time still recoverable from base + delta
    assert b.first_timestamp == TS


def test_v2_delete_horizon() -> None:
    horizon = TS + 86_400_000
    recs = [w.Rec(b"a", None, timestamp=TS), w.Rec(b"b", b"x", timestamp=TS + 50)]
    data = w.v2_batch(recs, delete_horizon_ms=horizon)
    b = _one_batch(data)
    assert b.validate_crc()
    assert b.attributes & 0x40
    assert b.first_timestamp == horizon  # baseTimestamp holds the horizon
    assert b.max_timestamp == TS + 50
    assert [r.timestamp for r in b] == [TS, TS + 50]  # deltas relative to the horizon
    delta = w.varlong(TS - horizon)
    assert data[61 + 2 : 61 + 2 + len(delta)] == delta


def test_v2_offset_deltas_and_overrides() -> None:
    recs = [w.Rec(b"a", b"1", offset_delta=0), w.Rec(b"b", b"2", offset_delta=5)]
    b = _one_batch(w.v2_batch(recs, base_offset=10))
    assert b.last_offset_delta == 5
    assert [r.offset for r in b] == [10, 15]
    # explicit last_offset_delta (compaction removed the tail)
    b = _one_batch(w.v2_batch(recs, base_offset=10, last_offset_delta=9))
    assert b.last_offset_delta == 9 and b.validate_crc()


def test_v2_broken_overrides() -> None:
    good = w.v2_batch([w.Rec(b"k", b"v")])
    bad_crc = w.v2_batch([w.Rec(b"k", b"v")], crc=0xDEADBEEF)
    assert bad_crc[17:21] == H("deadbeef") and bad_crc[21:] == good[21:]
    assert not _one_batch(bad_crc).validate_crc()
    lying = w.v2_batch([w.Rec(b"k", b"v")], records_count=2, max_timestamp=5, attributes_extra=0x80)
    b = _one_batch(lying)
    assert b.validate_crc()  # CRC is computed over the overridden header
    assert b.records_count == 2 and b.max_timestamp == 5 and b.attributes == 0x80


def test_v2_empty_batch() -> None:
    data = w.v2_batch(
        [],
        base_offset=5,
        last_offset_delta=2,
        producer_id=3000,
        producer_epoch=1,
        base_sequence=0,
        max_timestamp=TS,
    )
    assert len(data) == 61
    b = _one_batch(data)
    assert b.validate_crc()
    assert b.records_count == 0 and list(b) == []
    assert b.first_timestamp == -1 and b.max_timestamp == TS
    assert b.last_offset == 7


def test_v2_lz4_block_checksum_and_level() -> None:
    data = w.v2_batch(RECS, codec=w.LZ4, lz4_block_checksum=True, compress_level=12)
    assert data[61 + 4] == 0x70  # FLG with block checksum
    b = _one_batch(data)
    assert b.validate_crc()
    assert [r.value for r in b] == [r.value for r in RECS]


def test_kraft_control_batch() -> None:
    data = w.kraft_control_batch(
        [
            (w.CONTROL_SNAPSHOT_HEADER, w.snapshot_header_value(TS)),
            (w.CONTROL_KRAFT_VERSION, w.kraft_version_value(1)),
        ],
        partition_leader_epoch=4,
    )
    b = _one_batch(data)
    assert b.validate_crc()
    assert b.is_control_batch and not b.is_transactional
    assert b.producer_id == -1 and b.leader_epoch == 4
    got = list(b)
    assert [(r.version, r.type) for r in got] == [(0, 3), (0, 5)]
    assert got[0].value == w.snapshot_header_value(TS)


def test_end_txn_marker_kafka_python() -> None:
    b = _one_batch(
        w.end_txn_marker_batch(
            False, base_offset=7, producer_id=1, producer_epoch=0, coordinator_epoch=9
        )
    )
    assert b.validate_crc() and b.is_control_batch and b.is_transactional
    (r,) = list(b)
    assert r.abort and r.value == H("000000000009")


# ---------------------------------------------------------------------------------------------
# KRaft control values (hand-encoded expectations)
# ---------------------------------------------------------------------------------------------


def test_kraft_values() -> None:
    assert w.snapshot_header_value(TS) == H("00000000018bcfe5680000")
    assert w.snapshot_footer_value() == H("000000")
    assert w.kraft_version_value(1) == H("0000000100")
    assert w.leader_change_value(1, [1, 2, 3], [1, 2]) == H(
        "00000000000104000000010000000002000000000300030000000100000000020000"
    )
    dir_id = bytes(range(16))
    assert w.voters_value([(1, dir_id, [("CONTROLLER", "localhost", 9093)], 0, 1)]) == (
        H("00000200000001")
        + dir_id
        + H("020b")
        + b"CONTROLLER"
        + H("0a")
        + b"localhost"
        + H("23850000000001000000")
    )
    assert w.voters_value([]) == H("00000100")


# ---------------------------------------------------------------------------------------------
# Legacy messages through kafka-python
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("magic", [0, 1])
def test_legacy_uncompressed_roundtrip(magic: int) -> None:
    data = (
        w.legacy_message(magic, b"k", b"v", offset=10, timestamp=TS)
        + w.legacy_message(magic, None, b"nk", offset=11, timestamp=TS + 1)
        + w.legacy_message(magic, b"nv", None, offset=12, timestamp=TS + 2)
        + w.legacy_message(magic, b"lat", b"x", offset=13, timestamp=TS + 3, log_append_time=True)
    )
    batches = _batches(data)
    assert len(batches) == 4
    got = []
    for b in batches:
        assert isinstance(b, LegacyRecordBatch) and b.magic == magic
        assert b.validate_crc()
        got.extend(list(b))
    assert [r.offset for r in got] == [10, 11, 12, 13]
    assert [(r.key, r.value) for r in got] == [
        (b"k", b"v"),
        (None, b"nk"),
        (b"nv", None),
        (b"lat", b"x"),
    ]
    if magic == 1:
        assert [r.timestamp for r in got] == [TS, TS + 1, TS + 2, TS + 3]
        assert [r.timestamp_type for r in got] == [0, 0, 0, 1]
    else:
        assert [r.timestamp for r in got] == [None] * 4
        assert all(data[pos + 17] == 0 for pos, *_ in _entries(data))  # v0: no bit 3


def test_legacy_crc_override() -> None:
    m = w.legacy_message(1, b"k", b"v", crc=1)
    assert m[12:16] == H("00000001")
    (b,) = _batches(m)
    assert not b.validate_crc()


LEGACY_CODECS = [
    pytest.param(w.GZIP, "xerial", id="gzip"),
    pytest.param(w.SNAPPY, "xerial", id="snappy-xerial"),
    pytest.param(w.SNAPPY, "raw", id="snappy-raw"),
    pytest.param(w.LZ4, "xerial", id="lz4"),
]


@pytest.mark.usefixtures("old_kafka_lz4")
@pytest.mark.parametrize(("codec", "framing"), LEGACY_CODECS)
@pytest.mark.parametrize("magic", [0, 1])
def test_legacy_compressed_roundtrip(magic: int, codec: int, framing: str) -> None:
    msgs = [
        w.Rec(f"k{i}".encode(), f"value {i}".encode() * 30, timestamp=TS + 10 * i) for i in range(5)
    ]
    msgs[2].key = None
    data = w.legacy_compressed(magic, msgs, last_offset=104, codec=codec, snappy_framing=framing)
    (b,) = _batches(data)
    assert isinstance(b, LegacyRecordBatch)
    assert b.validate_crc()
    assert b.magic == magic and b.compression_type == codec
    assert b.base_offset == 104  # wrapper offset = last inner offset
    got = list(b)
    assert [r.offset for r in got] == [100, 101, 102, 103, 104]
    assert [(r.key, r.value) for r in got] == [(m.key, m.value) for m in msgs]
    if magic == 1:
        assert [r.timestamp for r in got] == [TS + 10 * i for i in range(5)]
        assert struct.unpack_from(">q", data, 18)[0] == TS + 40  # wrapper = max inner
    for r in got:
        assert r.validate_crc()


@pytest.mark.parametrize("magic", [0, 1])
def test_legacy_inner_offsets(magic: int) -> None:
    msgs = [w.Rec(b"a", b"1", timestamp=TS), w.Rec(b"b", b"2", timestamp=TS)]
    data = w.legacy_compressed(magic, msgs, last_offset=50, codec=w.GZIP)
    inner = gzip.decompress(data[(18 if magic == 0 else 26) + 8 :])
    offsets = [struct.unpack_from(">q", inner, pos)[0] for pos, *_ in _entries(inner)]
    assert offsets == ([49, 50] if magic == 0 else [0, 1])
    forced = w.legacy_compressed(
        magic, msgs, last_offset=50, codec=w.GZIP, inner_relative_offsets=magic == 0
    )
    inner = gzip.decompress(forced[(18 if magic == 0 else 26) + 8 :])
    offsets = [struct.unpack_from(">q", inner, pos)[0] for pos, *_ in _entries(inner)]
    assert offsets == ([0, 1] if magic == 0 else [49, 50])


def test_legacy_log_append_time_wrapper() -> None:
    msgs = [w.Rec(b"a", b"1", timestamp=TS), w.Rec(b"b", b"2", timestamp=TS + 1)]
    data = w.legacy_compressed(
        1, msgs, last_offset=1, codec=w.SNAPPY, wrapper_timestamp=TS + 500, log_append_time=True
    )
    assert data[17] == 0x08 | w.SNAPPY
    (b,) = _batches(data)
    assert b.validate_crc()
    got = list(b)
    assert [r.timestamp for r in got] == [TS + 500, TS + 500]
    assert [r.timestamp_type for r in got] == [1, 1]


def test_legacy_invalid_inputs() -> None:
    with pytest.raises(ValueError):
        w.legacy_compressed(1, [w.Rec(b"a", b"b")], last_offset=0, codec=w.ZSTD)
    with pytest.raises(ValueError):
        w.legacy_message(2, b"a", b"b")
    forced = w.legacy_compressed(
        1, [w.Rec(b"a", b"b")], last_offset=0, codec=w.ZSTD, allow_zstd=True
    )
    assert forced[17] & 0x07 == w.ZSTD


# ---------------------------------------------------------------------------------------------
# Compression framing details
# ---------------------------------------------------------------------------------------------


def test_lz4_frame_layout_and_lz4_frame_decompress() -> None:
    compressible = b"kafka " * 30000  # 180 000 bytes -> blocks of 65536, 65536, 48928
    frame = w.lz4_frame(compressible)
    assert frame[:7] == H("04224d18604082")
    assert frame[-4:] == bytes(4)
    assert lz4.frame.decompress(frame) == compressible
    incompressible = _prng(70000)
    frame = w.lz4_frame(incompressible)
    assert lz4.frame.decompress(frame) == incompressible
    (word,) = struct.unpack_from("<I", frame, 7)
    assert word == 0x80000000 | 65536  # stored block
    (word2,) = struct.unpack_from("<I", frame, 7 + 4 + 65536)
    assert word2 == 0x80000000 | (70000 - 65536)
    assert len(frame) == 7 + 4 + 65536 + 4 + (70000 - 65536) + 4
    assert w.lz4_frame(b"") == H("04224d18604082") + bytes(4)


def test_lz4_frame_block_checksum_and_sizes() -> None:
    data = (b"abc" * 50000) + _prng(5000)
    for bsid in (4, 5, 6, 7):
        frame = w.lz4_frame(data, block_checksum=True, block_size_id=bsid)
        assert frame[4:6] == bytes([0x70, bsid << 4])
        assert lz4.frame.decompress(frame) == data


def test_snappy_xerial_chunks() -> None:
    data = b"".join(b"record %06d;" % i for i in range(8000))
    framed = w.snappy_compress(data)
    assert framed[:16] == H("82534e415050590000000001 00000001".replace(" ", ""))
    pos, chunks = 16, []
    while pos < len(framed):
        (n,) = struct.unpack_from(">i", framed, pos)
        chunks.append(snappy.decompress(framed[pos + 4 : pos + 4 + n]))
        pos += 4 + n
    assert len(data) == 112000
    assert [len(c) for c in chunks] == [32768, 32768, 32768, 112000 - 3 * 32768]
    assert b"".join(chunks) == data
    assert snappy.decompress(w.snappy_compress(data, "raw")) == data
    assert w.snappy_compress(b"") == framed[:16]
    with pytest.raises(ValueError):
        w.snappy_compress(data, "framed")


def test_gzip_stream() -> None:
    data = b"gzip me " * 1000
    g = w.gzip_compress(data)
    assert g[:10] == H("1f8b08000000000000ff")  # FLG 0, MTIME 0, XFL 0, OS 255
    assert gzip.decompress(g) == data
    assert zlib.decompress(g, 31) == data
    assert gzip.decompress(w.gzip_compress(data, 1)) == data


def test_zstd_frame() -> None:
    data = b"zstd " * 5000
    z = w.zstd_compress(data)
    assert z[:4] == H("28b52ffd")
    params = zstandard.get_frame_parameters(z)
    assert params.content_size == zstandard.CONTENTSIZE_UNKNOWN  # streamed, like zstd-jni
    assert not params.has_checksum
    assert zstandard.ZstdDecompressor().decompressobj().decompress(z) == data


def test_compress_unknown_codec() -> None:
    with pytest.raises(ValueError):
        w.compress(5, b"x")


# ---------------------------------------------------------------------------------------------
# Text files
# ---------------------------------------------------------------------------------------------


def test_checkpoints() -> None:
    assert w.offset_checkpoint([("my-topic", 0, 1234), ("my-topic", 1, 98)]) == (
        b"0\n2\nmy-topic 0 1234\nmy-topic 1 98\n"
    )
    assert w.offset_checkpoint([]) == b"0\n0\n"
    assert w.leader_epoch_checkpoint([(0, 0), (3, 120)]) == b"0\n2\n0 0\n3 120\n"


def test_partition_metadata() -> None:
    assert w.partition_metadata(bytes(15) + b"\x01") == (
        b"version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ"
    )


def test_meta_properties() -> None:
    out = w.meta_properties({"version": "1", "node.id": "1", "cluster.id": "abc"})
    assert out == b"#\n#Tue Nov 14 22:13:20 UTC 2023\nversion=1\nnode.id=1\ncluster.id=abc\n"
    esc = w.meta_properties({"a b": " x=y:z#!\\"}, date="D")
    assert esc == b"#\n#D\na\\ b=\\ x\\=y\\:z\\#\\!\\\\\n"


# ---------------------------------------------------------------------------------------------
# PartitionWriter
# ---------------------------------------------------------------------------------------------


def _hundred_byte_batch(offset: int, ts: int, **kw: Any) -> bytes:
    b = w.v2_batch([w.Rec(None, b"v" * 32, timestamp=ts)], base_offset=offset, **kw)
    assert len(b) == 100
    return b


def _read_index(path: Path) -> list[tuple[int, int]]:
    data = path.read_bytes()
    return [struct.unpack_from(">ii", data, i) for i in range(0, len(data), 8)]


def _read_timeindex(path: Path) -> list[tuple[int, int]]:
    data = path.read_bytes()
    return [struct.unpack_from(">qi", data, i) for i in range(0, len(data), 12)]


def test_partition_writer_index_and_roll(tmp_path: Path) -> None:
    pw = w.PartitionWriter(tmp_path, segment_bytes=1000, index_interval_bytes=250)
    for off in range(25):
        pw.append(_hundred_byte_batch(off, TS + 1000 * off))
    files = pw.close()
    names = sorted(p.name for p in files)
    assert names == sorted(
        f"{base:020d}.{ext}" for base in (0, 10, 20) for ext in ("log", "index", "timeindex")
    )
    # entry when > 250 bytes were appended since the last one: batches 3, 6, 9 (positions)
    assert _read_index(tmp_path / f"{0:020d}.index") == [(3, 300), (6, 600), (9, 900)]
    assert _read_index(tmp_path / f"{10:020d}.index") == [(3, 300), (6, 600), (9, 900)]
    assert _read_index(tmp_path / f"{20:020d}.index") == [(3, 300)]
    # time index: same points, plus the final entry on roll/close when strictly greater
    assert _read_timeindex(tmp_path / f"{0:020d}.timeindex") == [
        (TS + 3000, 3),
        (TS + 6000, 6),
        (TS + 9000, 9),
    ]
    assert _read_timeindex(tmp_path / f"{20:020d}.timeindex") == [(TS + 23000, 3), (TS + 24000, 4)]
    assert (tmp_path / f"{10:020d}.log").stat().st_size == 1000
    assert pw.log_end_offset == 25


def test_partition_writer_time_index_only_increases(tmp_path: Path) -> None:
    pw = w.PartitionWriter(tmp_path, index_interval_bytes=150)
    stamps = [TS + 50, TS + 10, TS + 10, TS + 5, TS + 60, TS + 60, TS + 1]
    for off, ts in enumerate(stamps):
        pw.append(_hundred_byte_batch(off, ts))
    pw.close()
    # index points after batches 0+1 (200 > 150): batch 2, then batch 4, then batch 6
    assert _read_index(tmp_path / f"{0:020d}.index") == [(2, 200), (4, 400), (6, 600)]
    # (max so far, its offset) only when strictly greater: (TS+50, 0) at batch 2, (TS+60, 4)
    assert _read_timeindex(tmp_path / f"{0:020d}.timeindex") == [(TS + 50, 0), (TS + 60, 4)]


def test_partition_writer_preallocated(tmp_path: Path) -> None:
    pw = w.PartitionWriter(
        tmp_path,
        segment_bytes=300,
        index_interval_bytes=50,
        preallocate_active_index=True,
        active_index_slots=5,
    )
    for off in range(5):
        pw.append(_hundred_byte_batch(off, TS + off))
    pw.close()
    # closed segment 0 trimmed; active segment 3 padded to 5 slots, no final time entry
    assert _read_index(tmp_path / f"{0:020d}.index") == [(1, 100), (2, 200)]
    assert _read_timeindex(tmp_path / f"{0:020d}.timeindex") == [(TS + 1, 1), (TS + 2, 2)]
    idx = (tmp_path / f"{3:020d}.index").read_bytes()
    assert len(idx) == 40 and idx[8:] == bytes(32)
    assert _read_index(tmp_path / f"{3:020d}.index")[0] == (1, 100)
    tidx = (tmp_path / f"{3:020d}.timeindex").read_bytes()
    assert len(tidx) == 60 and tidx[12:] == bytes(48)


def test_partition_writer_default_preallocation(tmp_path: Path) -> None:
    pw = w.PartitionWriter(tmp_path, preallocate_active_index=True)
    pw.append(_hundred_byte_batch(0, TS))
    pw.close()
    assert (tmp_path / f"{0:020d}.index").stat().st_size == 10485760
    assert (tmp_path / f"{0:020d}.timeindex").stat().st_size == 10485756


def test_partition_writer_explicit_roll_and_legacy(tmp_path: Path) -> None:
    pw = w.PartitionWriter(tmp_path, segment_bytes=50)
    pw.append(w.legacy_message(0, b"a", b"b", offset=0))
    pw.append(
        w.legacy_compressed(
            1, [w.Rec(b"k", b"v" * 100, timestamp=TS)] * 3, last_offset=3, codec=w.GZIP
        )
    )  # rolls; base = LEO = 1
    pw.roll()
    pw.roll()  # no-op on an empty segment at the log end offset
    pw.append(_hundred_byte_batch(10, TS))
    files = pw.close()
    assert sorted({p.name.split(".")[0] for p in files}) == [f"{0:020d}", f"{1:020d}", f"{4:020d}"]
    assert _read_timeindex(tmp_path / f"{1:020d}.timeindex") == [(TS, 2)]
    assert _read_timeindex(tmp_path / f"{0:020d}.timeindex") == []  # v0: no timestamps
    assert (tmp_path / f"{4:020d}.log").read_bytes()[:8] == struct.pack(">q", 10)


def test_partition_writer_transactions(tmp_path: Path) -> None:
    pw = w.PartitionWriter(tmp_path)

    def data(base: int, n: int, pid: int, seq: int, txn: bool = True, ple: int = 0) -> None:
        recs = [w.Rec(b"k", b"v", timestamp=TS + base) for _ in range(n)]
        pw.append(
            w.v2_batch(
                recs,
                base_offset=base,
                producer_id=pid,
                producer_epoch=1,
                base_sequence=seq,
                transactional=txn,
                partition_leader_epoch=ple,
            )
        )

    def marker(base: int, commit: bool, pid: int, ple: int = 0) -> None:
        pw.append(
            w.end_txn_marker_batch(
                commit,
                base_offset=base,
                producer_id=pid,
                producer_epoch=1,
                coordinator_epoch=4,
                partition_leader_epoch=ple,
                timestamp=TS + base,
            )
        )

    data(0, 3, 10, 0)  # pid 10 txn starts at 0
    data(3, 2, 20, 0, ple=2)  # pid 20 txn starts at 3
    marker(5, False, 10, ple=2)  # abort pid 10: LSO = 3 (pid 20 still open)
    data(6, 1, 30, 0, txn=False, ple=5)  # idempotent only
    marker(7, True, 20, ple=5)
    data(8, 2, 10, 3, ple=5)  # pid 10 txn starts at 8
    marker(10, False, 10, ple=5)  # abort: nobody else open -> LSO = 11
    marker(11, True, 10, ple=5)  # marker without an open txn: no index entry
    pw.write_producer_snapshot()
    pw.write_leader_epoch_checkpoint()
    files = pw.close()
    assert (tmp_path / f"{0:020d}.txnindex").read_bytes() == w.txn_index(
        [(10, 0, 5, 3), (10, 8, 10, 11)]
    )
    assert (tmp_path / f"{0:020d}.txnindex") in files
    snap = (tmp_path / f"{12:020d}.snapshot").read_bytes()
    assert snap == w.producer_snapshot(
        [
            w.ProducerEntry(10, 1, 4, 9, 1, TS + 11, 4, -1),
            w.ProducerEntry(20, 1, 1, 4, 1, TS + 7, 4, -1),
            w.ProducerEntry(30, 1, 0, 6, 0, TS + 6, -1, -1),
        ]
    )
    assert crc32c.crc32c(snap[6:]) == struct.unpack_from(">I", snap, 2)[0]
    assert (tmp_path / "leader-epoch-checkpoint").read_bytes() == b"0\n3\n0 0\n2 3\n5 6\n"


def test_partition_writer_open_txn_and_epoch_bump(tmp_path: Path) -> None:
    pw = w.PartitionWriter(tmp_path)
    pw.append(
        w.v2_batch(
            [w.Rec(b"a", b"b")] * 2,
            base_offset=0,
            producer_id=7,
            producer_epoch=0,
            base_sequence=2147483647,
            transactional=True,
        )
    )
    snap = pw.write_producer_snapshot()
    # sequence wraps: 2147483647 + 1 -> 0
    assert snap.read_bytes() == w.producer_snapshot([w.ProducerEntry(7, 0, 0, 1, 1, TS, -1, 0)])
    # fenced: marker at a newer epoch drops the batch metadata
    pw.append(
        w.end_txn_marker_batch(
            False,
            base_offset=2,
            producer_id=7,
            producer_epoch=1,
            coordinator_epoch=2,
            timestamp=TS + 9,
        )
    )
    snap = pw.write_producer_snapshot()
    assert snap.name == f"{3:020d}.snapshot"
    assert snap.read_bytes() == w.producer_snapshot(
        [w.ProducerEntry(7, 1, -1, -1, 0, TS + 9, 2, -1)]
    )
    pw.close()
    assert (tmp_path / f"{0:020d}.txnindex").read_bytes() == w.txn_index([(7, 0, 2, 3)])


def test_partition_writer_leader_epochs(tmp_path: Path) -> None:
    pw = w.PartitionWriter(tmp_path)
    for off, ple in [(0, 0), (1, 0), (2, 2), (3, 2), (4, 5), (5, -1)]:
        pw.append(_hundred_byte_batch(off, TS, partition_leader_epoch=ple))
    assert pw.leader_epochs == [(0, 0), (2, 2), (5, 4)]
    # a lower epoch truncates the conflicting tail (divergent history)
    pw.append(_hundred_byte_batch(6, TS, partition_leader_epoch=3))
    assert pw.leader_epochs == [(0, 0), (2, 2), (3, 6)]
    # a magic < 2 append clears the cache
    pw.append(w.legacy_message(1, b"k", b"v", offset=7, timestamp=TS))
    assert pw.leader_epochs == []
    pw.append(_hundred_byte_batch(8, TS, partition_leader_epoch=3))
    assert pw.write_leader_epoch_checkpoint().read_bytes() == b"0\n1\n3 8\n"
    pw.close()


def test_partition_writer_snapshot_on_roll(tmp_path: Path) -> None:
    pw = w.PartitionWriter(tmp_path, segment_bytes=100, snapshot_on_roll=True)
    for off in range(3):
        pw.append(_hundred_byte_batch(off, TS))
    pw.close()
    assert sorted(p.name for p in tmp_path.glob("*.snapshot")) == [
        f"{1:020d}.snapshot",
        f"{2:020d}.snapshot",
    ]
    assert (tmp_path / f"{1:020d}.snapshot").read_bytes() == w.producer_snapshot([])


def test_partition_writer_rejects_use_after_close(tmp_path: Path) -> None:
    pw = w.PartitionWriter(tmp_path)
    pw.append(_hundred_byte_batch(0, TS))
    pw.close()
    with pytest.raises(RuntimeError):
        pw.append(_hundred_byte_batch(1, TS))


# ---------------------------------------------------------------------------------------------
# Sample log dir, big segment, CLI
# ---------------------------------------------------------------------------------------------


def _check_segment_files(part: Path) -> None:
    """Cross-check every segment's indexes against its log (DumpLogSegments-style)."""
    for log in sorted(part.glob("*.log")):
        base = int(log.name.split(".")[0])
        data = log.read_bytes()
        entries = _entries(data)
        by_pos = {pos: last for pos, _, _, last in entries}
        idx = _read_index(log.with_suffix(".index"))
        for rel, pos in idx:
            assert pos > 0 and by_pos[pos] == base + rel
        assert [r for r, _ in idx] == sorted({r for r, _ in idx})
        tidx = _read_timeindex(log.with_suffix(".timeindex"))
        assert [t for t, _ in tidx] == sorted({t for t, _ in tidx})
        lasts = {last for *_, last in entries}
        for _, rel in tidx:
            assert base + rel in lasts
        assert entries == [] or entries[0][3] >= base


def _read_all(part: Path) -> list[tuple[int, int, bytes | None, bytes | None]]:
    out = []
    for log in sorted(part.glob("*.log")):
        for b in _batches(log.read_bytes()):
            assert b.validate_crc()
            for r in b:
                assert r.validate_crc() if isinstance(b, LegacyRecordBatch) else True
                out.append((r.offset, r.timestamp, r.key, r.value))
    return out


@pytest.mark.usefixtures("old_kafka_lz4")
def test_sample_logdir(tmp_path: Path) -> None:
    root = tmp_path / "logdir"
    w.write_sample_logdir(root)
    for name in (
        "meta.properties",
        "recovery-point-offset-checkpoint",
        "replication-offset-checkpoint",
        "log-start-offset-checkpoint",
        "cleaner-offset-checkpoint",
        ".lock",
        ".kafka_cleanshutdown",
    ):
        assert (root / name).is_file(), name
    for part in ("orders-0", "orders-1"):
        assert (root / part / "leader-epoch-checkpoint").is_file()
        assert (root / part / "partition.metadata").read_bytes().startswith(b"version: 0\n")
        _check_segment_files(root / part)
    orders0 = root / "orders-0"
    assert len(list(orders0.glob("*.log"))) >= 3
    txnindexes = list(orders0.glob("*.txnindex"))
    assert len(txnindexes) == 1 and txnindexes[0].stat().st_size % 34 == 0
    assert list(orders0.glob("*.snapshot"))
    # codecs present in orders-0 (attributes low bits) and control batches
    codecs, framings, markers = set(), set(), []
    for log in orders0.glob("*.log"):
        data = log.read_bytes()
        for pos, _size, magic, _ in _entries(data):
            assert magic == 2
            attrs = struct.unpack_from(">h", data, pos + 21)[0]
            codecs.add(attrs & 7)
            if attrs & 7 == w.SNAPPY:
                framings.add(data[pos + 61 : pos + 69] == w.XERIAL_MAGIC)
            if attrs & 0x20:
                markers.append(struct.unpack_from(">h", data, pos + 61 + 5 + 2)[0])
    assert codecs == {0, 1, 2, 3, 4}
    assert framings == {True, False}
    assert 0 in markers and 1 in markers
    # the aborted transactions in the txnindex end at ABORT markers
    ends = {
        struct.unpack_from(">q", txnindexes[0].read_bytes(), i + 18)[0]
        for i in range(0, txnindexes[0].stat().st_size, 34)
    }
    aborts = set()
    for log in orders0.glob("*.log"):
        for b in _batches(log.read_bytes()):
            if b.is_control_batch:
                aborts |= {r.offset for r in b if r.abort}
    assert ends == aborts
    # every record readable, offsets strictly increasing per partition
    for part in ("orders-0", "orders-1", "customers-0"):
        offsets = [o for o, *_ in _read_all(root / part)]
        assert offsets == sorted(set(offsets)) and offsets
    # checkpoints agree with the logs
    rp = (root / "recovery-point-offset-checkpoint").read_text().split("\n")
    assert rp[0] == "0" and int(rp[1]) == len([ln for ln in rp[2:] if ln])
    # orders-1 mixes magics 0, 1 and 2
    magics = {
        m for log in (root / "orders-1").glob("*.log") for _, _, m, _ in _entries(log.read_bytes())
    }
    assert magics == {0, 1, 2}


def test_sample_logdir_deterministic(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    w.write_sample_logdir(a)
    w.write_sample_logdir(b)
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert files_a == files_b
    for rel in files_a:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel


def test_cli_sample(tmp_path: Path) -> None:
    target = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, str(WRITER), "sample", str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert (target / "meta.properties").is_file()
    r = subprocess.run(
        [sys.executable, str(WRITER), "sample", str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode != 0 and "non-empty" in r.stderr
    r = subprocess.run([sys.executable, str(WRITER)], capture_output=True, text=True, check=False)
    assert r.returncode == 2


@pytest.mark.parametrize("codec", [w.NONE, w.LZ4])
def test_big_segment(tmp_path: Path, codec: int) -> None:
    part = tmp_path / "big-0"
    w.big_segment(part, 300_000, records_per_batch=50, value_size=40, codec=codec)
    log = part / f"{0:020d}.log"
    data = log.read_bytes()
    assert len(data) >= 300_000
    entries = _entries(data)
    assert len(data) - entries[-1][1] < 300_000  # stopped right after crossing the target
    assert sorted(p.name for p in part.iterdir()) == [
        f"{0:020d}.index",
        f"{0:020d}.log",
        f"{0:020d}.timeindex",
    ]
    _check_segment_files(part)
    assert len(_read_index(part / f"{0:020d}.index")) > 10
    batches = _batches(data)
    assert all(b.validate_crc() for b in batches)
    first = list(batches[0])
    assert len(first) == 50 and len(first[0].value) == 40 and first[0].key == b"k0"
    assert [r.offset for r in batches[-1]][-1] == 50 * len(batches) - 1
