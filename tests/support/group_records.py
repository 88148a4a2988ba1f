"""Kafka 4.x records for the ``groups`` tests, encoded with the test encoder
(tests/support/message_writer.py) from the test-side specs of Kafka 4.3's definitions in
tests/support/kafka4_specs.py (kdump's own definitions are not used): metadata records
(ClearElrRecord, RegisterBrokerRecord v4, BrokerRegistrationChangeRecord v3) and
coordinator records of ``__consumer_offsets`` (KIP-848 consumer groups with regular
expressions, KIP-1071 streams groups, KIP-932 share groups) and ``__share_group_state``
(ShareSnapshot / ShareUpdate), named the way Kafka names them.
"""

from __future__ import annotations

import struct
from typing import Any

from tests.support import kafka4_specs as ks
from tests.support import message_writer as sw
from tests.support import writer as w

SPECS = ks.SPECS["4.3"]

#: metadata record name -> ``MetadataRecordType`` id
METADATA = {"RegisterBrokerRecord": 0, "BrokerRegistrationChangeRecord": 17,
            "ClearElrRecord": 28}

#: coordinator record name (Key/Value left off) -> (family, ``CoordinatorRecordType`` id)
COORDINATOR = {
    "OffsetCommit": ("group", 1), "ConsumerGroupMetadata": ("group", 3),
    "ConsumerGroupMemberMetadata": ("group", 5),
    "ConsumerGroupPartitionMetadata": ("group", 4),
    "ConsumerGroupTargetAssignmentMetadata": ("group", 6),
    "ConsumerGroupTargetAssignmentMember": ("group", 7),
    "ConsumerGroupCurrentMemberAssignment": ("group", 8),
    "ShareGroupCurrentMemberAssignment": ("group", 14),
    "StreamsGroupCurrentMemberAssignment": ("group", 22),
    "ShareGroupMemberMetadata": ("group", 10), "ShareGroupMetadata": ("group", 11),
    "ShareGroupStatePartitionMetadata": ("group", 15),
    "ConsumerGroupRegularExpression": ("group", 16), "StreamsGroupMetadata": ("group", 17),
    "StreamsGroupMemberMetadata": ("group", 19), "StreamsGroupTopology": ("group", 23),
    "ShareSnapshot": ("share", 0), "ShareUpdate": ("share", 1),
}


def metadata_record(name: str, values: dict[str, Any], *, version: int | None = None) -> bytes:
    """A framed metadata record (frame version 1, api key, version, body)."""
    t = METADATA[name]
    s = SPECS[("metadata", t)][1]
    v = s.valid[1] if version is None else version
    return w.uvarint(1) + w.uvarint(t) + w.uvarint(v) + sw.encode(s, values, v)


def coordinator_record(name: str, key: dict[str, Any], value: dict[str, Any] | None, *,
                       value_version: int = 0) -> w.Rec:
    """A ``__consumer_offsets`` / ``__share_group_state`` record: ``name`` is the record
    name without Key/Value (``ConsumerGroupMetadata``); ``value`` None is a tombstone."""
    family, t = COORDINATOR[name]
    key_w, value_w = SPECS[(family, t)]
    assert key_w is not None
    k = struct.pack(">h", t) + sw.encode(key_w, key, 0)
    v = None if value is None else (struct.pack(">h", value_version)
                                    + sw.encode(value_w, value, value_version))
    return w.Rec(k, v)


def commit(group: str, topic: str, partition: int, offset: int, ts: int) -> w.Rec:
    return coordinator_record("OffsetCommit", {"group": group, "topic": topic,
                                               "partition": partition},
                              {"offset": offset, "leaderEpoch": 0, "metadata": "",
                               "commitTimestamp": ts}, value_version=3)


#: the consumer protocol's embedded messages (clients/src/main/resources/common/message/
#: ConsumerProtocol{Subscription,Assignment}.json), written at version 3 as 3.x+ clients do
CONSUMER_PROTOCOL = sw.parse_many("""
ConsumerProtocolSubscription versions=0-3
  topics []string
  userData bytes null=0+ default=null
  ownedPartitions [] v=1+
    topic string v=1+
    partitions []int32 v=1+
  generationId int32 v=2+ default=-1
  rackId string v=3+ null=3+ default=null

ConsumerProtocolAssignment versions=0-3
  assignedPartitions []
    topic string
    partitions []int32
  userData bytes null=0+ default=null
""")
