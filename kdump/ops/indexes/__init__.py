"""``verify-index``: indexes, snapshots and checkpoints against the logs.

* :mod:`.options` - the options, and the state the checks share;
* :mod:`.partitions` - the run: one job per partition, its segments in offset order;
* :mod:`.index_files` - ``.index`` / ``.timeindex`` / ``.txnindex`` on their own;
* :mod:`.segment_pass` - one pass over a segment's batches: entries checked, indexes
  rebuilt, producer/transaction/epoch state fed;
* :mod:`.state_files` - ``.txnindex``, producer snapshots, leader-epoch-checkpoint
  against the batches;
* :mod:`.checkpoints` - the log dir's checkpoint files against its partitions.

:mod:`kdump.ops.verify_index` gives their public names in one place.
"""
