"""``--remote-log-metadata-decoder``: records of ``__remote_log_metadata`` (tiered storage).

``TopicBasedRemoteLogMetadataManager`` writes values framed like KRaft metadata records
(uvarint frame version 1, api key, version; flexible body) with its own four record
types.  DumpLogSegments' ``RemoteMetadataLogMessageParser`` prints the ``toString`` of
the Java object ``RemoteLogMetadataSerde.deserialize`` builds, e.g.::

    RemoteLogSegmentMetadataUpdate{remoteLogSegmentId=RemoteLogSegmentId{topicIdPartition=
    <topicId>:foo-0, id=<segmentId>}, customMetadata=Optional.empty,
    state=COPY_SEGMENT_FINISHED, eventTimestampMs=1700000000000, brokerId=0}

(one line); on failure ``Error at offset OFFSET, skipping. MESSAGE``.

Schemas: ``storage/src/main/resources/message/RemoteLog*.json`` and
``RemotePartitionDeleteMetadataRecord.json``; objects and their ``toString``:
``storage/api/.../remote/storage/RemoteLogSegment{Metadata,MetadataUpdate,Id}.java``,
``RemotePartitionDeleteMetadata.java``, ``storage/.../RemoteLogSegmentMetadataSnapshot.java``.
"""

from __future__ import annotations

import base64
from typing import Any

from kdump.decoders.base import Decoded
from kdump.protocol.frame import FrameError, decode_frame, record_type_name
from kdump.protocol.messages import Field, Schema, SchemaError

__all__ = [
    "REMOTE_LOG_METADATA_SCHEMAS",
    "REMOTE_LOG_SEGMENT_STATES",
    "REMOTE_PARTITION_DELETE_STATES",
    "RemoteLogMetadataDecoder",
    "remote_log_metadata_text",
]

_TOPIC_ID_PARTITION = (
    Field("Name", "string"),
    Field("Id", "uuid"),
    Field("Partition", "int32"),
)
_SEGMENT_ID = (
    Field("TopicIdPartition", "TopicIdPartitionEntry", fields=_TOPIC_ID_PARTITION),
    Field("Id", "uuid"),
)
_LEADER_EPOCHS = Field(
    "SegmentLeaderEpochs",
    "[]SegmentLeaderEpochEntry",
    fields=(Field("LeaderEpoch", "int32"), Field("Offset", "int64")),
)
_CUSTOM_METADATA = Field("CustomMetadata", "bytes", nullable_versions="0+", default="null")

REMOTE_LOG_SEGMENT_METADATA_RECORD = Schema(
    "RemoteLogSegmentMetadataRecord",
    "0",
    "0+",
    (
        Field("RemoteLogSegmentId", "RemoteLogSegmentIdEntry", fields=_SEGMENT_ID),
        Field("StartOffset", "int64"),
        Field("EndOffset", "int64"),
        Field("BrokerId", "int32"),
        Field("MaxTimestampMs", "int64"),
        Field("EventTimestampMs", "int64"),
        _LEADER_EPOCHS,
        Field("SegmentSizeInBytes", "int32"),
        _CUSTOM_METADATA,
        Field("RemoteLogSegmentState", "int8"),
    ),
    api_key=0,
)
REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD = Schema(
    "RemoteLogSegmentMetadataUpdateRecord",
    "0",
    "0+",
    (
        Field("RemoteLogSegmentId", "RemoteLogSegmentIdEntry", fields=_SEGMENT_ID),
        Field("BrokerId", "int32"),
        Field("EventTimestampMs", "int64"),
        _CUSTOM_METADATA,
        Field("RemoteLogSegmentState", "int8"),
    ),
    api_key=1,
)
REMOTE_PARTITION_DELETE_METADATA_RECORD = Schema(
    "RemotePartitionDeleteMetadataRecord",
    "0",
    "0+",
    (
        Field("TopicIdPartition", "TopicIdPartitionEntry", fields=_TOPIC_ID_PARTITION),
        Field("BrokerId", "int32"),
        Field("EventTimestampMs", "int64"),
        Field("RemotePartitionDeleteState", "int8"),
    ),
    api_key=2,
)
REMOTE_LOG_SEGMENT_METADATA_SNAPSHOT_RECORD = Schema(
    "RemoteLogSegmentMetadataSnapshotRecord",
    "0",
    "0+",
    (
        Field("SegmentId", "uuid"),
        Field("StartOffset", "int64"),
        Field("EndOffset", "int64"),
        Field("BrokerId", "int32"),
        Field("MaxTimestampMs", "int64"),
        Field("EventTimestampMs", "int64"),
        _LEADER_EPOCHS,
        Field("SegmentSizeInBytes", "int32"),
        _CUSTOM_METADATA,
        Field("RemoteLogSegmentState", "int8"),
    ),
    api_key=3,
)

REMOTE_LOG_METADATA_SCHEMAS: dict[int, Schema] = {
    0: REMOTE_LOG_SEGMENT_METADATA_RECORD,
    1: REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD,
    2: REMOTE_PARTITION_DELETE_METADATA_RECORD,
    3: REMOTE_LOG_SEGMENT_METADATA_SNAPSHOT_RECORD,
}

REMOTE_LOG_SEGMENT_STATES: dict[int, str] = {
    0: "COPY_SEGMENT_STARTED",
    1: "COPY_SEGMENT_FINISHED",
    2: "DELETE_SEGMENT_STARTED",
    3: "DELETE_SEGMENT_FINISHED",
}
REMOTE_PARTITION_DELETE_STATES: dict[int, str] = {
    0: "DELETE_PARTITION_MARKED",
    1: "DELETE_PARTITION_STARTED",
    2: "DELETE_PARTITION_FINISHED",
}


class _JavaError(SchemaError):
    """What a Java constructor would throw; the message is its ``getMessage()``."""


def _topic_id_partition(tip: dict[str, Any]) -> str:
    """``TopicIdPartition.toString``: ``topicId:topic-partition``."""
    return f"{tip['id']}:{tip['name']}-{tip['partition']}"


def _segment_id(entry: dict[str, Any]) -> str:
    return (
        "RemoteLogSegmentId{topicIdPartition="
        f"{_topic_id_partition(entry['topicIdPartition'])}, id={entry['id']}}}"
    )


def _custom_metadata(data: Any) -> str:
    """``Optional<CustomMetadata>.toString``."""
    if data is None:
        return "Optional.empty"
    return f"Optional[CustomMetadata{{{len(data)} bytes}}]"


def _leader_epochs(entries: list[dict[str, Any]]) -> str:
    """``HashMap`` (last duplicate wins) copied into a ``TreeMap``, ``AbstractMap.toString``."""
    epochs: dict[int, int] = {}
    for e in entries:
        epochs[e["leaderEpoch"]] = e["offset"]
    if not epochs:
        raise _JavaError("segmentLeaderEpochs can not be null or empty")
    return "{" + ", ".join(f"{k}={epochs[k]}" for k in sorted(epochs)) + "}"


def _segment_state(state_id: int) -> str:
    state = REMOTE_LOG_SEGMENT_STATES.get(state_id)
    if state is None:
        raise _JavaError("state can not be null")
    return state


def _check_offsets(start: int, end: int) -> None:
    if start < 0:
        raise _JavaError(
            f"Unexpected start offset = {start}. StartOffset for a remote segment cannot be negative"
        )
    if end < start:
        raise _JavaError(
            f"Unexpected end offset = {end}. EndOffset for a remote segment cannot be less "
            f"than startOffset = {start}"
        )


def remote_log_metadata_text(api_key: int, msg: dict[str, Any]) -> str:
    """The ``toString`` of the object ``RemoteLogMetadataSerde.deserialize`` returns.

    ``msg`` is the record as rendered by the JSON converter (camelCase keys, uuids as
    text, ``customMetadata`` as base64 or None).  Raises ``_JavaError`` where the Java
    constructors throw.
    """
    if api_key == 0:
        # new RemoteLogSegmentMetadata(...) then createWithUpdates(new ...Update(...))
        _check_offsets(msg["startOffset"], msg["endOffset"])
        epochs = _leader_epochs(msg["segmentLeaderEpochs"])
        state = _segment_state(msg["remoteLogSegmentState"])
        return (
            "RemoteLogSegmentMetadata{"
            f"remoteLogSegmentId={_segment_id(msg['remoteLogSegmentId'])}"
            f", startOffset={msg['startOffset']}"
            f", endOffset={msg['endOffset']}"
            f", brokerId={msg['brokerId']}"
            f", maxTimestampMs={msg['maxTimestampMs']}"
            f", eventTimestampMs={msg['eventTimestampMs']}"
            f", segmentLeaderEpochs={epochs}"
            f", segmentSizeInBytes={msg['segmentSizeInBytes']}"
            f", customMetadata={_custom_metadata(_raw(msg['customMetadata']))}"
            f", state={state}"
            "}"
        )
    if api_key == 1:
        state = _segment_state(msg["remoteLogSegmentState"])
        return (
            "RemoteLogSegmentMetadataUpdate{"
            f"remoteLogSegmentId={_segment_id(msg['remoteLogSegmentId'])}"
            f", customMetadata={_custom_metadata(_raw(msg['customMetadata']))}"
            f", state={state}"
            f", eventTimestampMs={msg['eventTimestampMs']}"
            f", brokerId={msg['brokerId']}"
            "}"
        )
    if api_key == 2:
        delete_state = REMOTE_PARTITION_DELETE_STATES.get(msg["remotePartitionDeleteState"])
        if delete_state is None:
            raise _JavaError("null")  # Objects.requireNonNull(state): no message
        return (
            "RemotePartitionDeleteMetadata{"
            f"topicPartition={_topic_id_partition(msg['topicIdPartition'])}"
            f", state={delete_state}"
            f", eventTimestampMs={msg['eventTimestampMs']}"
            f", brokerId={msg['brokerId']}"
            "}"
        )
    if api_key == 3:
        state = _segment_state(msg["remoteLogSegmentState"])
        epochs = _leader_epochs(msg["segmentLeaderEpochs"])
        return (
            "RemoteLogSegmentMetadataSnapshot{"
            f"segmentId={msg['segmentId']}"
            f", startOffset={msg['startOffset']}"
            f", endOffset={msg['endOffset']}"
            f", maxTimestampMs={msg['maxTimestampMs']}"
            f", segmentLeaderEpochs={epochs}"
            f", segmentSizeInBytes={msg['segmentSizeInBytes']}"
            f", customMetadata={_custom_metadata(_raw(msg['customMetadata']))}"
            f", state={state}"
            "}"
        )
    raise _JavaError(f"RemoteLogMetadataTransform for apikey: {api_key} does not exist.")


def _raw(b64: Any) -> bytes | None:
    return None if b64 is None else base64.b64decode(b64)


class RemoteLogMetadataDecoder:
    """Decoder for ``__remote_log_metadata`` records (``--remote-log-metadata-decoder``)."""

    name = "remote-log-metadata"

    def decode(self, key: bytes | None, value: bytes | None, offset: int) -> Decoded:
        if value is None:  # Kafka fails with a JVM NullPointerException message here
            text = f"Error at offset {offset}, skipping. the record has a null value"
            return Decoded(None, text, None, None, text)
        try:
            schema, api_key, version, data = decode_frame(value, REMOTE_LOG_METADATA_SCHEMAS)
        except SchemaError as e:  # FrameError included: never abort a dump
            text = f"Error at offset {offset}, skipping. {e}"
            raw: dict[str, Any] = {}
            if isinstance(e, FrameError) and e.api_key is not None:
                raw["apiKey"] = e.api_key
            raw["raw"] = base64.b64encode(value).decode("ascii")
            return Decoded(None, text, None, raw, text)
        obj = {"type": record_type_name(schema.name), "version": version, "data": data}
        try:
            text = remote_log_metadata_text(api_key, data)
        except SchemaError as e:  # what the Java constructors reject
            text = f"Error at offset {offset}, skipping. {e}"
            return Decoded(None, text, None, obj, text)
        note = None
        if version not in schema.v_valid:
            note = (
                f"unknown {schema.name} version {version} (known {schema.v_valid}); "
                "decoded with the nearest known layout"
            )
        return Decoded(None, text, None, obj, note)
