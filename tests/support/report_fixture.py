"""A realistic Kafka 4.x log dir for ``kdump report`` (issue #25): one broker's log dir
written with Kafka 4.x records, built with the project's writers (tests/writer.py,
tests/support/group_records.py, tests/support/registry_writer.py): fixed values, no clock.

``kafka4_logdir(root)`` writes ``root/b1`` (broker 1) holding

- ``__cluster_metadata-0``: metadata.version 27, brokers 1 (a cordoned log dir,
  RegisterBrokerRecord v4) and 2 (fenced), topics orders / payments / events / users with
  eligible leader replicas (payments, orders), then a ClearElrRecord for ``payments``
  (orders keeps its ELR) and a broker 1 registration change an hour later;
- ``_schemas-0`` and the Avro / Protobuf / JSON Schema topics of
  ``registry_writer.write_sample`` (orders, events, users, old, gone: soft- and
  hard-deleted schemas), and legacy-0, whose records name id 1 in their keys, an id the
  registry does not hold (99) in a value's schema-id header, and nothing in two others
  (one of them only looks framed: 0x00 and id 99, with no evidence);
- ``payments-0`` / ``payments-1``: 200 plain records each over 200 seconds, and a
  transaction left open 20 minutes before the partition's last batch (hanging);
- ``__consumer_offsets-0``: a classic group (commits only), a KIP-848 consumer group with
  a regular-expression subscription, a member's assignment and a hostile client id, a streams group with its
  topology and a member, a share group with its initialized share-partitions;
- ``__share_group_state-0``: ShareSnapshot / ShareUpdate records for the share group.

``python tests/support/report_fixture.py DIR`` writes it (to look at a page by hand).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from kdump.schemaregistry.wire import frame
from tests.support import group_records as gr
from tests.support import registry_writer as rw
from tests.support import writer as w

TS = 1_700_000_000_000
PAYMENTS = w.uuid_of(41)
ORDERS = w.uuid_of(42)
EVENTS = w.uuid_of(43)
USERS = w.uuid_of(44)
DIR1, DIR2, DIR3 = (w.uuid_of(i) for i in (51, 52, 53))
INC1, INC2 = w.uuid_of(61), w.uuid_of(62)
#: a client id no page may run: markup and a bidi override
EVIL = "<img src=x onerror=alert(1)>\u202etxt"
EP = [{"name": "PLAINTEXT", "host": "broker-1.example", "port": 9092, "securityProtocol": 0}]


def _raw(tid: str) -> bytes:
    """A topic id's 16 bytes, from its text form."""
    import base64

    return base64.urlsafe_b64decode(tid + "==")


def _broker(bid: int, inc: str, epoch: int, fenced: bool, dirs: list[str],
            cordoned: list[str]) -> bytes:
    return gr.metadata_record("RegisterBrokerRecord", {
        "brokerId": bid, "incarnationId": inc, "brokerEpoch": epoch,
        "endPoints": [dict(EP[0], host=f"broker-{bid}.example")], "features": [
            {"name": "metadata.version", "minSupportedVersion": 7, "maxSupportedVersion": 27}],
        "rack": f"rack-{bid}", "fenced": fenced, "logDirs": dirs, "cordonedLogDirs": cordoned})


def _partition(tid: str, pid: int, elr: list[int], lkelr: list[int]) -> bytes:
    return w.metadata_record("PartitionRecord", {
        "partitionId": pid, "topicId": tid, "replicas": [1, 2], "isr": [1],
        "removingReplicas": [], "addingReplicas": [], "leader": 1, "leaderEpoch": 3,
        "partitionEpoch": 5, "directories": [DIR1, DIR3], "eligibleLeaderReplicas": elr,
        "lastKnownElr": lkelr})


def metadata_records() -> list[tuple[int, list[bytes]]]:
    """(timestamp, records) batches of the metadata log."""
    first = [w.metadata_record("FeatureLevelRecord", {"name": "metadata.version",
                                                      "featureLevel": 27}),
             _broker(1, INC1, 10, False, [DIR1, DIR2], [DIR2]),
             _broker(2, INC2, 11, True, [DIR3], [])]
    for name, tid, parts in (("payments", PAYMENTS, 2), ("orders", ORDERS, 1),
                             ("events", EVENTS, 1), ("users", USERS, 1)):
        first.append(w.metadata_record("TopicRecord", {"name": name, "topicId": tid}))
        first += [_partition(tid, p, [2] if name in ("payments", "orders") else [],
                             [2] if name == "payments" else []) for p in range(parts)]
    later = [gr.metadata_record("ClearElrRecord", {"topicName": "payments"}),
             gr.metadata_record("BrokerRegistrationChangeRecord", {
                 "brokerId": 1, "brokerEpoch": 10, "cordonedLogDirs": [DIR2, DIR1]})]
    return [(TS, first), (TS + 3_600_000, later)]


def _member(client: str, topics: list[str], regex: str | None = None) -> dict[str, Any]:
    return {"instanceId": None, "rackId": None, "clientId": client, "clientHost": "/10.0.0.7",
            "subscribedTopicNames": topics, "subscribedTopicRegex": regex,
            "rebalanceTimeoutMs": 30000, "serverAssignor": "uniform"}


def consumer_offsets_records() -> list[w.Rec]:
    cr = gr.coordinator_record
    return [
        # a classic group: offset commits only
        gr.commit("billing", "payments", 0, 150, TS + 100_000),
        gr.commit("billing", "payments", 1, 200, TS + 100_000),
        # a KIP-848 consumer group: one member by name, one by regular expression
        cr("ConsumerGroupMetadata", {"groupId": "fraud-check"}, {"epoch": 7}),
        cr("ConsumerGroupMemberMetadata", {"groupId": "fraud-check", "memberId": "m-1"},
           _member("fraud-1", ["payments"])),
        cr("ConsumerGroupMemberMetadata", {"groupId": "fraud-check", "memberId": "m-2"},
           _member("fraud-2", [], "pay.*")),
        cr("ConsumerGroupMemberMetadata", {"groupId": "fraud-check", "memberId": "m-3"},
           _member(EVIL, ["payments"])),
        cr("ConsumerGroupRegularExpression",
           {"groupId": "fraud-check", "regularExpression": "pay.*"},
           {"topics": ["payments"], "version": 4, "timestamp": TS + 5}),
        cr("ConsumerGroupCurrentMemberAssignment", {"groupId": "fraud-check", "memberId": "m-1"},
           {"memberEpoch": 7, "previousMemberEpoch": 6, "state": 0,
            "assignedPartitions": [{"topicId": PAYMENTS, "partitions": [0, 1]}],
            "partitionsPendingRevocation": []}),
        cr("ConsumerGroupTargetAssignmentMetadata", {"groupId": "fraud-check"},
           {"assignmentEpoch": 7}),
        gr.commit("fraud-check", "payments", 0, 180, TS + 150_000),
        # a streams group
        cr("StreamsGroupMetadata", {"groupId": "order-enricher"}, {"epoch": 3, "metadataHash": 5}),
        cr("StreamsGroupTopology", {"groupId": "order-enricher"}, {"epoch": 2, "subtopologies": [
            {"subtopologyId": "0", "sourceTopics": ["orders"], "sourceTopicRegex": [],
             "stateChangelogTopics": [{"name": "order-enricher-store-changelog",
                                       "partitions": 0, "replicationFactor": 0,
                                       "topicConfigs": []}],
             "repartitionSinkTopics": ["order-enricher-repartition"],
             "repartitionSourceTopics": [], "copartitionGroups": []},
            {"subtopologyId": "1", "sourceTopics": [], "sourceTopicRegex": [],
             "stateChangelogTopics": [], "repartitionSinkTopics": [],
             "repartitionSourceTopics": [{"name": "order-enricher-repartition",
                                          "partitions": 0, "replicationFactor": 0,
                                          "topicConfigs": []}],
             "copartitionGroups": []}]}),
        cr("StreamsGroupMemberMetadata", {"groupId": "order-enricher", "memberId": "s-1"},
           {"instanceId": None, "rackId": None, "clientId": "enricher-1", "clientHost": "/10.0.0.9",
            "rebalanceTimeoutMs": 1000, "topologyEpoch": 2, "processId": "proc-1",
            "userEndpoint": {"host": "enricher-1", "port": 8080}, "clientTags": []}),
        gr.commit("order-enricher", "orders", 0, 2, TS + 160_000),
        # a share group and its initialized share-partitions
        cr("ShareGroupMetadata", {"groupId": "audit"}, {"epoch": 2}),
        cr("ShareGroupMemberMetadata", {"groupId": "audit", "memberId": "x-1"},
           {"rackId": None, "clientId": "audit-1", "clientHost": "/10.0.0.8",
            "subscribedTopicNames": ["payments"]}),
        cr("ShareGroupStatePartitionMetadata", {"groupId": "audit"}, {
            "initializedTopics": [{"topicId": PAYMENTS, "topicName": "payments",
                                   "partitions": [0, 1]}],
            "deletingTopics": []}),
    ]


def share_state_records() -> list[w.Rec]:
    def snapshot(part: int, start: int, dcc: int) -> w.Rec:
        return gr.coordinator_record(
            "ShareSnapshot", {"groupId": "audit", "topicId": PAYMENTS, "partition": part},
            {"snapshotEpoch": 0, "stateEpoch": 1, "leaderEpoch": 3, "startOffset": start,
             "deliveryCompleteCount": dcc, "createTimestamp": TS, "writeTimestamp": TS + 90_000,
             "stateBatches": [{"firstOffset": start, "lastOffset": start + 4,
                               "deliveryState": 0, "deliveryCount": 1}]})
    return [
        snapshot(0, 120, 3),
        snapshot(1, 60, -1),
        gr.coordinator_record("ShareUpdate", {"groupId": "audit", "topicId": PAYMENTS,
                                              "partition": 1},
                              {"snapshotEpoch": 0, "leaderEpoch": 3, "startOffset": 90,
                               "deliveryCompleteCount": -1, "stateBatches": []}),
    ]


def kafka4_logdir(root: Path) -> Path:
    """``root/b1``: see the module docstring."""
    b = w.broker_logdir(root / "b1", 1, high_watermarks=[("payments", 0, 200),
                                                           ("payments", 1, 201)])
    ml = w.MetadataLogWriter(b / "__cluster_metadata-0")
    for ts, recs in metadata_records():
        ml.append(recs, timestamp=ts)
    ml.close()
    with tempfile.TemporaryDirectory() as scratch:
        rw.write_sample(b, Path(scratch))
    for tid, name in ((ORDERS, "orders"), (EVENTS, "events"), (USERS, "users")):
        (b / f"{name}-0" / "partition.metadata").write_bytes(w.partition_metadata(_raw(tid)))
    w.write_replica(b / "payments-0", [
        w.v2_batch(w.numbered_records(o, 20, ts0=TS + 1000 * o), base_offset=o)
        for o in range(0, 200, 20)])
    w.write_replica(b / "payments-1", [
        *[w.v2_batch(w.numbered_records(o, 20, ts0=TS + 1000 * o), base_offset=o)
          for o in range(0, 200, 20)],
        w.v2_batch([w.Rec(b"tx", b"debit", timestamp=TS + 200_000)], base_offset=200,
                   producer_id=4001, producer_epoch=2, base_sequence=0, transactional=True),
        w.v2_batch([w.Rec(b"k", b"later", timestamp=TS + 200_000 + 20 * 60_000)],
                   base_offset=201)])
    for name, tid in (("payments-0", PAYMENTS), ("payments-1", PAYMENTS)):
        (b / name / "partition.metadata").write_bytes(w.partition_metadata(_raw(tid)))
    # keys framed with the registry's id 1; a value that only looks framed (0x00 and id 99
    # the registry does not hold, no legacy-value subject, no header: not framed), a plain
    # one, and a value whose schema-id header names id 99 (framed: an unknown id)
    w.write_replica(b / "legacy-0", [w.v2_batch([
        w.Rec(frame(1, b"\x02k"), frame(99, b"\x02v")),
        w.Rec(frame(1, b"\x02k"), b"plain text"),
        w.Rec(None, b"\x02v", headers=[("__value_schema_id", frame(99, b""))])],
        first_timestamp=TS)])
    w.write_replica(b / "__consumer_offsets-0", [w.v2_batch(consumer_offsets_records())])
    w.write_replica(b / "__share_group_state-0", [w.v2_batch(share_state_records())])
    return b


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python tests/support/report_fixture.py DIR", file=sys.stderr)
        sys.exit(2)
    print(kafka4_logdir(Path(sys.argv[1])))
