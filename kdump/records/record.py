"""The record: one key/value message, from a v2 batch or a legacy message set.

Field names follow Kafka's ``org.apache.kafka.common.record.Record`` interface.
"""

from __future__ import annotations

from typing import Any

Header = tuple[bytes, bytes | None]


class Record:
    """One record.  ``key``/``value`` are ``None`` when null (a null value is a tombstone).

    ``size`` is the record's size in bytes as stored (v2: length varint included;
    legacy: the whole ``[offset][size][message]`` entry).  ``position`` is where the
    record starts: an absolute file position for uncompressed data, else the byte
    position inside the decompressed payload (``in_payload`` is then true).
    """

    __slots__ = (
        "attributes",
        "control",
        "crc",
        "crc_valid",
        "headers",
        "in_payload",
        "key",
        "magic",
        "offset",
        "offset_delta",
        "position",
        "sequence",
        "size",
        "timestamp",
        "timestamp_delta",
        "value",
    )

    def __init__(
        self,
        offset: int,
        timestamp: int,
        key: bytes | None,
        value: bytes | None,
        headers: list[Header],
        *,
        magic: int = 2,
        attributes: int = 0,
        sequence: int = -1,
        size: int = 0,
        position: int = 0,
        in_payload: bool = False,
        offset_delta: int = 0,
        timestamp_delta: int = 0,
        crc: int | None = None,
        crc_valid: bool | None = None,
    ) -> None:
        self.offset = offset
        self.timestamp = timestamp
        self.key = key
        self.value = value
        self.headers = headers
        self.magic = magic
        self.attributes = attributes
        self.sequence = sequence
        self.size = size
        self.position = position
        self.in_payload = in_payload
        self.offset_delta = offset_delta
        self.timestamp_delta = timestamp_delta
        self.crc = crc
        self.crc_valid = crc_valid
        #: for records of a control batch: what :func:`kdump.records.control.parse_control`
        #: made of them
        self.control: Any = None

    @property
    def key_size(self) -> int:
        """Kafka's ``Record.keySize``: -1 for a null key."""
        return -1 if self.key is None else len(self.key)

    @property
    def value_size(self) -> int:
        return -1 if self.value is None else len(self.value)

    def __repr__(self) -> str:
        return (
            f"Record(offset={self.offset}, timestamp={self.timestamp}, key={self.key!r}, "
            f"value={self.value!r}, headers={self.headers!r})"
        )
