"""``kdump verify-index``: indexes, snapshots and checkpoints against the logs.

* ``.index`` / ``.timeindex``: what DumpLogSegments checks (each offset entry points
  at a batch whose last offset is the entry's offset; each time entry names a batch's
  last offset and that batch's max timestamp; time entries strictly increase), plus
  the broker's sanity checks (AbstractIndex/OffsetIndex/TimeIndex ``sanityCheck``),
  entries ascending, positions inside the log, trailing zero slots recognised.
* ``.txnindex``: rebuilt from the partition's transaction markers
  (ProducerStateManager.lastStableOffset gives each entry's LSO) and compared.
* producer ``.snapshot``: each producer's epoch, last sequence and last offset against
  its last batch before the snapshot offset.
* ``leader-epoch-checkpoint``: against the epochs the batches carry (LogSegment.recover
  assigns an epoch at the first batch that raises it), both from the log start offset on
  (LeaderEpochFileCache.truncateFromStart, as LogLoader and DeleteRecords apply it).
* log-dir checkpoints: against the partitions that exist.

``rebuild`` computes the index files Kafka would rebuild (LogSegment.recover) and can
write them into a separate directory; inputs are never written.

The code lives in this package's modules, one per responsibility (the run over
partitions, the index files alone, the pass over a segment's batches, the state files,
the log dir's checkpoints); this module gives their public names, where the command line
and ``dump`` import them from.

Its modules:

* :mod:`.options` - the options, and the state the checks share;
* :mod:`.partitions` - the run: one job per partition, its segments in offset order;
* :mod:`.index_files` - ``.index`` / ``.timeindex`` / ``.txnindex`` on their own;
* :mod:`.segment_pass` - one pass over a segment's batches: entries checked, indexes
  rebuilt, producer/transaction/epoch state fed;
* :mod:`.state_files` - ``.txnindex``, producer snapshots, leader-epoch-checkpoint
  against the batches;
* :mod:`.checkpoints` - the log dir's checkpoint files against its partitions.
"""

from __future__ import annotations

from ...findings import ERROR
from .checkpoints import verify_root_checkpoints
from .index_files import (
    offset_order_problem,
    orphan_index,
    past_log_end_problem,
    time_order_problem,
    zero_slots_problem,
)
from .options import MAX_INDEX_ENTRIES, METADATA_TOPIC, PartitionState, Segment, VerifyIndexOptions
from .partitions import verify_index, verify_partition

__all__ = [
    "ERROR",
    "MAX_INDEX_ENTRIES",
    "METADATA_TOPIC",
    "PartitionState",
    "Segment",
    "VerifyIndexOptions",
    "offset_order_problem",
    "orphan_index",
    "past_log_end_problem",
    "time_order_problem",
    "verify_index",
    "verify_partition",
    "verify_root_checkpoints",
    "zero_slots_problem",
]
