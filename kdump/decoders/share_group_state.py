"""``--share-group-state-decoder``: records of ``__share_group_state`` (KIP-932).

Framing as for ``__consumer_offsets``: key int16 = record type (0 ShareSnapshot, 1
ShareUpdate) + key body; value int16 version + body; null value = tombstone.  The key
type selects the value schema.  DumpLogSegments' ``ShareGroupStateMessageParser`` labels
*both* JSON objects with ``"type"``::

    key: {"type":"0","data":{"groupId":"g","topicId":"...","partition":0}}
    payload: {"type":"0","data":{"snapshotEpoch":0,...}}

Kafka writes ShareUpdateValue with value version 1 (``SHARE_UPDATE_RECORD_VALUE_VERSION``)
although its schema declares only version 0; the generated reader reads it with the
version-0 layout, and so does kdump (without flagging it).

Schemas: ``share-coordinator/src/main/resources/common/message/Share{Snapshot,Update}
{Key,Value}.json`` (apache/kafka trunk 2024-10-25; "in development" there).
"""

from __future__ import annotations

from kdump.decoders.consumer_offsets import CoordinatorRecordDecoder
from kdump.protocol.messages import Field, Schema

__all__ = [
    "SHARE_KEY_SCHEMAS",
    "SHARE_VALUE_SCHEMAS",
    "ShareGroupStateDecoder",
]


def _key(name: str, version: int) -> Schema:
    v = str(version)
    return Schema(
        name,
        v,
        "none",
        (
            Field("GroupId", "string", v),
            Field("TopicId", "uuid", v),
            Field("Partition", "int32", v),
        ),
    )


_STATE_BATCH = (
    Field("FirstOffset", "int64", "0"),
    Field("LastOffset", "int64", "0"),
    Field("DeliveryState", "int8", "0"),
    Field("DeliveryCount", "int16", "0"),
)

SHARE_SNAPSHOT_KEY = _key("ShareSnapshotKey", 0)
SHARE_UPDATE_KEY = _key("ShareUpdateKey", 1)
SHARE_SNAPSHOT_VALUE = Schema(
    "ShareSnapshotValue",
    "0",
    "0+",
    (
        Field("SnapshotEpoch", "uint16", "0"),
        Field("StateEpoch", "int32"),
        Field("LeaderEpoch", "int32"),
        Field("StartOffset", "int64", "0"),
        Field("StateBatches", "[]StateBatch", "0", fields=_STATE_BATCH),
    ),
)
SHARE_UPDATE_VALUE = Schema(
    "ShareUpdateValue",
    "0",
    "0+",
    (
        Field("SnapshotEpoch", "uint16", "0"),
        Field("LeaderEpoch", "int32"),
        Field("StartOffset", "int64", "0"),
        Field("StateBatches", "[]StateBatch", "0", fields=_STATE_BATCH),
    ),
)

SHARE_KEY_SCHEMAS: dict[int, Schema] = {0: SHARE_SNAPSHOT_KEY, 1: SHARE_UPDATE_KEY}
SHARE_VALUE_SCHEMAS: dict[int, Schema] = {0: SHARE_SNAPSHOT_VALUE, 1: SHARE_UPDATE_VALUE}


class ShareGroupStateDecoder(CoordinatorRecordDecoder):
    """Decoder for ``__share_group_state`` records (``--share-group-state-decoder``)."""

    name = "share-group-state"
    topic_label = "share group state topic"
    key_schemas = SHARE_KEY_SCHEMAS
    value_schemas = SHARE_VALUE_SCHEMAS
    value_label = "type"
    extra_value_versions = {1: frozenset({1})}  # noqa: RUF012 - read-only table
