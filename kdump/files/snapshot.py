"""Producer-state snapshots (``<offset>.snapshot``).

storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java
(``readSnapshot``), storage/src/main/resources/message/ProducerSnapshot.json.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import layouts as L
from ..checksums import crc32c
from ..errors import CorruptDataError
from ..records.v2 import decrement_sequence
from ..source import FileSource

#: a snapshot larger than this is not read whole (10 + 46 * ~23 M producers)
MAX_SNAPSHOT_BYTES = 1 << 30


@dataclass(frozen=True, slots=True)
class ProducerSnapshotEntry:
    """One producer's state, under ProducerStateEntry/BatchMetadata names."""

    producer_id: int
    producer_epoch: int
    last_sequence: int
    last_offset: int
    offset_delta: int
    timestamp: int
    coordinator_epoch: int
    current_txn_first_offset: int  # -1: none

    @property
    def has_batch_metadata(self) -> bool:
        """readSnapshot keeps batch metadata only when lastOffset >= 0."""
        return self.last_offset >= 0

    @property
    def first_sequence(self) -> int:
        return decrement_sequence(self.last_sequence, self.offset_delta)


@dataclass(slots=True)
class ProducerSnapshot:
    path: str
    version: int
    crc: int
    computed_crc: int
    entries: list[ProducerSnapshotEntry]

    @property
    def crc_valid(self) -> bool:
        return self.crc == self.computed_crc


def read_producer_snapshot(source: FileSource) -> ProducerSnapshot:
    """Parse a snapshot; raises :class:`CorruptDataError` with Kafka's own message
    (CorruptSnapshotException) when it does not parse.  A CRC mismatch is not raised:
    the entries are returned with ``crc_valid`` false, so they can still be shown."""
    path = source.path
    if source.size > MAX_SNAPSHOT_BYTES:
        raise CorruptDataError(f"snapshot of {source.size} bytes is implausibly large",
                               path=path, position=0)
    data = source.pread(0, source.size)
    if len(data) < 2:
        raise CorruptDataError("Snapshot failed schema validation: file too short for a version",
                               path=path, position=0)
    (version,) = L.INT16.unpack_from(data, 0)
    if version not in L.SNAPSHOT_VERSIONS:
        raise CorruptDataError(
            f"Snapshot failed schema validation: Snapshot contained an unknown file version "
            f"{version}", path=path, position=0)
    if len(data) < L.SNAPSHOT_HEADER_SIZE:
        raise CorruptDataError("Snapshot failed schema validation: file too short for its header",
                               path=path, position=0)
    _, crc, count = L.SNAPSHOT_HEADER.unpack_from(data, 0)
    if count < 0 or L.SNAPSHOT_HEADER_SIZE + count * L.SNAPSHOT_ENTRY_SIZE > len(data):
        raise CorruptDataError(
            f"Snapshot failed schema validation: {count} producer entries do not fit in "
            f"{len(data)} bytes", path=path, position=6)
    entries = [
        ProducerSnapshotEntry(
            *L.SNAPSHOT_ENTRY.unpack_from(data, L.SNAPSHOT_HEADER_SIZE + k * L.SNAPSHOT_ENTRY_SIZE)
        )
        for k in range(count)
    ]
    computed = crc32c(memoryview(data)[L.SNAPSHOT_CRC_START:])
    return ProducerSnapshot(path, version, crc, computed, entries)
