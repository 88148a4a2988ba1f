"""One node twice (issue 41): two log dirs of one cluster.id both claiming node 1 (an
older single-broker run and broker 1 of a later three-broker run) are named in a warning
and never compared as replicas of each other; a broker's KIP-858 JBOD log dirs (the
same node, distinct directory.ids, no partition in common) stay one broker.

Log dirs are written by tests/writer.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import KdumpRunner
from tests.support import writer as w

CLUSTER = "kdump-test-cluster"  # tests/writer.py's broker_logdir


def _objs(out: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.splitlines()]


def _meta(root: Path, node: int, directory_id: str) -> None:
    (root / "meta.properties").write_bytes(w.meta_properties({
        "version": "1", "node.id": str(node), "cluster.id": CLUSTER,
        "directory.id": directory_id}))


def two_runs(root: Path) -> None:
    """``old``: node 1 alone, writing its own records; ``b1``, ``b2``: nodes 1 and 2 of the
    later cluster, agreeing.  ``old`` and ``b1`` both hold orders-0 (and claim node 1)."""
    old = w.broker_logdir(root / "old", 1, high_watermarks=[("orders", 0, 25)])
    w.write_replica(old / "orders-0", w.replica_batches([(0, 25, 0)], tag="old"))
    for b in (1, 2):
        d = w.broker_logdir(root / f"b{b}", b, high_watermarks=[("orders", 0, 20)])
        w.write_replica(d / "orders-0", w.replica_batches([(0, 10, 0), (10, 10, 0)]))


def test_one_node_twice_is_named_and_not_compared(kdump: KdumpRunner, tmp_path: Path) -> None:
    two_runs(tmp_path)
    r = kdump("compare-replicas", "old", "b1", "b2", "--format", "json", cwd=tmp_path)
    objs = _objs(r.out)
    warn = [o for o in objs if o["type"] == "problem" and o["kind"] == "node-twice"]
    assert [(o["file"], o["severity"], o["detail"]) for o in warn] == [(
        "old", "warning",
        f"log dirs b1 and old both claim node 1 of cluster {CLUSTER} and are not one "
        "broker's JBOD dirs (1 partition in both (e.g. orders-0), which one broker's log "
        "dirs never share): one node twice (two copies, or two runs of it), not two "
        "brokers; their partitions are not compared as replicas of each other")]
    comps = [o for o in objs if o["type"] == "partition_comparison"]
    # b2 alone (its twin-free peers: none), then each twin alone: nothing diverges
    assert sorted((c["status"], tuple(sorted(x["log_dir"] for x in c["replicas"])))
                  for c in comps) == [("single", ("b1",)), ("single", ("b2",)),
                                      ("single", ("old",))]
    assert r.rc == 1  # the warning
    # the same log dirs, the twin left out: b1 and b2 agree
    r2 = kdump("compare-replicas", "b1", "b2", "--format", "json", cwd=tmp_path)
    assert [c["status"] for c in _objs(r2.out) if c["type"] == "partition_comparison"] == [
        "agree"]


def test_lag_names_it_too(kdump: KdumpRunner, tmp_path: Path) -> None:
    two_runs(tmp_path)
    r = kdump("lag", "old", "b1", "b2", "--format", "json", cwd=tmp_path)
    assert [o["kind"] for o in _objs(r.out) if o["type"] == "problem"] == ["node-twice"]


def test_the_report_glance_has_no_divergence(kdump: KdumpRunner, tmp_path: Path) -> None:
    two_runs(tmp_path / "in")
    page = tmp_path / "r.html"
    kdump("report", "old", "b1", "b2", "-o", str(page), cwd=tmp_path / "in")
    html = page.read_text(encoding="utf-8")
    glance = html[html.index("At a glance"):html.index('<section id="custody">')]
    assert "diverge" not in glance
    assert "node-twice" in glance


def test_jbod_dirs_stay_one_broker(kdump: KdumpRunner, tmp_path: Path) -> None:
    """Node 1's two JBOD dirs (distinct directory.id, orders-0 in one, orders-1 in the
    other) against node 2's: one broker, every partition compared."""
    for name, node, did, parts in (("d1", 1, "AAAAAAAAAAAAAAAAAAAAAQ", (0,)),
                                   ("d2", 1, "AAAAAAAAAAAAAAAAAAAAAg", (1,)),
                                   ("e1", 2, "AAAAAAAAAAAAAAAAAAAAAw", (0, 1))):
        d = w.broker_logdir(tmp_path / name, node,
                            high_watermarks=[("orders", p, 20) for p in parts])
        _meta(d, node, did)
        for p in parts:
            w.write_replica(d / f"orders-{p}", w.replica_batches([(0, 10, 0), (10, 10, 0)]))
    r = kdump("compare-replicas", "d1", "d2", "e1", "--format", "json", cwd=tmp_path)
    objs = _objs(r.out)
    assert [o for o in objs if o["type"] == "problem"] == []
    assert [(c["partition"], c["status"]) for c in objs if c["type"] == "partition_comparison"
            ] == [("orders-0", "agree"), ("orders-1", "agree")]
    assert r.rc == 0


def test_the_same_directory_id_twice_is_one_node_twice(kdump: KdumpRunner,
                                                       tmp_path: Path) -> None:
    """A copy of a log dir beside the original: the same directory.id, whatever they hold."""
    for name, part in (("a", 0), ("copy", 1)):
        d = w.broker_logdir(tmp_path / name, 1, high_watermarks=[("orders", part, 10)])
        _meta(d, 1, "AAAAAAAAAAAAAAAAAAAAAQ")
        w.write_replica(d / f"orders-{part}", w.replica_batches([(0, 10, 0)]))
    r = kdump("compare-replicas", "a", "copy", "--format", "json", cwd=tmp_path)
    warn = [o for o in _objs(r.out) if o["type"] == "problem"]
    assert [o["kind"] for o in warn] == ["node-twice"]
    assert "(the same directory.id AAAAAAAAAAAAAAAAAAAAAQ)" in warn[0]["detail"]


def test_replicas_of_other_topic_ids_are_other_partitions(kdump: KdumpRunner,
                                                          tmp_path: Path) -> None:
    """Brokers 1 and 2 hold orders-0 under two topic ids (the topic deleted and made
    again while broker 1 was away): not a replica behind another, two partitions; a
    third replica of broker 2's id is compared with broker 2's (seen on a real cluster)."""
    ids = {1: b"\x01" * 16, 2: b"\x02" * 16, 3: b"\x02" * 16}
    spans = {1: [(0, 5, 0)], 2: [(0, 10, 0), (10, 10, 0)], 3: [(0, 10, 0), (10, 10, 0)]}
    for b in (1, 2, 3):
        d = w.broker_logdir(tmp_path / f"b{b}", b)
        w.write_replica(d / "orders-0", w.replica_batches(spans[b], tag=f"t{ids[b][0]}"))
        (d / "orders-0" / "partition.metadata").write_bytes(w.partition_metadata(ids[b]))
    r = kdump("compare-replicas", "b1", "b2", "b3", "--format", "json", cwd=tmp_path)
    objs = _objs(r.out)
    notes = [o for o in objs if o["type"] == "problem"]
    assert [(n["kind"], n["severity"]) for n in notes] == [("replica-topic-ids", "info")]
    assert notes[0]["detail"] == (
        "the replicas of orders-0 name 2 topic ids (AQEBAQEBAQEBAQEBAQEBAQ in "
        "b1; AgICAgICAgICAgICAgICAg in b2, b3): different partitions of a "
        "topic made again under its name, each compared only with the replicas of its own "
        "topic id")
    comps = [o for o in objs if o["type"] == "partition_comparison"]
    assert [(c["status"], len(c["replicas"])) for c in comps] == [("single", 1), ("agree", 2)]
    assert r.rc == 0, r.out


def test_one_node_twice_told_apart_by_topic_ids(kdump: KdumpRunner, tmp_path: Path) -> None:
    """The older run of node 1 wrote orders-0 under another topic id than the later
    cluster: its copy is another partition, so the later node 1 is compared with node 2
    (they agree) and the older copy stands alone; the node-twice warning stays."""
    two_runs(tmp_path)
    for name, tid in (("old", b"\x01" * 16), ("b1", b"\x02" * 16), ("b2", b"\x02" * 16)):
        (tmp_path / name / "orders-0" / "partition.metadata").write_bytes(
            w.partition_metadata(tid))
    r = kdump("compare-replicas", "old", "b1", "b2", "--format", "json", cwd=tmp_path)
    objs = _objs(r.out)
    assert sorted(o["kind"] for o in objs if o["type"] == "problem") == [
        "node-twice", "replica-topic-ids"]
    comps = [o for o in objs if o["type"] == "partition_comparison"]
    assert sorted((c["status"], len(c["replicas"])) for c in comps) == [
        ("agree", 2), ("single", 1)]
