"""Metadata records as the image applies them: the frame read into a message holding
every field (absent tagged fields at their schema default, as Kafka's generated classes
hold them), with the schema tables of :mod:`kdump.decoders.cluster_metadata`.

Frame (``MetadataRecordSerde`` / ``AbstractApiMessageSerde``): unsigned varints frame
version (1), api key, record version, then the record body.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..decoders.cluster_metadata import METADATA_SCHEMAS, record_type_name
from ..protocol.schema import Reader, SchemaError, clamp_version, read_message

__all__ = ["DecodedRecord", "RecordError", "decode_record"]


class RecordError(Exception):
    """A metadata record that does not decode."""


@dataclass(slots=True)
class DecodedRecord:
    name: str  # MetadataRecordType name: TOPIC_RECORD ...
    api_key: int
    version: int
    message: dict[str, Any]
    #: the version is beyond the known range: read with the nearest known layout
    unknown_version: bool


_NAMES = {k: record_type_name(s.name) for k, s in METADATA_SCHEMAS.items()}


def decode_record(value: bytes | None) -> DecodedRecord:
    if value is None:
        raise RecordError("null value: a metadata record always has one")
    r = Reader(value)
    try:
        frame = r.short_uvarint("frame version")
        if frame != 1:
            raise RecordError(f"frame version {frame} (only frame version 1 is known)")
        api_key = r.short_uvarint("type")
        version = r.short_uvarint("version")
    except SchemaError as e:
        raise RecordError(str(e)) from None
    schema = METADATA_SCHEMAS.get(api_key)
    if schema is None:
        raise RecordError(f"unknown metadata record type (api key) {api_key}, version {version}")
    layout = clamp_version(version, schema.v_valid)
    try:
        msg, end = read_message(schema, r.data, layout, pos=r.pos)
    except SchemaError as e:
        raise RecordError(f"{_NAMES[api_key]} version {version} does not decode: {e}") from None
    if end != len(r.data):
        raise RecordError(f"{_NAMES[api_key]} version {version}: {len(r.data) - end} byte(s) "
                          "left after the record")
    return DecodedRecord(_NAMES[api_key], api_key, version, msg, version not in schema.v_valid)
