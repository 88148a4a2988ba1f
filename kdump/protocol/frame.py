"""The frame of KRaft metadata records and of ``__remote_log_metadata`` values:
``AbstractApiMessageSerde`` (``server-common/.../serialization/AbstractApiMessageSerde.java``,
Kafka 4.0), used by ``MetadataRecordSerde`` (``metadata/.../MetadataRecordSerde.java``)
and ``RemoteLogMetadataSerde`` (``storage/.../RemoteLogMetadataSerde.java``).

A frame is three unsigned varints - frame version (1), api key (the record type),
record version - then the record body, encoded by the generated message code
(:mod:`.messages`) at that version.  Read here, beneath the decoders that print
records (:mod:`kdump.decoders.cluster_metadata`, :mod:`kdump.decoders.remote_log_metadata`),
the redaction of secrets (:mod:`kdump.decoders.redact`) and the metadata image
(:mod:`kdump.metadata.records`), which all read it.
"""

from __future__ import annotations

from typing import Any

from .definitions import schema_table
from .messages import Reader, Schema, SchemaError, clamp_version, read_message, to_json

__all__ = ["METADATA_SCHEMAS", "FrameError", "decode_frame", "record_type_name"]


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


#: api key -> record schema (newest layout of each type; :mod:`kdump.protocol.definitions`,
#: family ``metadata``; unassigned in Kafka 3.9-4.4: 6, 13, 16)
METADATA_SCHEMAS: dict[int, Schema] = schema_table("metadata", "record")


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
