"""Bounds on what one batch may expand to (``--max-batch-bytes``), and the size of the
byte ranges a big segment is exported in (``--split-bytes``), for every floor.

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


#: ``kdump export --split-bytes``, ``kdump spark export --split-bytes`` and the kafka_log
#: data source's ``split_bytes``: a segment larger than this is read (and by export,
#: written) as byte ranges cut at batch boundaries, one task or worker each.  128 MiB,
#: as Spark sizes its own input splits (spark.sql.files.maxPartitionBytes) and kdump's
#: Spark tasks (kdump.spark.tasks.TASK_BYTES): a segment of Kafka's default 1 GiB
#: (log.segment.bytes) is 8 ranges, enough to keep 8 workers busy where 256 MiB left 4
#: idle; memory is bounded by the row group, not the range (bench/README.md, "kdump
#: export": the same peak RSS for 64 MiB and 1 GiB segments), so smaller ranges cost
#: only a file each and one checked index lookup
SPLIT_BYTES: Final = 128 << 20


def max_objects(max_batch_bytes: int) -> int:
    """Objects (headers of a batch, elements of a decoded message) allowed under
    ``--max-batch-bytes``."""
    return max(max_batch_bytes, 0) // OBJECT_COST


__all__ = ["DEFAULT_MAX_BATCH_BYTES", "HEADER_COST", "OBJECT_COST", "SPLIT_BYTES", "max_objects"]
