"""verify-index's options and the state its checks share: a segment's files and loaded
index entries, what a pass over a partition learns (producers, open and aborted
transactions, leader epochs, snapshots still to compare), and its result for the log-dir
checkpoints.
"""

from __future__ import annotations

from array import array
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ... import layouts as L
from ...files.logdir import KafkaFile
from ...findings import Problem
from ...records.v2 import DEFAULT_MAX_BATCH_BYTES

if TYPE_CHECKING:
    from ..verdict import CleanupPolicies

#: KRaft's metadata log: no indexes or recovery-point entry needed (KafkaMetadataLog)
METADATA_TOPIC = "__cluster_metadata"

#: an index with more used entries than this is checked by sanity rules only (entries
#: not loaded); a full index at Kafka's default segment.index.bytes (10 MiB) has 1.3 M
MAX_INDEX_ENTRIES = 2 << 20


@dataclass(slots=True)
class VerifyIndexOptions:
    sanity_only: bool = False
    rebuild_into: str | None = None
    index_interval_bytes: int = L.DEFAULT_INDEX_INTERVAL_BYTES
    #: batches larger than this (decompressed) are reported, not held
    max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES
    #: stop reading a log at its first damaged batch instead of resynchronising
    strict: bool = False
    #: topics' cleanup.policy (kdump.ops.witnesses.CleanupPolicies; None: Kafka's own
    #: topics and cleaner-offset-checkpoint entries are compacted, others delete)
    policies: CleanupPolicies | None = None


@dataclass(slots=True)
class Segment:
    base: int
    log: KafkaFile | None = None
    index: KafkaFile | None = None
    time_index: KafkaFile | None = None
    txn_index: KafkaFile | None = None
    #: index entries, loaded once by the sanity checks and reused by the log pass
    offset_entries: IndexEntries | None = None
    time_entries: IndexEntries | None = None


@dataclass(slots=True)
class PartitionState:
    """What a pass over a partition's logs learns (for the log-dir checkpoints)."""

    topic: str
    partition: int
    path: str
    first_offset: int | None = None
    log_end_offset: int | None = None
    #: each segment's offsets held by its batches ``(base offset, last offset)``: what
    #: the partition's witnesses are held against (kdump.ops.witnesses)
    held: list[tuple[int, int]] = field(default_factory=list)
    #: a log could not be read (an I/O error): nothing is judged lost
    unreadable: bool = False
    #: offsets between two batches no batch holds (a delete-policy topic's only)
    gaps: list[tuple[int, int]] = field(default_factory=list)
    #: each log's tail finding, judged (kdump.ops.verdict.tail), and whether it is active
    tails: list[tuple[Problem, bool]] = field(default_factory=list)


@dataclass(slots=True)
class ProducerState:
    epoch: int = -1
    last_sequence: int = -1
    last_offset: int = -1
    coordinator_epoch: int = -1
    has_data: bool = False


@dataclass(slots=True)
class PartitionPass:
    """State carried across the segments of one partition."""

    producers: dict[int, ProducerState] = field(default_factory=dict)
    ongoing: dict[int, int] = field(default_factory=dict)  # pid -> first offset of open txn
    aborted: dict[int, list[tuple[int, int, int, int]]] = field(default_factory=dict)
    epochs: list[tuple[int, int]] = field(default_factory=list)  # (epoch, start offset)
    first_offset: int | None = None
    next_offset: int | None = None
    snapshots: deque[KafkaFile] = field(default_factory=deque)
    #: look for gaps between batches (a delete-policy topic), and those found
    find_gaps: bool = False
    gaps: list[tuple[int, int]] = field(default_factory=list)
    #: each log's tail finding as judged, and whether its segment is active
    tails: list[tuple[Problem, bool]] = field(default_factory=list)


@dataclass(slots=True)
class IndexEntries:
    """The used entries of an index, compact, by slot: a full 10 MiB index holds 1.3 M
    entries, which as objects (and a dict by position) took 700 MB.  Offset index:
    ``first`` relative offsets, ``second`` positions; time index: ``first`` timestamps,
    ``second`` relative offsets."""

    first: array[int]
    second: array[int]

    def __len__(self) -> int:
        return len(self.first)
