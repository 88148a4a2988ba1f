"""``kdump timeline`` on what real KRaft clusters showed (issue 48): a replica's epoch
start with no batch yet dated by the leader change that began it, a partition with no
leader said ``none``, and a new consumer group's topic ids named from the metadata log's
TopicRecords.  Log dirs written by the project's encoder; expectations written out by
hand from their records."""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import pytest

from kdump.model import type_errors
from kdump.ops.timeline import TimelineEnd, TimelineEvent, TimelineOptions, timeline
from tests.support import writer as w
from tests.support.timeline_fixture import TS

HOUR = 3_600_000


def run(paths: list[str], **opts: object) -> tuple[list[TimelineEvent], TimelineEnd]:
    items = list(timeline(paths, TimelineOptions(**opts)))  # type: ignore[arg-type]
    end = items[-1]
    assert isinstance(end, TimelineEnd)
    return [e for e in items if isinstance(e, TimelineEvent)], end


def lines(evs: list[TimelineEvent]) -> list[str]:
    return [f"{'~' if e.estimate else ''}{'late ' if e.late else ''}"
            f"{(e.time - TS) if e.time is not None else '-'} {e.clock} {e.kind} "
            f"{e.object}: {e.text}" for e in evs]


def change(tid: str, **fields: object) -> bytes:
    return w.metadata_record("PartitionChangeRecord", {"partitionId": 0, "topicId": tid,
                                                       **fields})


def leader_moves_back(root: Path, *, metadata: bool = True, moved_at: int = 1000,
                      back_at: int | None = 2 * HOUR) -> Path:
    """Broker 1 leads orders/0 in epoch 0 (offsets 0-4, batches at TS), loses the lead to
    broker 2 (epoch 1, offsets 5-9, fetched), and leads it again in epoch 2 from offset
    10, ``back_at`` after TS (None: the metadata log does not reach it), with no batch
    appended since: its leader-epoch-checkpoint holds epoch 2's start, no batch does."""
    tid = w.uuid_of(7)
    b = w.broker_logdir(root / "b1", 1)
    if metadata:
        lw = w.MetadataLogWriter(b / "__cluster_metadata-0")
        lw.append([w.metadata_record("TopicRecord", {"name": "orders", "topicId": tid}),
                   w.metadata_record("PartitionRecord", {
                       "partitionId": 0, "topicId": tid, "replicas": [1, 2],
                       "isr": [1, 2], "leader": 1, "leaderEpoch": 0,
                       "partitionEpoch": 0})], timestamp=TS)
        lw.append([change(tid, leader=2)], timestamp=TS + moved_at)  # epoch 1
        if back_at is not None:
            lw.append([change(tid, leader=1)], timestamp=TS + back_at)  # epoch 2
        lw.close()
    w.write_replica(b / "orders-0", w.replica_batches([(0, 5, 0), (5, 5, 1)]),
                    epochs=[(0, 0), (1, 5), (2, 10)])
    return b


KINDS = ("epoch-start", "leader-change")
EPOCH2 = "epoch 2 starts at offset 10 on broker 1 (leader-epoch-checkpoint)"
LAST = "after its last batch (2023-11-14T22:13:20.009Z)"


def test_an_epoch_start_with_no_batch_is_dated_by_its_leader_change(tmp_path: Path) -> None:
    """A real cluster's leader change to a broker that appended nothing since showed
    its epoch start 1.5 hours before the change, at the replica's last batch.  The epoch
    began when broker 1 applied the change making it leader (Partition.makeLeader ->
    assignEpochStartOffset): dated by that change (the controller's clock, an
    estimate), right after it in the stream, each related to the other; not late."""
    b = leader_moves_back(tmp_path)
    evs, end = run([str(b)], kinds=KINDS)
    assert lines(evs)[2:] == [
        "1000 controller leader-change orders/0: leader 1 -> 2, epoch 1",
        "7200000 controller leader-change orders/0: leader 2 -> 1, epoch 2",
        f"~7200000 controller epoch-start orders/0: {EPOCH2}, dated by the leader change "
        f"that began it (metadata offset 3); no batch of this epoch yet, {LAST}"]
    change_ev, start = evs[-2:]
    assert start.related == ["orders/0: leader 2 -> 1, epoch 2 (2023-11-15T00:13:20.000Z, "
                             "metadata offset 3)"]
    assert change_ev.related == [f"orders/0: {start.text} (2023-11-15T00:13:20.000Z, "
                                 "replica offset 10)"]
    j = start.to_json()
    assert (j["time"], j["clock"], j["estimate"], j["offset"], j["late"], j["file"]) == (
        TS + 2 * HOUR, "controller", True, 10, False,
        str(b / "orders-0" / "leader-epoch-checkpoint"))
    assert type_errors(j) == []
    assert end.late == 0


def test_without_a_metadata_log_it_is_a_lower_bound_saying_so(tmp_path: Path) -> None:
    b = leader_moves_back(tmp_path, metadata=False)
    evs, end = run([str(b)], kinds=KINDS)
    assert lines(evs) == [
        "4 producer epoch-start orders/0: epoch 0 starts at offset 0 on broker 1",
        "9 producer epoch-start orders/0: epoch 1 starts at offset 5 on broker 1",
        f"~9 producer epoch-start orders/0: {EPOCH2} {LAST}, no batch of this epoch yet"]
    assert end.late == 0


def test_a_change_before_the_last_batch_leaves_the_batch_the_later_bound(
        tmp_path: Path) -> None:
    """The change's time (the controller's clock) before the replica's last batch (a
    producer's): the epoch began after both, the batch is the later bound; related."""
    b = leader_moves_back(tmp_path, moved_at=1, back_at=2)
    evs, end = run([str(b)], kinds=KINDS)
    assert lines(evs)[-1] == \
        f"~9 producer epoch-start orders/0: {EPOCH2} {LAST}, no batch of this epoch yet"
    assert evs[-1].related == ["orders/0: leader 2 -> 1, epoch 2 (2023-11-14T22:13:20.002Z, "
                               "metadata offset 3)"]
    assert end.late == 0


def test_a_change_the_metadata_log_does_not_reach_leaves_it_late(tmp_path: Path) -> None:
    """Held for its change until the metadata log's events have all passed, then given
    as it was, after them: late."""
    b = leader_moves_back(tmp_path, back_at=None)
    evs, end = run([str(b)], kinds=KINDS)
    assert lines(evs)[-2:] == [
        "1000 controller leader-change orders/0: leader 1 -> 2, epoch 1",
        f"~late 9 producer epoch-start orders/0: {EPOCH2} {LAST}, no batch of this epoch yet"]
    assert end.late == 1


def test_a_new_groups_topic_ids_are_named_by_the_metadata_log(tmp_path: Path) -> None:
    """4.1+ writes no ConsumerGroupPartitionMetadata (KIP-1101): a consumer group's
    assignment records name topics by id only.  The metadata log's TopicRecords name
    them (a topic deleted since too), in the words and in JSON ``members``; an id no
    record names stays the id; without the metadata log, every id stays."""
    from tests.support import group_records as gr

    cr = gr.coordinator_record
    orders, gone, unknown = w.uuid_of(61), w.uuid_of(62), w.uuid_of(63)
    b = w.broker_logdir(tmp_path / "b", 1)
    lw = w.MetadataLogWriter(b / "__cluster_metadata-0")
    lw.append([w.metadata_record("TopicRecord", {"name": "orders", "topicId": orders}),
               w.metadata_record("TopicRecord", {"name": "gone", "topicId": gone})],
              timestamp=TS)
    lw.append([w.metadata_record("RemoveTopicRecord", {"topicId": gone})],
              timestamp=TS + 500)
    lw.close()
    key = {"groupId": "cg", "memberId": "m1"}
    recs = [cr("ConsumerGroupTargetAssignmentMember", key, {"topicPartitions": [
                {"topicId": orders, "partitions": [0, 1]}, {"topicId": gone, "partitions": [2]},
                {"topicId": unknown, "partitions": [3]}]}),
            cr("ConsumerGroupCurrentMemberAssignment", key, {
                "memberEpoch": 5, "previousMemberEpoch": 4, "state": 0,
                "assignedPartitions": [{"topicId": orders, "partitions": [0]}],
                "partitionsPendingRevocation": [{"topicId": orders, "partitions": [1]}]})]
    w.write_replica(b / "__consumer_offsets-0",
                    [w.v2_batch([w.Rec(r.key, r.value, timestamp=TS + 1000 * (k + 1))],
                                base_offset=k, first_timestamp=TS + 1000 * (k + 1))
                     for k, r in enumerate(recs)])
    evs, _ = run([str(b)], kinds=("group",))
    assert lines(evs) == [
        "1000 coordinator group-member group cg: consumer group target assignment of member "
        f"m1: orders-0,1, gone-2, {unknown}-3",
        "2000 coordinator group-member group cg: consumer group member m1 epoch 5: owns "
        "orders-0, revoking orders-1"]
    assert evs[0].to_json()["members"] == [{
        "member_id": "m1", "client_id": None, "client_host": None,
        "group_instance_id": None, "subscribed": None, "assigned": [
            {"topic": "orders", "topic_id": orders, "partitions": [0, 1]},
            {"topic": "gone", "topic_id": gone, "partitions": [2]},
            {"topic": None, "topic_id": unknown, "partitions": [3]}]}]
    for e in evs:
        assert type_errors(e.to_json()) == []
    shutil.rmtree(b / "__cluster_metadata-0")
    evs, _ = run([str(b)], kinds=("group",))
    assert lines(evs) == [
        "1000 coordinator group-member group cg: consumer group target assignment of member "
        f"m1: {orders}-0,1, {gone}-2, {unknown}-3",
        "2000 coordinator group-member group cg: consumer group member m1 epoch 5: owns "
        f"{orders}-0, revoking {orders}-1"]


def test_an_epoch_the_snapshot_holds_is_not_held(tmp_path: Path) -> None:
    """The metadata log's history starts from a snapshot already giving the partition
    leader epoch 2: its change is before the history, so the epoch start is not held for
    it; it stays at the replica's last batch, in time order."""
    tid = w.uuid_of(7)
    b = w.broker_logdir(tmp_path / "b", 1)
    meta = b / "__cluster_metadata-0"
    meta.mkdir()
    w.metadata_snapshot(meta / "00000000000000000005-0000000001.checkpoint", [
        w.metadata_record("TopicRecord", {"name": "orders", "topicId": tid}),
        w.metadata_record("PartitionRecord", {
            "partitionId": 0, "topicId": tid, "replicas": [1, 2], "isr": [1, 2],
            "leader": 1, "leaderEpoch": 2, "partitionEpoch": 2})], timestamp=TS)
    ml = w.MetadataLogWriter(meta)
    ml.skip(5)
    ml.append([change(tid, isr=[1])], timestamp=TS + HOUR)
    ml.close()
    w.write_replica(b / "orders-0", w.replica_batches([(0, 5, 0), (5, 5, 1)]),
                    epochs=[(0, 0), (1, 5), (2, 10)])
    evs, end = run([str(b)], kinds=("epoch-start", "isr-change"))
    assert lines(evs) == [
        "4 producer epoch-start orders/0: epoch 0 starts at offset 0 on broker 1",
        "9 producer epoch-start orders/0: epoch 1 starts at offset 5 on broker 1",
        f"~9 producer epoch-start orders/0: {EPOCH2} {LAST}, no batch of this epoch yet",
        "3600000 controller isr-change orders/0: isr [1,2] -> [1]"]
    assert end.late == 0


def test_held_epoch_starts_are_bounded(tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_WAITING held, the oldest is given as it was (a lower bound), late."""
    # the module (the package's ``correlate`` is its function)
    correlate = importlib.import_module("kdump.ops.timeline.correlate")
    monkeypatch.setattr(correlate, "MAX_WAITING", 0)
    b = leader_moves_back(tmp_path)
    evs, end = run([str(b)], kinds=KINDS)
    assert lines(evs)[2:] == [
        "1000 controller leader-change orders/0: leader 1 -> 2, epoch 1",
        f"~late 9 producer epoch-start orders/0: {EPOCH2} {LAST}, no batch of this epoch yet",
        "7200000 controller leader-change orders/0: leader 2 -> 1, epoch 2"]
    assert end.late == 1


def test_each_replica_waiting_for_one_change_is_dated_by_it(tmp_path: Path) -> None:
    """Two replicas of the partition, each with epoch 2 past its batches: both held for
    the one change, both dated by it (none lost)."""
    b1 = leader_moves_back(tmp_path)
    b2 = w.broker_logdir(tmp_path / "b2", 2)
    w.write_replica(b2 / "orders-0", w.replica_batches([(0, 5, 0)]), epochs=[(0, 0), (2, 5)])
    evs, end = run([str(b1), str(b2)], kinds=("epoch-start",))
    assert lines(evs)[-2:] == [  # in the order they were held
        "~7200000 controller epoch-start orders/0: epoch 2 starts at offset 5 on broker 2 "
        "(leader-epoch-checkpoint), dated by the leader change that began it (metadata "
        "offset 3); no batch of this epoch yet, after its last batch "
        "(2023-11-14T22:13:20.004Z)",
        f"~7200000 controller epoch-start orders/0: {EPOCH2}, dated by the leader change "
        f"that began it (metadata offset 3); no batch of this epoch yet, {LAST}"]
    assert end.late == 0


def test_a_passed_change_is_known_past_the_keys_correlation_remembers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether the change passed is kept per partition (its latest epoch begun), not in
    the correlation's keys (at most MAX_KEYS, the oldest forgotten): with none
    remembered, the epoch start is still not held for a change gone by."""
    correlate = importlib.import_module("kdump.ops.timeline.correlate")
    monkeypatch.setattr(correlate, "MAX_KEYS", 0)
    b = leader_moves_back(tmp_path, moved_at=1, back_at=2)
    evs, end = run([str(b)], kinds=KINDS)
    assert lines(evs)[-1] == \
        f"~9 producer epoch-start orders/0: {EPOCH2} {LAST}, no batch of this epoch yet"
    assert end.late == 0
