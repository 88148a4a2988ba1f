"""The output model: every object type kdump writes, with its fields, in order.

One definition per object type: the JSON Lines writer (kdump/render/jsonl.py) takes each
object's field names and their order from here (:func:`shape`), and the README's and the
man pages' schema sections are generated from it (:func:`markdown`); the native record
writer (kdump/_speedups.c) is tested byte for byte against the Python writer.  Fields
marked ``?`` appear only in some objects of that type (said in the text).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import itemgetter
from typing import Any

Field = tuple[str, str]

BATCH_FIELDS: list[Field] = [
    ("file", "path of the log file"),
    ("position", "absolute byte position of the batch in the file"),
    ("base_offset", "first offset of the batch (v0/v1 wrapper: first inner offset)"),
    ("last_offset", "last offset of the batch"),
    ("count", "records count from the v2 header; null for v0/v1"),
    ("size", "bytes of the batch on disk, header included"),
    ("magic", "0, 1 or 2"),
    ("compression", "none, gzip, snappy, lz4 or zstd"),
    ("timestamp_type", "CreateTime, LogAppendTime or NoTimestampType"),
    ("max_timestamp", "v2 maxTimestamp; v0/v1: the message timestamp (-1 for v0)"),
    ("crc", "stored checksum (v2 CRC-32C, v0/v1 CRC-32), unsigned"),
    ("crc_valid", "true when the stored checksum matches the bytes"),
    ("first_timestamp?", "v2 baseTimestamp (the delete horizon when that flag is set)"),
    ("partition_leader_epoch?", "v2 only"),
    ("producer_id?", "v2 only; -1 when none"),
    ("producer_epoch?", "v2 only"),
    ("base_sequence?", "v2 only"),
    ("last_sequence?", "v2 only (wraps at 2^31-1)"),
    ("is_transactional?", "v2 only"),
    ("is_control?", "v2 only"),
    ("delete_horizon_ms?", "v2 only; null unless the delete-horizon flag is set"),
    ("attributes", "the raw attributes field"),
    ("replica?", "compare-replicas --print-data-log: the replica (partition directory)"),
    ("log_dir?", "compare-replicas --print-data-log"),
    ("broker_id?", "compare-replicas --print-data-log"),
]

SCHEMA: dict[str, tuple[str, list[Field]]] = {
    "file": ("a file about to be dumped (dump)", [
        ("file", "path"), ("kind", "what the file is: log, offset-index, time-index, txn-index, "
                                   "producer-snapshot, kraft-snapshot, bootstrap-snapshot, "
                                   "leader-epoch-checkpoint, ...-checkpoint, partition-metadata, "
                                   "meta-properties, quorum-state, clean-shutdown, lock, unknown"),
        ("description", "the kind in words"), ("size", "bytes"),
        ("base_offset", "from the file name (segment base offset, snapshot offset)"),
        ("epoch", "KRaft snapshot epoch"), ("topic", "from the partition directory name"),
        ("partition", "from the partition directory name"),
        ("active", "the partition's active segment (largest base offset)"),
        ("leftover", "deleted, cleaned, swap, part or tmp for Kafka's leftover suffixes"),
        ("partition_state", "delete, future or stray for such partition directories"),
    ]),
    "batch": ("a record batch (v2) or a top-level message (v0/v1) (dump)", BATCH_FIELDS),
    "record": ("a record, with --deep-iteration or --print-data-log (dump)", [
        ("file", "path of the log file"),
        ("topic", "from the partition directory's name; null when the file is in none"),
        ("partition", "from the partition directory's name; null when unknown"),
        ("batch_position", "position of its batch"),
        ("producer_id", "its batch's (-1: none; v0/v1 always -1)"),
        ("producer_epoch", "its batch's (-1: none)"),
        ("is_transactional", "its batch is transactional"),
        ("is_control", "a control record (transaction marker, KRaft control): its "
                       "decoded form is under control, not key/value"),
        ("offset", "absolute offset"), ("timestamp", "epoch milliseconds (-1: none)"),
        ("timestamp_type", "as its batch"), ("key_size", "-1 for a null key"),
        ("value_size", "-1 for a null value (tombstone)"),
        ("key", "the raw key, a string per key_encoding, or null"),
        ("key_encoding", "utf8, base64 or hex; null for a null key"),
        ("value", "the raw value, a string per value_encoding, or null"),
        ("value_encoding", "utf8, base64 or hex; null for a null value; redacted (value "
                           "\"[redacted]\") for a __cluster_metadata record holding secrets, "
                           "unless --show-secrets"),
        ("headers", "list of {key, key_encoding, value, value_encoding}; keys are text "
                    "(utf8) under every --payload-encoding"),
        ("sequence?", "v2: producer sequence of the record (-1: none)"),
        ("magic?", "v0/v1 records only"), ("crc?", "v0/v1: the message CRC-32"),
        ("crc_valid?", "v0/v1: the message CRC-32 matches"),
        ("size", "bytes of the record as stored"),
        ("control?", "control records: {type, type_id, key_version, coordinator_epoch?, "
                     "value_version?, data?, error?}"),
        ("decoded?", "what a decoder (internal topics by directory name, --key-decoder, "
                     "--value-decoder) made of the payload: {key?, value?}, objects"),
        ("decode_error?", "what the decoder could not decode"),
        ("replica?", "compare-replicas --print-data-log: the replica holding the record"),
        ("log_dir?", "compare-replicas --print-data-log"),
        ("broker_id?", "compare-replicas --print-data-log"),
    ]),
    "log_end": ("the end of a log's dump (dump)", [
        ("file", "path"), ("size", "file size at open"), ("end", "where reading stopped"),
        ("valid_bytes", "end of the last intact batch"),
        ("trailing_bytes", "end - valid_bytes"), ("unreadable_bytes", "bytes in damaged regions"),
        ("batches", "batches read"), ("records", "records read"),
        ("limited", "--max-bytes cut the file short"),
    ]),
    "index_entry": ("an offset index entry (dump)", [
        ("file", "path"), ("slot", "entry number"), ("offset", "absolute offset"),
        ("position", "byte position in the log"),
    ]),
    "time_index_entry": ("a time index entry (dump)", [
        ("file", "path"), ("slot", "entry number"), ("timestamp", "epoch milliseconds"),
        ("offset", "absolute offset"),
    ]),
    "index_status": ("an index that is empty, or the result of --index-sanity-check (dump)", [
        ("file", "path"), ("status", "empty, sanity-passed or sanity-failed"),
        ("message", "DumpLogSegments' message"),
    ]),
    "txn_index_entry": ("an aborted transaction (dump)", [
        ("file", "path"), ("slot", "entry number"), ("version", "entry version"),
        ("producer_id", ""), ("first_offset", ""), ("last_offset", "offset of the ABORT marker"),
        ("last_stable_offset", ""),
    ]),
    "producer_snapshot_entry": ("a producer in a .snapshot file (dump)", [
        ("file", "path"), ("producer_id", ""), ("producer_epoch", ""),
        ("coordinator_epoch", ""), ("current_txn_first_offset", "null when no open transaction"),
        ("last_timestamp", ""), ("first_sequence", "null without batch metadata"),
        ("last_sequence", ""), ("last_offset", "-1 without batch metadata"),
        ("offset_delta", ""), ("timestamp", ""),
    ]),
    "checkpoint_entry": ("a line of a checkpoint file (dump)", [
        ("file", "path"), ("kind", "the checkpoint's kind"), ("line", "1-based line number"),
        ("topic?", "offset checkpoints"), ("partition?", "offset checkpoints"),
        ("recovery_point?", ""), ("high_watermark?", ""), ("log_start_offset?", ""),
        ("cleaner_checkpoint?", ""), ("epoch?", "leader-epoch-checkpoint"),
        ("start_offset?", "leader-epoch-checkpoint"),
    ]),
    "properties": ("meta.properties, partition.metadata, quorum-state, .kafka_cleanshutdown "
                   "(dump)", [
        ("file", "path"), ("kind", "the file's kind"), ("values", "its content as an object"),
    ]),
    "note": ("something said about a file (dump)", [("file", "path"), ("text", "")]),
    "problem": ("a finding: damage, a mismatch, an unreadable file (every command)", [
        ("file", "path"), ("position", "absolute byte position where the bad batch or region "
                                       "starts (null when not about bytes)"),
        ("kind", "stable name, see PROBLEM KINDS"), ("severity", "error, warning or info"),
        ("detail", "what is wrong, in words"), ("base_offset", "batch base offset, when known"),
        ("length", "bytes affected, when a byte range is"),
        ("index_offset?", "index mismatches"), ("log_offset?", "index mismatches"),
        ("check?", "time-index checks"), ("after?", "offset gaps"), ("next?", "offset gaps"),
        ("lost_offsets?", "truncated closed segments: [first, last] offsets lost up to the "
                          "next segment's base offset"),
        ("...?", "other kind-specific details"),
    ]),
    "summary": ("closes verify-crc and verify-index", [
        ("command", "verify-crc or verify-index"), ("files", "logs checked"),
        ("bytes", "bytes of those logs"), ("batches", "batches framed"),
        ("valid_batches", ""), ("invalid_batches", ""), ("records", "records checked"),
        ("unreadable_bytes", "bytes in damaged regions"), ("problems", "findings"),
        ("errors", ""), ("warnings", ""), ("infos", ""), ("by_kind", "findings per kind"),
        ("in_flight", "half-written batches at the end of active segments (a live broker's "
                      "append; not damage)"),
        ("clean", "no error and no warning"),
    ]),
    "segment": ("size-report --by segment row", []),
    "partition": ("size-report --by partition row", []),
    "topic": ("size-report --by topic row", []),
    "total": ("closes size-report: the same fields, summed", [
        ("topic?", "rows of type topic/partition/segment"),
        ("partition?", "rows of type partition/segment"), ("segment?", "rows of type segment"),
        ("bytes", "bytes on disk of every file of the row"), ("log_bytes", ""),
        ("index_bytes", ""), ("time_index_bytes", ""), ("txn_index_bytes", ""),
        ("snapshot_bytes", ""), ("other_bytes", "leftovers and other files"),
        ("segments", ""), ("batches", "shallow entries, as FileRecords counts them"),
        ("records", "control records included"),
        ("records_exact", "false when --shallow could not count inside v0/v1 wrappers, or "
         "when a batch could not be read (too large, corrupt): records is then a lower "
         "bound, and the run exits 1"),
        ("control_batches", ""), ("control_records", ""), ("transactional_batches", ""),
        ("transactional_bytes", ""),
        ("key_bytes", "null with --shallow (not measured), as are value_bytes, header_bytes, "
         "payload_bytes and overhead_bytes"), ("value_bytes", ""),
        ("header_bytes", "header keys and values"), ("payload_bytes", "key+value+header bytes"),
        ("overhead_bytes", "uncompressed bytes minus payload: batch and record headers"),
        ("uncompressed_bytes", ""), ("compression_ratio", "uncompressed / stored"),
        ("unreadable_bytes", ""), ("first_offset", ""), ("last_offset", ""),
        ("min_timestamp", ""), ("max_timestamp", ""), ("producers", "distinct producer ids"),
        ("codecs", "per codec: {batches, stored_bytes, uncompressed_bytes, ratio}"),
        ("log_dir?", "segment and partition rows: the broker log dir holding the replica "
         "(several log dirs are several replicas, kept apart)"),
        ("broker_id?", "segment and partition rows: broker.id / node.id of the log dir's "
         "meta.properties; null without one"),
        ("counts?", "total row: replicas (sums every replica, --by segment/partition) or "
         "partitions (each partition once, --by topic)"),
        ("partitions?", "topic and total rows: distinct partitions"),
        ("replicas?", "topic and total rows: replicas (partition directories) read"),
        ("replication_factor?", "topic rows: the most replicas any of its partitions has; "
         "the topic's figures count each partition once (its replica with the highest last "
         "offset)"),
        ("log_dirs?", "total row: log dirs read"),
        ("replica_bytes?", "topic and total rows: bytes on disk over every replica"),
    ]),
    "found": ("find-offset / find-time answer", [
        ("query", "offset or timestamp"), ("target", "what was asked"), ("file", ""),
        ("position", "position of the batch"), ("base_offset", ""), ("last_offset", ""),
        ("count", ""), ("batch_size", ""), ("max_timestamp", ""), ("timestamp_type", ""),
        ("compression", ""), ("offset", "the record's offset"),
        ("timestamp", "the record's timestamp"),
        ("method", "index, time index + offset index, or scan"),
        ("index_entry", "{slot, offset, position} of the index entry used, or null"),
        ("bytes_scanned", "log bytes scanned from the starting position"),
        ("bytes_read", "bytes read from all files"), ("notes", "fallbacks taken"),
        ("key?", "--print-data-log"), ("key_encoding?", ""), ("value?", ""),
        ("value_encoding?", ""), ("headers?", ""),
        ("decoded?", "--print-data-log: decoded payloads, as in record"),
        ("decode_error?", "--print-data-log: what the decoder (--decoder, auto by directory "
         "name) could not decode"),
    ]),
    "not_found": ("find-offset / find-time: not there (exit 1)", [
        ("query", ""), ("target", ""), ("file", ""), ("position", ""), ("method", ""),
        ("index_entry", ""), ("bytes_scanned", ""), ("bytes_read", ""), ("notes", ""),
        ("reason", "below the log start, above the log end, in a gap ..."),
        ("nearest_below", "nearest offset below that holds a record"),
        ("nearest_above", "nearest offset above that holds a record"),
    ]),
    "committed_offset": ("dump --summary: a group's committed offset", [
        ("group", ""), ("topic", ""), ("partition", ""), ("offset", ""), ("metadata", ""),
        ("commit_timestamp", ""), ("leader_epoch", "null before value version 3"),
        ("expire_timestamp", "value version 1 only"),
        ("log_offset", "offset of the commit in __consumer_offsets"),
    ]),
    "group": ("dump --summary: a group's latest metadata", [
        ("group", ""), ("protocol_type", ""), ("generation", ""), ("protocol", ""),
        ("leader", ""), ("members", "member count"), ("current_state_timestamp", ""),
        ("log_offset", ""),
    ]),
    "offsets_summary": ("closes dump --summary", [
        ("records", ""), ("partitions", ""), ("committed_offsets", ""), ("groups", ""),
        ("aborted_records", "transactional commits that were aborted"),
        ("pending_records", "transactional commits with no marker yet"),
        ("ignored_records", "records the digest does not use"),
        ("skipped_replicas", "partition directories not replayed: several brokers' log dirs "
         "hold several replicas, and each partition is replayed once, from the replica with "
         "the highest log end offset"),
    ]),
    "partition_comparison": ("compare-replicas: one partition's replicas", [
        ("partition", "<topic>-<partition>, the directory name"), ("topic", ""),
        ("status", "agree, lagging (a replica is a prefix of another), diverged, or single "
         "(found in one log dir only)"),
        ("diverged", "two replicas hold different batches at some offset"),
        ("divergence_offset", "the first such offset; null when none"),
        ("truncation_offset", "the lowest offset Kafka's truncation (OffsetsForLeaderEpoch) "
         "would cut a follower at, below its log end offset; null when no follower loses "
         "records"),
        ("leader", "the replica taken as the leader (path)"),
        ("leader_reason", "given with --leader, or how it was presumed"),
        ("compacted_differences", "batches that differ only as the log cleaner leaves them"),
        ("missing_from", "[{log_dir, broker_id}] of the log dirs without this partition"),
        ("replicas", "one object per replica: path, log_dir, broker_id, role (leader, "
         "follower, single), log_start_offset, log_end_offset, high_watermark "
         "(replication-offset-checkpoint), segments, batches, records, records_only_here, "
         "batches_only_here, epochs ([[epoch, start_offset]...] as Kafka's epoch cache "
         "holds them), epochs_source, checkpoint_epochs, batch_epochs, latest_epoch, "
         "truncation_offset, truncation_reason, batch_at_divergence ({file, position, "
         "base_offset, last_offset, partition_leader_epoch, crc, magic, count, size} or "
         "null), damage ([{file, position, kind, base_offset, detail}]), bytes_read"),
    ]),
    "replicas_summary": ("closes compare-replicas", [
        ("partitions", ""), ("agree", ""), ("lagging", ""), ("diverged", ""),
        ("only_one_replica", ""), ("damaged", "partitions with a damaged replica"),
        ("bytes_read", "bytes read from every log"),
        ("log_dirs", "[{log_dir, broker_id}]"),
    ]),
    "offsets_source": ("lag: the __consumer_offsets replica replayed", [
        ("partition", ""), ("path", ""), ("log_dir", ""), ("broker_id", ""),
        ("log_end_offset", ""), ("replicas", "replicas of it found"),
        ("chosen_by", "the highest log end offset, or the only one"),
        ("records", "records applied"), ("aborted_records", "transactional commits aborted"),
        ("pending_records", "transactional commits with no marker yet"),
    ]),
    "lag": ("lag: a group's position on a partition", [
        ("group", ""), ("topic", ""), ("partition", ""),
        ("committed_offset", "the last committed offset"),
        ("log_end_offset", "of the replica named in log_end_offset_from; null when the "
         "partition's log is not among the inputs"),
        ("high_watermark", "the highest replication-offset-checkpoint entry of the log dirs "
         "read (a broker's last checkpoint, not the live value); null without one"),
        ("lag", "log_end_offset - committed_offset; null when unknown"),
        ("lag_to_high_watermark", "high_watermark - committed_offset; null when unknown"),
        ("high_watermark_source", ""), ("commit_timestamp", ""), ("metadata", ""),
        ("log_end_offset_from", "{path, log_dir, broker_id, log_end_offset, replicas, "
         "chosen_by} or null"),
        ("committed_offset_from", "the __consumer_offsets replica (path)"),
    ]),
    "group_lag": ("lag: one group's summary", [
        ("group", ""), ("partitions", ""),
        ("partitions_without_log", "partitions whose log is not among the inputs"),
        ("total_lag", "over the partitions with a known lag"), ("max_lag", ""),
        ("topics", ""),
    ]),
    "coordinator_partition": ("coordinator-partition answer", [
        ("id", "group or transactional id"), ("hash_code", "Java String.hashCode"),
        ("partitions", ""), ("partition", ""), ("consumer_offsets_dir", ""),
        ("transaction_state_dir", ""),
    ]),
    "export": ("kdump spark export's answer", [
        ("output", "the directory written"), ("format", "parquet"),
        ("partitioned_by", "[topic, partition]"), ("level", "record or batch"),
        ("rows", "rows written"), ("segments", "segments read"), ("tasks", "Spark tasks run"),
    ]),
}

SIZE_ROW_TYPES = ("segment", "partition", "topic", "total")


def fields_of(kind: str) -> list[Field]:
    if kind in SIZE_ROW_TYPES:
        return SCHEMA["total"][1]
    return SCHEMA[kind][1]


#: A Spark column: (name, Spark SQL type, what it holds).
Column = tuple[str, str, str]

_FROM_DIR = "from the partition directory (Parquet partition columns)"
_SEGMENT = "the segment's base offset, 20 digits (as size-report names it)"
_FILE = "the .log path (which broker's copy)"

#: The rows of ``kdump spark export`` and the ``kafka_log`` data source, per level, in
#: column order (kdump/spark/segments.py builds its Spark schema from these; docs/spark.md
#: shows them, generated by :func:`spark_markdown`).  Columns named like a batch or
#: record field hold what that JSON field holds.
SPARK_COLUMNS: dict[str, list[Column]] = {
    "record": [
        ("topic", "string", _FROM_DIR), ("partition", "int", _FROM_DIR),
        ("segment", "string", _SEGMENT), ("file", "string", _FILE),
        ("position", "bigint", "byte position of the record's batch in the segment"),
        ("offset", "bigint", "the record's offset"),
        ("timestamp", "bigint", "epoch ms (timestamp_millis(timestamp) in SQL)"),
        ("timestamp_type", "string", "CreateTime, LogAppendTime or NoTimestampType"),
        ("key", "binary", "null when null"),
        ("value", "binary", "null when null (a tombstone)"),
        ("headers", "array<struct<key:string,value:binary>>", "the record's headers"),
        ("sequence", "int", "the record's producer sequence (-1: none)"),
        ("base_offset", "bigint", "its batch's"), ("last_offset", "bigint", "its batch's"),
        ("batch_size", "int", "its batch's size in bytes"), ("magic", "int", "its batch's"),
        ("compression", "string", "its batch's"),
        ("partition_leader_epoch", "int", "its batch's"),
        ("producer_id", "bigint", "its batch's"), ("producer_epoch", "int", "its batch's"),
        ("base_sequence", "int", "its batch's"),
        ("is_transactional", "boolean", "its batch's"), ("is_control", "boolean", "its batch's"),
        ("crc", "bigint", "its batch's stored checksum"),
    ],
    "batch": [
        ("topic", "string", _FROM_DIR), ("partition", "int", _FROM_DIR),
        ("segment", "string", _SEGMENT), ("file", "string", _FILE),
        ("position", "bigint", "byte position of the batch in the segment"),
        ("base_offset", "bigint", ""), ("last_offset", "bigint", ""),
        ("count", "int", "records count (v2 header)"), ("size", "int", "bytes on disk"),
        ("magic", "int", ""), ("compression", "string", ""), ("timestamp_type", "string", ""),
        ("first_timestamp", "bigint", ""), ("max_timestamp", "bigint", ""),
        ("partition_leader_epoch", "int", ""), ("producer_id", "bigint", ""),
        ("producer_epoch", "int", ""), ("base_sequence", "int", ""),
        ("last_sequence", "int", ""), ("is_transactional", "boolean", ""),
        ("is_control", "boolean", ""), ("crc", "bigint", "stored checksum"),
        ("attributes", "int", "the raw attributes field"),
    ],
    # added with --verify
    "verify": [("crc_valid", "boolean", "with --verify: the stored checksum matches")],
    # added with --decoder
    "decoder": [
        ("key_decoded", "string", "with --decoder: JSON for structured decoders (internal "
         "topics, json), text otherwise"),
        ("value_decoded", "string", "with --decoder, as key_decoded"),
        ("decode_error", "string", "with --decoder: what could not be decoded"),
    ],
}


def spark_fields(level: str) -> list[tuple[str, str]]:
    """(name, Spark SQL type) of the columns of ``level`` (record, batch, verify, decoder)."""
    return [(name, typ) for name, typ, _ in SPARK_COLUMNS[level]]


def spark_markdown() -> str:
    """The columns as Markdown tables (docs/spark.md embeds them; a test checks it)."""
    out = []
    for level, title in (("record", "`--level record` (the default): one row per record"),
                         ("batch", "`--level batch`: one row per batch"),
                         ("verify", "`--verify` adds"), ("decoder", "`--decoder NAME` adds")):
        out += [title + ":", "", "| column | type | |", "|---|---|---|"]
        out += [f"| {n} | `{t}` | {d} |" for n, t, d in SPARK_COLUMNS[level]]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


#: (kind, upto, the names ``values`` holds, in its order) -> (the documented order of
#: those names, a getter of their values in that order): checked once per shape of input
_ORDERS: dict[tuple[str, str | None, tuple[str, ...]],
              tuple[tuple[str, ...], Callable[[Mapping[str, Any]], tuple[Any, ...]]]] = {}


def shape(kind: str, values: Mapping[str, Any], upto: str | None = None) -> dict[str, Any]:
    """The JSON object of type ``kind``: ``type`` first, then the documented fields in
    their documented order, each from ``values`` (with ``upto``: only the fields before
    that one).  An optional field (``name?``) missing from ``values`` is left out; a
    required one missing, or a name that is not documented, is a programming error
    (KeyError)."""
    key = (kind, upto, tuple(values))
    known = _ORDERS.get(key)
    if known is None:
        known = _ORDERS[key] = _order(kind, upto, key[2])
        if len(_ORDERS) > 4096:  # input shapes are few; never let them pile up
            _ORDERS.clear()
    names, get = known
    obj: dict[str, Any] = {"type": kind}
    obj.update(zip(names, get(values), strict=True))
    return obj


def _order(kind: str, upto: str | None, given: tuple[str, ...]
           ) -> tuple[tuple[str, ...], Callable[[Mapping[str, Any]], tuple[Any, ...]]]:
    present = set(given)
    names: list[str] = []
    documented = set()
    for field, _ in fields_of(kind):
        name, optional = field.rstrip("?"), field.endswith("?")
        if name == upto:
            break
        documented.add(name)
        if name in present:
            names.append(name)
        elif not optional:
            raise KeyError(f"{kind} object without its field {name!r}")
    extra = present - documented
    if extra:
        raise KeyError(f"{kind} object with undocumented fields {sorted(extra)}")
    if len(names) == 1:
        only = names[0]
        return tuple(names), lambda v: (v[only],)
    return tuple(names), itemgetter(*names) if names else (lambda v: ())


#: How strings are written, for the README and the man pages.
ENCODING_NOTES = (
    "Keys, values and header values are written per --payload-encoding: utf8 (default) "
    "writes valid UTF-8 as is and anything else as base64, saying which in "
    "key_encoding/value_encoding; base64 and hex apply to every payload; null stays null. "
    "key and value always hold the raw bytes; a decoder's structure is under decoded. "
    "Header keys are Strings in Kafka: always text, base64 only when not valid UTF-8 "
    "(key_encoding says so). Every line is valid UTF-8 JSON: C1 controls (U+0080-U+009F) "
    "and bidirectional-text controls (U+061C, U+200E, U+200F, U+202A-U+202E, "
    "U+2066-U+2069) are written as \\uXXXX escapes (the same string once parsed), and a "
    "file name holding bytes that are not UTF-8 has each such byte as the escape "
    "\\udc80-\\udcff (Python's surrogateescape): os.fsencode of the parsed name gives "
    "the name's bytes back."
)


def markdown() -> str:
    """The schema as a Markdown section (the README embeds it; a test checks it)."""
    out = []
    for kind, (what, _) in SCHEMA.items():
        if kind in ("segment", "partition", "topic"):
            continue
        label = "`segment` / `partition` / `topic` / `total`" if kind == "total" else f"`{kind}`"
        names = ", ".join(f"`{n}`" for n, _ in fields_of(kind))
        out.append(f"- {label}: {what if kind != 'total' else 'size-report rows and total'}. "
                   f"Fields: {names}.")
    out.append("")
    out.append("`kdump metadata` writes objects of its own (its `topic` and `partition` are "
               "not size-report rows):")
    out.append("")
    for kind, (what, fields) in METADATA_SCHEMA.items():
        names = ", ".join(f"`{n}`" for n, _ in fields)
        out.append(f"- `{kind}`: {what}. Fields: {names}.")
    out.append("")
    out.append(ENCODING_NOTES)
    return "\n".join(out) + "\n"


#: ``kdump metadata``'s objects (a namespace of their own)
_ENDPOINTS = ("endpoints", "[{name, host, port, security_protocol}], by listener name")
_SUMMARY = ("offset, timestamp, target, snapshot, log_segments, gaps, records_applied, "
            "records_failed, complete")
METADATA_SCHEMA: dict[str, tuple[str, list[Field]]] = {
    "feature": ("a finalized feature (metadata.version included)", [
        ("name", ""), ("level", "feature level")]),
    "broker": ("a registered broker", [
        ("id", ""), ("epoch", "broker epoch"), ("incarnation_id", ""),
        ("fenced", ""), ("in_controlled_shutdown", ""), ("rack", "null when none"), _ENDPOINTS,
        ("features", "[{name, min_version, max_version}] supported"),
        ("log_dirs", "directory ids, sorted"), ("is_migrating_zk_broker", "")]),
    "controller": ("a controller: its registration and what the quorum's control records say", [
        ("id", ""), ("incarnation_id", "null when not registered"),
        ("zk_migration_ready", ""), _ENDPOINTS, ("features", ""),
        ("registered", "a RegisterControllerRecord exists"),
        ("voter", "in the voters of the latest LeaderChange/Voters record (null: none seen)"),
        ("leader", "the latest LeaderChange record names it")]),
    "topic": ("a topic", [("name", ""), ("topic_id", ""), ("partitions", "the count")]),
    "partition": ("a partition's registration", [
        ("topic", ""), ("topic_id", ""), ("partition", ""), ("leader", "-1: none"),
        ("leader_epoch", ""), ("partition_epoch", ""), ("replicas", ""), ("isr", ""),
        ("elr", "eligible leader replicas"), ("last_known_elr", ""),
        ("leader_recovery_state", "RECOVERED or RECOVERING"), ("adding_replicas", ""),
        ("removing_replicas", ""),
        ("directories", "per replica; AAAAAAAAAAAAAAAAAAAAAA = MIGRATING, "
                        "AAAAAAAAAAAAAAAAAAAAAQ = UNASSIGNED")]),
    "config": ("a dynamic config", [
        ("resource_type", "TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP"),
        ("resource_name", "empty: the cluster default"), ("name", ""),
        ("value", "null when redacted"),
        ("redacted?", "true for password-like names: the value is never printed"),
        ("version?", "redacted configs: how many times the value was set")]),
    "quota": ("a client quota", [("entity", "{entity type: name or null (default)}"),
                                 ("key", ""), ("value", "")]),
    "acl": ("an ACL", [("id", ""), ("resource_type", ""), ("resource_name", ""),
                       ("pattern_type", ""), ("principal", ""), ("host", ""),
                       ("operation", ""), ("permission_type", "")]),
    "producer_ids": ("the next producer-id block", [
        ("next_producer_id", ""), ("broker_id", "the broker it went to"),
        ("broker_epoch", "")]),
    "scram_user": ("a SCRAM credential", [
        ("name", ""), ("mechanism", "SCRAM-SHA-256 or SCRAM-SHA-512"), ("iterations", ""),
        ("credentials", "always \"redacted\": salt and keys are never printed"),
        ("version", "how many times it was set")]),
    "delegation_token": ("a delegation token", [
        ("token_id", ""), ("owner", ""), ("requester", ""), ("renewers", ""),
        ("issue_timestamp", ""), ("max_timestamp", ""), ("expiration_timestamp", ""),
        ("hmac", "always \"redacted\"")]),
    "image": ("closes the image: where it stands and what built it", [
        ("offset", "last offset in the image"), ("timestamp", "of that record"),
        ("target", "offset N, time T or end"),
        ("snapshot", "{file, end_offset, epoch, timestamp} used, or null"),
        ("log_segments", "segments read"), ("skipped_segments", "[{file, why}]"),
        ("log_start_offset", ""), ("log_end_offset", "last offset read"),
        ("overlap", "{first, last}: log offsets also in the snapshot (taken from it)"),
        ("gaps", "[{first, last}]: offsets in no file"), ("records_applied", ""),
        ("records_failed", "records not applied (see the problems)"),
        ("records_by_type", ""), ("records_without_effect", "NO_OP_RECORD ..."),
        ("transactions_committed", ""), ("transactions_aborted", ""),
        ("records_aborted", ""),
        ("pending_transaction", "{begin_offset, name, records} open at the target, not applied"),
        ("metadata_version", ""), ("zk_migration_state", ""), ("kraft_version", ""),
        ("leader_id", "from the latest LeaderChange record"), ("leader_epoch", ""),
        ("voters", ""), ("quorum_state_file", "{file, values}: the quorum-state file, as copied"),
        ("complete", "no gap and no record failed"), ("topics", ""), ("partitions", ""),
        ("brokers", "")]),
    "change": ("--history: one object changed by one record", [
        ("offset", "null: loaded from the snapshot"), ("timestamp", ""),
        ("record", "the record type"),
        ("committed_at", "in a transaction: the END record's offset"),
        ("object", "its type"), ("label", "orders/0, broker 1 ..."), ("path", "/topics/orders/0"),
        ("action", "created, changed or removed"),
        ("changes", "[{field, from, to}]"), ("text", "leader 1 -> 3, fenced ...")]),
    "history": ("closes --history", [("object", "what was asked"), ("changes", "entries"),
                                     ("image", _SUMMARY)]),
    "difference": ("--diff: an object that differs", [
        ("object", "type"), ("label", ""), ("path", ""), ("action", "created, changed, removed"),
        ("changes", "[{field, from, to}]"), ("text", ""), ("before", "the object at A"),
        ("after", "the object at B")]),
    "diff": ("closes --diff", [("from", _SUMMARY), ("to", _SUMMARY),
                               ("differences", "count")]),
}
