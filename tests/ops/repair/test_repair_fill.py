"""``kdump repair`` never hands an offset out twice (issue 39 part 4) and fills dropped
ranges from a healthy replica (part 5).

Every log dir here is written by the project's encoder (tests/writer.py): two or three
brokers of one cluster (``broker_logdir``: cluster.id ``kdump-test-cluster``), each with
its copy of ``t-0``, the same batches (followers store the leader's bytes), then one copy
damaged: a torn tail, a flipped byte, a ``.log`` removed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.conftest import KdumpRunner, tree_state
from tests.support import writer as w

SEG0 = "00000000000000000000"
#: (base offset, records, partition leader epoch): 6 batches, epoch 0 then 3 from offset 30
SPANS = [(0, 10, 0), (10, 10, 0), (20, 10, 0), (30, 10, 3), (40, 10, 3), (50, 10, 3)]
EPOCHS = [(0, 0), (3, 30)]


def broker(root: Path, bid: int, *, hw: int = 60, spans: list[tuple[int, int, int]] = SPANS,
           tag: str = "v", epochs: list[tuple[int, int]] = EPOCHS) -> Path:
    ld = w.broker_logdir(root / f"b{bid}", bid, high_watermarks=[("t", 0, hw)])
    (ld / "recovery-point-offset-checkpoint").write_bytes(w.offset_checkpoint([("t", 0, hw)]))
    w.write_replica(ld / "t-0", w.replica_batches(spans, tag=tag), epochs=epochs)
    return ld


def positions(log: Path) -> list[tuple[int, int]]:
    """(position, size) of each batch of a clean log (8-byte offset, 4-byte length)."""
    data = log.read_bytes()
    out, pos = [], 0
    while pos + 12 <= len(data):
        size = 12 + int.from_bytes(data[pos + 8:pos + 12], "big")
        out.append((pos, size))
        pos += size
    return out


def tear(log: Path, k: int) -> int:
    """Cut the log in the middle of its k-th batch; returns the cut."""
    pos, size = positions(log)[k]
    log.write_bytes(log.read_bytes()[:pos + size // 2])
    return pos + size // 2


def flip(log: Path, k: int) -> None:
    pos, _ = positions(log)[k]
    data = bytearray(log.read_bytes())
    data[pos + 70] ^= 0x5A
    log.write_bytes(bytes(data))


def repair(kdump: KdumpRunner, inputs: list[Path], out: Path, *extra: Any,
           fmt: str = "json") -> Any:
    watched = inputs + [Path(x) for x in extra if isinstance(x, Path)]
    before = tree_state(watched)
    r = kdump("repair", *inputs, "--into", out, "--format", fmt, *extra, watch=watched)
    assert tree_state(watched) == before
    return r


def objs(r: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in r.out.splitlines()]


def of(items: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in items if o["type"] == kind]


def verify_clean(kdump: KdumpRunner, out: Path) -> None:
    for cmd in ("verify-crc", "verify-index"):
        r = kdump(cmd, out, "--format", "json")
        assert r.rc == 0, (cmd, r.out)


def verify_lost(kdump: KdumpRunner, out: Path, lost: list[int]) -> None:
    """Every batch of the copy intact, its indexes right; verify-crc and verify-index name
    the reserved offsets as lost (the copy's own checkpoints and segment name prove them written), and
    nothing else."""
    for cmd in ("verify-crc", "verify-index"):
        r = kdump(cmd, out, "--format", "json")
        found = [o for o in objs(r) if o["type"] == "problem" and o["severity"] != "info"]
        assert [(o["kind"], o["lost_offsets"]) for o in found] == [("data-lost", lost)], r.out
        assert r.rc == 1


def dumped_offsets(kdump: KdumpRunner, part: Path) -> list[int]:
    r = kdump("dump", part, "--format", "json")
    assert r.rc == 0, r.err
    return [o for b in objs(r) if b["type"] == "batch"
            for o in range(b["base_offset"], b["last_offset"] + 1)]


# --- part 4: the next offset is above every offset written -----------------------------------
def test_a_torn_tail_below_the_high_watermark_keeps_the_next_offset(kdump: KdumpRunner,
                                                                    tmp_path: Path) -> None:
    ld = broker(tmp_path, 1)
    tear(ld / "t-0" / f"{SEG0}.log", 4)  # batches 40-49 and 50-59 gone, high watermark 60
    out = tmp_path / "out"
    r = repair(kdump, [ld], out)
    assert r.rc == 1, r.err
    (p,) = of(objs(r), "repair_partition")
    assert (p["log_end_offset"], p["reserved_offsets"], p["data_lost"]) == (60, [40, 59], True)
    assert p["lost_offsets"] == [[40, 59]]
    # cut below the high watermark: truncated and lost, as verify-crc says, not in flight
    (d,) = of(objs(r), "repair_dropped")
    assert (d["reason"], d["severity"], d["missing_offsets"]) == ("truncated", "error", [40, 59])
    crc = kdump("verify-crc", ld, "--format", "json")
    assert [(o["kind"], o["severity"]) for o in objs(crc) if o["type"] == "problem"
            and o["kind"] != "data-lost"] == [("truncated", "error")]
    assert p["witnesses"] == [f"time index entry 59 ({ld}/t-0/{SEG0}.timeindex)",
                              f"high watermark 60 ({ld}/replication-offset-checkpoint)",
                              f"recovery point 60 ({ld}/recovery-point-offset-checkpoint)"]
    assert p["checkpoints"] == {"recovery_point": [60, 60], "high_watermark": [60, 60]}
    # the leader-epoch checkpoint keeps its highest epoch (3, from offset 30: kept batches)
    assert p["leader_epochs"] == [[0, 0], [3, 30]]
    assert (out / "t-0" / "leader-epoch-checkpoint").read_text() == "0\n2\n0 0\n3 30\n"
    seg = out / "t-0" / "00000000000000000060"
    for suffix in (".log", ".index", ".timeindex"):
        assert Path(str(seg) + suffix).read_bytes() == b""
    assert sorted(x.name for x in (out / "t-0").iterdir()) == [
        f"{SEG0}.index", f"{SEG0}.log", f"{SEG0}.timeindex", "00000000000000000060.index",
        "00000000000000000060.log", "00000000000000000060.timeindex", "leader-epoch-checkpoint"]
    reserved = [f for f in of(objs(r), "repair_file") if f["action"] == "reserved"]
    assert [f["output"] for f in reserved] == ["t-0/00000000000000000060.log"]
    assert (out / "replication-offset-checkpoint").read_text() == "0\n1\nt 0 60\n"
    assert (out / "recovery-point-offset-checkpoint").read_text() == "0\n1\nt 0 60\n"
    end = objs(r)[-1]
    assert (end["reserved_partitions"], end["damaged_partitions"], end["clean"]) == (1, 1, False)
    verify_lost(kdump, out, [40, 59])
    assert dumped_offsets(kdump, out / "t-0") == list(range(40))
    # the text names the reserved range under its partition
    r = repair(kdump, [ld], tmp_path / "out2", fmt="text")
    assert (f"  reserved offsets 40-59: next offset 60, proved written by time index entry 59 "
            f"({ld}/t-0/{SEG0}.timeindex); high watermark 60 "
            f"({ld}/replication-offset-checkpoint); recovery point 60 "
            f"({ld}/recovery-point-offset-checkpoint)\n") in r.out
    r = repair(kdump, [ld], tmp_path / "out3", fmt="table")
    assert re.search(r"│ reserved_offsets +│ \[40,59\] +│", r.out), r.out


def test_a_torn_tail_past_every_witness_reserves_nothing(kdump: KdumpRunner,
                                                        tmp_path: Path) -> None:
    """A live copy: the batch in flight lies above the high watermark and recovery point."""
    ld = broker(tmp_path, 1, hw=50)
    tear(ld / "t-0" / f"{SEG0}.log", 5)
    for index in (".index", ".timeindex"):  # a live broker's active indexes: no entry yet
        (ld / "t-0" / f"{SEG0}{index}").unlink()
    r = repair(kdump, [ld], tmp_path / "out")
    (p,) = of(objs(r), "repair_partition")
    assert (p["log_end_offset"], p["reserved_offsets"]) == (50, None)
    assert not (tmp_path / "out" / "t-0" / "00000000000000000050.log").exists()
    # in flight, as verify-crc says (info, exit 0): not damage, nothing lost
    (d,) = of(objs(r), "repair_dropped")
    assert (d["reason"], d["severity"], d["missing_offsets"]) == ("in-flight", "info", None)
    assert (p["data_lost"], p["lost_offsets"]) == (False, [])
    assert (r.rc, objs(r)[-1]["clean"], objs(r)[-1]["damaged_partitions"]) == (0, True, 0)
    r = kdump("verify-crc", ld, "--format", "json")
    assert [(o["kind"], o["severity"]) for o in objs(r) if o["type"] == "problem"] == [
        ("in-flight", "info")]
    assert r.rc == 0


def test_a_partition_whose_only_log_is_gone_is_an_empty_log_at_its_old_end(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    ld = broker(tmp_path, 1)
    (ld / "t-0" / f"{SEG0}.log").unlink()  # its .index, .timeindex and checkpoints stay
    out = tmp_path / "out"
    r = repair(kdump, [ld], out)
    assert r.rc == 1, r.err
    (p,) = of(objs(r), "repair_partition")
    assert (p["batches"], p["log_end_offset"], p["reserved_offsets"]) == (0, 60, [0, 59])
    assert p["checkpoints"] == {"recovery_point": [60, 60], "high_watermark": [60, 60]}
    # the input's epochs kept, the highest (3) among them: LogLoader truncates the cache
    # only from the log end (60) and the log start checkpoint (none: 0)
    assert (out / "t-0" / "leader-epoch-checkpoint").read_text() == "0\n2\n0 0\n3 30\n"
    # an empty segment at the old log start (0) and the reserved one at 60: the copy's
    # log starts where the input's did (LogLoader: the first segment's base)
    assert sorted(x.name for x in (out / "t-0").iterdir()) == [
        f"{SEG0}.index", f"{SEG0}.log", f"{SEG0}.timeindex",
        "00000000000000000060.index", "00000000000000000060.log",
        "00000000000000000060.timeindex", "leader-epoch-checkpoint"]
    for base in (SEG0, "00000000000000000060"):
        assert (out / "t-0" / f"{base}.log").read_bytes() == b""
    reserved = [f for f in of(objs(r), "repair_file") if f["action"] == "reserved"]
    assert [f["output"] for f in reserved] == [f"t-0/{SEG0}.log", "t-0/00000000000000000060.log"]
    assert reserved[0]["detail"] == ("empty segment at the input's log start 0: offsets 0-59 lie "
                                     "inside the copy's log, reserved, not below its start")
    assert objs(r)[-1]["damaged_partitions"] == 1
    assert (p["data_lost"], p["lost_offsets"]) == (True, [[0, 59]])
    # the copy says the loss its manifest says
    verify_lost(kdump, out, [0, 59])
    assert dumped_offsets(kdump, out / "t-0") == []


def test_a_log_start_entry_follows_the_reserved_segment(kdump: KdumpRunner,
                                                        tmp_path: Path) -> None:
    """With no segment left, the copy starts at the input's log start (20): an empty
    segment there, the reserved one at 60; the log start and high watermark stay."""
    ld = broker(tmp_path, 1, hw=45)
    (ld / "log-start-offset-checkpoint").write_bytes(w.offset_checkpoint([("t", 0, 20)]))
    (ld / "recovery-point-offset-checkpoint").write_bytes(w.offset_checkpoint([("t", 0, 60)]))
    (ld / "t-0" / f"{SEG0}.log").unlink()
    r = repair(kdump, [ld], tmp_path / "out")
    (p,) = of(objs(r), "repair_partition")
    assert p["log_end_offset"] == 60
    assert p["checkpoints"] == {"recovery_point": [60, 60], "high_watermark": [45, 45],
                                "log_start_offset": [20, 20]}
    assert (p["reserved_offsets"], p["lost_offsets"]) == ([20, 59], [[20, 59]])
    assert sorted(x.name for x in (tmp_path / "out" / "t-0").glob("*.log")) == [
        "00000000000000000020.log", "00000000000000000060.log"]
    verify_lost(kdump, tmp_path / "out", [20, 59])


# --- part 5: fill from a healthy replica -------------------------------------------------------
def test_a_damaged_batch_is_filled_byte_for_byte_from_a_healthy_replica(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    b1, b2 = broker(tmp_path, 1), broker(tmp_path, 2)
    flip(b1 / "t-0" / f"{SEG0}.log", 2)  # offsets 20-29: crc-mismatch
    out = tmp_path / "out"
    r = repair(kdump, [b1], out, "--replica", b2)
    assert r.rc == 1, r.err
    healthy = (b2 / "t-0" / f"{SEG0}.log").read_bytes()
    assert (out / "t-0" / f"{SEG0}.log").read_bytes() == healthy
    (f,) = of(objs(r), "repair_fill")
    pos, size = positions(b2 / "t-0" / f"{SEG0}.log")[2]
    assert f == {
        "type": "repair_fill", "log_dir": str(b1), "topic": "t", "partition": 0,
        "first_offset": 20, "last_offset": 29, "filled": True, "filled_offsets": [20, 29],
        "batches": 1, "records": 10, "bytes": size, "replica_log_dir": str(b2),
        "replica_broker_id": 2,
        "sources": [{"file": str(b2 / "t-0" / f"{SEG0}.log"), "position": pos,
                     "length": size, "first_offset": 20, "last_offset": 29}],
        "output": f"t-0/{SEG0}.log",
        "detail": f"offsets 20-29 filled byte for byte from broker 2 ({b2}): the batches "
                  "either side of the gap are the same bytes on both replicas, and every "
                  "filled batch holds its checksum and the leader epoch both replicas' "
                  "leader-epoch-checkpoint give it"}
    (d,) = of(objs(r), "repair_dropped")
    assert d["missing_offsets"] is None and d["detail"].endswith(
        "; offsets 20-29 filled from another broker's replica (repair_fill)")
    (p,) = of(objs(r), "repair_partition")
    assert (p["filled_offsets"], p["reserved_offsets"], p["log_end_offset"]) == (
        [[20, 29]], None, 60)
    assert objs(r)[-1]["filled_batches"] == 1
    # the replica's files are inputs: hashed before and after, unchanged
    hashed = {i["file"]: i for i in of(objs(r), "repair_input")}
    for name in (b2 / "meta.properties", b2 / "t-0" / f"{SEG0}.log",
                 b2 / "t-0" / "leader-epoch-checkpoint"):
        assert hashed[str(name)]["unchanged"] is True
    verify_clean(kdump, out)
    assert dumped_offsets(kdump, out / "t-0") == list(range(60))
    r = repair(kdump, [b1], tmp_path / "out2", "--replica", b2, fmt="text")
    assert (f"  filled offsets 20-29 from broker 2 ({b2}): 1 batch byte for byte from "
            f"{b2}/t-0/{SEG0}.log byte {pos} ({size} bytes), into t-0/{SEG0}.log\n") in r.out


def test_a_torn_tail_is_filled_up_to_the_high_watermark(kdump: KdumpRunner,
                                                       tmp_path: Path) -> None:
    b1, b2 = broker(tmp_path, 1), broker(tmp_path, 2)
    tear(b1 / "t-0" / f"{SEG0}.log", 4)
    out = tmp_path / "out"
    r = repair(kdump, [b1], out, "--replica", b2)
    assert r.rc == 1, r.err
    (f,) = of(objs(r), "repair_fill")
    assert (f["filled"], f["first_offset"], f["last_offset"], f["filled_offsets"],
            f["batches"]) == (True, 40, 59, [40, 59], 2)
    assert f["detail"] == (
        f"offsets 40-59 filled byte for byte from broker 2 ({b2}): the batch before the gap "
        "is the same bytes on both replicas (none follows it), and every filled batch holds "
        "its checksum and the leader epoch both replicas' leader-epoch-checkpoint give it")
    # the filled batches open a segment of their own at 40, after the kept ones
    assert (out / "t-0" / f"{SEG0}.log").read_bytes() + \
        (out / "t-0" / "00000000000000000040.log").read_bytes() == \
        (b2 / "t-0" / f"{SEG0}.log").read_bytes()
    (p,) = of(objs(r), "repair_partition")
    assert (p["log_end_offset"], p["reserved_offsets"]) == (60, None)
    verify_clean(kdump, out)


def test_a_diverged_replica_fills_nothing(kdump: KdumpRunner, tmp_path: Path) -> None:
    """The replica's batch before the gap holds other bytes (another history)."""
    b1 = broker(tmp_path, 1)
    b2 = broker(tmp_path, 2, tag="x")
    flip(b1 / "t-0" / f"{SEG0}.log", 2)
    out = tmp_path / "out"
    r = repair(kdump, [b1], out, "--replica", b2)
    assert r.rc == 1, r.err
    (f,) = of(objs(r), "repair_fill")
    pos, _ = positions(b2 / "t-0" / f"{SEG0}.log")[1]
    assert (f["filled"], f["batches"], f["sources"], f["output"]) == (False, 0, [], None)
    assert f["detail"] == (f"broker 2 ({b2})'s batch at offsets 10-19 ({b2}/t-0/{SEG0}.log, "
                           f"byte {pos}) is not byte for byte the damaged replica's batch "
                           "before the gap: a diverged history, nothing filled")
    (d,) = of(objs(r), "repair_dropped")
    assert d["missing_offsets"] == [20, 29]
    assert of(objs(r), "repair_partition")[0]["filled_offsets"] == []
    r = repair(kdump, [b1], tmp_path / "out2", "--replica", b2, fmt="text")
    assert (f"  not filled: offsets 20-29 from broker 2 ({b2}): {f['detail']}\n") in r.out


def test_a_replica_with_another_leader_epoch_in_the_gap_fills_nothing(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """The same bytes either side, but the replica's batch in the gap was written under
    epoch 2 where the damaged replica's checkpoint says epoch 0 led then."""
    b1 = broker(tmp_path, 1)
    spans = [(0, 10, 0), (10, 10, 0), (20, 10, 2), (30, 10, 3), (40, 10, 3), (50, 10, 3)]
    b2 = broker(tmp_path, 2, spans=spans, epochs=[(0, 0), (2, 20), (3, 30)])
    flip(b1 / "t-0" / f"{SEG0}.log", 2)
    r = repair(kdump, [b1], tmp_path / "out", "--replica", b2)
    (f,) = of(objs(r), "repair_fill")
    pos, _ = positions(b2 / "t-0" / f"{SEG0}.log")[2]
    assert (f["filled"], f["detail"]) == (False, (
        f"broker 2 ({b2})'s batch at offsets 20-29 ({b2}/t-0/{SEG0}.log, byte {pos}) has "
        "leader epoch 2, where the damaged replica's leader-epoch-checkpoint gives offset 20 "
        "epoch 0: the replicas disagree on who led then (a diverged history): nothing filled"))
    assert (tmp_path / "out" / "t-0" / f"{SEG0}.log").read_bytes() == b"".join(
        (b1 / "t-0" / f"{SEG0}.log").read_bytes()[p:p + n]
        for k, (p, n) in enumerate(positions(b1 / "t-0" / f"{SEG0}.log")) if k != 2)


def test_the_next_replica_is_tried_when_one_disagrees(kdump: KdumpRunner,
                                                     tmp_path: Path) -> None:
    b1, b2, b3 = broker(tmp_path, 1), broker(tmp_path, 2, tag="x"), broker(tmp_path, 3)
    flip(b1 / "t-0" / f"{SEG0}.log", 2)
    out = tmp_path / "out"
    b4 = broker(tmp_path, 4)
    r = repair(kdump, [b1], out, "--replica", b2, "--replica", b3, "--replica", b4)
    assert objs(r)[0]["replicas"] == [str(b2), str(b3), str(b4)]
    # b4 is never read past its meta.properties (b3 filled the gap first), which is hashed
    hashed = {i["file"] for i in of(objs(r), "repair_input")}
    assert str(b4 / "meta.properties") in hashed
    assert not any(h.startswith(str(b4 / "t-0")) for h in hashed)
    fills = of(objs(r), "repair_fill")
    assert [(f["replica_broker_id"], f["filled"]) for f in fills] == [(2, False), (3, True)]
    assert (out / "t-0" / f"{SEG0}.log").read_bytes() == (b3 / "t-0" / f"{SEG0}.log").read_bytes()


def test_replicas_of_another_cluster_or_the_same_node_are_refused(kdump: KdumpRunner,
                                                                  tmp_path: Path) -> None:
    b1 = broker(tmp_path, 1)
    other = broker(tmp_path, 2)
    (other / "meta.properties").write_bytes(w.meta_properties(
        {"version": "0", "broker.id": "2", "cluster.id": "another-cluster"}))
    same = broker(tmp_path, 7)
    (same / "meta.properties").write_bytes(w.meta_properties(
        {"version": "0", "broker.id": "1", "cluster.id": "kdump-test-cluster"}))
    for replica, line in (
            (other, f"--replica {other}: cluster.id another-cluster is not the input's "
                    f"kdump-test-cluster ({b1}): never filled from another cluster"),
            (same, f"--replica {same}: node 1 is the input's own node ({b1}): never filled "
                   "from the same broker"),
            (b1, f"--replica {b1} is the input log dir itself: a fill needs another broker's "
                 "copy")):
        out = tmp_path / "out"
        r = kdump("repair", b1, "--into", out, "--replica", replica, watch=[b1, replica])
        assert (r.rc, r.out) == (2, "")
        assert r.err.splitlines() == [f"kdump: {line}"]
        assert not out.exists()


def test_a_gap_at_a_segment_boundary_is_filled_into_a_segment_of_its_own(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """The damaged batch ends segment 0 (offsets 20-29); the next segment starts at 30.
    The replica rolled elsewhere (one segment): its bytes are found across its layout."""
    b1 = w.broker_logdir(tmp_path / "b1", 1, high_watermarks=[("t", 0, 60)])
    w.write_replica(b1 / "t-0", w.replica_batches(SPANS), roll_before={3}, epochs=EPOCHS)
    b2 = broker(tmp_path, 2)
    flip(b1 / "t-0" / f"{SEG0}.log", 2)
    out = tmp_path / "out"
    r = repair(kdump, [b1], out, "--replica", b2)
    assert r.rc == 1, r.err
    (f,) = of(objs(r), "repair_fill")
    assert (f["filled"], f["filled_offsets"], f["output"]) == (
        True, [20, 29], "t-0/00000000000000000020.log")
    healthy = b2 / "t-0" / f"{SEG0}.log"
    pos, size = positions(healthy)[2]
    assert (out / "t-0" / "00000000000000000020.log").read_bytes() == \
        healthy.read_bytes()[pos:pos + size]
    assert (out / "t-0" / f"{SEG0}.log").read_bytes() + \
        (out / "t-0" / "00000000000000000020.log").read_bytes() + \
        (out / "t-0" / "00000000000000000030.log").read_bytes() == healthy.read_bytes()
    verify_clean(kdump, out)
    assert dumped_offsets(kdump, out / "t-0") == list(range(60))


def test_a_replica_refused_where_it_cannot_be_proved_or_would_hold_the_copy(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    b1, b2 = broker(tmp_path, 1), broker(tmp_path, 2)
    alone = tmp_path / "loose" / "t-0"
    alone.parent.mkdir()
    w.write_replica(alone, w.replica_batches(SPANS))
    for args, line in (
            ([alone, "--into", tmp_path / "o1", "--replica", b2],
             f"--replica: the input log dir {alone.parent} names no node.id or broker.id "
             f"({alone.parent / 'meta.properties'}: no such file): a replica cannot be proved "
             "to be of the same cluster"),
            ([b1, "--into", b2 / "copy", "--replica", b2],
             f"--into {b2 / 'copy'} resolves to {b2 / 'copy'}, inside {b2} ({b2}): the copy "
             "is never written into the evidence; choose a directory outside it")):
        r = kdump("repair", *args, watch=[b1, b2, alone])
        assert (r.rc, r.err.splitlines()) == (2, [f"kdump: {line}"])
    assert not (tmp_path / "o1").exists() and not (b2 / "copy").exists()


def test_a_partition_whose_log_is_gone_is_filled_from_a_replica(kdump: KdumpRunner,
                                                                tmp_path: Path) -> None:
    """No region names the lost offsets (the .log is gone), its witnesses do: offsets 0-59
    are offered to the replica, which has them all under the epochs the checkpoint says."""
    b1, b2 = broker(tmp_path, 1), broker(tmp_path, 2)
    (b1 / "t-0" / f"{SEG0}.log").unlink()
    out = tmp_path / "out"
    r = repair(kdump, [b1], out, "--replica", b2)
    assert r.rc == 1, r.err  # damage found (a .log gone), repaired
    (f,) = of(objs(r), "repair_fill")
    assert (f["filled"], f["first_offset"], f["last_offset"], f["filled_offsets"],
            f["batches"], f["output"]) == (True, 0, 59, [0, 59], 6, f"t-0/{SEG0}.log")
    assert (objs(r)[-1]["damaged_partitions"], objs(r)[-1]["filled_batches"]) == (1, 6)
    assert (out / "t-0" / f"{SEG0}.log").read_bytes() == (b2 / "t-0" / f"{SEG0}.log").read_bytes()
    (p,) = of(objs(r), "repair_partition")
    assert (p["log_end_offset"], p["reserved_offsets"], p["filled_offsets"]) == (60, None,
                                                                                 [[0, 59]])
    verify_clean(kdump, out)


def test_a_replica_damaged_in_the_gap_fills_nothing(kdump: KdumpRunner, tmp_path: Path) -> None:
    b1, b2 = broker(tmp_path, 1), broker(tmp_path, 2)
    flip(b1 / "t-0" / f"{SEG0}.log", 2)
    flip(b2 / "t-0" / f"{SEG0}.log", 2)  # the same batch damaged on the replica
    r = repair(kdump, [b1], tmp_path / "out", "--replica", b2)
    (f,) = of(objs(r), "repair_fill")
    pos, _ = positions(b2 / "t-0" / f"{SEG0}.log")[2]
    assert (f["filled"], f["detail"]) == (False, (
        f"broker 2 ({b2})'s batch at offsets 20-29 ({b2}/t-0/{SEG0}.log, byte {pos}) fails "
        "its checksum: nothing filled"))
    assert of(objs(r), "repair_dropped")[0]["missing_offsets"] == [20, 29]


def test_a_replica_shorter_than_the_witnesses_fills_what_it_has(kdump: KdumpRunner,
                                                               tmp_path: Path) -> None:
    """The replica holds offsets up to 49 (a follower behind): 40-49 are filled, 50-59
    stay reserved."""
    b1 = broker(tmp_path, 1)
    b2 = broker(tmp_path, 2, spans=SPANS[:5])
    tear(b1 / "t-0" / f"{SEG0}.log", 4)
    out = tmp_path / "out"
    r = repair(kdump, [b1], out, "--replica", b2)
    (f,) = of(objs(r), "repair_fill")
    assert (f["filled"], f["first_offset"], f["last_offset"], f["filled_offsets"]) == (
        True, 40, 59, [40, 49])
    (p,) = of(objs(r), "repair_partition")
    assert (p["log_end_offset"], p["reserved_offsets"], p["filled_offsets"]) == (
        60, [50, 59], [[40, 49]])
    (d,) = of(objs(r), "repair_dropped")
    assert d["missing_offsets"] == [50, 59]  # the reserved range: up to the high watermark
    assert (out / "t-0" / "00000000000000000040.log").read_bytes() == \
        (b2 / "t-0" / f"{SEG0}.log").read_bytes()[positions(b2 / "t-0" / f"{SEG0}.log")[4][0]:]
    assert (out / "t-0" / "00000000000000000060.log").read_bytes() == b""
    verify_lost(kdump, out, [50, 59])


def test_a_middle_segment_whose_log_is_gone_is_filled_from_a_replica(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """Segment 20's .log is gone, its indexes still name it: offsets 20-39 lie between
    the last kept batch (19) and the next log's first batch (40), both the same bytes on
    the replica."""
    b1 = w.broker_logdir(tmp_path / "b1", 1, high_watermarks=[("t", 0, 60)])
    w.write_replica(b1 / "t-0", w.replica_batches(SPANS), roll_before={2, 4}, epochs=EPOCHS)
    (b1 / "t-0" / "00000000000000000020.log").unlink()
    b2 = broker(tmp_path, 2)
    out = tmp_path / "out"
    r = repair(kdump, [b1], out, "--replica", b2)
    (f,) = of(objs(r), "repair_fill")
    assert (f["filled"], f["first_offset"], f["last_offset"], f["filled_offsets"],
            f["output"]) == (True, 20, 39, [20, 39], "t-0/00000000000000000020.log")
    healthy = (b2 / "t-0" / f"{SEG0}.log").read_bytes()
    (p2, _), (p4, _) = positions(b2 / "t-0" / f"{SEG0}.log")[2], \
        positions(b2 / "t-0" / f"{SEG0}.log")[4]
    assert (out / "t-0" / "00000000000000000020.log").read_bytes() == healthy[p2:p4]
    assert b"".join((out / "t-0" / f"{b:020d}.log").read_bytes() for b in (0, 20, 40)) == \
        healthy
    verify_clean(kdump, out)
    assert dumped_offsets(kdump, out / "t-0") == list(range(60))
