"""Producer-state snapshots (``<offset>.snapshot``).

storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java
(``readSnapshot``), storage/src/main/resources/message/ProducerSnapshot.json.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from .. import layouts as L
from ..checksums import crc32c
from ..errors import CorruptDataError
from ..records.v2 import decrement_sequence
from ..source import FileSource

#: a snapshot larger than this is not read (10 + 46 * ~2.9 M producers); Kafka reads a
#: snapshot whole too
MAX_SNAPSHOT_BYTES = 128 << 20


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


class SnapshotEntries(Sequence[ProducerSnapshotEntry]):
    """The entries of a snapshot, unpacked when asked for: the file's bytes are kept,
    not an object per producer (a 191 MB snapshot of 4 M entries took 641 MB)."""

    __slots__ = ("data", "n")

    def __init__(self, data: bytes, n: int) -> None:
        self.data = data
        self.n = n

    def __len__(self) -> int:
        return self.n

    @overload
    def __getitem__(self, k: int) -> ProducerSnapshotEntry: ...

    @overload
    def __getitem__(self, k: slice) -> list[ProducerSnapshotEntry]: ...

    def __getitem__(self, k: int | slice) -> ProducerSnapshotEntry | list[ProducerSnapshotEntry]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(self.n))]
        if k < 0:
            k += self.n
        if not 0 <= k < self.n:
            raise IndexError(k)
        return ProducerSnapshotEntry(
            *L.SNAPSHOT_ENTRY.unpack_from(self.data, L.SNAPSHOT_HEADER_SIZE + k * L.SNAPSHOT_ENTRY_SIZE))

    def __iter__(self) -> Iterator[ProducerSnapshotEntry]:
        for k in range(self.n):
            yield self[k]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list | tuple | SnapshotEntries):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


@dataclass(slots=True)
class ProducerSnapshot:
    path: str
    version: int
    crc: int
    computed_crc: int
    entries: Sequence[ProducerSnapshotEntry]

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
    computed = crc32c(memoryview(data)[L.SNAPSHOT_CRC_START:])
    return ProducerSnapshot(path, version, crc, computed, SnapshotEntries(data, count))
