"""Kafka's on-disk record definitions, release by release, as data (Kafka 3.9-4.4).

Every record a 3.9-4.4 broker or controller keeps on disk is described once, in
:data:`DEFINITIONS` below, in kdump's own compact notation: coordinator keys and values
of ``__consumer_offsets`` (family ``group``), ``__share_group_state`` (``share``) and
``__transaction_state`` (``transaction``), KRaft metadata records (``metadata``) and
KRaft control records (``control``).  The facts come from the JSON message definitions
of Kafka's release branches 3.9, 4.0, 4.1, 4.2, 4.3 and 4.4 (directories named per
family below; 3.9 has no ``share-coordinator`` module: no ``__share_group_state``); the
text here is kdump's, nothing is copied.  A new Kafka release is a change
to this text (a field, a version, a new layout line), not to code.

Notation
--------
``## <family> <Kafka source directory>`` opens a family.  A record is a header line::

    <role> <type> <Name> v<valid> flex<flexible> <releases> [v<N>@<release> ...] [unstable@<release>]

``role`` is ``key``, ``value`` or ``record`` (metadata / control records have one
body); ``type`` is the record type (the key's int16 for coordinator records, the api
key for metadata records, the control type for control records); ``v0-4`` the valid
versions, ``flex4+`` / ``flex-`` the flexible ones; ``releases`` the Kafka lines that
define the record with *this layout* (``4.0``, ``4.1+``, ``3.9-4.0``); ``v4@4.3`` says
version 4 first appears in Kafka 4.3; ``unstable@4.3`` that the highest version is
``latestVersionUnstable`` there (none is, in 3.9-4.4).  Layouts of one type are listed
oldest release first.  When one type has two header lines whose release ranges do not
overlap, the layouts differ *at the same version* (the 4.0 and 4.1 share-group layouts;
3.9's and 4.0's ShareGroupPartitionMetadataValue, type 9): :mod:`kdump.decoders.release`
picks one from the evidence.  Compatible changes (a new tagged field) are not a new
layout: the field is annotated with the release that added it (``+4.0`` on 4.0's tagged
fields of TransactionLogValue, which 3.9 lacks) and read in every release.

Fields follow, indented two spaces per struct level::

    <Name>:<type> [v<versions>] [null<versions>] [tag<N>@<versions>] [=<default>] [in<a,b,..>] [+<release>]

``v`` defaults to ``0+`` (to the tagged versions for a tagged field, as in Kafka);
``=null`` is Kafka's string default ``"null"`` only: a JSON ``"default": null`` (a JSON
null, as ConsumerGroupMemberMetadataValue's ClassicMemberMetadata and the
AssignmentEpochs / LastAssignmentConfigs of 4.2-4.4 declare it) is no default at all,
since Kafka's generator reads it as a Java null and FieldSpec's constructor makes that
``""`` (the empty array or struct): their generated JsonConverter prints a null and
leaves ``[]`` (an empty struct) out;
``in`` lists the values an enum-like integer may take (a record holding another value
does not fit the layout); ``+4.1`` says the field was added in Kafka 4.1.  A struct
field's members are the indented lines below it; a struct type with no lines below
refers to a ``struct <Name>`` block given earlier in the same family.

Unstable versions: a JSON definition may mark its highest version
``latestVersionUnstable`` (written only by brokers with unstable features enabled).
kdump includes such a version when its layout is known and says "unstable in X.Y" on
each record read with it (``unstable@X.Y`` in the header).  No on-disk record of the
3.9-4.4 lines is so marked.

Size: over 600 lines because it is the data: one line per field of the ~130
record layouts of six release lines, kept in one place on purpose (a new Kafka release
is an edit here); the code that reads it is the last ~200 lines.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from kdump.protocol.messages import Field, Schema, SchemaError

__all__ = [
    "DEFINITIONS",
    "FAMILIES",
    "RELEASES",
    "KafkaVersion",
    "RecordDef",
    "Releases",
    "definitions",
    "release_key",
    "schema_table",
]

#: the Kafka release lines these definitions cover, oldest first
RELEASES: tuple[str, ...] = ("3.9", "4.0", "4.1", "4.2", "4.3", "4.4")

#: family -> the Kafka source directory of its JSON definitions (from the ``##`` lines)
FAMILIES: dict[str, str] = {}

DEFINITIONS = """
## group group-coordinator/src/main/resources/common/message
struct TopicMetadata
  TopicId:uuid
  TopicName:string
  NumPartitions:int32
  PartitionMetadata:[]PartitionMetadata
    Partition:int32
    Racks:[]string
struct TopicPartition
  TopicId:uuid
  Partitions:[]int32
struct ConsumerTopicPartitions
  TopicId:uuid
  Partitions:[]int32
  AssignmentEpochs:[]int32 null0+ tag0@0+ +4.3
struct TopicPartitionsInfo
  TopicId:uuid
  TopicName:string
  Partitions:[]int32
struct TopicInfo
  TopicId:uuid
  TopicName:string
struct TargetTaskIds
  SubtopologyId:string
  Partitions:[]int32
struct TaskIds
  SubtopologyId:string
  Partitions:[]int32
  AssignmentEpochs:[]int32 null0+ tag0@0+ +4.2
struct StreamsTopicInfo
  Name:string
  Partitions:int32
  ReplicationFactor:int16
  TopicConfigs:[]TopicConfig
    key:string
    value:string

key 0 LegacyOffsetCommitKey v0 flex- 3.9+
  group:string
  topic:string
  partition:int32
value 0 OffsetCommitValue v0-4 flex4+ 3.9-4.0
  offset:int64
  leaderEpoch:int32 v3+ =-1
  metadata:string
  commitTimestamp:int64
  expireTimestamp:int64 v1 =-1
value 0 LegacyOffsetCommitValue v0 flex- 4.1+
  offset:int64
  metadata:string
  commitTimestamp:int64
key 1 OffsetCommitKey v0 flex- 3.9+
  group:string
  topic:string
  partition:int32
value 1 OffsetCommitValue v0-4 flex4+ 3.9+
  offset:int64
  leaderEpoch:int32 v3+ =-1
  metadata:string
  commitTimestamp:int64
  expireTimestamp:int64 v1 =-1
  topicId:uuid v4+ tag0@4+ +4.1
key 2 GroupMetadataKey v0 flex- 3.9+
  group:string
value 2 GroupMetadataValue v0-4 flex4+ 3.9+
  protocolType:string
  generation:int32
  protocol:string null0+
  leader:string null0+
  currentStateTimestamp:int64 v2+ =-1
  members:[]MemberMetadata
    memberId:string
    groupInstanceId:string v3+ null3+ =null
    clientId:string
    clientHost:string
    rebalanceTimeout:int32 v1+ =-1
    sessionTimeout:int32
    subscription:bytes
    assignment:bytes
key 3 ConsumerGroupMetadataKey v0 flex- 3.9+
  GroupId:string
value 3 ConsumerGroupMetadataValue v0 flex0+ 3.9+
  Epoch:int32
  MetadataHash:int64 tag0@0+ =0 +4.1
key 4 ConsumerGroupPartitionMetadataKey v0 flex- 3.9+
  GroupId:string
value 4 ConsumerGroupPartitionMetadataValue v0 flex0+ 3.9+
  Topics:[]TopicMetadata
key 5 ConsumerGroupMemberMetadataKey v0 flex- 3.9+
  GroupId:string
  MemberId:string
value 5 ConsumerGroupMemberMetadataValue v0 flex0+ 3.9+
  InstanceId:string null0+
  RackId:string null0+
  ClientId:string
  ClientHost:string
  SubscribedTopicNames:[]string
  SubscribedTopicRegex:string null0+
  RebalanceTimeoutMs:int32 =-1
  ServerAssignor:string null0+
  ClassicMemberMetadata:ClassicMemberMetadata null0+ tag0@0+
    SessionTimeoutMs:int32
    SupportedProtocols:[]ClassicProtocol
      Name:string
      Metadata:bytes
key 6 ConsumerGroupTargetAssignmentMetadataKey v0 flex- 3.9+
  GroupId:string
value 6 ConsumerGroupTargetAssignmentMetadataValue v0 flex0+ 3.9+
  AssignmentEpoch:int32
  AssignmentTimestamp:int64 tag0@0+ =0 +4.3
key 7 ConsumerGroupTargetAssignmentMemberKey v0 flex- 3.9+
  GroupId:string
  MemberId:string
value 7 ConsumerGroupTargetAssignmentMemberValue v0 flex0+ 3.9+
  TopicPartitions:[]TopicPartition
key 8 ConsumerGroupCurrentMemberAssignmentKey v0 flex- 3.9+
  GroupId:string
  MemberId:string
value 8 ConsumerGroupCurrentMemberAssignmentValue v0 flex0+ 3.9+
  MemberEpoch:int32
  PreviousMemberEpoch:int32
  State:int8 in0,1,2,127
  AssignedPartitions:[]ConsumerTopicPartitions
  PartitionsPendingRevocation:[]ConsumerTopicPartitions
key 9 ShareGroupPartitionMetadataKey v0 flex- 3.9-4.0
  GroupId:string
value 9 ShareGroupPartitionMetadataValue v0 flex0+ 3.9
  InitializedTopics:[]TopicPartitionsInfo
  DeletingTopics:[]TopicInfo
value 9 ShareGroupPartitionMetadataValue v0 flex0+ 4.0
  Topics:[]TopicMetadata
key 10 ShareGroupMemberMetadataKey v0 flex- 3.9+
  GroupId:string
  MemberId:string
value 10 ShareGroupMemberMetadataValue v0 flex0+ 3.9+
  RackId:string null0+
  ClientId:string
  ClientHost:string
  SubscribedTopicNames:[]string
key 11 ShareGroupMetadataKey v0 flex- 3.9+
  GroupId:string
value 11 ShareGroupMetadataValue v0 flex0+ 3.9-4.0
  Epoch:int32
value 11 ShareGroupMetadataValue v0 flex0+ 4.1+
  Epoch:int32
  MetadataHash:int64
key 12 ShareGroupTargetAssignmentMetadataKey v0 flex- 4.0+
  GroupId:string
value 12 ShareGroupTargetAssignmentMetadataValue v0 flex0+ 4.0+
  AssignmentEpoch:int32
  AssignmentTimestamp:int64 tag0@0+ =0 +4.3
key 13 ShareGroupTargetAssignmentMemberKey v0 flex- 4.0+
  GroupId:string
  MemberId:string
value 13 ShareGroupTargetAssignmentMemberValue v0 flex0+ 4.0+
  TopicPartitions:[]TopicPartition
key 14 ShareGroupCurrentMemberAssignmentKey v0 flex- 4.0+
  GroupId:string
  MemberId:string
value 14 ShareGroupCurrentMemberAssignmentValue v0 flex0+ 4.0+
  MemberEpoch:int32
  PreviousMemberEpoch:int32
  State:int8 in0,1,2,127
  AssignedPartitions:[]TopicPartition
key 15 ShareGroupStatePartitionMetadataKey v0 flex- 4.0+
  GroupId:string
value 15 ShareGroupStatePartitionMetadataValue v0 flex0+ 4.0
  InitializedTopics:[]TopicPartitionsInfo
  DeletingTopics:[]TopicInfo
value 15 ShareGroupStatePartitionMetadataValue v0 flex0+ 4.1+
  InitializingTopics:[]TopicPartitionsInfo
  InitializedTopics:[]TopicPartitionsInfo
  DeletingTopics:[]TopicInfo
key 16 ConsumerGroupRegularExpressionKey v0 flex- 4.0+
  GroupId:string
  RegularExpression:string
value 16 ConsumerGroupRegularExpressionValue v0 flex0+ 4.0+
  Topics:[]string
  Version:int64
  Timestamp:int64
key 17 StreamsGroupMetadataKey v0 flex- 4.1+
  GroupId:string
value 17 StreamsGroupMetadataValue v0 flex0+ 4.1+
  Epoch:int32
  MetadataHash:int64
  ValidatedTopologyEpoch:int32 tag0@0+ =-1 +4.2
  LastAssignmentConfigs:[]LastAssignmentConfig null0+ tag1@0+ +4.2
    Key:string
    Value:string
  StoredDescriptionTopologyEpoch:int32 tag2@0+ =-1 +4.4
  FailedDescriptionTopologyEpoch:int32 tag3@0+ =-1 +4.4
key 19 StreamsGroupMemberMetadataKey v0 flex- 4.1+
  GroupId:string
  MemberId:string
value 19 StreamsGroupMemberMetadataValue v0 flex0+ 4.1+
  InstanceId:string null0+
  RackId:string null0+
  ClientId:string
  ClientHost:string
  RebalanceTimeoutMs:int32 =-1
  TopologyEpoch:int32
  ProcessId:string
  UserEndpoint:Endpoint null0+ =null
    Host:string
    Port:uint16
  ClientTags:[]KeyValue
    Key:string
    Value:string
key 20 StreamsGroupTargetAssignmentMetadataKey v0 flex- 4.1+
  GroupId:string
value 20 StreamsGroupTargetAssignmentMetadataValue v0 flex0+ 4.1+
  AssignmentEpoch:int32
  AssignmentTimestamp:int64 tag0@0+ =0 +4.3
key 21 StreamsGroupTargetAssignmentMemberKey v0 flex- 4.1+
  GroupId:string
  MemberId:string
value 21 StreamsGroupTargetAssignmentMemberValue v0 flex0+ 4.1+
  ActiveTasks:[]TargetTaskIds
  StandbyTasks:[]TargetTaskIds
  WarmupTasks:[]TargetTaskIds
key 22 StreamsGroupCurrentMemberAssignmentKey v0 flex- 4.1+
  GroupId:string
  MemberId:string
value 22 StreamsGroupCurrentMemberAssignmentValue v0 flex0+ 4.1+
  MemberEpoch:int32
  PreviousMemberEpoch:int32
  State:int8
  ActiveTasks:[]TaskIds
  StandbyTasks:[]TaskIds
  WarmupTasks:[]TaskIds
  ActiveTasksPendingRevocation:[]TaskIds
  StandbyTasksPendingRevocation:[]TaskIds
  WarmupTasksPendingRevocation:[]TaskIds
key 23 StreamsGroupTopologyKey v0 flex- 4.1+
  GroupId:string
value 23 StreamsGroupTopologyValue v0 flex0+ 4.1+
  Epoch:int32
  Subtopologies:[]Subtopology
    SubtopologyId:string
    SourceTopics:[]string
    SourceTopicRegex:[]string
    StateChangelogTopics:[]StreamsTopicInfo
    RepartitionSinkTopics:[]string
    RepartitionSourceTopics:[]StreamsTopicInfo
    CopartitionGroups:[]CopartitionGroup
      SourceTopics:[]int16
      SourceTopicRegex:[]int16
      RepartitionSourceTopics:[]int16

## share share-coordinator/src/main/resources/common/message
struct StateBatch
  FirstOffset:int64
  LastOffset:int64
  DeliveryState:int8 in0,1,2,4
  DeliveryCount:int16

key 0 ShareSnapshotKey v0 flex- 4.0+
  GroupId:string
  TopicId:uuid
  Partition:int32
value 0 ShareSnapshotValue v0 flex0+ 4.0
  SnapshotEpoch:uint16
  StateEpoch:int32
  LeaderEpoch:int32
  StartOffset:int64
  StateBatches:[]StateBatch
value 0 ShareSnapshotValue v0 flex0+ 4.1+
  SnapshotEpoch:int32
  StateEpoch:int32
  LeaderEpoch:int32
  StartOffset:int64
  DeliveryCompleteCount:int32 tag0@0+ =-1 +4.2
  CreateTimestamp:int64
  WriteTimestamp:int64
  StateBatches:[]StateBatch
key 1 ShareUpdateKey v0 flex- 4.0+
  GroupId:string
  TopicId:uuid
  Partition:int32
value 1 ShareUpdateValue v0 flex0+ 4.0
  SnapshotEpoch:uint16
  LeaderEpoch:int32
  StartOffset:int64
  StateBatches:[]StateBatch
value 1 ShareUpdateValue v0 flex0+ 4.1+
  SnapshotEpoch:int32
  LeaderEpoch:int32
  StartOffset:int64
  DeliveryCompleteCount:int32 tag0@0+ =-1 +4.2
  StateBatches:[]StateBatch

## transaction transaction-coordinator/src/main/resources/common/message
key 0 TransactionLogKey v0 flex- 3.9+
  TransactionalId:string
value 0 TransactionLogValue v0-1 flex1+ 3.9+
  ProducerId:int64
  PreviousProducerId:int64 tag0@1+ =-1 +4.0
  NextProducerId:int64 tag1@1+ =-1 +4.0
  ProducerEpoch:int16
  NextProducerEpoch:int16 tag3@1+ =-1 +4.1
  TransactionTimeoutMs:int32
  TransactionStatus:int8 in0,1,2,3,4,5,6,7
  TransactionPartitions:[]PartitionsSchema null0+
    Topic:string
    PartitionIds:[]int32
  TransactionLastUpdateTimestampMs:int64
  TransactionStartTimestampMs:int64
  ClientTransactionVersion:int16 tag2@1+ =0 +4.0

## metadata metadata/src/main/resources/common/metadata
struct Endpoint
  Name:string
  Host:string
  Port:uint16
  SecurityProtocol:int16
struct Feature
  Name:string
  MinSupportedVersion:int16
  MaxSupportedVersion:int16

record 0 RegisterBrokerRecord v0-4 flex0+ 3.9+ v4@4.3
  BrokerId:int32
  IsMigratingZkBroker:bool v2+ =false
  IncarnationId:uuid
  BrokerEpoch:int64
  EndPoints:[]Endpoint
  Features:[]Feature
  Rack:string null0+
  Fenced:bool =true
  InControlledShutdown:bool v1+ =false
  LogDirs:[]uuid v3+ tag0@3+
  CordonedLogDirs:[]uuid v4+ null4+ tag1@4+ =null +4.3
record 1 UnregisterBrokerRecord v0 flex0+ 3.9+
  BrokerId:int32
  BrokerEpoch:int64
record 2 TopicRecord v0 flex0+ 3.9+
  Name:string
  TopicId:uuid
record 3 PartitionRecord v0-2 flex0+ 3.9+
  PartitionId:int32 =-1
  TopicId:uuid
  Replicas:[]int32
  Isr:[]int32
  RemovingReplicas:[]int32
  AddingReplicas:[]int32
  Leader:int32 =-1
  LeaderRecoveryState:int8 tag0@0+ =0
  LeaderEpoch:int32 =-1
  PartitionEpoch:int32 =-1
  Directories:[]uuid v1+
  EligibleLeaderReplicas:[]int32 v2+ null2+ tag1@2+ =null
  LastKnownElr:[]int32 v2+ null2+ tag2@2+ =null
record 4 ConfigRecord v0 flex0+ 3.9+
  ResourceType:int8
  ResourceName:string
  Name:string
  Value:string null0+
record 5 PartitionChangeRecord v0-2 flex0+ 3.9+
  PartitionId:int32 =-1
  TopicId:uuid
  Isr:[]int32 null0+ tag0@0+ =null
  Leader:int32 tag1@0+ =-2
  Replicas:[]int32 null0+ tag2@0+ =null
  RemovingReplicas:[]int32 null0+ tag3@0+ =null
  AddingReplicas:[]int32 null0+ tag4@0+ =null
  LeaderRecoveryState:int8 tag5@0+ =-1
  Directories:[]uuid v1+ null1+ tag8@1+ =null
  EligibleLeaderReplicas:[]int32 v2+ null2+ tag6@2+ =null
  LastKnownElr:[]int32 v2+ null2+ tag7@2+ =null
record 7 FenceBrokerRecord v0 flex0+ 3.9+
  Id:int32
  Epoch:int64
record 8 UnfenceBrokerRecord v0 flex0+ 3.9+
  Id:int32
  Epoch:int64
record 9 RemoveTopicRecord v0 flex0+ 3.9+
  TopicId:uuid
record 10 DelegationTokenRecord v0 flex0+ 3.9+
  Owner:string
  Requester:string
  Renewers:[]string
  IssueTimestamp:int64
  MaxTimestamp:int64
  ExpirationTimestamp:int64
  TokenId:string
record 11 UserScramCredentialRecord v0 flex0+ 3.9+
  Name:string
  Mechanism:int8
  Salt:bytes
  StoredKey:bytes
  ServerKey:bytes
  Iterations:int32
record 12 FeatureLevelRecord v0 flex0+ 3.9+
  Name:string
  FeatureLevel:int16
record 14 ClientQuotaRecord v0 flex0+ 3.9+
  Entity:[]EntityData
    EntityType:string
    EntityName:string null0+
  Key:string
  Value:float64
  Remove:bool
record 15 ProducerIdsRecord v0 flex0+ 3.9+
  BrokerId:int32
  BrokerEpoch:int64 =-1
  NextProducerId:int64
record 17 BrokerRegistrationChangeRecord v0-3 flex0+ 3.9+ v3@4.3
  BrokerId:int32
  BrokerEpoch:int64
  Fenced:int8 tag0@0+
  InControlledShutdown:int8 v1+ tag1@1+
  LogDirs:[]uuid v2+ tag2@2+
  CordonedLogDirs:[]uuid v3+ null3+ tag3@3+ =null +4.3
record 18 AccessControlEntryRecord v0 flex0+ 3.9+
  Id:uuid
  ResourceType:int8
  ResourceName:string
  PatternType:int8
  Principal:string
  Host:string
  Operation:int8
  PermissionType:int8
record 19 RemoveAccessControlEntryRecord v0 flex0+ 3.9+
  Id:uuid
record 20 NoOpRecord v0 flex0+ 3.9+
record 21 ZkMigrationStateRecord v0 flex0+ 3.9+
  ZkMigrationState:int8
record 22 RemoveUserScramCredentialRecord v0 flex0+ 3.9+
  Name:string
  Mechanism:int8
record 23 BeginTransactionRecord v0 flex0+ 3.9+
  Name:string null0+ tag0@0+ =null
record 24 EndTransactionRecord v0 flex0+ 3.9+
record 25 AbortTransactionRecord v0 flex0+ 3.9+
  Reason:string null0+ tag0@0+ =null
record 26 RemoveDelegationTokenRecord v0 flex0+ 3.9+
  TokenId:string
record 27 RegisterControllerRecord v0 flex0+ 3.9+
  ControllerId:int32
  IncarnationId:uuid
  ZkMigrationReady:bool
  EndPoints:[]Endpoint
  Features:[]Feature
record 28 ClearElrRecord v0 flex0+ 4.0+
  TopicName:string
record 29 UnregisterControllerRecord v0 flex0+ 4.4+
  ControllerId:int32

## control clients/src/main/resources/common/message
struct Voter
  VoterId:int32
  VoterDirectoryId:uuid v1+

record 2 LeaderChangeMessage v0-1 flex0+ 3.9+
  Version:int16
  LeaderId:int32
  Voters:[]Voter
  GrantingVoters:[]Voter
record 3 SnapshotHeaderRecord v0 flex0+ 3.9+
  Version:int16
  LastContainedLogTimestamp:int64
record 4 SnapshotFooterRecord v0 flex0+ 3.9+
  Version:int16
record 5 KRaftVersionRecord v0 flex0+ 3.9+
  Version:int16
  KRaftVersion:int16
record 6 VotersRecord v0 flex0+ 3.9+
  Version:int16
  Voters:[]Voter
    VoterId:int32
    VoterDirectoryId:uuid
    Endpoints:[]Endpoint
      Name:string
      Host:string
      Port:uint16
    KRaftVersionFeature:KRaftVersionFeature
      MinSupportedVersion:int16
      MaxSupportedVersion:int16
"""


# ----------------------------------------------------------------------------- releases


@dataclass(frozen=True, order=True, slots=True)
class KafkaVersion:
    """A Kafka release line, ``X.Y``: the one way kdump parses and orders a release
    (``--kafka-version`` of every command, retention's rules, the layouts' release
    lines).  ``X.Y.Z`` parses to its line (a bugfix release changes no layout or rule)."""

    major: int
    minor: int

    @classmethod
    def parse(cls, text: str) -> KafkaVersion:
        """``"3.9"``, ``"4.1.2"`` -> the release line; :class:`SchemaError` otherwise."""
        parts = str(text).strip().split(".")
        if len(parts) in (2, 3) and all(p.isdigit() for p in parts):
            return cls(int(parts[0]), int(parts[1]))
        raise SchemaError(f"bad Kafka release {text!r} (expected MAJOR.MINOR, e.g. 4.1)")

    def at_least(self, other: str | KafkaVersion) -> bool:
        return self >= (other if isinstance(other, KafkaVersion) else KafkaVersion.parse(other))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"


@functools.lru_cache(maxsize=256)
def release_key(release: str) -> tuple[int, int]:
    """``"4.1"`` -> ``(4, 1)``, for ordering (:class:`KafkaVersion`); :class:`SchemaError`
    when not a release."""
    v = KafkaVersion.parse(release)
    return v.major, v.minor


@dataclass(frozen=True, slots=True)
class Releases:
    """A range of Kafka release lines; ``hi`` None means "and later"."""

    lo: str
    hi: str | None

    @staticmethod
    def parse(spec: str) -> Releases:
        if spec.endswith("+"):
            release_key(spec[:-1])
            return Releases(spec[:-1], None)
        if "-" in spec:
            lo, hi = spec.split("-", 1)
            release_key(lo)
            release_key(hi)
            return Releases(lo, hi)
        release_key(spec)
        return Releases(spec, spec)

    def __contains__(self, release: str) -> bool:
        k = release_key(release)
        if k < release_key(self.lo):
            return False
        return self.hi is None or k <= release_key(self.hi)

    def __str__(self) -> str:
        if self.hi is None:
            return f"{self.lo}+"
        if self.hi == self.lo:
            return self.lo
        return f"{self.lo}-{self.hi}"


# ----------------------------------------------------------------------------- records


@dataclass(frozen=True)
class RecordDef:
    """One layout of one record: the schema and the release lines that define it."""

    family: str
    role: str
    record_type: int
    schema: Schema
    releases: Releases
    #: version -> first Kafka release that writes it (versions not listed: ``releases.lo``)
    introduced: tuple[tuple[int, str], ...] = ()
    #: the release where the highest version is ``latestVersionUnstable`` (None: stable)
    unstable_in: str | None = None
    #: (path of json names, allowed values) of enum-like integer fields
    enums: tuple[tuple[tuple[str, ...], frozenset[int]], ...] = ()
    #: (path of json names, release that added it) of fields added by a later release
    added: tuple[tuple[tuple[str, ...], str], ...] = ()

    @property
    def label(self) -> str:
        """``"ShareSnapshotValue (Kafka 4.1+)"``."""
        return f"{self.schema.name} (Kafka {self.releases})"

    def version_introduced(self, version: int) -> str:
        for v, rel in self.introduced:
            if v == version:
                return rel
        return self.releases.lo


def _split_versions(word: str, prefix: str) -> str:
    return word[len(prefix):]


class _Parser:
    """Turns :data:`DEFINITIONS` into :class:`RecordDef` objects."""

    def __init__(self, text: str) -> None:
        self.lines = [ln.rstrip() for ln in text.splitlines()]
        self.pos = 0
        self.defs: list[RecordDef] = []
        self.structs: dict[str, tuple[tuple[Field, ...], tuple[tuple[tuple[str, ...], frozenset[int]], ...],
                                      tuple[tuple[tuple[str, ...], str], ...]]] = {}
        self.family = ""

    def error(self, message: str) -> SchemaError:
        return SchemaError(f"kdump definitions, line {self.pos}: {message}")

    def parse(self) -> list[RecordDef]:
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            self.pos += 1
            if not line.strip():
                continue
            words = line.split()
            if words[0] == "##":
                self.family = words[1]
                self.structs = {}
                FAMILIES[self.family] = words[2]
            elif words[0] == "struct":
                self.structs[words[1]] = self.fields(2, ())
            elif words[0] in ("key", "value", "record"):
                self.record(words)
            else:
                raise self.error(f"unexpected {line!r}")
        return self.defs

    def record(self, words: list[str]) -> None:
        role, rtype, name, valid, flexible, releases, *extra = words
        if not valid.startswith("v") or not flexible.startswith("flex"):
            raise self.error(f"bad record header {' '.join(words)!r}")
        flex = flexible[4:]
        introduced: list[tuple[int, str]] = []
        unstable: str | None = None
        for w in extra:
            if w.startswith("unstable@"):
                unstable = w[len("unstable@"):]
            elif w.startswith("v") and "@" in w:
                v, rel = w[1:].split("@", 1)
                introduced.append((int(v), rel))
            else:
                raise self.error(f"unknown header word {w!r}")
        fields, enums, added = self.fields(2, ())
        schema = Schema(name, valid[1:], "none" if flex == "-" else flex, fields,
                        api_key=int(rtype) if role == "record" else None)
        self.defs.append(RecordDef(self.family, role, int(rtype), schema, Releases.parse(releases),
                                   tuple(introduced), unstable, enums, added))

    def fields(
        self, indent: int, path: tuple[str, ...]
    ) -> tuple[tuple[Field, ...], tuple[tuple[tuple[str, ...], frozenset[int]], ...],
               tuple[tuple[tuple[str, ...], str], ...]]:
        out: list[Field] = []
        enums: list[tuple[tuple[str, ...], frozenset[int]]] = []
        added: list[tuple[tuple[str, ...], str]] = []
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            ind = len(line) - len(line.lstrip())
            if not line.strip() or ind < indent:
                break
            if ind > indent:
                raise self.error("field indented too deep")
            self.pos += 1
            head, *attrs = line.split()
            name, _, ftype = head.partition(":")
            kw: dict[str, str | int | None] = {}
            field_path = (*path, name[:1].lower() + name[1:])
            for a in attrs:
                if a.startswith("null"):
                    kw["nullable_versions"] = a[4:]
                elif a.startswith("tag"):
                    tag, _, tv = a[3:].partition("@")
                    kw["tag"] = int(tag)
                    kw["tagged_versions"] = tv
                elif a.startswith("="):
                    kw["default"] = a[1:]
                elif a.startswith("in"):
                    enums.append((field_path, frozenset(int(x) for x in a[2:].split(","))))
                elif a.startswith("+"):
                    release_key(a[1:])
                    added.append((field_path, a[1:]))
                elif a.startswith("v"):
                    kw["versions"] = a[1:]
                else:
                    raise self.error(f"unknown field attribute {a!r}")
            elem = ftype[2:] if ftype.startswith("[]") else ftype
            sub: tuple[Field, ...] = ()
            if elem not in _PRIMITIVES:
                sub, sub_enums, sub_added = self.fields(indent + 2, field_path)
                enums.extend(sub_enums)
                added.extend(sub_added)
                if not sub:
                    shared = self.structs.get(elem)
                    if shared is None:
                        raise self.error(f"struct {elem} has no fields")
                    sub = shared[0]
                    enums.extend(((*field_path, *p), vals) for p, vals in shared[1])
                    added.extend(((*field_path, *p), rel) for p, rel in shared[2])
            default = kw.get("default")
            out.append(Field(
                name, ftype,
                versions=_str_or_none(kw.get("versions")),
                nullable_versions=_str_or_none(kw.get("nullable_versions")),
                tag=kw.get("tag") if isinstance(kw.get("tag"), int) else None,  # type: ignore[arg-type]
                tagged_versions=_str_or_none(kw.get("tagged_versions")),
                default=_default(default),
                fields=sub,
            ))
        return tuple(out), tuple(enums), tuple(added)


_PRIMITIVES = frozenset({"bool", "int8", "int16", "uint16", "int32", "uint32", "int64",
                         "float64", "uuid", "string", "bytes", "records"})


def _str_or_none(v: object) -> str | None:
    return None if v is None else str(v)


def _default(v: object) -> str | int | None:
    if v is None:
        return None
    s = str(v)
    if s.lstrip("-").isdigit():
        return int(s)
    return s


_ALL: tuple[RecordDef, ...] = tuple(_Parser(DEFINITIONS).parse())


def definitions(family: str | None = None) -> tuple[RecordDef, ...]:
    """Every record layout (of one family), in the order of :data:`DEFINITIONS`."""
    if family is None:
        return _ALL
    return tuple(d for d in _ALL if d.family == family)


def schema_table(family: str, role: str, release: str | None = None) -> dict[int, Schema]:
    """record type -> schema of ``family``'s ``role``: the newest layout of each type, or
    the one ``release`` defines (types that release does not define are left out)."""
    out: dict[int, Schema] = {}
    for d in _ALL:
        if d.family != family or d.role != role:
            continue
        if release is not None and release not in d.releases:
            continue
        out[d.record_type] = d.schema  # later lines are newer layouts
    return out
