"""The state one partition's copy carries across its segments (:class:`PartitionLog`):
what was kept so far, the regions waiting for the next kept batch, what was dropped and
lost, the output files listed, and the facts Kafka's own recovery is modelled from.  The
copier (:mod:`.copier`), the region classifier (:mod:`.regions`), the segment writer
(:mod:`.segment_writer`) and the gap filler (:mod:`.gaps`) share it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..verify_index.options import PartitionPass
from .kafka_model import SegmentFacts


@dataclass(slots=True)
class Region:
    """A stretch of an input log not copied."""

    file: str
    position: int
    length: int
    reason: str
    detail: str
    severity: str
    first_offset: int | None = None
    last_offset: int | None = None
    #: the first offset the copy may lack (None: the region holds no data of its own)
    gap_from: int | None = None


@dataclass(slots=True)
class PartitionLog:
    """State carried across the segments of one partition."""

    directory: str
    interval: int
    log_dir: str | None
    topic: str
    partition: int
    pp: PartitionPass = field(default_factory=PartitionPass)
    prev_last: int | None = None
    #: the smallest offset a data-losing region may have held (None: nothing lost)
    frontier: int | None = None
    pending: list[Region] = field(default_factory=list)
    regions: int = 0
    bytes_dropped: int = 0
    #: a region holding data was dropped (the producer-snapshot and transaction notes);
    #: the manifest's data_lost is :func:`.losses.lost_offsets`' verdict on the copy
    data_lost: bool = False
    batches: int = 0
    records: int = 0
    bytes: int = 0
    first_offset: int | None = None
    input_last: int | None = None
    outputs: list[dict[str, Any]] = field(default_factory=list)
    segments_written: int = 0
    facts: list[SegmentFacts] = field(default_factory=list)
    #: aborted transactions already written to a .txnindex (by marker offset)
    txn_done: set[int] = field(default_factory=set)
    #: [first, last] offsets the copy lacks between kept batches where a dropped region
    #: was (holes, not the end), after any fill
    holes: list[tuple[int, int]] = field(default_factory=list)
    #: [first, last] offset ranges the copy's batches hold (kept or filled), in order,
    #: contiguous batches as one range
    held: list[tuple[int, int]] = field(default_factory=list)
    #: the replicas a dropped range is filled from (``--replica``: a fill.Filler)
    filler: Any = None
    #: the topic is compacted (a gap between batches may be the cleaner's, never filled)
    compacted: bool = False
    #: one past the highest offset the witnesses prove written (a torn tail is filled up
    #: to it, never beyond); None: no witness
    witnessed_end: int | None = None
    #: [first, last] offsets filled from another replica
    filled: list[tuple[int, int]] = field(default_factory=list)
    #: (file, position, size) of the last batch kept (the batch before a gap)
    last_kept: tuple[str, int, int] | None = None


__all__ = ["PartitionLog", "Region"]
