"""``kdump repair``: a copy of damaged partitions or log dirs that a broker will load,
keeping every intact batch byte for byte, also past the damage.

* :mod:`.plan` - which inputs, where each copy goes, DIR checked before anything is read;
* :mod:`.partition` - one partition directory, phase by phase (``PartitionRepair``): its
  logs, its other files (leader epochs, producer snapshots, partition.metadata, KRaft
  snapshots) and its ``repair_partition`` object; :mod:`.index_interval` the
  index.interval.bytes the input's indexes tell, :mod:`.notes` the copy weighed against
  the input's leader epochs and KRaft snapshots;
* :mod:`.copier` - a partition's logs copied batch by batch, deciding what is kept;
  :mod:`.regions` what is left out, named, and what it means for the offsets after it;
  :mod:`.segment_writer` the kept batches in segments named and indexed as Kafka loads
  them; :mod:`.gaps` a dropped range filled through the same writer;
  :mod:`.partition_log` the state they share;
* :mod:`.logdir` - what a log dir's checkpoints say, and the copy's root files;
* :mod:`.reserve` - offsets never handed out twice: the highest offset the witnesses
  prove written (the partition's verdict, :mod:`kdump.ops.verdict`), the empty active
  segment past it, the checkpoints and epochs with it;
* :mod:`.losses` - what the copy lacks that was written (``lost_offsets``, ``data_lost``):
  the verdict of the copy's batches, the dropped regions' gaps, the reserved range;
* :mod:`.topic_ids` - a gone partition directory's topic id (the KRaft metadata, another
  partition.metadata), without which a KRaft broker takes it for a stray;
* :mod:`.fill` - dropped ranges filled from another broker's replica (``--replica``)
  where the replicas agree around them;
* :mod:`.absent` - replicas the KRaft metadata assigns here with no directory (the log
  dir's verdict): named, no directory made unless offsets were proved written on them;
* :mod:`.kafka_model` - what Kafka's own recovery would have truncated instead;
* :mod:`.staging` - the staging directory, moved into DIR when whole, the manifest last;
* :mod:`.run` - the run: the manifest's objects, the inputs hashed before and after.
"""

from .plan import RepairPlan, plan_repair
from .run import Repair, RepairOptions, what_repair_would_do, with_repair_plans

__all__ = ["Repair", "RepairOptions", "RepairPlan", "plan_repair", "what_repair_would_do",
           "with_repair_plans"]
