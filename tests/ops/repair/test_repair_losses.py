"""``kdump repair`` follows the one verdict of a partition (issue 46, What 3): a segment
gone from the middle (with or without its indexes) and a partition directory gone while
the checkpoints name it are damage, planned, reported and filled from a replica where
the replicas agree; ``data_lost`` means offsets the copy does not hold that were written,
false after a complete fill; the copy's losses are the manifest's.

Every log dir is written by the project's encoder: brokers of one cluster, each with its
copy of ``t-0`` in three segments (0: offsets 0-19, 20: 20-39, 40: 40-59)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import KdumpRunner
from tests.ops.repair.test_repair_fill import (
    EPOCHS,
    SPANS,
    dumped_offsets,
    objs,
    of,
    repair,
    verify_clean,
    verify_lost,
)
from tests.support import writer as w

SEG20 = "00000000000000000020"


def three_segments(root: Path, bid: int, *, hw: int = 60) -> Path:
    ld = w.broker_logdir(root / f"b{bid}", bid, high_watermarks=[("t", 0, hw)])
    (ld / "recovery-point-offset-checkpoint").write_bytes(w.offset_checkpoint([("t", 0, hw)]))
    w.write_replica(ld / "t-0", w.replica_batches(SPANS), roll_before={2, 4}, epochs=EPOCHS)
    return ld


def lose_segment_20(ld: Path, *, indexes: bool) -> None:
    """Segment 20's .log removed; with ``indexes`` False its .index and .timeindex too."""
    for suffix in (".log",) + (() if indexes else (".index", ".timeindex")):
        (ld / "t-0" / f"{SEG20}{suffix}").unlink()


@pytest.mark.parametrize("indexes", [True, False], ids=["indexes-left", "all-files-gone"])
def test_a_middle_segment_gone_is_damage(kdump: KdumpRunner, tmp_path: Path,
                                         indexes: bool) -> None:
    """Offsets 20-39 are in no segment: the copy says them lost (exit 1, data_lost,
    lost_offsets [[20, 39]], a note naming why), as verify-crc says of the input."""
    ld = three_segments(tmp_path, 1)
    lose_segment_20(ld, indexes=indexes)
    out = tmp_path / "out"
    r = repair(kdump, [ld], out)
    assert r.rc == 1, r.err
    (p,) = of(objs(r), "repair_partition")
    assert (p["data_lost"], p["lost_offsets"], p["reserved_offsets"]) == (True, [[20, 39]], None)
    why = ("written (high watermark 60, recovery point 60, leader epoch start offset 30, "
           + ("time index entry 39, segment 40); segment 20's .log is missing" if indexes else
              "time index entry 59, segment 40)"))
    assert f"offsets 20-39 are in no batch of the input: {why}" in p["notes"]
    end = objs(r)[-1]
    assert (end["damaged_partitions"], end["clean"]) == (1, False)
    assert dumped_offsets(kdump, out / "t-0") == [*range(20), *range(40, 60)]
    # the copy's own verdict names the loss its manifest names
    verify_lost(kdump, out, [20, 39])
    r = repair(kdump, [ld], tmp_path / "text", fmt="text")
    assert "  data lost: offsets 20-39 (written, and in no batch of the copy)\n" in r.out


@pytest.mark.parametrize("indexes", [True, False], ids=["indexes-left", "all-files-gone"])
def test_a_middle_segment_gone_is_filled_from_a_replica(kdump: KdumpRunner, tmp_path: Path,
                                                        indexes: bool) -> None:
    """Filled byte for byte where the replicas agree around the gap (the batches ending at
    19 and starting at 40 the same bytes): nothing is lost any more, data_lost is false,
    and the copy verifies clean; the run still found damage (exit 1)."""
    b1 = three_segments(tmp_path, 1)
    lose_segment_20(b1, indexes=indexes)
    b2 = three_segments(tmp_path, 2)
    out = tmp_path / "out"
    r = repair(kdump, [b1], out, "--replica", b2)
    assert r.rc == 1, r.err
    (f,) = of(objs(r), "repair_fill")
    assert (f["filled"], f["first_offset"], f["last_offset"], f["filled_offsets"]) == (
        True, 20, 39, [20, 39])
    (p,) = of(objs(r), "repair_partition")
    assert (p["data_lost"], p["lost_offsets"], p["filled_offsets"]) == (False, [], [[20, 39]])
    assert objs(r)[-1]["clean"] is False
    assert dumped_offsets(kdump, out / "t-0") == list(range(60))
    verify_clean(kdump, out)


def test_a_compacted_topics_gap_is_the_cleaners(kdump: KdumpRunner, tmp_path: Path) -> None:
    """A compacted topic's segment gone with all its files leaves a gap the log cleaner
    makes too: nothing lost, nothing filled (LogCleaner.cleanSegments)."""
    ld = three_segments(tmp_path, 1)
    (ld / "cleaner-offset-checkpoint").write_bytes(w.offset_checkpoint([("t", 0, 40)]))
    lose_segment_20(ld, indexes=False)
    b2 = three_segments(tmp_path, 2)
    r = repair(kdump, [ld], tmp_path / "out", "--replica", b2)
    assert r.rc == 0, r.err
    (p,) = of(objs(r), "repair_partition")
    assert (p["data_lost"], p["lost_offsets"], p["filled_offsets"]) == (False, [], [])
    assert of(objs(r), "repair_fill") == []


def test_a_complete_fill_of_a_damaged_batch_loses_nothing(kdump: KdumpRunner,
                                                          tmp_path: Path) -> None:
    """A flipped byte in batch 10-19, filled from the replica: data_lost false."""
    from tests.ops.repair.test_repair_fill import broker, flip

    b1, b2 = broker(tmp_path, 1), broker(tmp_path, 2)
    flip(b1 / "t-0" / "00000000000000000000.log", 1)
    r = repair(kdump, [b1], tmp_path / "out", "--replica", b2)
    assert r.rc == 1, r.err
    (p,) = of(objs(r), "repair_partition")
    assert (p["data_lost"], p["lost_offsets"], p["filled_offsets"]) == (False, [], [[10, 19]])
    (d,) = of(objs(r), "repair_dropped")
    assert (d["reason"], d["missing_offsets"]) == ("crc-mismatch", None)
    r = repair(kdump, [b1], tmp_path / "alone")
    (p,) = of(objs(r), "repair_partition")
    assert (p["data_lost"], p["lost_offsets"]) == (True, [[10, 19]])


def test_a_batch_cut_from_the_middle_is_lost_by_the_batch_after_it(kdump: KdumpRunner,
                                                                   tmp_path: Path) -> None:
    """No checkpoint or index says so: the batch at 20 alone proves 10-19 written in a
    delete-policy topic (offsets are given one after another)."""
    part = tmp_path / "t-0"
    w.write_replica(part, w.replica_batches([(0, 10, 0), (20, 10, 0)]))
    for index in (".index", ".timeindex"):
        (part / f"00000000000000000000{index}").unlink()
    r = repair(kdump, [part], tmp_path / "out")
    assert r.rc == 1, r.err
    (p,) = of(objs(r), "repair_partition")
    assert (p["data_lost"], p["lost_offsets"]) == (True, [[10, 19]])
    assert p["notes"][0] == "offsets 10-19 are in no batch of the input: written (batch at offset 20)"


def test_the_report_plans_a_partition_whose_only_finding_is_data_lost(kdump: KdumpRunner,
                                                                      tmp_path: Path) -> None:
    """verify-crc's one finding is data-lost on the partition directory (no log to blame):
    the report still says what repair would do there (issue 46: with_repair_plans)."""
    ld = three_segments(tmp_path, 1)
    lose_segment_20(ld, indexes=False)
    r = kdump("report", ld, "--format", "json", watch=[ld])
    plans = of(objs(r), "repair_partition")
    assert [(p["topic"], p["partition"], p["lost_offsets"]) for p in plans] == [
        ("t", 0, [[20, 39]])]


def test_free_space_is_judged_by_what_the_copy_writes(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A broker preallocates its active indexes (10 MiB each, sparse): their apparent size
    is no measure of the copy, which rebuilds them from the entries they hold.  A copy of
    about 5 KiB is not refused on a 2 MiB disk (issue 46: a 520 KB copy refused as
    needing 760 MiB); a disk smaller than what the inputs hold on disk still is."""
    import os

    from kdump import output
    from kdump.errors import OutputError
    from kdump.ops.repair import Repair, RepairOptions
    from kdump.ops.repair.staging import input_bytes

    ld = three_segments(tmp_path, 1)
    for suffix in (".index", ".timeindex"):
        os.truncate(ld / "t-0" / f"00000000000000000040{suffix}", 10 << 20)
    apparent = sum(f.stat().st_size for f in ld.rglob("*") if f.is_file())
    held = input_bytes([str(ld)])
    assert apparent > 20 << 20 and held < 64 << 10
    assert held == sum(min(f.stat().st_size, f.stat().st_blocks * 512)
                       for f in ld.rglob("*") if f.is_file())
    monkeypatch.setattr(output, "free_bytes", lambda _path: 2 << 20)
    job = Repair([str(ld)], RepairOptions(into=str(tmp_path / "out")))
    try:
        assert [o["type"] for o in job][-1] == "repair_end"
    finally:
        job.close()
    assert job.clean is True
    monkeypatch.setattr(output, "free_bytes", lambda _path: 1024)
    job = Repair([str(ld)], RepairOptions(into=str(tmp_path / "out2")))
    with pytest.raises(OutputError) as e:
        next(job)
    job.close()
    assert e.value.message == (
        f"cannot write: No space left on device (the copy needs about {output.human(held)}, "
        "what its inputs hold on disk; 1.0 KiB are free there); nothing was written")
    assert not (tmp_path / "out2").exists()


# --- a partition directory gone while the checkpoints name it -----------------------------------
TOPIC_ID = bytes(range(16))


def gone_partition(root: Path, bid: int, *, with_id: bool, kraft: bool = True) -> Path:
    """Broker ``bid`` with t-0 (gone) and t-1 (there, with partition.metadata when
    ``with_id``), its checkpoints naming both: t-0's high watermark 60, log start 20.
    ``kraft``: a KRaft broker's meta.properties (version 1, node.id), else a ZooKeeper-mode
    one's (version 0, broker.id)."""
    ld = w.broker_logdir(root / f"b{bid}", bid,
                         high_watermarks=[("t", 0, 60), ("t", 1, 10)],
                         log_start_offsets=[("t", 0, 20)])
    if kraft:
        (ld / "meta.properties").write_bytes(w.meta_properties(
            {"version": "1", "node.id": str(bid), "cluster.id": "kdump-test-cluster"}))
    (ld / "recovery-point-offset-checkpoint").write_bytes(
        w.offset_checkpoint([("t", 0, 60), ("t", 1, 10)]))
    w.write_replica(ld / "t-1", w.replica_batches([(0, 10, 0)]))
    if with_id:
        (ld / "t-1" / "partition.metadata").write_bytes(w.partition_metadata(TOPIC_ID))
    return ld


def test_a_gone_partition_directory_is_recreated_at_its_old_end(kdump: KdumpRunner,
                                                                tmp_path: Path) -> None:
    """Its topic id known (t-1's partition.metadata): an empty log from the old log start
    (20) to the old end (60), partition.metadata written, checkpoints consistent; the
    copy's verdict names offsets 20-59 lost, as the manifest does."""
    ld = gone_partition(tmp_path, 1, with_id=True)
    out = tmp_path / "out"
    r = repair(kdump, [ld], out)
    assert r.rc == 1, r.err
    (p,) = [o for o in of(objs(r), "repair_partition") if o["partition"] == 0]
    assert (p["input"], p["output"], p["batches"], p["log_end_offset"]) == (
        str(ld / "t-0"), "t-0", 0, 60)
    assert (p["data_lost"], p["lost_offsets"], p["reserved_offsets"]) == (True, [[20, 59]],
                                                                         [20, 59])
    assert p["checkpoints"] == {"recovery_point": [60, 60], "high_watermark": [60, 60],
                                "log_start_offset": [20, 20]}
    tid = w.uuid_str(TOPIC_ID)
    assert (out / "t-0" / "partition.metadata").read_text() == f"version: 0\ntopic_id: {tid}"
    assert sorted(x.name for x in (out / "t-0").iterdir()) == [
        "00000000000000000020.index", "00000000000000000020.log",
        "00000000000000000020.timeindex", "00000000000000000060.index",
        "00000000000000000060.log", "00000000000000000060.timeindex", "partition.metadata"]
    (meta,) = [f for f in of(objs(r), "repair_file") if f["output"] == "t-0/partition.metadata"]
    assert meta["detail"] == (f"topic id {tid}, from {ld / 't-1' / 'partition.metadata'}: the "
                              "partition directory is gone, recreated as an empty log at its "
                              "old end")
    assert (out / "recovery-point-offset-checkpoint").read_text() == "0\n2\nt 0 60\nt 1 10\n"
    assert (out / "log-start-offset-checkpoint").read_text() == "0\n1\nt 0 20\n"
    assert p["notes"][0] == (
        "the partition directory t-0 is gone while the log dir's checkpoints name it: "
        f"recreated with partition.metadata (topic id {tid}, from "
        f"{ld / 't-1' / 'partition.metadata'}), as an empty log from its old log start to its "
        "old end (a broker given no directory would create it at offset 0: "
        "LogManager.getOrCreateLog)")
    end = objs(r)[-1]
    assert (end["damaged_partitions"], end["reserved_partitions"], end["clean"]) == (1, 1, False)
    verify_lost(kdump, out, [20, 59])


def test_a_gone_partition_directory_without_a_topic_id_is_named_not_recreated(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """No topic id anywhere: not recreated (a KRaft broker would take it for a stray and
    start it again at 0), said exactly, its checkpoint entries kept as they were, so the
    copy's log dir names the same loss."""
    ld = gone_partition(tmp_path, 1, with_id=False)
    out = tmp_path / "out"
    r = repair(kdump, [ld], out)
    assert r.rc == 1, r.err
    (p,) = [o for o in of(objs(r), "repair_partition") if o["partition"] == 0]
    assert (p["output"], p["data_lost"], p["lost_offsets"], p["log_end_offset"]) == (
        None, True, [[20, 59]], 60)
    assert p["checkpoints"] == {"high_watermark": [60, 60], "recovery_point": [60, 60],
                                "log_start_offset": [20, 20]}
    assert p["notes"][0].startswith(
        "the partition directory t-0 is gone while the log dir's checkpoints name it: offsets "
        "20-59 were written (high watermark 60, recovery point 60) and are lost. Not "
        "recreated: its topic id is unknown (no KRaft metadata among the inputs names the "
        "topic, and no partition.metadata of it in a log dir of the cluster: give the log dir "
        "holding __cluster_metadata-0, or another broker's log dir with --replica). Without "
        "partition.metadata a KRaft broker takes the log for a stray "
        "(LogManager.isStrayKraftReplica)")
    assert p["witnesses"] == [f"high watermark 60 ({ld / 'replication-offset-checkpoint'})",
                              f"recovery point 60 ({ld / 'recovery-point-offset-checkpoint'})"]
    assert not (out / "t-0").exists()
    assert (out / "replication-offset-checkpoint").read_text() == "0\n2\nt 0 60\nt 1 10\n"
    assert (out / "log-start-offset-checkpoint").read_text() == "0\n1\nt 0 20\n"
    r = kdump("verify-crc", out, "--format", "json")
    lost = [(o["kind"], o["lost_offsets"]) for o in objs(r)
            if o["type"] == "problem" and o["severity"] != "info"]
    assert lost == [("data-lost", [20, 59])] and r.rc == 1, r.out


def test_a_gone_partition_directory_is_filled_from_a_replica(kdump: KdumpRunner,
                                                             tmp_path: Path) -> None:
    """The replica holds t-0 with its partition.metadata: the topic id is its, and the
    offsets from the log start on are filled byte for byte: nothing lost."""
    ld = gone_partition(tmp_path, 1, with_id=False)
    b2 = three_segments(tmp_path, 2)
    (b2 / "t-0" / "partition.metadata").write_bytes(w.partition_metadata(TOPIC_ID))
    (ld / "log-start-offset-checkpoint").unlink()  # the log started at 0
    out = tmp_path / "out"
    r = repair(kdump, [ld], out, "--replica", b2)
    assert r.rc == 1, r.err
    (f,) = of(objs(r), "repair_fill")
    assert (f["filled"], f["first_offset"], f["last_offset"], f["filled_offsets"]) == (
        True, 0, 59, [0, 59])
    (p,) = [o for o in of(objs(r), "repair_partition") if o["partition"] == 0]
    assert (p["data_lost"], p["lost_offsets"], p["filled_offsets"], p["log_end_offset"]) == (
        False, [], [[0, 59]], 60)
    assert (out / "t-0" / "partition.metadata").read_bytes() == \
        (b2 / "t-0" / "partition.metadata").read_bytes()
    # the replica's partition.metadata, read for the topic id, is hashed as evidence
    assert str(b2 / "t-0" / "partition.metadata") in [
        i["file"] for i in of(objs(r), "repair_input") if i["unchanged"]]
    assert dumped_offsets(kdump, out / "t-0") == list(range(60))
    verify_clean(kdump, out)


def test_the_text_says_a_gone_partition_was_not_recreated(kdump: KdumpRunner,
                                                          tmp_path: Path) -> None:
    ld = gone_partition(tmp_path, 1, with_id=False)
    r = repair(kdump, [ld], tmp_path / "out", fmt="text")
    lines = r.out.splitlines()
    at = lines.index(f"t-0 ({ld}) -> nothing written: kept 0 batches (0 records, 0 bytes) in 0 "
                     "segments, log end offset 60")
    assert lines[at + 1] == "  data lost: offsets 20-59 (written, and in no batch of the copy)"
    assert lines[at + 2].startswith("  the partition directory t-0 is gone while")


def test_a_zookeeper_brokers_gone_partition_is_recreated_without_a_topic_id(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """A ZooKeeper-mode log dir (meta.properties version 0, broker.id): its broker takes
    the topic id from the controller, so the directory is recreated with none."""
    ld = gone_partition(tmp_path, 1, with_id=False, kraft=False)
    out = tmp_path / "out"
    r = repair(kdump, [ld], out)
    assert r.rc == 1, r.err
    (p,) = [o for o in of(objs(r), "repair_partition") if o["partition"] == 0]
    assert (p["output"], p["lost_offsets"], p["log_end_offset"]) == ("t-0", [[20, 59]], 60)
    assert sorted(x.name for x in (out / "t-0").glob("*.log")) == [
        "00000000000000000020.log", "00000000000000000060.log"]
    assert not (out / "t-0" / "partition.metadata").exists()
    assert ("the partition directory t-0 is gone while the log dir's checkpoints name it: "
            "recreated with no partition.metadata, its topic id being unknown; this log dir is "
            "a ZooKeeper-mode broker's, which takes the id from the controller's "
            "LeaderAndIsrRequest (ReplicaManager.becomeLeaderOrFollower, "
            "UnifiedLog.assignTopicId, 3.9); a KRaft broker would take it for a stray "
            "(LogManager.isStrayKraftReplica)") in p["notes"]
    verify_lost(kdump, out, [20, 59])


def test_a_gone_partition_kafka_deleted_is_named_not_repaired(kdump: KdumpRunner,
                                                              tmp_path: Path) -> None:
    """t-0 renamed -delete (LogManager.asyncDelete) while the checkpoints still name it:
    Kafka's own work, not a loss; named, its entries not carried into the copy."""
    ld = gone_partition(tmp_path, 1, with_id=True)
    w.write_replica(ld / "t-0.0123456789abcdef0123456789abcdef-delete",
                    w.replica_batches([(0, 10, 0)]))
    out = tmp_path / "out"
    r = repair(kdump, [ld], out)
    assert r.rc == 0, r.err
    assert [(p["topic"], p["partition"]) for p in of(objs(r), "repair_partition")] == [("t", 1)]
    (f,) = [f for f in of(objs(r), "repair_file") if f["file"] == str(ld / "t-0")]
    assert (f["action"], f["detail"]) == (
        "left-out", "named by the log dir's checkpoints, with no directory here: its directory "
        "was renamed t-0.0123456789abcdef0123456789abcdef-delete to be deleted (the topic or "
        "the replica was deleted: LogManager.asyncDelete); its entries are not carried into "
        "the copy's checkpoints (a broker writes none for a log it does not hold)")
    assert (out / "replication-offset-checkpoint").read_text() == "0\n1\nt 1 10\n"


def test_the_report_plans_a_gone_partition_directory(kdump: KdumpRunner,
                                                     tmp_path: Path) -> None:
    """verify-crc names the gone t-0 data-lost (the log dir's verdict): the report says
    what repair would do with it, as repair does."""
    ld = gone_partition(tmp_path, 1, with_id=True)
    r = kdump("report", ld, "--format", "json", watch=[ld])
    plans = of(objs(r), "repair_partition")
    assert [(p["topic"], p["partition"], p["output"], p["lost_offsets"], p["log_end_offset"])
            for p in plans] == [("t", 0, "t-0", [[20, 59]], 60)]


def test_a_future_replicas_torn_tail_is_in_flight(kdump: KdumpRunner, tmp_path: Path) -> None:
    """A -future directory (a replica moving between log dirs, still catching up)
    witnesses nothing of its own, and the live replica's high watermark is not its: its
    torn tail is in flight, as verify-crc says, not lost (the verdict map's "seen" case)."""
    from tests.ops.repair.test_repair_fill import tear

    ld = three_segments(tmp_path, 1)
    future = ld / "t-0.0123456789abcdef0123456789abcdef-future"
    w.write_replica(future, w.replica_batches(SPANS[:4]), epochs=EPOCHS)
    for suffix in (".index", ".timeindex"):
        (future / f"00000000000000000000{suffix}").unlink()
    tear(future / "00000000000000000000.log", 3)
    r = repair(kdump, [ld], tmp_path / "out")
    assert r.rc == 0, r.err
    (d,) = of(objs(r), "repair_dropped")
    assert (d["file"], d["reason"], d["severity"], d["missing_offsets"]) == (
        str(future / "00000000000000000000.log"), "in-flight", "info", None)
    crc = kdump("verify-crc", ld, "--format", "json")
    assert [(o["kind"], o["severity"]) for o in objs(crc) if o["type"] == "problem"] == [
        ("in-flight", "info")]


def test_a_batch_cut_from_the_middle_is_filled_from_a_replica(kdump: KdumpRunner,
                                                              tmp_path: Path) -> None:
    """Batch 10-19 cut out of segment 0 (every byte left intact): the gap between the
    batches either side is filled from the replica, byte for byte."""
    from tests.ops.repair.test_repair_fill import broker, positions

    b1, b2 = broker(tmp_path, 1), broker(tmp_path, 2)
    log = b1 / "t-0" / "00000000000000000000.log"
    _first, (p1, s1), *_ = positions(log)
    data = log.read_bytes()
    log.write_bytes(data[:p1] + data[p1 + s1:])
    out = tmp_path / "out"
    r = repair(kdump, [b1], out, "--replica", b2)
    assert r.rc == 1, r.err
    (f,) = of(objs(r), "repair_fill")
    assert (f["filled"], f["first_offset"], f["last_offset"], f["filled_offsets"]) == (
        True, 10, 19, [10, 19])
    (p,) = of(objs(r), "repair_partition")
    assert (p["data_lost"], p["lost_offsets"], p["filled_offsets"]) == (False, [], [[10, 19]])
    assert (out / "t-0" / "00000000000000000000.log").read_bytes() == \
        (b2 / "t-0" / "00000000000000000000.log").read_bytes()
    verify_clean(kdump, out)


def _kraft_metadata(ld: Path, topics: dict[str, list[int]]) -> dict[str, str]:
    """A __cluster_metadata-0 in ``ld`` naming each topic (partition 0 on ``replicas``);
    the topic ids by name."""
    lw = w.MetadataLogWriter(ld / "__cluster_metadata-0")
    records, ids = [], {}
    for n, (topic, replicas) in enumerate(topics.items()):
        ids[topic] = tid = w.uuid_of(n + 1)
        records.append(w.metadata_record("TopicRecord", {"name": topic, "topicId": tid}))
        records.append(w.metadata_record("PartitionRecord", {
            "partitionId": 0, "topicId": tid, "replicas": replicas, "isr": replicas,
            "leader": replicas[0], "leaderEpoch": 0, "partitionEpoch": 0}))
    lw.append(records)
    lw.close()
    return ids


def test_a_gone_partition_takes_its_topic_id_from_the_kraft_metadata(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """No partition.metadata anywhere, but the log dir's KRaft metadata names topic t
    assigned to this broker: recreated with that topic id."""
    ld = gone_partition(tmp_path, 1, with_id=False)
    ids = _kraft_metadata(ld, {"t": [1, 2]})
    out = tmp_path / "out"
    r = repair(kdump, [ld], out)
    assert r.rc == 1, r.err
    (p,) = [o for o in of(objs(r), "repair_partition")
            if (o["topic"], o["partition"]) == ("t", 0)]
    assert (p["output"], p["lost_offsets"]) == ("t-0", [[20, 59]])
    assert (out / "t-0" / "partition.metadata").read_text() == \
        f"version: 0\ntopic_id: {ids['t']}"
    (meta,) = [f for f in of(objs(r), "repair_file") if f["output"] == "t-0/partition.metadata"]
    assert meta["detail"].startswith(
        f"topic id {ids['t']}, from the KRaft metadata ({ld / '__cluster_metadata-0'}): "
        "TopicRecord t")


@pytest.mark.parametrize(("assigned", "said"), [
    ({"t": [2, 3]}, "assigns it to brokers 2, 3, not this one (1): the replica was moved "
                    "away"),
    ({"x": [1]}, "holds no topic t: it was deleted"),
])
def test_a_gone_partition_the_kraft_metadata_explains_is_not_repaired(
        kdump: KdumpRunner, tmp_path: Path, assigned: dict[str, list[int]], said: str) -> None:
    """The log dir's KRaft metadata says t was deleted, or its partition moved to other
    brokers: Kafka's own work, not a loss (as verify-crc says): named, not recreated."""
    ld = gone_partition(tmp_path, 1, with_id=True)
    _kraft_metadata(ld, assigned)
    r = repair(kdump, [ld], tmp_path / "out")
    assert r.rc == 0, r.err
    assert ("t", 0) not in [(p["topic"], p["partition"]) for p in of(objs(r), "repair_partition")]
    (f,) = [f for f in of(objs(r), "repair_file") if f["file"] == str(ld / "t-0")]
    assert f["action"] == "left-out" and said in f["detail"]


def _rolled(root: Path, bid: int, topic: str = "t") -> Path:
    """``topic``-0 in two segments (0: offsets 0-29, three batches; 30: 30-59), the batch
    10-19 damaged: its loss lies between two batches of a closed segment."""
    from tests.ops.repair.test_repair_fill import flip

    ld = w.broker_logdir(root / f"b{bid}", bid, high_watermarks=[(topic, 0, 60)])
    w.write_replica(ld / f"{topic}-0", w.replica_batches(SPANS), roll_before={3}, epochs=EPOCHS)
    flip(ld / f"{topic}-0" / "00000000000000000000.log", 1)
    return ld


def test_partitions_given_alone_keep_their_cleaner_checkpoint(kdump: KdumpRunner,
                                                              tmp_path: Path) -> None:
    """Partitions given alone, from log dirs that hold a cleaner-offset-checkpoint: the
    copy's root holds one too, their entries merged at the copy's offsets and named in
    the manifest with its hash, so the copy is judged under the same cleanup-policy
    evidence as the input: the gap the repair left is data-lost there as the manifest
    says, not a compacted topic's offset-gap."""
    import hashlib

    b1, b2 = _rolled(tmp_path, 1), _rolled(tmp_path, 2, "c")
    (b1 / "cleaner-offset-checkpoint").write_bytes(w.offset_checkpoint([("x", 0, 5)]))
    (b2 / "cleaner-offset-checkpoint").write_bytes(w.offset_checkpoint([("c", 0, 20)]))
    out = tmp_path / "out"
    r = repair(kdump, [b1 / "t-0", b2 / "c-0"], out)
    assert r.rc == 1, r.err
    assert (out / "cleaner-offset-checkpoint").read_text() == "0\n1\nc 0 20\n"
    (f,) = [o for o in of(objs(r), "repair_file") if o["output"] == "cleaner-offset-checkpoint"]
    assert f["action"] == "rewritten" and f["file"] is None
    assert f["sha256"] == hashlib.sha256((out / "cleaner-offset-checkpoint").read_bytes()
                                         ).hexdigest()
    parts = {p["topic"]: p for p in of(objs(r), "repair_partition")}
    assert parts["t"]["lost_offsets"] == parts["c"]["lost_offsets"] == [[10, 19]]
    r = kdump("verify-crc", out / "t-0", "--format", "json")
    found = [(o["kind"], o["lost_offsets"]) for o in objs(r) if o["type"] == "problem"]
    assert (r.rc, found) == (1, [("data-lost", [10, 19])]), r.out
    # one log dir with one: its path named
    r = repair(kdump, [b1 / "t-0"], tmp_path / "one")
    assert (tmp_path / "one" / "cleaner-offset-checkpoint").read_text() == "0\n0\n"
    (f,) = [o for o in of(objs(r), "repair_file") if o["output"] == "cleaner-offset-checkpoint"]
    assert f["file"] == str(b1 / "cleaner-offset-checkpoint")


def test_a_partition_alone_whose_policy_is_unknown_says_so(kdump: KdumpRunner,
                                                           tmp_path: Path) -> None:
    """No cleaner-offset-checkpoint in the input's log dir (no --config, no metadata): the
    copy gets none either; the manifest names the loss and says the policy is unknown, and
    in the copy, as in the input, a gap inside a closed segment reads as a compacted
    topic's offset-gap (information)."""
    ld = _rolled(tmp_path, 1)
    out = tmp_path / "out"
    r = repair(kdump, [ld / "t-0"], out)
    assert r.rc == 1, r.err
    assert not (out / "cleaner-offset-checkpoint").exists()
    (p,) = of(objs(r), "repair_partition")
    assert p["lost_offsets"] == [[10, 19]]
    assert "offsets 10-19: cleanup.policy unknown (no cleaner-offset-checkpoint in the input's " \
        "log dir, no --config or KRaft metadata): the copy, with no more evidence than the " \
        "input, shows them as a compacted topic's offset-gap (information)" in p["notes"]
    r = kdump("verify-crc", out / "t-0", "--format", "json")
    found = [(o["kind"], o["severity"], o["lost_offsets"]) for o in objs(r)
             if o["type"] == "problem"]
    assert (r.rc, found) == (0, [("offset-gap", "info", [10, 19])]), r.out
