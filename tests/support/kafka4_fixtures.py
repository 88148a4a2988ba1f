"""Golden fixtures of Kafka 4.x internal topics (issue #23), built with tests/writer.py and
tests/support/message_writer.py from tests/support/kafka4_specs.py: fixed values, no clock, no randomness.

``build_kafka41`` is a log dir written by a 4.1 cluster (metadata.version 27): KRaft
metadata with 4.x records, ``__consumer_offsets`` with KIP-848 / KIP-1071 / KIP-932
records and 4.1 fields, ``__share_group_state`` in 4.1's layout and
``__transaction_state`` with NextProducerEpoch, plus an unknown record type and version
in each.  ``build_share40`` holds 4.0-layout share state and no metadata: the layout is
picked by fit.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from tests.support import kafka4_specs as ks
from tests.support import message_writer as sw
from tests.support import writer as w

__all__ = ["build_kafka41", "build_share40"]

TS = w.DEFAULT_TIMESTAMP
T1 = "AAAAAAAAAAAAAAAAAAAAAQ"  # topic ids, Kafka's text form
T2 = "AAAAAAAAAAAAAAAAAAAAAg"
DIR1 = "AAAAAAAAAAAAAAAAAAAAEQ"


def _i16(v: int) -> bytes:
    return struct.pack(">h", v)


def _meta(release: str, t: int, version: int, values: dict[str, Any]) -> bytes:
    schema = ks.SPECS[release][("metadata", t)][1]
    return (sw.uvarint(1) + sw.uvarint(t) + sw.uvarint(version)
            + sw.encode(schema, values, version))


def _coord(release: str, family: str, t: int, key: dict[str, Any],
           value: dict[str, Any] | None, version: int = 0) -> w.Rec:
    key_w, value_w = ks.SPECS[release][(family, t)]
    assert key_w is not None
    k = _i16(t) + sw.encode(key_w, key, 0)
    v = None if value is None else _i16(version) + sw.encode(value_w, value, version)
    return w.Rec(k, v)


def _partition(d: Path, batches: list[list[w.Rec]]) -> None:
    pw = w.PartitionWriter(d, index_interval_bytes=1)
    off = 0
    for recs in batches:
        pw.append(w.v2_batch(recs, base_offset=off, first_timestamp=TS + off))
        off += len(recs)
    pw.close()


def build_kafka41(root: Path) -> None:
    ml = w.MetadataLogWriter(root / "__cluster_metadata-0")
    ml.append([
        _meta("4.1", 12, 0, {"name": "metadata.version", "featureLevel": 27}),
        _meta("4.1", 0, 3, {"brokerId": 1, "isMigratingZkBroker": False,
                            "incarnationId": T2, "brokerEpoch": 10,
                            "endPoints": [{"name": "PLAINTEXT", "host": "b1", "port": 9092,
                                           "securityProtocol": 0}],
                            "features": [{"name": "metadata.version", "minSupportedVersion": 7,
                                          "maxSupportedVersion": 27}],
                            "rack": None, "fenced": True, "inControlledShutdown": False,
                            "logDirs": [DIR1]}),
        _meta("4.1", 2, 0, {"name": "orders", "topicId": T1}),
        _meta("4.1", 3, 2, {"partitionId": 0, "topicId": T1, "replicas": [1], "isr": [1],
                            "removingReplicas": [], "addingReplicas": [], "leader": 1,
                            "leaderRecoveryState": 0, "leaderEpoch": 0, "partitionEpoch": 0,
                            "directories": [DIR1], "eligibleLeaderReplicas": [1],
                            "lastKnownElr": None}),
    ])
    ml.append([
        _meta("4.1", 28, 0, {"topicName": "orders"}),
        _meta("4.1", 17, 2, {"brokerId": 1, "brokerEpoch": 10, "fenced": 0,
                             "inControlledShutdown": 0, "logDirs": [DIR1]}),
        sw.uvarint(1) + sw.uvarint(30) + sw.uvarint(0) + b"\x00",  # no such type in 3.9-4.4
    ])
    ml.close()

    g = "group"
    _partition(root / "__consumer_offsets-0", [
        [_coord("4.1", g, 1, {"group": "g1", "topic": "orders", "partition": 0},
                {"offset": 42, "leaderEpoch": 0, "metadata": "", "commitTimestamp": TS,
                 "topicId": T1}, 4),
         _coord("4.1", g, 3, {"groupId": "g1"}, {"epoch": 5, "metadataHash": 987654321}),
         _coord("4.1", g, 16, {"groupId": "g1", "regularExpression": "ord.*"},
                {"topics": ["orders"], "version": 3, "timestamp": TS})],
        [_coord("4.1", g, 17, {"groupId": "app"}, {"epoch": 2, "metadataHash": 7}),
         _coord("4.1", g, 19, {"groupId": "app", "memberId": "m1"},
                {"instanceId": None, "rackId": "r1", "clientId": "app-1", "clientHost": "/h",
                 "rebalanceTimeoutMs": 30000, "topologyEpoch": 1, "processId": "p1",
                 "userEndpoint": {"host": "h", "port": 8080},
                 "clientTags": [{"key": "zone", "value": "a"}]}),
         _coord("4.1", g, 23, {"groupId": "app"},
                {"epoch": 1, "subtopologies": [{
                    "subtopologyId": "0", "sourceTopics": ["orders"], "sourceTopicRegex": [],
                    "stateChangelogTopics": [{"name": "app-store-changelog", "partitions": 0,
                                              "replicationFactor": -1, "topicConfigs": []}],
                    "repartitionSinkTopics": [], "repartitionSourceTopics": [],
                    "copartitionGroups": []}]}),
         _coord("4.1", g, 22, {"groupId": "app", "memberId": "m1"},
                {"memberEpoch": 2, "previousMemberEpoch": 1, "state": 0,
                 "activeTasks": [{"subtopologyId": "0", "partitions": [0]}], "standbyTasks": [],
                 "warmupTasks": [], "activeTasksPendingRevocation": [],
                 "standbyTasksPendingRevocation": [], "warmupTasksPendingRevocation": []})],
        [_coord("4.1", g, 11, {"groupId": "sg"}, {"epoch": 3, "metadataHash": 11}),
         _coord("4.1", g, 15, {"groupId": "sg"},
                {"initializingTopics": [],
                 "initializedTopics": [{"topicId": T1, "topicName": "orders",
                                        "partitions": [0]}],
                 "deletingTopics": []}),
         _coord("4.1", g, 3, {"groupId": "gone"}, None)],
        [w.Rec(_i16(18) + b"\x00\x01x", _i16(0)),  # no such type in 4.x
         _coord("4.1", g, 6, {"groupId": "g1"}, {"assignmentEpoch": 1}, 1)],  # no version 1
    ])

    s = "share"
    key = {"groupId": "sg", "topicId": T1, "partition": 0}
    batches = [{"firstOffset": 0, "lastOffset": 9, "deliveryState": 2, "deliveryCount": 1}]
    _partition(root / "__share_group_state-0", [
        [_coord("4.1", s, 0, key, {"snapshotEpoch": 0, "stateEpoch": 0, "leaderEpoch": 0,
                                   "startOffset": 0, "createTimestamp": TS,
                                   "writeTimestamp": TS, "stateBatches": batches}),
         _coord("4.1", s, 1, key, {"snapshotEpoch": 0, "leaderEpoch": 0, "startOffset": 10,
                                   "stateBatches": []}),
         _coord("4.1", s, 0, key, None)],
    ])

    _partition(root / "__transaction_state-0", [
        [_coord("4.1", "transaction", 0, {"transactionalId": "tx-1"},
                {"producerId": 1000, "previousProducerId": -1, "nextProducerId": 1001,
                 "producerEpoch": 32766, "nextProducerEpoch": 0, "transactionTimeoutMs": 60000,
                 "transactionStatus": 4, "transactionPartitions": [],
                 "transactionLastUpdateTimestampMs": TS, "transactionStartTimestampMs": TS,
                 "clientTransactionVersion": 2}, 1)],
    ])


def build_share40(root: Path) -> None:
    s = "share"
    key = {"groupId": "sg", "topicId": T2, "partition": 1}
    batches = [{"firstOffset": 5, "lastOffset": 6, "deliveryState": 4, "deliveryCount": 5}]
    _partition(root / "__share_group_state-0", [
        [_coord("4.0", s, 0, key, {"snapshotEpoch": 1, "stateEpoch": 1, "leaderEpoch": 2,
                                   "startOffset": 5, "stateBatches": batches}),
         _coord("4.0", s, 1, key, {"snapshotEpoch": 1, "leaderEpoch": 2, "startOffset": 7,
                                   "stateBatches": []})],
    ])
