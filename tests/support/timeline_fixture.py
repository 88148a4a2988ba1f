"""A three-broker KRaft cluster's log dirs with a story for ``kdump timeline``
(``python tests/writer.py cluster DIR`` writes it; docs/timeline.md's worked example):

* T0 (2023-11-14T22:13:20Z): node 1 leads the quorum (epoch 1); brokers 1, 2, 3 register
  (fenced), are unfenced at T0+1s; at T0+2s topics ``orders`` (partitions 0 and 1 on
  brokers 1, 2, 3, leaders 1 and 2), ``__consumer_offsets`` and ``__transaction_state``
  (one partition each, on brokers 1, 2, 3, led by 1) are created;
* a restart of broker 2 at T0+60s (the records ReplicationControlManager writes, 3.9-4.3):
  controlled shutdown, orders-1's leader 2 -> 3 (epoch 1) and the ISRs lose 2, fenced at
  T0+60.08s; re-registered with a new epoch at T0+90s, unfenced at T0+91s, back in the
  ISRs at T0+100s;
* ``orders-0`` (leader 1, epoch 0): plain batches, a segment roll at offset 20 on broker
  1, a transaction of producer 4001 epoch 0 aborted at T0+120s (coordinator epoch 5),
  then epoch 1 (a new session) with a transaction committed at T0+150s, and producer 4002's
  transaction begun at T0+170s and never ended;
* ``orders-1``: epoch 0 (leader 2) for offsets 0-9, epoch 1 (leader 3) from offset 10,
  written at T0+65s;
* ``__consumer_offsets-0``: group ``payments`` generation 1 (member m1, assigned orders
  0 and 1) at T0+30s, commits on orders/0 and orders/1, generation 2 at T0+70s (m2
  joined: m1 keeps orders-0, m2 gets orders-1), generation 3 at T0+95s (m2 left: m1 has
  both again), more commits;
* ``__transaction_state-0``: ``payments-tx`` (producer 4001) Ongoing, PrepareAbort,
  CompleteAbort, then epoch 1 Ongoing, PrepareCommit, CompleteCommit; ``stuck-tx``
  (producer 4002) Ongoing;
* broker 1's and 3's log dirs hold ``.kafka_cleanshutdown``; broker 2's does not.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from tests.support import kafka4_specs as ks
from tests.support import message_writer as sw
from tests.support import writer as w
from tests.support.group_records import CONSUMER_PROTOCOL

TS = 1_700_000_000_000
ORDERS, OFFSETS, TXNS = w.uuid_of(61), w.uuid_of(62), w.uuid_of(63)
SPECS = ks.SPECS["4.3"]


def _ep(bid: int) -> list[dict[str, Any]]:
    return [{"name": "PLAINTEXT", "host": f"broker-{bid}", "port": 9092, "securityProtocol": 0}]


def _register(bid: int, epoch: int) -> bytes:
    return w.metadata_record("RegisterBrokerRecord", {
        "brokerId": bid, "incarnationId": w.uuid_of(80 + epoch), "brokerEpoch": epoch,
        "endPoints": _ep(bid), "rack": None, "fenced": True,
        "logDirs": [w.uuid_of(90 + bid)]})


def _partition(tid: str, pid: int, leader: int) -> bytes:
    return w.metadata_record("PartitionRecord", {
        "partitionId": pid, "topicId": tid, "replicas": [1, 2, 3], "isr": [1, 2, 3],
        "leader": leader, "leaderEpoch": 0, "partitionEpoch": 0,
        "directories": [w.uuid_of(90 + r) for r in (1, 2, 3)]})


def _change(tid: str, pid: int, **fields: Any) -> bytes:
    return w.metadata_record("PartitionChangeRecord", {"partitionId": pid, "topicId": tid,
                                                       **fields})


def _broker_change(bid: int, epoch: int, **fields: Any) -> bytes:
    return w.metadata_record("BrokerRegistrationChangeRecord", {
        "brokerId": bid, "brokerEpoch": epoch, **fields})


def write_metadata(directory: Path) -> None:
    ml = w.MetadataLogWriter(directory)
    ml.control([(w.CONTROL_LEADER_CHANGE, w.leader_change_value(1, [1, 2, 3], [1, 2]))],
               timestamp=TS)
    ml.append([w.metadata_record("FeatureLevelRecord", {"name": "metadata.version",
                                                        "featureLevel": 21}),
               *[_register(b, 10 * b) for b in (1, 2, 3)]], timestamp=TS)
    ml.append([_broker_change(b, 10 * b, fenced=-1) for b in (1, 2, 3)], timestamp=TS + 1000)
    ml.append([w.metadata_record("TopicRecord", {"name": "orders", "topicId": ORDERS}),
               _partition(ORDERS, 0, 1), _partition(ORDERS, 1, 2),
               w.metadata_record("TopicRecord", {"name": "__consumer_offsets",
                                                 "topicId": OFFSETS}),
               _partition(OFFSETS, 0, 1),
               w.metadata_record("TopicRecord", {"name": "__transaction_state",
                                                 "topicId": TXNS}),
               _partition(TXNS, 0, 1)], timestamp=TS + 2000)
    # broker 2 restarts: controlled shutdown, its leadership moved, fenced
    ml.append([_broker_change(2, 20, inControlledShutdown=1)], timestamp=TS + 60_000)
    ml.append([_change(ORDERS, 1, leader=3, isr=[1, 3]), _change(ORDERS, 0, isr=[1, 3]),
               _change(OFFSETS, 0, isr=[1, 3]), _change(TXNS, 0, isr=[1, 3])],
              timestamp=TS + 60_050)
    ml.append([_broker_change(2, 20, fenced=1)], timestamp=TS + 60_080)
    # ... and comes back with a new broker epoch
    ml.append([_register(2, 25)], timestamp=TS + 90_000)
    ml.append([_broker_change(2, 25, fenced=-1)], timestamp=TS + 91_000)
    ml.append([_change(ORDERS, 0, isr=[1, 3, 2]), _change(ORDERS, 1, isr=[3, 1, 2]),
               _change(OFFSETS, 0, isr=[1, 3, 2]), _change(TXNS, 0, isr=[1, 3, 2])],
              timestamp=TS + 100_000)
    ml.close()


def _recs(first: int, n: int, ts: int) -> list[w.Rec]:
    return [w.Rec(key=b"k%d" % o, value=b"v%d" % o, timestamp=ts + i)
            for i, o in enumerate(range(first, first + n))]


def _orders_0() -> tuple[list[bytes], set[int]]:
    """orders-0's batches, and the batch index broker 1 rolled its segment before."""
    out = [w.v2_batch(_recs(0, 10, TS + 5000), base_offset=0),
           w.v2_batch(_recs(10, 10, TS + 10_000), base_offset=10)]
    roll = {len(out)}
    out.append(w.v2_batch(_recs(20, 5, TS + 110_000), base_offset=20, producer_id=4001,
                          producer_epoch=0, base_sequence=0, transactional=True))
    out.append(w.end_txn_marker_batch(False, base_offset=25, producer_id=4001, producer_epoch=0,
                                      coordinator_epoch=5, timestamp=TS + 120_000))
    out.append(w.v2_batch(_recs(26, 5, TS + 140_000), base_offset=26, producer_id=4001,
                          producer_epoch=1, base_sequence=0, transactional=True))
    out.append(w.end_txn_marker_batch(True, base_offset=31, producer_id=4001, producer_epoch=1,
                                      coordinator_epoch=5, timestamp=TS + 150_000))
    out.append(w.v2_batch(_recs(32, 3, TS + 170_000), base_offset=32, producer_id=4002,
                          producer_epoch=0, base_sequence=0, transactional=True))
    out.append(w.v2_batch(_recs(35, 5, TS + 180_000), base_offset=35))
    return out, roll


def _orders_1() -> list[bytes]:
    return [w.v2_batch(_recs(0, 10, TS + 6000), base_offset=0),
            w.v2_batch(_recs(10, 10, TS + 65_000), base_offset=10, partition_leader_epoch=1)]


def _coord(family: str, t: int, key: dict[str, Any], value: dict[str, Any] | None,
           version: int, ts: int) -> w.Rec:
    key_w, value_w = SPECS[(family, t)]
    assert key_w is not None
    k = struct.pack(">h", t) + sw.encode(key_w, key, 0)
    v = None if value is None else struct.pack(">h", version) + sw.encode(value_w, value, version)
    return w.Rec(k, v, timestamp=ts)


def consumer_subscription(topics: list[str], version: int = 3) -> bytes:
    return struct.pack(">h", version) + sw.encode(
        CONSUMER_PROTOCOL["ConsumerProtocolSubscription"], {
            "topics": topics, "userData": None, "ownedPartitions": [], "generationId": -1,
            "rackId": None}, version)


def consumer_assignment(parts: dict[str, list[int]], version: int = 3) -> bytes:
    return struct.pack(">h", version) + sw.encode(
        CONSUMER_PROTOCOL["ConsumerProtocolAssignment"], {
            "assignedPartitions": [{"topic": t, "partitions": p} for t, p in parts.items()],
            "userData": None}, version)


def _group(gen: int, members: dict[str, list[int]], ts: int) -> w.Rec:
    """Group ``payments`` at generation ``gen``: each member and the orders partitions
    the leader assigned it."""
    return _coord("group", 2, {"group": "payments"}, {
        "protocolType": "consumer", "generation": gen, "protocol": "range",
        "leader": next(iter(members), None), "currentStateTimestamp": ts,
        "members": [{"memberId": m, "groupInstanceId": None, "clientId": "pay-app",
                     "clientHost": "/10.0.0.7", "rebalanceTimeout": 300000,
                     "sessionTimeout": 45000,
                     "subscription": consumer_subscription(["orders"]),
                     "assignment": consumer_assignment({"orders": parts})}
                    for m, parts in members.items()]}, 3, ts)


def _commit(partition: int, offset: int, ts: int) -> w.Rec:
    return _coord("group", 1, {"group": "payments", "topic": "orders", "partition": partition},
                  {"offset": offset, "leaderEpoch": 0, "metadata": "", "commitTimestamp": ts},
                  3, ts)


def _offsets() -> list[bytes]:
    recs = [_group(1, {"pay-app-m1": [0, 1]}, TS + 30_000), _commit(0, 5, TS + 35_000),
            _commit(1, 4, TS + 35_000), _commit(0, 10, TS + 40_000),
            _commit(0, 15, TS + 45_000),
            _group(2, {"pay-app-m1": [0], "pay-app-m2": [1]}, TS + 70_000),
            _commit(0, 20, TS + 75_000), _commit(1, 12, TS + 76_000),
            _group(3, {"pay-app-m1": [0, 1]}, TS + 95_000), _commit(0, 35, TS + 175_000)]
    return [w.v2_batch([r], base_offset=k, first_timestamp=r.timestamp)
            for k, r in enumerate(recs)]


def _txn(tid: str, pid: int, epoch: int, status: int, parts: list[int] | None, start: int,
         ts: int) -> w.Rec:
    return _coord("transaction", 0, {"transactionalId": tid}, {
        "producerId": pid, "producerEpoch": epoch, "transactionTimeoutMs": 60000,
        "transactionStatus": status,
        "transactionPartitions": None if parts is None else [
            {"topic": "orders", "partitionIds": parts}],
        "transactionLastUpdateTimestampMs": ts, "transactionStartTimestampMs": start}, 0, ts)


def _txn_state() -> list[bytes]:
    a, b = TS + 109_000, TS + 139_000
    recs = [_txn("payments-tx", 4001, 0, 1, [0], a, a),
            _txn("payments-tx", 4001, 0, 3, [0], a, TS + 119_000),
            _txn("payments-tx", 4001, 0, 5, [0], a, TS + 120_500),
            _txn("payments-tx", 4001, 1, 1, [0], b, b),
            _txn("payments-tx", 4001, 1, 2, [0], b, TS + 149_000),
            _txn("payments-tx", 4001, 1, 4, [0], b, TS + 150_500),
            _txn("stuck-tx", 4002, 0, 1, [0], TS + 169_000, TS + 169_000)]
    return [w.v2_batch([r], base_offset=k, first_timestamp=r.timestamp)
            for k, r in enumerate(recs)]


def write_cluster(root: Path) -> list[Path]:
    """``root/broker-1``, ``broker-2``, ``broker-3``: the log dirs (module docstring)."""
    root = Path(root)
    dirs = []
    orders_0, roll = _orders_0()
    for bid in (1, 2, 3):
        b = w.broker_logdir(root / f"broker-{bid}", bid)
        write_metadata(b / "__cluster_metadata-0")
        w.write_replica(b / "orders-0", orders_0, roll_before=roll if bid == 1 else None)
        w.write_replica(b / "orders-1", _orders_1())
        w.write_replica(b / "__consumer_offsets-0", _offsets())
        w.write_replica(b / "__transaction_state-0", _txn_state())
        if bid != 2:
            (b / ".kafka_cleanshutdown").write_bytes(b"")
        dirs.append(b)
    return dirs
