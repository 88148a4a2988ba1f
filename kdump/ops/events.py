"""The plain objects commands produce and renderers consume."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..decoders.base import Decoded
from ..files.logdir import KafkaFile
from ..files.snapshot import ProducerSnapshotEntry
from ..files.txnindex import AbortedTxn
from ..records.control import ControlRecord
from ..records.file_records import Batch
from ..records.record import Record


@dataclass(slots=True)
class FileStart:
    """A file is about to be dumped (DumpLogSegments: ``Dumping <file>``)."""

    file: KafkaFile
    size: int | None


@dataclass(slots=True)
class RecordEvent:
    record: Record
    decoded: Decoded | None = None
    control: ControlRecord | None = None


@dataclass(slots=True)
class BatchEvent:
    batch: Batch
    records: list[RecordEvent] | None  # None: shallow iteration
    #: more records of a batch already announced: a batch of more than RECORD_CHUNK
    #: records comes in several events, and only the first shows the batch itself
    continued: bool = False


@dataclass(slots=True)
class LogEnd:
    path: str
    size: int
    end: int  # where reading stopped (``--max-bytes``)
    valid_bytes: int  # end of the last intact batch
    limited: bool  # --max-bytes cut the file short
    batches: int
    records: int
    unreadable_bytes: int

    @property
    def trailing_bytes(self) -> int:
        return self.end - self.valid_bytes


@dataclass(slots=True)
class IndexEntryEvent:
    path: str
    slot: int
    offset: int
    position: int


@dataclass(slots=True)
class TimeIndexEntryEvent:
    path: str
    slot: int
    timestamp: int
    offset: int


@dataclass(slots=True)
class IndexStatus:
    """``<file> is empty.`` / ``<file> passed sanity check.`` / a failed sanity check."""

    path: str
    status: str  # "empty", "sanity-passed", "sanity-failed"
    message: str


@dataclass(slots=True)
class TxnIndexEntryEvent:
    path: str
    txn: AbortedTxn


@dataclass(slots=True)
class SnapshotEntryEvent:
    path: str
    entry: ProducerSnapshotEntry


@dataclass(slots=True)
class CheckpointEntryEvent:
    path: str
    kind: str
    line: int
    fields: dict[str, Any]


@dataclass(slots=True)
class PropertiesEvent:
    """The content of a small metadata file (meta.properties, partition.metadata, ...)."""

    path: str
    kind: str
    values: dict[str, Any] | None


@dataclass(slots=True)
class Note:
    """Something said about a file that is neither data nor a problem."""

    path: str
    text: str


@dataclass(slots=True)
class LayoutNote(Note):
    """Which of several record layouts read a file's records, and why (said once per
    file and layout, at its first record; :mod:`kdump.decoders.release`).  On stderr in
    text output, whose stdout lines stay DumpLogSegments'; not in JSON and table output,
    where each record says it (``decoded.layout``, the row's ``layout:``)."""
