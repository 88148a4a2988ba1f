"""Problems found in the data: corruption is data, not an exception.

Every :class:`Problem` names the file, the absolute byte position where the bad batch
or region starts, the batch base offset when known, a stable ``kind`` and a human
``detail``.  ``severity`` decides the exit code: ``error`` and ``warning`` mean
"something is wrong" (exit 1); ``info`` notes something benign (a half-written batch
at the end of a live segment).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Final


class _Named(str, Enum):
    """An enum member that is its value wherever a str goes: f-strings, ``str()``, JSON,
    comparisons with plain strings."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class Severity(_Named):
    """How bad a finding is: ``error`` and ``warning`` make the exit code 1."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


ERROR: Final = Severity.ERROR
WARNING: Final = Severity.WARNING
INFO: Final = Severity.INFO

#: The exit rule, written once: a finding of these severities makes every command exit 1
#: (``Problem.is_failure``; kdump/cli/options.run applies it to every command's objects,
#: docs/exit-status.md); ``info`` never does.  An unreadable input is exit 2 instead.
FAILING_SEVERITIES: Final = frozenset({ERROR, WARNING})

#: every problem kind kdump reports, with what it means (documented in docs/findings.md)
KINDS: Final[dict[str, str]] = {
    # framing: the walker cannot find a batch where one should start
    "bad-length": "a batch header's size field is impossible (below the minimum, or past "
    "the end while intact batches follow); the bytes up to the next intact batch are unreadable",
    "bad-magic": "a batch header's magic byte is not 0, 1 or 2",
    "zeroed-region": "a run of zero bytes inside the log, followed by intact batches",
    "zero-tail": "the log ends in zero bytes (preallocated file, or an unclean shutdown)",
    "truncated": "the last batch is cut short by the end of the file",
    "in-flight": "the last batch of the active segment is still being written",
    "data-lost": "offsets the partition's witnesses prove written (high watermark, recovery "
    "point, log start offset, leader epochs, index entries, producer snapshot and segment "
    "names, .txnindex; for a partition gone whose current leader epoch this broker led, "
    "another replica's batches of that epoch) that no batch on disk holds: `lost_offsets` "
    "[first, last] and the `witnesses` naming them",
    "trailing-bytes": "bytes at the end too short to hold a batch header",
    "no-batch": "a file named like a segment in which not one batch can be framed: it holds "
    "no Kafka data",
    # integrity of a framed batch
    "crc-mismatch": "the stored checksum does not match the batch (v2 CRC-32C, v0/v1 CRC-32)",
    "inner-crc-mismatch": "a message inside a compressed v0/v1 wrapper fails its CRC-32",
    "decompression-error": "the compressed records cannot be decompressed",
    "batch-too-large": "the batch decompresses past --max-batch-bytes; its records are not read",
    "record-too-large": "a record expands to more objects than --max-batch-bytes allows, "
    "at 32 bytes each (its batch's headers, or the elements of an internal topic's decoded "
    "message); it is not read: raise --max-batch-bytes to read it",
    "invalid-record": "a record inside the batch does not parse",
    "record-count": "the batch header's records count disagrees with the records present",
    "offset-delta": "record offset deltas are not ascending from 0 to lastOffsetDelta",
    "timestamp-range": "a record timestamp lies outside [firstTimestamp, maxTimestamp]",
    "max-timestamp": "the batch maxTimestamp is not the largest record timestamp",
    "offset-order": "a batch's base offset is not above the previous batch's last offset",
    "offset-gap": "offsets jump between consecutive batches (normal after compaction)",
    "below-segment-base": "a batch's base offset is below the segment's base offset",
    "unreadable-batch": "size-report: a batch whose records cannot be read (decompression, "
    "damage); its records are not counted (records_exact false)",
    "invalid-control": "a control record's key or value is malformed",
    "unreadable-file": "the file cannot be read (permission, I/O error)",
    "unknown-file": "a file kdump does not know; skipped",
    # indexes and other files
    "index-size": "an index file's size is not a multiple of its entry size",
    "index-order": "index entries are not ascending",
    "index-mismatch": "an index entry does not point where it claims",
    "index-position": "an index entry points outside its log",
    "index-zero-slots": "preallocated zero entries at the end of an index",
    "index-sanity": "the index fails the check the broker runs at startup",
    "index-missing": "a segment has no index file",
    "orphan-index": "an index file without its .log (the broker deletes it at startup)",
    "index-differs": "the index on disk differs from the one Kafka would rebuild",
    "txn-index": "a .txnindex entry disagrees with the log",
    "snapshot-crc": "a producer snapshot's CRC-32C does not match",
    "snapshot-corrupt": "a producer snapshot does not parse",
    "snapshot-mismatch": "a producer snapshot entry disagrees with the log",
    "leader-epoch": "the leader-epoch-checkpoint disagrees with the batches' leader epochs",
    "checkpoint": "a checkpoint file does not parse or disagrees with the partitions",
    "assigned-absent": "the KRaft metadata assigns a partition to this log dir's broker and "
    "the log dir holds no directory of it: a warning when the metadata pins the replica to "
    "this log dir and counts it in sync, information otherwise; never offsets lost by "
    "itself (the checkpoints' data-lost says those)",
    "bad-file": "a small metadata file does not parse",
    # tiered storage (a remote storage among the inputs, with __remote_log_metadata)
    "remote-segment": "what __remote_log_metadata says about a remote segment (info)",
    "remote-segment-unknown": "no __remote_log_metadata record names the remote segment",
    "remote-segment-missing": "__remote_log_metadata says COPY_SEGMENT_FINISHED and the "
    "segment's .log is not in the remote storage",
    "remote-segment-deleted": "a remote segment's files are still there after "
    "DELETE_SEGMENT_STARTED/FINISHED",
    "remote-metadata-mismatch": "__remote_log_metadata's start offset or size disagrees with "
    "the remote segment's file name or .log",
    # kdump metadata
    "metadata-record": "a KRaft metadata record does not decode (unknown type, newer version, "
    "damage): it is not applied, or applied as read",
    "metadata-apply": "a metadata record Kafka's apply rules refuse (unknown topic or partition, "
    "broker epoch mismatch, transaction markers out of place): not applied",
    "metadata-gap": "metadata offsets in no snapshot and no segment: the image lacks them",
    "metadata-snapshot": "a KRaft snapshot without header or footer, or damaged",
    "metadata-target": "the --at-offset/--at-time target is outside the records",
    # the cluster as the metadata image shows it (kdump metadata, kdump report)
    "cluster-stopped": "every registered broker is fenced or in controlled shutdown in the "
    "image: the cluster was stopped (info); its partitions without a leader follow from the "
    "stop",
    "partition-offline": "a partition has no leader (leader -1) while a registered broker is "
    "unfenced",
    "partition-under-replicated": "a partition's ISR is smaller than its replicas while the "
    "cluster runs",
    "broker-fenced": "a registered broker is fenced or in controlled shutdown while another "
    "is unfenced",
    # kdump report: replicas, transactions
    "replica-diverged": "replicas of a partition hold different batches at the same offsets",
    "replica-lagging": "a replica of a partition ends before another (it was behind when copied)",
    "node-twice": "two log dirs of one cluster claim the same node id and are not one broker's "
    "JBOD dirs (they hold the same partitions, or the same directory.id): two copies or two "
    "runs of one node, never compared as replicas of each other",
    "replica-topic-ids": "replicas of a partition name different topic ids in partition.metadata: "
    "different partitions of a topic deleted and made again under its name, compared apart",
    "several-clusters": "the inputs hold log dirs of several clusters (cluster.ids): never "
    "replicas of each other; the report's cluster section shows one cluster's metadata log, "
    "naming the others",
    "hanging-transaction": "a transaction with no marker, open longer than "
    "transaction.max.timeout.ms (15 minutes) by the partition's own clock",
    # schema registry (kdump/schemaregistry)
    "schema-registry": "a record of the schema registry's topic (_schemas) or a schema file "
    "that is not a schema: skipped",
    # kdump retention
    "future-timestamp": "a segment's largest timestamp is later than the time the verdicts are "
    "for: time retention keeps it, and every segment after it, until that timestamp + "
    "retention.ms (the batch holding it is named)",
    "schema-id-unknown": "records of a topic whose keys or values are schema-framed (a subject "
    "for that side, ids the registry holds, or schema-id headers) name an id the registry's "
    "storage does not hold",
    "schema-deleted-in-use": "records name a schema id whose every version was deleted "
    "(soft or hard) in the registry's storage",
}


#: what each kind is argued from: the Kafka class or behaviour that makes it a problem
#: (Kafka's source names; kdump's own bounds say so).  Same keys, same order as KINDS
#: (tests/house/test_findings_kinds.py); docs/findings.md's and man/kdump.1's tables come from both.
ARGUED_FROM: Final[dict[str, str]] = {
    "bad-length": "FileLogInputStream.nextBatch: a size below LegacyRecord.RECORD_OVERHEAD_V0 "
    "is a CorruptRecordException; LogSegment.recover truncates from there",
    "bad-magic": "ByteBufferLogInputStream.nextBatch: \"Invalid magic found in record\" "
    "(CorruptRecordException)",
    "zeroed-region": "LogSegment.recover stops at the first invalid batch and truncates the "
    "rest: the intact batches after the zeros would be lost",
    "zero-tail": "LogSegment.recover truncates invalid bytes at the end; file.preallocate "
    "segments are zero-filled past their data",
    "truncated": "FileLogInputStream.nextBatch: a batch running past the end of the file is "
    "not returned; LogSegment.recover truncates it",
    "in-flight": "FileRecords.append on the active segment of a live broker: its last batch may "
    "not be whole yet",
    "data-lost": "UnifiedLog.updateHighWatermarkMetadata (the high watermark never passes the "
    "log end), LogLoader.recoverLog (the recovery point), LogLoader."
    "deleteSegmentsIfLogStartGreaterThanLogEnd, LogSegment.append (index entries only for "
    "batches written), ProducerStateManager.takeSnapshot (named at the log end), UnifiedLog.roll "
    "(a segment is named at the log end: delete-policy segments are contiguous), "
    "UnifiedLog.appendAsLeader (a batch's partitionLeaderEpoch is its leader's: appended there "
    "first)",
    "trailing-bytes": "FileLogInputStream.nextBatch: fewer than HEADER_SIZE_UP_TO_MAGIC bytes "
    "left end the log",
    "no-batch": "FileLogInputStream.nextBatch returns no batch; LogSegment.recover truncates "
    "the file to 0 bytes",
    "crc-mismatch": "DefaultRecordBatch.isValid (CRC-32C from the attributes on), "
    "LegacyRecord.isValid (CRC-32)",
    "inner-crc-mismatch": "AbstractLegacyRecordBatch's deep iterator: LegacyRecord.ensureValid "
    "on each inner message",
    "decompression-error": "Compression.wrapForInput / DefaultRecordBatch.compressedIterator: "
    "a KafkaException on undecodable data",
    "batch-too-large": "kdump's --max-batch-bytes bound (Kafka's message.max.bytes limits a "
    "stored batch to 1 MiB by default)",
    "record-too-large": "kdump's --max-batch-bytes bound on decoded objects",
    "invalid-record": "DefaultRecord.readFrom / readHeaders: InvalidRecordException (\"Found "
    "invalid record structure\", \"invalid number of record headers\")",
    "record-count": "DefaultRecordBatch's record iterator: \"Incorrect declared batch size\", "
    "\"Found invalid record count\" (InvalidRecordException)",
    "offset-delta": "DefaultRecordBatch: each record's offsetDelta from baseOffset, "
    "lastOffsetDelta the last one (LogValidator assigns 0..count-1)",
    "timestamp-range": "DefaultRecordBatch: record timestamps are firstTimestamp + "
    "timestampDelta, and maxTimestamp bounds them",
    "max-timestamp": "LogValidator: a CreateTime batch's maxTimestamp is its largest record "
    "timestamp",
    "offset-order": "UnifiedLog.append: offsets increase monotonically "
    "(OffsetsOutOfOrderException)",
    "offset-gap": "LogCleaner keeps each record's offset and drops records: gaps are normal "
    "in a compacted topic",
    "below-segment-base": "LogSegment: a segment holds the offsets from its baseOffset (its "
    "file name) on",
    "unreadable-batch": "the batch's records do not read (a decompression or record fault, "
    "named by verify-crc)",
    "invalid-control": "ControlRecordType.parse, EndTransactionMarker.deserializeValue, "
    "ControlRecordUtils: the control key and value layouts",
    "unreadable-file": "the operating system: open or read failed",
    "unknown-file": "LogLoader knows a log dir's files by their suffixes (.log, .index, "
    ".timeindex, .txnindex, .snapshot, checkpoints)",
    "index-size": "OffsetIndex / TimeIndex.sanityCheck: \"Index file ... is corrupt, found "
    "... bytes\" (CorruptIndexException)",
    "index-order": "OffsetIndex / TimeIndex.append: entries only increase "
    "(InvalidOffsetException)",
    "index-mismatch": "DumpLogSegments --verify-index-only: \"Index offset\" against \"log "
    "offset\"",
    "index-position": "OffsetIndex entries are byte positions in the segment's .log",
    "index-zero-slots": "AbstractIndex preallocates segment.index.bytes and trims to the used "
    "entries (trimToValidSize) when the segment is closed",
    "index-sanity": "OffsetIndex / TimeIndex.sanityCheck, run by LogLoader at startup "
    "(CorruptIndexException: the broker rebuilds the index)",
    "index-missing": "LogLoader / LogSegment.sanityCheck: a missing index is rebuilt "
    "(LogSegment.recover)",
    "orphan-index": "LogLoader.loadSegmentFiles: \"Found an orphaned index file\", deleted",
    "index-differs": "LogSegment.recover: the .index, .timeindex and .txnindex it rebuilds "
    "from the batches",
    "txn-index": "TransactionIndex, filled by ProducerStateManager from the ABORT markers "
    "(lastStableOffset)",
    "snapshot-crc": "ProducerStateManager.readSnapshot: \"Snapshot is corrupt (CRC is no "
    "longer valid)\" (CorruptSnapshotException)",
    "snapshot-corrupt": "ProducerStateManager.readSnapshot: CorruptSnapshotException (version, "
    "schema)",
    "snapshot-mismatch": "ProducerStateManager.takeSnapshot: each producer's state at the "
    "snapshot's offset",
    "leader-epoch": "LeaderEpochFileCache.assign, as LogSegment.recover applies it to the "
    "batches' partitionLeaderEpoch, compared from the log start offset on "
    "(LeaderEpochFileCache.truncateFromStart, as LogLoader applies it)",
    "checkpoint": "CheckpointFile's format (version, count, entries) and the partitions the "
    "log dir holds",
    "assigned-absent": "ReplicaManager.applyDelta creates an assigned replica's log "
    "(Partition.createLogIfNotExists, LogManager.getOrCreateLog) and the checkpoints name it "
    "(ReplicaManager.checkpointHighWatermarks); PartitionRecord.directories (KIP-858) pins it "
    "to a log dir; a new partition's ISR is its live replicas (ReplicationControlManager."
    "createTopic)",
    "bad-file": "MetaProperties (meta.properties) and PartitionMetadataFile "
    "(partition.metadata) formats",
    "remote-segment": "RemoteLogSegmentMetadata records of __remote_log_metadata",
    "remote-segment-unknown": "RemoteLogManager: a remote segment exists through its "
    "RemoteLogSegmentMetadata",
    "remote-segment-missing": "RemoteLogSegmentState.COPY_SEGMENT_FINISHED: the segment is in "
    "the remote storage",
    "remote-segment-deleted": "RemoteLogSegmentState.DELETE_SEGMENT_STARTED / "
    "DELETE_SEGMENT_FINISHED: the segment's files are being or have been removed",
    "remote-metadata-mismatch": "RemoteLogSegmentMetadata.startOffset and "
    "segmentSizeInBytes",
    "metadata-record": "MetadataRecordSerde and the generated metadata records: the types and "
    "versions a controller writes",
    "metadata-apply": "MetadataDelta.replay and its TopicsDelta, ClusterDelta, ... rules",
    "metadata-gap": "MetadataLoader: an image is a snapshot plus every record after it",
    "metadata-snapshot": "RecordsSnapshotReader: SnapshotHeaderRecord first, SnapshotFooterRecord "
    "last",
    "metadata-target": "kdump's --at-offset / --at-time",
    "cluster-stopped": "ReplicationControlManager.handleBrokerFenced / "
    "handleBrokerInControlledShutdown: a stopping broker is fenced "
    "(BrokerRegistrationChangeRecord fenced=1, FenceBrokerRecord before metadata.version "
    "3.3-IV2: MetadataVersion.isBrokerRegistrationChangeRecordSupported) after its "
    "leaderships moved; a partition with no other ISR replica is left "
    "with leader -1",
    "partition-offline": "PartitionRegistration.leader: NO_LEADER (-1) means no replica serves "
    "the partition (LeaderConstants)",
    "partition-under-replicated": "PartitionRegistration.isr against replicas: a replica out "
    "of the ISR (ReplicationControlManager shrinks the ISR of a fenced broker)",
    "broker-fenced": "BrokerHeartbeatManager: a broker whose session timed out, or that asked "
    "to shut down, is fenced (ReplicationControlManager.maybeFenceOneStaleBroker, "
    "processBrokerHeartbeat)",
    "replica-diverged": "kdump compare-replicas: Kafka's followers truncate to the leader's "
    "epoch end offset (ReplicaFetcherThread); batches that differ at one offset were "
    "written under different leaders",
    "replica-lagging": "kdump compare-replicas: a follower fetches behind its leader "
    "(replica.lag.time.max.ms decides when it leaves the ISR)",
    "node-twice": "MetaPropertiesEnsemble.verify: one node's log dirs share its node.id and "
    "cluster.id, each with its own directory.id (KIP-858 JBOD); LogManager.loadLogs refuses "
    "a partition in two log dirs of one broker (\"Duplicate log directories for\")",
    "replica-topic-ids": "PartitionMetadataFile holds a partition's topic id; a broker looks "
    "its log up by that id (BrokerMetadataPublisher.initializeManagers -> "
    "newImage.topics.partitionReplicas(log.topicId, ...), LogManager.isStrayReplica, 4.3): a "
    "log of another id is not that partition",
    "several-clusters": "MetaPropertiesEnsemble.verify (3.9-4.3): the cluster.id \"must be the "
    "same in all directories\" of a node; in ZooKeeper mode KafkaServer.startup refuses a log "
    "dir of another cluster than ZooKeeper's (InconsistentClusterIdException, 2.4-3.6; "
    "MetaPropertiesEnsemble.verify with ZooKeeper's cluster id, 3.7-3.9)",
    "hanging-transaction": "TransactionCoordinator aborts a transaction older than its "
    "transaction.timeout.ms (transaction.max.timeout.ms bounds it): a partition still open "
    "after that is hanging (kafka-transactions.sh find-hanging)",
    "schema-registry": "the schema registry's storage (SchemaRegistryKey / SchemaKey / "
    "SchemaValue, JSON records of its Kafka topic): a record not of that form is not a schema",
    "future-timestamp": "UnifiedLog.deleteRetentionMsBreachedSegments: startMs - "
    "segment.largestTimestamp > retentionMs, walking from the oldest segment and stopping at "
    "the first it keeps (4.1+ logs \"contains future timestamp(s), making it ineligible to be "
    "deleted\")",
    "schema-id-unknown": "Confluent's deserializers look the id up in the registry "
    "(AbstractKafkaSchemaSerDe.lookupSchemaBySubjectAndId): an id it does not hold fails "
    "to deserialize",
    "schema-deleted-in-use": "the registry's SchemaValue deleted flag and tombstones "
    "(KafkaStoreMessageHandler): a consumer without the schema cached cannot read the "
    "records",
}


def kinds_markdown() -> str:
    """The kinds as a Markdown table (docs/findings.md embeds it; tests/house/test_findings_kinds.py
    checks it is this)."""
    rows = ["| kind | what it means | argued from (Kafka) |", "|---|---|---|"]
    rows += [f"| `{k}` | {what} | {ARGUED_FROM[k]} |" for k, what in KINDS.items()]
    return "\n".join(rows) + "\n"

#: the kinds as an enum built from :data:`KINDS` (``Kind("bad-length")``,
#: ``Kind.BAD_LENGTH``): a kind that is not documented cannot be made
Kind: type[_Named] = _Named(  # type: ignore[call-overload]
    "Kind", {k.upper().replace("-", "_"): k for k in KINDS},
    module=__name__, qualname="Kind")


@dataclass(slots=True)
class Problem:
    """One finding.  ``length``: bytes affected, when a byte range is."""

    path: str
    position: int | None
    kind: str
    detail: str
    base_offset: int | None = None
    length: int | None = None
    severity: str = ERROR
    #: structured details for JSON output (e.g. ``index_offset``/``log_offset``)
    extra: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        # kinds and severities are those of the documented tables (ValueError otherwise:
        # tests/house/test_findings_kinds.py keeps every kind kdump makes in KINDS)
        self.kind = Kind(self.kind)
        self.severity = Severity(self.severity)

    @property
    def is_failure(self) -> bool:
        """This finding makes the run exit 1 (:data:`FAILING_SEVERITIES`)."""
        return self.severity in FAILING_SEVERITIES


def finding_key(path: str | None, position: int | None, kind: str, base_offset: int | None,
                detail: str) -> tuple[Any, ...]:
    """What makes two findings one: a finding about bytes is the same finding when two
    checks report it at the same place (verify-crc and verify-index frame the same
    batches, in their own words); a finding about no bytes (a partition without a leader,
    a schema id) by what it says.  ``kdump report`` counts, and its page lists, each
    finding once by this key."""
    if position is None:
        return (path, None, str(kind), detail)
    return (path, position, str(kind), base_offset)
