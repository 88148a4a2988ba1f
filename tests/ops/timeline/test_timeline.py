"""``kdump timeline``'s events, source by source, on log dirs written by the project's
encoder: the three-broker KRaft cluster of tests/support/timeline_fixture.py (a broker
restart, a leader change, a rebalance, an aborted transaction, a hanging one), the
fenced cluster of tests/support/cluster_fixtures.py, a ZooKeeper-era log dir and damaged
segments.  Expectations are written out by hand from the fixtures' records."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from kdump.findings import Problem
from kdump.model import type_errors
from kdump.ops.timeline import (
    TimelineCount,
    TimelineEnd,
    TimelineEvent,
    TimelineOptions,
    partition_events,
    timeline,
)
from kdump.ops.timeline.event import TimelineEvent as Ev
from kdump.ops.timeline.event import coalesce, merge, reorder
from tests.support import writer as w
from tests.support.cluster_fixtures import fenced_cluster
from tests.support.timeline_fixture import TS, write_cluster


def _no_runs(src: object, buf: bytes, buf_at: int, pos: int, last_size: int, prev_last: int,
             *rest: object) -> tuple[int, bytes, int, int, int, int, int, int, int, int]:
    """No run: every batch through the walk's Python, one at a time (the walk before runs)."""
    return pos, buf, buf_at, last_size, 0, prev_last, -1, -1, 0, 0


@pytest.fixture(autouse=True, params=["native", "python", "none"])
def header_runs(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test three ways: the header walk's runs of batches that change nothing in C,
    in its pure-Python twin, and no runs (each batch alone): the same events, bytes read."""
    from kdump.ops.compare_replicas import header_run, headers

    if request.param == "python":
        monkeypatch.setattr(header_run, "_native", None)
    elif request.param == "none":
        monkeypatch.setattr(headers, "header_run", _no_runs)
    return str(request.param)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return [str(p) for p in write_cluster(tmp_path_factory.mktemp("timeline") / "c")]


def events(paths: list[str], **opts: object) -> list[TimelineEvent]:
    return [e for e in timeline(paths, TimelineOptions(**opts))  # type: ignore[arg-type]
            if isinstance(e, TimelineEvent)]


def lines(evs: list[TimelineEvent]) -> list[str]:
    return [f"{'~' if e.estimate else ''}{(e.time or 0) - TS} {e.clock} {e.kind} {e.object}: "
            f"{e.text}" for e in evs]


def test_metadata_events_brokers_restart_and_leaders(cluster: list[str]) -> None:
    got = lines([e for e in events(cluster) if e.source == "metadata"])
    assert got == [
        "0 controller quorum-leader quorum: controller 1 leads the quorum, epoch 1 (voters [1,2,3])",
        "0 controller feature-created features/metadata.version: created",
        "0 controller broker-registered broker 1: registered, epoch 10, fenced",
        "0 controller broker-registered broker 2: registered, epoch 20, fenced",
        "0 controller broker-registered broker 3: registered, epoch 30, fenced",
        "1000 controller broker-unfenced broker 1: unfenced",
        "1000 controller broker-unfenced broker 2: unfenced",
        "1000 controller broker-unfenced broker 3: unfenced",
        "2000 controller topic-created orders: created",
        "2000 controller partition-created orders/0: created: replicas [1,2,3], leader 1, epoch 0",
        "2000 controller partition-created orders/1: created: replicas [1,2,3], leader 2, epoch 0",
        "2000 controller topic-created __consumer_offsets: created",
        "2000 controller partition-created __consumer_offsets/0: created: replicas [1,2,3], "
        "leader 1, epoch 0",
        "2000 controller topic-created __transaction_state: created",
        "2000 controller partition-created __transaction_state/0: created: replicas [1,2,3], "
        "leader 1, epoch 0",
        "60000 controller broker-shutdown broker 2: in controlled shutdown",
        "60050 controller leader-change orders/1: leader 2 -> 3, epoch 1, isr [1,2,3] -> [1,3]",
        "60050 controller isr-change orders/0: isr [1,2,3] -> [1,3]",
        "60050 controller isr-change __consumer_offsets/0: isr [1,2,3] -> [1,3]",
        "60050 controller isr-change __transaction_state/0: isr [1,2,3] -> [1,3]",
        "60080 controller broker-fenced broker 2: fenced",
        "90000 controller broker-registered broker 2: re-registered (a restart): epoch 20 -> 25, "
        "fenced",
        "91000 controller broker-unfenced broker 2: unfenced",
        "100000 controller isr-change orders/0: isr [1,3] -> [1,3,2]",
        "100000 controller isr-change orders/1: isr [1,3] -> [3,1,2]",
        "100000 controller isr-change __consumer_offsets/0: isr [1,3] -> [1,3,2]",
        "100000 controller isr-change __transaction_state/0: isr [1,3] -> [1,3,2]",
    ]
    fence = next(e for e in events(cluster) if e.kind == "broker-fenced")
    assert fence.file is not None and fence.file.endswith(
        "broker-1/__cluster_metadata-0/00000000000000000000.log")
    assert (fence.offset, fence.position) == (20, 1604)


def test_replica_events_epochs_rolls_log_start_and_last_stop(cluster: list[str]) -> None:
    got = lines([e for e in events(cluster) if e.source in ("replica", "logdir")
                 and e.topic in ("orders", None)])
    assert got == [
        "~5009 producer log-start orders/0: log starts at offset 0 on brokers 1, 2, 3",
        "5009 producer epoch-start orders/0: epoch 0 starts at offset 0 on brokers 1, 2, 3",
        "~6009 producer log-start orders/1: log starts at offset 0 on brokers 1, 2, 3",
        "6009 producer epoch-start orders/1: epoch 0 starts at offset 0 on brokers 1, 2, 3",
        "65009 producer epoch-start orders/1: epoch 1 starts at offset 10 on brokers 1, 2, 3",
        "~110004 producer segment-roll orders/0: segment 00000000000000000020.log rolled on "
        "broker 1 at offset 20 (at about its first batch's time; the previous segment's last "
        "batch: 2023-11-14T22:13:30.009Z)",
        "~180004 producer clean-shutdown broker 1: last stop was clean (.kafka_cleanshutdown), "
        "after the log dir's last batch",
        "~180004 producer unclean-shutdown broker 2: last stop was not clean (no "
        ".kafka_cleanshutdown; or the copy was taken while it ran): the broker recovers its "
        "logs from the recovery point on its next start",
        "~180004 producer clean-shutdown broker 3: last stop was clean (.kafka_cleanshutdown), "
        "after the log dir's last batch",
    ]
    epoch1 = next(e for e in events(cluster) if e.kind == "epoch-start" and e.offset == 10)
    assert epoch1.replicas is not None and [r["broker"] for r in epoch1.replicas] == [1, 2, 3]
    assert epoch1.related == ["orders/1: leader 2 -> 3, epoch 1, isr [1,2,3] -> [1,3] "
                              "(2023-11-14T22:14:20.050Z, metadata offset 16)"]


def test_producer_events_from_batch_headers(cluster: list[str]) -> None:
    got = lines([e for e in events(cluster) if e.source == "producer" or e.kind == "txn-open"])
    on = "(on brokers 1, 2, 3)"
    assert got == [
        f"110004 producer txn-begin orders/0: transaction of producer 4001 epoch 0 begins at "
        f"offset 20 {on}",
        f"120000 broker txn-abort orders/0: transaction of producer 4001 epoch 0 aborted "
        f"(coordinator epoch 5), begun at offset 20 {on}",
        f"140004 producer producer-epoch orders/0: producer 4001 epoch 0 -> 1 (a new session of "
        f"its transactional id, or a fencing) {on}",
        f"140004 producer txn-begin orders/0: transaction of producer 4001 epoch 1 begins at "
        f"offset 26 {on}",
        f"150000 broker txn-commit orders/0: transaction of producer 4001 epoch 1 committed "
        f"(coordinator epoch 5), begun at offset 26 {on}",
        f"170002 producer txn-begin orders/0: transaction of producer 4002 epoch 0 begins at "
        f"offset 32 {on}",
        "~180004 producer txn-open orders/0: transaction of producer 4002 epoch 0 still open at "
        "the log's end on brokers 1, 2, 3: begun at offset 32 (2023-11-14T22:16:10.002Z), 10s "
        "before the log's last batch; it holds the last stable offset back",
    ]
    hanging = next(e for e in events(cluster) if e.kind == "txn-open")
    assert hanging.related == [
        "transactional id stuck-tx: producer 4002 epoch 0: Ongoing, partitions orders-0, begun "
        "2023-11-14T22:16:09.000Z (2023-11-14T22:16:09.000Z, transaction-state offset 6)"]


def test_group_events_summarise_commits_per_partition(cluster: list[str]) -> None:
    got = lines(events(cluster, groups=("payments",)))
    assert got == [
        "30000 coordinator group-rebalance group payments: generation 1, protocol range, "
        "1 member; member pay-app-m1 (host /10.0.0.7): orders-0,1",
        "35000 coordinator offsets-committed group payments: committed offset 4 on orders/1",
        "45000 coordinator offsets-committed group payments: committed offsets 5 -> 15 on "
        "orders/0 (3 commits since 2023-11-14T22:13:55.000Z)",
        "70000 coordinator group-rebalance group payments: generation 1 -> 2, protocol range, "
        "2 members, joined pay-app-m2; member pay-app-m1 (host /10.0.0.7): orders-0; "
        "member pay-app-m2 (host /10.0.0.7): orders-1",
        "75000 coordinator offsets-committed group payments: committed offset 20 on orders/0",
        "76000 coordinator offsets-committed group payments: committed offset 12 on orders/1",
        "95000 coordinator group-rebalance group payments: generation 2 -> 3, protocol range, "
        "1 member, left pay-app-m2; member pay-app-m1 (host /10.0.0.7): orders-0,1",
        "175000 coordinator offsets-committed group payments: committed offset 35 on orders/0",
    ]
    second = next(e for e in events(cluster, groups=("payments",))
                  if e.kind == "group-rebalance" and "-> 2" in e.text)
    assert second.to_json()["members"] == [
        {"member_id": m, "client_id": "pay-app", "client_host": "/10.0.0.7",
         "group_instance_id": None, "subscribed": ["orders"],
         "assigned": [{"topic": "orders", "partitions": [p]}]}
        for m, p in (("pay-app-m1", 0), ("pay-app-m2", 1))]


def test_a_rebalance_says_each_members_assignment(tmp_path: Path) -> None:
    """A classic consumer group's GroupMetadataValue carries each member's subscription
    and assignment as ConsumerProtocol bytes (any of versions 0-3): the rebalance says
    which partitions each member got (the first ten members; JSON ``members``: all), a
    client id the member id does not start with, a static member's instance id; bytes
    that do not decode are said so, never guessed; another protocol type (connect)
    says none.  An assignment changed at the same generation and members (a static
    member's rejoin stores the group again) is a rebalance event too."""
    from tests.support.timeline_fixture import _coord, consumer_assignment, consumer_subscription

    def group(gen: int, members: list[tuple[str, str, str | None, bytes]], ts: int,
              ptype: str = "consumer") -> w.Rec:
        return _coord("group", 2, {"group": "g"}, {
            "protocolType": ptype, "generation": gen, "protocol": "range",
            "leader": members[0][0], "currentStateTimestamp": ts,
            "members": [{"memberId": m, "groupInstanceId": inst, "clientId": client,
                         "clientHost": "/10.0.0.1", "rebalanceTimeout": 300000,
                         "sessionTimeout": 45000,
                         "subscription": consumer_subscription(["orders", "refunds"], v),
                         "assignment": asg}
                        for v, (m, client, inst, asg) in enumerate(members)]}, 3, ts)

    many = [(f"m-{k}", f"c-{k}", None, consumer_assignment({"orders": [k]}, k % 4))
            for k in range(12)]
    recs = [group(1, [("m-1", "c-1", None, consumer_assignment(
                       {"orders": [0, 1, 2], "refunds": [3]}, 0)),
                      ("m-2", "c-2", "i-2", consumer_assignment({}, 1)),
                      ("m-3", "c-3", None, b"\x00\x09junk")], TS),
            group(1, [("m-1", "c-1", None, consumer_assignment({"orders": [0]}, 2)),
                      ("m-2", "c-2", "i-2", consumer_assignment({"orders": [1, 2]}, 3)),
                      ("m-3", "c-3", None, b"\x00\x09junk")], TS + 1000),
            group(2, many, TS + 2000),
            group(3, [("w-1", "c-1", None, b"\x00\x00")], TS + 3000, "connect")]
    b = w.broker_logdir(tmp_path / "b", 1)
    w.write_replica(b / "__consumer_offsets-0", [
        w.v2_batch([r], base_offset=k, first_timestamp=r.timestamp)
        for k, r in enumerate(recs)])
    evs = [e for e in events([str(b)]) if e.kind == "group-rebalance"]
    assert [e.text for e in evs] == [
        "generation 1, protocol range, 3 members; member m-1 (client c-1, host /10.0.0.1): "
        "orders-0,1,2, refunds-3; member m-2 (client c-2, instance i-2, host /10.0.0.1): "
        "nothing; member m-3 (client c-3, host /10.0.0.1): assignment not decoded",
        "generation 1, protocol range, 3 members; member m-1 (client c-1, host /10.0.0.1): "
        "orders-0; member m-2 (client c-2, instance i-2, host /10.0.0.1): orders-1,2; "
        "member m-3 (client c-3, host /10.0.0.1): assignment not decoded",
        "generation 1 -> 2, protocol range, 12 members, joined m-0 (c-0), m-10 (c-10), "
        "m-11 (c-11), m-4 (c-4), m-5 (c-5), m-6 (c-6), m-7 (c-7), m-8 (c-8), m-9 (c-9); "
        + "; ".join(f"member m-{k} (client c-{k}, host /10.0.0.1): orders-{k}"
                    for k in range(10)) + "; and 2 more members",
        "generation 2 -> 3, protocol range, 1 member, joined w-1 (c-1), left m-0 (c-0), "
        "m-1 (c-1), m-10 (c-10), m-11 (c-11), m-2 (c-2), m-3 (c-3), m-4 (c-4), m-5 (c-5), "
        "m-6 (c-6), m-7 (c-7), m-8 (c-8), m-9 (c-9)"]
    assert [len(e.members or ()) for e in evs] == [3, 3, 12, 0]
    assert evs[0].to_json()["members"][2] == {
        "member_id": "m-3", "client_id": "c-3", "client_host": "/10.0.0.1",
        "group_instance_id": None, "subscribed": ["orders", "refunds"], "assigned": None}
    assert "members" not in evs[3].to_json()
    for e in evs:
        assert type_errors(e.to_json()) == []


def test_transaction_coordinator_events(cluster: list[str]) -> None:
    got = lines([e for e in events(cluster, kinds=("txn-state",))])
    assert got == [
        "109000 coordinator txn-state transactional id payments-tx: producer 4001 epoch 0: "
        "Ongoing, partitions orders-0, begun 2023-11-14T22:15:09.000Z",
        "119000 coordinator txn-state transactional id payments-tx: producer 4001 epoch 0: "
        "PrepareAbort, partitions orders-0, begun 2023-11-14T22:15:09.000Z",
        "120500 coordinator txn-state transactional id payments-tx: producer 4001 epoch 0: "
        "CompleteAbort, partitions orders-0",
        "139000 coordinator txn-state transactional id payments-tx: producer 4001 epoch 1: "
        "Ongoing, epoch 0 -> 1, partitions orders-0, begun 2023-11-14T22:15:39.000Z",
        "149000 coordinator txn-state transactional id payments-tx: producer 4001 epoch 1: "
        "PrepareCommit, partitions orders-0, begun 2023-11-14T22:15:39.000Z",
        "150500 coordinator txn-state transactional id payments-tx: producer 4001 epoch 1: "
        "CompleteCommit, partitions orders-0",
        "169000 coordinator txn-state transactional id stuck-tx: producer 4002 epoch 0: "
        "Ongoing, partitions orders-0, begun 2023-11-14T22:16:09.000Z",
    ]


def test_isr_shrinks_and_the_fencing_explain_each_other(tmp_path: Path) -> None:
    dirs = [str(p) for p in fenced_cluster(tmp_path)]
    evs = events(dirs, kinds=("isr-change", "leader-change", "broker-fenced"))
    fence = evs[-1]
    assert fence.kind == "broker-fenced"
    assert fence.related == [
        "orders/0: isr [1,2,3] -> [1,2] (2023-11-14T23:13:20.000Z, metadata offset 13)",
        "orders/1: isr [1,2,3] -> [1,2] (2023-11-14T23:13:20.000Z, metadata offset 14)",
        "orders/2: leader 3 -> 1, epoch 1, isr [1,2,3] -> [1,2] (2023-11-14T23:13:20.000Z, "
        "metadata offset 15)",
        "solo/0: leader 3 -> none, epoch 1 (2023-11-14T23:13:20.000Z, metadata offset 16)"]
    assert [e.related for e in evs[:-1]] == [
        ["broker 3: fenced (2023-11-14T23:13:20.000Z, metadata offset 17)"]] * 4


def test_events_are_in_time_order_and_match_the_model(cluster: list[str]) -> None:
    items = list(timeline(cluster))
    evs = [e for e in items if isinstance(e, TimelineEvent)]
    times = [e.time for e in evs if e.time is not None]
    assert times == sorted(times) and not any(e.late for e in evs)
    end = items[-1]
    assert isinstance(end, TimelineEnd)
    assert (end.events, end.shown, end.late) == (len(evs), len(evs), 0)
    for obj in [e.to_json() for e in evs] + [end.to_json()]:
        assert type_errors(obj) == [], obj


def test_filters(cluster: list[str]) -> None:
    around = events(cluster, start=TS + 60_000, end=TS + 60_080)
    assert [e.kind for e in around] == ["broker-shutdown", "leader-change", "isr-change",
                                        "isr-change", "isr-change", "broker-fenced"]
    assert {e.object for e in events(cluster, brokers=(2,), kinds=("broker",))} == {"broker 2"}
    # a partition change naming broker 2 among its replicas, ISR or leader is about it too
    assert [e.object for e in events(cluster, brokers=(3,), kinds=("leader",))] == ["orders/1"]
    only = events(cluster, topics=("orders",), partitions=(1,), kinds=("epoch",))
    assert [e.text for e in only] == ["epoch 0 starts at offset 0 on brokers 1, 2, 3",
                                      "epoch 1 starts at offset 10 on brokers 1, 2, 3"]
    assert [e.text for e in partition_events(cluster, "orders", 1)][:2] == [
        "created: replicas [1,2,3], leader 2, epoch 0", "log starts at offset 0 on brokers 1, 2, 3"]


def test_summary_counts_per_kind_per_minute(cluster: list[str]) -> None:
    got = [(c.minute - TS + TS % 60_000, c.kind, c.count)
           for c in timeline(cluster, TimelineOptions(summary=True, kinds=("broker", "txn")))
           if isinstance(c, TimelineCount)]
    assert got == [(0, "broker-registered", 3), (0, "broker-unfenced", 3),
                   (60_000, "broker-fenced", 1), (60_000, "broker-registered", 1),
                   (60_000, "broker-shutdown", 1), (60_000, "broker-unfenced", 1),
                   (120_000, "txn-abort", 1), (120_000, "txn-begin", 2),
                   (120_000, "txn-commit", 1), (120_000, "txn-state", 6),
                   (180_000, "txn-begin", 1), (180_000, "txn-open", 1),
                   (180_000, "txn-state", 1)]


def test_zookeeper_era_log_dir_says_it_has_no_metadata_log(tmp_path: Path) -> None:
    b = w.broker_logdir(tmp_path / "zk", 0)  # meta.properties version 0
    w.write_replica(b / "orders-0", w.replica_batches([(0, 5, 0), (5, 5, 3)]))
    got = lines(events([str(b)]))
    assert got[0] == (
        f"{-TS} unknown no-metadata-log broker 0: no KRaft metadata log among the inputs "
        "(meta.properties version 0: a ZooKeeper-era log dir): brokers, leaders, ISRs, "
        "topics and configs have no history here (ZooKeeper or another log dir holds it); "
        "replicas, producers and groups are read from the files")
    assert [g.split(": ", 1)[1] for g in got[1:]] == [
        "log starts at offset 0 on broker 0", "epoch 0 starts at offset 0 on broker 0",
        "epoch 3 starts at offset 5 on broker 0",
        "last stop was not clean (no .kafka_cleanshutdown; or the copy was taken while it "
        "ran): the broker recovers its logs from the recovery point on its next start"]


def test_log_dirs_with_no_partition_still_say_what_they_can(tmp_path: Path) -> None:
    """A ZooKeeper-era cluster's log dirs where only one broker holds a partition (a
    real 3-broker cluster's: brokers 1 and 3 held only empty checkpoints): each log dir
    says it has no metadata log and its last stop (no batch dates it); a log dir only
    formatted (meta.properties alone: no broker ever wrote its checkpoints) says
    nothing."""
    w.broker_logdir(tmp_path / "b1", 1, high_watermarks=[])
    b2 = w.broker_logdir(tmp_path / "b2", 2, high_watermarks=[("orders", 0, 5)])
    w.write_replica(b2 / "orders-0", w.replica_batches([(0, 5, 0)]))
    b3 = w.broker_logdir(tmp_path / "b3", 3, high_watermarks=[])
    (b3 / ".kafka_cleanshutdown").write_bytes(b"")
    fresh = w.broker_logdir(tmp_path / "b4", 4)
    items = list(timeline([str(tmp_path)]))
    evs = [e for e in items if isinstance(e, TimelineEvent)]
    assert [(e.kind, e.object, e.time is None) for e in evs if e.kind != "epoch-start"
            and e.kind != "log-start"] == [
        ("no-metadata-log", "broker 1", True), ("no-metadata-log", "broker 2", True),
        ("no-metadata-log", "broker 3", True), ("unclean-shutdown", "broker 1", True),
        ("clean-shutdown", "broker 3", True), ("unclean-shutdown", "broker 2", False)]
    end = items[-1]
    assert isinstance(end, TimelineEnd)
    assert [(s["source"], s["broker"]) for s in end.sources] == [
        ("log_dir", 2), ("log_dir", 1), ("log_dir", 3)]
    assert str(fresh) not in {e.log_dir for e in evs}


def test_one_node_twice_is_no_truncation(tmp_path: Path) -> None:
    """Two log dirs of one node (an earlier run's copy beside the current one: a real
    KRaft cluster's repository held both, node 1's 52 partitions in each) are not a
    leader and its follower: each twin's copy stands alone, as compare-replicas reads
    them, so their difference is no truncation (it was said as one, exit 1)."""
    old = w.broker_logdir(tmp_path / "old", 1)
    w.write_replica(old / "orders-0", w.replica_batches([(0, 10, 0)]))
    new = w.broker_logdir(tmp_path / "new", 1)
    w.write_replica(new / "orders-0", w.replica_batches([(0, 5, 0), (5, 5, 2)]))
    two = w.broker_logdir(tmp_path / "two", 2)
    w.write_replica(two / "orders-0", w.replica_batches([(0, 5, 0), (5, 5, 2)]))
    items = list(timeline([str(old), str(new), str(two)]))
    assert [p.kind for p in items if isinstance(p, Problem)] == ["node-twice"]
    evs = [e for e in items if isinstance(e, TimelineEvent)]
    assert [e.kind for e in evs if e.kind in ("truncation", "finding", "data-lost")] == []
    assert [e.text for e in evs if e.kind == "epoch-start"] == [
        "epoch 0 starts at offset 0 on brokers 1, 2", "epoch 2 starts at offset 5 on brokers 1, 2",
        "epoch 0 starts at offset 0 on broker 1"]


def test_damage_is_a_finding_placed_after_the_last_good_batch(tmp_path: Path) -> None:
    b = w.broker_logdir(tmp_path / "b", 1)
    w.write_replica(b / "orders-0", w.replica_batches([(0, 5, 0), (5, 5, 0), (10, 5, 0)]))
    seg = b / "orders-0" / "00000000000000000000.log"
    data = bytearray(seg.read_bytes())
    second = 12 + int.from_bytes(data[8:12], "big")  # the first batch's size
    data[second + 16] = 7  # the second batch's magic: headers stop framing there
    seg.write_bytes(bytes(data))
    items = list(timeline([str(b)]))
    finding = next(e for e in items if isinstance(e, TimelineEvent) and e.kind == "finding")
    problems = [p for p in items if isinstance(p, Problem)]
    assert finding.estimate and finding.severity == "error"
    assert finding.problem in problems
    assert finding.time == w.TS0 + 4  # the first batch's last record
    assert finding.text.split(":")[0] == problems[0].kind


def test_reorder_puts_nearby_disorder_right_and_marks_the_rest_late() -> None:
    evs = [Ev(t, "producer", "x", "replica", "o", str(t)) for t in (5, 3, 4, 1, 9, 2)]
    out = list(reorder(evs, size=2))
    # a heap of 2: 3 goes first; 1 comes after it (late); 4; 2 (late); then 5 and 9
    assert [(e.time, e.late) for e in out] == [(3, False), (1, True), (4, False), (2, True),
                                               (5, False), (9, False)]
    merged = list(merge([[Ev(1, "c", "a", "s", "o", ""), Ev(4, "c", "a", "s", "o", "")],
                         [Ev(2, "c", "b", "s", "o", "")]]))
    assert [e.time for e in merged] == [1, 2, 4]


def test_coalesce_says_an_event_of_several_replicas_once() -> None:
    def ev(b: int, t: int = 7) -> Ev:
        return Ev(t, "producer", "epoch-start", "replica", "t/0",
                  f"epoch 1 starts at offset 3 on broker {b}", broker=b, offset=3,
                  where=f"on broker {b}", file=f"b{b}/x.log", position=0)

    out = list(coalesce([ev(1), ev(2), ev(3, t=8)]))
    assert [e.text for e in out] == ["epoch 1 starts at offset 3 on brokers 1, 2",
                                     "epoch 1 starts at offset 3 on broker 3"]
    assert out[0].replicas == [{"broker": 1, "log_dir": None, "file": "b1/x.log", "position": 0},
                               {"broker": 2, "log_dir": None, "file": "b2/x.log", "position": 0}]


def test_data_topics_are_read_by_batch_headers(tmp_path: Path) -> None:
    """A replica of large batches costs about 61 bytes a batch, not its size."""
    b = w.broker_logdir(tmp_path / "big", 1)
    recs = [w.Rec(key=b"k", value=b"x" * 20_000, timestamp=w.TS0 + i) for i in range(5)]
    w.write_replica(b / "big-0", [w.v2_batch(recs, base_offset=5 * k) for k in range(40)])
    size = (b / "big-0" / "00000000000000000000.log").stat().st_size
    items = list(timeline([str(b)]))
    end = items[-1]
    assert isinstance(end, TimelineEnd)
    # the first 256 KiB window (it holds the first three headers), then each of the 37
    # other headers alone (kdump.ops.compare_replicas.headers)
    assert end.bytes_read == (256 << 10) + 37 * 61
    assert size > 40 * 100_000


def test_an_offset_going_back_is_said(tmp_path: Path) -> None:
    """A commit below the one before it (kafka-consumer-groups --reset-offsets, a rewind)
    is said on its window's summary; internal topics' batches are on the coordinator's
    clock."""
    from tests.support.timeline_fixture import _commit

    b = w.broker_logdir(tmp_path / "b", 1)
    recs = [_commit(0, 5, TS + 1000), _commit(0, 10, TS + 2000), _commit(0, 2, TS + 3000)]
    w.write_replica(b / "__consumer_offsets-0",
                    [w.v2_batch([r], base_offset=k, first_timestamp=r.timestamp)
                     for k, r in enumerate(recs)])
    got = lines(events([str(b)], kinds=("offsets", "log-start")))
    assert got == [
        "~1000 coordinator log-start __consumer_offsets/0: log starts at offset 0 on broker 1",
        "3000 coordinator offsets-committed group payments: committed offsets 5 -> 2 on "
        "orders/0 (3 commits since 2023-11-14T22:13:21.000Z); went back from 10 to 2 (an "
        "offset reset or rewind)"]


def test_a_diverged_replica_is_a_truncation_next_to_the_leader_change(tmp_path: Path) -> None:
    """Broker 2 led orders-0 in epoch 0 and wrote offsets 20-29 that broker 1, leader in
    epoch 1 from offset 20, does not have: following broker 1, broker 2 truncates to 20
    (compare-replicas' rules), and the metadata log's leader change to epoch 1 says why."""
    tid = w.uuid_of(7)
    dirs = []
    for bid in (1, 2):
        b = w.broker_logdir(tmp_path / f"b{bid}", bid)
        ml = w.MetadataLogWriter(b / "__cluster_metadata-0")
        ml.append([w.metadata_record("TopicRecord", {"name": "orders", "topicId": tid}),
                   w.metadata_record("PartitionRecord", {
                       "partitionId": 0, "topicId": tid, "replicas": [1, 2], "isr": [1, 2],
                       "leader": 2, "leaderEpoch": 0, "partitionEpoch": 0})], timestamp=TS)
        ml.append([w.metadata_record("PartitionChangeRecord", {
            "partitionId": 0, "topicId": tid, "leader": 1, "isr": [1]})], timestamp=TS + 500)
        ml.close()
        spans = [(0, 20, 0), (20, 10, 1 if bid == 1 else 0)]
        w.write_replica(b / "orders-0", w.replica_batches(spans, tag=f"b{bid}-"))
        dirs.append(str(b))
    cut = [e for e in events(dirs) if e.kind == "truncation"]
    assert lines(cut) == [
        "~29 producer truncation orders/0: offsets 20 to 29 on broker 2 are not on broker 1's "
        "replica (epoch 1 starts at offset 20 there): following it, this replica truncates to "
        "offset 20 (end offset of epoch 0, the largest epoch both hold (leader: 20, "
        "follower: 30))"]
    assert cut[0].related == ["orders/0: leader 2 -> 1, epoch 1, isr [1,2] -> [1] "
                              "(2023-11-14T22:13:20.500Z, metadata offset 2)"]


def test_a_clean_shutdown_names_its_broker_epoch(tmp_path: Path) -> None:
    """3.7+ write {"version": 0, "brokerEpoch": N} in .kafka_cleanshutdown
    (CleanShutdownFileHandler); older brokers leave it empty."""
    b = w.broker_logdir(tmp_path / "b", 1)
    w.write_replica(b / "orders-0", w.replica_batches([(0, 5, 0)]))
    (b / ".kafka_cleanshutdown").write_text('{"version":0,"brokerEpoch":25}')
    (stop,) = [e for e in events([str(b)]) if e.kind == "clean-shutdown"]
    assert stop.text == ("last stop was clean (.kafka_cleanshutdown with broker epoch 25), "
                         "after the log dir's last batch")


def test_correlation_holds_a_bounded_window() -> None:
    """Events come out of the correlation once a minute of later ones has come, or past
    MAX_HELD held: never the whole stream."""
    from kdump.ops.timeline.correlate import MAX_HELD, WINDOW_MS, correlate

    pulled = 0

    def stream() -> Iterator[Ev]:
        nonlocal pulled
        for k in range(3 * MAX_HELD):
            pulled += 1
            yield Ev(TS, "controller", "isr-change", "metadata", f"t/{k}", "isr [1,2] -> [1]",
                     keys=(("broker-down", 2),))
        pulled += 1
        yield Ev(TS + WINDOW_MS + 1, "controller", "broker-fenced", "metadata", "broker 2",
                 "fenced", keys=(("broker-down", 2),))

    out = correlate(stream())
    first = next(out)
    assert first.object == "t/0" and pulled == MAX_HELD + 1
    rest = list(out)
    assert rest[-1].kind == "broker-fenced" and rest[-1].related == []  # a minute too late
    assert rest[0].related_more == 0 and rest[-2].related == []


def test_many_partitions_do_not_hold_many_open_files(tmp_path: Path) -> None:
    """A replica with few events is read whole as the merge starts (its reorder heap,
    REPLICA_REORDER events, takes them all), its files closed: 300 partitions merged
    hold a handful of descriptors, not 300."""
    import os

    b = w.broker_logdir(tmp_path / "b", 1)
    for p in range(300):
        w.write_replica(b / f"t-{p}", w.replica_batches([(0, 2, 0), (2, 2, 1)]))
    fds = []
    for k, _ in enumerate(timeline([str(b)])):
        if k == 100:
            fds.append(len(os.listdir("/proc/self/fd")))
    baseline = len(os.listdir("/proc/self/fd"))
    assert fds and fds[0] - baseline < 10


def test_history_before_a_snapshot_is_said_to_be_missing(tmp_path: Path) -> None:
    """A log starting after a snapshot: the snapshot's records are the image, not its
    history - one event says so; the log's records after it are events as usual."""
    b = w.broker_logdir(tmp_path / "b", 1)
    meta = b / "__cluster_metadata-0"
    meta.mkdir()
    w.metadata_snapshot(meta / "00000000000000000005-0000000001.checkpoint", [
        w.metadata_record("FeatureLevelRecord", {"name": "metadata.version",
                                                 "featureLevel": 21}),
        w.metadata_record("RegisterBrokerRecord", {
            "brokerId": 1, "incarnationId": w.uuid_of(1), "brokerEpoch": 10,
            "endPoints": [], "rack": None, "fenced": False})], timestamp=TS)
    ml = w.MetadataLogWriter(meta)
    ml.skip(5)
    ml.append([w.metadata_record("BrokerRegistrationChangeRecord", {
        "brokerId": 1, "brokerEpoch": 10, "fenced": 1})], timestamp=TS + 1000)
    ml.close()
    got = lines([e for e in events([str(b)]) if e.source == "metadata"])
    assert got == [
        "0 controller metadata-snapshot metadata log: history starts from a snapshot: the "
        "image as of offset 4 (2023-11-14T22:13:20.000Z); events before it are not in the "
        "log",
        "1000 controller broker-fenced broker 1: fenced"]


def test_data_lost_is_placed_between_the_batches_around_it(tmp_path: Path) -> None:
    """Offsets the witnesses prove written and no batch holds (verify-crc's data-lost):
    a lost segment (the witnesses of offsets 10-19: the high watermark, its time index's
    entry, the next segment's name) and a torn tail (the high watermark), each an error
    finding placed after the batch before it and before the one after it."""
    b = w.broker_logdir(tmp_path / "b", 1, high_watermarks=[("orders", 0, 40)])
    w.write_replica(b / "orders-0", w.replica_batches([(0, 10, 0), (10, 10, 0), (20, 10, 0)]),
                    roll_before={1, 2})
    (b / "orders-0" / "00000000000000000010.log").unlink()
    items = list(timeline([str(b)]))
    lost = [e for e in items if isinstance(e, TimelineEvent) and e.kind == "data-lost"]
    assert lines(lost) == [
        "~9 producer data-lost orders/0: offsets 10-19 (10) lost on broker 1: written "
        "(high watermark 40, time index entry 19, segment 20), in no batch on disk (after "
        "2023-11-14T22:13:20.009Z, before 2023-11-14T22:13:20.029Z)",
        "~29 producer data-lost orders/0: offsets 30-39 (10) lost on broker 1: written "
        "(high watermark 40), in no batch on disk (after 2023-11-14T22:13:20.029Z: the "
        "log's tail)"]
    assert all(e.problem is not None and e.problem.kind == "data-lost" for e in lost)
    assert sum(isinstance(p, Problem) and p.kind == "data-lost" for p in items) == 2


def test_new_group_protocols_epochs_members_and_deletions(tmp_path: Path) -> None:
    """KIP-848 consumer and KIP-1071 streams groups (Kafka 4.3's records, encoded by
    tests/support/group_records.py): a group epoch is a rebalance, a member record a join
    (its tombstone a leave), a metadata tombstone the group's deletion; dated by their
    batch (the coordinator's clock)."""
    from tests.support import group_records as gr

    cr = gr.coordinator_record
    member = {"instanceId": None, "rackId": None, "clientId": "c1", "clientHost": "/h",
              "subscribedTopicNames": ["orders"], "subscribedTopicRegex": None,
              "rebalanceTimeoutMs": 30000, "serverAssignor": "uniform"}
    recs = [cr("ConsumerGroupMetadata", {"groupId": "cg"}, {"epoch": 4}),
            cr("ConsumerGroupMemberMetadata", {"groupId": "cg", "memberId": "m1"}, member),
            cr("ConsumerGroupMetadata", {"groupId": "cg"}, {"epoch": 5}),
            cr("ConsumerGroupMemberMetadata", {"groupId": "cg", "memberId": "m1"}, None),
            cr("StreamsGroupMetadata", {"groupId": "sg"}, {"epoch": 3, "metadataHash": 7}),
            cr("ConsumerGroupMetadata", {"groupId": "cg"}, None)]
    b = w.broker_logdir(tmp_path / "b", 1)
    w.write_replica(b / "__consumer_offsets-0",
                    [w.v2_batch([w.Rec(r.key, r.value, timestamp=TS + 1000 * k)],
                                base_offset=k, first_timestamp=TS + 1000 * k)
                     for k, r in enumerate(recs)])
    assert lines(events([str(b)], kinds=("group",))) == [
        "0 coordinator group-rebalance group cg: consumer group epoch 4",
        "1000 coordinator group-member group cg: consumer group member m1 (c1) joined or "
        "updated",
        "2000 coordinator group-rebalance group cg: consumer group epoch 4 -> 5",
        "3000 coordinator group-member group cg: consumer group member m1 left",
        "4000 coordinator group-rebalance group sg: streams group epoch 3",
        "5000 coordinator group-deleted group cg: consumer group deleted (tombstone)"]


def test_new_groups_say_each_members_assignment(tmp_path: Path) -> None:
    """KIP-848 / KIP-932 / KIP-1071 groups keep each member's assignment in records of
    its own: the current one (what the member owns, what it must revoke, at its member
    epoch) and the target the assignor computed; each is said when it changes, with the
    topic's name where the group's ConsumerGroupPartitionMetadata names the id (else the
    id), and typed in JSON ``members``."""
    from tests.support import group_records as gr

    cr = gr.coordinator_record
    orders, other = w.uuid_of(61), w.uuid_of(62)

    def current(epoch: int, owns: dict[str, list[int]],
                revoking: dict[str, list[int]] | None = None) -> dict[str, object]:
        return {"memberEpoch": epoch, "previousMemberEpoch": epoch - 1, "state": 0,
                "assignedPartitions": [{"topicId": t, "partitions": p}
                                       for t, p in owns.items()],
                "partitionsPendingRevocation": [{"topicId": t, "partitions": p}
                                                for t, p in (revoking or {}).items()]}

    key = {"groupId": "cg", "memberId": "m1"}
    recs = [cr("ConsumerGroupPartitionMetadata", {"groupId": "cg"}, {"topics": [
                {"topicId": orders, "topicName": "orders", "numPartitions": 3,
                 "partitionMetadata": []}]}),
            cr("ConsumerGroupTargetAssignmentMember", key, {"topicPartitions": [
                {"topicId": orders, "partitions": [0, 1]}]}),
            cr("ConsumerGroupCurrentMemberAssignment", key,
               current(5, {orders: [0, 1], other: [4]})),
            cr("ConsumerGroupCurrentMemberAssignment", key,
               current(5, {orders: [0, 1], other: [4]})),  # the same: not said again
            cr("ConsumerGroupCurrentMemberAssignment", key,
               current(6, {orders: [0]}, {orders: [1]})),
            cr("ShareGroupCurrentMemberAssignment", {"groupId": "sh", "memberId": "s1"},
               {"memberEpoch": 2, "previousMemberEpoch": 1, "state": 0,
                "assignedPartitions": [{"topicId": orders, "partitions": [2]}]}),
            cr("StreamsGroupCurrentMemberAssignment", {"groupId": "st", "memberId": "p1"},
               {"memberEpoch": 3, "previousMemberEpoch": 2, "state": 0,
                "activeTasks": [{"subtopologyId": "0", "partitions": [0, 1]}],
                "standbyTasks": [{"subtopologyId": "1", "partitions": [2]}],
                "warmupTasks": [], "activeTasksPendingRevocation": [],
                "standbyTasksPendingRevocation": [], "warmupTasksPendingRevocation": []}),
            cr("ConsumerGroupCurrentMemberAssignment", key, None)]
    b = w.broker_logdir(tmp_path / "b", 1)
    w.write_replica(b / "__consumer_offsets-0",
                    [w.v2_batch([w.Rec(r.key, r.value, timestamp=TS + 1000 * k)],
                                base_offset=k, first_timestamp=TS + 1000 * k)
                     for k, r in enumerate(recs)])
    evs = events([str(b)], kinds=("group",))
    assert lines(evs) == [
        "1000 coordinator group-member group cg: consumer group target assignment of member "
        "m1: orders-0,1",
        "2000 coordinator group-member group cg: consumer group member m1 epoch 5: owns "
        f"orders-0,1, {other}-4",
        "4000 coordinator group-member group cg: consumer group member m1 epoch 6: owns "
        "orders-0, revoking orders-1",
        "5000 coordinator group-member group sh: share group member s1 epoch 2: owns "
        "orders-2",
        "6000 coordinator group-member group st: streams group member p1 epoch 3: owns "
        "subtopology 0 tasks 0,1, standby subtopology 1 tasks 2",
        "7000 coordinator group-member group cg: consumer group member m1's assignment "
        "removed (tombstone)"]
    assert evs[1].to_json()["members"] == [{
        "member_id": "m1", "client_id": None, "client_host": None,
        "group_instance_id": None, "subscribed": None, "assigned": [
            {"topic": "orders", "topic_id": orders, "partitions": [0, 1]},
            {"topic": None, "topic_id": other, "partitions": [4]}]}]
    for e in evs:
        assert type_errors(e.to_json()) == []


def test_fast_json_lines_are_the_model_objects_written(cluster: list[str],
                                                       tmp_path: Path) -> None:
    """``--format json`` writes events by a template (render/timeline.py event_json): the
    same line as the model object written by json_text, whatever the event holds
    (estimates, late, related and more, severity, replicas, text needing escapes)."""
    from kdump.render.jsonl import json_text
    from kdump.render.timeline import event_fields_match_model, event_json

    assert event_fields_match_model()
    evs = events(cluster) + events([str(p) for p in fenced_cluster(tmp_path)])
    odd = Ev(None, "controller", "finding", "finding", "t\u202e/0", 'a "b"\\\x1b\x85 \udc80',
             estimate=True, severity="error", file="/d/t-0/0.log", position=7)
    odd.late = True
    for k in range(7):
        odd.relate(f"r{k} \u2066")
    odd.replicas = [{"broker": 1, "log_dir": "/d\udcff", "file": None, "position": 3}]
    evs.append(odd)
    assert len({e.kind for e in evs}) > 20
    for ev in evs:
        assert event_json(ev) == json_text(ev.to_json()) + "\n", ev


def test_partition_changes_fast_path_is_the_general_path(cluster: list[str],
                                                         tmp_path: Path) -> None:
    """A partition's change is said by metadata.partition_event (one pass over its
    fields); the general path (describe's every-field text, then the kind, keys and
    brokers involved) gives the same event, for every kind of change."""
    from kdump.metadata.image import Change
    from kdump.metadata.replay import Event, Replay, find_sources
    from kdump.ops.timeline.metadata import change_events

    got: list[Event] = []
    for d in (cluster[0], str(fenced_cluster(tmp_path)[0])):
        Replay(find_sources(f"{d}/__cluster_metadata-0"), earliest=True,
               on_event=got.append).run()
    base = next(c.after for e in got for c in e.changes
                if c.after is not None and c.after["type"] == "partition")
    assert base is not None
    variants = [{"leader": 2, "leader_epoch": base["leader_epoch"] + 1},
                {"leader": -1, "leader_epoch": 9, "isr": []},
                {"isr": [1]}, {"isr": [3, 2, 1, 4]}, {"elr": [2]}, {"last_known_elr": [3]},
                {"replicas": [1, 2, 3, 4], "adding_replicas": [4]},
                {"leader_recovery_state": "RECOVERING"}, {"partition_epoch": 99}, {}]
    made = [Event(7, TS, "PartitionChangeRecord",
                  [Change(("partition", "x", 0), base, {**base, **v})], None, "/m/0.log", 3)
            for v in variants]
    odd = {k: v for k, v in base.items() if k != "elr"}  # fields differ: the general path
    made.append(Event(8, TS, "PartitionChangeRecord",
                      [Change(("partition", "x", 0), odd, {**odd, "isr": [1]})], None, None,
                      None))
    changes = 0
    for ev in got + made:
        for replicated in (None, set(), {(str(base["topic"]), int(base["partition"]))}):
            fast = list(change_events(ev, replicated))
            slow = list(change_events(ev, replicated, fast=False))
            assert [(e.to_json(), e.keys, e.involves, e.where) for e in fast] == \
                [(e.to_json(), e.keys, e.involves, e.where) for e in slow]
            changes += sum(e.source == "metadata" and "/" in e.object for e in fast)
    kinds = {e.kind for ev in made for e in change_events(ev)}
    assert kinds == {"leader-change", "isr-change", "elr-change", "reassignment",
                     "partition-change"}
    assert changes > 3 * len(made)


def _reorder_by_heap(times: list[int | None], size: int) -> list[tuple[int, bool]]:
    """reorder as a plain heap does it (the deque of in-order runs must give the same)."""
    import heapq

    heap: list[tuple[int, int]] = []
    out: list[tuple[int, bool]] = []
    last = -(1 << 62)

    def give(t: int, k: int) -> None:
        nonlocal last
        out.append((k, t < last))
        last = max(last, t)

    for k, t in enumerate(times):
        heapq.heappush(heap, (-(1 << 62) if t is None else t, k))
        if len(heap) > size:
            give(*heapq.heappop(heap))
    while heap:
        give(*heapq.heappop(heap))
    return out


def test_reorder_gives_what_a_heap_gives() -> None:
    import random

    rng = random.Random(48)
    for trial in range(300):
        n, size = rng.randrange(0, 40), rng.randrange(1, 8)
        times: list[int | None] = sorted(rng.randrange(0, 30) for _ in range(n))
        for _ in range(rng.randrange(0, 4)):  # some disorder, some events with no time
            if times:
                times[rng.randrange(len(times))] = rng.choice([None, rng.randrange(0, 30)])
        evs = [Ev(t, "producer", "x", "replica", "t/0", str(k)) for k, t in enumerate(times)]
        got = [(int(e.text), e.late) for e in reorder(evs, size)]
        assert got == _reorder_by_heap(times, size), (trial, times, size)
    a = [Ev(t, "producer", "x", "replica", "a", "") for t in (1, 2, 2, 5)]
    b = [Ev(t, "producer", "x", "replica", "b", "") for t in (2, 0, 5)]
    assert [(e.time, e.object, e.seq) for e in merge([a, b], 1)] == [
        (0, "b", 1), (1, "a", 0), (2, "a", 0), (2, "a", 0), (2, "b", 1), (5, "a", 0),
        (5, "b", 1)]  # ties: the first stream's first


def test_topic_policies_are_read_only_for_offsets_to_judge(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """The cleanup policies (a replay of the metadata log of their own) are read when a
    partition first has offsets witnesses prove written and no batch holds: a gap below
    the active segment is the cleaner's in a compacted topic (no event), lost in a
    deleting one; with no such gap they are never read."""
    from kdump.ops.verdict import CleanupPolicies

    reads: list[list[str]] = []
    real = CleanupPolicies.for_inputs

    def counted(paths: list[str], *args: object, **kw: object) -> CleanupPolicies | None:
        reads.append(list(paths))
        return real(paths, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(CleanupPolicies, "for_inputs", staticmethod(counted))
    b = w.broker_logdir(tmp_path / "b", 1)
    lw = w.MetadataLogWriter(b / "__cluster_metadata-0")
    lw.append([w.metadata_record("ConfigRecord", {"resourceType": 2, "resourceName": "cmp",
                                                  "name": "cleanup.policy",
                                                  "value": "compact"})], timestamp=TS)
    lw.close()
    for topic in ("cmp", "del"):
        w.write_replica(b / f"{topic}-0", w.replica_batches([(0, 10, 0), (20, 10, 0)]),
                        roll_before={1})
    w.write_replica(b / "whole-0", w.replica_batches([(0, 10, 0)]))
    lost = [(e.topic, e.text.split(" lost")[0]) for e in events([str(b)], kinds=("data",))]
    assert lost == [("del", "offsets 10-19 (10)")]
    assert reads == [[str(b)]]
    reads.clear()
    for topic in ("cmp", "del"):
        shutil.rmtree(b / f"{topic}-0")
    assert events([str(b)], kinds=("data",)) == [] and reads == []


def test_merge_gives_what_heapq_merge_gives() -> None:
    """merge keeps a stream in front while it holds the least: the same order (time, then
    the order of the streams) as heapq.merge of the reordered streams."""
    import heapq
    import random

    rng = random.Random(4848)
    for trial in range(500):
        streams = [[rng.choice([None, rng.randrange(20)]) if rng.random() < 0.2
                    else rng.randrange(20) for _ in range(rng.randrange(12))]
                   for _ in range(rng.randrange(1, 5))]
        size = rng.randrange(1, 6)

        def made(streams: list[list[int | None]] = streams) -> list[list[Ev]]:
            return [[Ev(t, "producer", "x", "replica", f"{k}.{i}", "")
                     for i, t in enumerate(s)] for k, s in enumerate(streams)]

        want = [(e.object, e.late) for e in heapq.merge(
            *[[(-(1 << 62) if e.time is None else e.time, k, e) for e in reorder(s, size)]
              for k, s in enumerate(made())])
            for e in [e[2]]]
        got = [(e.object, e.late) for e in merge(made(), size)]
        assert got == want, (trial, streams, size)


def test_a_leader_epoch_bumped_alone_is_no_leader_change(tmp_path: Path) -> None:
    """The controller bumps the leader epoch on an ISR shrink (metadata.version before
    3.6) by setting the same leader again, and an election finding no leader again
    bumps it too: neither is a leader change.  The shrink is an isr-change, the other a
    partition-change, each naming the epoch; the replica's start of that epoch is related
    to the change that began it (a real 3-broker KRaft cluster's log dirs had 1,067 such
    'leader 1 -> 1' and 'leader -1 -> -1' leader-change events of 2,764)."""
    tid = w.uuid_of(7)

    def change(**fields: object) -> bytes:
        return w.metadata_record("PartitionChangeRecord", {"partitionId": 0, "topicId": tid,
                                                           **fields})

    b = w.broker_logdir(tmp_path / "b", 1)
    lw = w.MetadataLogWriter(b / "__cluster_metadata-0")
    lw.append([w.metadata_record("TopicRecord", {"name": "orders", "topicId": tid}),
               w.metadata_record("PartitionRecord", {
                   "partitionId": 0, "topicId": tid, "replicas": [1, 2, 3],
                   "isr": [1, 2, 3], "leader": 1, "leaderEpoch": 0, "partitionEpoch": 0})],
              timestamp=TS)
    lw.append([change(isr=[1, 2], leader=1)], timestamp=TS + 1000)  # epoch 1, leader 1
    lw.append([change(leader=-1)], timestamp=TS + 2000)  # epoch 2: no leader
    lw.append([change(leader=-1)], timestamp=TS + 3000)  # epoch 3: no leader again
    lw.close()
    w.write_replica(b / "orders-0", w.replica_batches([(0, 5, 0), (5, 5, 1)]))
    evs = [e for e in events([str(b)]) if e.object == "orders/0"]
    assert [(e.kind, e.text) for e in evs if e.source == "metadata"] == [
        ("partition-created", "created: replicas [1,2,3], leader 1, epoch 0"),
        ("isr-change", "leader_epoch 0 -> 1, isr [1,2,3] -> [1,2]"),
        ("leader-change", "leader 1 -> none, epoch 2"),
        ("partition-change", "leader_epoch 2 -> 3")]
    start = next(e for e in evs if e.kind == "epoch-start" and "epoch 1" in e.text)
    assert start.related == ["orders/0: leader_epoch 0 -> 1, isr [1,2,3] -> [1,2] "
                             "(2023-11-14T22:13:21.000Z, metadata offset 2)"]


def items_of(b: Path) -> list[TimelineEvent]:
    return [e for e in timeline([str(b)]) if isinstance(e, TimelineEvent)]


def test_runs_of_batches_that_change_nothing_are_walked_in_one_go(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, header_runs: str) -> None:
    """A data partition's batches between changes are consumed as runs (issue 48 What 5):
    the run stops at a new producer epoch, a transaction, a marker, a gap, a clock change,
    a segment start and an epoch the checkpoint starts inside a run of the epoch before's
    numbering; the events and bytes read are the ones of the walk batch by batch."""
    from kdump.ops.compare_replicas import header_run, headers

    b = w.broker_logdir(tmp_path / "runs", 1)
    batches: list[bytes] = []
    off = 0

    def add(n: int, **kw: object) -> None:
        nonlocal off
        for _ in range(n):
            recs = [w.Rec(key=b"k", value=b"x" * 3000, timestamp=w.TS0 + off + i)
                    for i in range(2)]
            batches.append(w.v2_batch(recs, base_offset=off, **kw))  # type: ignore[arg-type]
            off += 2

    add(10, partition_leader_epoch=1)
    add(10, partition_leader_epoch=2, producer_id=5, producer_epoch=0)
    add(10, partition_leader_epoch=2, producer_id=5, producer_epoch=1)
    add(5, partition_leader_epoch=2, producer_id=6, producer_epoch=0, transactional=True)
    batches.append(w.end_txn_marker_batch(True, base_offset=off, producer_id=6,
                                          producer_epoch=0, coordinator_epoch=2,
                                          timestamp=w.TS0 + off, partition_leader_epoch=2))
    off += 1
    off += 6  # a gap
    add(10, partition_leader_epoch=3)
    add(10, partition_leader_epoch=3, log_append_time=w.TS0 + 99_000)
    # the checkpoint starts epoch 3 at offset 94, inside a run of epoch 3's batches (from
    # offset 77): the run stops there, the batch at 93-94 dates it; epoch 4 has no batch
    w.write_replica(b / "runs-0", batches, roll_before={25, 50},
                    epochs=[(1, 0), (2, 20), (3, 94), (4, 150)])

    def run() -> tuple[list[str], int]:
        items = list(timeline([str(b)]))
        end = items[-1]
        assert isinstance(end, TimelineEnd)
        return lines([e for e in items if isinstance(e, TimelineEvent)]), end.bytes_read

    consumed = [0]
    real = headers.header_run

    def counting(*args: object) -> object:
        r = real(*args)  # type: ignore[arg-type]
        consumed[0] += r[4]
        return r

    monkeypatch.setattr(headers, "header_run", counting)
    got = run()
    monkeypatch.setattr(headers, "header_run", _no_runs)
    assert run() == got
    monkeypatch.setattr(header_run, "_native", None)
    monkeypatch.setattr(headers, "header_run", real)
    assert run() == got
    texts = got[0]
    assert sum("epoch-start" in t for t in texts) == 4
    assert any("epoch 4 starts at offset 150" in t for t in texts)
    assert any("producer 5 epoch 0 -> 1" in t for t in texts)
    assert sum("segment-roll" in t for t in texts) == 2
    dated = [e for e in items_of(b) if "epoch 3 starts at offset 94" in e.text]
    assert [(e.time, e.offset) for e in dated] == [(w.TS0 + 94, 93)]
    # 56 batches; said alone: the first, each change (offsets 20, 40, 60, 70, 71, 77,
    # 97), the segments' first (50, 117) and the one dating epoch 3 (93)
    assert consumed[0] == (0 if header_runs == "none" else 46)


def test_coordinator_records_are_read_as_objects_without_their_json_text(
        cluster: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The group coordinator's records are read as objects: no JSON text is made of them
    (the timeline never prints it), and the events are the same."""
    from kdump.decoders import consumer_offsets

    want = lines(events(cluster, groups=("payments",)))
    calls = [0]
    real = consumer_offsets.json_text

    def counted(obj: object) -> str:
        calls[0] += 1
        return real(obj)

    monkeypatch.setattr(consumer_offsets, "json_text", counted)
    assert lines(events(cluster, groups=("payments",))) == want
    assert len(want) > 3 and calls[0] == 0
    # a decoder of its own: dump's, made apart, still writes the texts
    d = consumer_offsets.ConsumerOffsetsDecoder()
    assert d.texts


def _runs_partition(root: Path) -> Path:
    b = w.broker_logdir(root, 1)
    batches = []
    for k in range(30):
        recs = [w.Rec(key=b"k", value=b"x" * (3000 if k % 7 else 10), timestamp=w.TS0 + 2 * k)]
        batches.append(w.v2_batch(recs, base_offset=k, partition_leader_epoch=k // 10,
                                  producer_id=5, producer_epoch=k // 12))
    w.write_replica(b / "runs-0", batches, roll_before={20})
    return b


@pytest.mark.parametrize("seed", range(12))
def test_runs_over_damaged_segments_say_what_the_walk_batch_by_batch_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, header_runs: str, seed: int) -> None:
    """Bytes changed anywhere in a segment (a run then stops where the walk would frame
    otherwise): the events, findings and bytes read are the walk's without runs."""
    import random

    from kdump.ops.compare_replicas import headers

    b = _runs_partition(tmp_path)
    seg = b / "runs-0" / "00000000000000000000.log"
    data = bytearray(seg.read_bytes())
    rnd = random.Random(seed)
    starts = [h.position for h in headers.HeaderWalk(str(b / "runs-0"))
              if isinstance(h, headers.Head) and h.path == str(seg)]
    for _ in range(1 + seed % 3):  # mostly in a batch header: what the walk reads
        at = rnd.choice(starts) + rnd.randrange(61) if seed % 4 else rnd.randrange(len(data))
        data[at] = rnd.randrange(256)
    seg.write_bytes(bytes(data))

    def run() -> tuple[list[str], int]:
        items = list(timeline([str(b)]))
        end = items[-1]
        assert isinstance(end, TimelineEnd)
        return lines([e for e in items if isinstance(e, TimelineEvent)]), end.bytes_read

    got = run()
    monkeypatch.setattr(headers, "header_run", _no_runs)
    assert run() == got


def test_a_restart_ends_what_a_fencing_explains(tmp_path: Path) -> None:
    """A broker shut down, re-registered and shut down again within a minute (a real
    3-broker KRaft cluster's log dirs were restarted so, several times): each leader
    change is related to the shutdown and fencing of its own stop, never to those of the
    stop before or after the restart between them."""
    from tests.support.timeline_fixture import _broker_change, _register

    tid = w.uuid_of(7)

    def lead(leader: int) -> bytes:
        return w.metadata_record("PartitionChangeRecord", {"partitionId": 0, "topicId": tid,
                                                           "leader": leader})

    b = w.broker_logdir(tmp_path / "b", 1)
    lw = w.MetadataLogWriter(b / "__cluster_metadata-0")
    lw.append([_register(1, 10), w.metadata_record("TopicRecord", {
        "name": "solo", "topicId": tid}), w.metadata_record("PartitionRecord", {
            "partitionId": 0, "topicId": tid, "replicas": [1], "isr": [1], "leader": 1,
            "leaderEpoch": 0, "partitionEpoch": 0})], timestamp=TS)
    lw.append([_broker_change(1, 10, fenced=-1)], timestamp=TS + 1000)
    for k, epoch in enumerate((10, 20)):
        at = TS + 10_000 + 40_000 * k
        lw.append([_broker_change(1, epoch, inControlledShutdown=1), lead(-1)], timestamp=at)
        lw.append([_broker_change(1, epoch, fenced=1)], timestamp=at + 100)
        if k == 0:
            lw.append([_register(1, 20)], timestamp=at + 30_000)
            lw.append([_broker_change(1, 20, fenced=-1), lead(1)], timestamp=at + 31_000)
    lw.close()
    evs = [e for e in events([str(b)], kinds=("broker-shutdown", "broker-fenced",
                                               "leader-change"))]
    assert [(e.time - TS, e.kind, e.text, e.related) for e in evs] == [  # type: ignore[operator]
        (10_000, "broker-shutdown", "in controlled shutdown", [
            "solo/0: leader 1 -> none, epoch 1 (2023-11-14T22:13:30.000Z, metadata offset 5)"]),
        (10_000, "leader-change", "leader 1 -> none, epoch 1", [
            "broker 1: in controlled shutdown (2023-11-14T22:13:30.000Z, metadata offset 4)",
            "broker 1: fenced (2023-11-14T22:13:30.100Z, metadata offset 6)"]),
        (10_100, "broker-fenced", "fenced", [
            "solo/0: leader 1 -> none, epoch 1 (2023-11-14T22:13:30.000Z, metadata offset 5)"]),
        (41_000, "leader-change", "leader none -> 1, epoch 2", []),
        (50_000, "broker-shutdown", "in controlled shutdown", [
            "solo/0: leader 1 -> none, epoch 3 (2023-11-14T22:14:10.000Z, metadata offset 11)"]),
        (50_000, "leader-change", "leader 1 -> none, epoch 3", [
            "broker 1: in controlled shutdown (2023-11-14T22:14:10.000Z, metadata offset 10)",
            "broker 1: fenced (2023-11-14T22:14:10.100Z, metadata offset 12)"]),
        (50_100, "broker-fenced", "fenced", [
            "solo/0: leader 1 -> none, epoch 3 (2023-11-14T22:14:10.000Z, metadata offset 11)"])]


def test_minute_counts_are_exact_and_spill_past_their_bound(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """Each (minute, kind) once, in order, whatever order the events came in; past its
    bound the counts go to sorted spill files, merged at the end and then removed."""
    import tempfile

    from kdump.ops.timeline.summary import MinuteCounts

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    c = MinuteCounts(limit=2)
    for minute, kind in [(0, "b"), (60_000, "a"), (0, "a"), (120_000, "a"), (0, "b"),
                         (-1, "finding"), (60_000, "a"), (0, "b")]:
        c.add(minute, kind)
    assert len(c.runs) == 2 and all(Path(r).parent.parent == tmp_path for r in c.runs)
    spills = [Path(r).parent for r in c.runs]
    assert list(c) == [(-1, "finding", 1), (0, "a", 1), (0, "b", 3), (60_000, "a", 2),
                       (120_000, "a", 1)]
    assert not any(d.exists() for d in spills) and c.runs == []


def test_a_late_event_is_counted_in_its_minute_once(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """--summary with an event late by more than 32 minutes (the group coordinator's
    currentStateTimestamp went back: its clock, or a group stored again): before, its
    minute was written a second time, after the later minutes; now each (minute, kind)
    is one row in order, the same with the counts spilled to files."""
    import kdump.ops.timeline as tl
    from kdump.ops.timeline import event as tl_event
    from kdump.ops.timeline import summary
    from tests.support.timeline_fixture import _coord

    def group(gen: int, ts: int) -> w.Rec:
        return _coord("group", 2, {"group": "g"}, {
            "protocolType": "", "generation": gen, "protocol": None, "leader": None,
            "currentStateTimestamp": ts, "members": []}, 3, ts)

    recs = [group(k + 1, TS + 60_000 * k) for k in range(40)] + [group(41, TS + 5)]
    b = w.broker_logdir(tmp_path / "b", 1)
    w.write_replica(b / "__consumer_offsets-0", [
        w.v2_batch([r], base_offset=k, first_timestamp=r.timestamp)
        for k, r in enumerate(recs)])
    # a reorder heap of one event: the last rebalance comes late
    monkeypatch.setattr(tl, "merge", lambda streams, size=1: tl_event.merge(streams, 1))
    late = [e for e in timeline([str(b)]) if isinstance(e, TimelineEvent) and e.late]
    assert [e.text for e in late] == ["generation 40 -> 41, no members (Empty)"]
    want = [(TS - TS % 60_000, "group-rebalance", 2)] + [
        (TS - TS % 60_000 + 60_000 * k, "group-rebalance", 1) for k in range(1, 40)]
    for limit in (summary.SUMMARY_KEYS, 3):
        monkeypatch.setattr(summary, "SUMMARY_KEYS", limit)
        got = [(c.minute, c.kind, c.count) for c in timeline([str(b)], TimelineOptions(
            summary=True, kinds=("group",))) if isinstance(c, TimelineCount)]
        assert got == want


def test_a_controllers_new_incarnation_is_a_restart(tmp_path: Path) -> None:
    """A controller registers again with a new incarnation id at each start (a real
    3-node KRaft cluster's log dirs held 36 such records, one per node restart): the
    change says it is a restart, an endpoint change beside it still said."""

    def reg(inc: int, host: str) -> bytes:
        return w.metadata_record("RegisterControllerRecord", {
            "controllerId": 3, "incarnationId": w.uuid_of(inc), "zkMigrationReady": False,
            "endPoints": [{"name": "CONTROLLER", "host": host, "port": 9093,
                           "securityProtocol": 0}], "features": []})

    b = w.broker_logdir(tmp_path / "b", 3)
    lw = w.MetadataLogWriter(b / "__cluster_metadata-0")
    lw.append([reg(1, "0.0.0.0")], timestamp=TS)
    lw.append([reg(2, "kafka-3")], timestamp=TS + 1000)
    lw.close()
    evs = [e for e in events([str(b)], kinds=("controller",))]
    assert [(e.kind, e.object, e.broker, e.text) for e in evs] == [
        ("controller-created", "controller 3", 3, "created"),
        ("controller-change", "controller 3", 3,
         f"re-registered (a restart): incarnation_id {w.uuid_of(1)} -> {w.uuid_of(2)}, "
         "endpoints [{name=CONTROLLER, host=0.0.0.0, port=9093, security_protocol=PLAINTEXT}] "
         "-> [{name=CONTROLLER, host=kafka-3, port=9093, security_protocol=PLAINTEXT}]")]


def test_a_log_dirs_last_stop_is_after_its_metadata_logs_last_batch(tmp_path: Path) -> None:
    """A KRaft node writes its copy of __cluster_metadata until it stops (the quorum's
    leader appends records every half second): its last batch dates the log dir's last
    stop when it is later than the data's (on real 3-node clusters the stop was placed
    13 minutes before the controller's last fencings, and an unclean stop before a topic
    created after it).  Each log dir's own copy is read, not only the one replayed."""
    from tests.support.timeline_fixture import _broker_change, _register

    dirs = []
    for bid, last in ((1, 120_000), (2, 90_000), (3, 100_000)):
        b = w.broker_logdir(tmp_path / f"b{bid}", bid)
        lw = w.MetadataLogWriter(b / "__cluster_metadata-0")
        lw.append([_register(1, 10)], timestamp=TS)
        lw.append([_broker_change(1, 10, fenced=-1)], timestamp=TS + last)
        lw.close()
        if bid != 3:  # node 3: a controller's log dir, its metadata log alone
            w.write_replica(b / "orders-0", w.replica_batches([(0, 5, 0)]))
        dirs.append(str(b))
    (tmp_path / "b1" / ".kafka_cleanshutdown").write_bytes(b"")
    stops = [e for e in events(dirs) if e.kind.endswith("shutdown")]
    assert [(e.kind, e.broker, e.time - TS, e.clock, e.estimate)  # type: ignore[operator]
            for e in stops] == [("unclean-shutdown", 2, 90_000, "controller", True),
                                ("unclean-shutdown", 3, 100_000, "controller", True),
                                ("clean-shutdown", 1, 120_000, "controller", True)]


def test_a_registration_amended_by_the_same_process_is_no_restart(tmp_path: Path) -> None:
    """A broker registering twice within a second of its start with the same incarnation
    id (a real single-node KRaft cluster's log: epoch 8, then 11) amends its
    registration: the same process, no restart; a new incarnation id is one."""

    def reg(epoch: int, inc: int) -> bytes:
        return w.metadata_record("RegisterBrokerRecord", {
            "brokerId": 1, "incarnationId": w.uuid_of(inc), "brokerEpoch": epoch,
            "endPoints": [], "rack": None, "fenced": True, "logDirs": []})

    b = w.broker_logdir(tmp_path / "b", 1)
    lw = w.MetadataLogWriter(b / "__cluster_metadata-0")
    lw.append([reg(8, 1)], timestamp=TS)
    lw.append([reg(11, 1)], timestamp=TS + 900)
    lw.append([reg(30, 2)], timestamp=TS + 60_000)
    lw.close()
    assert [e.text for e in events([str(b)], kinds=("broker",))] == [
        "registered, epoch 8, fenced",
        "registration amended by the same process (incarnation unchanged: no restart): "
        "epoch 8 -> 11, fenced",
        "re-registered (a restart): epoch 11 -> 30, fenced"]


def test_member_assignments_are_read_from_bytes_too() -> None:
    """consumer_members reads a member's subscription and assignment whatever form the
    decoder gave them in: decoded, raw bytes, or the JSON converter's base64 (a decoder
    that skips DumpLogSegments' expansion, for speed, still gets the assignments said);
    bytes that do not decode are null, never guessed."""
    import base64

    from kdump.ops.timeline.coordinators import consumer_members
    from tests.support.timeline_fixture import consumer_assignment, consumer_subscription

    sub, asg = consumer_subscription(["orders"], 1), consumer_assignment({"orders": [0, 2]}, 2)
    want = {"member_id": "m", "client_id": "c", "client_host": "/h", "group_instance_id": None,
            "subscribed": ["orders"], "assigned": [{"topic": "orders", "partitions": [0, 2]}]}

    def group(s: object, a: object) -> dict[str, object]:
        return {"protocolType": "consumer", "members": [
            {"memberId": "m", "clientId": "c", "clientHost": "/h", "groupInstanceId": None,
             "subscription": s, "assignment": a}]}

    b64 = base64.b64encode
    assert consumer_members(group(sub, asg)) == [want]
    assert consumer_members(group(b64(sub).decode(), b64(asg).decode())) == [want]
    assert consumer_members(group(b"\x00", "not base64!")) == [
        {**want, "subscribed": None, "assigned": None}]
    assert consumer_members({**group(sub, asg), "protocolType": "connect"}) is None
