"""``--cluster-metadata-decoder``: KRaft metadata records (``__cluster_metadata``,
``*.checkpoint`` snapshots, ``bootstrap.checkpoint``).

A record's key is null; its value is a frame of three unsigned varints - frame version
(1), api key (record type), record version - followed by the record body, which is
flexible in every version.  The text is what DumpLogSegments'
``ClusterMetadataLogMessageParser`` prints::

    payload: {"type":"TOPIC_RECORD","version":0,"data":{"name":"foo","topicId":"..."}}

and on failure ``Error at OFFSET, skipping. MESSAGE`` (Kafka prints no "offset" word
there).  Control records (leader change, snapshot header/footer, KRaft version,
voters) are in control batches and decoded by :mod:`kdump.protocol.control`.

Schemas: ``metadata/src/main/resources/common/metadata/*.json``; frame:
``AbstractApiMessageSerde`` / ``MetadataRecordSerde`` (apache/kafka trunk, 2024-10-25).
"""

from __future__ import annotations

import base64
from typing import Any

from kdump.decoders.base import Decoded
from kdump.protocol.messages import (
    Field,
    Reader,
    Schema,
    SchemaError,
    clamp_version,
    json_text,
    read_message,
    to_json,
)
from kdump.redact import redact_metadata

__all__ = [
    "METADATA_SCHEMAS",
    "ClusterMetadataDecoder",
    "FrameError",
    "decode_frame",
    "record_type_name",
]


def record_type_name(schema_name: str) -> str:
    """The ``MetadataRecordType`` enum name: ``TopicRecord`` -> ``TOPIC_RECORD``."""
    out: list[str] = []
    prev_upper = True
    for ch in schema_name:
        if ch.isupper():
            if not prev_upper:
                out.append("_")
            out.append(ch.lower())
            prev_upper = True
        else:
            out.append(ch)
            prev_upper = False
    return "".join(out).upper()


def _record(api_key: int, name: str, valid: str, *fields: Field) -> Schema:
    return Schema(name, valid, "0+", fields, api_key=api_key)


_ENDPOINT = (
    Field("Name", "string"),
    Field("Host", "string"),
    Field("Port", "uint16"),
    Field("SecurityProtocol", "int16"),
)
_FEATURE = (
    Field("Name", "string"),
    Field("MinSupportedVersion", "int16"),
    Field("MaxSupportedVersion", "int16"),
)


def _tagged_ids(name: str, tag: int, versions: str = "0+") -> Field:
    """A tagged, nullable ``[]int32`` defaulting to null (PartitionChange/Partition)."""
    return Field(
        name,
        "[]int32",
        versions,
        nullable_versions=versions,
        tag=tag,
        tagged_versions=versions,
        default="null",
    )


_SCHEMA_LIST: tuple[Schema, ...] = (
    _record(
        0,
        "RegisterBrokerRecord",
        "0-3",
        Field("BrokerId", "int32"),
        Field("IsMigratingZkBroker", "bool", "2+", default="false"),
        Field("IncarnationId", "uuid"),
        Field("BrokerEpoch", "int64"),
        Field("EndPoints", "[]BrokerEndpoint", fields=_ENDPOINT),
        Field("Features", "[]BrokerFeature", fields=_FEATURE),
        Field("Rack", "string", nullable_versions="0+"),
        Field("Fenced", "bool", default="true"),
        Field("InControlledShutdown", "bool", "1+", default="false"),
        Field("LogDirs", "[]uuid", "3+", tag=0, tagged_versions="3+"),
    ),
    _record(
        1,
        "UnregisterBrokerRecord",
        "0",
        Field("BrokerId", "int32"),
        Field("BrokerEpoch", "int64"),
    ),
    _record(2, "TopicRecord", "0", Field("Name", "string"), Field("TopicId", "uuid")),
    _record(
        3,
        "PartitionRecord",
        "0-2",
        Field("PartitionId", "int32", default=-1),
        Field("TopicId", "uuid"),
        Field("Replicas", "[]int32"),
        Field("Isr", "[]int32"),
        Field("RemovingReplicas", "[]int32"),
        Field("AddingReplicas", "[]int32"),
        Field("Leader", "int32", default=-1),
        Field("LeaderRecoveryState", "int8", tag=0, tagged_versions="0+", default=0),
        Field("LeaderEpoch", "int32", default=-1),
        Field("PartitionEpoch", "int32", default=-1),
        Field("Directories", "[]uuid", "1+"),
        _tagged_ids("EligibleLeaderReplicas", 1, "2+"),
        _tagged_ids("LastKnownElr", 2, "2+"),
    ),
    _record(
        4,
        "ConfigRecord",
        "0",
        Field("ResourceType", "int8"),
        Field("ResourceName", "string"),
        Field("Name", "string"),
        Field("Value", "string", nullable_versions="0+"),
    ),
    _record(
        5,
        "PartitionChangeRecord",
        "0-2",
        Field("PartitionId", "int32", default=-1),
        Field("TopicId", "uuid"),
        _tagged_ids("Isr", 0),
        Field("Leader", "int32", tag=1, tagged_versions="0+", default=-2),
        _tagged_ids("Replicas", 2),
        _tagged_ids("RemovingReplicas", 3),
        _tagged_ids("AddingReplicas", 4),
        Field("LeaderRecoveryState", "int8", tag=5, tagged_versions="0+", default=-1),
        Field(
            "Directories",
            "[]uuid",
            "1+",
            nullable_versions="1+",
            tag=8,
            tagged_versions="1+",
            default="null",
        ),
        _tagged_ids("EligibleLeaderReplicas", 6, "2+"),
        _tagged_ids("LastKnownElr", 7, "2+"),
    ),
    _record(7, "FenceBrokerRecord", "0", Field("Id", "int32"), Field("Epoch", "int64")),
    _record(8, "UnfenceBrokerRecord", "0", Field("Id", "int32"), Field("Epoch", "int64")),
    _record(9, "RemoveTopicRecord", "0", Field("TopicId", "uuid")),
    _record(
        10,
        "DelegationTokenRecord",
        "0",
        Field("Owner", "string"),
        Field("Requester", "string"),
        Field("Renewers", "[]string"),
        Field("IssueTimestamp", "int64"),
        Field("MaxTimestamp", "int64"),
        Field("ExpirationTimestamp", "int64"),
        Field("TokenId", "string"),
    ),
    _record(
        11,
        "UserScramCredentialRecord",
        "0",
        Field("Name", "string"),
        Field("Mechanism", "int8"),
        Field("Salt", "bytes"),
        Field("StoredKey", "bytes"),
        Field("ServerKey", "bytes"),
        Field("Iterations", "int32"),
    ),
    _record(
        12,
        "FeatureLevelRecord",
        "0",
        Field("Name", "string"),
        Field("FeatureLevel", "int16"),
    ),
    _record(
        14,
        "ClientQuotaRecord",
        "0",
        Field(
            "Entity",
            "[]EntityData",
            fields=(
                Field("EntityType", "string"),
                Field("EntityName", "string", nullable_versions="0+"),
            ),
        ),
        Field("Key", "string"),
        Field("Value", "float64"),
        Field("Remove", "bool"),
    ),
    _record(
        15,
        "ProducerIdsRecord",
        "0",
        Field("BrokerId", "int32"),
        Field("BrokerEpoch", "int64", default=-1),
        Field("NextProducerId", "int64"),
    ),
    _record(
        17,
        "BrokerRegistrationChangeRecord",
        "0-2",
        Field("BrokerId", "int32"),
        Field("BrokerEpoch", "int64"),
        Field("Fenced", "int8", tag=0, tagged_versions="0+"),
        Field("InControlledShutdown", "int8", "1+", tag=1, tagged_versions="1+"),
        Field("LogDirs", "[]uuid", "2+", tag=2, tagged_versions="2+"),
    ),
    _record(
        18,
        "AccessControlEntryRecord",
        "0",
        Field("Id", "uuid"),
        Field("ResourceType", "int8"),
        Field("ResourceName", "string"),
        Field("PatternType", "int8"),
        Field("Principal", "string"),
        Field("Host", "string"),
        Field("Operation", "int8"),
        Field("PermissionType", "int8"),
    ),
    _record(19, "RemoveAccessControlEntryRecord", "0", Field("Id", "uuid")),
    _record(20, "NoOpRecord", "0"),
    _record(21, "ZkMigrationStateRecord", "0", Field("ZkMigrationState", "int8")),
    _record(
        22,
        "RemoveUserScramCredentialRecord",
        "0",
        Field("Name", "string"),
        Field("Mechanism", "int8"),
    ),
    _record(
        23,
        "BeginTransactionRecord",
        "0",
        Field(
            "Name",
            "string",
            nullable_versions="0+",
            tag=0,
            tagged_versions="0+",
            default="null",
        ),
    ),
    _record(24, "EndTransactionRecord", "0"),
    _record(
        25,
        "AbortTransactionRecord",
        "0",
        Field(
            "Reason",
            "string",
            nullable_versions="0+",
            tag=0,
            tagged_versions="0+",
            default="null",
        ),
    ),
    _record(26, "RemoveDelegationTokenRecord", "0", Field("TokenId", "string")),
    _record(
        27,
        "RegisterControllerRecord",
        "0",
        Field("ControllerId", "int32"),
        Field("IncarnationId", "uuid"),
        Field("ZkMigrationReady", "bool"),
        Field("EndPoints", "[]ControllerEndpoint", fields=_ENDPOINT),
        Field("Features", "[]ControllerFeature", fields=_FEATURE),
    ),
)

#: api key -> record schema (unassigned in this Kafka snapshot: 6, 13, 16)
METADATA_SCHEMAS: dict[int, Schema] = {s.api_key: s for s in _SCHEMA_LIST if s.api_key is not None}


class FrameError(SchemaError):
    """A metadata frame that does not decode; the message is Kafka's wording."""

    def __init__(self, message: str, api_key: int | None = None, version: int | None = None):
        super().__init__(message)
        self.api_key = api_key
        self.version = version


def decode_frame(
    value: bytes | None,
    schemas: dict[int, Schema],
    *,
    unknown_id: str = "org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id {}",
) -> tuple[Schema, int, int, dict[str, Any]]:
    """Read an ``AbstractApiMessageSerde`` frame: (schema, api key, version, JSON data).

    Versions beyond a schema's known range are read with the nearest known layout, as
    Kafka's generated code does.  Raises :class:`FrameError` with Kafka's messages.
    """
    r = Reader(b"" if value is None else value)
    try:
        frame_version = r.short_uvarint("frame version")
        if frame_version == 0:
            raise FrameError(
                "Could not deserialize metadata record with frame version 0. Note that "
                "upgrades from the preview release of KRaft in 2.8 to newer versions are "
                "not supported."
            )
        if frame_version != 1:
            raise FrameError(
                "Could not deserialize metadata record due to unknown frame version "
                f"{frame_version}(only frame version 1 is supported)"
            )
        api_key = r.short_uvarint("type")
        version = r.short_uvarint("version")
    except SchemaError as e:
        raise FrameError(str(e)) from e
    schema = schemas.get(api_key)
    if schema is None:
        raise FrameError(unknown_id.format(api_key), api_key, version)
    layout = clamp_version(version, schema.v_valid)
    try:
        msg, end = read_message(schema, r.data, layout, pos=r.pos)
    except SchemaError as e:
        raise FrameError(f"Failed to deserialize record with type {api_key}", api_key, version) from e
    if end != len(r.data):
        raise FrameError(f"Found {len(r.data) - end} byte(s) of garbage after {api_key}", api_key, version)
    return schema, api_key, version, to_json(schema.fields, msg, layout)


def _error_json(value: bytes | None, e: FrameError) -> dict[str, Any] | None:
    if value is None:
        return None
    out: dict[str, Any] = {}
    if e.api_key is not None:
        out["apiKey"] = e.api_key
    if e.version is not None:
        out["version"] = e.version
    out["raw"] = base64.b64encode(value).decode("ascii")
    return out


class ClusterMetadataDecoder:
    """Decoder for KRaft metadata records (``--cluster-metadata-decoder``)."""

    name = "cluster-metadata"
    #: print SCRAM keys and sensitive config values as the data holds them (kdump.redact)
    show_secrets = False

    def decode(self, key: bytes | None, value: bytes | None, offset: int) -> Decoded:
        try:
            schema, _api_key, version, data = decode_frame(value, METADATA_SCHEMAS)
        except FrameError as e:
            text = f"Error at {offset}, skipping. {e}"
            return Decoded(None, text, None, _error_json(value, e), text)
        except SchemaError as e:  # a decoder never aborts a dump
            text = f"Error at {offset}, skipping. {e}"
            return Decoded(None, text, None, _error_json(value, FrameError(str(e))), text)
        if not self.show_secrets:
            data = redact_metadata(schema.name, data)
        obj = {"type": record_type_name(schema.name), "version": version, "data": data}
        note = None
        if version not in schema.v_valid:
            layout = clamp_version(version, schema.v_valid)
            note = (
                f"unknown {schema.name} version {version} (known {schema.v_valid}); "
                f"decoded with the version {layout} layout"
            )
        return Decoded(None, json_text(obj), None, obj, note)
