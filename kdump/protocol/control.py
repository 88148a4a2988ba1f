"""Values of control records (v2 batches with the control attribute).

The 4-byte control key is ``int16 version, int16 type``.  Types 0/1 (ABORT/COMMIT) carry
an EndTransactionMarker (``int16 version, int32 coordinatorEpoch``); types 2-6 carry a
KRaft control message encoded with the generated message code, *without* a version
prefix: each body starts with its own ``Version`` field.  Kafka
(``ControlRecordUtils.deserialize*``) always reads those bodies at version 0 and
DumpLogSegments renders them with the JSON converter at the version the body names.

Definitions: :mod:`kdump.protocol.definitions`, family ``control``
(``clients/src/main/resources/common/message/{LeaderChangeMessage,SnapshotHeaderRecord,
SnapshotFooterRecord,KRaftVersionRecord,VotersRecord}.json`` of Kafka 3.9-4.4).
"""

from __future__ import annotations

from typing import Any

from kdump import layouts as L
from kdump.layouts import CONTROL_ABORT as ABORT
from kdump.layouts import CONTROL_COMMIT as COMMIT
from kdump.layouts import CONTROL_KRAFT_VERSION as KRAFT_VERSION
from kdump.layouts import CONTROL_KRAFT_VOTERS as KRAFT_VOTERS
from kdump.layouts import CONTROL_LEADER_CHANGE as LEADER_CHANGE
from kdump.layouts import CONTROL_SNAPSHOT_FOOTER as SNAPSHOT_FOOTER
from kdump.layouts import CONTROL_SNAPSHOT_HEADER as SNAPSHOT_HEADER
from kdump.protocol.definitions import schema_table
from kdump.protocol.messages import (
    Schema,
    SchemaError,
    clamp_version,
    json_text,
    read_message,
    to_json,
)

__all__ = [
    "ABORT",
    "COMMIT",
    "CONTROL_SCHEMAS",
    "CONTROL_TYPE_NAMES",
    "KRAFT_VERSION",
    "KRAFT_VOTERS",
    "LEADER_CHANGE",
    "SNAPSHOT_FOOTER",
    "SNAPSHOT_HEADER",
    "control_record_text",
    "decode_control_value",
]

#: ControlRecordType's names (kdump.layouts.CONTROL_TYPES)
CONTROL_TYPE_NAMES: dict[int, str] = L.CONTROL_TYPES

#: control type -> schema of its KRaft control message (:mod:`kdump.protocol.definitions`,
#: family ``control``)
CONTROL_SCHEMAS: dict[int, Schema] = schema_table("control", "record")
LEADER_CHANGE_MESSAGE = CONTROL_SCHEMAS[LEADER_CHANGE]
SNAPSHOT_HEADER_RECORD = CONTROL_SCHEMAS[SNAPSHOT_HEADER]
SNAPSHOT_FOOTER_RECORD = CONTROL_SCHEMAS[SNAPSHOT_FOOTER]
KRAFT_VERSION_RECORD = CONTROL_SCHEMAS[KRAFT_VERSION]
VOTERS_RECORD = CONTROL_SCHEMAS[KRAFT_VOTERS]

# ControlRecordUtils.*_CURRENT_VERSION: the version Kafka reads every body at.
_READ_VERSION = 0


def _end_txn_marker(value: bytes) -> dict[str, Any]:
    if len(value) < 6:
        raise SchemaError(
            "Invalid value size found for end transaction marker. Must have at least 6 "
            f"bytes, but found only {len(value)}"
        )
    version = int.from_bytes(value[0:2], "big", signed=True)
    if version < 0:
        raise SchemaError(
            f"Invalid version found for end transaction marker: {version}. May indicate data corruption"
        )
    return {"version": version, "coordinatorEpoch": int.from_bytes(value[2:6], "big", signed=True)}


def decode_control_value(control_type: int, value: bytes) -> dict[str, Any]:
    """Decode a control record's value as Kafka's JSON converter shows it.

    Types 2-6 give the converter dict, e.g. ``{"version":0,"lastContainedLogTimestamp":123}``
    for a SNAPSHOT_HEADER.  Types 0/1 (transaction markers) give
    ``{"version":0,"coordinatorEpoch":5}``.  Anything else raises :class:`SchemaError`.
    """
    if control_type in (ABORT, COMMIT):
        return _end_txn_marker(value)
    schema = CONTROL_SCHEMAS.get(control_type)
    if schema is None:
        raise SchemaError(f"unknown control record type {control_type}")
    if value is None:
        raise SchemaError(f"{CONTROL_TYPE_NAMES[control_type]} control record has a null value")
    msg, _ = read_message(schema, value, _READ_VERSION)
    # DumpLogSegments renders with e.g. SnapshotHeaderRecordJsonConverter.write(h, h.version()).
    version = clamp_version(int(msg["version"]), schema.v_valid)
    return to_json(schema.fields, msg, version)


def control_record_text(control_type: int, value: bytes | None) -> str:
    """The text DumpLogSegments appends to a control record's metadata line.

    ``" endTxnMarker: COMMIT coordinatorEpoch: 5"``, ``" SnapshotHeader {...}"``,
    ``" SnapshotFooter {...}"``, ``" KRaftVersion {...}"``, ``" KRaftVoters {...}"``, and
    ``" controlType: LEADER_CHANGE(2)"`` for the rest (DumpLogSegments does not decode
    leader-change records; :func:`decode_control_value` does).  Raises
    :class:`SchemaError` when the value does not decode.
    """
    data = b"" if value is None else value
    if control_type in (ABORT, COMMIT):
        marker = _end_txn_marker(data)
        name = CONTROL_TYPE_NAMES[control_type]
        return f" endTxnMarker: {name} coordinatorEpoch: {marker['coordinatorEpoch']}"
    label = {
        SNAPSHOT_HEADER: "SnapshotHeader",
        SNAPSHOT_FOOTER: "SnapshotFooter",
        KRAFT_VERSION: "KRaftVersion",
        KRAFT_VOTERS: "KRaftVoters",
    }.get(control_type)
    if label is not None:
        return f" {label} {json_text(decode_control_value(control_type, data))}"
    name = CONTROL_TYPE_NAMES.get(control_type, "UNKNOWN")
    return f" controlType: {name}({control_type})"
