"""``dump --summary`` and ``lag`` over Kafka 4.x groups: KIP-848 consumer groups (regular
expression subscriptions), KIP-1071 streams groups and KIP-932 share groups, whose
position comes from ``__share_group_state``.  Records are encoded by
tests/support/group_records.py (Kafka 4.3's layouts from the test-side specs of
tests/support/kafka4_specs.py) into log dirs written by tests/writer.py; expectations are
written out by hand from the records below."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest

from kdump.model import fields_of
from tests.conftest import KdumpRunner
from tests.support import group_records as gr
from tests.support import writer as w

TS = 1_700_000_000_000
ORDERS_ID, OTHER_ID, UNKNOWN_ID = (w.uuid_of(i) for i in (91, 92, 93))


def _raw_id(n: int) -> bytes:
    return struct.pack(">QQ", 0x1000 + n, 0xABCDEF00 + n)


def _member(client: str, topics: list[str], regex: str | None = None) -> dict[str, Any]:
    return {"instanceId": None, "rackId": None, "clientId": client, "clientHost": "/10.0.0.1",
            "subscribedTopicNames": topics, "subscribedTopicRegex": regex,
            "rebalanceTimeoutMs": 30000, "serverAssignor": "uniform"}


def consumer_offsets_records() -> list[w.Rec]:
    cr = gr.coordinator_record
    return [
        # a KIP-848 consumer group: two members, one subscribed by a regular expression
        cr("ConsumerGroupMetadata", {"groupId": "cg"}, {"epoch": 4}),
        cr("ConsumerGroupMemberMetadata", {"groupId": "cg", "memberId": "m1"},
           _member("c1", ["orders"])),
        cr("ConsumerGroupMemberMetadata", {"groupId": "cg", "memberId": "m2"},
           _member("c2", [], "pay.*")),
        cr("ConsumerGroupMemberMetadata", {"groupId": "cg", "memberId": "m3"},
           _member("c3", ["left"])),
        cr("ConsumerGroupRegularExpression", {"groupId": "cg", "regularExpression": "pay.*"},
           {"topics": ["pay-us", "pay-eu"], "version": 12, "timestamp": TS + 5}),
        cr("ConsumerGroupRegularExpression", {"groupId": "cg", "regularExpression": "old.*"},
           {"topics": ["old-1"], "version": 3, "timestamp": TS}),
        cr("ConsumerGroupRegularExpression", {"groupId": "cg", "regularExpression": "old.*"},
           None),
        cr("ConsumerGroupMemberMetadata", {"groupId": "cg", "memberId": "m3"}, None),
        cr("ConsumerGroupMetadata", {"groupId": "cg"}, {"epoch": 5}),
        cr("ConsumerGroupCurrentMemberAssignment", {"groupId": "cg", "memberId": "m1"},
           {"memberEpoch": 5, "previousMemberEpoch": 4, "state": 0,
            "assignedPartitions": [{"topicId": ORDERS_ID, "partitions": [1, 0],
                                    "assignmentEpochs": [5, 5]},
                                   {"topicId": OTHER_ID, "partitions": [0]},
                                   {"topicId": UNKNOWN_ID, "partitions": [3]}],
            "partitionsPendingRevocation": []}),
        cr("ConsumerGroupTargetAssignmentMetadata", {"groupId": "cg"}, {"assignmentEpoch": 5}),
        gr.commit("cg", "orders", 0, 10, TS + 10),
        # a consumer group deleted: its metadata tombstone removes it
        cr("ConsumerGroupMetadata", {"groupId": "gone"}, {"epoch": 1}),
        cr("ConsumerGroupMetadata", {"groupId": "gone"}, None),
        # a streams group
        cr("StreamsGroupMetadata", {"groupId": "sg"}, {"epoch": 3, "metadataHash": 77}),
        cr("StreamsGroupTopology", {"groupId": "sg"}, {"epoch": 2, "subtopologies": [
            {"subtopologyId": "0", "sourceTopics": ["orders"], "sourceTopicRegex": [],
             "stateChangelogTopics": [{"name": "sg-store-changelog", "partitions": 0,
                                       "replicationFactor": 0, "topicConfigs": []}],
             "repartitionSinkTopics": ["sg-repartition"], "repartitionSourceTopics": [],
             "copartitionGroups": []}]}),
        cr("StreamsGroupMemberMetadata", {"groupId": "sg", "memberId": "s1"},
           {"instanceId": None, "rackId": None, "clientId": "app-1", "clientHost": "/h",
            "rebalanceTimeoutMs": 1000, "topologyEpoch": 2, "processId": "p-1",
            "userEndpoint": {"host": "h", "port": 8080}, "clientTags": []}),
        gr.commit("sg", "orders", 1, 4, TS + 11),
        # a share group and its initialized share-partitions
        cr("ShareGroupMetadata", {"groupId": "shg"}, {"epoch": 2}),
        cr("ShareGroupMemberMetadata", {"groupId": "shg", "memberId": "x1"},
           {"rackId": None, "clientId": "sc", "clientHost": "/h2",
            "subscribedTopicNames": ["orders"]}),
        cr("ShareGroupStatePartitionMetadata", {"groupId": "shg"}, {
            "initializedTopics": [{"topicId": ORDERS_ID, "topicName": "orders",
                                   "partitions": [1, 0]}],
            "deletingTopics": []}),
    ]


def _snapshot(group: str, tid: str, part: int, start: int, state_epoch: int,
              leader_epoch: int, dcc: int = -1) -> w.Rec:
    return gr.coordinator_record(
        "ShareSnapshot", {"groupId": group, "topicId": tid, "partition": part},
        {"snapshotEpoch": 0, "stateEpoch": state_epoch, "leaderEpoch": leader_epoch,
         "startOffset": start, "deliveryCompleteCount": dcc, "createTimestamp": TS,
         "writeTimestamp": TS + 1, "stateBatches": [
             {"firstOffset": start, "lastOffset": start + 1, "deliveryState": 0,
              "deliveryCount": 1}]})


def _update(group: str, tid: str, part: int, start: int, leader_epoch: int,
            dcc: int = -1) -> w.Rec:
    return gr.coordinator_record(
        "ShareUpdate", {"groupId": group, "topicId": tid, "partition": part},
        {"snapshotEpoch": 0, "leaderEpoch": leader_epoch, "startOffset": start,
         "deliveryCompleteCount": dcc, "stateBatches": []})


def share_state_records() -> list[w.Rec]:
    return [
        _snapshot("shg", ORDERS_ID, 0, 20, 1, 3, dcc=2),
        _update("shg", ORDERS_ID, 0, 25, -1, dcc=1),  # start moves, leader epoch kept
        _snapshot("shg", ORDERS_ID, 1, 5, 1, 3),
        _update("shg", ORDERS_ID, 1, -1, 4),  # start kept, leader epoch moves
        _update("shg", OTHER_ID, 0, 7, 1),  # no snapshot: state epoch -1
        _snapshot("shg", UNKNOWN_ID, 0, 3, 1, 1),
        _snapshot("shg", ORDERS_ID, 2, 9, 1, 1),
        gr.coordinator_record("ShareSnapshot", {"groupId": "shg", "topicId": ORDERS_ID,
                                                "partition": 2}, None),
    ]


def groups_logdir(root: Path) -> Path:
    """One broker: __consumer_offsets-0, __share_group_state-0, orders-0 (40 records),
    orders-1 (30), other-0 (12; named only by its partition.metadata)."""
    b = w.broker_logdir(root / "b1", 1)
    w.write_replica(b / "__consumer_offsets-0", [w.v2_batch(consumer_offsets_records())])
    w.write_replica(b / "__share_group_state-0", [w.v2_batch(share_state_records())])
    w.write_replica(b / "orders-0", w.replica_batches([(0, 40, 0)]))
    w.write_replica(b / "orders-1", w.replica_batches([(0, 30, 0)]))
    w.write_replica(b / "other-0", w.replica_batches([(0, 12, 0)]))
    (b / "orders-0" / "partition.metadata").write_bytes(w.partition_metadata(_raw_id(91)))
    (b / "other-0" / "partition.metadata").write_bytes(w.partition_metadata(_raw_id(92)))
    return b


def _objs(text: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in text.splitlines()]


def _documented(objs: list[dict[str, Any]]) -> None:
    for o in objs:
        fields = fields_of(o["type"])
        assert set(o) - {"type"} <= {n.rstrip("?") for n, _ in fields}, o["type"]
        assert {n for n, _ in fields if not n.endswith("?")} <= set(o), o["type"]


def test_summary_json_groups_of_every_type(kdump: KdumpRunner, tmp_path: Path) -> None:
    groups_logdir(tmp_path)
    r = kdump("dump", "--summary", "--format", "json", "b1", cwd=tmp_path)
    assert r.rc == 0, r.err
    objs = _objs(r.out)
    _documented(objs)
    groups = {o["group"]: o for o in objs if o["type"] == "group"}
    assert sorted(groups) == ["cg", "sg", "shg"]  # "gone" was deleted
    cg = groups["cg"]
    assert (cg["group_type"], cg["protocol_type"], cg["generation"], cg["epoch"],
            cg["assignment_epoch"], cg["members"]) == ("consumer", "consumer", None, 5, 5, 2)
    assert cg["subscribed_topic_names"] == ["orders"]
    assert cg["subscribed_topic_regexes"] == ["pay.*"]
    assert cg["resolved_regular_expressions"] == [
        {"regular_expression": "pay.*", "topics": ["pay-eu", "pay-us"], "version": 12,
         "timestamp": TS + 5}]
    assert [m["member_id"] for m in cg["group_members"]] == ["m1", "m2"]
    assert cg["group_members"][1] == {
        "member_id": "m2", "member_epoch": None, "instance_id": None, "client_id": "c2",
        "client_host": "/10.0.0.1", "rack_id": None, "subscribed_topic_names": [],
        "subscribed_topic_regex": "pay.*", "server_assignor": "uniform", "assignment": None}
    assert (cg["group_members"][0]["member_epoch"], cg["group_members"][0]["assignment"]) == (
        5, [{"topic_id": ORDERS_ID, "topic": "orders", "partitions": [0, 1]},
            {"topic_id": OTHER_ID, "topic": "other", "partitions": [0]},  # partition.metadata
            {"topic_id": UNKNOWN_ID, "topic": None, "partitions": [3]}])
    sg = groups["sg"]
    assert (sg["group_type"], sg["epoch"], sg["members"]) == ("streams", 3, 1)
    assert sg["topology"] == {"epoch": 2, "subtopologies": [{
        "subtopology_id": "0", "source_topics": ["orders"], "source_topic_regex": [],
        "repartition_sink_topics": ["sg-repartition"], "repartition_source_topics": [],
        "state_changelog_topics": ["sg-store-changelog"]}]}
    assert sg["group_members"][0]["process_id"] == "p-1"
    shg = groups["shg"]
    assert (shg["group_type"], shg["epoch"], shg["subscribed_topic_names"]) == \
        ("share", 2, ["orders"])
    assert shg["share_partitions"] == {
        "initialized": [{"topic_id": ORDERS_ID, "topic": "orders", "partitions": [0, 1]}],
        "initializing": [], "deleting": []}
    shares = [(o["topic"], o["topic_id"], o["partition"], o["start_offset"], o["state_epoch"],
               o["leader_epoch"], o["delivery_complete_count"], o["updates_since_snapshot"])
              for o in objs if o["type"] == "share_partition"]
    assert sorted(shares, key=lambda s: (s[1], s[2])) == sorted([
        ("orders", ORDERS_ID, 0, 25, 1, 3, 1, 1),
        ("orders", ORDERS_ID, 1, 5, 1, 4, None, 1),
        ("other", OTHER_ID, 0, 7, -1, 1, None, 1),
        (None, UNKNOWN_ID, 0, 3, 1, 1, None, 0),
    ], key=lambda s: (s[1], s[2]))
    total = objs[-1]
    assert (total["type"], total["partitions"], total["committed_offsets"], total["groups"],
            total["share_partitions"], total["ignored_records"]) == \
        ("offsets_summary", 2, 2, 3, 4, 0)
    assert total["records"] == len(consumer_offsets_records()) + len(share_state_records())


def test_summary_text_and_table(kdump: KdumpRunner, tmp_path: Path) -> None:
    groups_logdir(tmp_path)
    r = kdump("dump", "--summary", "b1", cwd=tmp_path)
    assert r.rc == 0, r.err
    lines = r.out.splitlines()
    g = lines.index("GROUP TYPE PROTOCOL_TYPE EPOCH PROTOCOL MEMBERS LEADER SUBSCRIPTION")
    assert lines[g + 1:g + 4] == [
        "cg consumer consumer 5 - 2 - orders,regex:pay.*",
        "sg streams streams 3 - 1 - topology:2:orders",
        "shg share share 2 - 1 - orders",
    ]
    s = lines.index("SHARE_GROUP TOPIC PARTITION START_OFFSET STATE_EPOCH LEADER_EPOCH "
                    "DELIVERY_COMPLETE")
    assert sorted(lines[s + 1:]) == sorted([
        "shg orders 0 25 1 3 1", "shg orders 1 5 1 4 -", "shg other 0 7 -1 1 -",
        f"shg {UNKNOWN_ID} 0 3 1 1 -"])
    assert r.err.splitlines()[-1] == (
        "offsets summary: 29 records in 2 partitions: 2 committed offsets, 3 groups, "
        "4 share-partitions")
    t = kdump("dump", "--summary", "--format", "table", "b1", cwd=tmp_path)
    assert "share-partitions (__share_group_state)" in t.out and "streams" in t.out


def test_lag_of_every_group_type(kdump: KdumpRunner, tmp_path: Path) -> None:
    groups_logdir(tmp_path)
    r = kdump("lag", "--format", "json", "b1", cwd=tmp_path)
    assert r.rc == 0, r.err
    objs = _objs(r.out)
    _documented(objs)
    lags = [(o["group"], o["group_type"], o["topic"], o["partition"], o["committed_offset"],
             o["log_end_offset"], o["lag"]) for o in objs if o["type"] == "lag"]
    assert lags == [
        ("cg", "consumer", "orders", 0, 10, 40, 30),
        ("sg", "streams", "orders", 1, 4, 30, 26),
        ("shg", "share", "orders", 1, 5, 30, 25),
        ("shg", "share", "orders", 0, 25, 40, 15),
        ("shg", "share", "other", 0, 7, 12, 5),
        # cg's member m1 is assigned these and nothing is committed on them
        ("cg", "consumer", UNKNOWN_ID, 3, None, None, None),
        ("cg", "consumer", "orders", 1, None, 30, None),
        ("cg", "consumer", "other", 0, None, 12, None),
        ("shg", "share", UNKNOWN_ID, 0, 3, None, None),
    ]
    assigned = [(o["group"], o["topic"], o["partition"], o.get("assigned_to"))
                for o in objs if o["type"] == "lag" and o["group"] in ("cg", "sg")]
    # sg's topology and tasks say nothing of orders-1: no member reads it
    assert assigned[:2] == [("cg", "orders", 0, ["m1"]), ("sg", "orders", 1, [])]
    assert {a[3] == ["m1"] for a in assigned if a[0] == "cg"} == {True}
    share0 = next(o for o in objs if o["type"] == "lag" and o["group"] == "shg"
                  and o["topic"] == "orders" and o["partition"] == 0)
    assert (share0["topic_id"], share0["state_epoch"], share0["delivery_complete_count"],
            share0["committed_offset_from"]) == (ORDERS_ID, 1, 1, "b1/__share_group_state-0")
    sources = [o["partition"] for o in objs if o["type"] == "offsets_source"]
    assert sources == ["__consumer_offsets-0", "__share_group_state-0"]
    glags = [(o["group"], o["group_type"], o["partitions"], o["total_lag"])
             for o in objs if o["type"] == "group_lag"]
    assert glags == [("cg", "consumer", 4, 30), ("sg", "streams", 1, 26), ("shg", "share", 4, 45)]
    (cg,) = [o for o in objs if o["type"] == "group_lag" and o["group"] == "cg"]
    assert cg["partitions_without_log"] == 1  # the unnamed topic's partition


def test_lag_text_names_group_types(kdump: KdumpRunner, tmp_path: Path) -> None:
    groups_logdir(tmp_path)
    r = kdump("lag", "--group", "shg", "--topic", "orders", "b1", cwd=tmp_path)
    assert r.rc == 0, r.err
    assert r.out.splitlines() == [
        "GROUP TYPE  TOPIC  PARTITION COMMITTED-OFFSET LOG-END-OFFSET HIGH-WATERMARK LAG",
        "shg   share orders 1         5                30             -              25",
        "shg   share orders 0         25               40             -              15",
        "",
        "group shg (share): 2 partitions, total lag 40, max lag 25",
    ]
    assert r.err.splitlines() == [
        "committed offsets: broker 1 b1/__consumer_offsets-0 (log end offset 21): "
        "21 records applied, 0 aborted",
        "share-group state: broker 1 b1/__share_group_state-0 (log end offset 8): "
        "8 records applied, 0 aborted",
    ]


@pytest.mark.parametrize("cut", [1, 5, 9])
def test_share_state_replay_matches_a_plain_model(cut: int) -> None:
    """ShareStateDigest against the rules applied by hand, record by record."""
    from kdump.decoders import internal_decoder
    from kdump.ops.share_state import ShareStateDigest

    recs = share_state_records()[:cut]
    d = ShareStateDigest()
    dec = internal_decoder("share-group-state")
    model: dict[tuple[str, str, int], dict[str, int]] = {}
    for i, rec in enumerate(recs):
        out = dec.decode(rec.key, rec.value, i)
        d.add(out.key_json, out.value_json, log_offset=i)
        kd = out.key_json["data"]  # type: ignore[index]
        k = (kd["groupId"], kd["topicId"], kd["partition"])
        v = out.value_json["data"] if out.value_json else None  # type: ignore[index]
        if out.key_json["type"] == "0":  # type: ignore[index]
            if v is None:
                model.pop(k, None)
            else:
                model[k] = {"start": v["startOffset"], "state": v["stateEpoch"],
                            "leader": v["leaderEpoch"]}
        elif k not in model:
            model[k] = {"start": v["startOffset"], "state": -1, "leader": v["leaderEpoch"]}
        else:
            if v["startOffset"] != -1:
                model[k]["start"] = v["startOffset"]
            if v["leaderEpoch"] != -1:
                model[k]["leader"] = v["leaderEpoch"]
    got = {(s.group, s.topic_id, s.partition): {"start": s.start_offset, "state": s.state_epoch,
                                                "leader": s.leader_epoch} for s in d.states()}
    assert got == model


def test_lag_keeps_share_state_replicas_apart(kdump: KdumpRunner, tmp_path: Path) -> None:
    """Two brokers hold __share_group_state-0: the longer replica is replayed, named,
    and never added to the other; a topic id selects an unnamed share-partition."""
    groups_logdir(tmp_path)
    b2 = w.broker_logdir(tmp_path / "b2", 2)
    w.write_replica(b2 / "__share_group_state-0", [w.v2_batch(share_state_records()[:1])])
    r = kdump("lag", "--format", "json", "--topic", UNKNOWN_ID, "b1", "b2", cwd=tmp_path)
    assert r.rc == 0, r.err
    objs = _objs(r.out)
    src = [(o["partition"], o["path"], o["replicas"], o["chosen_by"], o["records"])
           for o in objs if o["type"] == "offsets_source"]
    assert src == [("__consumer_offsets-0", "b1/__consumer_offsets-0", 1, "the only one", 21),
                   ("__share_group_state-0", "b1/__share_group_state-0", 2,
                    "the highest log end offset", 8)]
    assert [(o["group"], o["topic"], o["committed_offset"]) for o in objs
            if o["type"] == "lag"] == [("cg", UNKNOWN_ID, None), ("shg", UNKNOWN_ID, 3)]


def test_group_strings_from_the_data_stay_inert(kdump: KdumpRunner, tmp_path: Path) -> None:
    """A group id and a regular expression are the clients' strings: a
    newline must not print a second row, nor an escape sequence reach the terminal."""
    part = tmp_path / "__consumer_offsets-1"
    evil = "x\nforged consumer consumer 9 - 1 - t\x1b[2J"
    w.write_replica(part, [w.v2_batch([
        gr.coordinator_record("ConsumerGroupMetadata", {"groupId": evil}, {"epoch": 1}),
        gr.coordinator_record("ConsumerGroupMemberMetadata",
                              {"groupId": evil, "memberId": "m"}, _member("c", [], evil)),
    ])])
    r = kdump("dump", "--summary", part, cwd=tmp_path)
    assert r.rc == 0, r.err
    esc = "x\\x0aforged consumer consumer 9 - 1 - t\\x1b[2J"
    assert r.out.splitlines() == [
        "GROUP TYPE PROTOCOL_TYPE EPOCH PROTOCOL MEMBERS LEADER SUBSCRIPTION",
        f"{esc} consumer consumer 1 - 1 - regex:{esc}",
    ]
    t = kdump("dump", "--summary", "--format", "table", part, cwd=tmp_path)
    assert "\x1b" not in t.out


def test_the_kafka41_golden_fixture(kdump: KdumpRunner, tmp_path: Path) -> None:
    """tests/support/kafka4_fixtures.py's 4.1 log dir and 4.0 share state, written from another
    test-side reading of Kafka's definitions (tests/support/kafka4_specs.py)."""
    from tests.support import kafka4_fixtures as kf

    kf.build_kafka41(tmp_path / "a")
    kf.build_share40(tmp_path / "b")
    r = kdump("dump", "--summary", "a", cwd=tmp_path)
    assert r.rc == 0, r.err
    assert r.out.splitlines() == [  # a's share-partition is deleted by its tombstone
        "GROUP TOPIC PARTITION OFFSET COMMIT_TIMESTAMP LEADER_EPOCH METADATA",
        "g1 orders 0 42 2023-11-14T22:13:20.000Z 0",
        "GROUP TYPE PROTOCOL_TYPE EPOCH PROTOCOL MEMBERS LEADER SUBSCRIPTION",
        "app streams streams 2 - 1 - topology:1:orders",
        "g1 consumer consumer 5 - 0 - regex:ord.*",
        "sg share share 3 - 0 - -",
    ]
    b = kdump("dump", "--summary", "b", cwd=tmp_path)  # 4.0's layout
    assert b.out.splitlines() == [
        "SHARE_GROUP TOPIC PARTITION START_OFFSET STATE_EPOCH LEADER_EPOCH DELIVERY_COMPLETE",
        f"sg {kf.T2} 1 7 1 2 -",
    ]
    # a and b together are two brokers' replicas of __share_group_state-0: a's, the
    # longer, is replayed and b's named as skipped
    both = kdump("dump", "--summary", "--format", "json", "a", "b", cwd=tmp_path)
    assert _objs(both.out)[-1]["skipped_replicas"] == ["b/__share_group_state-0"]
    j = kdump("dump", "--summary", "--format", "json", "a", cwd=tmp_path)
    objs = _objs(j.out)
    _documented(objs)
    (app,) = [o for o in objs if o.get("group") == "app"]
    assert app["group_members"] == [{
        "member_id": "m1", "member_epoch": 2, "instance_id": None, "client_id": "app-1",
        "client_host": "/h", "rack_id": "r1", "process_id": "p1", "topology_epoch": 1,
        "assignment": [{"subtopology_id": "0", "partitions": [0]}]}]
    (sg,) = [o for o in objs if o.get("group") == "sg"]
    assert sg["share_partitions"]["initialized"] == [
        {"topic_id": kf.T1, "topic": "orders", "partitions": [0]}]
    assert objs[-1]["ignored_records"] == 2  # the unknown type 18 and value version 1
    lag = kdump("lag", "--format", "json", "a", cwd=tmp_path)
    # app's member m1 runs task 0_0 of subtopology 0, which reads orders: orders-0 is
    # assigned with nothing committed
    assert [(o["group"], o["group_type"], o["topic"], o["partition"], o["committed_offset"],
             o.get("assigned_to")) for o in _objs(lag.out) if o["type"] == "lag"] == [
        ("app", "streams", "orders", 0, None, ["m1"]), ("g1", "consumer", "orders", 0, 42, [])]


def test_digests_take_any_json_without_raising() -> None:
    """Whatever shapes a decoder's JSON takes (a misfit layout, a hand-edited record),
    the digests count or ignore the record, never raise; results stay well-formed."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from kdump.ops.offsets_digest import OffsetsDigest
    from kdump.ops.share_state import ShareStateDigest

    scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 30), st.text(max_size=4))
    values = st.recursive(scalars, lambda c: st.one_of(
        st.lists(c, max_size=3), st.dictionaries(st.sampled_from(
            ["groupId", "memberId", "regularExpression", "topics", "epoch", "name",
             "subtopologies", "sourceTopics", "initializedTopics", "topicId", "topicName",
             "partitions", "partition", "startOffset", "leaderEpoch", "stateEpoch",
             "subscribedTopicNames", "stateChangelogTopics", "memberEpoch"]), c, max_size=5)),
        max_leaves=12)
    records = st.lists(st.tuples(
        st.fixed_dictionaries({"type": st.one_of(st.integers(0, 24).map(str), scalars),
                               "data": values}),
        st.one_of(st.none(), st.fixed_dictionaries({"version": st.just("0"), "data": values}),
                  values)), max_size=12)

    @settings(max_examples=200, deadline=None)
    @given(records)
    def check(recs: list[tuple[Any, Any]]) -> None:
        od, sd = OffsetsDigest(), ShareStateDigest()
        for i, (k, v) in enumerate(recs):
            od.add(k, v, log_offset=i)
            sd.add(k, v, log_offset=i)
        json.dumps(od.group_rows())
        json.dumps([sd.to_row(s, None) for s in sd.states()])
        assert od.records == sd.records == len(recs)

    check()
