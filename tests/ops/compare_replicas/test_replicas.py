"""compare-replicas and lag (issue 13): brokers' log dirs written by tests/writer.py.

Replicas that agree, a follower that lags, an unclean election, divergence in a closed
segment, brokers rolling at different points, compacted replicas, damaged replicas, a
partition on one broker only; Kafka's truncation (LeaderEpochFileCache.endOffsetFor and
AbstractFetcherThread.getOffsetTruncationState) on epoch histories; consumer lag with
commits, tombstones, aborted transactional commits and partitions absent from the inputs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kdump.model import fields_of
from kdump.ops.compare_replicas import EpochCache, follower_truncation
from tests.conftest import KdumpRunner
from tests.support import writer as w

SEG = "00000000000000000000"


def _objs(out: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.splitlines()]


def _cmp(objs: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(o for o in objs if o["type"] == "partition_comparison" and o["partition"] == name)


def _by_broker(c: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {r["broker_id"]: r for r in c["replicas"]}


COMMON = [(0, 10, 0), (10, 10, 0)]


def unclean(root: Path) -> tuple[Path, Path]:
    """Broker 1 led in epoch 0 and wrote 20-29 alone; broker 2 was elected uncleanly
    (epoch 1) and wrote different records from offset 20."""
    b1 = w.broker_logdir(root / "b1", 1, high_watermarks=[("orders", 0, 20)])
    b2 = w.broker_logdir(root / "b2", 2, high_watermarks=[("orders", 0, 33)])
    w.write_replica(b1 / "orders-0", w.replica_batches([*COMMON, (20, 10, 0)]))
    w.write_replica(b2 / "orders-0", w.replica_batches(COMMON)
                    + w.replica_batches([(20, 5, 1), (25, 5, 1), (30, 3, 1)], tag="w"))
    return b1, b2


def test_unclean_election_text(kdump: KdumpRunner, tmp_path: Path) -> None:
    unclean(tmp_path)
    r = kdump("compare-replicas", "b1", "b2", cwd=tmp_path)
    assert r.rc == 1
    assert r.out.splitlines() == [
        "orders-0: replicas diverge at offset 20; Kafka's truncation would cut a follower at 20",
        "  broker 1 b1/orders-0 (follower): log start 0, log end 30, high watermark 20 "
        "(checkpointed), epochs 0@0 (leader-epoch-checkpoint), 10 records only here, Kafka "
        "truncates it at 20; at the divergence: batch 20-29 epoch 0 crc 3628749567 "
        f"(b1/orders-0/{SEG}.log position 362)",
        "  broker 2 b2/orders-0 (leader): log start 0, log end 33, high watermark 33 "
        "(checkpointed), epochs 0@0 1@20 (leader-epoch-checkpoint), 13 records only here; at "
        f"the divergence: batch 20-24 epoch 1 crc 2624014242 (b2/orders-0/{SEG}.log position "
        "362)",
    ]
    assert r.err.splitlines() == [
        "compare-replicas: 1 partition: 0 agree, 0 lagging, 1 diverged, 0 with one replica, "
        "0 damaged; 1267 bytes read"]


def test_unclean_election_json_and_records_only_here(kdump: KdumpRunner, tmp_path: Path) -> None:
    unclean(tmp_path)
    r = kdump("compare-replicas", "--format", "json", "--print-data-log", "b1", "b2",
              cwd=tmp_path)
    assert r.rc == 1
    objs = _objs(r.out)
    c = _cmp(objs, "orders-0")
    assert {k: c[k] for k in ("diverged", "divergence_offset", "truncation_offset", "status",
                              "leader")} == {
        "diverged": True, "divergence_offset": 20, "truncation_offset": 20,
        "status": "diverged", "leader": "b2/orders-0"}
    reps = _by_broker(c)
    assert [reps[1][k] for k in ("path", "log_dir", "role", "log_start_offset",
                                 "log_end_offset", "records_only_here", "epochs",
                                 "truncation_offset")] == [
        "b1/orders-0", "b1", "follower", 0, 30, 10, [[0, 0]], 20]
    assert [reps[2][k] for k in ("role", "log_end_offset", "records_only_here", "epochs",
                                 "truncation_offset")] == ["leader", 33, 13, [[0, 0], [1, 20]],
                                                           None]
    records = [o for o in objs if o["type"] == "record"]
    assert [(o["replica"], o["broker_id"], o["offset"], o["value"]) for o in records] == [
        ("b1/orders-0", 1, o, f"v{o}") for o in range(20, 30)] + [
        ("b2/orders-0", 2, o, f"w{o}") for o in range(20, 33)]
    assert objs[-1]["type"] == "replicas_summary" and objs[-1]["diverged"] == 1
    for o in objs:  # every field documented (docs/json-schema.md), every required one there
        fields = fields_of(o["type"])
        assert set(o) - {"type"} <= {n.rstrip("?") for n, _ in fields}
        assert {n for n, _ in fields if not n.endswith("?")} <= set(o)


def test_print_data_log_text_is_dumplogsegments_lines(kdump: KdumpRunner, tmp_path: Path) -> None:
    unclean(tmp_path)
    r = kdump("compare-replicas", "--print-data-log", "b1", "b2", cwd=tmp_path)
    lines = r.out.splitlines()
    k = lines.index("Replica: broker 1 b1/orders-0 (records only here)")
    assert lines[k + 1].startswith("baseOffset: 20 lastOffset: 29 count: 10 ")
    assert lines[k + 2] == ("| offset: 20 CreateTime: 1700000000020 keySize: 3 valueSize: 3 "
                            "sequence: -1 headerKeys: [] key: k20 payload: v20")
    assert "Replica: broker 2 b2/orders-0 (records only here)" in lines
    assert sum(1 for x in lines if x.startswith("| offset: ")) == 23


def test_replicas_agree(kdump: KdumpRunner, tmp_path: Path) -> None:
    for b in (1, 2, 3):
        d = w.broker_logdir(tmp_path / f"b{b}", b)
        w.write_replica(d / "orders-0", w.replica_batches([*COMMON, (20, 10, 1)]))
    r = kdump("compare-replicas", "--format", "json", "b1", "b2", "b3", cwd=tmp_path)
    assert r.rc == 0
    c = _cmp(_objs(r.out), "orders-0")
    assert (c["status"], c["diverged"], c["divergence_offset"], c["truncation_offset"]) == (
        "agree", False, None, None)
    assert [x["records_only_here"] for x in c["replicas"]] == [0, 0, 0]
    assert [x["truncation_offset"] for x in c["replicas"]] == [None, 30, 30]
    assert [x["role"] for x in c["replicas"]] == ["leader", "follower", "follower"]


def test_follower_that_lags_is_not_divergent(kdump: KdumpRunner, tmp_path: Path) -> None:
    b1 = w.broker_logdir(tmp_path / "b1", 1)
    b2 = w.broker_logdir(tmp_path / "b2", 2)
    w.write_replica(b1 / "orders-0", w.replica_batches([*COMMON, (20, 10, 0)]))
    w.write_replica(b2 / "orders-0", w.replica_batches(COMMON))
    r = kdump("compare-replicas", "--format", "json", "b1", "b2", cwd=tmp_path)
    assert r.rc == 0
    c = _cmp(_objs(r.out), "orders-0")
    assert (c["status"], c["diverged"], c["truncation_offset"]) == ("lagging", False, None)
    reps = _by_broker(c)
    assert (reps[1]["role"], reps[1]["records_only_here"]) == ("leader", 10)
    assert (reps[2]["role"], reps[2]["records_only_here"], reps[2]["truncation_offset"]) == (
        "follower", 0, 20)
    t = kdump("compare-replicas", "b1", "b2", cwd=tmp_path)
    assert t.out.splitlines()[0] == "orders-0: replicas agree; some lag behind"
    assert "Kafka truncates it at 20 (nothing to cut)" in t.out


def test_divergence_in_a_closed_segment_with_other_segment_boundaries(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """Broker 1 rolls every 2 batches, broker 2 every 3: the divergence at offset 30 lies in
    a closed segment of each, at different positions."""
    b1 = w.broker_logdir(tmp_path / "b1", 1)
    b2 = w.broker_logdir(tmp_path / "b2", 2)
    spans = [(k * 10, 10, 0) for k in range(3)]
    w.write_replica(b1 / "t-0", w.replica_batches(spans + [(30 + k * 10, 10, 3) for k in range(4)]),
                    roll_before={2, 4, 6})
    w.write_replica(b2 / "t-0", w.replica_batches(spans)
                    + w.replica_batches([(30 + k * 10, 10, 5) for k in range(4)], tag="x"),
                    roll_before={3, 6})
    r = kdump("compare-replicas", "--format", "json", "b1", "b2", cwd=tmp_path)
    assert r.rc == 1
    c = _cmp(_objs(r.out), "t-0")
    assert (c["divergence_offset"], c["truncation_offset"]) == (30, 30)
    reps = _by_broker(c)
    assert reps[1]["batch_at_divergence"]["file"] == "b1/t-0/00000000000000000020.log"
    assert reps[1]["batch_at_divergence"]["position"] == 191
    assert reps[2]["batch_at_divergence"]["file"] == "b2/t-0/00000000000000000030.log"
    assert reps[2]["batch_at_divergence"]["position"] == 0
    assert (reps[1]["segments"], reps[2]["segments"]) == (4, 3)
    assert (reps[1]["records_only_here"], reps[2]["records_only_here"]) == (40, 40)


def test_different_segment_boundaries_agree(kdump: KdumpRunner, tmp_path: Path) -> None:
    spans = [(k * 10, 10, k // 3) for k in range(7)]
    for b, rolls in ((1, {2, 5}), (2, {3}), (3, set())):
        d = w.broker_logdir(tmp_path / f"b{b}", b)
        w.write_replica(d / "t-0", w.replica_batches(spans), roll_before=rolls)
    r = kdump("compare-replicas", "--format", "json", "b1", "b2", "b3", cwd=tmp_path)
    assert r.rc == 0
    c = _cmp(_objs(r.out), "t-0")
    assert c["status"] == "agree"
    assert [x["segments"] for x in c["replicas"]] == [3, 2, 1]
    assert [x["epochs"] for x in c["replicas"]] == [[[0, 0], [1, 30], [2, 60]]] * 3


def _compacted(first: int, n: int, keep: list[int], epoch: int, *,
               change: int | None = None) -> bytes:
    """The batch ``first .. first+n-1`` after a cleaner kept only offsets ``keep`` (same
    base and last offset, same epoch); ``change``: an offset whose value is not the
    original (not a compaction)."""
    recs = [w.Rec(key=b"k%d" % o, value=(b"changed" if o == change else b"v%d" % o),
                  timestamp=w.TS0 + o, offset_delta=o - first) for o in keep]
    return w.v2_batch(recs, base_offset=first, partition_leader_epoch=epoch,
                      last_offset_delta=n - 1, first_timestamp=w.TS0 + keep[0])


def test_compacted_replicas_agree(kdump: KdumpRunner, tmp_path: Path) -> None:
    b1 = w.broker_logdir(tmp_path / "b1", 1)
    b2 = w.broker_logdir(tmp_path / "b2", 2, cleaner_offsets=[("c", 0, 30)])
    spans = [(0, 10, 0), (10, 10, 0), (20, 10, 0), (30, 10, 0)]
    w.write_replica(b1 / "c-0", w.replica_batches(spans))
    # broker 2's cleaner: batch 0-9 keeps 3 records, batch 10-19 is gone entirely
    w.write_replica(b2 / "c-0", [_compacted(0, 10, [0, 4, 9], 0), *w.replica_batches(spans[2:])])
    r = kdump("compare-replicas", "--format", "json", "b1", "b2", cwd=tmp_path)
    assert r.rc == 0, r.out
    c = _cmp(_objs(r.out), "c-0")
    assert (c["status"], c["diverged"], c["compacted_differences"]) == ("agree", False, 1)
    assert [x["records_only_here"] for x in c["replicas"]] == [0, 0]


def test_compacted_batch_with_other_records_diverges(kdump: KdumpRunner, tmp_path: Path) -> None:
    b1 = w.broker_logdir(tmp_path / "b1", 1)
    b2 = w.broker_logdir(tmp_path / "b2", 2)
    w.write_replica(b1 / "c-0", w.replica_batches([(0, 10, 0), (10, 10, 0)]))
    w.write_replica(b2 / "c-0", [*w.replica_batches([(0, 10, 0)]),
                                 _compacted(10, 10, [11, 15, 19], 0, change=15)])
    r = kdump("compare-replicas", "--format", "json", "b1", "b2", cwd=tmp_path)
    assert r.rc == 1
    c = _cmp(_objs(r.out), "c-0")
    assert (c["status"], c["divergence_offset"], c["compacted_differences"]) == (
        "diverged", 15, 0)


def test_damaged_replica_compared_as_far_as_intact_batches_go(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    spans = [(k * 10, 10, 0) for k in range(5)]
    b1 = w.broker_logdir(tmp_path / "b1", 1)
    b2 = w.broker_logdir(tmp_path / "b2", 2)
    w.write_replica(b1 / "d-0", w.replica_batches(spans))
    w.write_replica(b2 / "d-0", w.replica_batches(spans))
    log = b2 / "d-0" / f"{SEG}.log"
    data = bytearray(log.read_bytes())
    # batch 10-19 (at 171): its size field zeroed, so it cannot be framed; batch 30-39
    # (at 553): its stored CRC changed
    data[171 + 8 : 171 + 12] = b"\x00\x00\x00\x00"
    data[553 + 17] ^= 0xFF
    log.write_bytes(bytes(data))
    r = kdump("compare-replicas", "--format", "json", "b1", "b2", cwd=tmp_path)
    assert r.rc == 1
    objs = _objs(r.out)
    c = _cmp(objs, "d-0")
    assert (c["status"], c["diverged"]) == ("agree", False)
    dmg = _by_broker(c)[2]["damage"]
    assert [(d["kind"], d["position"]) for d in dmg] == [("bad-length", 171),
                                                          ("crc-mismatch", 553)]
    assert _by_broker(c)[1]["damage"] == []
    problems = [o for o in objs if o["type"] == "problem"]
    assert {p["kind"] for p in problems} == {"bad-length", "crc-mismatch"}


def test_partition_on_one_side_only(kdump: KdumpRunner, tmp_path: Path) -> None:
    unclean(tmp_path)
    w.write_replica(tmp_path / "b2" / "invoice-0", w.replica_batches([(0, 5, 0)]))
    r = kdump("compare-replicas", "--format", "json", "b1", "b2", cwd=tmp_path)
    c = _cmp(_objs(r.out), "invoice-0")
    assert (c["status"], c["missing_from"]) == ("single", [{"log_dir": "b1", "broker_id": 1}])
    t = kdump("compare-replicas", "b1", "b2", cwd=tmp_path)
    assert t.out.splitlines()[0] == "invoice-0: only one replica (not in: 1)"


def test_partition_directories_given_are_compared(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    _b1, _b2 = unclean(tmp_path)
    r = kdump("compare-replicas", "--format", "json", "b1/orders-0", "b2/orders-0",
              cwd=tmp_path)
    assert _cmp(_objs(r.out), "orders-0")["divergence_offset"] == 20


def test_leader_given(kdump: KdumpRunner, tmp_path: Path) -> None:
    unclean(tmp_path)
    r = kdump("compare-replicas", "--format", "json", "--leader", "1", "b1", "b2", cwd=tmp_path)
    c = _cmp(_objs(r.out), "orders-0")
    assert c["leader"] == "b1/orders-0" and c["leader_reason"] == "given with --leader"
    # broker 2 asks for epoch 1; broker 1's latest is 0 < 1: UNDEFINED_EPOCH_OFFSET, so
    # broker 2 would truncate to its high watermark (33)
    assert _by_broker(c)[2]["truncation_offset"] == 33


def test_table(kdump: KdumpRunner, tmp_path: Path) -> None:
    unclean(tmp_path)
    r = kdump("compare-replicas", "--format", "table", "b1", "b2", cwd=tmp_path)
    assert r.rc == 1
    assert "diverged at" in r.out and "broker 1" in r.out and "0@0 1@20" in r.out


# ------------------------------------------------------------------ Kafka's truncation


def test_truncation_single_round() -> None:
    leader = EpochCache([(0, 0), (3, 25)])
    follower = EpochCache([(0, 0), (2, 20)])
    t = follower_truncation(leader, 40, follower, 30, None)
    assert (t.offset, t.rounds) == (20, 1)


def test_truncation_leader_answers_an_epoch_the_follower_lacks() -> None:
    # follower asks 2 -> leader (1, 25); follower's end for 1 is (0, 20): truncate to 20,
    # drop epoch 2, ask 0 -> leader (0, 10); follower (0, 20): min(20, 10, 20) = 10
    leader = EpochCache([(0, 0), (1, 10), (3, 25)])
    follower = EpochCache([(0, 0), (2, 20)])
    t = follower_truncation(leader, 40, follower, 30, None)
    assert (t.offset, t.rounds) == (10, 2)


def test_truncation_without_epochs_uses_high_watermark() -> None:
    t = follower_truncation(EpochCache([(0, 0)]), 10, EpochCache(), 8, 5)
    assert t.offset == 5


def test_epoch_cache_rules() -> None:
    c = EpochCache([(0, 0), (2, 20), (1, 25)])  # 1@25 removes 2@20 (non-monotonic)
    assert c.entries == [(0, 0), (1, 25)]
    assert c.end_offset_for(0, 40) == (0, 25)
    assert c.end_offset_for(1, 40) == (1, 40)
    assert c.end_offset_for(5, 40) == (-1, -1)
    c.truncate_from_start(30)
    assert c.entries == [(1, 30)]


# ------------------------------------------------------------------ lag


def _commit(group: str, topic: str, partition: int, offset: int, ts: int) -> w.Rec:
    return w.Rec(w.offset_commit_key(group, topic, partition),
                 w.offset_commit_value_v3(offset, ts))


def offsets_logdirs(root: Path) -> None:
    """__consumer_offsets-7 on brokers 1 (complete) and 2 (lagging replica), orders-0 on
    both (broker 1 with more records), orders-1 on broker 2 only; the group "gone" commits
    to invoice-0, which is in no log dir."""
    ts = 1_700_000_000_000
    batches = [
        w.v2_batch([_commit("app", "orders", 0, 10, ts), _commit("app", "orders", 1, 20, ts)],
                   base_offset=0),
        w.v2_batch([_commit("app", "orders", 0, 15, ts + 1)], base_offset=2),
        w.v2_batch([_commit("old", "orders", 0, 5, ts),
                    w.Rec(w.offset_commit_key("old", "orders", 0), None)], base_offset=3),
        w.v2_batch([_commit("app", "orders", 1, 29, ts + 2)], base_offset=5, producer_id=100,
                   producer_epoch=0, base_sequence=0, transactional=True),
        w.v2_batch([_commit("tx", "orders", 0, 7, ts + 2)], base_offset=6, producer_id=200,
                   producer_epoch=0, base_sequence=0, transactional=True),
        w.end_txn_marker_batch(True, base_offset=7, producer_id=100, producer_epoch=0,
                               coordinator_epoch=1),
        w.end_txn_marker_batch(False, base_offset=8, producer_id=200, producer_epoch=0,
                               coordinator_epoch=1),
        w.v2_batch([_commit("gone", "invoice", 0, 3, ts + 3)], base_offset=9),
    ]
    b1 = w.broker_logdir(root / "b1", 1, high_watermarks=[("orders", 0, 35)])
    b2 = w.broker_logdir(root / "b2", 2, high_watermarks=[("orders", 0, 30),
                                                            ("orders", 1, 40)])
    w.write_replica(b1 / "__consumer_offsets-7", batches)
    w.write_replica(b2 / "__consumer_offsets-7", batches[:2])
    w.write_replica(b1 / "orders-0", w.replica_batches([(0, 20, 0), (20, 20, 0)]))
    w.write_replica(b2 / "orders-0", w.replica_batches([(0, 20, 0), (20, 10, 0)]))
    w.write_replica(b2 / "orders-1", w.replica_batches([(0, 50, 0)]))


def test_lag_json(kdump: KdumpRunner, tmp_path: Path) -> None:
    offsets_logdirs(tmp_path)
    r = kdump("lag", "--format", "json", "b1", "b2", cwd=tmp_path)
    assert r.rc == 0, r.err
    objs = _objs(r.out)
    src = [o for o in objs if o["type"] == "offsets_source"]
    assert [(o["partition"], o["path"], o["log_end_offset"], o["replicas"], o["chosen_by"],
             o["aborted_records"]) for o in src] == [
        ("__consumer_offsets-7", "b1/__consumer_offsets-7", 10, 2,
         "the highest log end offset", 1)]
    lags = [{k: o[k] for k in ("group", "topic", "partition", "committed_offset",
                               "log_end_offset", "high_watermark", "lag")}
            for o in objs if o["type"] == "lag"]
    assert lags == [
        {"group": "app", "topic": "orders", "partition": 0, "committed_offset": 15,
         "log_end_offset": 40, "high_watermark": 35, "lag": 25},
        {"group": "app", "topic": "orders", "partition": 1, "committed_offset": 29,
         "log_end_offset": 50, "high_watermark": 40, "lag": 21},
        {"group": "gone", "topic": "invoice", "partition": 0, "committed_offset": 3,
         "log_end_offset": None, "high_watermark": None, "lag": None},
    ]
    assert lags[0]["lag"] == 25  # largest first
    o0 = next(o for o in objs if o["type"] == "lag" and o["partition"] == 0
              and o["topic"] == "orders")
    assert o0["log_end_offset_from"] == {
        "path": "b1/orders-0", "log_dir": "b1", "broker_id": 1, "log_end_offset": 40,
        "replicas": 2, "chosen_by": "the highest log end offset"}
    assert o0["high_watermark_source"] == "replication-offset-checkpoint of b1 (the highest of 2)"
    groups = [o for o in objs if o["type"] == "group_lag"]
    assert groups == [
        {"type": "group_lag", "group": "app", "group_type": None, "partitions": 2,
         "partitions_without_log": 0, "total_lag": 46, "max_lag": 25, "topics": ["orders"]},
        {"type": "group_lag", "group": "gone", "group_type": None, "partitions": 1,
         "partitions_without_log": 1,
         "total_lag": 0, "max_lag": None, "topics": ["invoice"]},
    ]
    # "old" was deleted by its tombstone; "tx" committed in an aborted transaction
    assert not any(o.get("group") in ("old", "tx") for o in objs)
    for o in objs:  # every field documented (docs/json-schema.md), every required one there
        fields = fields_of(o["type"])
        assert set(o) - {"type"} <= {n.rstrip("?") for n, _ in fields}
        assert {n for n, _ in fields if not n.endswith("?")} <= set(o)


def test_lag_text_and_filters(kdump: KdumpRunner, tmp_path: Path) -> None:
    offsets_logdirs(tmp_path)
    r = kdump("lag", "--group", "app", "--topic", "orders", "b1", "b2", cwd=tmp_path)
    assert r.rc == 0
    assert r.out.splitlines() == [
        "GROUP TYPE TOPIC  PARTITION COMMITTED-OFFSET LOG-END-OFFSET HIGH-WATERMARK LAG",
        "app   -    orders 0         15               40             35             25",
        "app   -    orders 1         29               50             40             21",
        "",
        "group app: 2 partitions, total lag 46, max lag 25",
    ]
    assert r.err.splitlines() == [
        "committed offsets: broker 1 b1/__consumer_offsets-7 (log end offset 10, chosen of 2 "
        "replicas for the highest log end offset): 7 records applied, 1 aborted"]
    t = kdump("lag", "--format", "table", "b1", "b2", cwd=tmp_path)
    assert "consumer lag (largest first)" in t.out and "gone" in t.out


# ------------------------------------------------------------------ size-report keeps replicas apart


def three_brokers(root: Path) -> None:
    """invoice-0 on brokers 1, 2 and 3 (broker 3 lags), invoice-1 on brokers 1 and 2."""
    for b in (1, 2, 3):
        ld = w.broker_logdir(root / f"b{b}", b)
        w.write_replica(ld / "invoice-0",
                        w.replica_batches([(0, 10, 0), (10, 10, 0)] if b < 3 else [(0, 10, 0)]))
        if b < 3:
            w.write_replica(ld / "invoice-1", w.replica_batches([(0, 5, 0)]))


def test_size_report_keeps_replicas_apart(kdump: KdumpRunner, tmp_path: Path) -> None:
    three_brokers(tmp_path)
    r = kdump("size-report", "--format", "json", "b1", "b2", "b3", cwd=tmp_path)
    objs = _objs(r.out)
    parts = [(o["topic"], o["partition"], o["log_dir"], o["broker_id"], o["records"])
             for o in objs if o["type"] == "partition"]
    assert parts == [("invoice", 0, "b1", 1, 20), ("invoice", 0, "b2", 2, 20),
                     ("invoice", 0, "b3", 3, 10), ("invoice", 1, "b1", 1, 5),
                     ("invoice", 1, "b2", 2, 5)]
    total = objs[-1]
    assert {k: total[k] for k in ("type", "counts", "partitions", "replicas", "log_dirs",
                                  "records")} == {
        "type": "total", "counts": "replicas", "partitions": 2, "replicas": 5, "log_dirs": 3,
        "records": 60}
    t = kdump("size-report", "b1", "b2", "b3", cwd=tmp_path)
    assert [x.split()[0] for x in t.out.splitlines()] == [
        "name", "invoice-0@1", "invoice-0@2", "invoice-0@3", "invoice-1@1", "invoice-1@2",
        "TOTAL(replicas)"]


def test_size_report_by_topic_counts_each_partition_once(kdump: KdumpRunner,
                                                         tmp_path: Path) -> None:
    three_brokers(tmp_path)
    r = kdump("size-report", "--by", "topic", "--format", "json", "b1", "b2", "b3",
              cwd=tmp_path)
    objs = _objs(r.out)
    topic = objs[0]
    assert {k: topic[k] for k in ("type", "topic", "records", "partitions", "replicas",
                                  "replication_factor")} == {
        "type": "topic", "topic": "invoice", "records": 25, "partitions": 2, "replicas": 5,
        "replication_factor": 3}
    total = objs[-1]
    assert (total["counts"], total["records"], total["replica_bytes"]) == (
        "partitions", 25, sum(o["bytes"] for o in _objs(kdump(
            "size-report", "--format", "json", "b1", "b2", "b3", cwd=tmp_path).out)
            if o["type"] == "partition"))


def test_size_report_one_log_dir_unchanged_names(kdump: KdumpRunner, tmp_path: Path) -> None:
    three_brokers(tmp_path)
    t = kdump("size-report", "b1", cwd=tmp_path)
    assert [x.split()[0] for x in t.out.splitlines()] == ["name", "invoice-0", "invoice-1",
                                                          "TOTAL"]


def test_offsets_summary_replays_each_partition_once(kdump: KdumpRunner, tmp_path: Path) -> None:
    """dump --summary over two brokers: __consumer_offsets-7 replayed from broker 1 (the
    longer replica) only, not twice."""
    offsets_logdirs(tmp_path)
    r = kdump("dump", "--summary", "--format", "json", "b1", "b2", cwd=tmp_path)
    objs = _objs(r.out)
    total = objs[-1]
    assert (total["records"], total["partitions"], total["skipped_replicas"]) == (
        7, 1, ["b2/__consumer_offsets-7"])
    assert [(o["group"], o["partition"], o["offset"]) for o in objs
            if o["type"] == "committed_offset"] == [("app", 0, 15), ("app", 1, 29),
                                                    ("gone", 0, 3)]


def test_three_replicas_old_leader_new_leader_lagging_follower(kdump: KdumpRunner,
                                                                tmp_path: Path) -> None:
    """Broker 2 leads in epoch 1 (20-32), broker 3 followed it up to 25, broker 1 (the old
    leader) wrote 20-29 in epoch 0: records held by broker 3 too are not only on broker 2;
    broker 1 is cut at 20, broker 3 at its end (nothing to cut)."""
    unclean(tmp_path)
    b3 = w.broker_logdir(tmp_path / "b3", 3)
    w.write_replica(b3 / "orders-0", w.replica_batches(COMMON)
                    + w.replica_batches([(20, 5, 1)], tag="w"))
    r = kdump("compare-replicas", "--format", "json", "b1", "b2", "b3", cwd=tmp_path)
    assert r.rc == 1
    c = _cmp(_objs(r.out), "orders-0")
    reps = _by_broker(c)
    assert (c["divergence_offset"], c["truncation_offset"]) == (20, 20)
    assert [(reps[b]["role"], reps[b]["records_only_here"], reps[b]["truncation_offset"])
            for b in (1, 2, 3)] == [("follower", 10, 20), ("leader", 8, None),
                                    ("follower", 0, 25)]


def test_names_from_the_data_never_drive_a_terminal(kdump: KdumpRunner, tmp_path: Path) -> None:
    ts = 1_700_000_000_000
    b1 = w.broker_logdir(tmp_path / "b1", 1)
    w.write_replica(b1 / "__consumer_offsets-0",
                    [w.v2_batch([_commit("g\x1b[2J[bold]", "t", 0, 1, ts)], base_offset=0)])
    r = kdump("lag", "b1", cwd=tmp_path)
    assert "\x1b" not in r.out and "g\\x1b[2J[bold]" in r.out
    t = kdump("lag", "--format", "table", "b1", cwd=tmp_path)
    assert "\x1b" not in t.out and "[bold]" in t.out
