"""Internal-topic decoders: every record type and version, Kafka's texts, errors, real data."""

from __future__ import annotations

import base64
import dataclasses
import json
import random
import struct
from pathlib import Path
from typing import Any

import pytest

from kdump.decoders.base import Decoded
from kdump.decoders.cluster_metadata import ClusterMetadataDecoder
from kdump.decoders.consumer_offsets import (
    KEY_SCHEMAS,
    VALUE_SCHEMAS,
    ConsumerOffsetsDecoder,
    coordinator_partition,
    java_string_hashcode,
)
from kdump.decoders.release import layouts
from kdump.decoders.remote_log_metadata import RemoteLogMetadataDecoder
from kdump.decoders.share_group_state import ShareGroupStateDecoder
from kdump.decoders.transaction_log import TransactionLogDecoder, scala_hashset_order
from kdump.ops.offsets_digest import OffsetsDigest
from kdump.protocol.control import decode_control_value
from kdump.protocol.frame import METADATA_SCHEMAS
from kdump.protocol.messages import json_text
from tests.support import message_writer as sw
from tests.support import writer as w
from tests.support.group_records import CONSUMER_PROTOCOL

TS = 1700000000000
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "kafka2-logdir"

# ============================================================================ descriptions
# Written again from the JSON files in apache/kafka (trunk 2024-10-25), independently of
# kdump's tables: names are the JSON converter's (camelCase), versions as in the schemas.

COORDINATOR = sw.parse_many(
    """
OffsetCommitKey versions=0-1
  group string v=0-1
  topic string v=0-1
  partition int32 v=0-1

OffsetCommitValue versions=0-4 flexible=4+
  offset int64
  leaderEpoch int32 v=3+ default=-1
  metadata string
  commitTimestamp int64
  expireTimestamp int64 v=1 default=-1

GroupMetadataKey versions=2
  group string v=2

GroupMetadataValue versions=0-4 flexible=4+
  protocolType string
  generation int32
  protocol string null=0+
  leader string null=0+
  currentStateTimestamp int64 v=2+ default=-1
  members []
    memberId string
    groupInstanceId string v=3+ null=3+ default=null
    clientId string
    clientHost string
    rebalanceTimeout int32 v=1+ default=-1
    sessionTimeout int32
    subscription bytes
    assignment bytes

ConsumerGroupMetadataKey versions=3
  groupId string v=3

ConsumerGroupMetadataValue versions=0 flexible=0+
  epoch int32

ConsumerGroupPartitionMetadataKey versions=4
  groupId string v=4

ConsumerGroupPartitionMetadataValue versions=0 flexible=0+
  topics []
    topicId uuid
    topicName string
    numPartitions int32
    partitionMetadata []
      partition int32
      racks []string

ConsumerGroupMemberMetadataKey versions=5
  groupId string v=5
  memberId string v=5

ConsumerGroupMemberMetadataValue versions=0 flexible=0+
  instanceId string null=0+
  rackId string null=0+
  clientId string
  clientHost string
  subscribedTopicNames []string
  subscribedTopicRegex string null=0+
  rebalanceTimeoutMs int32 default=-1
  serverAssignor string null=0+
  classicMemberMetadata {} null=0+ tag=0 tagv=0+
    sessionTimeoutMs int32
    supportedProtocols []
      name string
      metadata bytes

ConsumerGroupTargetAssignmentMetadataKey versions=6
  groupId string v=6

ConsumerGroupTargetAssignmentMetadataValue versions=0 flexible=0+
  assignmentEpoch int32

ConsumerGroupTargetAssignmentMemberKey versions=7
  groupId string v=7
  memberId string v=7

ConsumerGroupTargetAssignmentMemberValue versions=0 flexible=0+
  topicPartitions []
    topicId uuid
    partitions []int32

ConsumerGroupCurrentMemberAssignmentKey versions=8
  groupId string v=8
  memberId string v=8

ConsumerGroupCurrentMemberAssignmentValue versions=0 flexible=0+
  memberEpoch int32
  previousMemberEpoch int32
  state int8
  assignedPartitions []
    topicId uuid
    partitions []int32
  partitionsPendingRevocation []
    topicId uuid
    partitions []int32

ShareGroupPartitionMetadataKey versions=9
  groupId string v=9

ShareGroupPartitionMetadataValue versions=0 flexible=0+
  topics []
    topicId uuid
    topicName string
    numPartitions int32
    partitionMetadata []
      partition int32
      racks []string

ShareGroupMemberMetadataKey versions=10
  groupId string v=10
  memberId string v=10

ShareGroupMemberMetadataValue versions=0 flexible=0+
  rackId string null=0+
  clientId string
  clientHost string
  subscribedTopicNames []string

ShareGroupMetadataKey versions=11
  groupId string v=11

ShareGroupMetadataValue versions=0 flexible=0+
  epoch int32

ShareGroupTargetAssignmentMetadataKey versions=12
  groupId string v=12

ShareGroupTargetAssignmentMetadataValue versions=0 flexible=0+
  assignmentEpoch int32

ShareGroupTargetAssignmentMemberKey versions=13
  groupId string v=13
  memberId string v=13

ShareGroupTargetAssignmentMemberValue versions=0 flexible=0+
  topicPartitions []
    topicId uuid
    partitions []int32

ShareGroupCurrentMemberAssignmentKey versions=14
  groupId string v=14
  memberId string v=14

ShareGroupCurrentMemberAssignmentValue versions=0 flexible=0+
  memberEpoch int32
  previousMemberEpoch int32
  state int8
  assignedPartitions []
    topicId uuid
    partitions []int32

ShareGroupStatePartitionMetadataKey versions=15
  groupId string v=15

ShareGroupStatePartitionMetadataValue versions=0 flexible=0+
  initializedTopics []
    topicId uuid
    topicName string
    partitions []int32
  deletingTopics []
    topicId uuid
    topicName string

"""
) | CONSUMER_PROTOCOL

RECORD_TYPES = {
    0: ("OffsetCommitKey", "OffsetCommitValue"),
    1: ("OffsetCommitKey", "OffsetCommitValue"),
    2: ("GroupMetadataKey", "GroupMetadataValue"),
    3: ("ConsumerGroupMetadataKey", "ConsumerGroupMetadataValue"),
    4: ("ConsumerGroupPartitionMetadataKey", "ConsumerGroupPartitionMetadataValue"),
    5: ("ConsumerGroupMemberMetadataKey", "ConsumerGroupMemberMetadataValue"),
    6: ("ConsumerGroupTargetAssignmentMetadataKey", "ConsumerGroupTargetAssignmentMetadataValue"),
    7: ("ConsumerGroupTargetAssignmentMemberKey", "ConsumerGroupTargetAssignmentMemberValue"),
    8: ("ConsumerGroupCurrentMemberAssignmentKey", "ConsumerGroupCurrentMemberAssignmentValue"),
    9: ("ShareGroupPartitionMetadataKey", "ShareGroupPartitionMetadataValue"),
    10: ("ShareGroupMemberMetadataKey", "ShareGroupMemberMetadataValue"),
    11: ("ShareGroupMetadataKey", "ShareGroupMetadataValue"),
    12: ("ShareGroupTargetAssignmentMetadataKey", "ShareGroupTargetAssignmentMetadataValue"),
    13: ("ShareGroupTargetAssignmentMemberKey", "ShareGroupTargetAssignmentMemberValue"),
    14: ("ShareGroupCurrentMemberAssignmentKey", "ShareGroupCurrentMemberAssignmentValue"),
    15: ("ShareGroupStatePartitionMetadataKey", "ShareGroupStatePartitionMetadataValue"),
}

TXN = sw.parse_many(
    """
TransactionLogKey versions=0
  transactionalId string v=0

TransactionLogValue versions=0-1 flexible=1+
  producerId int64
  previousProducerId int64 v=1+ tag=0 tagv=1+ default=-1
  nextProducerId int64 v=1+ tag=1 tagv=1+ default=-1
  producerEpoch int16
  transactionTimeoutMs int32
  transactionStatus int8
  transactionPartitions [] null=0+
    topic string
    partitionIds []int32
  transactionLastUpdateTimestampMs int64
  transactionStartTimestampMs int64
  clientTransactionVersion int16 v=1+ tag=2 tagv=1+ default=0
"""
)

SHARE = sw.parse_many(
    """
ShareSnapshotKey versions=0
  groupId string v=0
  topicId uuid v=0
  partition int32 v=0

ShareUpdateKey versions=1
  groupId string v=1
  topicId uuid v=1
  partition int32 v=1

ShareSnapshotValue versions=0 flexible=0+
  snapshotEpoch uint16 v=0
  stateEpoch int32
  leaderEpoch int32
  startOffset int64 v=0
  stateBatches [] v=0
    firstOffset int64 v=0
    lastOffset int64 v=0
    deliveryState int8 v=0
    deliveryCount int16 v=0

ShareUpdateValue versions=0 flexible=0+
  snapshotEpoch uint16 v=0
  leaderEpoch int32
  startOffset int64 v=0
  stateBatches [] v=0
    firstOffset int64 v=0
    lastOffset int64 v=0
    deliveryState int8 v=0
    deliveryCount int16 v=0
"""
)

METADATA = w.metadata_schemas()  # tests/writer.py's descriptions of Kafka's schemas

REMOTE = sw.parse_many(
    """
RemoteLogSegmentMetadataRecord versions=0 flexible=0+ apiKey=0 \
typeName=REMOTE_LOG_SEGMENT_METADATA_RECORD
  remoteLogSegmentId {}
    topicIdPartition {}
      name string
      id uuid
      partition int32
    id uuid
  startOffset int64
  endOffset int64
  brokerId int32
  maxTimestampMs int64
  eventTimestampMs int64
  segmentLeaderEpochs []
    leaderEpoch int32
    offset int64
  segmentSizeInBytes int32
  customMetadata bytes null=0+ default=null
  remoteLogSegmentState int8

RemoteLogSegmentMetadataUpdateRecord versions=0 flexible=0+ apiKey=1 \
typeName=REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD
  remoteLogSegmentId {}
    topicIdPartition {}
      name string
      id uuid
      partition int32
    id uuid
  brokerId int32
  eventTimestampMs int64
  customMetadata bytes null=0+ default=null
  remoteLogSegmentState int8

RemotePartitionDeleteMetadataRecord versions=0 flexible=0+ apiKey=2 \
typeName=REMOTE_PARTITION_DELETE_METADATA_RECORD
  topicIdPartition {}
    name string
    id uuid
    partition int32
  brokerId int32
  eventTimestampMs int64
  remotePartitionDeleteState int8

RemoteLogSegmentMetadataSnapshotRecord versions=0 flexible=0+ apiKey=3 \
typeName=REMOTE_LOG_SEGMENT_METADATA_SNAPSHOT_RECORD
  segmentId uuid
  startOffset int64
  endOffset int64
  brokerId int32
  maxTimestampMs int64
  eventTimestampMs int64
  segmentLeaderEpochs []
    leaderEpoch int32
    offset int64
  segmentSizeInBytes int32
  customMetadata bytes null=0+ default=null
  remoteLogSegmentState int8
"""
)


def i16(v: int) -> bytes:
    return struct.pack(">h", v)


def frame(api_key: int, version: int, body: bytes, frame_version: int = 1) -> bytes:
    return sw.uvarint(frame_version) + sw.uvarint(api_key) + sw.uvarint(version) + body


def cases(schema: sw.WSchema, seeds: int = 6) -> list[tuple[int, int]]:
    return [(v, s) for v in schema.versions() for s in range(seeds)]


# ============================================================================ helpers


def test_java_string_hashcode() -> None:
    assert java_string_hashcode("") == 0
    assert java_string_hashcode("a") == 97
    assert java_string_hashcode("hello") == 99162322
    assert java_string_hashcode("polygenelubricants") == -(2**31)
    # values printed by Java's String.hashCode
    assert java_string_hashcode("my-group") == -1906497762
    assert java_string_hashcode("my-second-application") == 1090803512
    assert java_string_hashcode("😀") == 1772899  # two UTF-16 code units
    assert java_string_hashcode("é") == 233


def test_coordinator_partition() -> None:
    assert coordinator_partition("polygenelubricants") == 0  # Utils.abs(MIN_VALUE) == 0
    assert coordinator_partition("hello") == 99162322 % 50
    assert coordinator_partition("a", 7) == 97 % 7
    assert coordinator_partition("my-group") == 12  # negative hash
    assert coordinator_partition("console-consumer-48266") == 17
    with pytest.raises(ValueError):
        coordinator_partition("x", 0)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus absent")
def test_coordinator_partition_matches_the_corpus() -> None:
    digest = _corpus_digest()
    for group in digest.group_names():
        parts = {p for p, g in _corpus_groups_by_partition() if g == group}
        assert parts == {coordinator_partition(group)}


# ============================================================================ consumer offsets


def test_offsets_tables_cover_every_record_type() -> None:
    # the record types of this (pre-4.0) table; Kafka 4.x's are in tests/decoders/test_kafka4_records.py
    assert set(RECORD_TYPES) < set(KEY_SCHEMAS) and sorted(KEY_SCHEMAS) == sorted(VALUE_SCHEMAS)
    for t, (key_name, value_name) in RECORD_TYPES.items():
        if t == 0:  # Kafka 4.1 renamed type 0 LegacyOffsetCommit{Key,Value}
            key_name, value_name = "LegacyOffsetCommitKey", "LegacyOffsetCommitValue"
        assert KEY_SCHEMAS[t].name == key_name and VALUE_SCHEMAS[t].name == value_name


OFFSET_CASES = [
    (t, v, seed)
    for t, (_, value_name) in RECORD_TYPES.items()
    for v in COORDINATOR[value_name].versions()
    for seed in range(5)
]


@pytest.mark.parametrize(("record_type", "version", "seed"), OFFSET_CASES)
def test_offsets_round_trip(record_type: int, version: int, seed: int) -> None:
    key_w = COORDINATOR[RECORD_TYPES[record_type][0]]
    value_w = COORDINATOR[RECORD_TYPES[record_type][1]]
    rng = random.Random(record_type * 1000 + version * 10 + seed)
    k = sw.sample(key_w, rng, record_type)
    v = sw.sample(value_w, rng, version)
    if "protocolType" in v:
        v["protocolType"] = "connect"  # consumer groups get their members expanded
    unknown = [(50, b"\x07")] if seed % 2 else None
    key = i16(record_type) + sw.encode(key_w, k, record_type)
    value = i16(version) + sw.encode(value_w, v, version, unknown_tags=unknown)
    out = ConsumerOffsetsDecoder().decode(key, value, 7)
    if record_type in (9, 11, 15):  # this table holds Kafka 4.0's layout; 3.9 or 4.1 differ
        (layout,) = [d for d in layouts("group", "value", record_type) if "4.0" in d.releases]
        assert out.note is not None and out.note.startswith(
            f"read as {layout.label}, the layout that fits (")
        out = dataclasses.replace(out, note=None)
    want_key = {"type": str(record_type), "data": sw.expected_json(key_w, k, record_type)}
    want_value = {"version": str(version), "data": sw.expected_json(value_w, v, version)}
    assert out == Decoded(json_text(want_key), json_text(want_value), want_key, want_value)
    assert json.loads(out.key_text or "") == want_key
    tomb = ConsumerOffsetsDecoder().decode(key, None, 7)
    assert tomb == Decoded(json_text(want_key), "<DELETE>", want_key, None)


def _hex(spec: str) -> bytes:
    return bytes.fromhex(spec.replace(" ", ""))


def test_offsets_formats_vectors() -> None:
    """FORMATS.md §16.7, byte for byte, and the exact DumpLogSegments text."""
    key = _hex("00 01 00 01 67 00 01 74 00 00 00 00")
    v3 = _hex("00 03 00 00 00 00 00 00 00 2a ff ff ff ff 00 00 00 00 01 8b cf e5 68 00")
    v4 = _hex("00 04 00 00 00 00 00 00 00 2a ff ff ff ff 01 00 00 01 8b cf e5 68 00 00")
    assert len(v3) == len(v4) == 24
    d = ConsumerOffsetsDecoder()
    for version, value in (("3", v3), ("4", v4)):
        out = d.decode(key, value, 0)
        assert out.key_text == '{"type":"1","data":{"group":"g","topic":"t","partition":0}}'
        assert out.value_text == (
            f'{{"version":"{version}","data":{{"offset":42,"leaderEpoch":-1,"metadata":"",'
            '"commitTimestamp":1700000000000}}'
        )
        assert out.error is None
    # the independent writer produces the same bytes
    w = COORDINATOR["OffsetCommitValue"]
    values = {"offset": 42, "leaderEpoch": -1, "metadata": "", "commitTimestamp": TS}
    assert i16(3) + sw.encode(w, values, 3) == v3 and i16(4) + sw.encode(w, values, 4) == v4
    assert d.decode(_hex("00 02 00 01 67"), None, 0).key_text == ('{"type":"2","data":{"group":"g"}}')


def test_offset_commit_versions_texts() -> None:
    key = i16(1) + b"\x00\x01g\x00\x01t" + struct.pack(">i", 3)
    d = ConsumerOffsetsDecoder()
    v0 = i16(0) + struct.pack(">q", 5) + b"\x00\x02md" + struct.pack(">q", TS)
    assert d.decode(key, v0, 0).value_text == (
        '{"version":"0","data":{"offset":5,"metadata":"md","commitTimestamp":1700000000000}}'
    )
    v1 = i16(1) + struct.pack(">q", 5) + b"\x00\x00" + struct.pack(">qq", TS, TS + 1)
    assert d.decode(key, v1, 0).value_text == (
        '{"version":"1","data":{"offset":5,"metadata":"","commitTimestamp":1700000000000,'
        '"expireTimestamp":1700000000001}}'
    )


def _subscription(version: int, values: dict[str, Any]) -> bytes:
    return i16(version) + sw.encode(COORDINATOR["ConsumerProtocolSubscription"], values, version)


def _assignment(version: int, values: dict[str, Any]) -> bytes:
    return i16(version) + sw.encode(COORDINATOR["ConsumerProtocolAssignment"], values, version)


def _group_value(protocol_type: str, members: list[dict[str, Any]], version: int = 3) -> bytes:
    values = {
        "protocolType": protocol_type,
        "generation": 4,
        "protocol": "range",
        "leader": "m1",
        "currentStateTimestamp": TS,
        "members": members,
    }
    return i16(version) + sw.encode(COORDINATOR["GroupMetadataValue"], values, version)


def _member(subscription: bytes, assignment: bytes) -> dict[str, Any]:
    return {
        "memberId": "m1",
        "groupInstanceId": None,
        "clientId": "c",
        "clientHost": "/10.0.0.1",
        "rebalanceTimeout": 300000,
        "sessionTimeout": 10000,
        "subscription": subscription,
        "assignment": assignment,
    }


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_group_metadata_consumer_members_are_expanded(version: int) -> None:
    sub_values = {
        "topics": ["a", "b"],
        "userData": b"\x01\x02",
        "ownedPartitions": [{"topic": "a", "partitions": [0, 2]}],
        "generationId": 9,
        "rackId": "r1",
    }
    asg_values = {"assignedPartitions": [{"topic": "a", "partitions": [1]}], "userData": None}
    sub, asg = _subscription(version, sub_values), _assignment(version, asg_values)
    for gm_version in range(5):
        out = ConsumerOffsetsDecoder().decode(
            i16(2) + b"\x00\x01g", _group_value("consumer", [_member(sub, asg)], gm_version), 0
        )
        assert out.error is None
        member = json.loads(out.value_text or "")["data"]["members"][0]
        want_sub = sw.expected_json(COORDINATOR["ConsumerProtocolSubscription"], sub_values, version)
        assert member["subscription"] == want_sub
        assert member["assignment"] == {
            "assignedPartitions": [{"topic": "a", "partitions": [1]}],
            "userData": None,
        }
        assert out.value_json == json.loads(out.value_text or "")


def test_group_metadata_expansion_exact_text() -> None:
    sub = _subscription(1, {"topics": ["first_topic"], "userData": None, "ownedPartitions": []})
    asg = _assignment(1, {"assignedPartitions": [{"topic": "first_topic", "partitions": [0]}]})
    out = ConsumerOffsetsDecoder().decode(
        i16(2) + b"\x00\x01g", _group_value("consumer", [_member(sub, asg)]), 0
    )
    assert out.value_text == (
        '{"version":"3","data":{"protocolType":"consumer","generation":4,"protocol":"range",'
        '"leader":"m1","currentStateTimestamp":1700000000000,"members":[{"memberId":"m1",'
        '"groupInstanceId":null,"clientId":"c","clientHost":"/10.0.0.1",'
        '"rebalanceTimeout":300000,"sessionTimeout":10000,"subscription":{"topics":'
        '["first_topic"],"userData":null,"ownedPartitions":[]},"assignment":'
        '{"assignedPartitions":[{"topic":"first_topic","partitions":[0]}],"userData":null}}]}}'
    )


def test_group_metadata_expansion_fallbacks() -> None:
    good = _subscription(0, {"topics": ["t"], "userData": None})
    newer = i16(7) + sw.encode(
        COORDINATOR["ConsumerProtocolSubscription"],
        {"topics": ["t"], "ownedPartitions": [], "generationId": 3, "rackId": None},
        3,
    )
    for sub, asg, want_sub, want_asg in [
        (b"", b"", "", ""),  # an empty assignment stays an empty base64 string
        (b"\x00", b"\x00\x00\xff", "AA==", "AAD/"),  # truncated: raw base64 kept
        (good, b"", {"topics": ["t"], "userData": None}, ""),
        # a newer version is read with the v3 layout (Kafka's generated code)
        (
            newer,
            b"",
            {"topics": ["t"], "userData": None, "ownedPartitions": [], "generationId": 3, "rackId": None},
            "",
        ),
    ]:
        out = ConsumerOffsetsDecoder().decode(
            i16(2) + b"\x00\x01g", _group_value("consumer", [_member(sub, asg)]), 0
        )
        member = json.loads(out.value_text or "")["data"]["members"][0]
        assert member["subscription"] == want_sub and member["assignment"] == want_asg
    # other protocol types keep the bytes
    out = ConsumerOffsetsDecoder().decode(
        i16(2) + b"\x00\x01g", _group_value("connect", [_member(good, b"")]), 0
    )
    member = json.loads(out.value_text or "")["data"]["members"][0]
    assert member["subscription"] == base64.b64encode(good).decode()


def test_offsets_unknown_and_broken_records() -> None:
    d = ConsumerOffsetsDecoder()
    out = d.decode(i16(18) + b"\x00\x01g", b"\x00\x00", 12)
    assert out.key_text == "Unknown record type 18 at offset 12, skipping."
    assert out.value_text is None and out.error == (
        "unknown record type 18 of __consumer_offsets, value version 0: not a type of Kafka "
        "3.9-4.4 (known: 0-17, 19-23); raw bytes kept")
    assert out.key_json == {"type": "18", "raw": base64.b64encode(i16(18) + b"\x00\x01g").decode()}

    out = d.decode(b"\x00", None, 3)
    assert out.key_text == "Error at offset 3, skipping. Could not read version from key's buffer."
    assert out.value_text is None and out.error

    out = d.decode(i16(1) + b"\x00\x05gr", None, 4)
    assert out.key_text is not None
    assert out.key_text.startswith(
        "Error at offset 4, skipping. Could not read record with version 1 from key's buffer due to:"
    )

    key = bytes.fromhex("000100016700017400000000")
    out = d.decode(key, b"\x00\x03\x00", 5)
    assert out.key_text is not None and out.key_text.startswith(
        "Error at offset 5, skipping. Could not read record with version 3 from value's buffer"
    )
    assert out.key_json == {"type": "1", "data": {"group": "g", "topic": "t", "partition": 0}}
    assert out.value_json == {"version": "3", "raw": "AAMA"}

    out = d.decode(None, b"x", 6)
    assert out.error == (
        "Failed to decode message at offset 6 using offset topic decoder (message had a missing key)"
    )


def test_offsets_unknown_value_version_is_named_not_read() -> None:
    """Kafka 4.x: "Found an unknown record version"; the raw bytes are kept."""
    key = bytes.fromhex("000100016700017400000000")
    v4 = _hex("00 04 00 00 00 00 00 00 00 2a ff ff ff ff 01 00 00 01 8b cf e5 68 00 00")
    out = ConsumerOffsetsDecoder().decode(key, i16(9) + v4[2:], 0)
    assert out.key_text == "Error at offset 0, skipping. Found an unknown record version 9 for 1 type"
    assert out.value_text is None
    assert out.value_json == {"version": "9", "raw": base64.b64encode(i16(9) + v4[2:]).decode()}
    assert out.error == ("OffsetCommitValue version 9 is not a version of Kafka 3.9-4.4 "
                         "(known: 0-4); raw bytes kept")


def test_offsets_trailing_bytes_are_reported() -> None:
    key = bytes.fromhex("000100016700017400000000")
    v4 = _hex("00 04 00 00 00 00 00 00 00 2a ff ff ff ff 01 00 00 01 8b cf e5 68 00 00")
    out = ConsumerOffsetsDecoder().decode(key, v4 + b"\x00\x00", 0)
    assert out.value_text is not None and out.error == ("2 unread byte(s) after the OffsetCommitValue")


def test_offsets_decoder_never_raises() -> None:
    rng = random.Random(3)
    d = ConsumerOffsetsDecoder()
    for _ in range(3000):
        key = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 12)))
        if rng.random() < 0.7:
            key = i16(rng.randint(0, 16)) + key
        value = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 30)))
        if rng.random() < 0.7:
            value = i16(rng.randint(-1, 5)) + value
        out = d.decode(key, value if rng.random() < 0.9 else None, 1)
        assert isinstance(out, Decoded)


# ============================================================================ transaction log


@pytest.mark.parametrize(("version", "seed"), cases(TXN["TransactionLogValue"], 8))
def test_transaction_log_round_trip(version: int, seed: int) -> None:
    key_w, value_w = TXN["TransactionLogKey"], TXN["TransactionLogValue"]
    rng = random.Random(seed * 3 + version)
    k = sw.sample(key_w, rng, 0)
    v = sw.sample(value_w, rng, version)
    v["transactionStatus"] = rng.randint(1, 7)
    v["clientTransactionVersion"] = rng.choice([0, 1, 2])
    if v["transactionPartitions"] is None:
        v["transactionPartitions"] = []
    key = i16(0) + sw.encode(key_w, k, 0)
    value = i16(version) + sw.encode(value_w, v, version)
    out = TransactionLogDecoder().decode(key, value, 0)
    assert out.error is None
    assert out.key_text == f"transaction_metadata::transactionalId={k['transactionalId']}"
    assert out.key_json == {"version": "0", "data": sw.expected_json(key_w, k, 0)}
    assert isinstance(out.value_json, dict)
    assert out.value_json["data"] == sw.expected_json(value_w, v, version)
    assert out.value_json["version"] == str(version)
    assert TransactionLogDecoder().decode(key, None, 0).value_text == "<DELETE>"


def _txn_value(state: int, partitions: list[dict[str, Any]] | None, version: int = 0) -> bytes:
    values = {
        "producerId": 1000,
        "producerEpoch": 2,
        "transactionTimeoutMs": 60000,
        "transactionStatus": state,
        "transactionPartitions": partitions,
        "transactionLastUpdateTimestampMs": TS + 5,
        "transactionStartTimestampMs": TS,
        "previousProducerId": 999,
    }
    return i16(version) + sw.encode(TXN["TransactionLogValue"], values, version)


def test_transaction_log_text() -> None:
    key = i16(0) + b"\x00\x06my-txn"
    d = TransactionLogDecoder()
    out = d.decode(key, _txn_value(1, [{"topic": "t", "partitionIds": [0, 1, 2]}]), 0)
    assert out.key_text == "transaction_metadata::transactionalId=my-txn"
    # a Scala mutable.HashSet: TopicPartition hashes put t-2 first
    assert out.value_text == (
        "producerId:1000,producerEpoch:2,state=Ongoing,partitions=[t-2,t-1,t-0],"
        "txnLastUpdateTimestamp=1700000000005,txnTimeoutMs=60000"
    )
    out = d.decode(key, _txn_value(0, None, 1), 0)
    assert out.value_text == (
        "producerId:1000,producerEpoch:2,state=Empty,partitions=[],"
        "txnLastUpdateTimestamp=1700000000005,txnTimeoutMs=60000"
    )
    assert isinstance(out.value_json, dict)
    assert out.value_json["data"]["previousProducerId"] == 999
    assert out.value_json["state"] == "Empty"
    names = ["Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit"]
    names += ["CompleteAbort", "Dead", "PrepareEpochFence"]
    for state, name in enumerate(names):
        text = d.decode(key, _txn_value(state, []), 0).value_text or ""
        assert f",state={name}," in text


def test_scala_hashset_order_examples() -> None:
    # Orders printed by Scala 2.13's mutable.HashSet (scala-library, via a JVM harness).
    assert scala_hashset_order([[("t", p) for p in range(14)]]) == [("t", p) for p in range(13, -1, -1)]
    got = scala_hashset_order([[("a", 0), ("a", 1)], [("b", 0), ("b", 1), ("b", 2)], [("c", 5)]])
    assert [f"{t}-{p}" for t, p in got] == ["a-1", "b-2", "a-0", "b-1", "b-0", "c-5"]
    got = scala_hashset_order([[("orders", p) for p in range(12)]])
    assert [p for _, p in got] == [7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6]
    x = scala_hashset_order(
        [
            [("x", 1), ("x", 2), ("x", 3), ("x", 4)],
            [("x", p) for p in (5, 6, 7, 8)],
            [("y", p) for p in (1, 2, 3, 4)],
            [("z", p) for p in (9, 8, 7)],
        ]
    )
    assert ",".join(f"{t}-{p}" for t, p in x) == (
        "x-8,x-7,z-9,x-6,z-8,x-5,z-7,x-4,x-3,y-4,x-2,y-3,x-1,y-2,y-1"
    )


def test_transaction_log_unknown_and_broken() -> None:
    d = TransactionLogDecoder()
    out = d.decode(i16(1) + b"\x00\x01x", b"\x00\x00", 3)
    assert out.key_text == "unknown::version=1" and out.value_text is None and out.error
    key = i16(0) + b"\x00\x01x"
    out = d.decode(key, i16(2) + b"\x00", 3)
    assert out.error == ("Unknown version 2 from the transaction log message value: "
                         "TransactionLogValue version 2 is not a version of Kafka 3.9-4.4 "
                         "(known 0-1); raw bytes kept")
    out = d.decode(key, _txn_value(9, []), 3)
    assert out.error == "Unknown transaction state id 9 from the transaction status message"
    out = d.decode(key, _txn_value(1, None), 3)
    assert out.error and out.key_text and out.key_text.startswith("Error at offset 3, skipping.")
    out = d.decode(None, None, 4)
    assert out.error and out.value_text is None
    out = d.decode(key, _txn_value(1, [])[:-3], 5)
    assert out.error and out.key_text and out.key_text.startswith("Error at offset 5")


# ============================================================================ cluster metadata


def test_metadata_tables_cover_every_api_key() -> None:
    # tests/support/kraft.py describes the pre-4.x records; Kafka 4.x's: test_kafka4_records.py
    assert set(METADATA_SCHEMAS) >= {s.api_key or 0 for s in METADATA.values()}
    for s in METADATA.values():
        assert METADATA_SCHEMAS[s.api_key or 0].v_valid.lo == s.valid[0]
        assert METADATA_SCHEMAS[s.api_key or 0].v_valid.hi >= s.valid[1]


METADATA_CASES = [(name, v, seed) for name, s in METADATA.items() for v, seed in cases(s, 6)]


@pytest.mark.parametrize(("name", "version", "seed"), METADATA_CASES)
def test_metadata_round_trip(name: str, version: int, seed: int) -> None:
    w = METADATA[name]
    values = sw.sample(w, random.Random(f"{name}/{version}/{seed}"), version)
    body = sw.encode(w, values, version, unknown_tags=[(90, b"\x01")] if seed % 2 else None)
    assert w.api_key is not None
    dec = ClusterMetadataDecoder()
    dec.show_secrets = True  # every field compared, secrets too (redaction: tests/hostile/test_bounded.py)
    out = dec.decode(None, frame(w.api_key, version, body), 11)
    want = {"type": w.type_name, "version": version, "data": sw.expected_json(w, values, version)}
    assert out.error is None, out.error
    assert out.value_json == want and out.key_text is None and out.key_json is None
    assert out.value_text == json_text(want)


def test_metadata_formats_vector() -> None:
    value = bytes.fromhex("010c00116d657461646174612e76657273696f6e001500")
    out = ClusterMetadataDecoder().decode(None, value, 0)
    assert out.value_text == (
        '{"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":21}}'
    )


def test_metadata_exact_texts() -> None:
    topic_id = "AAAAAAAAAAAAAAAAAAAAAQ"
    body = sw.encode(
        METADATA["PartitionChangeRecord"],
        {"partitionId": 1, "topicId": topic_id, "isr": [1, 2], "leader": 2},
        0,
    )
    out = ClusterMetadataDecoder().decode(None, frame(5, 0, body), 0)
    assert out.value_text == (
        '{"type":"PARTITION_CHANGE_RECORD","version":0,"data":{"partitionId":1,'
        f'"topicId":"{topic_id}","isr":[1,2],"leader":2}}}}'
    )
    body = sw.encode(
        METADATA["ClientQuotaRecord"],
        {"entity": [{"entityType": "user", "entityName": None}], "key": "k", "value": 1e7},
        0,
    )
    out = ClusterMetadataDecoder().decode(None, frame(14, 0, body), 0)
    assert out.value_text == (
        '{"type":"CLIENT_QUOTA_RECORD","version":0,"data":{"entity":[{"entityType":"user",'
        '"entityName":null}],"key":"k","value":1.0E7,"remove":false}}'
    )


def test_metadata_errors() -> None:
    d = ClusterMetadataDecoder()
    body = sw.encode(METADATA["TopicRecord"], {"name": "t", "topicId": "A" * 22}, 0)
    assert d.decode(None, frame(2, 0, body, 0), 5).value_text == (
        "Error at 5, skipping. Could not deserialize metadata record with frame version 0. "
        "Note that upgrades from the preview release of KRaft in 2.8 to newer versions are "
        "not supported."
    )
    assert d.decode(None, frame(2, 0, body, 2), 5).value_text == (
        "Error at 5, skipping. Could not deserialize metadata record due to unknown frame "
        "version 2(only frame version 1 is supported)"
    )
    out = d.decode(None, frame(6, 0, body), 5)
    assert out.value_text == (
        "Error at 5, skipping. org.apache.kafka.common.errors.UnsupportedVersionException: "
        "Unknown metadata id 6"
    )
    assert out.error == out.value_text + (
        " (metadata record type 6, version 0: not a type of Kafka 3.9-4.4; raw bytes kept)")
    assert isinstance(out.value_json, dict) and out.value_json["apiKey"] == 6
    assert d.decode(None, frame(2, 0, body + b"\x00"), 5).value_text == (
        "Error at 5, skipping. Found 1 byte(s) of garbage after 2"
    )
    assert d.decode(None, frame(2, 0, body[:-3]), 5).value_text == (
        "Error at 5, skipping. Failed to deserialize record with type 2"
    )
    assert d.decode(None, None, 5).value_text == ("Error at 5, skipping. Error while reading frame version")
    assert d.decode(None, b"\x01\xff\xff\x03", 5).value_text == (
        "Error at 5, skipping. Value for type was too large."
    )
    # newer versions read with the highest known layout, and say so
    out = d.decode(None, frame(2, 3, body), 5)
    assert json.loads(out.value_text or "")["version"] == 3 and out.error


def test_metadata_log_and_snapshot_written_by_the_test_encoder() -> None:
    """A KRaft log segment and a snapshot (kafka-python batches) decode record by record."""
    from kafka.record.default_records import (  # type: ignore[import-untyped, unused-ignore]
        DefaultRecordBatchBuilder,
    )
    from kafka.record.memory_records import (  # type: ignore[import-untyped, unused-ignore]
        MemoryRecords,
    )

    rng = random.Random(11)
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=0,
        is_transactional=False,
        producer_id=-1,
        producer_epoch=-1,
        base_sequence=-1,
        batch_size=1 << 20,
    )
    wants = []
    for i, w in enumerate(METADATA.values()):  # noqa: F402 (a schema here, not the encoder)
        version = w.valid[1] if i % 2 else w.valid[0]
        values = sw.sample(w, rng, version)
        assert w.api_key is not None
        builder.append(
            i,
            timestamp=TS,
            key=None,
            value=frame(w.api_key, version, sw.encode(w, values, version)),
            headers=[],
        )
        wants.append({"type": w.type_name, "version": version, "data": sw.expected_json(w, values, version)})
    records = MemoryRecords(bytes(builder.build()))
    batch = records.next_batch()
    assert batch is not None
    dec = ClusterMetadataDecoder()
    dec.show_secrets = True  # every field compared, secrets too (redaction: tests/hostile/test_bounded.py)
    got = [dec.decode(r.key, r.value, r.offset) for r in batch]
    assert [g.value_json for g in got] == wants
    assert all(g.error is None for g in got)
    # the snapshot's control records (header, KRaft version, footer)
    header = i16(0) + struct.pack(">q", TS) + b"\x00"
    assert decode_control_value(3, header) == {"version": 0, "lastContainedLogTimestamp": TS}
    assert decode_control_value(5, i16(0) + i16(1) + b"\x00") == {"version": 0, "kRaftVersion": 1}
    assert decode_control_value(4, i16(0) + b"\x00") == {"version": 0}


# ============================================================================ share group state


@pytest.mark.parametrize("record_type", [0, 1])
@pytest.mark.parametrize("seed", range(8))
def test_share_group_state_round_trip(record_type: int, seed: int) -> None:
    key_w = SHARE["ShareSnapshotKey" if record_type == 0 else "ShareUpdateKey"]
    value_w = SHARE["ShareSnapshotValue" if record_type == 0 else "ShareUpdateValue"]
    rng = random.Random(seed + 100 * record_type)
    k, v = sw.sample(key_w, rng, record_type), sw.sample(value_w, rng, 0)
    for batch in v["stateBatches"]:  # a RecordState: the layouts are told apart by it too
        batch["deliveryState"] = rng.choice((0, 1, 2, 4))
    version = 0  # Kafka 4.x writes both values at version 0 (a pre-4.0 trunk wrote 1)
    key = i16(record_type) + sw.encode(key_w, k, record_type)
    value = i16(version) + sw.encode(value_w, v, 0)
    out = ShareGroupStateDecoder().decode(key, value, 0)
    # this table holds Kafka 4.0's layout, which 4.1 changed at the same version
    assert out.note is not None and out.note.startswith(
        f"read as {value_w.name} (Kafka 4.0), the layout that fits (")
    out = dataclasses.replace(out, note=None)
    want_key = {"type": str(record_type), "data": sw.expected_json(key_w, k, record_type)}
    want_value = {"type": str(version), "data": sw.expected_json(value_w, v, 0)}
    assert out == Decoded(json_text(want_key), json_text(want_value), want_key, want_value)
    assert ShareGroupStateDecoder().decode(key, None, 0).value_text == "<DELETE>"


def test_share_group_state_errors() -> None:
    d = ShareGroupStateDecoder()
    out = d.decode(i16(2) + b"\x00\x00", None, 4)
    assert out.key_text == "Unknown record type 2 at offset 4, skipping."
    out = d.decode(None, b"\x00", 4)
    assert out.error == (
        "Failed to decode message at offset 4 using share group state topic decoder "
        "(message had a missing key)"
    )


# ============================================================================ remote log metadata

_TID = "AAAAAAAAAAAAAAAAAAAAAQ"
_SID = "AAAAAAAAAAAAAAAAAAAAAg"


def _remote(name: str, values: dict[str, Any]) -> bytes:
    w = REMOTE[name]
    assert w.api_key is not None
    return frame(w.api_key, 0, sw.encode(w, values, 0))


_SEGMENT = {
    "remoteLogSegmentId": {"topicIdPartition": {"name": "foo", "id": _TID, "partition": 0}, "id": _SID},
    "startOffset": 0,
    "endOffset": 100,
    "brokerId": 1,
    "maxTimestampMs": TS,
    "eventTimestampMs": TS + 1,
    "segmentLeaderEpochs": [{"leaderEpoch": 3, "offset": 50}, {"leaderEpoch": 0, "offset": 0}],
    "segmentSizeInBytes": 1024,
    "customMetadata": b"abc",
    "remoteLogSegmentState": 1,
}


def test_remote_log_metadata_texts() -> None:
    d = RemoteLogMetadataDecoder()
    out = d.decode(None, _remote("RemoteLogSegmentMetadataRecord", _SEGMENT), 0)
    seg_id = f"RemoteLogSegmentId{{topicIdPartition={_TID}:foo-0, id={_SID}}}"
    assert out.value_text == (
        f"RemoteLogSegmentMetadata{{remoteLogSegmentId={seg_id}, startOffset=0, endOffset=100, "
        "brokerId=1, maxTimestampMs=1700000000000, eventTimestampMs=1700000000001, "
        "segmentLeaderEpochs={0=0, 3=50}, segmentSizeInBytes=1024, "
        "customMetadata=Optional[CustomMetadata{3 bytes}], state=COPY_SEGMENT_FINISHED}"
    )
    update = {k: _SEGMENT[k] for k in ("remoteLogSegmentId", "brokerId", "eventTimestampMs")}
    update.update(customMetadata=None, remoteLogSegmentState=2)
    out = d.decode(None, _remote("RemoteLogSegmentMetadataUpdateRecord", update), 0)
    assert out.value_text == (
        f"RemoteLogSegmentMetadataUpdate{{remoteLogSegmentId={seg_id}, "
        "customMetadata=Optional.empty, state=DELETE_SEGMENT_STARTED, "
        "eventTimestampMs=1700000000001, brokerId=1}"
    )
    delete = {
        "topicIdPartition": {"name": "foo", "id": _TID, "partition": 7},
        "brokerId": 2,
        "eventTimestampMs": TS,
        "remotePartitionDeleteState": 0,
    }
    out = d.decode(None, _remote("RemotePartitionDeleteMetadataRecord", delete), 0)
    assert out.value_text == (
        f"RemotePartitionDeleteMetadata{{topicPartition={_TID}:foo-7, "
        "state=DELETE_PARTITION_MARKED, eventTimestampMs=1700000000000, brokerId=2}"
    )
    snap = {k: v for k, v in _SEGMENT.items() if k != "remoteLogSegmentId"}
    snap["segmentId"] = _SID
    out = d.decode(None, _remote("RemoteLogSegmentMetadataSnapshotRecord", snap), 0)
    assert out.value_text == (
        f"RemoteLogSegmentMetadataSnapshot{{segmentId={_SID}, startOffset=0, endOffset=100, "
        "maxTimestampMs=1700000000000, segmentLeaderEpochs={0=0, 3=50}, "
        "segmentSizeInBytes=1024, customMetadata=Optional[CustomMetadata{3 bytes}], "
        "state=COPY_SEGMENT_FINISHED}"
    )
    assert isinstance(out.value_json, dict)
    assert out.value_json["type"] == "REMOTE_LOG_SEGMENT_METADATA_SNAPSHOT_RECORD"


@pytest.mark.parametrize("name", sorted(REMOTE))
@pytest.mark.parametrize("seed", range(4))
def test_remote_log_metadata_json_round_trip(name: str, seed: int) -> None:
    w = REMOTE[name]
    values = sw.sample(w, random.Random(seed), 0)
    out = RemoteLogMetadataDecoder().decode(None, _remote(name, values), 0)
    assert out.value_json == {"type": w.type_name, "version": 0, "data": sw.expected_json(w, values, 0)}


def test_remote_log_metadata_errors() -> None:
    d = RemoteLogMetadataDecoder()
    bad = dict(_SEGMENT, segmentLeaderEpochs=[])
    out = d.decode(None, _remote("RemoteLogSegmentMetadataRecord", bad), 9)
    assert out.value_text == ("Error at offset 9, skipping. segmentLeaderEpochs can not be null or empty")
    bad = dict(_SEGMENT, startOffset=-1)
    out = d.decode(None, _remote("RemoteLogSegmentMetadataRecord", bad), 9)
    assert out.value_text == (
        "Error at offset 9, skipping. Unexpected start offset = -1. "
        "StartOffset for a remote segment cannot be negative"
    )
    bad = dict(_SEGMENT, remoteLogSegmentState=9)
    out = d.decode(None, _remote("RemoteLogSegmentMetadataRecord", bad), 9)
    assert out.value_text == "Error at offset 9, skipping. state can not be null"
    out = d.decode(None, None, 9)
    assert out.error and out.value_text and out.value_text.startswith("Error at offset 9, skipping.")
    out = d.decode(None, frame(4, 0, b"\x00"), 9)
    assert out.value_text == (
        "Error at offset 9, skipping. org.apache.kafka.common.errors.UnsupportedVersionException: "
        "Unknown metadata id 4"
    )


# ============================================================================ digest


def _commit(group: str, topic: str, partition: int, offset: int, ts: int = TS) -> tuple[bytes, bytes]:
    key = i16(1) + sw.encode(
        COORDINATOR["OffsetCommitKey"], {"group": group, "topic": topic, "partition": partition}, 1
    )
    value = i16(3) + sw.encode(
        COORDINATOR["OffsetCommitValue"],
        {"offset": offset, "leaderEpoch": 0, "metadata": "m", "commitTimestamp": ts},
        3,
    )
    return key, value


def test_offsets_digest() -> None:
    d = ConsumerOffsetsDecoder()
    digest = OffsetsDigest()
    log = [
        (_commit("g", "t", 0, 5), False),
        (_commit("g", "t", 0, 9, TS + 1), False),
        (_commit("g", "t", 1, 3), False),
        (_commit("g", "t", 1, 99), True),  # aborted transaction: never took effect
        ((_commit("g", "u", 0, 1)[0], None), False),  # tombstone for a partition never seen
        (_commit("h", "t", 0, 4), False),
        ((_commit("h", "t", 0, 4)[0], None), False),  # h's offset deleted
    ]
    for i, ((k, v), aborted) in enumerate(log):
        digest.add_decoded(d.decode(k, v, i), aborted=aborted, log_offset=i)
    sub = _subscription(0, {"topics": ["t"], "userData": None})
    group = d.decode(i16(2) + b"\x00\x01g", _group_value("consumer", [_member(sub, b"")]), 9)
    digest.add_decoded(group, log_offset=9)
    got = [(o.group, o.topic, o.partition, o.offset, o.commit_timestamp) for o in digest.offsets()]
    assert got == [("g", "t", 0, 9, TS + 1), ("g", "t", 1, 3, TS)]
    assert digest.offsets()[0].metadata == "m" and digest.offsets()[0].leader_epoch == 0
    (summary,) = digest.groups()
    assert (summary.group, summary.protocol_type, summary.generation, summary.leader) == (
        "g",
        "consumer",
        4,
        "m1",
    )
    assert summary.members == 1 and summary.protocol == "range"
    assert digest.skipped_aborted == 1 and digest.group_names() == ["g"]
    # a late, older record (a transactional commit replayed at its marker) loses
    k, v = _commit("g", "t", 0, 1)
    digest.add_decoded(d.decode(k, v, 0), log_offset=0)
    assert digest.offsets()[0].offset == 9
    # deleting the group removes its metadata
    digest.add_decoded(d.decode(i16(2) + b"\x00\x01g", None, 10), log_offset=10)
    assert digest.groups() == []


# ============================================================================ real data


def _corpus_records() -> list[tuple[int, int, bytes | None, bytes | None]]:
    from kafka.record import MemoryRecords  # type: ignore[import-untyped, unused-ignore]

    out = []
    for log in sorted(CORPUS.glob("__consumer_offsets-*/00000000000000000000.log")):
        partition = int(log.parent.name.rsplit("-", 1)[1])
        records = MemoryRecords(log.read_bytes())
        while True:
            batch = records.next_batch()
            if batch is None:
                break
            for r in batch:
                out.append((partition, r.offset, r.key, r.value))
    return out


def _corpus_digest() -> OffsetsDigest:
    digest = OffsetsDigest()
    d = ConsumerOffsetsDecoder()
    for _, offset, key, value in _corpus_records():
        digest.add_decoded(d.decode(key, value, offset), log_offset=offset)
    return digest


def _corpus_groups_by_partition() -> set[tuple[int, str]]:
    d = ConsumerOffsetsDecoder()
    out = set()
    for partition, offset, key, value in _corpus_records():
        kj = d.decode(key, value, offset).key_json
        assert isinstance(kj, dict)
        out.add((partition, kj["data"]["group"]))
    return out


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus absent")
def test_real_consumer_offsets_decode_without_errors() -> None:
    d = ConsumerOffsetsDecoder()
    records = _corpus_records()
    assert len(records) == 470 + 499 + 50 + 3 + 3
    types: dict[str, int] = {}
    for _, offset, key, value in records:
        out = d.decode(key, value, offset)
        assert out.error is None, (offset, out.error)
        assert isinstance(out.key_json, dict) and out.key_text is not None
        group = out.key_json["data"]["group"]
        assert isinstance(group, str) and group
        types[out.key_json["type"]] = types.get(out.key_json["type"], 0) + 1
        if value is not None:
            assert json.loads(out.value_text or "") == out.value_json
    assert set(types) == {"1", "2"}


@pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus absent")
def test_real_consumer_offsets_digest_names_groups() -> None:
    digest = _corpus_digest()
    names = digest.group_names()
    assert names and all(names)
    assert digest.offsets() and all(o.offset >= 0 for o in digest.offsets())
    assert all(o.topic for o in digest.offsets())
    for g in digest.groups():
        assert g.protocol_type in ("consumer", "")


# ============================================================================ robustness


def _valid_records() -> list[tuple[Any, bytes | None, bytes | None]]:
    """(decoder, key, value) triples of well-formed records of every decoder."""
    rng = random.Random(5)
    out: list[tuple[Any, bytes | None, bytes | None]] = []
    for t, (key_name, value_name) in RECORD_TYPES.items():
        key_w, value_w = COORDINATOR[key_name], COORDINATOR[value_name]
        v = value_w.valid[1]
        key = i16(t) + sw.encode(key_w, sw.sample(key_w, rng, t), t)
        out.append(
            (ConsumerOffsetsDecoder(), key, i16(v) + sw.encode(value_w, sw.sample(value_w, rng, v), v))
        )
    txn_v = sw.sample(TXN["TransactionLogValue"], rng, 1)
    txn_v["transactionStatus"], txn_v["transactionPartitions"] = 1, [{"topic": "t", "partitionIds": [1]}]
    out.append(
        (
            TransactionLogDecoder(),
            i16(0) + b"\x00\x01x",
            i16(1) + sw.encode(TXN["TransactionLogValue"], txn_v, 1),
        )
    )
    for w in METADATA.values():  # noqa: F402 (a schema here, not the encoder)
        assert w.api_key is not None
        body = sw.encode(w, sw.sample(w, rng, w.valid[1]), w.valid[1])
        out.append((ClusterMetadataDecoder(), None, frame(w.api_key, w.valid[1], body)))
    update = {k: _SEGMENT[k] for k in ("remoteLogSegmentId", "brokerId", "eventTimestampMs")}
    update.update(customMetadata=None, remoteLogSegmentState=1)
    snap = {k: v for k, v in _SEGMENT.items() if k != "remoteLogSegmentId"}
    snap["segmentId"] = _SID
    delete = {
        "topicIdPartition": {"name": "foo", "id": _TID, "partition": 7},
        "brokerId": 2,
        "eventTimestampMs": TS,
        "remotePartitionDeleteState": 1,
    }
    for name, values in (
        ("RemoteLogSegmentMetadataRecord", _SEGMENT),
        ("RemoteLogSegmentMetadataUpdateRecord", update),
        ("RemotePartitionDeleteMetadataRecord", delete),
        ("RemoteLogSegmentMetadataSnapshotRecord", snap),
    ):
        out.append((RemoteLogMetadataDecoder(), None, _remote(name, values)))
    for t in (0, 1):
        key_w = SHARE["ShareSnapshotKey" if t == 0 else "ShareUpdateKey"]
        value_w = SHARE["ShareSnapshotValue" if t == 0 else "ShareUpdateValue"]
        key = i16(t) + sw.encode(key_w, sw.sample(key_w, rng, t), t)
        v = sw.sample(value_w, rng, 0)
        for batch in v["stateBatches"]:
            batch["deliveryState"] = 2
        out.append((ShareGroupStateDecoder(), key, i16(0) + sw.encode(value_w, v, 0)))
    return out


def _mutate(rng: random.Random, data: bytes | None) -> bytes | None:
    if data is None or rng.random() < 0.3:
        return data
    b = bytearray(data)
    choice = rng.random()
    if choice < 0.4 and b:
        del b[rng.randrange(len(b)) :]
    elif choice < 0.8 and b:
        for _ in range(rng.randint(1, 3)):
            b[rng.randrange(len(b))] = rng.getrandbits(8)
    else:
        b += bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 4)))
    return bytes(b)


def test_every_decoder_survives_damaged_records() -> None:
    rng = random.Random(17)
    records = _valid_records()
    for decoder, key, value in records:
        out = decoder.decode(key, value, 1)
        assert out.error is None, (decoder.name, out.error)
    for _ in range(40):
        for decoder, key, value in records:
            out = decoder.decode(_mutate(rng, key), _mutate(rng, value), 2)
            assert isinstance(out, Decoded)
            assert out.key_text is not None or out.value_text is not None
            json_text(out.key_json)
            json_text(out.value_json)
