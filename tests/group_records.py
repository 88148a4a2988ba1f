"""Test-side descriptions of the Kafka 4.x records the ``groups`` tests write: metadata
records (ClearElrRecord, RegisterBrokerRecord v4, BrokerRegistrationChangeRecord v3)
and coordinator records of ``__consumer_offsets`` (KIP-848 consumer groups with regular
expressions, KIP-1071 streams groups, KIP-932 share groups) and ``__share_group_state``
(ShareSnapshot / ShareUpdate).

Written again from Kafka 4.3's JSON definitions (metadata/src/main/resources/common/
metadata/*.json, group-coordinator/src/main/resources/common/message/*.json,
share-coordinator/src/main/resources/common/message/*.json) in tests/message_writer.py's
description format, and encoded with that module: kdump's own schemas are not used.
"""

from __future__ import annotations

import struct
from typing import Any

try:
    from tests import message_writer as sw
    from tests import writer as w
except ImportError:  # pragma: no cover - tests/ on sys.path
    import message_writer as sw  # type: ignore[no-redef]
    import writer as w  # type: ignore[no-redef]

METADATA = sw.parse_many("""
ClearElrRecord versions=0 flexible=0+ apiKey=28
  topicName string

RegisterBrokerRecord versions=0-4 flexible=0+ apiKey=0
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
  cordonedLogDirs []uuid v=4+ null=4+ tag=1 tagv=4+ default=null

BrokerRegistrationChangeRecord versions=0-3 flexible=0+ apiKey=17
  brokerId int32
  brokerEpoch int64
  fenced int8 tag=0 tagv=0+
  inControlledShutdown int8 v=1+ tag=1 tagv=1+
  logDirs []uuid v=2+ tag=2 tagv=2+
  cordonedLogDirs []uuid v=3+ null=3+ tag=3 tagv=3+ default=null
""")


def metadata_record(name: str, values: dict[str, Any], *, version: int | None = None) -> bytes:
    """A framed metadata record (frame version 1, api key, version, body)."""
    s = METADATA[name]
    v = s.valid[1] if version is None else version
    assert s.api_key is not None
    return w.uvarint(1) + w.uvarint(s.api_key) + w.uvarint(v) + sw.encode(s, values, v)


# ----------------------------------------------------------------------------- coordinator

#: record type -> (key description, value description); keys are non-flexible, valid at
#: their record type only; values version 0, flexible
COORDINATOR = sw.parse_many("""
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

ConsumerGroupMetadataKey versions=3
  groupId string v=3

ConsumerGroupMetadataValue versions=0 flexible=0+
  epoch int32
  metadataHash int64 tag=0 tagv=0+ default=0

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

ConsumerGroupTargetAssignmentMetadataKey versions=6
  groupId string v=6

ConsumerGroupTargetAssignmentMetadataValue versions=0 flexible=0+
  assignmentEpoch int32
  assignmentTimestamp int64 tag=0 tagv=0+ default=0

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
    assignmentEpochs []int32 null=0+ tag=0 tagv=0+ default=null
  partitionsPendingRevocation []
    topicId uuid
    partitions []int32
    assignmentEpochs []int32 null=0+ tag=0 tagv=0+ default=null

ConsumerGroupRegularExpressionKey versions=16
  groupId string v=16
  regularExpression string v=16

ConsumerGroupRegularExpressionValue versions=0 flexible=0+
  topics []string
  version int64
  timestamp int64

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
  metadataHash int64

ShareGroupStatePartitionMetadataKey versions=15
  groupId string v=15

ShareGroupStatePartitionMetadataValue versions=0 flexible=0+
  initializingTopics []
    topicId uuid
    topicName string
    partitions []int32
  initializedTopics []
    topicId uuid
    topicName string
    partitions []int32
  deletingTopics []
    topicId uuid
    topicName string

StreamsGroupMetadataKey versions=17
  groupId string v=17

StreamsGroupMetadataValue versions=0 flexible=0+
  epoch int32
  metadataHash int64

StreamsGroupMemberMetadataKey versions=19
  groupId string v=19
  memberId string v=19

StreamsGroupMemberMetadataValue versions=0 flexible=0+
  instanceId string null=0+
  rackId string null=0+
  clientId string
  clientHost string
  rebalanceTimeoutMs int32 default=-1
  topologyEpoch int32
  processId string
  userEndpoint {} null=0+ default=null
    host string
    port uint16
  clientTags []
    key string
    value string

StreamsGroupTopologyKey versions=23
  groupId string v=23

StreamsGroupTopologyValue versions=0 flexible=0+
  epoch int32
  subtopologies []
    subtopologyId string
    sourceTopics []string
    sourceTopicRegex []string
    stateChangelogTopics []
      name string
      partitions int32
      replicationFactor int16
      topicConfigs []
        key string
        value string
    repartitionSinkTopics []string
    repartitionSourceTopics []
      name string
      partitions int32
      replicationFactor int16
      topicConfigs []
        key string
        value string
    copartitionGroups []
      sourceTopics []int16
      sourceTopicRegex []int16
      repartitionSourceTopics []int16

ShareSnapshotKey versions=0
  groupId string v=0
  topicId uuid v=0
  partition int32 v=0

ShareSnapshotValue versions=0 flexible=0+
  snapshotEpoch int32
  stateEpoch int32
  leaderEpoch int32
  startOffset int64
  deliveryCompleteCount int32 tag=0 tagv=0+ default=-1
  createTimestamp int64
  writeTimestamp int64
  stateBatches []
    firstOffset int64
    lastOffset int64
    deliveryState int8
    deliveryCount int16

ShareUpdateKey versions=1
  groupId string v=1
  topicId uuid v=1
  partition int32 v=1

ShareUpdateValue versions=0 flexible=0+
  snapshotEpoch int32
  leaderEpoch int32
  startOffset int64
  deliveryCompleteCount int32 tag=0 tagv=0+ default=-1
  stateBatches []
    firstOffset int64
    lastOffset int64
    deliveryState int8
    deliveryCount int16
""")

#: record type of each coordinator key
KEY_TYPES = {
    "OffsetCommitKey": 1, "ConsumerGroupMetadataKey": 3, "ConsumerGroupMemberMetadataKey": 5,
    "ConsumerGroupTargetAssignmentMetadataKey": 6, "ConsumerGroupRegularExpressionKey": 16,
    "ConsumerGroupCurrentMemberAssignmentKey": 8,
    "ShareGroupMemberMetadataKey": 10, "ShareGroupMetadataKey": 11,
    "ShareGroupStatePartitionMetadataKey": 15, "StreamsGroupMetadataKey": 17,
    "StreamsGroupMemberMetadataKey": 19, "StreamsGroupTopologyKey": 23,
    "ShareSnapshotKey": 0, "ShareUpdateKey": 1,
}


def coordinator_record(name: str, key: dict[str, Any], value: dict[str, Any] | None, *,
                       value_version: int = 0) -> w.Rec:
    """A ``__consumer_offsets`` / ``__share_group_state`` record: ``name`` is the record
    name without Key/Value (``ConsumerGroupMetadata``); ``value`` None is a tombstone."""
    kname = name + "Key"
    t = KEY_TYPES[kname]
    k = struct.pack(">h", t) + sw.encode(COORDINATOR[kname], key, t)
    v = None
    if value is not None:
        vs = COORDINATOR[name + "Value"]
        v = struct.pack(">h", value_version) + sw.encode(vs, value, value_version)
    return w.Rec(k, v)


def commit(group: str, topic: str, partition: int, offset: int, ts: int) -> w.Rec:
    return coordinator_record("OffsetCommit", {"group": group, "topic": topic,
                                               "partition": partition},
                              {"offset": offset, "leaderEpoch": 0, "metadata": "",
                               "commitTimestamp": ts}, value_version=3)
