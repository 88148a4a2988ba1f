"""The output model: every object type (*kind*) kdump writes, with its typed fields, in order.

One definition per kind, read by everything that writes or describes objects:

- the JSON Lines writers take each object's field names and their order from here
  (:func:`shape`; ``kdump metadata``'s objects: :func:`shape_metadata`);
- ``--format table`` of ``dump`` takes the batch and record columns it does not draw
  itself from here (:func:`extra_fields`: a field added to ``batch`` or ``record`` shows
  in the table as ``name=value``, kdump/render/table.py);
- the README's and the man pages' schema sections are generated from it
  (:func:`markdown`, kdump/cli/manpages.py), each field with its type;
- the Spark columns (:data:`SPARK_COLUMNS`) are checked against the types of the
  batch/record fields of the same name (tests/test_model.py);
- the native record writer (kdump/_speedups_writers.c) is tested byte for byte against the
  Python writer, which shapes through here (tests/test_speedups.py);
- tests/test_model.py checks that the objects kdump writes (the sample log dir's, the
  goldens', ``kdump metadata``'s) hold values of the declared types.

``--format text`` of ``dump`` is not generated from the model: it is the fixed lines of
Kafka's DumpLogSegments (kafka-dump-log.sh), so a new field shows in text only where
DumpLogSegments prints one.  Other commands' text and table layouts are their own
renderers' (kdump/render/registry.py picks one per command and format).

A field is declared ``(name, type, doc)``: ``name`` ends in ``?`` when the field appears
only in some objects of the kind (said in the doc); ``type`` is a JSON type in
:data:`TYPES` (``str``, ``int``, ``float``, ``bool``, ``object``, ``list``, ``any``),
``|null`` when the value may be null (``int|null``).  Each declaration becomes a
:class:`Field`, which still unpacks as the two-tuple ``(name, doc)``.

How to add a kind (a new object some command writes):

1. Add ``"kind": ("what it is (which command)", [("field", "type", "doc"), ...])`` to
   :data:`SCHEMA` (``kdump metadata``'s objects: :data:`METADATA_SCHEMA`), fields in
   the order the JSON shows them.  The older form ``("field", "doc")`` is still
   accepted: the field's type is then ``any`` and tests/test_model.py lists the kind as
   untyped (:func:`untyped_kinds`) until it is given types.
2. Build the JSON object with ``shape("kind", {field: value, ...})`` in the core (or
   ``shape_metadata``): it orders the fields, leaves out absent optional ones and
   raises KeyError for a missing required field or an undeclared one.  Objects with a
   ``to_json()`` method are written by :class:`kdump.render.jsonl.JsonRenderer` as is.
3. Give the command's family a renderer per format in kdump/render/registry.py.  A
   family whose objects need no layout of their own can register
   ``objects:ModelTextRenderer`` and ``objects:ModelTableRenderer`` (with ``json``:
   ``jsonl:JsonRenderer``): they draw every declared field from the model alone
   (``metadata=True`` for :data:`METADATA_SCHEMA`'s kinds).
4. Regenerate the README's schema section (``markdown()``, between the
   ``json-schema`` markers) and the man pages (``python -m kdump.cli.manpages man``);
   tests/test_docs.py fails until they match.  Add the command's JSON output to
   tests/test_model.py's type check.

Size: the declaration of every kind, a field or two a line: data, kept in one module so
that each field is defined once and read from one place; its code is the few functions
around the declarations.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from operator import itemgetter
from typing import Any

#: the types a field may be declared with (each may be followed by ``|null``)
TYPES = ("str", "int", "float", "bool", "object", "list", "any")
ANY = "any"


class Field(tuple[str, str]):
    """One declared field of a kind: unpacks as ``(name, doc)``, ``name`` ending in
    ``?`` when optional (the form kinds were declared in before fields had types), and
    carries its :attr:`type`."""

    type: str

    def __new__(cls, name: str, type: str, doc: str = "") -> Field:
        self = super().__new__(cls, (name, doc))
        self.type = type
        return self

    def __getnewargs__(self) -> tuple[str, str, str]:
        return self[0], self.type, self[1]

    def __repr__(self) -> str:
        return f"Field({self[0]!r}, {self.type!r}, {self[1]!r})"

    @property
    def name(self) -> str:
        """The field's name in the JSON object (without the ``?``)."""
        return self[0].rstrip("?")

    @property
    def optional(self) -> bool:
        return self[0].endswith("?")

    @property
    def doc(self) -> str:
        return self[1]

    @property
    def nullable(self) -> bool:
        return self.type.endswith("|null")


#: a field as declared: ``(name, type, doc)``, or the untyped ``(name, doc)``
Declared = tuple[str, str] | tuple[str, str, str]


def field(decl: Declared | Field) -> Field:
    """The :class:`Field` of a declaration (an untyped ``(name, doc)`` has type ``any``)."""
    if isinstance(decl, Field):
        return decl
    if len(decl) == 3:
        name, typ, doc = decl
        base = typ.removesuffix("|null")
        if base not in TYPES:
            raise ValueError(f"field {name!r}: unknown type {typ!r} (one of {TYPES})")
        return Field(name, typ, doc)
    name, doc = decl
    return Field(name, ANY, doc)


def _typed(schema: dict[str, tuple[str, Sequence[Any]]]) -> None:
    for kind, (what, decls) in list(schema.items()):
        schema[kind] = (what, [field(d) for d in decls])


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

SCHEMA: dict[str, tuple[str, Sequence[Declared | Field]]] = {
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
         "layouts of Kafka 4.0-4.3; a value kdump cannot read exactly holds raw "
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
    "schema": ("a schema of the registry's storage, per subject and version (schemas)", [
        ("subject", "str", "the subject"), ("version", "int", "its version"),
        ("id", "int", "the schema id payloads carry"),
        ("schema_type", "str", "AVRO, PROTOBUF or JSON"),
        ("deleted", "str|null", "null, soft (deleted: true) or hard (a tombstone follows; the "
                                "schema record is still on disk until compaction)"),
        ("references", "list", "[{name, subject, version}]"),
        ("key_records", "int|null",
         "records under the inputs whose key names the id (null: not counted)"),
        ("value_records", "int|null", "records whose value names the id (null: not counted)"),
        ("file", "str", "where the schema was read: a _schemas log, or a schema file"),
        ("offset", "int|null", "the schema record's offset in file (null for a schema file)"),
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
    "problem": ("a finding: damage, a mismatch, an unreadable file (every command)", [
        ("file", "str|null", "path"),
        ("position", "int|null", "absolute byte position where the bad batch or region "
                                 "starts (null when not about bytes)"),
        ("kind", "str", "stable name, see PROBLEM KINDS"), ("severity", "str", "error, warning or info"),
        ("detail", "str", "what is wrong, in words"),
        ("base_offset", "int|null", "batch base offset, when known"),
        ("length", "int|null", "bytes affected, when a byte range is"),
        ("index_offset?", "int", "index mismatches"), ("log_offset?", "int", "index mismatches"),
        ("check?", "str", "time-index checks"),
        ("after?", "int", "offset gaps"),
        ("next?", "int", "offset gaps"),
        ("lost_offsets?", "list", "data-lost, offset-gap, zero-tail and truncated: [first, last] "
                                  "offsets written (the witnesses say) that no batch holds"),
        ("witnesses?", "list", "data-lost and offset-gap: what proves the offsets written, each "
                               "{witness, path, end (offsets below it were written), offset?, "
                               "broker_id?}; the README's verify-crc section says which proves "
                               "what"),
        ("topic?", "str", "findings about a topic or partition (partition-offline, "
                          "partition-under-replicated, replica-*, hanging-transaction, "
                          "schema-id-unknown)"),
        ("partition?", "int", "findings about a partition"),
        ("broker?", "int|null", "broker-fenced: the broker; cluster-stopped: the last broker to "
                                "go down"),
        ("offset?", "int|null", "cluster-stopped: the metadata record that stopped the cluster "
                                "(null: read from a snapshot)"),
        ("timestamp?", "int|null", "cluster-stopped: that record's time"),
        ("partitions_without_leader?", "int", "cluster-stopped: partitions whose leader is -1"),
        ("records?", "int", "schema findings: the record keys and values they count"),
        ("schema_id?", "int", "schema-deleted-in-use"),
        ("schema_ids?", "list", "schema-id-unknown: the ids the registry does not hold"),
        ("...?", "any", "other kind-specific details"),
    ]),
    "summary": ("closes verify-crc and verify-index", [
        ("command", "str", "verify-crc or verify-index"), ("files", "int", "logs checked"),
        ("bytes", "int", "bytes of those logs"), ("batches", "int", "batches framed"),
        ("valid_batches", "int", ""), ("invalid_batches", "int", ""),
        ("records", "int", "records checked (of batches whose CRC holds)"),
        ("invalid_records", "int", "records of batches whose CRC fails, counted apart"),
        ("unreadable_bytes", "int", "bytes in damaged regions"), ("problems", "int", "findings"),
        ("errors", "int", ""),
        ("warnings", "int", ""),
        ("infos", "int", ""),
        ("by_kind", "object", "findings per kind"),
        ("in_flight", "int", "half-written batches at the end of active segments (a live broker's "
                             "append; not damage)"),
        ("clean", "bool", "no error and no warning"),
    ]),
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
    "found": ("find-offset / find-time answer", [
        ("query", "str", "offset or timestamp"), ("target", "int", "what was asked"), ("file", "str", ""),
        ("position", "int", "position of the batch"), ("base_offset", "int", ""), ("last_offset", "int", ""),
        ("count", "int|null", ""),
        ("batch_size", "int", ""),
        ("max_timestamp", "int", ""),
        ("timestamp_type", "str", ""),
        ("compression", "str", ""), ("offset", "int", "the record's offset"),
        ("timestamp", "int", "the record's timestamp"),
        ("method", "str", "index, time index + offset index, or scan"),
        ("index_entry", "object|null", "{slot, offset, position} of the index entry used, or null"),
        ("bytes_scanned", "int", "log bytes scanned from the starting position"),
        ("bytes_read", "int", "bytes read from all files"), ("notes", "list", "fallbacks taken"),
        ("key?", "str|null", "--print-data-log"),
        ("key_encoding?", "str|null", ""),
        ("value?", "str|null", ""),
        ("value_encoding?", "str|null", ""), ("headers?", "list", ""),
        ("decoded?", "object", "--print-data-log: decoded payloads, as in record"),
        ("decode_error?", "str", "--print-data-log: what the decoder (--decoder, auto by directory "
                                 "name) could not decode"),
    ]),
    "not_found": ("find-offset / find-time: not there (exit 1)", [
        ("query", "str", ""),
        ("target", "int", ""),
        ("file", "str|null", ""),
        ("position", "int|null", ""),
        ("method", "str|null", ""),
        ("index_entry", "object|null", ""),
        ("bytes_scanned", "int", ""),
        ("bytes_read", "int", ""),
        ("notes", "list", ""),
        ("reason", "str", "below the log start, above the log end, in a gap ..."),
        ("nearest_below", "int|null", "nearest offset below that holds a record"),
        ("nearest_above", "int|null", "nearest offset above that holds a record"),
    ]),
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
    "partition_comparison": ("compare-replicas: one partition's replicas", [
        ("partition", "str", "<topic>-<partition>, the directory name"), ("topic", "str", ""),
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
         "null), damage ([{file, position, kind, base_offset, detail}]), bytes_read"),
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
    "export": ("kdump spark export's answer", [
        ("output", "str", "the directory written"), ("format", "str", "parquet"),
        ("partitioned_by", "list", "[topic, partition]"), ("level", "str", "record or batch"),
        ("rows", "int", "rows written"),
        ("segments", "int", "segments read"),
        ("tasks", "int", "Spark tasks run"),
    ]),
    # kdump retention (kdump/ops/retention/__init__.py): what the broker deletes or compacts next
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
    "export_file": ("a file kdump export wrote (one per segment and log dir)", [
        ("file", "str", "its path under the output directory: topic=T/partition=P/NAME"),
        ("topic", "str|null", "from the partition directory"),
        ("partition", "int|null", "from the partition directory"),
        ("segment", "str", "the segment's base offset, 20 digits"),
        ("source", "str", "the .log segment read"),
        ("log_dir", "str", "the log dir holding it (one broker)"),
        ("broker_id", "int|null", "node.id / broker.id of the log dir's meta.properties"),
        ("rows", "int", "rows written"), ("size", "int", "bytes written"),
        ("disk_bytes", "int|null", "bytes allocated on disk to the file written (st_blocks x "
                                   "512, as du counts them)"),
        ("sha256", "str", "hex digest of the file written"),
        ("columns", "list", "the typed decoded columns it holds besides the kafka_log ones"),
    ]),
    "export_end": ("kdump export's answer, last", [
        ("output", "str", "the directory written"),
        ("format", "str", "parquet, arrow or jsonl"),
        ("partitioned_by", "list", "[topic, partition]"), ("level", "str", "record or batch"),
        ("rows", "int", "rows written"), ("files", "int", "data files written"),
        ("segments", "int", "segments read"),
        ("findings", "int", "findings (damaged batches skipped ...) in _findings"),
        ("manifest", "str|null", "the manifest, written last: the export is whole"),
    ]),
    # kdump report: the other commands' objects, in sections, and these
    "report": ("opens kdump report: the chain of custody's head", [
        ("kdump_version", "str", ""), ("command", "list", "the command line, as a list"),
        ("inputs", "list", "the paths given"), ("cwd", "str", "the working directory (relative inputs)"),
        ("host", "str", "the machine's host name"), ("started", "str", "ISO-8601 UTC"),
        ("python", "str", "the Python version that ran kdump"),
    ]),
    "section": ("report: the objects after it belong to this section (custody, cluster, data, "
                "findings, groups, transactions, schemas, retention)",
                [("name", "str", ""), ("title", "str", "")]),
    "input_file": ("report: a file found under the inputs", [
        ("file", "str", "path"),
        ("kind", "str", "as dump names it; other: a file the walk passes over (not a Kafka file)"),
        ("topic", "str|null", "null outside a partition"),
        ("partition", "int|null", ""), ("size", "int|null", "bytes hashed (apparent, as ls "
                                                            "shows them); null when unreadable"),
        ("disk_bytes", "int|null", "bytes allocated on disk (st_blocks x 512, as du counts "
                                   "them: a preallocated .index is sparse); null when "
                                   "unreadable or in an object store (no block counts)"),
        ("modified", "str|null", "modification time, ISO-8601 UTC (null when unknown)"),
        ("sha256", "str|null", "hex digest of the whole file, streamed; null when unreadable"),
        ("read", "bool", "false for files no check reads (unknown kinds, lock files) or could "
                         "not be read"),
        ("error", "str|null", "why it could not be read; null"),
    ]),
    "activity": ("report: a topic's records over time, from batch timestamps (each partition "
                 "counted once, from its replica holding the most records)", [
        ("topic", "str", ""), ("bucket_ms", "int", "width of a bucket"),
        ("buckets", "list", "[[start epoch ms, records]] for the buckets holding records"),
        ("records", "int", "records counted (control batches and timestamps <= 0 left out)"),
    ]),
    "timeline": ("report: the cluster's history from __cluster_metadata (leader and ISR "
                 "changes, fencing, topics created and deleted)", [
        ("changes", "int", "entries in the whole history"), ("shown", "int", "entries kept: the latest"),
        ("entries", "list", "change objects (as metadata --history writes them)"),
    ]),
    "transaction": ("report: a transaction with no marker at the end of a partition", [
        ("topic", "str", ""), ("partition", "int", ""), ("log_dir", "str", "the replica read"),
        ("producer_id", "int", ""), ("producer_epoch", "int", ""), ("first_offset", "int", ""),
        ("first_timestamp", "int", "its first batch's"), ("last_offset", "int", "the partition's"),
        ("age_ms", "int", "the partition's last timestamp minus first_timestamp"),
        ("state", "str", "hanging when age_ms exceeds transaction.max.timeout.ms's default "
                         "(900000), else open"),
    ]),
    "schema_usage": ("report: how a data topic's records name the schema registry's ids "
                     "(the payload framing or schema-id header; nothing decoded)", [
        ("topic", "str", ""),
        ("records", "int", "records read (each partition's first replica listed)"),
        ("keys", "list", "[[schema id, records]] whose key names an id the registry holds"),
        ("values", "list", "[[schema id, records]] whose value names an id the registry holds"),
        ("unknown_ids", "list", "[[schema id, keys and values]] framed with an id the "
         "registry does not hold (null id: a GUID it does not know)"),
        ("not_framed", "int", "values with data but no schema-id framing or header"),
    ]),
    "report_end": ("closes kdump report", [
        ("ended", "str", "ISO-8601 UTC"), ("seconds", "float", "elapsed"), ("files", "int", "files found"),
        ("errors", "int", "findings"), ("warnings", "int", ""), ("infos", "int", ""),
        ("clean", "bool", "no error and no warning, every file read"),
    ]),
    # kdump repair: its manifest (stdout with --format json, and DIR/kdump-repair-manifest.jsonl)
    "repair": ("opens kdump repair's manifest", [
        ("kdump_version", "str", ""), ("into", "str", "DIR, as given"),
        ("dry_run", "bool", "true: nothing is written"),
        ("inputs", "list", "the paths given"),
        ("replicas", "list", "the --replica log dirs (other brokers' copies a dropped range is "
                             "filled from)"),
        ("started", "str", "ISO-8601 UTC"),
    ]),
    "repair_dropped": ("repair: a stretch of a log not copied (damage, or a second copy of "
                       "offsets already kept)", [
        ("file", "str", "the input log"), ("position", "int", "absolute byte position"),
        ("length", "int", "bytes not copied"),
        ("reason", "str", "a finding kind (crc-mismatch, bad-length, bad-magic, zeroed-region, "
                          "zero-tail, truncated, in-flight, trailing-bytes), bad-offset (an "
                          "offset field out of line: it lies outside the checksum), or "
                          "duplicate, overlap"),
        ("detail", "str", "what is wrong, in words"),
        ("first_offset", "int|null", "the first offset its batch header names (unverified when "
                                     "the checksum fails); null when no header can be read"),
        ("last_offset", "int|null", "the last offset its batch header names; null as above"),
        ("missing_offsets", "list|null", "[first, last] offsets the copy lacks around it (between "
                                         "the kept batches either side; last null at the log's "
                                         "end); null when no offset is missing (duplicate, zeros)"),
        ("severity", "str", "error (data lost), warning (a duplicate or an overlap, or zeros "
                            "ending a closed segment with no offset missing after them) or info "
                            "(zeros ending the active segment: preallocation)"),
        ("log_dir", "str|null", "the input log dir, when known"),
        ("topic", "str", ""), ("partition", "int", ""),
    ]),
    "repair_file": ("repair: what became of one input file, or where an output file came from", [
        ("file", "str|null", "the input file; null for a file the repair writes from nothing"),
        ("output", "str|null", "the output file, relative to DIR; null when left out"),
        ("action", "str", "copied (byte for byte), repaired (a log, damage left out), rebuilt "
                          "(indexes, leader-epoch-checkpoint), rewritten (log-dir checkpoints), "
                          "reserved (an empty active segment at the next offset: the offsets "
                          "below it written, none kept), left-out"),
        ("detail", "str", "why, in words"),
        ("size", "int|null", "bytes written (null when left out)"),
        ("sha256", "str|null", "of the output (null when left out)"),
    ]),
    "repair_partition": ("repair: one partition (replica) copied", [
        ("log_dir", "str|null", "the input log dir, when known"), ("topic", "str", ""),
        ("partition", "int", ""), ("input", "str", "the partition directory read"),
        ("output", "str", "its copy, relative to DIR"),
        ("segments", "int", "segments written"), ("batches", "int", "batches kept"),
        ("records", "int", "records in them"), ("bytes", "int", "bytes of them"),
        ("first_offset", "int|null", "first kept offset"),
        ("log_end_offset", "int", "the copy's log end offset"),
        ("input_log_end_offset", "int|null", "after the input's last intact batch"),
        ("regions_dropped", "int", "repair_dropped objects of this partition"),
        ("bytes_dropped", "int", ""), ("data_lost", "bool", "a region holding data was dropped"),
        ("reserved_offsets", "list|null", "[first, last] offsets the witnesses prove written that "
                                          "the copy holds no batch of: its next offset is last + "
                                          "1 (an empty active segment there), so none is handed "
                                          "out again; null when nothing is reserved"),
        ("witnesses", "list", "what proves the highest offset written, in words (checkpoint "
                              "values, file names)"),
        ("filled_offsets", "list", "[[first, last]] offset ranges filled from another broker's "
                                   "replica (repair_fill)"),
        ("index_interval_bytes", "int", "index.interval.bytes the indexes were rebuilt with"),
        ("index_interval_from", "str", "inferred from the input's .index files, the option, or "
                                       "Kafka's default"),
        ("leader_epochs", "list", "[[epoch, start offset]] of leader-epoch-checkpoint"),
        ("producer_snapshots", "object", "{kept: [offsets], left_out: [offsets]}"),
        ("checkpoints", "object", "per log-dir checkpoint: [before, after] (null: no entry)"),
        ("kafka", "object", "what Kafka's own recovery (LogLoader) would have done with the "
                            "input: recovery, recovered_from, truncated, deleted_segments, "
                            "bytes_removed, intact_batches_lost, intact_records_lost, "
                            "intact_bytes_lost, log_end_offset"),
        ("saved_batches", "int", "intact batches the copy keeps that Kafka's recovery loses"),
        ("saved_records", "int", ""), ("saved_bytes", "int", ""),
        ("notes", "list", "what else was decided, in words"),
    ]),
    "repair_fill": ("repair: a dropped range and another broker's replica (--replica): filled "
                    "byte for byte from it, or why not", [
        ("log_dir", "str|null", "the damaged replica's log dir"), ("topic", "str", ""),
        ("partition", "int", ""),
        ("first_offset", "int", "the first offset the copy lacked"),
        ("last_offset", "int", "the last (at the log's end: the highest offset written)"),
        ("filled", "bool", "the replica's batches were copied in"),
        ("filled_offsets", "list|null", "[first, last] offsets of the batches copied in"),
        ("batches", "int", "batches copied in"), ("records", "int", "their records (headers)"),
        ("bytes", "int", ""),
        ("replica_log_dir", "str", "the --replica log dir"),
        ("replica_broker_id", "int", "its node.id / broker.id"),
        ("sources", "list", "[{file, position, length, first_offset, last_offset}]: the bytes "
                            "copied, runs of one replica file each"),
        ("output", "str|null", "the copy's segment they went into, relative to DIR"),
        ("detail", "str", "why they were taken (the replicas agree around the gap), or why not "
                          "(a diverged history, damage on the replica, no such batches)"),
    ]),
    "repair_input": ("repair: an input file's SHA-256 before and after the repair", [
        ("file", "str", ""), ("size", "int|null", ""), ("modified", "str|null", "ISO-8601 UTC"),
        ("sha256_before", "str|null", "hashed as it was read"),
        ("sha256_after", "str|null", "hashed again once the copy was written"),
        ("unchanged", "bool", "same hash, size and modification time"),
    ]),
    "repair_end": ("closes kdump repair's manifest (the manifest file's last line)", [
        ("into", "str", "DIR"), ("dry_run", "bool", ""),
        ("partitions", "int", ""), ("damaged_partitions", "int", "partitions with a region dropped"),
        ("batches", "int", "kept"), ("records", "int", "kept"),
        ("regions_dropped", "int", ""), ("bytes_dropped", "int", ""),
        ("saved_batches", "int", "intact batches Kafka's own recovery would have lost"),
        ("saved_records", "int", ""), ("saved_bytes", "int", ""),
        ("inputs", "int", "input files hashed"), ("inputs_unchanged", "bool", ""),
        ("outputs", "int", "files written"),
        ("filled_batches", "int", "batches filled from other brokers' replicas"),
        ("reserved_partitions", "int", "partitions whose next offset was moved past offsets "
                                       "written but not kept"),
        ("manifest", "str|null", "the manifest file, relative to DIR; null with --dry-run"),
        ("complete", "bool", "the copy is whole and in place (false with --dry-run)"),
        ("clean", "bool", "nothing had to be dropped"),
    ]),
}

SIZE_ROW_TYPES = ("segment", "partition", "topic", "total")


def fields_of(kind: str, schema: Mapping[str, tuple[str, Sequence[Any]]] | None = None
              ) -> list[Field]:
    """The fields of ``kind`` (of :data:`SCHEMA`, or of ``schema``: :data:`METADATA_SCHEMA`),
    in order.  size-report's row kinds share ``total``'s fields."""
    if schema is None or schema is SCHEMA:
        decl = SCHEMA["total" if kind in SIZE_ROW_TYPES else kind]
    else:
        decl = schema[kind]
    return [field(d) for d in decl[1]]


#: A Spark column: (name, Spark SQL type, what it holds).
Column = tuple[str, str, str]

_FROM_DIR = "from the partition directory (Parquet partition columns)"
_SEGMENT = "the segment's base offset, 20 digits (as size-report names it)"
_FILE = "the .log path (which broker's copy)"
_LOG_DIR = ("the log dir holding the partition directory (one broker's log.dirs entry): "
            "replicas of a partition from several brokers stay apart")
_BROKER = "node.id / broker.id of the log dir's meta.properties (null without one)"

#: The rows of ``kdump export``, ``kdump spark export`` and the ``kafka_log`` data source,
#: per level, in column order (kdump/ops/export/rows.py makes the rows; the Spark schema
#: and ``kdump export``'s Arrow schema are built from these; docs/spark.md
#: shows them, generated by :func:`spark_markdown`).  Columns named like a batch or
#: record field hold what that JSON field holds.
SPARK_COLUMNS: dict[str, list[Column]] = {
    "record": [
        ("topic", "string", _FROM_DIR), ("partition", "int", _FROM_DIR),
        ("segment", "string", _SEGMENT), ("file", "string", _FILE),
        ("log_dir", "string", _LOG_DIR), ("broker_id", "int", _BROKER),
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
        ("log_dir", "string", _LOG_DIR), ("broker_id", "int", _BROKER),
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
         "topics, json, schema-registry payloads: {format, schema_id, subject, version, "
         "deleted, message, data}), text otherwise"),
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
_Order = tuple[tuple[str, ...], Callable[[Mapping[str, Any]], tuple[Any, ...]]]
_ORDERS: dict[tuple[str, str | None, tuple[str, ...]], _Order] = {}
_METADATA_ORDERS: dict[tuple[str, str | None, tuple[str, ...]], _Order] = {}


def shape(kind: str, values: Mapping[str, Any], upto: str | None = None) -> dict[str, Any]:
    """The JSON object of type ``kind``: ``type`` first, then the documented fields in
    their documented order, each from ``values`` (with ``upto``: only the fields before
    that one).  An optional field (``name?``) missing from ``values`` is left out; a
    required one missing, or a name that is not documented, is a programming error
    (KeyError).  Values are not type-checked here (this runs per record): the tests
    check the declared types on real output (tests/test_model.py)."""
    key = (kind, upto, tuple(values))
    known = _ORDERS.get(key)
    if known is None:
        known = _ORDERS[key] = _order(fields_of(kind), kind, upto, key[2])
        if len(_ORDERS) > 4096:  # input shapes are few; never let them pile up
            _ORDERS.clear()
    names, get = known
    obj: dict[str, Any] = {"type": kind}
    obj.update(zip(names, get(values), strict=True))
    return obj


def shape_metadata(kind: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`shape` for ``kdump metadata``'s objects (:data:`METADATA_SCHEMA`, a
    namespace of its own); a ``type`` in ``values`` is ignored (the image keeps its
    objects with their type)."""
    given = tuple(k for k in values if k != "type")
    key = (kind, None, given)
    known = _METADATA_ORDERS.get(key)
    if known is None:
        known = _METADATA_ORDERS[key] = _order(fields_of(kind, METADATA_SCHEMA), kind, None,
                                               given)
        if len(_METADATA_ORDERS) > 4096:
            _METADATA_ORDERS.clear()
    names, get = known
    obj: dict[str, Any] = {"type": kind}
    obj.update(zip(names, get(values), strict=True))
    return obj


def _order(fields: list[Field], kind: str, upto: str | None, given: tuple[str, ...]) -> _Order:
    present = set(given)
    names: list[str] = []
    documented = set()
    for f in fields:
        name = f.name
        if name == upto:
            break
        documented.add(name)
        if name in present:
            names.append(name)
        elif not f.optional:
            raise KeyError(f"{kind} object without its field {name!r}")
    extra = present - documented
    if extra:
        raise KeyError(f"{kind} object with undocumented fields {sorted(extra)}")
    if len(names) == 1:
        only = names[0]
        return tuple(names), lambda v: (v[only],)
    return tuple(names), itemgetter(*names) if names else (lambda v: ())


def extra_fields(kind: str, known: Collection[str]) -> list[Field]:
    """The fields of ``kind`` a renderer with its own layout does not draw (``known``:
    the names it does), in model order: what it shows as ``name=value`` so a field
    added to the model is never missing from it."""
    return [f for f in fields_of(kind) if f.name not in known]


def conforms(value: Any, typ: str) -> bool:
    """``value`` (as parsed from JSON) is of the declared type ``typ``."""
    if typ == ANY:
        return True
    base, _, null = typ.partition("|")
    if value is None:
        return null == "null"
    if base == "str":
        return isinstance(value, str)
    if base == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if base == "float":  # JSON numbers: an integral ratio may be written as 2
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if base == "bool":
        return isinstance(value, bool)
    if base == "object":
        return isinstance(value, dict)
    if base == "list":
        return isinstance(value, list)
    return base == ANY


def type_errors(obj: Mapping[str, Any], schema: Mapping[str, tuple[str, Sequence[Any]]] | None
                = None) -> list[str]:
    """What in the JSON object ``obj`` does not match its kind's declared types (and
    names not declared, or required ones missing): empty when it conforms."""
    kind = obj.get("type")
    try:
        fields = fields_of(str(kind), schema)
    except KeyError:
        return [f"undeclared kind {kind!r}"]
    out = []
    declared = {f.name: f for f in fields}
    for name, value in obj.items():
        if name == "type":
            continue
        f = declared.get(name) or declared.get("...")
        if f is None:
            out.append(f"{kind}.{name}: not declared")
        elif not conforms(value, f.type):
            out.append(f"{kind}.{name}: {value!r} is not {f.type}")
    out += [f"{kind}.{f.name}: missing" for f in fields
            if not f.optional and f.name not in obj]
    return out


def untyped_kinds() -> list[str]:
    """Kinds with a field declared without a type (``(name, doc)``): to be typed."""
    out = []
    for schema, prefix in ((SCHEMA, ""), (METADATA_SCHEMA, "metadata ")):
        for kind in schema:
            if any(f.type == ANY and f.name != "..." for f in fields_of(kind, schema)):
                out.append(prefix + kind)
    return sorted(out)


def describe_fields(fields: Sequence[Field], code: str = "`") -> str:
    """``name`` type, ... of ``fields`` for the docs (an untyped field: its name only)."""
    return ", ".join(f"{code}{f[0]}{code}" + ("" if f.type == ANY else f" {f.type}")
                     for f in fields)


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


#: How fields are described, for the README and the man pages.
TYPE_NOTES = (
    "Each field is given with its JSON type: str, int, float, bool, object or list; "
    "|null when it may be null. A field name ending in ? appears only in some objects of "
    "the type (its description says which)."
)


def markdown() -> str:
    """The schema as a Markdown section (the README embeds it; a test checks it)."""
    out = []
    for kind, (what, _) in SCHEMA.items():
        if kind in ("segment", "partition", "topic"):
            continue
        label = "`segment` / `partition` / `topic` / `total`" if kind == "total" else f"`{kind}`"
        names = describe_fields(fields_of(kind))
        out.append(f"- {label}: {what if kind != 'total' else 'size-report rows and total'}. "
                   f"Fields: {names}.")
    out.append("")
    out.append("`kdump metadata` writes objects of its own (its `topic` and `partition` are "
               "not size-report rows):")
    out.append("")
    for kind, (what, _) in METADATA_SCHEMA.items():
        names = describe_fields(fields_of(kind, METADATA_SCHEMA))
        out.append(f"- `{kind}`: {what}. Fields: {names}.")
    out.append("")
    out.append(TYPE_NOTES)
    out.append("")
    out.append(ENCODING_NOTES)
    return "\n".join(out) + "\n"


#: ``kdump metadata``'s objects (a namespace of their own)
_ENDPOINTS = ("endpoints", "list", "[{name, host, port, security_protocol}], by listener name")
_SUMMARY = ("offset, timestamp, target, snapshot, log_segments, gaps, records_applied, "
            "records_failed, complete")
METADATA_SCHEMA: dict[str, tuple[str, Sequence[Declared | Field]]] = {
    "feature": ("a finalized feature (metadata.version included)", [
        ("name", "str", ""), ("level", "int", "feature level")]),
    "broker": ("a registered broker", [
        ("id", "int", ""), ("epoch", "int", "broker epoch"), ("incarnation_id", "str", ""),
        ("fenced", "bool", ""),
        ("in_controlled_shutdown", "bool", ""),
        ("rack", "str|null", "null when none"), _ENDPOINTS,
        ("features", "list", "[{name, min_version, max_version}] supported"),
        ("log_dirs", "list", "directory ids, sorted"),
        ("cordoned_log_dirs", "list|null", "directory ids the broker cordoned (Kafka 4.3+), as "
         "written; null until the broker says (older records)"),
        ("is_migrating_zk_broker", "bool", "")]),
    "controller": ("a controller: its registration and what the quorum's control records say", [
        ("id", "int", ""), ("incarnation_id", "str|null", "null when not registered"),
        ("zk_migration_ready", "bool|null", ""), _ENDPOINTS, ("features", "list", ""),
        ("registered", "bool", "a RegisterControllerRecord exists"),
        ("voter", "bool|null", "in the voters of the latest LeaderChange/Voters record (null: none seen)"),
        ("leader", "bool", "the latest LeaderChange record names it")]),
    "topic": ("a topic", [("name", "str", ""), ("topic_id", "str", ""), ("partitions", "int", "the count")]),
    "partition": ("a partition's registration", [
        ("topic", "str", ""),
        ("topic_id", "str", ""),
        ("partition", "int", ""),
        ("leader", "int", "-1: none"),
        ("leader_epoch", "int", ""),
        ("partition_epoch", "int", ""),
        ("replicas", "list", ""),
        ("isr", "list", ""),
        ("elr", "list", "eligible leader replicas (a ClearElrRecord empties them and bumps "
         "partition_epoch)"), ("last_known_elr", "list", ""),
        ("leader_recovery_state", "str", "RECOVERED or RECOVERING"), ("adding_replicas", "list", ""),
        ("removing_replicas", "list", ""),
        ("directories", "list", "per replica; AAAAAAAAAAAAAAAAAAAAAA = MIGRATING, "
                                "AAAAAAAAAAAAAAAAAAAAAQ = UNASSIGNED")]),
    "config": ("a dynamic config", [
        ("resource_type", "str", "TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP"),
        ("resource_name", "str", "empty: the cluster default"), ("name", "str", ""),
        ("value", "str|null", "null when redacted"),
        ("redacted?", "bool", "true for password-like names: the value is never printed"),
        ("version?", "int", "redacted configs: how many times the value was set")]),
    "quota": ("a client quota", [("entity", "object", "{entity type: name or null (default)}"),
                                 ("key", "str", ""), ("value", "float", "")]),
    "acl": ("an ACL", [("id", "str", ""), ("resource_type", "str", ""), ("resource_name", "str", ""),
                       ("pattern_type", "str", ""), ("principal", "str", ""), ("host", "str", ""),
                       ("operation", "str", ""), ("permission_type", "str", "")]),
    "producer_ids": ("the next producer-id block", [
        ("next_producer_id", "int", ""), ("broker_id", "int", "the broker it went to"),
        ("broker_epoch", "int", "")]),
    "scram_user": ("a SCRAM credential", [
        ("name", "str", ""),
        ("mechanism", "str", "SCRAM-SHA-256 or SCRAM-SHA-512"),
        ("iterations", "int", ""),
        ("credentials", "str", "always \"redacted\": salt and keys are never printed"),
        ("version", "int", "how many times it was set")]),
    "delegation_token": ("a delegation token", [
        ("token_id", "str", ""), ("owner", "str", ""), ("requester", "str", ""), ("renewers", "list", ""),
        ("issue_timestamp", "int", ""), ("max_timestamp", "int", ""), ("expiration_timestamp", "int", ""),
        ("hmac", "str", "always \"redacted\"")]),
    "image": ("closes the image: where it stands and what built it", [
        ("offset", "int|null", "last offset in the image"), ("timestamp", "int|null", "of that record"),
        ("target", "str", "offset N, time T or end"),
        ("snapshot", "object|null", "{file, end_offset, epoch, timestamp} used, or null"),
        ("log_segments", "list", "segments read"), ("skipped_segments", "list", "[{file, why}]"),
        ("log_start_offset", "int|null", ""), ("log_end_offset", "int|null", "last offset read"),
        ("overlap", "object|null", "{first, last}: log offsets also in the snapshot (taken from it)"),
        ("gaps", "list", "[{first, last}]: offsets in no file"), ("records_applied", "int", ""),
        ("records_failed", "int", "records not applied (see the problems)"),
        ("records_by_type", "object", ""), ("records_without_effect", "object", "NO_OP_RECORD ..."),
        ("transactions_committed", "int", ""), ("transactions_aborted", "int", ""),
        ("records_aborted", "int", ""),
        ("pending_transaction", "object|null",
         "{begin_offset, name, records} open at the target, not applied"),
        ("metadata_version", "int|null", ""),
        ("zk_migration_state", "str|null", ""),
        ("kraft_version", "int|null", ""),
        ("leader_id", "int|null", "from the latest LeaderChange record"), ("leader_epoch", "int|null", ""),
        ("voters", "list|null", ""),
        ("quorum_state_file", "object|null", "{file, values}: the quorum-state file, as copied"),
        ("complete", "bool", "no gap and no record failed"), ("topics", "int", ""), ("partitions", "int", ""),
        ("brokers", "int", ""),
        ("cluster_state", "str|null", "running (a registered broker is unfenced and not in "
         "controlled shutdown), stopped (every registered broker is fenced or in controlled "
         "shutdown: the cluster was stopped), null (no broker registered)"),
        ("stopped", "object|null", "when stopped: {timestamp, offset, broker, how (fenced or "
         "in controlled shutdown), text}: the record of the last broker to go down (offset "
         "null: read from the snapshot); text reads \"the cluster was stopped at T (broker N "
         "fenced at offset X)\""),
        ("partitions_without_leader", "int", "partitions whose leader is -1 (when stopped, "
         "they follow from the stop)")]),
    "change": ("--history: one object changed by one record", [
        ("offset", "int|null", "null: loaded from the snapshot"), ("timestamp", "int|null", ""),
        ("record", "str", "the record type"),
        ("committed_at", "int|null", "in a transaction: the END record's offset"),
        ("object", "str", "its type"),
        ("label", "str", "orders/0, broker 1 ..."),
        ("path", "str", "/topics/orders/0"),
        ("action", "str", "created, changed or removed"),
        ("changes", "list", "[{field, from, to}]"), ("text", "str", "leader 1 -> 3, fenced ...")]),
    "history": ("closes --history", [("object", "str|null", "what was asked"), ("changes", "int", "entries"),
                                     ("image", "object", _SUMMARY)]),
    "difference": ("--diff: an object that differs", [
        ("object", "str", "type"),
        ("label", "str", ""),
        ("path", "str", ""),
        ("action", "str", "created, changed, removed"),
        ("changes", "list", "[{field, from, to}]"),
        ("text", "str", ""),
        ("before", "object|null", "the object at A"),
        ("after", "object|null", "the object at B")]),
    "diff": ("closes --diff", [("from", "object", _SUMMARY), ("to", "object", _SUMMARY),
                               ("differences", "int", "count")]),
}

_typed(SCHEMA)
_typed(METADATA_SCHEMA)
