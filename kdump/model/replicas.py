"""The commands that read several brokers' replicas of a partition: ``kdump
compare-replicas`` (kdump/ops/compare_replicas/), ``kdump lag`` (kdump/ops/lag.py) and
``kdump coordinator-partition``'s answer (which partition of __consumer_offsets and
__transaction_state holds an id).
"""

from __future__ import annotations

from .fields import Kinds, typed

KINDS: Kinds = typed({
    "partition_comparison": ("compare-replicas: one partition's replicas", [
        ("partition", "str", "<topic>-<partition>, the directory name"), ("topic", "str", ""),
        ("cluster_id", "str|null", "the cluster.id of the replicas' log dirs (a log dir naming "
                                   "none: the only one the inputs name); null when none"),
        ("topic_id", "str|null", "the topic id their partition.metadata names; null when none "
                                 "does (brokers before 2.8). Replicas are grouped by cluster, "
                                 "topic, partition and topic id: a partition made again under "
                                 "another id is another comparison"),
        ("status", "str", "agree, lagging (a replica is a prefix of another), diverged, or single "
                          "(found in one log dir only)"),
        ("diverged", "bool", "two replicas hold different batches at some offset"),
        ("divergence_offset", "int|null", "the first such offset; null when none"),
        ("truncation_offset", "int|null",
         "the lowest offset Kafka's truncation (OffsetsForLeaderEpoch) "
         "would cut a follower at, below its log end offset; null when no follower loses "
         "records"),
        ("leader", "str|null", "the replica taken as the leader (path)"),
        ("leader_reason", "str|null", "given with --leader, or how it was presumed"),
        ("compacted_differences", "int", "batches that differ only as the log cleaner leaves them"),
        ("missing_from", "list", "[{log_dir, broker_id}] of the log dirs without this partition"),
        ("replicas", "list",
         "one object per replica: path, log_dir, broker_id, role (leader, "
         "follower, single), log_start_offset, log_end_offset, high_watermark "
         "(replication-offset-checkpoint), segments, batches, records, records_only_here, "
         "batches_only_here, epochs ([[epoch, start_offset]...] as Kafka's epoch cache "
         "holds them), epochs_source, checkpoint_epochs, batch_epochs, latest_epoch, "
         "truncation_offset, truncation_reason, batch_at_divergence ({file, position, "
         "base_offset, last_offset, partition_leader_epoch, crc, magic, count, size} or "
         "null), damage ([{file, position, kind, base_offset, detail}]), bytes_read, joined (why "
         "it is a replica of this partition: its cluster, its topic id or why none)"),
    ]),
    "replicas_summary": ("closes compare-replicas", [
        ("partitions", "int", ""), ("agree", "int", ""), ("lagging", "int", ""), ("diverged", "int", ""),
        ("only_one_replica", "int", ""), ("damaged", "int", "partitions with a damaged replica"),
        ("bytes_read", "int", "bytes read from every log"),
        ("log_dirs", "list", "[{log_dir, broker_id}]"),
    ]),
    "offsets_source": ("lag: the __consumer_offsets or __share_group_state replica replayed", [
        ("partition", "str", ""), ("path", "str", ""), ("log_dir", "str", ""), ("broker_id", "int|null", ""),
        ("log_end_offset", "int|null", ""), ("replicas", "int", "replicas of it found"),
        ("chosen_by", "str", "the highest log end offset, or the only one"),
        ("records", "int", "records applied"), ("aborted_records", "int", "transactional commits aborted"),
        ("pending_records", "int", "transactional commits with no marker yet"),
    ]),
    "lag": ("lag: a group's position on a partition", [
        ("group", "str", ""),
        ("group_type", "str|null", "classic, consumer, streams or share (see the group object); "
         "null when only offset commits name the group"),
        ("topic", "str", "share groups: the topic id when no input names the topic"),
        ("partition", "int", ""),
        ("committed_offset", "int|null", "the last committed offset; share groups: the "
         "share-partition start offset from __share_group_state (records below it are "
         "acknowledged); null: a member is assigned the partition and nothing is "
         "committed (consumer and streams groups) or no share-partition state exists yet "
         "(share groups)"),
        ("assigned_to?", "list", "consumer (KIP-848) and share (KIP-932) groups: the members "
         "whose current assignment holds the partition; streams (KIP-1071) groups: those whose "
         "active tasks read it (task (subtopology, p) reads partition p of the subtopology's "
         "source and repartition source topics, from the group's StreamsGroupTopology); "
         "sorted ([]: none)"),
        ("topic_id?", "str", "share groups"),
        ("state_epoch?", "int", "share groups: the share-partition's state epoch"),
        ("delivery_complete_count?", "int|null", "share groups: records at or above the start "
         "offset already acknowledged (Kafka 4.2+), null when not recorded: lag counts them"),
        ("log_end_offset", "int|null", "of the replica named in log_end_offset_from; null when the "
                                       "partition's log is not among the inputs"),
        ("high_watermark", "int|null",
         "the highest replication-offset-checkpoint entry of the log dirs "
         "read (a broker's last checkpoint, not the live value); null without one"),
        ("lag", "int|null", "log_end_offset - committed_offset; null when either is unknown"),
        ("lag_to_high_watermark", "int|null", "high_watermark - committed_offset; null when unknown"),
        ("high_watermark_source", "str|null", ""),
        ("commit_timestamp", "int|null", "share groups: the last snapshot's write timestamp "
         "(-1: none)"),
        ("metadata", "str|null", ""),
        ("log_end_offset_from", "object|null", "{path, log_dir, broker_id, log_end_offset, replicas, "
                                               "chosen_by} or null"),
        ("committed_offset_from", "str", "the __consumer_offsets (share groups: "
         "__share_group_state) replica (path)"),
    ]),
    "group_lag": ("lag: one group's summary", [
        ("group", "str", ""), ("group_type", "str|null", "as in its lag objects"),
        ("partitions", "int", ""),
        ("partitions_without_log", "int", "partitions whose log is not among the inputs"),
        ("total_lag", "int", "over the partitions with a known lag"), ("max_lag", "int|null", ""),
        ("topics", "list", ""),
    ]),
    "coordinator_partition": ("coordinator-partition answer", [
        ("id", "str", "group or transactional id"), ("hash_code", "int", "Java String.hashCode"),
        ("partitions", "int", ""), ("partition", "int", ""), ("consumer_offsets_dir", "str", ""),
        ("transaction_state_dir", "str", ""),
    ]),
})
