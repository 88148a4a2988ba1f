"""The :class:`Batch` protocol: what every framed batch answers, whatever its magic.

Modelled on kafka-python's ``kafka/record/abc.py`` (ABCRecordBatch) and Kafka's
``org.apache.kafka.common.record.RecordBatch`` interface: v2 batches
(:class:`~kdump.records.v2.RecordBatch`) and v0/v1 top-level entries
(:class:`~kdump.records.legacy.LegacyBatch`) both implement it, so commands read
offsets, timestamps, the checksum and the codec without branching on the magic.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from .record import Record


@runtime_checkable
class Batch(Protocol):
    """One framed batch of a log (a v2 record batch, or a v0/v1 top-level entry)."""

    path: str
    position: int  # absolute byte position of the batch in its file
    size: int  # bytes, log overhead included
    magic: int
    crc: int  # the checksum stored in the batch

    @property
    def base_offset(self) -> int:
        """Offset of the first record (a compressed v0/v1 wrapper is decompressed)."""
        ...

    @property
    def first_offset(self) -> int:
        """The first offset known without decompressing: v2 baseOffset; v0/v1, the
        entry's offset (a wrapper's last inner offset)."""
        ...

    @property
    def last_offset(self) -> int: ...

    @property
    def first_timestamp(self) -> int: ...

    @property
    def max_timestamp(self) -> int: ...

    @property
    def timestamp_type(self) -> str: ...

    @property
    def checksum_name(self) -> str:
        """``CRC-32C`` (v2) or ``CRC-32`` (v0/v1)."""
        ...

    @property
    def crc_valid(self) -> bool: ...

    def compute_crc(self) -> int: ...

    @property
    def compression(self) -> int: ...

    @property
    def compression_name(self) -> str: ...

    @property
    def is_compressed(self) -> bool: ...

    @property
    def is_control(self) -> bool: ...

    @property
    def is_transactional(self) -> bool: ...

    # v2 header fields; a v0/v1 entry answers what AbstractLegacyRecordBatch does
    # (no producer, no sequence, no leader epoch, countOrNull None)
    @property
    def attributes(self) -> int: ...

    @property
    def count(self) -> int | None: ...

    @property
    def partition_leader_epoch(self) -> int: ...

    @property
    def producer_id(self) -> int: ...

    @property
    def producer_epoch(self) -> int: ...

    @property
    def base_sequence(self) -> int: ...

    @property
    def last_sequence(self) -> int: ...

    @property
    def has_delete_horizon(self) -> bool: ...

    @property
    def delete_horizon_ms(self) -> int | None: ...

    def records(self, max_bytes: int = ...) -> Iterator[Record]: ...


__all__ = ["Batch"]
