"""Kafka's generated message encoding ("message schemas") and the records built on it.

* :mod:`kdump.protocol.messages` - the reader, the JSON-converter rendering and Jackson's
  compact text form.
* :mod:`kdump.protocol.control` - KRaft control record values (leader change, snapshot
  header/footer, KRaft version, voters) and transaction markers.
"""

from __future__ import annotations

from kdump.protocol.messages import (
    Field,
    Reader,
    Schema,
    SchemaError,
    Versions,
    decode,
    json_text,
    read_message,
    to_json,
)

__all__ = [
    "Field",
    "Reader",
    "Schema",
    "SchemaError",
    "Versions",
    "decode",
    "json_text",
    "read_message",
    "to_json",
]
