"""KRaft ``__cluster_metadata``: metadata records (schemas written from Kafka's JSON
descriptions, encoded with tests/support/message_writer.py), metadata log segments and
snapshot ``.checkpoint`` files."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any, BinaryIO

import crc32c

from tests.support.batches import (
    Rec,
    kraft_control_batch,
    snapshot_footer_value,
    snapshot_header_value,
    v2_batch,
)
from tests.support.encoding import (
    CONTROL_SNAPSHOT_FOOTER,
    CONTROL_SNAPSHOT_HEADER,
    DEFAULT_TIMESTAMP,
    NONE,
    uuid_str,
    uvarint,
)

# --------------------------------------------------------------------------------------------
# KRaft __cluster_metadata: metadata records, log segments and snapshot .checkpoint files
# --------------------------------------------------------------------------------------------
# Record schemas written again from metadata/src/main/resources/common/metadata/*.json
# (apache/kafka trunk, 2024-10-25) and encoded with tests/support/message_writer.py; frame:
# MetadataRecordSerde (uvarint frame version 1, uvarint api key, uvarint version, body).

METADATA_DESCRIPTIONS = """
RegisterBrokerRecord versions=0-3 flexible=0+ apiKey=0 typeName=REGISTER_BROKER_RECORD
  brokerId int32
  isMigratingZkBroker bool v=2+ default=false
  incarnationId uuid
  brokerEpoch int64
  endPoints []
    name string
    host string
    port uint16
    securityProtocol int16
  features []
    name string
    minSupportedVersion int16
    maxSupportedVersion int16
  rack string null=0+
  fenced bool default=true
  inControlledShutdown bool v=1+ default=false
  logDirs []uuid v=3+ tag=0 tagv=3+

UnregisterBrokerRecord versions=0 flexible=0+ apiKey=1 typeName=UNREGISTER_BROKER_RECORD
  brokerId int32
  brokerEpoch int64

TopicRecord versions=0 flexible=0+ apiKey=2 typeName=TOPIC_RECORD
  name string
  topicId uuid

PartitionRecord versions=0-2 flexible=0+ apiKey=3 typeName=PARTITION_RECORD
  partitionId int32 default=-1
  topicId uuid
  replicas []int32
  isr []int32
  removingReplicas []int32
  addingReplicas []int32
  leader int32 default=-1
  leaderRecoveryState int8 default=0 tag=0 tagv=0+
  leaderEpoch int32 default=-1
  partitionEpoch int32 default=-1
  directories []uuid v=1+
  eligibleLeaderReplicas []int32 v=2+ null=2+ tag=1 tagv=2+ default=null
  lastKnownElr []int32 v=2+ null=2+ tag=2 tagv=2+ default=null

ConfigRecord versions=0 flexible=0+ apiKey=4 typeName=CONFIG_RECORD
  resourceType int8
  resourceName string
  name string
  value string null=0+

PartitionChangeRecord versions=0-2 flexible=0+ apiKey=5 typeName=PARTITION_CHANGE_RECORD
  partitionId int32 default=-1
  topicId uuid
  isr []int32 null=0+ tag=0 tagv=0+ default=null
  leader int32 default=-2 tag=1 tagv=0+
  replicas []int32 null=0+ tag=2 tagv=0+ default=null
  removingReplicas []int32 null=0+ tag=3 tagv=0+ default=null
  addingReplicas []int32 null=0+ tag=4 tagv=0+ default=null
  leaderRecoveryState int8 default=-1 tag=5 tagv=0+
  directories []uuid v=1+ null=1+ tag=8 tagv=1+ default=null
  eligibleLeaderReplicas []int32 v=2+ null=2+ tag=6 tagv=2+ default=null
  lastKnownElr []int32 v=2+ null=2+ tag=7 tagv=2+ default=null

FenceBrokerRecord versions=0 flexible=0+ apiKey=7 typeName=FENCE_BROKER_RECORD
  id int32
  epoch int64

UnfenceBrokerRecord versions=0 flexible=0+ apiKey=8 typeName=UNFENCE_BROKER_RECORD
  id int32
  epoch int64

RemoveTopicRecord versions=0 flexible=0+ apiKey=9 typeName=REMOVE_TOPIC_RECORD
  topicId uuid

DelegationTokenRecord versions=0 flexible=0+ apiKey=10 typeName=DELEGATION_TOKEN_RECORD
  owner string
  requester string
  renewers []string
  issueTimestamp int64
  maxTimestamp int64
  expirationTimestamp int64
  tokenId string

UserScramCredentialRecord versions=0 flexible=0+ apiKey=11 typeName=USER_SCRAM_CREDENTIAL_RECORD
  name string
  mechanism int8
  salt bytes
  storedKey bytes
  serverKey bytes
  iterations int32

FeatureLevelRecord versions=0 flexible=0+ apiKey=12 typeName=FEATURE_LEVEL_RECORD
  name string
  featureLevel int16

ClientQuotaRecord versions=0 flexible=0+ apiKey=14 typeName=CLIENT_QUOTA_RECORD
  entity []
    entityType string
    entityName string null=0+
  key string
  value float64
  remove bool

ProducerIdsRecord versions=0 flexible=0+ apiKey=15 typeName=PRODUCER_IDS_RECORD
  brokerId int32
  brokerEpoch int64 default=-1
  nextProducerId int64

BrokerRegistrationChangeRecord versions=0-2 flexible=0+ apiKey=17 \
typeName=BROKER_REGISTRATION_CHANGE_RECORD
  brokerId int32
  brokerEpoch int64
  fenced int8 tag=0 tagv=0+
  inControlledShutdown int8 v=1+ tag=1 tagv=1+
  logDirs []uuid v=2+ tag=2 tagv=2+

AccessControlEntryRecord versions=0 flexible=0+ apiKey=18 typeName=ACCESS_CONTROL_ENTRY_RECORD
  id uuid
  resourceType int8
  resourceName string
  patternType int8
  principal string
  host string
  operation int8
  permissionType int8

RemoveAccessControlEntryRecord versions=0 flexible=0+ apiKey=19 \
typeName=REMOVE_ACCESS_CONTROL_ENTRY_RECORD
  id uuid

NoOpRecord versions=0 flexible=0+ apiKey=20 typeName=NO_OP_RECORD

ZkMigrationStateRecord versions=0 flexible=0+ apiKey=21 typeName=ZK_MIGRATION_STATE_RECORD
  zkMigrationState int8

RemoveUserScramCredentialRecord versions=0 flexible=0+ apiKey=22 \
typeName=REMOVE_USER_SCRAM_CREDENTIAL_RECORD
  name string
  mechanism int8

BeginTransactionRecord versions=0 flexible=0+ apiKey=23 typeName=BEGIN_TRANSACTION_RECORD
  name string null=0+ tag=0 tagv=0+ default=null

EndTransactionRecord versions=0 flexible=0+ apiKey=24 typeName=END_TRANSACTION_RECORD

AbortTransactionRecord versions=0 flexible=0+ apiKey=25 typeName=ABORT_TRANSACTION_RECORD
  reason string null=0+ tag=0 tagv=0+ default=null

RemoveDelegationTokenRecord versions=0 flexible=0+ apiKey=26 typeName=REMOVE_DELEGATION_TOKEN_RECORD
  tokenId string

RegisterControllerRecord versions=0 flexible=0+ apiKey=27 typeName=REGISTER_CONTROLLER_RECORD
  controllerId int32
  incarnationId uuid
  zkMigrationReady bool
  endPoints []
    name string
    host string
    port uint16
    securityProtocol int16
  features []
    name string
    minSupportedVersion int16
    maxSupportedVersion int16
"""

_META_SCHEMAS: dict[str, Any] | None = None


def metadata_schemas() -> dict[str, Any]:
    """Every metadata record schema (parsed once), by name."""
    global _META_SCHEMAS
    if _META_SCHEMAS is None:
        from tests.support import message_writer as sw
        _META_SCHEMAS = sw.parse_many(METADATA_DESCRIPTIONS)
    return _META_SCHEMAS


def metadata_record(name: str, values: dict[str, Any] | None = None, *,
                    version: int | None = None, api_key: int | None = None) -> bytes:
    """A framed metadata record value: ``metadata_record("TopicRecord", {...})``.
    ``version`` defaults to the newest; ``api_key`` overrides the schema's (unknown types)."""
    from tests.support import message_writer as sw
    schema = metadata_schemas()[name]
    v = schema.valid[1] if version is None else version
    body = sw.encode(schema, values or {}, min(v, schema.valid[1]))
    key = schema.api_key if api_key is None else api_key
    return uvarint(1) + uvarint(key) + uvarint(v) + body


def uuid_of(n: int) -> str:
    """A deterministic Kafka Uuid text (URL-safe base64, no padding) for test ids."""
    return uuid_str(struct.pack(">QQ", 0x1000 + n, 0xABCDEF00 + n))


class MetadataLogWriter:
    """Writes a ``__cluster_metadata-0`` directory: batches of metadata records (and
    KRaft control batches) with consecutive offsets, rolling segments at
    ``segment_bytes`` or on :meth:`roll`.  Files are written as batches come, so
    large logs stream to disk (benchmarks)."""

    def __init__(self, directory: Path, *, segment_bytes: int = 1 << 30,
                 leader_epoch: int = 1) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.segment_bytes = segment_bytes
        self.leader_epoch = leader_epoch
        self.next_offset = 0
        self._file: BinaryIO | None = None
        self._size = 0
        self.segments: list[int] = []

    def _out(self, size: int) -> BinaryIO:
        if self._file is None or (self._size and self._size + size > self.segment_bytes):
            self.roll()
        assert self._file is not None
        return self._file

    def roll(self) -> None:
        if self._file is not None:
            self._file.close()
        self.segments.append(self.next_offset)
        self._file = open(self.directory / f"{self.next_offset:020d}.log", "wb")
        self._size = 0

    def append(self, records: list[bytes], *, timestamp: int = DEFAULT_TIMESTAMP,
               codec: int = NONE, crc: int | None = None) -> int:
        """One batch of framed metadata records; returns its base offset."""
        base = self.next_offset
        data = v2_batch([Rec(None, r, timestamp=timestamp) for r in records], base_offset=base,
                        partition_leader_epoch=self.leader_epoch, codec=codec,
                        first_timestamp=timestamp, crc=crc)
        self._out(len(data)).write(data)
        self._size += len(data)
        self.next_offset += len(records)
        return base

    def append_encoded(self, batch: bytes, count: int, *, timestamp: int) -> int:
        """A batch from :func:`v2_batch` (any base offset and timestamp) moved to the next
        offset and to ``timestamp`` (every record at that time), its CRC recomputed:
        benchmarks write large logs from a few encoded batches."""
        base = self.next_offset
        data = bytearray(batch)
        struct.pack_into(">q", data, 0, base)
        struct.pack_into(">qq", data, 27, timestamp, timestamp)
        struct.pack_into(">I", data, 17, crc32c.crc32c(bytes(data[21:])))
        self._out(len(data)).write(data)
        self._size += len(data)
        self.next_offset += count
        return base

    def control(self, records: list[tuple[int, bytes]], *,
                timestamp: int = DEFAULT_TIMESTAMP) -> int:
        base = self.next_offset
        data = kraft_control_batch(records, base_offset=base,
                                   partition_leader_epoch=self.leader_epoch, timestamp=timestamp)
        self._out(len(data)).write(data)
        self._size += len(data)
        self.next_offset += len(records)
        return base

    def skip(self, n: int) -> None:
        """Leave ``n`` offsets out (a gap: what a lost segment looks like)."""
        self.next_offset += n

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def metadata_snapshot(path: Path, records: list[bytes], *, timestamp: int = DEFAULT_TIMESTAMP,
                      epoch: int = 1, per_batch: int = 100) -> None:
    """A KRaft snapshot file: header control batch, the records, footer control batch
    (offsets from 0, as a snapshot numbers them)."""
    parts = [kraft_control_batch([(CONTROL_SNAPSHOT_HEADER, snapshot_header_value(timestamp))],
                                 base_offset=0, partition_leader_epoch=epoch, timestamp=timestamp)]
    off = 1
    for i in range(0, len(records), per_batch):
        chunk = records[i:i + per_batch]
        parts.append(v2_batch([Rec(None, r, timestamp=timestamp) for r in chunk],
                              base_offset=off, partition_leader_epoch=epoch,
                              first_timestamp=timestamp))
        off += len(chunk)
    parts.append(kraft_control_batch([(CONTROL_SNAPSHOT_FOOTER, snapshot_footer_value())],
                                     base_offset=off, partition_leader_epoch=epoch,
                                     timestamp=timestamp))
    Path(path).write_bytes(b"".join(parts))
