"""``kdump size-report``'s rows (kdump/ops/size_report/): one kind per ``--by`` level and
the total, every one with ``total``'s fields (:data:`SIZE_ROW_TYPES`; ``fields_of`` looks
them up there).
"""

from __future__ import annotations

from .fields import Kinds, typed

KINDS: Kinds = typed({
    "segment": ("size-report --by segment row", []),
    "partition": ("size-report --by partition row", []),
    "topic": ("size-report --by topic row", []),
    "total": ("closes size-report: the same fields, summed", [
        ("topic?", "str", "rows of type topic/partition/segment"),
        ("partition?", "int", "rows of type partition/segment"),
        ("segment?", "str|null", "rows of type segment (null: the partition's files of no segment)"),
        ("bytes", "int", "apparent bytes of every file of the row (st_size, as ls shows them)"),
        ("disk_bytes", "int|null",
         "bytes allocated on disk to those files (st_blocks x 512, as du counts them): less "
         "than bytes for sparse files (a running broker's preallocated .index and .timeindex, "
         "segment.index.bytes each, hold no blocks where no entry was written); null for an "
         "input without block counts (an object store)"),
        ("log_bytes", "int", ""),
        ("index_bytes", "int", ""), ("time_index_bytes", "int", ""), ("txn_index_bytes", "int", ""),
        ("snapshot_bytes", "int", ""), ("other_bytes", "int", "leftovers and other files"),
        ("segments", "int", ""), ("batches", "int", "shallow entries, as FileRecords counts them"),
        ("records", "int", "control records included"),
        ("records_exact", "bool",
         "false when --shallow could not count inside v0/v1 wrappers, or "
         "when a batch could not be read (too large, corrupt): records is then a lower "
         "bound, and the run exits 1"),
        ("invalid_records", "int",
         "records of batches whose CRC fails (their count field; v0/v1: entries), not in "
         "records: their bytes are not what the producer wrote (0 under --shallow, which "
         "checks no CRC)"),
        ("control_batches", "int", ""), ("control_records", "int", ""), ("transactional_batches", "int", ""),
        ("transactional_bytes", "int", ""),
        ("key_bytes", "int|null", "null with --shallow (not measured), as are value_bytes, header_bytes, "
                                  "payload_bytes and overhead_bytes"), ("value_bytes", "int|null", ""),
        ("header_bytes", "int|null", "header keys and values"),
        ("payload_bytes", "int|null", "key+value+header bytes"),
        ("overhead_bytes", "int|null", "uncompressed bytes minus payload: batch and record headers"),
        ("uncompressed_bytes", "int|null", ""), ("compression_ratio", "float|null", "uncompressed / stored"),
        ("unreadable_bytes", "int", ""), ("first_offset", "int|null", ""), ("last_offset", "int|null", ""),
        ("min_timestamp", "int|null", ""),
        ("max_timestamp", "int|null", ""),
        ("producers", "int", "distinct producer ids"),
        ("records_claimed", "int", "records the batch headers claim (records counts; a v0/v1 "
                                   "entry's messages read), whatever their CRC"),
        ("records_readable", "int", "records in batches whose CRC is valid"),
        ("offsets_lost", "int", "offsets the partition's witnesses prove written (high "
                                "watermark, recovery point, index entries, segment names...) "
                                "that no batch holds: the data-lost findings' offsets"),
        ("lost_ranges?", "list", "partition rows: those offsets, as [first, last] ranges"),
        ("codecs", "object", "per codec: {batches, stored_bytes, uncompressed_bytes, ratio}"),
        ("log_dir?", "str", "segment and partition rows: the broker log dir holding the replica "
                            "(several log dirs are several replicas, kept apart)"),
        ("broker_id?", "int|null", "segment and partition rows: broker.id / node.id of the log dir's "
                                   "meta.properties; null without one"),
        ("counts?", "str", "total row: replicas (sums every replica, --by segment/partition) or "
                           "partitions (each partition once, --by topic)"),
        ("partitions?", "int", "topic and total rows: distinct partitions"),
        ("replicas?", "int", "topic and total rows: replicas (partition directories) read"),
        ("replication_factor?", "int",
         "topic rows: the most replicas any of its partitions has; "
         "the topic's figures count each partition once (its replica with the highest last "
         "offset)"),
        ("log_dirs?", "int", "total row: log dirs read"),
        ("replica_bytes?", "int", "topic and total rows: bytes over every replica"),
        ("replica_disk_bytes?", "int|null", "topic and total rows: disk_bytes over every "
                                            "replica (null: no block counts)"),
    ]),
})


#: size-report's row kinds: each has ``total``'s fields
SIZE_ROW_TYPES = ("segment", "partition", "topic", "total")
