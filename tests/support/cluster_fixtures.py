"""Log dirs of KRaft clusters that stopped, or lost a broker, written with the project's
writers (tests/writer.py: metadata records encoded from the message specs, v2 batches):
the records Kafka's controller writes, in its order (apache/kafka, metadata/src/main/
java/org/apache/kafka/controller/ReplicationControlManager.java, 3.9-4.3):

* a broker asking to shut down while it leads: ``BrokerRegistrationChangeRecord``
  inControlledShutdown=1, then a ``PartitionChangeRecord`` per partition it leads
  (``handleBrokerInControlledShutdown``; leader -1 where no other ISR replica is left,
  its ISR kept), then, once it leads nothing, ``BrokerRegistrationChangeRecord`` fenced=1
  (``handleBrokerFenced``, SHUTDOWN_NOW);
* a broker whose session times out (``maybeFenceOneStaleBroker``): a
  ``PartitionChangeRecord`` per partition whose ISR holds it (a new leader from the ISR,
  or -1), then ``BrokerRegistrationChangeRecord`` fenced=1.

``stopped_logdir(root)``: one broker (id 1, combined mode) that ran orders-0/1 and
__consumer_offsets-0, then was stopped (controlled shutdown, fenced);
``fenced_cluster(root)``: three brokers' log dirs, broker 3 fenced by a session timeout
while 1 and 2 lead (solo-0, whose only replica is broker 3, left without a leader).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support import writer as w

TS = 1_700_000_000_000
#: the time of the stop: an hour after the start, the fence 80 ms after the shutdown
STOP_TS = TS + 3_600_000
ORDERS, SOLO, OFFSETS = w.uuid_of(71), w.uuid_of(72), w.uuid_of(73)


def _ep(bid: int) -> list[dict[str, Any]]:
    return [{"name": "PLAINTEXT", "host": f"broker-{bid}", "port": 9092, "securityProtocol": 0}]


def _register(bid: int) -> bytes:
    return w.metadata_record("RegisterBrokerRecord", {
        "brokerId": bid, "incarnationId": w.uuid_of(80 + bid), "brokerEpoch": 10 * bid,
        "endPoints": _ep(bid), "rack": None, "fenced": True,
        "logDirs": [w.uuid_of(90 + bid)]})


def _partition(tid: str, pid: int, replicas: list[int], leader: int) -> bytes:
    return w.metadata_record("PartitionRecord", {
        "partitionId": pid, "topicId": tid, "replicas": replicas, "isr": replicas,
        "leader": leader, "leaderEpoch": 0, "partitionEpoch": 0,
        "directories": [w.uuid_of(90 + r) for r in replicas]})


def _change(tid: str, pid: int, **fields: Any) -> bytes:
    return w.metadata_record("PartitionChangeRecord", {"partitionId": pid, "topicId": tid,
                                                       **fields})


def _start(ml: Any, brokers: list[int]) -> None:
    ml.append([w.metadata_record("FeatureLevelRecord", {"name": "metadata.version",
                                                        "featureLevel": 21}),
               *[_register(b) for b in brokers]], timestamp=TS)
    ml.append([w.metadata_record("BrokerRegistrationChangeRecord", {
        "brokerId": b, "brokerEpoch": 10 * b, "fenced": -1}) for b in brokers],
        timestamp=TS + 1000)


#: offsets of the single broker's log: its controlled shutdown and its fence
SHUTDOWN_OFFSET = 8
FENCE_OFFSET = 12


def stopped_metadata(directory: Path) -> None:
    """The single broker's ``__cluster_metadata-0``: registered (offset 1), unfenced (2),
    topics orders (2 partitions) and __consumer_offsets (1) led by broker 1 (3-7), then
    stopped: controlled shutdown (8), orders-0, orders-1 and __consumer_offsets-0 left
    without a leader (9-11), fenced (12)."""
    ml = w.MetadataLogWriter(directory)
    _start(ml, [1])  # offsets 0-1, 2
    ml.append([w.metadata_record("TopicRecord", {"name": "orders", "topicId": ORDERS}),
               _partition(ORDERS, 0, [1], 1), _partition(ORDERS, 1, [1], 1),
               w.metadata_record("TopicRecord", {"name": "__consumer_offsets",
                                                 "topicId": OFFSETS}),
               _partition(OFFSETS, 0, [1], 1)], timestamp=TS + 2000)  # 3-7
    assert ml.next_offset == SHUTDOWN_OFFSET
    ml.append([w.metadata_record("BrokerRegistrationChangeRecord", {
        "brokerId": 1, "brokerEpoch": 10, "inControlledShutdown": 1})], timestamp=STOP_TS)
    ml.append([_change(ORDERS, 0, leader=-1), _change(ORDERS, 1, leader=-1),
               _change(OFFSETS, 0, leader=-1)], timestamp=STOP_TS)  # 9-11
    fence = ml.append([w.metadata_record("BrokerRegistrationChangeRecord", {
        "brokerId": 1, "brokerEpoch": 10, "fenced": 1})], timestamp=STOP_TS + 80)
    assert fence == FENCE_OFFSET
    ml.close()


def stopped_logdir(root: Path) -> Path:
    """``root/b1``: the stopped single broker's log dir (see the module docstring)."""
    b = w.broker_logdir(root / "b1", 1, high_watermarks=[("orders", 0, 30), ("orders", 1, 10)])
    stopped_metadata(b / "__cluster_metadata-0")
    w.write_replica(b / "orders-0", w.replica_batches([(0, 20, 0), (20, 10, 0)]))
    w.write_replica(b / "orders-1", w.replica_batches([(0, 10, 0)]))
    # __consumer_offsets-0, which it led, never written: an empty active segment (the
    # log Kafka creates for an assigned replica, LogManager.getOrCreateLog)
    (b / "__consumer_offsets-0").mkdir()
    (b / "__consumer_offsets-0" / "00000000000000000000.log").write_bytes(b"")
    return b


def fenced_metadata(directory: Path) -> int:
    """Three brokers, orders-0/1/2 on all three (leaders 1, 2, 3), solo-0 on broker 3
    alone; broker 3's session times out: orders-2 moves to broker 1, the ISRs lose 3,
    solo-0 has no leader, broker 3 is fenced.  Returns the fence's offset."""
    ml = w.MetadataLogWriter(directory)
    _start(ml, [1, 2, 3])
    ml.append([w.metadata_record("TopicRecord", {"name": "orders", "topicId": ORDERS}),
               *[_partition(ORDERS, p, [1, 2, 3], p + 1) for p in range(3)],
               w.metadata_record("TopicRecord", {"name": "solo", "topicId": SOLO}),
               _partition(SOLO, 0, [3], 3)], timestamp=TS + 2000)
    ml.append([_change(ORDERS, 0, isr=[1, 2]), _change(ORDERS, 1, isr=[1, 2]),
               _change(ORDERS, 2, isr=[1, 2], leader=1), _change(SOLO, 0, leader=-1)],
              timestamp=STOP_TS)
    fence = ml.append([w.metadata_record("BrokerRegistrationChangeRecord", {
        "brokerId": 3, "brokerEpoch": 30, "fenced": 1})], timestamp=STOP_TS)
    ml.close()
    return fence


def fenced_cluster(root: Path) -> list[Path]:
    """``root/b1``, ``b2``, ``b3``: each broker's log dir with its replicas and the
    metadata log (see :func:`fenced_metadata`)."""
    dirs = []
    for bid in (1, 2, 3):
        b = w.broker_logdir(root / f"b{bid}", bid)
        fenced_metadata(b / "__cluster_metadata-0")
        for p in range(3):
            w.write_replica(b / f"orders-{p}", w.replica_batches([(0, 10, 0)]))
        if bid == 3:
            w.write_replica(b / "solo-0", w.replica_batches([(0, 5, 0)]))
        dirs.append(b)
    return dirs
