"""Byte layouts, sizes and bit masks of every Kafka on-disk structure: one place.

Every field is big-endian (Kafka writes with ``java.nio.ByteBuffer`` defaults).  Paths
in comments are relative to the root of apache/kafka (trunk, late 2024); the same facts
are collected in ``FORMATS.md`` of the kdump design notes.

Readers never hard-code an offset or a mask: they import it from here.
"""

from __future__ import annotations

import struct
from typing import Final

# ---------------------------------------------------------------------------------------
# Log entry framing, common to every magic.
# clients/src/main/java/org/apache/kafka/common/record/Records.java
# ---------------------------------------------------------------------------------------
OFFSET_OFFSET: Final = 0  # int64 offset: v0/v1 message offset (wrapper: last inner); v2 baseOffset
SIZE_OFFSET: Final = 8  # int32 size: bytes that follow this field
LOG_OVERHEAD: Final = 12  # offset + size
MAGIC_OFFSET: Final = 16  # int8 magic (0, 1, 2); same place in every format
HEADER_SIZE_UP_TO_MAGIC: Final = 17

#: offset int64, size int32 (the first 12 bytes of any entry)
LOG_HEADER: Final = struct.Struct(">qi")

# ---------------------------------------------------------------------------------------
# Legacy messages, magic 0 and 1.
# clients/src/main/java/org/apache/kafka/common/record/LegacyRecord.java
# ---------------------------------------------------------------------------------------
LEGACY_CRC_OFFSET: Final = 12  # uint32 CRC-32 (IEEE) over magic .. end of message
LEGACY_ATTRIBUTES_OFFSET: Final = 17  # int8 attributes
LEGACY_V1_TIMESTAMP_OFFSET: Final = 18  # int64 timestamp (magic 1 only)
LEGACY_V0_KEY_SIZE_OFFSET: Final = 18  # int32 key length, magic 0 (-1 = null)
LEGACY_V1_KEY_SIZE_OFFSET: Final = 26  # int32 key length, magic 1
RECORD_OVERHEAD_V0: Final = 14  # crc 4 + magic 1 + attributes 1 + key length 4 + value length 4
RECORD_OVERHEAD_V1: Final = 22  # RECORD_OVERHEAD_V0 + timestamp 8
LEGACY_COMPRESSION_MASK: Final = 0x07  # attributes bits 0-2: codec
LEGACY_TIMESTAMP_TYPE_MASK: Final = 0x08  # attributes bit 3 (magic 1): 0 CreateTime, 1 LogAppendTime

#: offset int64, size int32, crc uint32, magic int8, attributes int8
LEGACY_HEADER: Final = struct.Struct(">qiIbb")
#: timestamp int64 (magic 1)
INT64: Final = struct.Struct(">q")
INT32: Final = struct.Struct(">i")
INT16: Final = struct.Struct(">h")
UINT32: Final = struct.Struct(">I")
UINT16: Final = struct.Struct(">H")

# ---------------------------------------------------------------------------------------
# Record batch, magic 2.
# clients/src/main/java/org/apache/kafka/common/record/DefaultRecordBatch.java
# ---------------------------------------------------------------------------------------
V2_BASE_OFFSET_OFFSET: Final = 0  # int64 baseOffset
V2_LENGTH_OFFSET: Final = 8  # int32 batchLength: bytes after this field
V2_PARTITION_LEADER_EPOCH_OFFSET: Final = 12  # int32 partitionLeaderEpoch (not under the CRC)
V2_MAGIC_OFFSET: Final = 16  # int8 magic = 2
V2_CRC_OFFSET: Final = 17  # uint32 CRC-32C (Castagnoli) over attributes .. end of batch
V2_ATTRIBUTES_OFFSET: Final = 21  # int16 attributes; the CRC starts here
V2_LAST_OFFSET_DELTA_OFFSET: Final = 23  # int32 lastOffsetDelta
V2_BASE_TIMESTAMP_OFFSET: Final = 27  # int64 baseTimestamp (or deleteHorizonMs, bit 6)
V2_MAX_TIMESTAMP_OFFSET: Final = 35  # int64 maxTimestamp
V2_PRODUCER_ID_OFFSET: Final = 43  # int64 producerId
V2_PRODUCER_EPOCH_OFFSET: Final = 51  # int16 producerEpoch
V2_BASE_SEQUENCE_OFFSET: Final = 53  # int32 baseSequence
V2_RECORDS_COUNT_OFFSET: Final = 57  # int32 recordsCount
V2_RECORDS_OFFSET: Final = 61  # records (compressed as one stream when the codec is not none)
RECORD_BATCH_OVERHEAD: Final = 61  # header size; also the smallest valid batch
V2_MIN_BATCH_LENGTH: Final = RECORD_BATCH_OVERHEAD - LOG_OVERHEAD  # 49

#: the whole 61-byte header:
#: baseOffset q, batchLength i, partitionLeaderEpoch i, magic b, crc I, attributes h,
#: lastOffsetDelta i, baseTimestamp q, maxTimestamp q, producerId q, producerEpoch h,
#: baseSequence i, recordsCount i
V2_HEADER: Final = struct.Struct(">qiibIhiqqqhii")

# Batch attributes (int16; only the low byte is used).  DefaultRecordBatch.java
V2_COMPRESSION_MASK: Final = 0x07  # bits 0-2: codec id (CompressionType.java)
V2_TIMESTAMP_TYPE_MASK: Final = 0x08  # bit 3: 0 CreateTime, 1 LogAppendTime
V2_TRANSACTIONAL_FLAG: Final = 0x10  # bit 4
V2_CONTROL_FLAG: Final = 0x20  # bit 5: records are control records
V2_DELETE_HORIZON_FLAG: Final = 0x40  # bit 6: baseTimestamp holds deleteHorizonMs (KIP-534)

# Record inside a v2 batch.  clients/src/main/java/org/apache/kafka/common/record/DefaultRecord.java
#   length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
#   keyLength varint | key | valueLength varint | value | headerCount varint |
#   headers: (keyLength varint, key, valueLength varint, value)*
MAX_RECORD_OVERHEAD: Final = 21  # 5 length + 1 attributes + 10 timestampDelta + 5 offsetDelta

# ---------------------------------------------------------------------------------------
# Codecs.  clients/src/main/java/org/apache/kafka/common/record/CompressionType.java
# ---------------------------------------------------------------------------------------
CODEC_NONE: Final = 0
CODEC_GZIP: Final = 1
CODEC_SNAPPY: Final = 2
CODEC_LZ4: Final = 3
CODEC_ZSTD: Final = 4
#: CompressionType.name, as DumpLogSegments prints it (``compresscodec: none``)
CODEC_NAMES: Final = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}

# snappy-java stream framing (org.xerial.snappy.SnappyOutputStream):
#   magic 8 bytes, int32 version, int32 min compatible version, then [int32 length, block]*
XERIAL_MAGIC: Final = b"\x82SNAPPY\x00"
XERIAL_HEADER_SIZE: Final = 16

# LZ4 frame.  clients/src/main/java/org/apache/kafka/common/compress/Lz4BlockInputStream.java
LZ4_MAGIC: Final = b"\x04\x22\x4d\x18"  # 0x184D2204 little-endian
LZ4_FLG_VERSION_MASK: Final = 0xC0  # bits 7-6: version, must be 01
LZ4_FLG_BLOCK_INDEPENDENCE: Final = 0x20
LZ4_FLG_BLOCK_CHECKSUM: Final = 0x10
LZ4_FLG_CONTENT_SIZE: Final = 0x08
LZ4_FLG_CONTENT_CHECKSUM: Final = 0x04
LZ4_FLG_DICT_ID: Final = 0x01  # reserved in Kafka's reader
LZ4_BD_BLOCK_SIZE_MASK: Final = 0x70  # bits 6-4: 4 -> 64 KiB ... 7 -> 4 MiB
LZ4_BLOCK_UNCOMPRESSED: Final = 0x80000000  # size word bit 31: block stored as is
LZ4_BLOCK_SIZES: Final = {4: 1 << 16, 5: 1 << 18, 6: 1 << 20, 7: 1 << 22}

GZIP_MAGIC: Final = b"\x1f\x8b"
ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"

# ---------------------------------------------------------------------------------------
# Timestamp types.  clients/src/main/java/org/apache/kafka/common/record/TimestampType.java
# (the names are TimestampType.toString, printed by DumpLogSegments)
# ---------------------------------------------------------------------------------------
NO_TIMESTAMP_TYPE: Final = "NoTimestampType"
CREATE_TIME: Final = "CreateTime"
LOG_APPEND_TIME: Final = "LogAppendTime"
NO_TIMESTAMP: Final = -1  # RecordBatch.NO_TIMESTAMP
NO_SEQUENCE: Final = -1  # RecordBatch.NO_SEQUENCE
NO_PRODUCER_ID: Final = -1
NO_PRODUCER_EPOCH: Final = -1
NO_PARTITION_LEADER_EPOCH: Final = -1
INT32_MAX: Final = 0x7FFFFFFF

# ---------------------------------------------------------------------------------------
# Control records (v2 batches with the control flag).
# clients/src/main/java/org/apache/kafka/common/record/ControlRecordType.java,
# EndTransactionMarker.java
#   key:   int16 version, int16 type          (at least 4 bytes)
#   value: int16 version, int32 coordinatorEpoch   (ABORT / COMMIT)
#   value: generated message body, flexible   (KRaft types 2-6, no version prefix)
# ---------------------------------------------------------------------------------------
CONTROL_KEY: Final = struct.Struct(">hh")
END_TXN_MARKER_VALUE: Final = struct.Struct(">hi")
CONTROL_ABORT: Final = 0
CONTROL_COMMIT: Final = 1
CONTROL_LEADER_CHANGE: Final = 2
CONTROL_SNAPSHOT_HEADER: Final = 3
CONTROL_SNAPSHOT_FOOTER: Final = 4
CONTROL_KRAFT_VERSION: Final = 5
CONTROL_KRAFT_VOTERS: Final = 6
#: ControlRecordType's names, by type id: the one place they are spelled
CONTROL_TYPES: Final = {
    CONTROL_ABORT: "ABORT",
    CONTROL_COMMIT: "COMMIT",
    CONTROL_LEADER_CHANGE: "LEADER_CHANGE",
    CONTROL_SNAPSHOT_HEADER: "SNAPSHOT_HEADER",
    CONTROL_SNAPSHOT_FOOTER: "SNAPSHOT_FOOTER",
    CONTROL_KRAFT_VERSION: "KRAFT_VERSION",
    CONTROL_KRAFT_VOTERS: "KRAFT_VOTERS",
}

# ---------------------------------------------------------------------------------------
# Offset index (.index): entries of relativeOffset int32, position int32.
# storage/src/main/java/org/apache/kafka/storage/internals/log/OffsetIndex.java
# Time index (.timeindex): timestamp int64, relativeOffset int32.   TimeIndex.java
# ---------------------------------------------------------------------------------------
OFFSET_INDEX_ENTRY: Final = struct.Struct(">ii")
OFFSET_INDEX_ENTRY_SIZE: Final = 8
TIME_INDEX_ENTRY: Final = struct.Struct(">qi")
TIME_INDEX_ENTRY_SIZE: Final = 12
#: log.index.size.max.bytes default (ServerLogConfigs.java): preallocated size of an
#: active segment's index files, rounded down to a whole number of entries
DEFAULT_MAX_INDEX_SIZE: Final = 10 * 1024 * 1024
#: index.interval.bytes default
DEFAULT_INDEX_INTERVAL_BYTES: Final = 4096

# ---------------------------------------------------------------------------------------
# Transaction index (.txnindex): 34-byte entries.
# storage/src/main/java/org/apache/kafka/storage/internals/log/AbortedTxn.java
#   version int16, producerId int64, firstOffset int64, lastOffset int64, lastStableOffset int64
# ---------------------------------------------------------------------------------------
TXN_INDEX_ENTRY: Final = struct.Struct(">hqqqq")
TXN_INDEX_ENTRY_SIZE: Final = 34

# ---------------------------------------------------------------------------------------
# Producer state snapshot (.snapshot).
# storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java,
# storage/src/main/resources/message/ProducerSnapshot.json (version 1, not flexible)
#   version int16, crc uint32 (CRC-32C over byte 6 .. end), count int32, entries
#   entry: producerId int64, epoch int16, lastSequence int32, lastOffset int64,
#          offsetDelta int32, timestamp int64, coordinatorEpoch int32,
#          currentTxnFirstOffset int64
# ---------------------------------------------------------------------------------------
SNAPSHOT_HEADER: Final = struct.Struct(">hIi")
SNAPSHOT_HEADER_SIZE: Final = 10
SNAPSHOT_CRC_START: Final = 6  # PRODUCER_ENTRIES_OFFSET
SNAPSHOT_ENTRY: Final = struct.Struct(">qhiqiqiq")
SNAPSHOT_ENTRY_SIZE: Final = 46
SNAPSHOT_VERSIONS: Final = (1,)  # ProducerSnapshot.json validVersions

# ---------------------------------------------------------------------------------------
# File names.  storage/.../log/LogFileUtils.java, core/.../log/LocalLog.scala,
# raft/src/main/java/org/apache/kafka/snapshot/Snapshots.java
# ---------------------------------------------------------------------------------------
OFFSET_DIGITS: Final = 20  # segment base offset, zero padded
EPOCH_DIGITS: Final = 10  # KRaft snapshot epoch, zero padded
LOG_SUFFIX: Final = ".log"
INDEX_SUFFIX: Final = ".index"
TIME_INDEX_SUFFIX: Final = ".timeindex"
TXN_INDEX_SUFFIX: Final = ".txnindex"
PRODUCER_SNAPSHOT_SUFFIX: Final = ".snapshot"
KRAFT_SNAPSHOT_SUFFIX: Final = ".checkpoint"
DELETED_SUFFIX: Final = ".deleted"
CLEANED_SUFFIX: Final = ".cleaned"
SWAP_SUFFIX: Final = ".swap"
PART_SUFFIX: Final = ".part"
BOOTSTRAP_CHECKPOINT: Final = "bootstrap.checkpoint"
#: the files a broker keeps at a log dir's root (4.3: MetaPropertiesEnsemble.META_PROPERTIES_NAME,
#: LogManager.RECOVERY_POINT_CHECKPOINT_FILE / LOG_START_OFFSET_CHECKPOINT_FILE /
#: LOCK_FILE_NAME, ReplicaManager.HighWatermarkFilename, LogCleanerManager.OFFSET_CHECKPOINT_FILE,
#: CleanShutdownFileHandler.CLEAN_SHUTDOWN_FILE_NAME): a directory holding one is a log dir
LOG_DIR_FILES: Final = frozenset({
    "meta.properties", "recovery-point-offset-checkpoint", "replication-offset-checkpoint",
    "log-start-offset-checkpoint", "cleaner-offset-checkpoint", ".kafka_cleanshutdown", ".lock",
})
