"""The witnesses' old address: :mod:`kdump.ops.verdict` holds them now (with the one
verdict of a partition that every command takes); this module only re-exports them for
code written against it."""

from __future__ import annotations

from .verdict import (
    WITNESS_KINDS,
    CleanupPolicies,
    LostRange,
    LostTracker,
    PartitionWitnesses,
    SegmentFiles,
    Witness,
    compacted_by_cleaner,
    judge_tail,
    lost_problem,
    partition_witnesses,
    replica_log_end,
    witnesses_of,
)

__all__ = ["WITNESS_KINDS", "CleanupPolicies", "LostRange", "LostTracker", "PartitionWitnesses",
           "SegmentFiles", "Witness", "compacted_by_cleaner", "judge_tail",
           "lost_problem", "partition_witnesses", "replica_log_end", "witnesses_of"]
