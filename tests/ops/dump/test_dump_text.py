"""``kdump dump --format text``: DumpLogSegments' exact lines.

Every expectation below is derived from core/src/main/scala/kafka/tools/DumpLogSegments.scala
(apache/kafka trunk) and the Java classes it calls; the comment on each test names the
Scala/Java fact.  Fixtures are built only with tests/writer.py.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tests.support import golden_util as g
from tests.support import writer as w

TS = w.DEFAULT_TIMESTAMP
SEED_TS = 1524709879130
LOG0 = "00000000000000000000.log"


def crc_of(entry: bytes) -> int:
    """The CRC field as stored by the writer (v2: CRC-32C at 17; v0/v1: CRC-32 at 12)."""
    return struct.unpack_from(">I", entry, 17 if entry[16] == 2 else 12)[0]


def write(d: Path, name: str, data: bytes) -> Path:
    p = d / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
    return p


def v2_line(batch: bytes, *, position: int = 0, valid: bool = True, codec: str = "none") -> str:
    """printBatchLevel for a v2 batch, from the header fields the writer put in ``batch``."""
    (base, length, ple, _magic, crc, attrs, lod, first_ts, max_ts, pid, pepoch, bseq, count) = (
        struct.unpack_from(">qiibIhiqqqhii", batch, 0))
    last_seq = -1 if bseq == -1 else (bseq + lod if bseq <= 2**31 - 1 - lod
                                      else lod - (2**31 - 1 - bseq) - 1)
    horizon = f"OptionalLong[{first_ts}]" if attrs & 0x40 else "OptionalLong.empty"
    ts_type = "LogAppendTime" if attrs & 0x08 else "CreateTime"
    return (
        f"baseOffset: {base} lastOffset: {base + lod} count: {count} baseSequence: {bseq} "
        f"lastSequence: {last_seq} producerId: {pid} producerEpoch: {pepoch} "
        f"partitionLeaderEpoch: {ple} isTransactional: {str(bool(attrs & 0x10)).lower()} "
        f"isControl: {str(bool(attrs & 0x20)).lower()} deleteHorizonMs: {horizon} "
        f"position: {position} {ts_type}: {max_ts} size: {length + 12} magic: 2 "
        f"compresscodec: {codec} crc: {crc} isvalid: {str(valid).lower()}"
    )


def dump(kdump, d: Path, *args: str):
    return kdump("dump", *args, cwd=d)


# ---------------------------------------------------------------------------------------
# seed vectors: the published DumpLogSegments output, byte for byte
# ---------------------------------------------------------------------------------------


def test_seed_v2_batch_byte_for_byte(kdump, tmp_path: Path) -> None:
    batch = w.v2_batch([w.Rec(b"key", b"value", timestamp=SEED_TS)], partition_leader_epoch=0)
    write(tmp_path, LOG0, batch)
    r = dump(kdump, tmp_path, "--print-data-log", LOG0)
    assert r.out == (
        "Dumping 00000000000000000000.log\n"
        "Log starting offset: 0\n"
        "baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 "
        "producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false "
        "deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1524709879130 size: 76 "
        "magic: 2 compresscodec: none crc: 2857248333 isvalid: true\n"
        "| offset: 0 CreateTime: 1524709879130 keySize: 3 valueSize: 5 sequence: -1 "
        "headerKeys: [] key: key payload: value\n"
    )
    assert (r.rc, r.err) == (0, "")


def test_seed_v0_message_byte_for_byte(kdump, tmp_path: Path) -> None:
    write(tmp_path, LOG0, w.legacy_message(0, b"key", b"value"))
    r = dump(kdump, tmp_path, LOG0)
    assert r.out == (
        "Dumping 00000000000000000000.log\n"
        "Log starting offset: 0\n"
        "offset: 0 position: 0 NoTimestampType: -1 size: 34 magic: 0 compresscodec: none "
        "crc: 592888119 isvalid: true\n"
    )
    assert (r.rc, r.err) == (0, "")


def test_formats_16_1_vector_text(kdump, tmp_path: Path) -> None:
    # FORMATS.md §16.1, verbatim hex: CRC-32C 0xDB5E9CDD
    raw = bytes.fromhex(
        "0000000000000000000000400000000002db5e9cdd0000000000000000018bcfe568000000018bcfe568"
        "00ffffffffffffffffffffffffffff000000011c000000066b65790a76616c756500")
    write(tmp_path, LOG0, raw)
    r = dump(kdump, tmp_path, "--print-data-log", LOG0)
    assert r.lines[2] == v2_line(raw)
    assert f"crc: {0xDB5E9CDD} isvalid: true" in r.lines[2]
    assert r.lines[3] == ("| offset: 0 CreateTime: 1700000000000 keySize: 3 valueSize: 5 "
                          "sequence: -1 headerKeys: [] key: key payload: value")


def test_formats_16_2_legacy_vectors_text(kdump, tmp_path: Path) -> None:
    v0 = bytes.fromhex("000000000000000000000016" "2356c137" "00" "00" "000000036b6579"
                       "0000000576616c7565")
    v1 = bytes.fromhex("00000000000000010000001e" "6ad05db8" "01" "00" "0000018bcfe56800"
                       "000000036b6579" "0000000576616c7565")
    write(tmp_path, LOG0, v0 + v1)
    r = dump(kdump, tmp_path, "--print-data-log", LOG0)
    assert r.lines[2:] == [
        "offset: 0 position: 0 NoTimestampType: -1 size: 34 magic: 0 compresscodec: none "
        f"crc: {0x2356C137} isvalid: true",
        f"| offset: 0 NoTimestampType: -1 keySize: 3 valueSize: 5 isValid: true crc: {0x2356C137}}}"
        " key: key payload: value",
        "offset: 1 position: 34 CreateTime: 1700000000000 size: 42 magic: 1 compresscodec: none "
        f"crc: {0x6AD05DB8} isvalid: true",
        f"| offset: 1 CreateTime: 1700000000000 keySize: 3 valueSize: 5 isValid: true "
        f"crc: {0x6AD05DB8}}} key: key payload: value",
    ]


def test_formats_16_3_commit_marker_text(kdump, tmp_path: Path) -> None:
    raw = bytes.fromhex(
        "000000000000002a0000004200000003" "02a7d9b82a" "0030" "00000000" "0000018bcfe56800"
        "0000018bcfe56800" "00000000000003e8" "0002" "ffffffff" "00000001" "20000000"
        "0800000001" "0c000000000005" "00")
    write(tmp_path, "00000000000000000042.log", raw)
    r = dump(kdump, tmp_path, "--print-data-log", "00000000000000000042.log")
    assert r.lines[1] == "Log starting offset: 42"
    assert r.lines[2] == (
        "baseOffset: 42 lastOffset: 42 count: 1 baseSequence: -1 lastSequence: -1 "
        "producerId: 1000 producerEpoch: 2 partitionLeaderEpoch: 3 isTransactional: true "
        "isControl: true deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000000 "
        f"size: 78 magic: 2 compresscodec: none crc: {0xA7D9B82A} isvalid: true")
    # control batches: no key/payload even with --print-data-log
    assert r.lines[3] == ("| offset: 42 CreateTime: 1700000000000 keySize: 4 valueSize: 6 "
                          "sequence: -1 headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 5")
    assert r.rc == 0


@pytest.mark.parametrize(
    ("codec", "name", "hexdata"),
    [
        ("lz4", "16.4",
         "00000000000000000000004f000000000252cd43460003000000000000018bcfe568000000018bcfe56800"
         "ffffffffffffffffffffffffffff0000000104224d186040820f0000801c000000066b65790a76616c7565"
         "0000000000"),
        ("snappy", "16.5",
         "00000000000000000000005600000000021e8178b00002000000000000018bcfe568000000018bcfe56800"
         "ffffffffffffffffffffffffffff0000000182534e41505059000000000100000001000000110f381c0000"
         "00066b65790a76616c756500"),
    ],
)
def test_formats_compressed_vectors_text(kdump, tmp_path: Path, codec: str, name: str,
                                         hexdata: str) -> None:
    raw = bytes.fromhex(hexdata)
    write(tmp_path, LOG0, raw)
    r = dump(kdump, tmp_path, "--print-data-log", LOG0)
    assert r.lines[2] == v2_line(raw, codec=codec), name
    assert r.lines[3].endswith("keySize: 3 valueSize: 5 sequence: -1 headerKeys: [] key: key "
                               "payload: value"), name
    assert (r.rc, r.err) == (0, "")


# ---------------------------------------------------------------------------------------
# record lines (dumpLog)
# ---------------------------------------------------------------------------------------


def _mixed_batch() -> bytes:
    return w.v2_batch(
        [
            w.Rec(b"k0", b"v0", headers=[("h1", b"x"), ("h2", None)]),
            w.Rec(None, b"v1"),
            w.Rec(b"k2", None),
            w.Rec(None, None),
            w.Rec(b"", b"", headers=[("caf\u00e9", b"")]),
        ],
        first_timestamp=TS,
    )


def test_record_lines_print_data_log(kdump, tmp_path: Path) -> None:
    # prefix "| " then " key: K" / " payload: V" only for non-null key / value
    write(tmp_path, LOG0, _mixed_batch())
    r = dump(kdump, tmp_path, "--print-data-log", LOG0)
    meta = "| offset: {o} CreateTime: 1700000000000 keySize: {k} valueSize: {v} sequence: -1"
    assert r.lines[3:] == [
        meta.format(o=0, k=2, v=2) + " headerKeys: [h1,h2] key: k0 payload: v0",
        meta.format(o=1, k=-1, v=2) + " headerKeys: [] payload: v1",
        meta.format(o=2, k=2, v=-1) + " headerKeys: [] key: k2",
        meta.format(o=3, k=-1, v=-1) + " headerKeys: []",
        meta.format(o=4, k=0, v=0) + " headerKeys: [caf\u00e9] key:  payload: ",
    ]


def test_record_lines_deep_iteration_without_contents(kdump, tmp_path: Path) -> None:
    write(tmp_path, LOG0, _mixed_batch())
    r = dump(kdump, tmp_path, "--deep-iteration", LOG0)
    assert r.lines[3] == ("| offset: 0 CreateTime: 1700000000000 keySize: 2 valueSize: 2 "
                          "sequence: -1 headerKeys: [h1,h2]")
    assert len(r.lines) == 3 + 5
    assert not any("payload" in line or "key:" in line for line in r.lines)


def test_shallow_iteration_prints_batches_only(kdump, tmp_path: Path) -> None:
    write(tmp_path, LOG0, _mixed_batch())
    r = dump(kdump, tmp_path, LOG0)
    assert len(r.lines) == 3
    assert r.lines[2].startswith("baseOffset: 0 lastOffset: 4 count: 5 ")


def test_skip_record_metadata_prefix_quirk(kdump, tmp_path: Path) -> None:
    # var prefix = "| "; the key sets prefix = " "; the payload always prints " payload: "
    write(tmp_path, LOG0, _mixed_batch())
    r = dump(kdump, tmp_path, "--print-data-log", "--skip-record-metadata", LOG0)
    assert r.lines[3:] == [
        "| key: k0 payload: v0",
        " payload: v1",
        "| key: k2",
        "",
        "| key:  payload: ",
    ]


def test_skip_record_metadata_without_contents_prints_empty_lines(kdump, tmp_path: Path) -> None:
    write(tmp_path, LOG0, _mixed_batch())
    r = dump(kdump, tmp_path, "--deep-iteration", "--skip-record-metadata", LOG0)
    assert r.out.endswith("isvalid: true\n\n\n\n\n\n")
    assert r.lines[3:] == [""] * 5


def test_skip_record_metadata_control_batch_line_is_empty(kdump, tmp_path: Path) -> None:
    marker = w.end_txn_marker_batch(False, base_offset=0, producer_id=5, producer_epoch=1,
                                    coordinator_epoch=9)
    write(tmp_path, LOG0, marker)
    r = dump(kdump, tmp_path, "--print-data-log", "--skip-record-metadata", LOG0)
    assert r.lines[3:] == [""]


def test_header_keys_joined_with_comma_no_space(kdump, tmp_path: Path) -> None:
    batch = w.v2_batch([w.Rec(b"k", b"v", headers=[("a", b"1"), ("b", None), ("a", b"2"),
                                                    ("", b"e")])])
    write(tmp_path, LOG0, batch)
    r = dump(kdump, tmp_path, "--deep-iteration", LOG0)
    assert r.lines[3].endswith(" sequence: -1 headerKeys: [a,b,a,]")


def test_key_decoder_and_value_decoder_imply_print_data_log(kdump, tmp_path: Path) -> None:
    # shouldPrintDataLog = ... || options.has(valueDecoderOpt) || options.has(keyDecoderOpt)
    write(tmp_path, LOG0, w.v2_batch([w.Rec(b"\x00\x00\x00\x07", b"hi")]))
    r = dump(kdump, tmp_path, "--key-decoder-class", "org.apache.kafka.tools.api.IntegerDecoder",
             LOG0)
    assert r.lines[3].endswith("headerKeys: [] key: 7 payload: hi")
    r = dump(kdump, tmp_path, "--value-decoder", "hex", LOG0)
    assert r.lines[3].endswith("headerKeys: [] key: \x00\x00\x00\x07 payload: 6869")


def test_string_decoder_replaces_malformed_utf8(kdump, tmp_path: Path) -> None:
    # StringDecoder: new String(bytes, UTF_8): each malformed byte -> U+FFFD
    write(tmp_path, LOG0, w.v2_batch([w.Rec(b"k\xff", b"\xfe\xffok")]))
    r = dump(kdump, tmp_path, "--print-data-log", LOG0)
    assert r.lines[3].endswith("key: k\ufffd payload: \ufffd\ufffdok")


# ---------------------------------------------------------------------------------------
# batch lines (printBatchLevel)
# ---------------------------------------------------------------------------------------


def test_idempotent_batch_sequences_and_last_sequence_wraparound(kdump, tmp_path: Path) -> None:
    # DefaultRecordBatch.incrementSequence: 2147483646 + 2 wraps to 0
    batch = w.v2_batch([w.Rec(b"a", b"1"), w.Rec(b"b", b"2"), w.Rec(b"c", b"3")],
                       base_offset=10, producer_id=77, producer_epoch=3,
                       base_sequence=2147483646, partition_leader_epoch=9)
    write(tmp_path, "00000000000000000010.log", batch)
    r = dump(kdump, tmp_path, "--deep-iteration", "00000000000000000010.log")
    assert r.lines[2].startswith(
        "baseOffset: 10 lastOffset: 12 count: 3 baseSequence: 2147483646 lastSequence: 0 "
        "producerId: 77 producerEpoch: 3 partitionLeaderEpoch: 9 isTransactional: false ")
    assert r.lines[2] == v2_line(batch)
    assert [line.split(" sequence: ")[1].split(" ")[0] for line in r.lines[3:]] == [
        "2147483646", "2147483647", "0"]


def test_transactional_batch(kdump, tmp_path: Path) -> None:
    batch = w.v2_batch([w.Rec(b"k", b"v")], producer_id=1000, producer_epoch=0, base_sequence=0,
                       transactional=True, partition_leader_epoch=3)
    write(tmp_path, LOG0, batch)
    r = dump(kdump, tmp_path, LOG0)
    assert "producerId: 1000 producerEpoch: 0 partitionLeaderEpoch: 3 isTransactional: true " \
           "isControl: false " in r.lines[2]
    assert r.lines[2] == v2_line(batch)


def test_delete_horizon(kdump, tmp_path: Path) -> None:
    # deleteHorizonMs: OptionalLong[baseTimestamp]; record timestamp = baseTimestamp + delta
    horizon = TS + 86_400_000
    batch = w.v2_batch([w.Rec(b"k", None, timestamp=TS + 5), w.Rec(b"j", b"v", timestamp=TS + 9)],
                       delete_horizon_ms=horizon)
    write(tmp_path, LOG0, batch)
    r = dump(kdump, tmp_path, "--deep-iteration", LOG0)
    assert f"deleteHorizonMs: OptionalLong[{horizon}] position: 0 CreateTime: {TS + 9} " \
        in r.lines[2]
    assert r.lines[3].startswith(f"| offset: 0 CreateTime: {TS + 5} keySize: 1 valueSize: -1 ")
    assert r.lines[4].startswith(f"| offset: 1 CreateTime: {TS + 9} ")


def test_log_append_time_v2(kdump, tmp_path: Path) -> None:
    # RecordIterator: logAppendTime = maxTimestamp for every record
    batch = w.v2_batch([w.Rec(b"a", b"1", timestamp=TS), w.Rec(b"b", b"2", timestamp=TS + 7)],
                       log_append_time=TS + 1000)
    write(tmp_path, LOG0, batch)
    r = dump(kdump, tmp_path, "--deep-iteration", LOG0)
    assert f" position: 0 LogAppendTime: {TS + 1000} size: " in r.lines[2]
    assert [line.split(" keySize")[0] for line in r.lines[3:]] == [
        f"| offset: 0 LogAppendTime: {TS + 1000}", f"| offset: 1 LogAppendTime: {TS + 1000}"]


def test_empty_batch_left_by_the_cleaner(kdump, tmp_path: Path) -> None:
    batch = w.v2_batch([], base_offset=5, last_offset_delta=2, producer_id=3000,
                       producer_epoch=1, base_sequence=0, max_timestamp=TS + 20)
    write(tmp_path, LOG0, batch)
    r = dump(kdump, tmp_path, "--deep-iteration", LOG0)
    assert r.lines[2:] == [v2_line(batch)]
    assert "baseOffset: 5 lastOffset: 7 count: 0 baseSequence: 0 lastSequence: 2 " in r.lines[2]
    assert " size: 61 " in r.lines[2]


@pytest.mark.parametrize(
    ("codec", "name", "kw"),
    [
        (w.NONE, "none", {}),
        (w.GZIP, "gzip", {}),
        (w.SNAPPY, "snappy", {}),
        (w.SNAPPY, "snappy", {"snappy_framing": "raw"}),
        (w.LZ4, "lz4", {}),
        (w.LZ4, "lz4", {"lz4_block_checksum": True}),
        (w.ZSTD, "zstd", {}),
    ],
)
def test_every_codec_v2(kdump, tmp_path: Path, codec: int, name: str, kw: dict) -> None:
    recs = [w.Rec(f"key-{i}".encode(), (f"value-{i}-" * 40).encode(), headers=[("h", b"x")],
                  timestamp=TS + i) for i in range(50)]
    batch = w.v2_batch(recs, codec=codec, base_offset=100, **kw)
    write(tmp_path, "00000000000000000100.log", batch)
    r = dump(kdump, tmp_path, "--print-data-log", "00000000000000000100.log")
    assert r.lines[2] == v2_line(batch, codec=name)
    assert len(r.lines) == 3 + 50
    for i, line in enumerate(r.lines[3:]):
        assert line == (f"| offset: {100 + i} CreateTime: {TS + i} keySize: {len(f'key-{i}')} "
                        f"valueSize: {len(recs[i].value or b'')} sequence: -1 headerKeys: [h] "
                        f"key: key-{i} payload: {(recs[i].value or b'').decode()}")
    assert (r.rc, r.err) == (0, "")


# ---------------------------------------------------------------------------------------
# legacy message sets
# ---------------------------------------------------------------------------------------


def test_legacy_record_line_has_stray_brace(kdump, tmp_path: Path) -> None:
    # print(s" isValid: ${r.isValid} crc: ${r.checksum}}")  -- the "}" is in the source
    m0 = w.legacy_message(0, None, b"v0", offset=0)
    m1 = w.legacy_message(1, b"k1", None, offset=1, timestamp=TS)
    write(tmp_path, LOG0, m0 + m1)
    r = dump(kdump, tmp_path, "--print-data-log", LOG0)
    assert r.lines[2:] == [
        f"offset: 0 position: 0 NoTimestampType: -1 size: {len(m0)} magic: 0 compresscodec: none"
        f" crc: {crc_of(m0)} isvalid: true",
        f"| offset: 0 NoTimestampType: -1 keySize: -1 valueSize: 2 isValid: true "
        f"crc: {crc_of(m0)}}} payload: v0",
        f"offset: 1 position: {len(m0)} CreateTime: {TS} size: {len(m1)} magic: 1 "
        f"compresscodec: none crc: {crc_of(m1)} isvalid: true",
        f"| offset: 1 CreateTime: {TS} keySize: 2 valueSize: -1 isValid: true "
        f"crc: {crc_of(m1)}}} key: k1",
    ]


def test_legacy_skip_record_metadata(kdump, tmp_path: Path) -> None:
    write(tmp_path, LOG0, w.legacy_message(0, None, b"v0") + w.legacy_message(1, b"k", b"v",
                                                                             offset=1))
    r = dump(kdump, tmp_path, "--print-data-log", "--skip-record-metadata", LOG0)
    assert [r.lines[3], r.lines[5]] == [" payload: v0", "| key: k payload: v"]


def test_legacy_bad_crc_isvalid_false(kdump, tmp_path: Path) -> None:
    m = w.legacy_message(1, b"k", b"v", timestamp=TS, crc=12345)
    write(tmp_path, LOG0, m)
    r = dump(kdump, tmp_path, "--deep-iteration", LOG0)
    assert r.lines[2].endswith("crc: 12345 isvalid: false")
    assert r.lines[3].endswith("isValid: false crc: 12345}")
    assert r.rc == 1


@pytest.mark.parametrize(("codec", "name"), [(w.GZIP, "gzip"), (w.SNAPPY, "snappy"),
                                             (w.LZ4, "lz4")])
def test_v0_wrapper_absolute_inner_offsets(kdump, tmp_path: Path, codec: int, name: str) -> None:
    # v0: inner offsets are absolute (DeepRecordsIterator: absoluteBaseOffset = -1); lz4
    # frames under magic 0 carry the broken (KAFKA-1493) header checksum
    msgs = [w.Rec(f"k{i}".encode(), f"v{i}".encode()) for i in range(3)]
    wrapper = w.legacy_compressed(0, msgs, last_offset=12, codec=codec)
    if codec == w.LZ4:
        inner = wrapper[26:]  # a v0 wrapper's value: after key length -1 and value length
        assert inner[:7] == bytes.fromhex("04224d1860401a")  # the broken HC byte 0x1a
    write(tmp_path, "00000000000000000010.log", wrapper)
    r = dump(kdump, tmp_path, "--print-data-log", "00000000000000000010.log")
    assert r.lines[2] == (f"offset: 12 position: 0 NoTimestampType: -1 size: {len(wrapper)} "
                          f"magic: 0 compresscodec: {name} crc: {crc_of(wrapper)} isvalid: true")
    assert [line.split(" isValid")[0] for line in r.lines[3:]] == [
        f"| offset: {10 + i} NoTimestampType: -1 keySize: 2 valueSize: 2" for i in range(3)]
    assert [line.split("} ")[1] for line in r.lines[3:]] == [
        f"key: k{i} payload: v{i}" for i in range(3)]
    assert (r.rc, r.err) == (0, "")


@pytest.mark.parametrize(("codec", "name"), [(w.GZIP, "gzip"), (w.SNAPPY, "snappy"),
                                             (w.LZ4, "lz4")])
def test_v1_wrapper_relative_inner_offsets(kdump, tmp_path: Path, codec: int, name: str) -> None:
    # v1: inner offsets relative; absolute = wrapper offset - last inner + inner
    msgs = [w.Rec(f"k{i}".encode(), f"v{i}".encode(), timestamp=TS + i) for i in range(4)]
    wrapper = w.legacy_compressed(1, msgs, last_offset=103, codec=codec)
    write(tmp_path, "00000000000000000100.log", wrapper)
    r = dump(kdump, tmp_path, "--deep-iteration", "00000000000000000100.log")
    assert r.lines[2] == (f"offset: 103 position: 0 CreateTime: {TS + 3} size: {len(wrapper)} "
                          f"magic: 1 compresscodec: {name} crc: {crc_of(wrapper)} isvalid: true")
    assert [line.split(" keySize")[0] for line in r.lines[3:]] == [
        f"| offset: {100 + i} CreateTime: {TS + i}" for i in range(4)]


def test_v1_log_append_time_wrapper_stamps_inner_timestamps(kdump, tmp_path: Path) -> None:
    # LegacyRecord(buffer, wrapperTimestamp, LOG_APPEND_TIME).timestamp() = wrapper's; the
    # inner record's own CRC is printed unchanged
    msgs = [w.Rec(b"a", b"1", timestamp=TS), w.Rec(b"b", b"2", timestamp=TS + 1)]
    wrapper = w.legacy_compressed(1, msgs, last_offset=1, codec=w.GZIP,
                                  wrapper_timestamp=TS + 5000, log_append_time=True)
    write(tmp_path, LOG0, wrapper)
    r = dump(kdump, tmp_path, "--deep-iteration", LOG0)
    assert f" position: 0 LogAppendTime: {TS + 5000} size: " in r.lines[2]
    inner_crcs = [zlib_crc(b"\x01\x00" + struct.pack(">q", m.timestamp) + legacy_kv(m))
                  for m in msgs]
    assert r.lines[3:] == [
        f"| offset: 0 LogAppendTime: {TS + 5000} keySize: 1 valueSize: 1 isValid: true "
        f"crc: {inner_crcs[0]}}}",
        f"| offset: 1 LogAppendTime: {TS + 5000} keySize: 1 valueSize: 1 isValid: true "
        f"crc: {inner_crcs[1]}}}",
    ]


def zlib_crc(data: bytes) -> int:
    import zlib

    return zlib.crc32(data) & 0xFFFFFFFF


def legacy_kv(m: w.Rec) -> bytes:
    def b(x: bytes | None) -> bytes:
        return struct.pack(">i", -1) if x is None else struct.pack(">i", len(x)) + x

    return b(m.key) + b(m.value)


def test_v1_wrapper_offset_zero_is_base_zero(kdump, tmp_path: Path) -> None:
    # lastOffsetFromWrapper == 0 -> absoluteBaseOffset = 0 (librdkafka quirk)
    msgs = [w.Rec(b"a", b"1", timestamp=TS), w.Rec(b"b", b"2", timestamp=TS)]
    wrapper = w.legacy_compressed(1, msgs, last_offset=0, codec=w.GZIP)
    write(tmp_path, LOG0, wrapper)
    r = dump(kdump, tmp_path, "--deep-iteration", LOG0)
    assert [line.split(" CreateTime")[0] for line in r.lines[3:]] == ["| offset: 0",
                                                                      "| offset: 1"]


def test_mixed_magics_in_one_segment(kdump, tmp_path: Path) -> None:
    m0 = w.legacy_message(0, b"a", b"0", offset=0)
    m1 = w.legacy_message(1, b"b", b"1", offset=1, timestamp=TS)
    b2 = w.v2_batch([w.Rec(b"c", b"2")], base_offset=2)
    write(tmp_path, LOG0, m0 + m1 + b2)
    r = dump(kdump, tmp_path, LOG0)
    assert [line.split(" position")[0] for line in r.lines[2:]] == [
        "offset: 0", "offset: 1", v2_line(b2, position=len(m0 + m1)).split(" position")[0]]
    assert r.lines[4] == v2_line(b2, position=len(m0 + m1))


# ---------------------------------------------------------------------------------------
# control records
# ---------------------------------------------------------------------------------------


def test_abort_marker(kdump, tmp_path: Path) -> None:
    marker = w.end_txn_marker_batch(False, base_offset=7, producer_id=12, producer_epoch=4,
                                    coordinator_epoch=2147483647, partition_leader_epoch=1)
    write(tmp_path, LOG0, marker)
    r = dump(kdump, tmp_path, "--deep-iteration", LOG0)
    assert r.lines[3].endswith(" headerKeys: [] endTxnMarker: ABORT coordinatorEpoch: 2147483647")


def test_kraft_control_records(kdump, golden_fixture) -> None:
    d = golden_fixture("kraft")
    r = dump(kdump, d, "--print-data-log", "__cluster_metadata-0/00000000000000000000.log")
    ctl = [line.split("headerKeys: [] ", 1)[1] for line in r.lines if line.startswith("| ")]
    assert ctl[0] == "controlType: LEADER_CHANGE(2)"
    assert ctl[1] == 'KRaftVersion {"version":0,"kRaftVersion":1}'
    assert ctl[2] == (
        'KRaftVoters {"version":0,"voters":[{"voterId":1,"voterDirectoryId":"AAECAwQFBgcICQoLDA0ODw",'
        '"endpoints":[{"name":"CONTROLLER","host":"localhost","port":9093}],'
        '"kRaftVersionFeature":{"minSupportedVersion":0,"maxSupportedVersion":1}}]}')
    assert ctl[4] == "controlType: UNKNOWN(42)"


def test_kraft_snapshot_header_and_footer(kdump, golden_fixture) -> None:
    d = golden_fixture("kraft")
    name = "__cluster_metadata-0/00000000000000000005-0000000003.checkpoint"
    r = dump(kdump, d, "--deep-iteration", name)
    assert r.lines[:2] == [f"Dumping {name}", "Snapshot end offset: 5, epoch: 3"]
    assert r.lines[3].endswith(
        ' headerKeys: [] SnapshotHeader {"version":0,"lastContainedLogTimestamp":1700000000000}')
    assert r.lines[-1].endswith(' headerKeys: [] SnapshotFooter {"version":0}')


def test_bootstrap_checkpoint_line(kdump, golden_fixture) -> None:
    d = golden_fixture("kraft")
    r = dump(kdump, d, "bootstrap.checkpoint")
    assert r.lines[:2] == ["Dumping bootstrap.checkpoint", "KRaft bootstrap snapshot"]
    assert len(r.lines) == 5


# ---------------------------------------------------------------------------------------
# file-level lines
# ---------------------------------------------------------------------------------------


def test_log_starting_offset_comes_from_the_file_name(kdump, tmp_path: Path) -> None:
    write(tmp_path, "00000000000000000050.log", w.v2_batch([w.Rec(b"k", b"v")], base_offset=57))
    r = dump(kdump, tmp_path, "00000000000000000050.log")
    assert r.lines[:2] == ["Dumping 00000000000000000050.log", "Log starting offset: 50"]


def test_dumping_line_uses_the_path_as_given(kdump, tmp_path: Path) -> None:
    write(tmp_path, "p-0/" + LOG0, w.v2_batch([w.Rec(b"k", b"v")]))
    r = dump(kdump, tmp_path, f"./p-0/{LOG0}")
    assert r.lines[0] == f"Dumping ./p-0/{LOG0}"
    r = dump(kdump, tmp_path, str(tmp_path / "p-0" / LOG0))
    assert r.lines[0] == f"Dumping {tmp_path / 'p-0' / LOG0}"


def test_a_file_that_is_not_kafka_data_is_an_input_error(kdump, tmp_path: Path) -> None:
    """DumpLogSegments prints "Ignoring unknown file" and exits 0; kdump never lets a file
    given by name pass as read when it is not Kafka data: one line, exit 2 (issue 39)."""
    write(tmp_path, "readme.md", b"hello")
    r = dump(kdump, tmp_path, "readme.md")
    assert r.out == ""
    assert r.err == ("readme.md: unreadable-file: not Kafka data: not a name Kafka gives its "
                     "files (<offset>.log, .index, .timeindex, .snapshot, a checkpoint ...) and "
                     "no record batch at its start\n")
    assert r.rc == 2


def test_files_option_spelling(kdump, tmp_path: Path) -> None:
    a = w.v2_batch([w.Rec(b"a", b"1")])
    write(tmp_path, LOG0, a)
    write(tmp_path, "00000000000000000001.log", w.v2_batch([w.Rec(b"b", b"2")], base_offset=1))
    positional = dump(kdump, tmp_path, LOG0, "00000000000000000001.log")
    files = dump(kdump, tmp_path, "--files", f"{LOG0},00000000000000000001.log")
    assert files.out == positional.out
    assert [line for line in files.lines if line.startswith("Dumping")] == [
        f"Dumping {LOG0}", "Dumping 00000000000000000001.log"]


# ---------------------------------------------------------------------------------------
# trailing bytes, --max-bytes, non-consecutive offsets
# ---------------------------------------------------------------------------------------


def _three_batches() -> list[bytes]:
    return [w.v2_batch([w.Rec(b"k", b"v")], base_offset=i) for i in range(3)]


def test_found_invalid_bytes_at_the_end(kdump, tmp_path: Path) -> None:
    b = _three_batches()
    write(tmp_path, "p-0/" + LOG0, b[0] + b[1] + b[2][:40])
    r = dump(kdump, tmp_path, "p-0/" + LOG0)
    # println(s"Found $trailingBytes invalid bytes at the end of ${file.getName}") -- stdout
    assert r.lines[-1] == f"Found 40 invalid bytes at the end of {LOG0}"
    assert len(r.lines) == 2 + 2 + 1


def test_short_tail_below_the_header_size(kdump, tmp_path: Path) -> None:
    # FileLogInputStream: position >= end - HEADER_SIZE_UP_TO_MAGIC -> no more batches
    b = _three_batches()
    write(tmp_path, LOG0, b[0] + b"\x01" * 17)
    r = dump(kdump, tmp_path, LOG0)
    assert r.lines[-1] == f"Found 17 invalid bytes at the end of {LOG0}"


def test_max_bytes_reads_whole_batches_only_and_hides_trailing_bytes(kdump, tmp_path: Path) -> None:
    b = _three_batches()
    size = len(b[0])
    write(tmp_path, LOG0, b[0] + b[1] + b[2][:40])
    r = dump(kdump, tmp_path, "--max-bytes", str(2 * size - 1), LOG0)
    assert len(r.lines) == 3
    r = dump(kdump, tmp_path, "--max-bytes", str(2 * size), LOG0)
    assert len(r.lines) == 4
    assert not any(line.startswith("Found") for line in r.lines)


def test_max_bytes_larger_than_the_file_still_hides_trailing_bytes(kdump, tmp_path: Path) -> None:
    # if ((trailingBytes > 0) && (maxBytes == Integer.MAX_VALUE)): any explicit --max-bytes
    # other than Integer.MAX_VALUE suppresses the line, even one past the end of the file
    b = _three_batches()
    write(tmp_path, LOG0, b[0] + b[1] + b[2][:40])
    r = dump(kdump, tmp_path, "--max-bytes", "1000000", LOG0)
    assert not any(line.startswith("Found") for line in r.lines)
    r = dump(kdump, tmp_path, "--max-bytes", "2147483647", LOG0)
    assert r.lines[-1] == f"Found 40 invalid bytes at the end of {LOG0}"


def test_non_consecutive_offsets_reversed_with_absolute_path(kdump, tmp_path: Path) -> None:
    # nonConsecutivePairsSeq ::= (lastOffset, record.offset): a List built by prepending
    a = w.v2_batch([w.Rec(b"a", b"1"), w.Rec(b"b", b"2", offset_delta=3)], base_offset=0,
                   last_offset_delta=3)
    b = w.v2_batch([w.Rec(b"c", b"3")], base_offset=10)
    c = w.v2_batch([w.Rec(b"d", b"4")], base_offset=11)
    d = w.v2_batch([w.Rec(b"e", b"5")], base_offset=20)
    write(tmp_path, "t-0/" + LOG0, a + b + c + d)
    write(tmp_path, "t-0/00000000000000000030.log",
          w.v2_batch([w.Rec(b"x", b"1")], base_offset=30)
          + w.v2_batch([w.Rec(b"y", b"1")], base_offset=32))
    # a compacted topic (the cleaner's checkpoint names it): its gaps are the cleaner's;
    # in a delete-policy topic a gap between batches is data-lost too (issue 46)
    (tmp_path / "cleaner-offset-checkpoint").write_bytes(w.offset_checkpoint([("t", 0, 30)]))
    r = dump(kdump, tmp_path, "--deep-iteration", "t-0")
    assert r.err.splitlines() == [
        f"Non-consecutive offsets in {tmp_path / 't-0' / LOG0}",
        "  11 is followed by 20",
        "  3 is followed by 10",
        "  0 is followed by 3",
        f"Non-consecutive offsets in {tmp_path / 't-0' / '00000000000000000030.log'}",
        "  30 is followed by 32",
    ]
    # offset gaps are normal (compaction): not a failure
    assert r.rc == 0
    # shallow iteration does not look at record offsets
    assert dump(kdump, tmp_path, "t-0").err == ""


def test_non_consecutive_offsets_count_control_records(kdump, tmp_path: Path) -> None:
    a = w.v2_batch([w.Rec(b"a", b"1")], base_offset=0, producer_id=1, producer_epoch=0,
                   base_sequence=0, transactional=True)
    m = w.end_txn_marker_batch(True, base_offset=1, producer_id=1, producer_epoch=0,
                               coordinator_epoch=0)
    b = w.v2_batch([w.Rec(b"b", b"1")], base_offset=2)
    write(tmp_path, LOG0, a + m + b)
    assert dump(kdump, tmp_path, "--deep-iteration", LOG0).err == ""


# ---------------------------------------------------------------------------------------
# offset index
# ---------------------------------------------------------------------------------------


def test_offset_index_lines_and_mismatches(kdump, golden_fixture) -> None:
    d = golden_fixture("offset-index")
    r = dump(kdump, d, "bad-0/00000000000000000000.index")
    # stops at the first zero slot after slot 0; mismatches on stderr, newest first
    assert r.lines == [
        "Dumping bad-0/00000000000000000000.index",
        "offset: 5 position: 94",
        "offset: 7 position: 188",
        "offset: 11 position: 282",
        "offset: 14 position: 480",
    ]
    assert r.err_lines == [
        f"Mismatches in :{d / 'bad-0' / '00000000000000000000.index'}",
        "  Index offset: 14, log offset: 17",
        "  Index offset: 7, log offset: 8",
    ]
    assert r.rc == 1


def test_offset_index_verify_only_prints_no_entries(kdump, golden_fixture) -> None:
    d = golden_fixture("offset-index")
    r = dump(kdump, d, "--verify-index-only", "bad-0/00000000000000000000.index",
             "clean-0/00000000000000000000.index")
    assert r.lines == ["Dumping bad-0/00000000000000000000.index",
                       "Dumping clean-0/00000000000000000000.index"]
    assert r.err_lines[0].startswith("Mismatches in :")
    assert len(r.err_lines) == 3


def test_offset_index_sanity_check(kdump, golden_fixture) -> None:
    d = golden_fixture("offset-index")
    r = dump(kdump, d, "--index-sanity-check", "clean-0/00000000000000000000.index",
             "bad-0/00000000000000000000.index")
    # a preallocated offset index passes (last entry offset == baseOffset is not < baseOffset)
    assert r.lines == [
        "Dumping clean-0/00000000000000000000.index",
        "clean-0/00000000000000000000.index passed sanity check.",
        "Dumping bad-0/00000000000000000000.index",
        "bad-0/00000000000000000000.index passed sanity check.",
    ]
    assert (r.rc, r.err) == (0, "")


def test_offset_index_empty(kdump, golden_fixture) -> None:
    d = golden_fixture("offset-index")
    # if (index.entries == 0) println(s"$file is empty."), even with --index-sanity-check
    for flags in ((), ("--index-sanity-check",), ("--verify-index-only",)):
        r = dump(kdump, d, *flags, "empty-0/00000000000000000000.index")
        assert r.lines == ["Dumping empty-0/00000000000000000000.index",
                           "empty-0/00000000000000000000.index is empty."]


def test_offset_index_sanity_check_failure(kdump, tmp_path: Path) -> None:
    write(tmp_path, "p-0/" + LOG0, b"")
    write(tmp_path, "p-0/00000000000000000000.index", w.offset_index([(3, 0)]) + b"\x00\x01")
    r = dump(kdump, tmp_path, "--index-sanity-check", "p-0/00000000000000000000.index")
    assert "passed sanity check" not in r.out
    assert "is corrupt, found 10 bytes which is neither positive nor a multiple of 8" in r.err
    assert r.rc == 1


def test_offset_index_of_a_non_zero_base_segment(kdump, tmp_path: Path) -> None:
    d = tmp_path / "p-0"
    pw = w.PartitionWriter(d, index_interval_bytes=1)
    for i in range(4):
        pw.append(w.v2_batch([w.Rec(b"k", b"v")], base_offset=1000 + 2 * i, last_offset_delta=1))
    pw.close()
    r = dump(kdump, tmp_path, "p-0/00000000000000001000.index")
    assert r.lines[1:] == ["offset: 1003 position: 70", "offset: 1005 position: 140",
                           "offset: 1007 position: 210"]
    assert (r.rc, r.err) == (0, "")


# ---------------------------------------------------------------------------------------
# time index
# ---------------------------------------------------------------------------------------


def test_time_index_lines_and_error_blocks(kdump, golden_fixture) -> None:
    d = golden_fixture("time-index")
    name = "bad-0/00000000000000000000.timeindex"
    r = dump(kdump, d, name)
    assert r.lines == [
        f"Dumping {name}",
        f"timestamp: {TS + 20} offset: 2",
        f"timestamp: {TS + 55} offset: 5",
        f"timestamp: {TS + 40} offset: 8",
        f"timestamp: {TS + 100} offset: 10",
        f"timestamp: {TS + 170} offset: 17",
    ]
    path = d / name
    # TimeIndexDumpErrors.printErrors: ArrayBuffers, so in order found
    assert r.err_lines == [
        f"Found timestamp mismatch in :{path}",
        f"  Index timestamp: {TS + 55}, log timestamp: {TS + 50}",
        f"  Index timestamp: {TS + 40}, log timestamp: {TS + 80}",
        f"Found out of order timestamp in :{path}",
        f"  Index timestamp: {TS + 40}, Previously indexed timestamp: {TS + 55}",
        "The following indexed offsets are not found in the log.",
        "Indexed offset: 10, found log offset: 11",
    ]
    assert r.rc == 1


def test_time_index_sanity_check(kdump, golden_fixture) -> None:
    d = golden_fixture("time-index")
    clean = "clean-0/00000000000000000000.timeindex"
    r = dump(kdump, d, "--index-sanity-check", clean)
    assert r.lines == [f"Dumping {clean}", f"{clean} passed sanity check."]
    # a preallocated time index fails: the last slot's timestamp 0 < the first's
    r = dump(kdump, d, "--index-sanity-check", "bad-0/00000000000000000000.timeindex")
    assert "passed sanity check" not in r.out
    assert "has non-zero size but the last timestamp is 0 which is less than the first " \
           f"timestamp {TS + 20}" in r.err
    assert r.rc == 1


def test_time_index_verify_only(kdump, golden_fixture) -> None:
    d = golden_fixture("time-index")
    r = dump(kdump, d, "--verify-index-only", "clean-0/00000000000000000000.timeindex")
    assert r.lines == ["Dumping clean-0/00000000000000000000.timeindex"]
    assert (r.rc, r.err) == (0, "")


def test_time_index_of_v0_data_is_empty(kdump, tmp_path: Path) -> None:
    d = tmp_path / "p-0"
    pw = w.PartitionWriter(d, index_interval_bytes=1)
    for i in range(3):
        pw.append(w.legacy_message(0, b"k", b"v", offset=i))
    pw.close()
    r = dump(kdump, tmp_path, "p-0/00000000000000000000.timeindex")
    assert r.lines == ["Dumping p-0/00000000000000000000.timeindex"]
    assert (r.rc, r.err) == (0, "")


# ---------------------------------------------------------------------------------------
# transaction index, producer snapshot
# ---------------------------------------------------------------------------------------


def test_txn_index_lines(kdump, golden_fixture) -> None:
    d = golden_fixture("txn-index")
    r = dump(kdump, d, "txn-0/00000000000000000000.txnindex")
    assert r.lines[1:] == [
        "version: 0 producerId: 1000 firstOffset: 10 lastOffset: 42 lastStableOffset: 10",
        "version: 0 producerId: 1001 firstOffset: 43 lastOffset: 50 lastStableOffset: 51",
        "version: 0 producerId: 7 firstOffset: 0 lastOffset: 9223372036854775807 "
        "lastStableOffset: -1",
    ]


def test_txn_index_formats_16_6_entry(kdump, tmp_path: Path) -> None:
    raw = bytes.fromhex("0000" "00000000000003e8" "000000000000000a" "000000000000002a"
                        "000000000000000a")
    write(tmp_path, "00000000000000000000.txnindex", raw)
    r = dump(kdump, tmp_path, "00000000000000000000.txnindex")
    assert r.lines[1:] == [
        "version: 0 producerId: 1000 firstOffset: 10 lastOffset: 42 lastStableOffset: 10"]
    assert (r.rc, r.err) == (0, "")


def test_txn_index_version_is_the_first_byte(kdump, tmp_path: Path) -> None:
    # AbortedTxn.version() = buffer.get(VERSION_OFFSET): one byte of the int16 field, so
    # 00 01 reads as version 0 (and passes the "> CURRENT_VERSION" check)
    raw = w.txn_index([(1, 2, 3, 4)], version=1)
    assert raw[:2] == b"\x00\x01"
    write(tmp_path, "00000000000000000000.txnindex", raw)
    r = dump(kdump, tmp_path, "00000000000000000000.txnindex")
    assert r.lines[1:] == ["version: 0 producerId: 1 firstOffset: 2 lastOffset: 3 "
                           "lastStableOffset: 4"]


def test_producer_snapshot_lines(kdump, golden_fixture) -> None:
    d = golden_fixture("producer-snapshot")
    r = dump(kdump, d, "snap-0/00000000000000000071.snapshot")
    assert r.out == (
        "Dumping snap-0/00000000000000000071.snapshot\n"
        "producerId: 1000 producerEpoch: 2 coordinatorEpoch: 5 currentTxnFirstOffset: "
        "OptionalLong.empty lastTimestamp: 1700000000000 firstSequence: 0 lastSequence: 9 "
        "lastOffset: 41 offsetDelta: 9 timestamp: 1700000000000\n"
        "producerId: 1001 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: "
        "OptionalLong[56] lastTimestamp: 1700000000001 firstSequence: 0 lastSequence: 4 "
        "lastOffset: 60 offsetDelta: 4 timestamp: 1700000000001\n"
        # no batch metadata (lastOffset < 0): the line ends with the trailing space
        "producerId: 1002 producerEpoch: 3 coordinatorEpoch: 7 currentTxnFirstOffset: "
        "OptionalLong.empty lastTimestamp: 1700000000002 \n"
        "producerId: 1003 producerEpoch: 1 coordinatorEpoch: -1 currentTxnFirstOffset: "
        "OptionalLong.empty lastTimestamp: 1700000000003 firstSequence: 2147483645 "
        "lastSequence: 2 lastOffset: 70 offsetDelta: 5 timestamp: 1700000000003\n"
    )
    assert (r.rc, r.err) == (0, "")


def test_producer_snapshot_formats_16_6_vectors(kdump, tmp_path: Path) -> None:
    one = bytes.fromhex(
        "0001" "ebb582d6" "00000001" "00000000000003e8" "0002" "00000009" "0000000000000029"
        "00000009" "0000018bcfe56800" "00000005" "ffffffffffffffff")
    write(tmp_path, "00000000000000000042.snapshot", one)
    write(tmp_path, "00000000000000000000.snapshot", bytes.fromhex("000148674bc700000000"))
    r = dump(kdump, tmp_path, "00000000000000000042.snapshot", "00000000000000000000.snapshot")
    assert r.lines == [
        "Dumping 00000000000000000042.snapshot",
        "producerId: 1000 producerEpoch: 2 coordinatorEpoch: 5 currentTxnFirstOffset: "
        "OptionalLong.empty lastTimestamp: 1700000000000 firstSequence: 0 lastSequence: 9 "
        "lastOffset: 41 offsetDelta: 9 timestamp: 1700000000000",
        "Dumping 00000000000000000000.snapshot",
    ]
    assert (r.rc, r.err) == (0, "")


def test_producer_snapshot_bad_crc_prints_only_the_exception_message(kdump, golden_fixture) -> None:
    # readSnapshot throws CorruptSnapshotException before returning any entry; DumpLogSegments
    # prints e.getMessage on stderr and nothing else for the file
    d = golden_fixture("producer-snapshot")
    r = dump(kdump, d, "snap-0/00000000000000000080.snapshot")
    assert r.lines == ["Dumping snap-0/00000000000000000080.snapshot"]
    assert r.err_lines == ["Snapshot is corrupt (CRC is no longer valid). Stored crc: 3954541270. "
                           "Computed crc: 1187565959"]
    assert r.rc == 1


def test_producer_snapshot_unknown_version(kdump, tmp_path: Path) -> None:
    write(tmp_path, "00000000000000000000.snapshot", w.producer_snapshot([], version=2))
    r = dump(kdump, tmp_path, "00000000000000000000.snapshot")
    assert r.lines == ["Dumping 00000000000000000000.snapshot"]
    assert r.err_lines == ["Snapshot failed schema validation: Snapshot contained an unknown file "
                           "version 2"]
    assert r.rc == 1


# ---------------------------------------------------------------------------------------
# golden files
# ---------------------------------------------------------------------------------------


@pytest.mark.both_modes
@pytest.mark.parametrize("case", [c for c in g.GOLDEN_CASES if "text" in c.formats],
                         ids=lambda c: c.name)
def test_golden_text(kdump, golden_fixture, update_golden: bool, case: g.GoldenCase) -> None:
    d = golden_fixture(case.name)
    r = kdump("dump", "--format", "text", *case.args, cwd=d)
    g.check_golden(f"{case.name}.text", g.render(r.out, r.err, r.rc, d), update_golden)


# ---------------------------------------------------------------------------------------
# paths as java.io.File prints them
# ---------------------------------------------------------------------------------------


def test_paths_are_printed_as_java_io_file_does(kdump, tmp_path: Path) -> None:
    # new File(arg).toString collapses "//" and drops a trailing "/"; getAbsolutePath
    # resolves against the working directory without removing "." components
    a = w.v2_batch([w.Rec(b"a", b"1"), w.Rec(b"b", b"2", offset_delta=2)], last_offset_delta=2)
    write(tmp_path, "t-0/" + LOG0, a)
    write(tmp_path, "t-0/00000000000000000000.index", b"")
    write(tmp_path, "t-0/x.txt", b"")
    r = dump(kdump, tmp_path, "--deep-iteration", f".//t-0//{LOG0}",
             "t-0//00000000000000000000.index", "t-0//x.txt")
    assert [line for line in r.lines if not line.startswith(("b", "|", "L"))] == [
        f"Dumping ./t-0/{LOG0}",
        "Dumping t-0/00000000000000000000.index",
        "t-0/00000000000000000000.index is empty.",
    ]
    # a file that is not Kafka data is named as given, in the loop over files, the blocks
    # after it (an input error: exit 2)
    assert r.rc == 2
    assert r.err_lines == [
        "t-0//x.txt: unreadable-file: not Kafka data: not a name Kafka gives its files "
        "(<offset>.log, .index, .timeindex, .snapshot, a checkpoint ...) and no record batch "
        "at its start",
        f"Non-consecutive offsets in {tmp_path}/./t-0/{LOG0}",
        "  0 is followed by 2",
    ]


# ---------------------------------------------------------------------------------------
# damage: kdump resynchronises where DumpLogSegments would stop
# ---------------------------------------------------------------------------------------


def test_flipped_crc_byte(kdump, tmp_path: Path) -> None:
    b = _three_batches()
    bad = bytearray(b[1])
    bad[19] ^= 0x10
    write(tmp_path, "p-0/" + LOG0, b[0] + bytes(bad) + b[2])
    r = dump(kdump, tmp_path, "p-0")
    size = len(b[0])
    assert r.lines[2:] == [v2_line(b[0]), v2_line(bytes(bad), position=size, valid=False),
                           v2_line(b[2], position=2 * size)]
    assert (r.rc, r.err) == (1, "")


def test_zeroed_region_in_the_middle(kdump, tmp_path: Path) -> None:
    b = _three_batches()
    size = len(b[0])
    write(tmp_path, "p-0/" + LOG0, b[0] + bytes(size) + b[2])
    r = dump(kdump, tmp_path, "--deep-iteration", "p-0")
    assert [line.split(" lastOffset")[0] for line in r.lines if line.startswith("base")] == [
        "baseOffset: 0", "baseOffset: 2"]
    assert r.lines[-2] == v2_line(b[2], position=2 * size)
    # the zeroed batch's offset is named lost, as verify-crc names it (issue 46)
    assert r.err_lines == [
        f"p-0/{LOG0}: position {size}: zeroed-region: {size} zero bytes; {size} bytes "
        f"unreadable; an intact batch starts at byte {2 * size}",
        f"{tmp_path}/p-0: data-lost: offset 1 (1 offset) were written (batch at offset 2) and "
        "no batch on disk holds them: lost on this replica; cleanup.policy is Kafka's default "
        "delete here (nothing read says otherwise): if the topic is compacted, say so with "
        "--config p:cleanup.policy=compact (base offset 1)",
        f"Non-consecutive offsets in {tmp_path}/p-0/{LOG0}",
        "  0 is followed by 2",
    ]
    assert r.rc == 1


def test_truncated_last_batch(kdump, tmp_path: Path) -> None:
    b = _three_batches()
    size = len(b[0])
    write(tmp_path, "p-0/" + LOG0, b[0] + b[1] + b[2][:50])
    write(tmp_path, "p-0/00000000000000000010.log", b"")  # so 0 is not the active segment
    r = dump(kdump, tmp_path, f"p-0/{LOG0}")
    assert r.lines[-1] == f"Found 50 invalid bytes at the end of {LOG0}"
    # the offsets up to the next segment are named lost, as verify-crc names them (issue 46)
    assert r.err_lines == [
        f"p-0/{LOG0}: position {2 * size}: truncated: batch of {size} bytes is cut short by "
        f"the end of the file: {size - 50} bytes missing; offsets 2-9 lost (the next segment "
        "starts at 10) (base offset 2)"]
    assert r.rc == 1


def test_unfinished_batch_of_the_active_segment_is_not_a_failure(kdump, tmp_path: Path) -> None:
    b = _three_batches()
    write(tmp_path, "p-0/" + LOG0, b[0] + b[1][:50])
    r = dump(kdump, tmp_path, "p-0")
    assert r.lines[-1] == f"Found 50 invalid bytes at the end of {LOG0}"
    assert r.err_lines[0].startswith(f"p-0/{LOG0}: position {len(b[0])}: in-flight [info]: ")
    assert r.rc == 0


def test_zero_filled_tail(kdump, tmp_path: Path) -> None:
    b = _three_batches()
    size = len(b[0])
    write(tmp_path, "p-0/" + LOG0, b[0] + bytes(4096))
    write(tmp_path, "p-0/00000000000000000010.log", b"")
    r = dump(kdump, tmp_path, f"p-0/{LOG0}")
    assert r.lines[2:] == [v2_line(b[0]), f"Found 4096 invalid bytes at the end of {LOG0}"]
    assert r.err_lines == [
        f"p-0/{LOG0}: position {size}: zero-tail [warning]: 4096 zero bytes from here to the "
        "end of the file (preallocated file or unclean shutdown)"]
    assert r.rc == 1


def test_garbage_between_batches(kdump, tmp_path: Path) -> None:
    b = _three_batches()
    size = len(b[0])
    write(tmp_path, "p-0/" + LOG0, b[0] + b"\x07" * 33 + b[1] + b[2])
    r = dump(kdump, tmp_path, "p-0")
    assert r.lines[2:] == [v2_line(b[0]), v2_line(b[1], position=size + 33),
                           v2_line(b[2], position=2 * size + 33)]
    assert r.err_lines == [
        f"p-0/{LOG0}: position {size}: bad-magic: magic byte 7 is not 0, 1 or 2; 33 bytes "
        f"unreadable; an intact batch starts at byte {size + 33}"]
    assert r.rc == 1


def test_strict_stops_like_dump_log_segments(kdump, tmp_path: Path) -> None:
    b = _three_batches()
    size = len(b[0])
    write(tmp_path, "p-0/" + LOG0, b[0] + b"\x07" * 33 + b[1])
    r = dump(kdump, tmp_path, "--strict", "p-0")
    assert r.lines[2:] == [v2_line(b[0]), f"Found {33 + size} invalid bytes at the end of {LOG0}"]
    assert r.rc == 1


def test_max_message_size_bounds_index_verification(kdump, golden_fixture) -> None:
    # dumpIndex: fileRecords.slice(entry.position, maxMessageSize).batches.iterator.next():
    # batches of 94 bytes fit in 94, the ones of 98 and 100 bytes at 282/380/480 do not
    d = golden_fixture("offset-index")
    r = dump(kdump, d, "--max-message-size", "94", "clean-0/00000000000000000000.index")
    assert len(r.lines) == 6
    assert [line.split(": ")[1] for line in r.err_lines] == ["position 16", "position 24",
                                                              "position 32"]
    assert all("index-position" in line for line in r.err_lines)
    assert r.rc == 1
    assert dump(kdump, d, "--max-message-size", "100", "clean-0/00000000000000000000.index"
                ).rc == 0


def test_empty_time_index_passes_the_sanity_check(kdump, tmp_path: Path) -> None:
    # dumpTimeIndex has no "is empty." branch; TimeIndex.sanityCheck passes with 0 entries
    write(tmp_path, "00000000000000000000.timeindex", b"")
    r = dump(kdump, tmp_path, "--index-sanity-check", "00000000000000000000.timeindex")
    assert r.lines == ["Dumping 00000000000000000000.timeindex",
                       "00000000000000000000.timeindex passed sanity check."]
    r = dump(kdump, tmp_path, "00000000000000000000.timeindex")
    assert r.lines == ["Dumping 00000000000000000000.timeindex"]


# ---------------------------------------------------------------------------------------
# decoders
# ---------------------------------------------------------------------------------------

#: FORMATS.md §16.7: OffsetCommitKey v1 (g, t, 0) and OffsetCommitValue v3 (offset 42)
OFFSET_KEY = bytes.fromhex("000100016700017400000000")
OFFSET_VALUE = bytes.fromhex("0003000000000000002affffffff00000000018bcfe56800")


def _offsets_dir(tmp_path: Path) -> None:
    write(tmp_path, "__consumer_offsets-0/" + LOG0,
          w.v2_batch([w.Rec(OFFSET_KEY, OFFSET_VALUE), w.Rec(bytes.fromhex("0002000167"), None)]))


def test_offsets_decoder(kdump, tmp_path: Path) -> None:
    # OffsetsMessageParser: key {"type":"<key version>","data":...}, value
    # {"version":"<value version>","data":...}, a null value is "<DELETE>"
    _offsets_dir(tmp_path)
    r = dump(kdump, tmp_path, "--offsets-decoder", "__consumer_offsets-0")
    assert [line.split("headerKeys: [] ")[1] for line in r.lines[3:]] == [
        'key: {"type":"1","data":{"group":"g","topic":"t","partition":0}} payload: '
        '{"version":"3","data":{"offset":42,"leaderEpoch":-1,"metadata":"",'
        '"commitTimestamp":1700000000000}}',
        'key: {"type":"2","data":{"group":"g"}} payload: <DELETE>',
    ]


def test_decoder_string_gives_dump_log_segments_plain_print_data_log(kdump, tmp_path: Path) -> None:
    # plain --print-data-log in DumpLogSegments always uses StringDecoder; kdump picks the
    # internal-topic decoder from the directory name unless told --decoder string
    _offsets_dir(tmp_path)
    r = dump(kdump, tmp_path, "--print-data-log", "--decoder", "string", "__consumer_offsets-0")
    key = OFFSET_KEY.decode("utf-8", errors="replace")
    value = OFFSET_VALUE.decode("utf-8", errors="replace")
    assert r.lines[3].endswith(f"headerKeys: [] key: {key} payload: {value}")
    assert r.lines[4].endswith("headerKeys: [] key: \x00\x02\x00\x01g")


def test_integer_and_long_decoders_read_the_leading_bytes(kdump, tmp_path: Path) -> None:
    # IntegerDecoder.fromBytes = ByteBuffer.wrap(bytes).getInt(): the first 4 bytes, the
    # rest ignored; LongDecoder likewise with 8
    write(tmp_path, LOG0, w.v2_batch([
        w.Rec(b"\xff\xff\xff\xfe", b"\x00\x00\x00\x00\x00\x00\x01\x00"),
        w.Rec(b"\x00\x00\x00\x07\x01\x02", b"\x00\x00\x00\x00\x00\x00\x00\x09\xff"),
    ]))
    r = dump(kdump, tmp_path, "--key-decoder", "int", "--value-decoder-class",
             "org.apache.kafka.tools.api.LongDecoder", LOG0)
    assert [line.split("headerKeys: [] ")[1] for line in r.lines[3:]] == [
        "key: -2 payload: 256", "key: 7 payload: 9"]
