"""Bounds on what one batch may expand to (``--max-batch-bytes``), for every floor.

The records layer (:mod:`kdump.records.faults`, which re-exports these names) and the
message reader (:mod:`kdump.protocol.messages`) both bound their work by them; they live
here, on the ground floor, so that neither has to import the other for them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time: ``kdump --version`` (issue 33)
if TYPE_CHECKING:
    from typing import Final

#: bound on one batch's records, decompressed or stored (``--max-batch-bytes``): the
#: payload, its keys and values, their text and the output line (invalid UTF-8 printed
#: as U+FFFD takes three bytes per byte) stay under 300 MB of RSS (tests/records/test_decompression_bombs.py);
#: Kafka's batches are at most 1 MiB (message.max.bytes) as stored, so 16x fits
DEFAULT_MAX_BATCH_BYTES: Final = 16 << 20

#: bytes of budget one decoded object costs (a header: a tuple, its list slot, two bytes
#: objects; an array element of an internal topic's message): a batch's records may
#: hold at most ``max_batch_bytes // OBJECT_COST`` headers, and one decoded message as
#: many elements, so the objects they expand to stay bounded like the bytes (at the
#: 16 MiB default, 524,288: every batch Kafka's 1 MiB message.max.bytes allows)
OBJECT_COST: Final = 32
HEADER_COST: Final = OBJECT_COST


def max_objects(max_batch_bytes: int) -> int:
    """Objects (headers of a batch, elements of a decoded message) allowed under
    ``--max-batch-bytes``."""
    return max(max_batch_bytes, 0) // OBJECT_COST


__all__ = ["DEFAULT_MAX_BATCH_BYTES", "HEADER_COST", "OBJECT_COST", "max_objects"]
