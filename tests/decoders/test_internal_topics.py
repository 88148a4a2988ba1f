"""Issue 5 end to end through the CLI: internal topics decoded without flags (directory
names pick the decoder), nested JSON for jq, the consumer-offsets digest with
transactions and tombstones, coordinator-partition.

Records are built with tests/writer.py around keys and values laid out as FORMATS.md
§12.2-§12.3 and §16.7 document them (the §16.7 vectors are asserted byte for byte
first, so the builders below are the documented encoding).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from tests.conftest import KdumpRunner
from tests.support import writer as w

SEG = "00000000000000000000"


def _s(text: str) -> bytes:
    b = text.encode()
    return struct.pack(">h", len(b)) + b


def offset_key(group: str, topic: str, partition: int) -> bytes:
    return struct.pack(">h", 1) + _s(group) + _s(topic) + struct.pack(">i", partition)


def offset_value_v3(offset: int, ts: int, metadata: str = "", epoch: int = -1) -> bytes:
    return (struct.pack(">hqi", 3, offset, epoch) + _s(metadata) + struct.pack(">q", ts))


def group_key(group: str) -> bytes:
    return struct.pack(">h", 2) + _s(group)


def test_builders_match_the_documented_vectors() -> None:
    assert offset_key("g", "t", 0) == bytes.fromhex("00010001670001740000 0000".replace(" ", ""))
    assert offset_value_v3(42, 1700000000000) == bytes.fromhex(
        "0003000000000000002affffffff0000" "0000018bcfe56800")
    assert group_key("g") == bytes.fromhex("0002000167")


def _offsets_log(d: Path) -> None:
    """__consumer_offsets-7: plain commits, a tombstone, and transactional commits of two
    producers, one committed and one aborted."""
    part = d / "__consumer_offsets-7"
    part.mkdir(parents=True)
    ts = 1700000000000
    batches = [
        w.v2_batch([w.Rec(offset_key("app", "orders", 0), offset_value_v3(10, ts)),
                    w.Rec(offset_key("app", "orders", 1), offset_value_v3(20, ts))],
                   base_offset=0),
        w.v2_batch([w.Rec(offset_key("app", "orders", 0), offset_value_v3(15, ts + 1))],
                   base_offset=2),
        w.v2_batch([w.Rec(offset_key("old", "orders", 0), offset_value_v3(5, ts)),
                    w.Rec(offset_key("old", "orders", 0), None)], base_offset=3),
        # producer 100 commits app/orders-1 -> 99 transactionally, producer 200 aborts
        w.v2_batch([w.Rec(offset_key("app", "orders", 1), offset_value_v3(99, ts + 2))],
                   base_offset=5, producer_id=100, producer_epoch=0, base_sequence=0,
                   transactional=True),
        w.v2_batch([w.Rec(offset_key("tx", "orders", 0), offset_value_v3(7, ts + 2))],
                   base_offset=6, producer_id=200, producer_epoch=0, base_sequence=0,
                   transactional=True),
        w.end_txn_marker_batch(True, base_offset=7, producer_id=100, producer_epoch=0,
                               coordinator_epoch=1),
        w.end_txn_marker_batch(False, base_offset=8, producer_id=200, producer_epoch=0,
                               coordinator_epoch=1),
    ]
    (part / f"{SEG}.log").write_bytes(b"".join(batches))


def test_offsets_decoded_by_directory_name(kdump: KdumpRunner, tmp_path: Path) -> None:
    _offsets_log(tmp_path)
    r = kdump("dump", "--print-data-log", "__consumer_offsets-7", cwd=tmp_path)
    assert r.rc == 0
    assert ('| offset: 0 CreateTime: 1700000000000 keySize: 19 valueSize: 24 sequence: -1 '
            'headerKeys: [] key: {"type":"1","data":{"group":"app","topic":"orders",'
            '"partition":0}} payload: {"version":"3","data":{"offset":10,"leaderEpoch":-1,'
            '"metadata":"","commitTimestamp":1700000000000}}') in r.lines
    assert any(line.endswith(" payload: <DELETE>") for line in r.lines)


def test_offsets_json_is_nested_for_jq(kdump: KdumpRunner, tmp_path: Path) -> None:
    _offsets_log(tmp_path)
    r = kdump("dump", "--offsets-decoder", "--format", "json", "__consumer_offsets-7",
                  cwd=tmp_path)
    records = [json.loads(x) for x in r.out.splitlines() if '"type":"record"' in x]
    assert all(("control" in o) == o["is_control"] for o in records)
    data = [o for o in records if not o["is_control"]]
    assert data[0]["decoded"]["key"] == {"type": "1", "data": {"group": "app", "topic": "orders",
                                                                "partition": 0}}
    assert data[0]["decoded"]["value"]["data"]["offset"] == 10
    # the raw bytes stay beside the decoded structure, one shape per field
    assert data[0]["value_encoding"] == "base64" and isinstance(data[0]["value"], str)
    assert (data[0]["topic"], data[0]["partition"]) == ("__consumer_offsets", 7)
    tomb = [o for o in data if o["value"] is None]
    assert len(tomb) == 1 and tomb[0]["value_size"] == -1
    assert "value" not in tomb[0]["decoded"]


def test_offsets_summary_replays_commits_tombstones_and_transactions(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    _offsets_log(tmp_path)
    r = kdump("dump", "--summary", ".", cwd=tmp_path)
    assert r.rc == 0
    assert r.lines == [
        "GROUP TOPIC PARTITION OFFSET COMMIT_TIMESTAMP LEADER_EPOCH METADATA",
        "app orders 0 15 2023-11-14T22:13:20.001Z -1",
        "app orders 1 99 2023-11-14T22:13:20.002Z -1",
    ]
    j = kdump("dump", "--summary", "--format", "json", ".", cwd=tmp_path)
    objs = [json.loads(x) for x in j.out.splitlines()]
    assert objs[-1] == {"type": "offsets_summary", "records": 6, "partitions": 1,
                        "committed_offsets": 2, "groups": 0, "share_partitions": 0,
                        "aborted_records": 1, "pending_records": 0, "ignored_records": 0,
                        "skipped_replicas": []}


def test_summary_refuses_other_decoders(kdump: KdumpRunner, tmp_path: Path) -> None:
    _offsets_log(tmp_path)
    r = kdump("dump", "--summary", "--transaction-log-decoder", ".", cwd=tmp_path)
    assert r.rc == 2
    assert "Traceback" not in r.err


FEATURE_LEVEL_FRAME = bytes.fromhex("010c00116d657461646174612e76657273696f6e001500")


def test_cluster_metadata_decoded_by_directory_name(kdump: KdumpRunner, tmp_path: Path) -> None:
    part = tmp_path / "__cluster_metadata-0"
    part.mkdir()
    (part / f"{SEG}.log").write_bytes(w.v2_batch([w.Rec(None, FEATURE_LEVEL_FRAME)]))
    r = kdump("dump", "--print-data-log", "__cluster_metadata-0", cwd=tmp_path)
    assert r.lines[3].endswith(
        ' headerKeys: [] payload: {"type":"FEATURE_LEVEL_RECORD","version":0,'
        '"data":{"name":"metadata.version","featureLevel":21}}')
    j = kdump("dump", "--print-data-log", "--format", "json", "__cluster_metadata-0",
                  cwd=tmp_path)
    rec = next(json.loads(x) for x in j.out.splitlines() if '"type":"record"' in x)
    assert rec["decoded"]["value"] == {"type": "FEATURE_LEVEL_RECORD", "version": 0,
                                       "data": {"name": "metadata.version", "featureLevel": 21}}


def test_decoder_none_gives_kafka_raw_strings_back(kdump: KdumpRunner, tmp_path: Path) -> None:
    _offsets_log(tmp_path)
    r = kdump("dump", "--print-data-log", "--decoder", "string", "__consumer_offsets-7",
                  cwd=tmp_path)
    assert '"type":"1"' not in r.out  # raw bytes as strings, as DumpLogSegments without a decoder


@pytest.mark.parametrize(("ident", "partition"), [
    ("my-firstd-application", 32),  # the real corpus: this group's commits are in partition 32
    ("polygenelubricants", 0),      # String.hashCode == Integer.MIN_VALUE: Utils.abs gives 0
    ("", 0),
])
def test_coordinator_partition(kdump: KdumpRunner, ident: str, partition: int) -> None:
    r = kdump("coordinator-partition", ident)
    assert r.rc == 0
    assert r.lines == [f"{ident}\t{partition}\t__consumer_offsets-{partition}\t"
                       f"__transaction_state-{partition}"]
    j = json.loads(kdump("coordinator-partition", ident, "--partitions", "7",
                             "--format", "json").out)
    assert j["partitions"] == 7 and 0 <= j["partition"] < 7


def test_summary_text_cannot_be_forged_by_commit_metadata(kdump: KdumpRunner, tmp_path: Path
                                                          ) -> None:
    """A commit's metadata is the client's string: a newline in it must not print as a
    second row (a commit that does not exist), nor an escape sequence reach the terminal."""
    part = tmp_path / "__consumer_offsets-3"
    forged = "ok\napp orders 0 999999 1700000000000 - forged\x1b[2J"
    w.write_replica(part, [w.v2_batch([w.Rec(
        w.offset_commit_key("app", "orders", 0),
        w.offset_commit_value_v3(42, 1_700_000_000_000, metadata=forged))], base_offset=0)])
    r = kdump("dump", "--summary", part, cwd=tmp_path)
    assert r.rc == 0
    assert r.out.splitlines() == [
        "GROUP TOPIC PARTITION OFFSET COMMIT_TIMESTAMP LEADER_EPOCH METADATA",
        "app orders 0 42 2023-11-14T22:13:20.000Z -1 ok\\x0aapp orders 0 999999 1700000000000 - "
        "forged\\x1b[2J",
    ]
    j = kdump("dump", "--summary", "--format", "json", part, cwd=tmp_path)
    [row] = [json.loads(x) for x in j.out.splitlines() if '"committed_offset"' in x]
    assert row["metadata"] == forged  # JSON keeps the value, escaped by JSON itself
