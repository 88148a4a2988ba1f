"""Findings about one framed batch, shared by dump and verify-crc (and light to
import: verify-crc's start-up must not pay for dump's decoders)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import DecompressionError, KdumpError, LimitExceeded
from ..findings import Problem
from ..records.faults import RecordFault

if TYPE_CHECKING:
    from ..records.file_records import Batch


def _first_offset(batch: Batch) -> int:
    return batch.base_offset if batch.magic >= 2 else batch.last_offset


def crc_problem(batch: Batch) -> Problem:
    """The batch's stored checksum does not match its bytes."""
    algo = "CRC-32C" if batch.magic >= 2 else "CRC-32"
    return Problem(
        batch.path, batch.position, "crc-mismatch",
        f"stored {algo} {batch.crc} does not match the computed {batch.compute_crc()}",
        base_offset=_first_offset(batch), length=batch.size,
    )


def record_problem(batch: Batch, e: KdumpError) -> Problem:
    """A batch whose records cannot be read, kind chosen by the error's class."""
    if isinstance(e, RecordFault):
        kind = e.kind
    elif isinstance(e, LimitExceeded):
        kind = "batch-too-large"
    elif isinstance(e, DecompressionError):
        kind = "decompression-error"
    else:
        kind = "invalid-record"
    return Problem(batch.path, batch.position, kind, e.message,
                   base_offset=_first_offset(batch), length=batch.size)
