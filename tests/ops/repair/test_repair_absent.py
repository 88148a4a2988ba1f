"""``kdump repair`` and replicas the KRaft metadata assigns to a log dir's broker with no
directory there (issue 46: the log dir's verdict, ``assigned-absent``): each is named in
a ``repair_absent`` with the verdict's kind, severity and words; the copy makes no
directory for it (a KRaft broker creates the log when it applies the assignment) and
takes nothing from a ``--replica`` for it, unless the verdict proves offsets written on
it: then it is recreated over them, as a gone directory is, and a replica fills them.

The log dirs come from the same-story table's fixture (:func:`assigning_logdir`):
broker 1 holding t-0, the metadata assigning it a-0 (pinned, in sync, leader 1), b-0
(pinned, out of sync, leader 2), c-0 (MIGRATING), f-0 (pinned, in sync, named by the
checkpoints with nothing written)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import KdumpRunner
from tests.ops.repair.test_repair_fill import objs, of, repair
from tests.ops.test_same_story import assigning_logdir
from tests.support import writer as w

CREATES = ("a KRaft broker given the copy creates its log empty when it applies the metadata "
           "assigning it (ReplicaManager.applyDelta -> applyLocalLeadersDelta/"
           "applyLocalFollowersDelta -> Partition.makeLeader/makeFollower -> "
           "createLogIfNotExists -> LogManager.getOrCreateLog, Kafka 3.9)")


def broker2(root: Path, spans: list[tuple[int, int, int]], name: str = "a-0") -> Path:
    b2 = root / "b2"
    b2.mkdir()
    (b2 / "meta.properties").write_bytes(w.meta_properties(
        {"version": "1", "node.id": "2", "cluster.id": "kdump-test-cluster"}))
    w.write_replica(b2 / name, w.replica_batches(spans))
    return b2


def _absent(items: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(a["topic"], a["kind"], a["severity"], a["output"], a["lost_offsets"],
             a["data_lost"], a["filled"]) for a in of(items, "repair_absent")]


def test_replicas_assigned_here_and_absent_are_named_and_given_no_directory(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    ld = tmp_path / "ld"
    assigning_logdir(ld)
    out = tmp_path / "out"
    r = repair(kdump, [ld], out)
    assert r.rc == 1, r.err  # the warnings: the one exit rule
    items = objs(r)
    assert _absent(items) == [
        ("a", "assigned-absent", "warning", None, [], False, False),
        ("b", "assigned-absent", "info", None, [], False, False),
        ("c", "assigned-absent", "info", None, [], False, False),
        ("f", "assigned-absent", "warning", None, [], False, False)]
    a, b, c, _f = of(items, "repair_absent")
    assert a["notes"] == [f"no directory made for a-0 in the copy: {CREATES}, and as the "
                          "metadata's leader of epoch 3 starts it empty (nothing here proves a "
                          "record was written to it)"]
    assert b["notes"] == [f"no directory made for b-0 in the copy: {CREATES} and, as a follower "
                          "of broker 2, fetches it from the leader from its log end (ReplicaManager."
                          "applyLocalFollowersDelta: replicaFetcherManager.addFetcherForPartitions"
                          "): Kafka refills it itself"]
    assert c["notes"][0].startswith(f"no directory made for c-0 in the copy: {CREATES} unless "
                                    "another log dir of the broker holds it, and")
    # the verdict's words, as verify-crc says them of the input
    v = kdump("verify-crc", ld, "--format", "json")
    said = [o for o in (json.loads(x) for x in v.out.splitlines())
            if o.get("kind") == "assigned-absent"]
    assert [x["detail"] for x in of(items, "repair_absent")] == [p["detail"] for p in said]
    assert [(x["input"], x["log_dir"]) for x in of(items, "repair_absent")] == [
        (str(ld / n), str(ld)) for n in ("a-0", "b-0", "c-0", "f-0")]
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["__cluster_metadata-0", "t-0"]
    (end,) = of(items, "repair_end")
    assert (end["absent_replicas"], end["clean"], end["partitions"]) == (4, False, 2)
    text = repair(kdump, [ld], tmp_path / "out-text", fmt="text").out.splitlines()
    assert text[-1].endswith("; 4 replicas assigned here and absent")
    assert [x for x in text if x.startswith("b-0 ")] == [
        f"b-0 ({ld}) -> no directory: assigned-absent [info]: {b['detail']}"]


def test_an_absent_replica_the_verdict_calls_information_exits_0(kdump: KdumpRunner,
                                                                 tmp_path: Path) -> None:
    """Only an out-of-sync replica assigned here and absent: information, the copy clean."""
    ld = tmp_path / "ld"
    ld.mkdir()
    here = w.uuid_of(101)
    (ld / "meta.properties").write_bytes(w.meta_properties(
        {"version": "1", "node.id": "1", "cluster.id": "kdump-test-cluster", "directory.id": here}))
    w.write_replica(ld / "t-0", w.replica_batches([(0, 10, 0)]))
    lw = w.MetadataLogWriter(ld / "__cluster_metadata-0")
    records = []
    for n, (topic, replicas, isr, dirs) in enumerate([("t", [1], [1], [here]),
                                                      ("b", [2, 1], [2], [w.uuid_of(102), here])]):
        tid = w.uuid_of(n + 1)
        records += [w.metadata_record("TopicRecord", {"name": topic, "topicId": tid}),
                    w.metadata_record("PartitionRecord", {
                        "partitionId": 0, "topicId": tid, "replicas": replicas, "isr": isr,
                        "leader": isr[0], "leaderEpoch": 0, "partitionEpoch": 0,
                        "directories": dirs})]
    lw.append(records)
    lw.close()
    r = repair(kdump, [ld], tmp_path / "out")
    assert r.rc == 0, r.out
    assert _absent(objs(r)) == [("b", "assigned-absent", "info", None, [], False, False)]
    assert of(objs(r), "repair_end")[0]["clean"] is True


def test_a_replica_holding_an_absent_partition_fills_nothing_unproved(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """Broker 2 holds a-0 in epoch 0 only (not the epoch broker 1 leads) and b-0: nothing
    proves those batches written on broker 1, so none is taken; the manifest says so."""
    ld = tmp_path / "ld"
    assigning_logdir(ld)
    b2 = broker2(tmp_path, [(0, 10, 0)])
    w.write_replica(b2 / "b-0", w.replica_batches([(0, 10, 0)]))
    out = tmp_path / "out"
    r = repair(kdump, [ld], out, "--replica", b2)
    assert r.rc == 1, r.err
    items = objs(r)
    assert not of(items, "repair_fill")
    a, b = of(items, "repair_absent")[:2]
    for x, name in ((a, "a-0"), (b, "b-0")):
        assert (x["kind"], x["replicas"], x["filled"], x["output"]) == (
            "assigned-absent", [str(b2)], False, None)
        assert x["notes"][1] == (
            f"not filled from broker 2 ({b2}): its batches are not this broker's data (nothing "
            "proves a record was written to this replica), and a follower fetches them from "
            "the leader itself")
        assert not (out / name).exists()


def test_offsets_proved_written_on_an_absent_replica_are_recreated_and_filled(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """Broker 2 holds a-0's offsets 10-19 in epoch 3, which broker 1 leads: written on
    broker 1 first.  With broker 2 as --replica the copy recreates a-0 over them and fills
    them byte for byte (this broker's data); offsets 0-9 (epoch 0) are not taken."""
    ld = tmp_path / "ld"
    ids = assigning_logdir(ld)
    b2 = broker2(tmp_path, [(0, 10, 0), (10, 10, 3)])
    out = tmp_path / "out"
    r = repair(kdump, [ld], out, "--replica", b2)
    assert r.rc == 1, r.err  # damage found (and filled), and f-0's warning
    items = objs(r)
    (fill,) = of(items, "repair_fill")
    assert (fill["filled"], fill["filled_offsets"], fill["output"]) == (
        True, [10, 19], "a-0/00000000000000000010.log")
    [p] = [x for x in of(items, "repair_partition") if x["topic"] == "a"]
    assert (p["output"], p["first_offset"], p["log_end_offset"], p["lost_offsets"],
            p["filled_offsets"], p["data_lost"]) == ("a-0", 10, 20, [], [[10, 19]], False)
    assert _absent(items)[0] == ("a", "data-lost", "error", "a-0", [], False, True)
    a = of(items, "repair_absent")[0]
    assert a["notes"] == [
        "offsets 10-19 were written on this replica: recreated as a-0, an empty log over them "
        "unless a --replica fills them (its repair_partition says how), so that they are never "
        "handed out again: as the metadata's leader of epoch 3 with no directory a broker given "
        "the copy would create the log empty at offset 0 (LogManager.getOrCreateLog) and "
        "append from there",
        f"offered to broker 2 ({b2}): offsets 10-19 filled (this broker's data: proved written "
        "here; its repair_fill); offsets below 10 are not proved written here and are not taken"]
    assert (out / "a-0" / "partition.metadata").read_text() == \
        f"version: 0\ntopic_id: {w.uuid_of(2)}"
    src = (b2 / "a-0" / "00000000000000000000.log").read_bytes()
    assert (out / "a-0" / "00000000000000000010.log").read_bytes() == \
        src[fill["sources"][0]["position"]:]
    # the copy's story: a-0 holds its offsets, nothing lost; the others as before
    v = kdump("verify-crc", out, "--format", "json")
    found = [(Path(o["file"]).name, o["kind"], o["severity"])
             for o in (json.loads(x) for x in v.out.splitlines())
             if o.get("type") == "problem" and o["kind"] in ("data-lost", "assigned-absent")]
    assert found == [("b-0", "assigned-absent", "info"), ("c-0", "assigned-absent", "info"),
                     ("f-0", "assigned-absent", "warning")]
    assert ids["here"] in (out / "meta.properties").read_text()
    # the other replica's files that prove the offsets written here are evidence: hashed
    hashed = {x["file"]: x["unchanged"] for x in of(items, "repair_input")}
    assert hashed[str(b2 / "a-0" / "leader-epoch-checkpoint")] is True


def test_the_report_says_what_repair_would_do_about_absent_replicas(kdump: KdumpRunner,
                                                                    tmp_path: Path) -> None:
    """``kdump report`` over broker 1 (a-0, b-0, c-0, f-0 assigned there with no
    directory) and broker 2 (a-0's offsets 10-19 in epoch 3, which broker 1 leads): its
    findings section holds the ``repair_absent`` objects ``kdump repair`` makes of the same
    log dirs, with the same kind, severity, words and lost offsets, and a-0's recreation
    (its repair_partition) before them; the page shows them."""
    ld = tmp_path / "ld"
    assigning_logdir(ld)
    b2 = broker2(tmp_path, [(0, 10, 0), (10, 10, 3)])
    r = kdump("report", ld, b2, "--format", "json", watch=[ld, b2])
    assert r.rc == 1, r.err
    said = [json.loads(x) for x in r.out.splitlines()]
    fixed = repair(kdump, [ld, b2], tmp_path / "out", "--dry-run")
    want = of(objs(fixed), "repair_absent")
    got = of(said, "repair_absent")
    keys = ("log_dir", "topic", "partition", "input", "kind", "severity", "detail", "data_lost",
            "lost_offsets", "replicas", "filled")
    assert sorted([a[k] for k in keys] for a in got) == sorted([a[k] for k in keys] for a in want)
    assert [(Path(a["log_dir"]).name, a["topic"], a["kind"], a["severity"], a["lost_offsets"])
            for a in got] == [
        # broker 2: the metadata assigns it b-0 to e-0, which it does not hold
        ("b2", "b", "assigned-absent", "info", []), ("b2", "c", "assigned-absent", "info", []),
        ("b2", "d", "assigned-absent", "info", []), ("b2", "e", "assigned-absent", "info", []),
        ("ld", "a", "data-lost", "error", [[10, 19]]), ("ld", "b", "assigned-absent", "info", []),
        ("ld", "c", "assigned-absent", "info", []), ("ld", "f", "assigned-absent", "warning", [])]
    # the repair's copy puts broker 1's log dir under broker-1/; the report names the partition
    assert [a["output"] for a in got] == [None] * 4 + ["a-0", None, None, None]
    assert sorted(str(a["output"]) for a in want) == ["None"] * 7 + ["broker-1/a-0"]
    [p] = [x for x in of(said, "repair_partition") if x["topic"] == "a"]
    # an empty log over the proved offsets (no --replica to fill them), its next offset 20
    assert (p["first_offset"], p["log_end_offset"], p["lost_offsets"]) == (None, 20, [[10, 19]])
    page = tmp_path / "report.html"
    h = kdump("report", ld, b2, "-o", page, watch=[ld, b2])
    assert h.rc == 1, h.err
    html = page.read_text()
    assert "Replicas assigned with no directory: what <code>kdump repair</code> would do (8)" \
        in html
    assert "10–19" in html
