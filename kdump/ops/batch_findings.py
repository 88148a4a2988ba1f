"""Findings about one framed batch, shared by dump and verify-crc (and light to
import: verify-crc's start-up must not pay for dump's decoders)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import DecompressionError, KdumpError, LimitExceeded, RecordTooLarge
from ..findings import Problem
from ..records.faults import RecordFault

if TYPE_CHECKING:
    from ..records.batch import Batch


def crc_problem(batch: Batch) -> Problem:
    """The batch's stored checksum does not match its bytes."""
    return Problem(
        batch.path, batch.position, "crc-mismatch",
        f"stored {batch.checksum_name} {batch.crc} does not match the computed {batch.compute_crc()}",
        base_offset=batch.first_offset, length=batch.size,
    )


def record_problem(batch: Batch, e: KdumpError) -> Problem:
    """A batch whose records cannot be read, kind chosen by the error's class."""
    if isinstance(e, RecordFault):
        kind = e.kind
    elif isinstance(e, RecordTooLarge):
        kind = "record-too-large"
    elif isinstance(e, LimitExceeded):
        kind = "batch-too-large"
    elif isinstance(e, DecompressionError):
        kind = "decompression-error"
    else:
        kind = "invalid-record"
    return Problem(batch.path, batch.position, kind, e.message,
                   base_offset=batch.first_offset, length=batch.size)


class NoBatch:
    """Watches one segment file's findings, read whole: when not one batch was framed in
    its bytes and no finding worse than information said so (a few bytes of text read
    as a batch in flight), :meth:`problem` is the error saying it holds no Kafka data
    (all zeros is a preallocated, never written segment: not this)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.failed = False
        self.zeros_from_start = False

    def see(self, p: Problem) -> None:
        if p.is_failure:
            self.failed = True
        if p.kind == "zero-tail" and p.position == 0:
            self.zeros_from_start = True

    def problem(self, size: int, batches: int, head: bytes = b"", base: int | None = None
                ) -> Problem | None:
        """``head``: the file's first bytes; ``base``: the segment's base offset.  A
        few bytes that begin as the segment's first batch would (its base offset) are
        that batch being written by a live broker, not this."""
        if batches or not size or self.failed or self.zeros_from_start:
            return None
        if base is not None and head and 0 <= base < 1 << 63 \
                and head[:8] == base.to_bytes(8, "big")[:len(head[:8])]:
            return None
        return Problem(self.path, 0, "no-batch",
                       f"not one record batch can be framed in its {size} bytes: no Kafka "
                       "data (a file named like a segment, or a segment damaged throughout)",
                       length=size)
