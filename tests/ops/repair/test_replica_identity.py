"""repair --replica on ZooKeeper-era log dirs (issue 46, Why 6): meta.properties version 0
names the broker by ``broker.id`` (its node id) and, before 2.4, no cluster.id; the
identity check is kdump/ops/replica_groups.py's (log_dir_identity, same_cluster).
Log dirs are written by tests/writer.py."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import KdumpRunner
from tests.ops.repair.test_repair_fill import EPOCHS, SEG0, SPANS, flip
from tests.support import writer as w


def zk_broker(root: Path, bid: int, cluster: str | None) -> Path:
    """A ZooKeeper-era broker: meta.properties version 0, broker.id, cluster.id if given."""
    ld = w.broker_logdir(root / f"b{bid}", None, high_watermarks=[("t", 0, 60)])
    props = {"version": "0", "broker.id": str(bid)}
    if cluster is not None:
        props["cluster.id"] = cluster
    (ld / "meta.properties").write_bytes(w.meta_properties(props))
    (ld / "recovery-point-offset-checkpoint").write_bytes(w.offset_checkpoint([("t", 0, 60)]))
    w.write_replica(ld / "t-0", w.replica_batches(SPANS), epochs=EPOCHS)
    return ld


def test_zookeeper_log_dirs_fill_by_broker_id(kdump: KdumpRunner, tmp_path: Path) -> None:
    for cluster in ("zkClusterAAAAAAAAAAAAA", None):
        root = tmp_path / str(cluster)
        b1, b2 = zk_broker(root, 1, cluster), zk_broker(root, 2, cluster)
        flip(b1 / "t-0" / f"{SEG0}.log", 2)
        r = kdump("repair", b1, "--into", root / "out", "--replica", b2, "--format", "json",
                  watch=[b1, b2])
        assert r.rc == 1, r.err  # damage found, repaired
        fills = [json.loads(x) for x in r.out.splitlines()]
        fills = [o for o in fills if o["type"] == "repair_fill"]
        assert [(f["filled"], f["filled_offsets"], f["replica_broker_id"]) for f in fills] == [
            (True, [20, 29], 2)]


def test_zookeeper_identity_refusals(kdump: KdumpRunner, tmp_path: Path) -> None:
    a = zk_broker(tmp_path / "a", 1, None)
    for name, replica, line in (
            ("named", zk_broker(tmp_path / "named", 2, "zkClusterAAAAAAAAAAAAA"),
             "it names cluster.id zkClusterAAAAAAAAAAAAA, the input none: not proved to be "
             "one cluster"),
            ("same", zk_broker(tmp_path / "same", 1, None), None)):
        r = kdump("repair", a, "--into", tmp_path / f"o-{name}", "--replica", replica,
                  watch=[a, replica])
        want = (f"kdump: --replica {replica}: {line} ({a}): never filled from another cluster"
                if line else f"kdump: --replica {replica}: node 1 is the input's own node "
                f"({a}): never filled from the same broker")
        assert (r.rc, r.err.splitlines()) == (2, [want])


def test_a_replica_under_another_topic_id_fills_nothing(kdump: KdumpRunner,
                                                        tmp_path: Path) -> None:
    """Broker 2's t-0 names another topic id than the input's (the topic made again under
    its name): another partition, never a source of bytes, even where its batches match."""
    from tests.ops.repair.test_repair_fill import broker

    b1, b2 = broker(tmp_path, 1), broker(tmp_path, 2)
    (b1 / "t-0" / "partition.metadata").write_bytes(w.partition_metadata(b"\x01" * 16))
    (b2 / "t-0" / "partition.metadata").write_bytes(w.partition_metadata(b"\x02" * 16))
    flip(b1 / "t-0" / f"{SEG0}.log", 2)
    r = kdump("repair", b1, "--into", tmp_path / "out", "--replica", b2, "--format", "json",
              watch=[b1, b2])
    fills = [o for o in (json.loads(x) for x in r.out.splitlines()) if o["type"] == "repair_fill"]
    assert [(f["filled"], f["detail"]) for f in fills] == [(False, (
        f"broker 2 ({b2})'s t-0 names topic id AgICAgICAgICAgICAgICAg, the input's "
        "AQEBAQEBAQEBAQEBAQEBAQ: another partition of a topic made again under its name, "
        "nothing filled"))]
    # the same ids on both: filled
    (b2 / "t-0" / "partition.metadata").write_bytes(w.partition_metadata(b"\x01" * 16))
    r = kdump("repair", b1, "--into", tmp_path / "out2", "--replica", b2, "--format", "json",
              watch=[b1, b2])
    fills = [o for o in (json.loads(x) for x in r.out.splitlines()) if o["type"] == "repair_fill"]
    assert [f["filled"] for f in fills] == [True]
