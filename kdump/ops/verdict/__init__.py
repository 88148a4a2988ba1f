"""The one judgment of a partition, made in one place (issue 46).

Every command that says what a partition holds, what is damaged, what is in flight and
what is lost says it from this package, never from a judgment of its own:

* :mod:`.witnesses`: what a partition's files prove was written (checkpoints, leader
  epochs, index entries, snapshot names, segment names, ``.txnindex`` entries, batches,
  replicas), and the ranges no batch holds; the topic's cleanup policy
  (:class:`CleanupPolicies`);
* :mod:`.tail`: an active segment's torn or zeroed tail judged by those witnesses (in
  flight, or where batches were lost);
* :mod:`.partition`: :func:`judge_partition` makes a :class:`PartitionVerdict`
  (identity, cleanup policy and where it came from, witnesses, log start, highest
  written, held ranges, tails, lost ranges, ``data_lost``, ``damaged``, ``reserve_to``
  and :meth:`~PartitionVerdict.findings`, one finding per fact);
* :mod:`.logdir`: :func:`judge_log_dir` makes a :class:`LogDirVerdict` (partitions the
  log dir's checkpoints name with no directory: lost, or explained by Kafka's own work);
* :mod:`.tracker`: :class:`LostTracker` makes both from a command's walk as it goes.
"""

from __future__ import annotations

from .cleanup import (
    COMPACTED_INTERNAL,
    Cleanup,
    CleanupPolicies,
    check_overrides,
    cleanup_of,
    compacted_by_cleaner,
    gap_entry_problem,
    log_cleanup,
    log_dir_policies,
)
from .logdir import (
    CHECKPOINT_WITNESSES,
    AbsentReplica,
    LogDirVerdict,
    MissingPartition,
    is_log_dir,
    judge_log_dir,
    log_dirs_of,
)
from .partition import (
    TAIL_KINDS,
    TAIL_PROBLEMS,
    PartitionVerdict,
    Tail,
    compacted_dirs,
    finds_gaps,
    gap_lost,
    held_pieces,
    judge_partition,
    take_cleanup,
)
from .tail import judge_tail
from .tracker import LostTracker
from .witnesses import (
    POLICY_CHANGED,
    UNKNOWN_POLICY,
    WITNESS_KINDS,
    LostRange,
    PartitionWitnesses,
    SegmentFiles,
    Witness,
    lost_problem,
    partition_witnesses,
    replica_log_end,
    witnesses_of,
)

__all__ = [
    "CHECKPOINT_WITNESSES",
    "COMPACTED_INTERNAL",
    "POLICY_CHANGED",
    "TAIL_KINDS",
    "TAIL_PROBLEMS",
    "UNKNOWN_POLICY",
    "WITNESS_KINDS",
    "AbsentReplica",
    "Cleanup",
    "CleanupPolicies",
    "LogDirVerdict",
    "LostRange",
    "LostTracker",
    "MissingPartition",
    "PartitionVerdict",
    "PartitionWitnesses",
    "SegmentFiles",
    "Tail",
    "Witness",
    "check_overrides",
    "cleanup_of",
    "compacted_by_cleaner",
    "compacted_dirs",
    "finds_gaps",
    "gap_entry_problem",
    "gap_lost",
    "held_pieces",
    "is_log_dir",
    "judge_log_dir",
    "judge_partition",
    "judge_tail",
    "log_cleanup",
    "log_dir_policies",
    "log_dirs_of",
    "lost_problem",
    "partition_witnesses",
    "replica_log_end",
    "take_cleanup",
    "witnesses_of",
]
