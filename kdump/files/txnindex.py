"""Aborted-transaction index (``.txnindex``): 34-byte entries, no header.

The version is what Kafka's ``AbortedTxn.version()`` reads: the first byte of the
2-byte field.

storage/src/main/java/org/apache/kafka/storage/internals/log/TransactionIndex.java,
AbortedTxn.java.  A trailing partial entry is ignored, as Kafka does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .. import layouts as L
from ..source import FileSource

CURRENT_VERSION = 0


@dataclass(frozen=True, slots=True)
class AbortedTxn:
    slot: int
    position: int
    version: int
    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int


def read_txn_index(source: FileSource) -> Iterator[AbortedTxn]:
    """Every whole entry, in file order (a bounded read per 64 KiB)."""
    size = L.TXN_INDEX_ENTRY_SIZE
    whole = source.size // size
    step = 2048  # entries per read
    for first in range(0, whole, step):
        n = min(step, whole - first)
        data = source.pread(first * size, n * size)
        for k in range(len(data) // size):
            version, pid, first_off, last_off, lso = L.TXN_INDEX_ENTRY.unpack_from(data, k * size)
            # AbortedTxn.version() is buffer.get(VERSION_OFFSET): only the first byte of the
            # int16 field (signed), so ``00 01`` is version 0 to Kafka
            version >>= 8
            yield AbortedTxn(first + k, (first + k) * size, version, pid, first_off, last_off, lso)


def partial_tail(source: FileSource) -> int:
    """Bytes of a trailing partial entry (ignored by Kafka)."""
    return source.size % L.TXN_INDEX_ENTRY_SIZE
