"""``kdump dump``'s objects (kdump/ops/dump/): the files it dumps, their batches and
records, index, snapshot and checkpoint entries, the end of each log; and ``dump
--summary``'s digest of __consumer_offsets and __share_group_state
(kdump/ops/offsets_summary.py): committed offsets, groups, share-partition states.

:data:`BATCH_FIELDS` are the ``batch`` kind's fields (compare-replicas' ``--print-data-log``
writes the same objects).
"""

from __future__ import annotations

from .fields import Declared, Kinds, typed

BATCH_FIELDS: list[Declared] = [
    ("file", "str", "path of the log file"),
    ("position", "int", "absolute byte position of the batch in the file"),
    ("base_offset", "int", "first offset of the batch (v0/v1 wrapper: first inner offset)"),
    ("last_offset", "int", "last offset of the batch"),
    ("count", "int|null", "records count from the v2 header; null for v0/v1"),
    ("size", "int", "bytes of the batch on disk, header included"),
    ("magic", "int", "0, 1 or 2"),
    ("compression", "str", "none, gzip, snappy, lz4 or zstd"),
    ("timestamp_type", "str", "CreateTime, LogAppendTime or NoTimestampType"),
    ("max_timestamp", "int", "v2 maxTimestamp; v0/v1: the message timestamp (-1 for v0)"),
    ("crc", "int", "stored checksum (v2 CRC-32C, v0/v1 CRC-32), unsigned"),
    ("crc_valid", "bool", "true when the stored checksum matches the bytes"),
    ("first_timestamp?", "int", "v2 baseTimestamp (the delete horizon when that flag is set)"),
    ("partition_leader_epoch?", "int", "v2 only"),
    ("producer_id?", "int", "v2 only; -1 when none"),
    ("producer_epoch?", "int", "v2 only"),
    ("base_sequence?", "int", "v2 only"),
    ("last_sequence?", "int", "v2 only (wraps at 2^31-1)"),
    ("is_transactional?", "bool", "v2 only"),
    ("is_control?", "bool", "v2 only"),
    ("delete_horizon_ms?", "int|null", "v2 only; null unless the delete-horizon flag is set"),
    ("attributes", "int", "the raw attributes field"),
    ("replica?", "str", "compare-replicas --print-data-log: the replica (partition directory)"),
    ("log_dir?", "str", "compare-replicas --print-data-log"),
    ("broker_id?", "int|null", "compare-replicas --print-data-log"),
]

KINDS: Kinds = typed({
    "file": ("a file about to be dumped (dump)", [
        ("file", "str", "path"),
        ("kind", "str", "what the file is: log, offset-index, time-index, txn-index, "
                        "producer-snapshot, kraft-snapshot, bootstrap-snapshot, "
                        "leader-epoch-checkpoint, ...-checkpoint, partition-metadata, "
                        "meta-properties, quorum-state, clean-shutdown, lock, unknown"),
        ("description", "str", "the kind in words"), ("size", "int|null", "bytes"),
        ("base_offset", "int|null", "from the file name (segment base offset, snapshot offset)"),
        ("epoch", "int|null", "KRaft snapshot epoch"),
        ("topic", "str|null", "from the partition directory name"),
        ("partition", "int|null", "from the partition directory name"),
        ("active", "bool", "the partition's active segment (largest base offset)"),
        ("leftover", "str|null", "deleted, cleaned, swap, part or tmp for Kafka's leftover suffixes"),
        ("partition_state", "str|null", "delete, future or stray for such partition directories"),
    ]),
    "batch": ("a record batch (v2) or a top-level message (v0/v1) (dump)", BATCH_FIELDS),
    "record": ("a record, with --deep-iteration or --print-data-log (dump)", [
        ("file", "str", "path of the log file"),
        ("topic", "str|null", "from the partition directory's name; null when the file is in none"),
        ("partition", "int|null", "from the partition directory's name; null when unknown"),
        ("batch_position", "int", "position of its batch"),
        ("producer_id", "int", "its batch's (-1: none; v0/v1 always -1)"),
        ("producer_epoch", "int", "its batch's (-1: none)"),
        ("is_transactional", "bool", "its batch is transactional"),
        ("is_control", "bool", "a control record (transaction marker, KRaft control): its "
                               "decoded form is under control, not key/value"),
        ("offset", "int", "absolute offset"), ("timestamp", "int", "epoch milliseconds (-1: none)"),
        ("timestamp_type", "str", "as its batch"), ("key_size", "int", "-1 for a null key"),
        ("value_size", "int", "-1 for a null value (tombstone)"),
        ("key", "str|null", "the raw key, a string per key_encoding, or null"),
        ("key_encoding", "str|null", "utf8, base64 or hex; null for a null key"),
        ("value", "str|null", "the raw value, a string per value_encoding, or null"),
        ("value_encoding", "str|null", "utf8, base64 or hex; null for a null value; redacted "
                                       "(value \"[redacted]\") for a __cluster_metadata record "
                                       "holding secrets, unless --show-secrets"),
        ("headers", "list", "list of {key, key_encoding, value, value_encoding}; keys are text "
                            "(utf8) under every --payload-encoding"),
        ("sequence?", "int", "v2: producer sequence of the record (-1: none)"),
        ("magic?", "int", "v0/v1 records only"), ("crc?", "int", "v0/v1: the message CRC-32"),
        ("crc_valid", "bool", "v2: its batch's CRC-32C matches (false: the record's "
                              "bytes are not what the producer wrote); v0/v1: the "
                              "message CRC-32 matches"),
        ("size", "int", "bytes of the record as stored"),
        ("control?", "object", "control records: {type, type_id, key_version, coordinator_epoch?, "
                               "value_version?, data?, error?}"),
        ("decoded?", "object",
         "what a decoder (internal topics by directory name, --key-decoder, "
         "--value-decoder) made of the payload: {key?, value?, layout?, key_note?}, objects; "
         "internal topics as Kafka's JSON converters render them ({type, data} / "
         "{version, data}, metadata {type, version, data}), read with the record "
         "layouts of Kafka 3.9-4.4; a value kdump cannot read exactly holds raw "
         "(base64) besides; layout (text) says which Kafka release's layout read "
         "the value when the type has several at that version and why "
         "(--kafka-version, metadata.version, or the only one that fits); for "
         "schema-registry payloads each is {format (avro, protobuf, json-schema), "
         "schema_id, guid (when a header named the schema by GUID), subject, "
         "version, deleted (null, soft or hard), message (Protobuf: the message's "
         "full name), data (the value as JSON)}; with --decoder auto, a data topic's key "
         "of exactly 8 or 4 bytes that is not text is the big-endian int64 / int32 "
         "Kafka's Long/IntegerSerializer wrote, and key_note says so"),
        ("decode_error?", "str",
         "what the decoder could not decode: an unknown record type or "
         "version is named (type, version, releases kdump knows) and its raw "
         "bytes kept; a value fitting several layouts, or none; a "
         "schema-registry payload that does not decode (the id and why)"),
        ("replica?", "str", "compare-replicas --print-data-log: the replica holding the record"),
        ("log_dir?", "str", "compare-replicas --print-data-log"),
        ("broker_id?", "int|null", "compare-replicas --print-data-log"),
    ]),
    "log_end": ("the end of a log's dump (dump)", [
        ("file", "str", "path"),
        ("size", "int", "file size at open"),
        ("end", "int", "where reading stopped"),
        ("valid_bytes", "int", "end of the last intact batch"),
        ("trailing_bytes", "int", "end - valid_bytes"),
        ("unreadable_bytes", "int", "bytes in damaged regions"),
        ("batches", "int", "batches read"), ("records", "int", "records read"),
        ("limited", "bool", "--max-bytes cut the file short"),
    ]),
    "index_entry": ("an offset index entry (dump)", [
        ("file", "str", "path"), ("slot", "int", "entry number"), ("offset", "int", "absolute offset"),
        ("position", "int", "byte position in the log"),
    ]),
    "time_index_entry": ("a time index entry (dump)", [
        ("file", "str", "path"), ("slot", "int", "entry number"), ("timestamp", "int", "epoch milliseconds"),
        ("offset", "int", "absolute offset"),
    ]),
    "index_status": ("an index that is empty, or the result of --index-sanity-check (dump)", [
        ("file", "str", "path"), ("status", "str", "empty, sanity-passed or sanity-failed"),
        ("message", "str", "DumpLogSegments' message"),
    ]),
    "txn_index_entry": ("an aborted transaction (dump)", [
        ("file", "str", "path"), ("slot", "int", "entry number"), ("version", "int", "entry version"),
        ("producer_id", "int", ""),
        ("first_offset", "int", ""),
        ("last_offset", "int", "offset of the ABORT marker"),
        ("last_stable_offset", "int", ""),
    ]),
    "producer_snapshot_entry": ("a producer in a .snapshot file (dump)", [
        ("file", "str", "path"), ("producer_id", "int", ""), ("producer_epoch", "int", ""),
        ("coordinator_epoch", "int", ""),
        ("current_txn_first_offset", "int|null", "null when no open transaction"),
        ("last_timestamp", "int", ""), ("first_sequence", "int|null", "null without batch metadata"),
        ("last_sequence", "int", ""), ("last_offset", "int", "-1 without batch metadata"),
        ("offset_delta", "int", ""), ("timestamp", "int", ""),
    ]),
    "checkpoint_entry": ("a line of a checkpoint file (dump)", [
        ("file", "str", "path"),
        ("kind", "str", "the checkpoint's kind"),
        ("line", "int", "1-based line number"),
        ("topic?", "str", "offset checkpoints"), ("partition?", "int", "offset checkpoints"),
        ("recovery_point?", "int", ""), ("high_watermark?", "int", ""), ("log_start_offset?", "int", ""),
        ("cleaner_checkpoint?", "int", ""), ("epoch?", "int", "leader-epoch-checkpoint"),
        ("start_offset?", "int", "leader-epoch-checkpoint"),
    ]),
    "properties": ("meta.properties, partition.metadata, quorum-state, .kafka_cleanshutdown "
                   "(dump)", [
        ("file", "str", "path"),
        ("kind", "str", "the file's kind"),
        ("values", "object|null", "its content as an object"),
    ]),
    "note": ("something said about a file (dump)",
             [("file", "str", "path"), ("text", "str", "")]),
    "committed_offset": ("dump --summary: a group's committed offset", [
        ("group", "str", ""),
        ("topic", "str", ""),
        ("partition", "int", ""),
        ("offset", "int", ""),
        ("metadata", "str|null", ""),
        ("commit_timestamp", "int", ""), ("leader_epoch", "int|null", "null before value version 3"),
        ("expire_timestamp", "int|null", "value version 1 only"),
        ("log_offset", "int", "offset of the commit in __consumer_offsets"),
    ]),
    "group": ("dump --summary: a group's latest metadata", [
        ("group", "str", ""),
        ("group_type", "str", "classic (GroupMetadata records), consumer (KIP-848), streams "
         "(KIP-1071) or share (KIP-932), from the record types that hold the group"),
        ("protocol_type", "str|null", "classic: the group's protocol type; the others: their type"),
        ("generation", "int|null", "classic only; null for the others (see epoch)"),
        ("protocol", "str|null", ""),
        ("leader", "str|null", ""),
        ("members", "int", "member count"),
        ("current_state_timestamp", "int|null", ""),
        ("log_offset", "int", "of the group's last record in __consumer_offsets"),
        ("epoch?", "int|null", "consumer, streams, share: the group epoch; null before its record"),
        ("assignment_epoch?", "int|null", "the target assignment epoch"),
        ("group_members?", "list", "[{member_id, member_epoch, instance_id, client_id, "
         "client_host, rack_id, ..., assignment}]: consumer members add "
         "subscribed_topic_names, subscribed_topic_regex, server_assignor; share members "
         "subscribed_topic_names; streams members process_id, topology_epoch. assignment: "
         "the member's current assignment, [{topic_id, topic, partitions}] (topic: null "
         "when neither a record nor a partition.metadata among the inputs names it), "
         "streams [{subtopology_id, partitions}] of active tasks; "
         "null before a current-assignment record"),
        ("subscribed_topic_names?", "list", "consumer, share: every member's topics, sorted"),
        ("subscribed_topic_regexes?", "list", "consumer: the members' regular expressions"),
        ("resolved_regular_expressions?", "list", "consumer: [{regular_expression, topics, "
         "version, timestamp}] from ConsumerGroupRegularExpression records"),
        ("topology?", "object|null", "streams: {epoch, subtopologies: [{subtopology_id, "
         "source_topics, source_topic_regex, repartition_sink_topics, "
         "repartition_source_topics, state_changelog_topics}]} or null before a "
         "StreamsGroupTopology record"),
        ("share_partitions?", "object|null", "share: {initialized, initializing, deleting: "
         "[{topic_id, topic, partitions}]} from ShareGroupStatePartitionMetadata, or null"),
    ]),
    "share_partition": ("dump --summary: a share group's state on a partition, from "
                        "__share_group_state", [
        ("group", "str", ""),
        ("topic", "str|null", "the name, when a share-group record or a partition.metadata "
         "file among the inputs gives it; null otherwise"),
        ("topic_id", "str", ""),
        ("partition", "int", ""),
        ("start_offset", "int", "the share-partition start offset: records below it are done"),
        ("state_epoch", "int", "of the last ShareSnapshot; -1 when only ShareUpdates were read"),
        ("leader_epoch", "int", ""), ("snapshot_epoch", "int", ""),
        ("delivery_complete_count", "int|null", "records at or above the start offset already "
         "acknowledged (Kafka 4.2+); null when not recorded"),
        ("state_batches", "list", "the in-flight state: [{first_offset, last_offset, "
         "delivery_state, delivery_count}], the last snapshot's batches with each later "
         "ShareUpdate's combined as the share coordinator combines them "
         "(PersisterStateBatchCombiner: pruned at the start offset, overlaps resolved for "
         "the higher delivery count, then state; contiguous equal batches joined); "
         "delivery_state 0 AVAILABLE, 2 ACKNOWLEDGED, 4 ARCHIVED"),
        ("updates_since_snapshot", "int", "ShareUpdate records applied after the last snapshot"),
        ("write_timestamp", "int", "of the last snapshot"),
        ("log_offset", "int", "of the last record applied, in __share_group_state"),
    ]),
    "offsets_summary": ("closes dump --summary", [
        ("records", "int", ""),
        ("partitions", "int", "__consumer_offsets and __share_group_state partitions replayed"),
        ("committed_offsets", "int", ""),
        ("groups", "int", ""),
        ("share_partitions", "int", "share-partition states (__share_group_state)"),
        ("aborted_records", "int", "transactional commits that were aborted"),
        ("pending_records", "int", "transactional commits with no marker yet"),
        ("ignored_records", "int", "records the digest does not use"),
        ("skipped_replicas", "list",
         "partition directories not replayed: several brokers' log dirs "
         "hold several replicas, and each partition is replayed once, from the replica with "
         "the highest log end offset"),
    ]),
})
