"""``kdump retention``'s objects (kdump/ops/retention/): what the broker deletes or
compacts next, segment by segment, with the rules and configs used.
"""

from __future__ import annotations

from .fields import Kinds, typed

KINDS: Kinds = typed({
    "retention_run": ("opens kdump retention: the time and rules used, where configs came "
                      "from", [
        ("now", "int", "the time the verdicts are for, epoch ms"),
        ("now_source", "str", "--now, or the clock"),
        ("kafka_version", "str", "the release whose rules apply (3.9 stands for every 3.x)"),
        ("kafka_version_source", "str", "why: --kafka-version, the metadata.version of the KRaft "
                                        "log or of a bootstrap.checkpoint among the inputs, "
                                        "meta.properties version=0 without directory.id (a "
                                        "ZooKeeper-mode broker's log dir: the last 3.x rules, "
                                        "3.9), or assumed (the newest)"),
        ("metadata", "str|null", "the __cluster_metadata replica whose ConfigRecords were read "
                                 "(its last offset); null: none among the inputs"),
        ("server_properties", "list", "the --server-properties files, [{file, broker_id}]"),
        ("overrides", "list", "the --config values, as given"),
        ("log_dirs", "list", "[{log_dir, broker_id}] read"),
        ("notes", "list", "what was assumed, in words"),
    ]),
    "retention_config": ("retention: a topic config a broker applies to a topic, with its "
                         "source", [
        ("broker_id", "int|null", "the broker (meta.properties); null: unknown"),
        ("topic", "str", ""),
        ("name", "str", "the topic config (cleanup.policy, retention.ms ...) or a broker config "
                        "(log.cleaner.enable, remote.log.storage.system.enable, "
                        "log.retention.check.interval.ms)"),
        ("value", "str", "as kafka-configs prints it"),
        ("source", "str", "--config, topic config (ConfigRecord at offset N), broker N config, "
                          "cluster default config, server.properties KEY (line N), assumed "
                          "(Kafka's own topics), or default"),
    ]),
    "retention_segment": ("retention: one segment's verdict, as UnifiedLog.deleteOldSegments "
                          "would give it", [
        ("log_dir", "str", "the broker log dir holding the replica"),
        ("broker_id", "int|null", ""), ("topic", "str", ""), ("partition", "int", ""),
        ("file", "str", "the .log path"),
        ("base_offset", "int", ""),
        ("next_offset", "int", "its upper bound: the next segment's base offset, or the log "
                               "end offset"),
        ("size", "int", "bytes of the .log (LogSegment.size, what retention.bytes counts)"),
        ("bytes", "int", "apparent bytes of the segment's files (.log and its indexes; st_size, "
                         "as ls shows them: a running broker's active segment's .index and "
                         ".timeindex are preallocated to segment.index.bytes)"),
        ("disk_bytes", "int|null", "bytes allocated on disk to them (st_blocks x 512, as du "
                                   "counts them: what deleting them gives the disk back; a "
                                   "preallocated index is sparse); null: no block counts (an "
                                   "object store)"),
        ("active", "bool", "the last segment"),
        ("largest_timestamp", "int", "LogSegment.largestTimestamp, epoch ms"),
        ("timestamp_source", "str", "time-index (its last entry), batches (read), or mtime "
                                    "(no batch carries a timestamp)"),
        ("timestamp_note", "str|null", "why the time index was not used, or what it hides"),
        ("deletable", "bool", "deleted at the next retention check"),
        ("rule", "str|null", "the rule that deletes it: log-start-offset, retention.bytes, "
                             "retention.ms (local.retention.* with remote storage)"),
        ("reason", "str", "the rule when deletable; else why it stays: high-watermark, "
                          "empty-active-segment, not-copied-to-remote, future-timestamp, "
                          "within-retention, pinned, no-time-retention, compact-policy, "
                          "empty-policy, cleaner-disabled, kraft-metadata"),
        ("deletable_at", "int|null", "epoch ms from which time retention deletes it: the walk's "
                                     "latest largest timestamp + retention.ms + 1 (in the past for "
                                     "a segment deletable now; the check runs every "
                                     "log.retention.check.interval.ms); null when no time decides "
                                     "it: deletable now by size or log start offset, or kept until "
                                     "something changes (until says what)"),
        ("until", "str|null", "a kept segment with no deletable_at: what must change before it "
                              "can go (not before the high watermark reaches N, not before the "
                              "log start offset reaches N under cleanup.policy=compact ...); "
                              "text, table and the report show this same phrase; null when "
                              "deletable now or dated"),
        ("detail", "str", "the verdict in words"),
        ("pinned_by", "object|null", "future-timestamp and pinned segments: {segment, reason, "
                                     "largest_timestamp, batch: {file, position, offset, "
                                     "last_offset, timestamp, timestamp_type, producer_id} or "
                                     "null} of the segment whose timestamp holds it"),
    ]),
    "retention_compaction": ("retention: the log cleaner's view of a compacted partition "
                             "(LogCleanerManager)", [
        ("log_dir", "str", ""), ("broker_id", "int|null", ""), ("topic", "str", ""),
        ("partition", "int", ""),
        ("cleaner_checkpoint", "int|null", "cleaner-offset-checkpoint's entry; null: none"),
        ("first_dirty_offset", "int", ""),
        ("first_uncleanable_offset", "int", "a segment's base offset"),
        ("uncleanable_because", "str", "the active segment, the last stable offset, or "
                                       "min.compaction.lag.ms"),
        ("clean_bytes", "int", "segments below the first dirty offset"),
        ("dirty_bytes", "int", "cleanable bytes: segments from the first dirty offset to the "
                               "first uncleanable one"),
        ("dirty_ratio", "float|null", "dirty / (clean + dirty); null: no bytes"),
        ("min_cleanable_dirty_ratio", "float", ""),
        ("min_compaction_lag_ms", "int", ""), ("max_compaction_lag_ms", "int", ""),
        ("compaction_due", "bool", "max.compaction.lag.ms passed for its oldest dirty batch"),
        ("earliest_dirty_timestamp", "int|null", "the earliest first-batch timestamp of the "
                                                 "dirty non-active segments"),
        ("cleanable", "bool", "the cleaner would clean it now (ratio above the minimum, or due)"),
        ("last_stable_offset", "int", ""),
        ("open_transactions", "list", "[{producer_id, first_offset, source}]"),
        ("delete_retention_ms", "int", ""),
        ("tombstones", "object", "{count, past_horizon, waiting, no_horizon, next_horizon}: "
                                 "records with a null value by delete horizon"),
        ("markers", "object", "transaction markers, as tombstones"),
        ("evidence", "list", "what the files say of the cleaner having run, or being stuck"),
        ("notes", "list", ""),
    ]),
    "retention_partition": ("retention: a partition replica's summary", [
        ("log_dir", "str", ""), ("broker_id", "int|null", ""), ("topic", "str", ""),
        ("partition", "int", ""),
        ("cleanup_policy", "str", ""), ("retention_ms", "int", "the one applied (local "
                                                               "with remote storage)"),
        ("retention_bytes", "int", "the one applied"),
        ("remote_storage", "bool", "remote storage on for the topic (and copying)"),
        ("highest_remote_offset", "int|null", "from __remote_log_metadata; null: not known"),
        ("log_start_offset", "int", ""), ("log_end_offset", "int", ""),
        ("high_watermark", "int", "the one the walk used"),
        ("high_watermark_source", "str", "replication-offset-checkpoint, or what was assumed"),
        ("segments", "int", ""), ("bytes", "int", "apparent bytes of its segments' files"),
        ("disk_bytes", "int|null", "allocated bytes of its segments' files (st_blocks x 512, "
                                   "as du counts them); null: no block counts (an object "
                                   "store)"),
        ("deletable_disk_bytes", "int|null", "what the disk gets back now: allocated bytes of "
                                             "the segments deletable now (the new active "
                                             "segment a deletion of the active one rolls "
                                             "takes no block: rolled_bytes)"),
        ("deletable_bytes", "int", "apparent bytes of the segments deletable now"),
        ("deletable_24h_disk_bytes", "int|null", "allocated bytes deletable within 24 hours "
                                                 "(now included)"),
        ("deletable_24h_bytes", "int", "apparent, as deletable_bytes"),
        ("deletable_7d_disk_bytes", "int|null", "allocated bytes deletable within 7 days (now "
                                                "included)"),
        ("deletable_7d_bytes", "int", "apparent, as deletable_bytes"),
        ("held_disk", "object|null", "allocated bytes kept, by reason"),
        ("held", "object", "apparent bytes kept, by reason"),
        ("rolled_bytes", "int", "apparent bytes of the new active segment's .index and "
                                ".timeindex when deleting the active segment (now or within 7 "
                                "days) rolls one (UnifiedLog.deleteSegments; segment.index.bytes "
                                "each, rounded down to whole entries: AbstractIndex's "
                                "RandomAccessFile.setLength, sparse: no disk bytes until "
                                "entries are written); 0 otherwise"),
        ("next_deletion", "int|null", "the earliest deletable_at after now"),
        ("pending_delete_bytes", "int", ".deleted files still on disk (LocalLog deletes them "
                                        "file.delete.delay.ms after renaming)"),
        ("leftover_bytes", "object", "every leftover file of the partition directory by kind "
                                     "(deleted, cleaned, swap, tmp: indexes and snapshots "
                                     "included; pending_delete_bytes counts the .log ones of "
                                     "deleted)"),
    ]),
    "retention_total": ("retention: totals per topic in a log dir, and per log dir (replicas "
                        "are never added across log dirs)", [
        ("scope", "str", "topic or log_dir"),
        ("log_dir", "str", ""), ("broker_id", "int|null", ""),
        ("topic", "str|null", "null for a log dir's total"),
        ("partitions", "int", ""), ("segments", "int", ""), ("bytes", "int", "apparent"),
        ("disk_bytes", "int|null", "allocated bytes of its segments' files (st_blocks x 512, "
                                   "as du counts them); null: no block counts (an object "
                                   "store)"),
        ("deletable_disk_bytes", "int|null", "what the disk gets back now: allocated bytes of "
                                             "the segments deletable now (the new active "
                                             "segment a deletion of the active one rolls "
                                             "takes no block: rolled_bytes)"),
        ("deletable_bytes", "int", "apparent bytes of the segments deletable now"),
        ("deletable_24h_disk_bytes", "int|null", "allocated bytes deletable within 24 hours "
                                                 "(now included)"),
        ("deletable_24h_bytes", "int", "apparent, as deletable_bytes"),
        ("deletable_7d_disk_bytes", "int|null", "allocated bytes deletable within 7 days (now "
                                                "included)"),
        ("deletable_7d_bytes", "int", "apparent, as deletable_bytes"),
        ("held_disk", "object|null", "allocated bytes kept, by reason"),
        ("held", "object", "apparent bytes kept, by reason"),
        ("rolled_bytes", "int", "apparent bytes of the new active segment's .index and "
                                ".timeindex when deleting the active segment (now or within 7 "
                                "days) rolls one (UnifiedLog.deleteSegments; segment.index.bytes "
                                "each, rounded down to whole entries: AbstractIndex's "
                                "RandomAccessFile.setLength, sparse: no disk bytes until "
                                "entries are written); 0 otherwise"),
        ("pending_delete_bytes", "int", ""),
    ]),
    "retention_held_dir": ("retention: a partition directory renamed aside (-delete, -future, "
                           "-stray): bytes no retention rule frees", [
        ("log_dir", "str", ""), ("broker_id", "int|null", ""), ("topic", "str", ""),
        ("partition", "int", ""),
        ("directory", "str", "the directory, <topic>-<partition>.<uuid>-<state>"),
        ("state", "str", "delete, future or stray"),
        ("held_by", "str", "awaiting-deletion (-delete: LogManager.deleteLogs removes it "
                           "file.delete.delay.ms after the rename or the broker's next start), "
                           "future-replica (-future: an AlterReplicaLogDirs move in progress, "
                           "the bytes exist twice until it completes), stray-replica (-stray: "
                           "kept by the broker, 3.7 to 4.3 never delete it)"),
        ("files", "int", "files in it"), ("bytes", "int", "apparent bytes of its files"),
        ("disk_bytes", "int|null", "allocated bytes of its files (as du counts them); null: no "
                                   "block counts"),
        ("segments", "int", ".log segments in it"),
        ("last_modified", "int|null", "the newest mtime of its files, epoch ms; null in an "
                                      "object store (its times are the upload's) or when "
                                      "empty"),
        ("file_delete_delay_ms", "int|null", "-delete: the broker's default file.delete.delay.ms "
                                             "(LogManager uses currentDefaultConfig); null "
                                             "otherwise"),
        ("earliest_deletion", "int|null", "-delete: last_modified + file.delete.delay.ms, the "
                                          "earliest the broker deletes it (renamed after its "
                                          "last write); past it, a running broker failed to "
                                          "delete it or has not run since; null otherwise"),
        ("current_replica", "str|null", "-future: the replica being moved, in another log dir "
                                        "of the same broker among the inputs"),
        ("detail", "str", "what the broker does with it, in words"),
    ]),
    "retention_disk": ("retention: a log dir's bytes on disk, every file in one place "
                       "(segment_bytes + leftover_bytes + held_dir_bytes + other_bytes = "
                       "bytes, apparent; segment_disk_bytes + leftover_disk_bytes + "
                       "held_dir_disk_bytes + other_disk_bytes = disk_bytes, allocated); only "
                       "for a log dir among or under the inputs", [
        ("log_dir", "str", ""), ("broker_id", "int|null", ""),
        ("disk_bytes", "int|null", "bytes allocated on disk under the log dir, files and "
                                   "directories (st_blocks x 512: what du -s -B1 says, "
                                   "symlinks not followed); null: no block counts (an object "
                                   "store, said in notes)"),
        ("bytes", "int", "apparent bytes of every file under the log dir (st_size, as ls "
                         "shows them)"),
        ("files", "int", "files under the log dir"),
        ("segment_bytes", "int", "the judged segments' .log and index files, apparent (the log "
                                 "dir total's bytes)"),
        ("segment_disk_bytes", "int|null", "the same, allocated (the log dir total's "
                                           "disk_bytes)"),
        ("leftover_bytes", "object", "files of partition directories awaiting removal or a "
                                     "rename, by kind: deleted, cleaned, swap, tmp, part"),
        ("leftover_disk_bytes", "object|null", "the same, allocated"),
        ("held_dir_bytes", "object", "renamed-aside partition directories, by held_by: "
                                     "awaiting-deletion, future-replica, stray-replica"),
        ("held_dir_disk_bytes", "object|null", "the same, allocated"),
        ("other_bytes", "int", "the remainder, which no retention rule frees"),
        ("other", "object", "the remainder by kind: log-dir-files (checkpoints, "
                            "meta.properties), producer-snapshots, partition-checkpoints "
                            "(leader-epoch-checkpoint, partition.metadata), kraft-snapshots, "
                            "indexes-without-segment, remote-storage-copies, other"),
        ("other_disk_bytes", "int|null", "the remainder, allocated (the directories' own "
                                         "blocks included)"),
        ("other_disk", "object|null", "the same by kind, with directories: their own blocks"),
        ("notes", "list", "what becomes of each kind of leftover present (the broker's next "
                          "start, the next write ...), and what each kind of the remainder "
                          "is"),
    ]),
})
