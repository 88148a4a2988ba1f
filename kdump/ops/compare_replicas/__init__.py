"""``kdump compare-replicas``: do the replicas of a partition agree, where do they differ,
which records exist on one replica only, and where Kafka's truncation would cut each
follower.

Each replica is read batch header by batch header (61 bytes a batch, no decompression,
no record decoding): followers store the leader's batches byte for byte, so two replicas
hold the same batch at an offset when base offset, last offset, partitionLeaderEpoch,
magic and stored CRC agree.  Whole batches are read only where headers differ: to tell
damage (the CRC does not match) from divergence, and compaction (each broker's cleaner
keeps a v2 batch's base and last offset and its epoch and drops records: the records at
the offsets both keep must be the same) from a real difference.

Kafka's side (the leader-epoch cache and where a follower's truncation lands) is
followed exactly, and cited, in :mod:`.epochs`.

The code lives in the modules below, one per responsibility (log dirs,
header walk, leader epochs, comparison); this module gives their public names, where
the other commands (lag, size-report, offsets) and the renderers import them from.

Its modules:

* :mod:`.logdirs` - log dirs (broker id, offset checkpoints) and the replicas in them;
* :mod:`.headers` - a partition's batch headers in offset order, its log end offset;
* :mod:`.epochs` - Kafka's leader-epoch cache and a follower's truncation;
* :mod:`.compare` - the comparison of a partition's replicas, batch header by header.
"""

from __future__ import annotations

from ...findings import ERROR
from .compare import (
    CompareOptions,
    CompareSummary,
    OnlyHereBatch,
    PartitionComparison,
    ReplicaState,
    compare_replicas,
    read_batch,
    read_epoch_checkpoint,
    replica_json,
)
from .epochs import UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET, EpochCache, Truncation, follower_truncation
from .header_run import NO_LIMIT, Run
from .headers import Head, HeaderWalk, log_end_offset
from .logdirs import LogDir, Replica, ReplicaSet, broker_id_of, logdir_of, read_logdir

__all__ = [
    "ERROR",
    "NO_LIMIT",
    "UNDEFINED_EPOCH",
    "UNDEFINED_EPOCH_OFFSET",
    "CompareOptions",
    "CompareSummary",
    "EpochCache",
    "Head",
    "HeaderWalk",
    "LogDir",
    "OnlyHereBatch",
    "PartitionComparison",
    "Replica",
    "ReplicaSet",
    "ReplicaState",
    "Run",
    "Truncation",
    "broker_id_of",
    "compare_replicas",
    "follower_truncation",
    "log_end_offset",
    "logdir_of",
    "read_batch",
    "read_epoch_checkpoint",
    "read_logdir",
    "replica_json",
]
