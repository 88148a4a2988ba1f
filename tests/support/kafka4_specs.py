"""Kafka 3.9-4.4's on-disk records, described for the test encoder (tests/support/message_writer.py).

Written again from the JSON message definitions of Kafka's release branches 3.9, 4.0,
4.1, 4.2, 4.3 and 4.4, separately from kdump's own definitions (kdump/protocol/definitions.py) and
in another notation (message_writer's), so that a record encoded from these and decoded
by kdump checks two readings of the same facts.

:data:`SPECS` maps each release line to ``{(family, record type): (key, value)}`` for
coordinator records (families ``group``, ``share``, ``transaction``) and
``{("metadata" | "control", type): (None, record)}`` for KRaft records.  Each release's
table is the previous one's with that release's changes applied (the text blocks below
are the changes), so a layout a release did not change is the same object in both.
Kafka 3.9's table is 4.0's text with 3.9's differences (:data:`_GROUP_39`,
:data:`_TRANSACTION_39`) and without the types 4.0 added (:data:`_NOT_YET`); 3.9 has no
share coordinator.
"""

from __future__ import annotations

from typing import Any

from tests.support import message_writer as sw

__all__ = ["ENUMS", "RELEASES", "SPECS", "coordinator_types"]

RELEASES = ("3.9", "4.0", "4.1", "4.2", "4.3", "4.4")

# ----------------------------------------------------------------------------- Kafka 4.0

_GROUP_40 = """
K0 versions=0
  group string
  topic string
  partition int32

V0 versions=0-4 flexible=4+
  offset int64
  leaderEpoch int32 v=3+ default=-1
  metadata string
  commitTimestamp int64
  expireTimestamp int64 v=1 default=-1

K1 versions=0
  group string
  topic string
  partition int32

V1 versions=0-4 flexible=4+
  offset int64
  leaderEpoch int32 v=3+ default=-1
  metadata string
  commitTimestamp int64
  expireTimestamp int64 v=1 default=-1

K2 versions=0
  group string

V2 versions=0-4 flexible=4+
  protocolType string
  generation int32
  protocol string null=0+
  leader string null=0+
  currentStateTimestamp int64 v=2+ default=-1
  members []
    memberId string
    groupInstanceId string v=3+ null=3+ default=null
    clientId string
    clientHost string
    rebalanceTimeout int32 v=1+ default=-1
    sessionTimeout int32
    subscription bytes
    assignment bytes

K3 versions=0
  groupId string

V3 versions=0 flexible=0+
  epoch int32

K4 versions=0
  groupId string

V4 versions=0 flexible=0+
  topics []
    topicId uuid
    topicName string
    numPartitions int32
    partitionMetadata []
      partition int32
      racks []string

K5 versions=0
  groupId string
  memberId string

V5 versions=0 flexible=0+
  instanceId string null=0+
  rackId string null=0+
  clientId string
  clientHost string
  subscribedTopicNames []string
  subscribedTopicRegex string null=0+
  rebalanceTimeoutMs int32 default=-1
  serverAssignor string null=0+
  classicMemberMetadata {} null=0+ tag=0 tagv=0+
    sessionTimeoutMs int32
    supportedProtocols []
      name string
      metadata bytes

K6 versions=0
  groupId string

V6 versions=0 flexible=0+
  assignmentEpoch int32

K7 versions=0
  groupId string
  memberId string

V7 versions=0 flexible=0+
  topicPartitions []
    topicId uuid
    partitions []int32

K8 versions=0
  groupId string
  memberId string

V8 versions=0 flexible=0+
  memberEpoch int32
  previousMemberEpoch int32
  state int8
  assignedPartitions []
    topicId uuid
    partitions []int32
  partitionsPendingRevocation []
    topicId uuid
    partitions []int32

K9 versions=0
  groupId string

V9 versions=0 flexible=0+
  topics []
    topicId uuid
    topicName string
    numPartitions int32
    partitionMetadata []
      partition int32
      racks []string

K10 versions=0
  groupId string
  memberId string

V10 versions=0 flexible=0+
  rackId string null=0+
  clientId string
  clientHost string
  subscribedTopicNames []string

K11 versions=0
  groupId string

V11 versions=0 flexible=0+
  epoch int32

K12 versions=0
  groupId string

V12 versions=0 flexible=0+
  assignmentEpoch int32

K13 versions=0
  groupId string
  memberId string

V13 versions=0 flexible=0+
  topicPartitions []
    topicId uuid
    partitions []int32

K14 versions=0
  groupId string
  memberId string

V14 versions=0 flexible=0+
  memberEpoch int32
  previousMemberEpoch int32
  state int8
  assignedPartitions []
    topicId uuid
    partitions []int32

K15 versions=0
  groupId string

V15 versions=0 flexible=0+
  initializedTopics []
    topicId uuid
    topicName string
    partitions []int32
  deletingTopics []
    topicId uuid
    topicName string

K16 versions=0
  groupId string
  regularExpression string

V16 versions=0 flexible=0+
  topics []string
  version int64
  timestamp int64
"""

_SHARE_40 = """
K0 versions=0
  groupId string
  topicId uuid
  partition int32

V0 versions=0 flexible=0+
  snapshotEpoch uint16
  stateEpoch int32
  leaderEpoch int32
  startOffset int64
  stateBatches []
    firstOffset int64
    lastOffset int64
    deliveryState int8
    deliveryCount int16

K1 versions=0
  groupId string
  topicId uuid
  partition int32

V1 versions=0 flexible=0+
  snapshotEpoch uint16
  leaderEpoch int32
  startOffset int64
  stateBatches []
    firstOffset int64
    lastOffset int64
    deliveryState int8
    deliveryCount int16
"""

_TRANSACTION_40 = """
K0 versions=0
  transactionalId string

V0 versions=0-1 flexible=1+
  producerId int64
  previousProducerId int64 v=1+ tag=0 tagv=1+ default=-1
  nextProducerId int64 v=1+ tag=1 tagv=1+ default=-1
  producerEpoch int16
  transactionTimeoutMs int32
  transactionStatus int8
  transactionPartitions [] null=0+
    topic string
    partitionIds []int32
  transactionLastUpdateTimestampMs int64
  transactionStartTimestampMs int64
  clientTransactionVersion int16 v=1+ tag=2 tagv=1+ default=0
"""

_METADATA_40 = """
R0 versions=0-3 flexible=0+ typeName=REGISTER_BROKER_RECORD
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

R1 versions=0 flexible=0+ typeName=UNREGISTER_BROKER_RECORD
  brokerId int32
  brokerEpoch int64

R2 versions=0 flexible=0+ typeName=TOPIC_RECORD
  name string
  topicId uuid

R3 versions=0-2 flexible=0+ typeName=PARTITION_RECORD
  partitionId int32 default=-1
  topicId uuid
  replicas []int32
  isr []int32
  removingReplicas []int32
  addingReplicas []int32
  leader int32 default=-1
  leaderRecoveryState int8 tag=0 tagv=0+ default=0
  leaderEpoch int32 default=-1
  partitionEpoch int32 default=-1
  directories []uuid v=1+
  eligibleLeaderReplicas []int32 v=2+ null=2+ tag=1 tagv=2+ default=null
  lastKnownElr []int32 v=2+ null=2+ tag=2 tagv=2+ default=null

R4 versions=0 flexible=0+ typeName=CONFIG_RECORD
  resourceType int8
  resourceName string
  name string
  value string null=0+

R5 versions=0-2 flexible=0+ typeName=PARTITION_CHANGE_RECORD
  partitionId int32 default=-1
  topicId uuid
  isr []int32 null=0+ tag=0 tagv=0+ default=null
  leader int32 tag=1 tagv=0+ default=-2
  replicas []int32 null=0+ tag=2 tagv=0+ default=null
  removingReplicas []int32 null=0+ tag=3 tagv=0+ default=null
  addingReplicas []int32 null=0+ tag=4 tagv=0+ default=null
  leaderRecoveryState int8 tag=5 tagv=0+ default=-1
  directories []uuid v=1+ null=1+ tag=8 tagv=1+ default=null
  eligibleLeaderReplicas []int32 v=2+ null=2+ tag=6 tagv=2+ default=null
  lastKnownElr []int32 v=2+ null=2+ tag=7 tagv=2+ default=null

R7 versions=0 flexible=0+ typeName=FENCE_BROKER_RECORD
  id int32
  epoch int64

R8 versions=0 flexible=0+ typeName=UNFENCE_BROKER_RECORD
  id int32
  epoch int64

R9 versions=0 flexible=0+ typeName=REMOVE_TOPIC_RECORD
  topicId uuid

R10 versions=0 flexible=0+ typeName=DELEGATION_TOKEN_RECORD
  owner string
  requester string
  renewers []string
  issueTimestamp int64
  maxTimestamp int64
  expirationTimestamp int64
  tokenId string

R11 versions=0 flexible=0+ typeName=USER_SCRAM_CREDENTIAL_RECORD
  name string
  mechanism int8
  salt bytes
  storedKey bytes
  serverKey bytes
  iterations int32

R12 versions=0 flexible=0+ typeName=FEATURE_LEVEL_RECORD
  name string
  featureLevel int16

R14 versions=0 flexible=0+ typeName=CLIENT_QUOTA_RECORD
  entity []
    entityType string
    entityName string null=0+
  key string
  value float64
  remove bool

R15 versions=0 flexible=0+ typeName=PRODUCER_IDS_RECORD
  brokerId int32
  brokerEpoch int64 default=-1
  nextProducerId int64

R17 versions=0-2 flexible=0+ typeName=BROKER_REGISTRATION_CHANGE_RECORD
  brokerId int32
  brokerEpoch int64
  fenced int8 tag=0 tagv=0+
  inControlledShutdown int8 v=1+ tag=1 tagv=1+
  logDirs []uuid v=2+ tag=2 tagv=2+

R18 versions=0 flexible=0+ typeName=ACCESS_CONTROL_ENTRY_RECORD
  id uuid
  resourceType int8
  resourceName string
  patternType int8
  principal string
  host string
  operation int8
  permissionType int8

R19 versions=0 flexible=0+ typeName=REMOVE_ACCESS_CONTROL_ENTRY_RECORD
  id uuid

R20 versions=0 flexible=0+ typeName=NO_OP_RECORD

R21 versions=0 flexible=0+ typeName=ZK_MIGRATION_STATE_RECORD
  zkMigrationState int8

R22 versions=0 flexible=0+ typeName=REMOVE_USER_SCRAM_CREDENTIAL_RECORD
  name string
  mechanism int8

R23 versions=0 flexible=0+ typeName=BEGIN_TRANSACTION_RECORD
  name string null=0+ tag=0 tagv=0+ default=null

R24 versions=0 flexible=0+ typeName=END_TRANSACTION_RECORD

R25 versions=0 flexible=0+ typeName=ABORT_TRANSACTION_RECORD
  reason string null=0+ tag=0 tagv=0+ default=null

R26 versions=0 flexible=0+ typeName=REMOVE_DELEGATION_TOKEN_RECORD
  tokenId string

R27 versions=0 flexible=0+ typeName=REGISTER_CONTROLLER_RECORD
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

R28 versions=0 flexible=0+ typeName=CLEAR_ELR_RECORD
  topicName string
"""

_CONTROL_40 = """
R2 versions=0-1 flexible=0+ typeName=LeaderChangeMessage
  version int16
  leaderId int32
  voters []
    voterId int32
    voterDirectoryId uuid v=1+
  grantingVoters []
    voterId int32
    voterDirectoryId uuid v=1+

R3 versions=0 flexible=0+ typeName=SnapshotHeaderRecord
  version int16
  lastContainedLogTimestamp int64

R4 versions=0 flexible=0+ typeName=SnapshotFooterRecord
  version int16

R5 versions=0 flexible=0+ typeName=KRaftVersionRecord
  version int16
  kRaftVersion int16

R6 versions=0 flexible=0+ typeName=VotersRecord
  version int16
  voters []
    voterId int32
    voterDirectoryId uuid
    endpoints []
      name string
      host string
      port uint16
    kRaftVersionFeature {}
      minSupportedVersion int16
      maxSupportedVersion int16
"""

# ----------------------------------------------------------------------------- Kafka 3.9

#: 3.9's group-coordinator differs from 4.0's at type 9 (early-access share groups:
#: ShareGroupPartitionMetadataValue holds what 4.0 calls the share group's state
#: partition metadata) and has no types 12-16
_GROUP_39 = """
V9 versions=0 flexible=0+
  initializedTopics []
    topicId uuid
    topicName string
    partitions []int32
  deletingTopics []
    topicId uuid
    topicName string
"""

#: 3.9's TransactionLogValue: no tagged fields
_TRANSACTION_39 = """
K0 versions=0
  transactionalId string

V0 versions=0-1 flexible=1+
  producerId int64
  producerEpoch int16
  transactionTimeoutMs int32
  transactionStatus int8
  transactionPartitions [] null=0+
    topic string
    partitionIds []int32
  transactionLastUpdateTimestampMs int64
  transactionStartTimestampMs int64
"""

#: (family, record type) that 4.0 added: not in 3.9
_NOT_YET = {("group", 12), ("group", 13), ("group", 14), ("group", 15), ("group", 16),
            ("metadata", 28)}

# ----------------------------------------------------------------------------- Kafka 4.1

_GROUP_41 = """
V0 versions=0
  offset int64
  metadata string
  commitTimestamp int64

V1 versions=0-4 flexible=4+
  offset int64
  leaderEpoch int32 v=3+ default=-1
  metadata string
  commitTimestamp int64
  expireTimestamp int64 v=1 default=-1
  topicId uuid v=4+ tag=0 tagv=4+

V3 versions=0 flexible=0+
  epoch int32
  metadataHash int64 tag=0 tagv=0+ default=0

V11 versions=0 flexible=0+
  epoch int32
  metadataHash int64

V15 versions=0 flexible=0+
  initializingTopics []
    topicId uuid
    topicName string
    partitions []int32
  initializedTopics []
    topicId uuid
    topicName string
    partitions []int32
  deletingTopics []
    topicId uuid
    topicName string

K17 versions=0
  groupId string

V17 versions=0 flexible=0+
  epoch int32
  metadataHash int64

K19 versions=0
  groupId string
  memberId string

V19 versions=0 flexible=0+
  instanceId string null=0+
  rackId string null=0+
  clientId string
  clientHost string
  rebalanceTimeoutMs int32 default=-1
  topologyEpoch int32
  processId string
  userEndpoint {} null=0+ default=null
    host string
    port uint16
  clientTags []
    key string
    value string

K20 versions=0
  groupId string

V20 versions=0 flexible=0+
  assignmentEpoch int32

K21 versions=0
  groupId string
  memberId string

V21 versions=0 flexible=0+
  activeTasks []
    subtopologyId string
    partitions []int32
  standbyTasks []
    subtopologyId string
    partitions []int32
  warmupTasks []
    subtopologyId string
    partitions []int32

K22 versions=0
  groupId string
  memberId string

V22 versions=0 flexible=0+
  memberEpoch int32
  previousMemberEpoch int32
  state int8
  activeTasks []
    subtopologyId string
    partitions []int32
  standbyTasks []
    subtopologyId string
    partitions []int32
  warmupTasks []
    subtopologyId string
    partitions []int32
  activeTasksPendingRevocation []
    subtopologyId string
    partitions []int32
  standbyTasksPendingRevocation []
    subtopologyId string
    partitions []int32
  warmupTasksPendingRevocation []
    subtopologyId string
    partitions []int32

K23 versions=0
  groupId string

V23 versions=0 flexible=0+
  epoch int32
  subtopologies []
    subtopologyId string
    sourceTopics []string
    sourceTopicRegex []string
    stateChangelogTopics []
      name string
      partitions int32
      replicationFactor int16
      topicConfigs []
        key string
        value string
    repartitionSinkTopics []string
    repartitionSourceTopics []
      name string
      partitions int32
      replicationFactor int16
      topicConfigs []
        key string
        value string
    copartitionGroups []
      sourceTopics []int16
      sourceTopicRegex []int16
      repartitionSourceTopics []int16
"""

_SHARE_41 = """
V0 versions=0 flexible=0+
  snapshotEpoch int32
  stateEpoch int32
  leaderEpoch int32
  startOffset int64
  createTimestamp int64
  writeTimestamp int64
  stateBatches []
    firstOffset int64
    lastOffset int64
    deliveryState int8
    deliveryCount int16

V1 versions=0 flexible=0+
  snapshotEpoch int32
  leaderEpoch int32
  startOffset int64
  stateBatches []
    firstOffset int64
    lastOffset int64
    deliveryState int8
    deliveryCount int16
"""

_TRANSACTION_41 = """
V0 versions=0-1 flexible=1+
  producerId int64
  previousProducerId int64 v=1+ tag=0 tagv=1+ default=-1
  nextProducerId int64 v=1+ tag=1 tagv=1+ default=-1
  producerEpoch int16
  nextProducerEpoch int16 v=1+ tag=3 tagv=1+ default=-1
  transactionTimeoutMs int32
  transactionStatus int8
  transactionPartitions [] null=0+
    topic string
    partitionIds []int32
  transactionLastUpdateTimestampMs int64
  transactionStartTimestampMs int64
  clientTransactionVersion int16 v=1+ tag=2 tagv=1+ default=0
"""

# ----------------------------------------------------------------------------- Kafka 4.2

_GROUP_42 = """
V17 versions=0 flexible=0+
  epoch int32
  metadataHash int64
  validatedTopologyEpoch int32 tag=0 tagv=0+ default=-1
  lastAssignmentConfigs [] v=0+ null=0+ tag=1 tagv=0+
    key string
    value string

V22 versions=0 flexible=0+
  memberEpoch int32
  previousMemberEpoch int32
  state int8
  activeTasks []
    subtopologyId string
    partitions []int32
    assignmentEpochs []int32 null=0+ tag=0 tagv=0+
  standbyTasks []
    subtopologyId string
    partitions []int32
    assignmentEpochs []int32 null=0+ tag=0 tagv=0+
  warmupTasks []
    subtopologyId string
    partitions []int32
    assignmentEpochs []int32 null=0+ tag=0 tagv=0+
  activeTasksPendingRevocation []
    subtopologyId string
    partitions []int32
    assignmentEpochs []int32 null=0+ tag=0 tagv=0+
  standbyTasksPendingRevocation []
    subtopologyId string
    partitions []int32
    assignmentEpochs []int32 null=0+ tag=0 tagv=0+
  warmupTasksPendingRevocation []
    subtopologyId string
    partitions []int32
    assignmentEpochs []int32 null=0+ tag=0 tagv=0+
"""

_SHARE_42 = """
V0 versions=0 flexible=0+
  snapshotEpoch int32
  stateEpoch int32
  leaderEpoch int32
  startOffset int64
  deliveryCompleteCount int32 tag=0 tagv=0+ default=-1
  createTimestamp int64
  writeTimestamp int64
  stateBatches []
    firstOffset int64
    lastOffset int64
    deliveryState int8
    deliveryCount int16

V1 versions=0 flexible=0+
  snapshotEpoch int32
  leaderEpoch int32
  startOffset int64
  deliveryCompleteCount int32 tag=0 tagv=0+ default=-1
  stateBatches []
    firstOffset int64
    lastOffset int64
    deliveryState int8
    deliveryCount int16
"""

# ----------------------------------------------------------------------------- Kafka 4.3

_GROUP_43 = """
V6 versions=0 flexible=0+
  assignmentEpoch int32
  assignmentTimestamp int64 tag=0 tagv=0+ default=0

V8 versions=0 flexible=0+
  memberEpoch int32
  previousMemberEpoch int32
  state int8
  assignedPartitions []
    topicId uuid
    partitions []int32
    assignmentEpochs []int32 null=0+ tag=0 tagv=0+
  partitionsPendingRevocation []
    topicId uuid
    partitions []int32
    assignmentEpochs []int32 null=0+ tag=0 tagv=0+

V12 versions=0 flexible=0+
  assignmentEpoch int32
  assignmentTimestamp int64 tag=0 tagv=0+ default=0

V20 versions=0 flexible=0+
  assignmentEpoch int32
  assignmentTimestamp int64 tag=0 tagv=0+ default=0
"""

_METADATA_43 = """
R0 versions=0-4 flexible=0+ typeName=REGISTER_BROKER_RECORD
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
  cordonedLogDirs []uuid v=4+ null=4+ tag=1 tagv=4+ default=null

R17 versions=0-3 flexible=0+ typeName=BROKER_REGISTRATION_CHANGE_RECORD
  brokerId int32
  brokerEpoch int64
  fenced int8 tag=0 tagv=0+
  inControlledShutdown int8 v=1+ tag=1 tagv=1+
  logDirs []uuid v=2+ tag=2 tagv=2+
  cordonedLogDirs []uuid v=3+ null=3+ tag=3 tagv=3+ default=null
"""

# ----------------------------------------------------------------------------- Kafka 4.4

_GROUP_44 = """
V17 versions=0 flexible=0+
  epoch int32
  metadataHash int64
  validatedTopologyEpoch int32 tag=0 tagv=0+ default=-1
  lastAssignmentConfigs [] v=0+ null=0+ tag=1 tagv=0+
    key string
    value string
  storedDescriptionTopologyEpoch int32 tag=2 tagv=0+ default=-1
  failedDescriptionTopologyEpoch int32 tag=3 tagv=0+ default=-1
"""

_METADATA_44 = """
R29 versions=0 flexible=0+ typeName=UNREGISTER_CONTROLLER_RECORD
  controllerId int32
"""

#: (release, family) -> the blocks that release changes
_CHANGES: dict[tuple[str, str], str] = {
    ("3.9", "group"): _GROUP_40 + _GROUP_39,  # a later block of one name replaces it
    ("3.9", "transaction"): _TRANSACTION_39,
    ("3.9", "metadata"): _METADATA_40,
    ("3.9", "control"): _CONTROL_40,
    ("4.0", "group"): _GROUP_40,
    ("4.0", "share"): _SHARE_40,
    ("4.0", "transaction"): _TRANSACTION_40,
    ("4.0", "metadata"): _METADATA_40,
    ("4.0", "control"): _CONTROL_40,
    ("4.1", "group"): _GROUP_41,
    ("4.1", "share"): _SHARE_41,
    ("4.1", "transaction"): _TRANSACTION_41,
    ("4.2", "group"): _GROUP_42,
    ("4.2", "share"): _SHARE_42,
    ("4.3", "group"): _GROUP_43,
    ("4.3", "metadata"): _METADATA_43,
    ("4.4", "group"): _GROUP_44,
    ("4.4", "metadata"): _METADATA_44,
}
#: (release, family, record type) that the release removes
_REMOVED = {("4.1", "group", 9)}

FAMILIES = ("group", "share", "transaction", "metadata", "control")

#: enum-like int8 fields and values a broker writes (MemberState, RecordState,
#: TransactionState): family -> {record type: {json field name: values}}
ENUMS: dict[str, dict[int, dict[str, tuple[int, ...]]]] = {
    "group": {8: {"state": (0, 1, 2, 127)}, 14: {"state": (0, 1, 2, 127)}},
    "share": {0: {"deliveryState": (0, 1, 2, 4)}, 1: {"deliveryState": (0, 1, 2, 4)}},
    "transaction": {0: {"transactionStatus": (0, 1, 2, 3, 4, 5, 6, 7),
                        "clientTransactionVersion": (0, 1, 2)}},
}


def fix_enums(family: str, record_type: int, values: Any) -> None:
    """Valid values (:data:`ENUMS`) where a broker writes an enum, in place of the random
    integers a sample holds (tests/decoders/test_kafka4_records.py and the fuzzer's seeds)."""
    allowed = ENUMS.get(family, {}).get(record_type, {})

    def walk(obj: Any) -> None:
        if isinstance(obj, dict):
            for k, v in obj.items():
                if k in allowed and isinstance(v, int):
                    obj[k] = allowed[k][abs(v) % len(allowed[k])]
                else:
                    walk(v)
        elif isinstance(obj, list):
            for item in obj:
                walk(item)

    walk(values)


def _build() -> dict[str, dict[tuple[str, int], tuple[sw.WSchema | None, sw.WSchema]]]:
    out: dict[str, dict[tuple[str, int], tuple[sw.WSchema | None, sw.WSchema]]] = {}
    current: dict[tuple[str, int], tuple[sw.WSchema | None, sw.WSchema]] = {}
    for release in RELEASES:
        current = dict(current)
        for family in FAMILIES:
            text = _CHANGES.get((release, family))
            if text is None:
                continue
            blocks = sw.parse_many(text)
            keys = {int(n[1:]): s for n, s in blocks.items() if n.startswith("K")}
            for name, schema in blocks.items():
                t = int(name[1:])
                if name.startswith("K"):
                    continue
                if name.startswith("R"):
                    current[(family, t)] = (None, schema)
                    continue
                key = keys.get(t) or current[(family, t)][0]
                current[(family, t)] = (key, schema)
        for removed_in, family, t in _REMOVED:
            if removed_in == release:
                del current[(family, t)]
        if release == "3.9":
            for family, t in _NOT_YET:
                del current[(family, t)]
        out[release] = current
    return out


SPECS = _build()


def coordinator_types(release: str, family: str) -> list[int]:
    return sorted(t for f, t in SPECS[release] if f == family)
