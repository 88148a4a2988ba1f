"""``--offsets-decoder``: records of ``__consumer_offsets``.

Key = int16 *key version*, which is the record type (0/1 offset commit, 2 classic group
metadata, 3-8 KIP-848 consumer groups, 9-15 KIP-932 share groups), then the key body at
that version.  Value = int16 value version + body; a null value is a tombstone.

The text is what DumpLogSegments' ``OffsetsMessageParser`` prints::

    key: {"type":"1","data":{"group":"g","topic":"t","partition":0}}
    payload: {"version":"3","data":{"offset":42,"leaderEpoch":-1,...}}

Schemas: ``group-coordinator/src/main/resources/common/message/*.json`` and
``clients/src/main/resources/common/message/ConsumerProtocol{Subscription,Assignment}.json``
(apache/kafka trunk, 2024-10-25).  Dispatch: ``GroupCoordinatorRecordSerde``.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from kdump.decoders.base import Decoded
from kdump.protocol.messages import (
    Field,
    Schema,
    SchemaError,
    clamp_version,
    json_text,
    read_message,
    to_json,
)

__all__ = [
    "CONSUMER_PROTOCOL_ASSIGNMENT",
    "CONSUMER_PROTOCOL_SUBSCRIPTION",
    "KEY_SCHEMAS",
    "VALUE_SCHEMAS",
    "ConsumerOffsetsDecoder",
    "CoordinatorRecordDecoder",
    "OffsetsDecoder",
    "coordinator_partition",
    "java_string_hashcode",
]


# ----------------------------------------------------------------------------- helpers


def java_string_hashcode(s: str) -> int:
    """Java's ``String.hashCode()``: over UTF-16 code units, wrapped to int32."""
    h = 0
    units = s.encode("utf-16-be", errors="surrogatepass")
    for i in range(0, len(units), 2):
        h = (31 * h + (units[i] << 8 | units[i + 1])) & 0xFFFFFFFF
    return h - 0x100000000 if h & 0x80000000 else h


def coordinator_rows(ids: Iterable[str], partitions: int = 50) -> Iterator[dict[str, str | int]]:
    """``kdump coordinator-partition``'s objects: each id with its hashCode, partition and
    the two partition directories that may hold it."""
    for i in ids:
        p = coordinator_partition(i, partitions)
        yield {"type": "coordinator_partition", "id": i, "hash_code": java_string_hashcode(i),
               "partitions": partitions, "partition": p,
               "consumer_offsets_dir": f"__consumer_offsets-{p}",
               "transaction_state_dir": f"__transaction_state-{p}"}


def coordinator_partition(id: str, partitions: int = 50) -> int:
    """The ``__consumer_offsets`` / ``__transaction_state`` partition owning ``id``.

    ``Utils.abs(id.hashCode()) % partitions`` where ``Utils.abs(Integer.MIN_VALUE) == 0``.
    """
    if partitions <= 0:
        raise ValueError("partitions must be positive")
    h = java_string_hashcode(id)
    return (0 if h == -0x80000000 else abs(h)) % partitions


# ----------------------------------------------------------------------------- schemas


def _key(name: str, version: int, *fields: str) -> Schema:
    """A coordinator key: non-flexible, valid only at its record type, all strings."""
    v = str(version)
    return Schema(name, v, "none", tuple(Field(f, "string", v) for f in fields))


OFFSET_COMMIT_KEY = Schema(
    "OffsetCommitKey",
    "0-1",
    "none",
    (
        Field("group", "string", "0-1"),
        Field("topic", "string", "0-1"),
        Field("partition", "int32", "0-1"),
    ),
)
OFFSET_COMMIT_VALUE = Schema(
    "OffsetCommitValue",
    "0-4",
    "4+",
    (
        Field("offset", "int64"),
        Field("leaderEpoch", "int32", "3+", default=-1),
        Field("metadata", "string"),
        Field("commitTimestamp", "int64"),
        Field("expireTimestamp", "int64", "1", default=-1),
    ),
)

GROUP_METADATA_KEY = _key("GroupMetadataKey", 2, "group")
GROUP_METADATA_VALUE = Schema(
    "GroupMetadataValue",
    "0-4",
    "4+",
    (
        Field("protocolType", "string"),
        Field("generation", "int32"),
        Field("protocol", "string", nullable_versions="0+"),
        Field("leader", "string", nullable_versions="0+"),
        Field("currentStateTimestamp", "int64", "2+", default=-1),
        Field(
            "members",
            "[]MemberMetadata",
            fields=(
                Field("memberId", "string"),
                Field("groupInstanceId", "string", "3+", nullable_versions="3+", default="null"),
                Field("clientId", "string"),
                Field("clientHost", "string"),
                Field("rebalanceTimeout", "int32", "1+", default=-1),
                Field("sessionTimeout", "int32"),
                Field("subscription", "bytes"),
                Field("assignment", "bytes"),
            ),
        ),
    ),
)

_TOPIC_PARTITIONS = (Field("TopicId", "uuid"), Field("Partitions", "[]int32"))
_TOPIC_METADATA = (
    Field("TopicId", "uuid"),
    Field("TopicName", "string"),
    Field("NumPartitions", "int32"),
    Field(
        "PartitionMetadata",
        "[]PartitionMetadata",
        fields=(Field("Partition", "int32"), Field("Racks", "[]string")),
    ),
)


def _value(name: str, *fields: Field) -> Schema:
    """A KIP-848 / KIP-932 value: version 0 only, flexible."""
    return Schema(name, "0", "0+", fields)


CONSUMER_GROUP_METADATA_VALUE = _value("ConsumerGroupMetadataValue", Field("Epoch", "int32"))
CONSUMER_GROUP_PARTITION_METADATA_VALUE = _value(
    "ConsumerGroupPartitionMetadataValue",
    Field("Topics", "[]TopicMetadata", fields=_TOPIC_METADATA),
)
CONSUMER_GROUP_MEMBER_METADATA_VALUE = _value(
    "ConsumerGroupMemberMetadataValue",
    Field("InstanceId", "string", nullable_versions="0+"),
    Field("RackId", "string", nullable_versions="0+"),
    Field("ClientId", "string"),
    Field("ClientHost", "string"),
    Field("SubscribedTopicNames", "[]string"),
    Field("SubscribedTopicRegex", "string", nullable_versions="0+"),
    Field("RebalanceTimeoutMs", "int32", default=-1),
    Field("ServerAssignor", "string", nullable_versions="0+"),
    Field(
        "ClassicMemberMetadata",
        "ClassicMemberMetadata",
        nullable_versions="0+",
        default="null",
        tagged_versions="0+",
        tag=0,
        fields=(
            Field("SessionTimeoutMs", "int32"),
            Field(
                "SupportedProtocols",
                "[]ClassicProtocol",
                fields=(Field("Name", "string"), Field("Metadata", "bytes")),
            ),
        ),
    ),
)
CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE = _value(
    "ConsumerGroupTargetAssignmentMetadataValue", Field("AssignmentEpoch", "int32")
)
CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE = _value(
    "ConsumerGroupTargetAssignmentMemberValue",
    Field("TopicPartitions", "[]TopicPartition", fields=_TOPIC_PARTITIONS),
)
CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE = _value(
    "ConsumerGroupCurrentMemberAssignmentValue",
    Field("MemberEpoch", "int32"),
    Field("PreviousMemberEpoch", "int32"),
    Field("State", "int8"),
    Field("AssignedPartitions", "[]TopicPartitions", fields=_TOPIC_PARTITIONS),
    Field("PartitionsPendingRevocation", "[]TopicPartitions", fields=_TOPIC_PARTITIONS),
)
SHARE_GROUP_PARTITION_METADATA_VALUE = _value(
    "ShareGroupPartitionMetadataValue",
    Field("Topics", "[]TopicMetadata", fields=_TOPIC_METADATA),
)
SHARE_GROUP_MEMBER_METADATA_VALUE = _value(
    "ShareGroupMemberMetadataValue",
    Field("RackId", "string", nullable_versions="0+"),
    Field("ClientId", "string"),
    Field("ClientHost", "string"),
    Field("SubscribedTopicNames", "[]string"),
)
SHARE_GROUP_METADATA_VALUE = _value("ShareGroupMetadataValue", Field("Epoch", "int32"))
SHARE_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE = _value(
    "ShareGroupTargetAssignmentMetadataValue", Field("AssignmentEpoch", "int32")
)
SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE = _value(
    "ShareGroupTargetAssignmentMemberValue",
    Field("TopicPartitions", "[]TopicPartition", fields=_TOPIC_PARTITIONS),
)
SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE = _value(
    "ShareGroupCurrentMemberAssignmentValue",
    Field("MemberEpoch", "int32"),
    Field("PreviousMemberEpoch", "int32"),
    Field("State", "int8"),
    Field("AssignedPartitions", "[]TopicPartitions", fields=_TOPIC_PARTITIONS),
)
SHARE_GROUP_STATE_PARTITION_METADATA_VALUE = _value(
    "ShareGroupStatePartitionMetadataValue",
    Field(
        "InitializedTopics",
        "[]TopicPartitionsInfo",
        fields=(
            Field("TopicId", "uuid"),
            Field("TopicName", "string"),
            Field("Partitions", "[]int32"),
        ),
    ),
    Field(
        "DeletingTopics",
        "[]TopicInfo",
        fields=(Field("TopicId", "uuid"), Field("TopicName", "string")),
    ),
)

#: record type (= key version) -> key schema
KEY_SCHEMAS: dict[int, Schema] = {
    0: OFFSET_COMMIT_KEY,
    1: OFFSET_COMMIT_KEY,
    2: GROUP_METADATA_KEY,
    3: _key("ConsumerGroupMetadataKey", 3, "GroupId"),
    4: _key("ConsumerGroupPartitionMetadataKey", 4, "GroupId"),
    5: _key("ConsumerGroupMemberMetadataKey", 5, "GroupId", "MemberId"),
    6: _key("ConsumerGroupTargetAssignmentMetadataKey", 6, "GroupId"),
    7: _key("ConsumerGroupTargetAssignmentMemberKey", 7, "GroupId", "MemberId"),
    8: _key("ConsumerGroupCurrentMemberAssignmentKey", 8, "GroupId", "MemberId"),
    9: _key("ShareGroupPartitionMetadataKey", 9, "GroupId"),
    10: _key("ShareGroupMemberMetadataKey", 10, "GroupId", "MemberId"),
    11: _key("ShareGroupMetadataKey", 11, "GroupId"),
    12: _key("ShareGroupTargetAssignmentMetadataKey", 12, "GroupId"),
    13: _key("ShareGroupTargetAssignmentMemberKey", 13, "GroupId", "MemberId"),
    14: _key("ShareGroupCurrentMemberAssignmentKey", 14, "GroupId", "MemberId"),
    15: _key("ShareGroupStatePartitionMetadataKey", 15, "GroupId"),
}

#: record type (= key version) -> value schema
VALUE_SCHEMAS: dict[int, Schema] = {
    0: OFFSET_COMMIT_VALUE,
    1: OFFSET_COMMIT_VALUE,
    2: GROUP_METADATA_VALUE,
    3: CONSUMER_GROUP_METADATA_VALUE,
    4: CONSUMER_GROUP_PARTITION_METADATA_VALUE,
    5: CONSUMER_GROUP_MEMBER_METADATA_VALUE,
    6: CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE,
    7: CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE,
    8: CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE,
    9: SHARE_GROUP_PARTITION_METADATA_VALUE,
    10: SHARE_GROUP_MEMBER_METADATA_VALUE,
    11: SHARE_GROUP_METADATA_VALUE,
    12: SHARE_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE,
    13: SHARE_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE,
    14: SHARE_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE,
    15: SHARE_GROUP_STATE_PARTITION_METADATA_VALUE,
}

_CONSUMER_TOPIC_PARTITION = (Field("Topic", "string"), Field("Partitions", "[]int32"))

CONSUMER_PROTOCOL_SUBSCRIPTION = Schema(
    "ConsumerProtocolSubscription",
    "0-3",
    "none",
    (
        Field("Topics", "[]string"),
        Field("UserData", "bytes", nullable_versions="0+", default="null"),
        Field(
            "OwnedPartitions",
            "[]TopicPartition",
            "1+",
            fields=(Field("Topic", "string", "1+"), Field("Partitions", "[]int32", "1+")),
        ),
        Field("GenerationId", "int32", "2+", default=-1),
        Field("RackId", "string", "3+", nullable_versions="3+", default="null"),
    ),
)
CONSUMER_PROTOCOL_ASSIGNMENT = Schema(
    "ConsumerProtocolAssignment",
    "0-3",
    "none",
    (
        Field("AssignedPartitions", "[]TopicPartition", fields=_CONSUMER_TOPIC_PARTITION),
        Field("UserData", "bytes", nullable_versions="0+", default="null"),
    ),
)


# ----------------------------------------------------------------------------- decoding


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _consumer_protocol_json(schema: Schema, raw: bytes) -> dict[str, Any] | None:
    """``new ConsumerProtocolX(readable, version)`` + its JSON converter; None on failure."""
    if len(raw) < 2:
        return None
    version = int.from_bytes(raw[:2], "big", signed=True)
    layout = clamp_version(version, schema.v_valid)
    try:
        msg, _ = read_message(schema, raw[2:], layout)
    except SchemaError:
        return None
    return to_json(schema.fields, msg, layout)


def expand_consumer_members(data: dict[str, Any], message: dict[str, Any]) -> None:
    """DumpLogSegments' ``prepareGroupMetadataValue``.

    For groups whose protocolType is ``consumer``, each member's ``subscription`` and
    ``assignment`` bytes are replaced by the decoded ConsumerProtocolSubscription /
    ConsumerProtocolAssignment (rendered at the version the bytes carry); bytes that do
    not decode stay as base64.  ``data`` is the rendered dict, ``message`` the raw one.
    """
    if data.get("protocolType") != "consumer":
        return
    members = data.get("members")
    raw_members = message.get("members")
    if not isinstance(members, list) or not isinstance(raw_members, list):
        return
    for node, raw in zip(members, raw_members, strict=False):
        for name, schema in (
            ("subscription", CONSUMER_PROTOCOL_SUBSCRIPTION),
            ("assignment", CONSUMER_PROTOCOL_ASSIGNMENT),
        ):
            raw_bytes = raw.get(name)
            if name in node and isinstance(raw_bytes, bytes):
                decoded = _consumer_protocol_json(schema, raw_bytes)
                if decoded is not None:
                    node[name] = decoded


class _RecordError(SchemaError):
    """A record that does not decode; the message is what DumpLogSegments would print."""


def _read_version(buf: bytes, what: str) -> int:
    if len(buf) < 2:
        raise _RecordError(f"Could not read version from {what}'s buffer.")
    return int.from_bytes(buf[:2], "big", signed=True)


def _read_body(schema: Schema, buf: bytes, version: int, what: str) -> tuple[dict[str, Any], int, int]:
    """Read the body after the int16; returns (message, layout version, unread bytes)."""
    layout = clamp_version(version, schema.v_valid)
    try:
        msg, end = read_message(schema, buf, layout, pos=2)
    except SchemaError as e:
        raise _RecordError(
            f"Could not read record with version {version} from {what}'s buffer due to: {e}."
        ) from e
    return msg, layout, len(buf) - end


class CoordinatorRecordDecoder:
    """Shared logic of the coordinator-record parsers of DumpLogSegments.

    ``CoordinatorRecordSerde``: the key's int16 is the record type and selects both the
    key and the value schema; the value carries its own int16 version.  Subclasses give
    the schema tables, the label of the value's version in the JSON (``"version"`` for
    offsets, ``"type"`` for share-group state) and the missing-key message.
    """

    name = ""
    topic_label = ""
    key_schemas: ClassVar[dict[int, Schema]] = {}
    value_schemas: ClassVar[dict[int, Schema]] = {}
    value_label = "version"
    #: value versions a record type is written with although its schema does not list them
    extra_value_versions: ClassVar[dict[int, frozenset[int]]] = {}

    def decode(self, key: bytes | None, value: bytes | None, offset: int) -> Decoded:
        try:
            return self._decode(key, value, offset)
        except SchemaError as e:  # a decoder never aborts a dump
            text = f"Error at offset {offset}, skipping. {e}"
            return Decoded(text, None, _raw_json(key, "type"), _raw_json(value, self.value_label), text)

    def post_process(self, schema: Schema, data: dict[str, Any], message: dict[str, Any]) -> None:
        """Hook: adjust a rendered value (``data``) given the raw message."""

    def _decode(self, key: bytes | None, value: bytes | None, offset: int) -> Decoded:
        if key is None:
            text = (
                f"Failed to decode message at offset {offset} using {self.topic_label} "
                "decoder (message had a missing key)"
            )
            return Decoded(text, None, None, _raw_json(value, self.value_label), text)
        notes: list[str] = []
        try:
            record_type = _read_version(key, "key")
            key_schema = self.key_schemas.get(record_type)
            if key_schema is None:
                text = f"Unknown record type {record_type} at offset {offset}, skipping."
                return Decoded(text, None, _raw_json(key, "type"), _raw_json(value, self.value_label), text)
            key_msg, key_layout, key_left = _read_body(key_schema, key, record_type, "key")
            key_json = {
                "type": str(record_type),
                "data": to_json(key_schema.fields, key_msg, key_layout),
            }
            if key_left:
                notes.append(f"{key_left} unread byte(s) after the {key_schema.name}")
        except _RecordError as e:
            text = f"Error at offset {offset}, skipping. {e}"
            return Decoded(text, None, _raw_json(key, "type"), _raw_json(value, self.value_label), text)

        if value is None:
            return Decoded(json_text(key_json), "<DELETE>", key_json, None, "; ".join(notes) or None)

        value_schema = self.value_schemas[record_type]
        try:
            version = _read_version(value, "value")
            msg, layout, left = _read_body(value_schema, value, version, "value")
        except _RecordError as e:
            text = f"Error at offset {offset}, skipping. {e}"
            return Decoded(text, None, key_json, _raw_json(value, self.value_label), text)
        data = to_json(value_schema.fields, msg, layout)
        self.post_process(value_schema, data, msg)
        if layout != version and version not in self.extra_value_versions.get(record_type, frozenset()):
            notes.append(
                f"unknown {value_schema.name} version {version} "
                f"(known {value_schema.v_valid}); decoded with the version {layout} layout"
            )
        if left:
            notes.append(f"{left} unread byte(s) after the {value_schema.name}")
        value_json = {self.value_label: str(version), "data": data}
        return Decoded(
            json_text(key_json),
            json_text(value_json),
            key_json,
            value_json,
            "; ".join(notes) or None,
        )


class ConsumerOffsetsDecoder(CoordinatorRecordDecoder):
    """Decoder for ``__consumer_offsets`` records (DumpLogSegments ``--offsets-decoder``)."""

    name = "offsets"
    topic_label = "offset topic"
    key_schemas = KEY_SCHEMAS
    value_schemas = VALUE_SCHEMAS
    value_label = "version"

    def post_process(self, schema: Schema, data: dict[str, Any], message: dict[str, Any]) -> None:
        if schema is GROUP_METADATA_VALUE:
            expand_consumer_members(data, message)


#: short alias
OffsetsDecoder = ConsumerOffsetsDecoder


def _raw_json(buf: bytes | None, label: str) -> dict[str, Any] | None:
    """The undecodable bytes, for JSON output: ``{"type"/"version": "N", "raw": base64}``."""
    if buf is None:
        return None
    out: dict[str, Any] = {}
    if len(buf) >= 2:
        out[label] = str(int.from_bytes(buf[:2], "big", signed=True))
    out["raw"] = _b64(buf)
    return out
