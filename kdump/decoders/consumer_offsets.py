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
from kdump.decoders.release import NO_EVIDENCE, Evidence, layouts, newer_than_release, read_layout
from kdump.protocol.definitions import RELEASES, RecordDef, definitions, schema_table
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
    "decode_consumer_protocol",
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

#: record type (= the key's int16) -> key schema (newest layout; see
#: :mod:`kdump.protocol.definitions`, family ``group``)
KEY_SCHEMAS: dict[int, Schema] = schema_table("group", "key")
#: record type -> value schema (newest layout of each type)
VALUE_SCHEMAS: dict[int, Schema] = schema_table("group", "value")

OFFSET_COMMIT_KEY = KEY_SCHEMAS[1]
OFFSET_COMMIT_VALUE = VALUE_SCHEMAS[1]
GROUP_METADATA_KEY = KEY_SCHEMAS[2]
GROUP_METADATA_VALUE = VALUE_SCHEMAS[2]

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


def decode_consumer_protocol(schema: Schema, raw: bytes) -> dict[str, Any] | None:
    """A ConsumerProtocolSubscription or ConsumerProtocolAssignment (``schema``) read
    from its bytes at the version they carry, as JSON; None when they do not decode."""
    return _consumer_protocol_json(schema, raw)


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


class CoordinatorRecordDecoder:
    """Shared logic of the coordinator-record parsers of DumpLogSegments.

    ``CoordinatorRecordSerde``: the key's int16 is the record type and selects both the
    key and the value definition; the value carries its own int16 version, which must
    be one the type defines (Kafka 4.x: ``Found an unknown record version``).  Layouts
    come from :mod:`kdump.protocol.definitions` (``family``); where a type has several
    layouts at one version, :func:`kdump.decoders.release.read_layout` picks one from
    the :class:`~kdump.decoders.release.Evidence` the decoder was made with.
    Subclasses give the family, the topic label and the label of the value's version
    in the JSON (``"version"``; ``"type"`` in Kafka 4.0's share-group-state parser).
    """

    name = ""
    topic = ""
    topic_label = ""
    family = ""
    #: key tables by record type, for callers that list the known types
    key_schemas: ClassVar[dict[int, Schema]] = {}
    value_schemas: ClassVar[dict[int, Schema]] = {}
    value_label = "version"
    #: False: key_text and value_text of a decoded record are "" (a reader of the
    #: objects only, kdump timeline, does not pay for the JSON texts)
    texts = True

    def __init__(self, evidence: Evidence = NO_EVIDENCE) -> None:
        self.evidence = evidence
        #: record type -> (key schema, value schema) of the types with one layout each,
        #: when no release is named: read directly (the common case, kept cheap)
        self._fast: dict[int, tuple[Schema, Schema]] = {}
        if evidence.release is None:
            for d in definitions(self.family):
                if d.role != "key":
                    continue
                keys = layouts(self.family, "key", d.record_type)
                values = layouts(self.family, "value", d.record_type)
                if len(keys) == 1 and len(values) == 1 and values[0].unstable_in is None:
                    self._fast[d.record_type] = (keys[0].schema, values[0].schema)
        #: the value's label for those types
        self.value_label_fast = self.label_for(None)
        self._type_notes: dict[int, str | None] = {}

    def label_for(self, layout: RecordDef | None) -> str:
        """The label of the value's version in the JSON text."""
        return self.value_label

    def decode(self, key: bytes | None, value: bytes | None, offset: int) -> Decoded:
        try:
            return self._decode(key, value, offset)
        except SchemaError as e:  # a decoder never aborts a dump
            text = f"Error at offset {offset}, skipping. {e}"
            return Decoded(text, None, _raw_json(key, "type"), _raw_json(value, self.value_label), text)

    def post_process(self, schema: Schema, data: dict[str, Any], message: dict[str, Any]) -> None:
        """Hook: adjust a rendered value (``data``) given the raw message."""

    def _unknown_type(self, record_type: int, value: bytes | None) -> str:
        known = sorted({d.record_type for d in definitions(self.family) if d.role == "key"})
        version = "" if value is None or len(value) < 2 else \
            f", value version {int.from_bytes(value[:2], 'big', signed=True)}"
        return (f"unknown record type {record_type} of {self.topic}{version}: not a type of "
                f"Kafka {RELEASES[0]}-{RELEASES[-1]} (known: {_ranges(known)}); raw bytes kept")

    def _type_note(self, record_type: int) -> str | None:
        """Why a known type is unexpected under the evidence (None: it is not)."""
        if self.evidence.release is None:
            return None
        if record_type not in self._type_notes:
            self._type_notes[record_type] = self._type_note_of(record_type)
        return self._type_notes[record_type]

    def _type_note_of(self, record_type: int) -> str | None:
        ev = self.evidence
        defs = layouts(self.family, "key", record_type)
        if any(ev.admits(d) for d in defs):
            return None
        d = defs[-1]
        return (f"record type {record_type} ({d.schema.name}) is written by Kafka "
                f"{d.releases}, not by Kafka {ev.release}{'+' if ev.floor else ''} ({ev.source})")

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
        except _RecordError as e:
            text = f"Error at offset {offset}, skipping. {e}"
            return Decoded(text, None, _raw_json(key, "type"), _raw_json(value, self.value_label), text)
        fast = self._fast.get(record_type)
        if fast is None and not layouts(self.family, "key", record_type):
            text = f"Unknown record type {record_type} at offset {offset}, skipping."
            return Decoded(text, None, _raw_json(key, "type"), _raw_json(value, self.value_label),
                           self._unknown_type(record_type, value))
        type_note = None if fast is not None else self._type_note(record_type)
        if type_note:
            notes.append(type_note)
        # Keys are read at their record type; the layouts define version 0 only, and
        # Kafka's generated reader reads any version with it (no range check there).
        if fast is not None:
            key_schema = fast[0]
            try:
                key_msg, key_end = read_message(key_schema, key, 0, pos=2)
            except SchemaError as e:
                key_msg, key_error = None, str(e)
        else:
            k = read_layout(self.family, "key", record_type, 0, key, 2, evidence=self.evidence,
                            exact=False)
            key_msg, key_end, key_error = k.message, k.end, k.error or ""
            key_schema = k.layout.schema if k.layout is not None else None  # type: ignore[assignment]
        if key_msg is None or key_schema is None:
            text = (f"Error at offset {offset}, skipping. Could not read record with version "
                    f"{record_type} from key's buffer due to: {key_error}.")
            return Decoded(text, None, _raw_json(key, "type"), _raw_json(value, self.value_label), text)
        key_json = {"type": str(record_type), "data": to_json(key_schema.fields, key_msg, 0)}
        if key_end != len(key):
            notes.append(f"{len(key) - key_end} unread byte(s) after the {key_schema.name}")

        if value is None:
            return Decoded(json_text(key_json) if self.texts else "", "<DELETE>", key_json, None,
                           "; ".join(notes) or None)

        try:
            version = _read_version(value, "value")
        except _RecordError as e:
            text = f"Error at offset {offset}, skipping. {e}"
            return Decoded(text, None, key_json, _raw_json(value, self.value_label), text)
        if fast is not None and version in fast[1].v_valid:
            # one layout of this type and no release named: a plain read, as fast as before
            value_schema = fast[1]
            try:
                msg, end = read_message(value_schema, value, version, pos=2)
            except SchemaError as e:
                text = (f"Error at offset {offset}, skipping. Could not read record with version "
                        f"{version} from value's buffer due to: {e}.")
                return Decoded(text, None, key_json, _raw_json(value, self.value_label),
                               "; ".join([*notes, text]))
            data = to_json(value_schema.fields, msg, version)
            self.post_process(value_schema, data, msg)
            if end != len(value):
                notes.append(f"{len(value) - end} unread byte(s) after the {value_schema.name}")
            fast_json = {self.value_label_fast: str(version), "data": data}
            if not self.texts:
                return Decoded("", "", key_json, fast_json, "; ".join(notes) or None)
            return Decoded(json_text(key_json), json_text(fast_json), key_json, fast_json,
                           "; ".join(notes) or None)
        v = read_layout(self.family, "value", record_type, version, value, 2, evidence=self.evidence)
        if v.layout is None or v.message is None or v.data is None:
            if not any(version in d.schema.v_valid for d in layouts(self.family, "value", record_type)):
                text = (f"Error at offset {offset}, skipping. Found an unknown record version "
                        f"{version} for {record_type} type")
                known = ", ".join(sorted({str(d.schema.v_valid)
                                          for d in layouts(self.family, "value", record_type)}))
                why = (f"{self._value_name(record_type)} version {version} is not a version of Kafka "
                       f"{RELEASES[0]}-{RELEASES[-1]} (known: {known}); raw bytes kept")
            else:
                text = (f"Error at offset {offset}, skipping. Could not read record with version "
                        f"{version} from value's buffer due to: {v.error}.")
                why = text
            return Decoded(text, None, key_json, _raw_json(value, self.value_label),
                           "; ".join([*notes, why]))
        data = v.data
        self.post_process(v.layout.schema, data, v.message)
        if v.doubt:
            notes.append(v.doubt)
        if self.evidence.release is not None and not self.evidence.floor and not type_note:
            notes.extend(newer_than_release(v.layout, version, data, self.evidence))
        if v.end != len(value):
            notes.append(f"{len(value) - v.end} unread byte(s) after the {v.layout.schema.name}")
        value_json: dict[str, Any] = {self.label_for(v.layout): str(version), "data": data}
        out_json = value_json
        if v.doubt:
            out_json = {**value_json, "raw": _b64(value)}
        return Decoded(
            json_text(key_json) if self.texts else "",
            json_text(value_json) if self.texts else "",
            key_json,
            out_json,
            "; ".join(notes) or None,
            v.note,
        )

    def _value_name(self, record_type: int) -> str:
        defs = layouts(self.family, "value", record_type)
        return defs[-1].schema.name if defs else f"type {record_type}"


def _ranges(numbers: list[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"``."""
    out: list[str] = []
    i = 0
    while i < len(numbers):
        j = i
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        out.append(str(numbers[i]) if i == j else f"{numbers[i]}-{numbers[j]}")
        i = j + 1
    return ", ".join(out)


class ConsumerOffsetsDecoder(CoordinatorRecordDecoder):
    """Decoder for ``__consumer_offsets`` records (DumpLogSegments ``--offsets-decoder``)."""

    name = "offsets"
    topic = "__consumer_offsets"
    topic_label = "offset topic"
    family = "group"
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
