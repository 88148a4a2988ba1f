"""Control records: the records of a v2 batch whose control flag is set.

clients/src/main/java/org/apache/kafka/common/record/ControlRecordType.java,
EndTransactionMarker.java, ControlRecordUtils.java.  The key is ``int16 version,
int16 type``; ABORT/COMMIT values are ``int16 version, int32 coordinatorEpoch``; the
KRaft types carry a generated message body (decoded by :mod:`kdump.protocol.control`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import layouts as L
from .record import Record


@dataclass(slots=True)
class ControlRecord:
    """What a control record says.  ``type_name`` is ControlRecordType's name
    (``UNKNOWN`` for an id Kafka does not know); ``data`` is the KRaft message as
    Kafka's JSON converter writes it; ``error`` when key or value is malformed."""

    type_id: int
    type_name: str
    key_version: int
    coordinator_epoch: int | None = None
    value_version: int | None = None
    data: dict[str, Any] | None = None
    error: str | None = None

    @property
    def is_end_txn_marker(self) -> bool:
        return self.type_id in (L.CONTROL_ABORT, L.CONTROL_COMMIT) and self.error is None


def parse_control(record: Record) -> ControlRecord:
    """Decode a control record's key and value; never raises."""
    key = record.key
    if key is None or len(key) < L.CONTROL_KEY.size:
        n = 0 if key is None else len(key)
        return ControlRecord(-1, "UNKNOWN", -1, error=(
            f"control record key must have at least 4 bytes, found {n}"))
    version, type_id = L.CONTROL_KEY.unpack_from(key, 0)
    if version < 0:
        return ControlRecord(type_id, "UNKNOWN", version, error=(
            f"invalid control record key version {version} (data corruption?)"))
    name = L.CONTROL_TYPES.get(type_id, "UNKNOWN")
    ctl = ControlRecord(type_id, name, version)
    value = record.value
    if type_id in (0, 1):
        if value is None or len(value) < L.END_TXN_MARKER_VALUE.size:
            ctl.error = (
                "end transaction marker value must have at least 6 bytes, found "
                f"{0 if value is None else len(value)}"
            )
            return ctl
        ctl.value_version, ctl.coordinator_epoch = L.END_TXN_MARKER_VALUE.unpack_from(value, 0)
        if ctl.value_version < 0:
            ctl.error = f"invalid end transaction marker version {ctl.value_version}"
        return ctl
    if name != "UNKNOWN":
        if value is None:
            ctl.error = f"{name} control record has a null value"
            return ctl
        try:
            from ..protocol.control import decode_control_value
            from ..protocol.messages import SchemaError
        except ImportError:  # pragma: no cover - the protocol package ships with kdump
            ctl.error = "KRaft control record decoding unavailable"
            return ctl
        try:
            ctl.data = decode_control_value(type_id, bytes(value))
            v = ctl.data.get("version") if ctl.data else None
            ctl.value_version = v if isinstance(v, int) else None
        except SchemaError as e:  # nothing raw escapes the core
            ctl.error = f"{name} value does not parse: {e}"
    return ctl
