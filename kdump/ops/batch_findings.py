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
