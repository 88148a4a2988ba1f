"""Replica groups (issue 46, What 4; kdump/ops/replica_groups.py): a replica group is one
cluster, one topic name and partition number, and one topic id where partition.metadata
says it.  ZooKeeper-era brokers (meta.properties version 0, broker.id, no
partition.metadata) in log dirs named like partitions (``kafka-1``), two clusters
sharing a node id, an older incarnation of a topic under another id, the real kafka2
corpus.  Log dirs are written by tests/writer.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kdump.ops.replica_groups import Identity, group_replicas
from tests.conftest import KdumpRunner
from tests.support import writer as w

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus"


def _objs(out: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.splitlines()]


def _zk_broker(root: Path, broker: int, parts: list[tuple[str, int]],
               cluster: str | None = None) -> Path:
    """A ZooKeeper-era broker's log dir: meta.properties version 0 with broker.id (and
    cluster.id when given, as brokers since 2.4 write it), no partition.metadata."""
    root.mkdir(parents=True)
    props = {"version": "0", "broker.id": str(broker)}
    if cluster is not None:
        props["cluster.id"] = cluster
    (root / "meta.properties").write_bytes(w.meta_properties(props))
    for topic, p in parts:
        w.write_replica(root / f"{topic}-{p}", w.replica_batches([(0, 5, 0)], tag=f"b{broker}"))
    return root


def zk_three(root: Path, cluster: str | None = None) -> None:
    """Orders-2 on broker 1, Orders-0 on broker 2, __consumer_offsets-1 on broker 3, each
    the only replica of its partition, in log dirs named kafka-1, kafka-2, kafka-3."""
    for b, parts in ((1, [("Orders", 2)]), (2, [("Orders", 0)]),
                     (3, [("__consumer_offsets", 1)])):
        _zk_broker(root / f"kafka-{b}", b, parts, cluster)


def test_zookeeper_brokers_never_group_other_partitions(kdump: KdumpRunner,
                                                         tmp_path: Path) -> None:
    zk_three(tmp_path)
    r = kdump("compare-replicas", "kafka-1", "kafka-2", "kafka-3", cwd=tmp_path)
    assert r.rc == 0, r.out
    assert r.out.splitlines() == [
        "Orders-0: only one replica (not in: 1, 3)",
        "  broker 2 kafka-2/Orders-0 (single): log start 0, log end 5, epochs 0@0 "
        "(leader-epoch-checkpoint), 5 records only here",
        "Orders-2: only one replica (not in: 2, 3)",
        "  broker 1 kafka-1/Orders-2 (single): log start 0, log end 5, epochs 0@0 "
        "(leader-epoch-checkpoint), 5 records only here",
        "__consumer_offsets-1: only one replica (not in: 1, 2)",
        "  broker 3 kafka-3/__consumer_offsets-1 (single): log start 0, log end 5, epochs 0@0 "
        "(leader-epoch-checkpoint), 5 records only here",
    ]
    assert r.err.splitlines() == [
        "compare-replicas: 3 partitions: 0 agree, 0 lagging, 0 diverged, 3 with one replica, "
        "0 damaged; 363 bytes read"]


def test_zookeeper_json_partition_names_its_own_replicas(kdump: KdumpRunner,
                                                         tmp_path: Path) -> None:
    zk_three(tmp_path, cluster="zkCluster")
    r = kdump("compare-replicas", "--format", "json", "kafka-1", "kafka-2", "kafka-3",
              cwd=tmp_path)
    assert r.rc == 0
    comps = [o for o in _objs(r.out) if o["type"] == "partition_comparison"]
    assert [(c["partition"], c["status"], c["cluster_id"], c["topic_id"],
             [x["path"] for x in c["replicas"]]) for c in comps] == [
        ("Orders-0", "single", "zkCluster", None, ["kafka-2/Orders-0"]),
        ("Orders-2", "single", "zkCluster", None, ["kafka-1/Orders-2"]),
        ("__consumer_offsets-1", "single", "zkCluster", None, ["kafka-3/__consumer_offsets-1"]),
    ]
    assert comps[0]["replicas"][0]["joined"] == (
        "Orders-0 in kafka-2: cluster.id zkCluster, no topic id (no partition.metadata)")
    assert [o for o in _objs(r.out) if o["type"] == "problem"] == []


def test_zookeeper_replicas_of_one_partition_still_compared(kdump: KdumpRunner,
                                                            tmp_path: Path) -> None:
    """Two ZooKeeper-era replicas of Orders-0 (no partition.metadata, no cluster.id): one
    group by name, compared; they agree."""
    for b in (1, 2):
        _zk_broker(tmp_path / f"kafka-{b}", b, [("Orders", 0)])
    for b in (1, 2):  # the same batches on both
        d = tmp_path / f"kafka-{b}" / "Orders-0"
        for f in d.iterdir():
            f.unlink()
        w.write_replica(d, w.replica_batches([(0, 5, 0)]))
    r = kdump("compare-replicas", "kafka-1", "kafka-2", cwd=tmp_path)
    assert (r.rc, r.out.splitlines()[0]) == (0, "Orders-0: replicas agree")


def test_report_glance_of_zookeeper_brokers_has_no_divergence(kdump: KdumpRunner,
                                                              tmp_path: Path) -> None:
    zk_three(tmp_path / "in")
    page = tmp_path / "r.html"
    r = kdump("report", "kafka-1", "kafka-2", "kafka-3", "-o", str(page), cwd=tmp_path / "in")
    assert r.rc == 0, r.err
    html = page.read_text(encoding="utf-8")
    glance = html[html.index("At a glance"):html.index('<section id="custody">')]
    assert "diverge" not in glance and "replica-" not in glance


def two_clusters(root: Path) -> None:
    """Clusters A and B, each one KRaft node 1 (node.id=1), each with its own
    __cluster_metadata-0 and orders-0."""
    for name, cluster in (("a", "clusterAAAAAAAAAAAAAAA"), ("b", "clusterBBBBBBBBBBBBBBB")):
        d = root / name
        d.mkdir(parents=True)
        (d / "meta.properties").write_bytes(w.meta_properties({
            "version": "1", "node.id": "1", "cluster.id": cluster,
            "directory.id": f"dir{name.upper()}AAAAAAAAAAAAAAAAAA"}))
        w.write_replica(d / "orders-0", w.replica_batches([(0, 5, 0)], tag=name))
        # each cluster's own metadata log: orders made under its own topic id
        lw = w.MetadataLogWriter(d / "__cluster_metadata-0")
        lw.append([w.metadata_record("TopicRecord", {
            "name": "orders", "topicId": w.uuid_of(1 if name == "a" else 2)})])
        lw.close()


def test_two_clusters_sharing_a_node_id_are_never_replicas(kdump: KdumpRunner,
                                                           tmp_path: Path) -> None:
    two_clusters(tmp_path)
    r = kdump("compare-replicas", "a", "b", cwd=tmp_path)
    assert r.rc == 0, r.out
    assert [x for x in r.out.splitlines() if not x.startswith("  ")] == [
        "__cluster_metadata-0 (cluster clusterAAAAAAAAAAAAAAA): only one replica",
        "__cluster_metadata-0 (cluster clusterBBBBBBBBBBBBBBB): only one replica",
        "orders-0 (cluster clusterAAAAAAAAAAAAAAA): only one replica",
        "orders-0 (cluster clusterBBBBBBBBBBBBBBB): only one replica",
    ]
    assert r.err.splitlines() == [
        "compare-replicas: 4 partitions: 0 agree, 0 lagging, 0 diverged, 4 with one replica, "
        "0 damaged; 422 bytes read"]
    j = kdump("compare-replicas", "--format", "json", "a", "b", cwd=tmp_path)
    objs = _objs(j.out)
    assert [o for o in objs if o["type"] == "problem"] == []  # no node-twice
    assert [(c["partition"], c["cluster_id"], c["missing_from"]) for c in objs
            if c["type"] == "partition_comparison"] == [
        ("__cluster_metadata-0", "clusterAAAAAAAAAAAAAAA", []),
        ("__cluster_metadata-0", "clusterBBBBBBBBBBBBBBB", []),
        ("orders-0", "clusterAAAAAAAAAAAAAAA", []),
        ("orders-0", "clusterBBBBBBBBBBBBBBB", [])]


def test_two_clusters_lag_and_glance(kdump: KdumpRunner, tmp_path: Path) -> None:
    two_clusters(tmp_path / "in")
    page = tmp_path / "r.html"
    kdump("report", "a", "b", "-o", str(page), cwd=tmp_path / "in")
    html = page.read_text(encoding="utf-8")
    glance = html[html.index("At a glance"):html.index('<section id="custody">')]
    assert "diverge" not in glance and "node-twice" not in glance


def incarnations(root: Path) -> None:
    """orders-0 on brokers 1-3 of one cluster: broker 1 holds the older incarnation (topic
    id 1), brokers 2 and 3 the new one (id 2); broker 4's copy has no partition.metadata."""
    ids = {1: b"\x01" * 16, 2: b"\x02" * 16, 3: b"\x02" * 16}
    for b in (1, 2, 3, 4):
        d = w.broker_logdir(root / f"b{b}", b)
        spans = [(0, 5, 0)] if b == 1 else [(0, 10, 0), (10, 10, 0)]
        w.write_replica(d / "orders-0", w.replica_batches(spans, tag=f"t{ids.get(b, ids[2])[0]}"))
        if b in ids:
            (d / "orders-0" / "partition.metadata").write_bytes(w.partition_metadata(ids[b]))


def test_an_older_incarnation_is_its_own_group(kdump: KdumpRunner, tmp_path: Path) -> None:
    incarnations(tmp_path)
    r = kdump("compare-replicas", "b1", "b2", "b3", "b4", cwd=tmp_path)
    assert r.rc == 0, r.out
    assert [x for x in r.out.splitlines() if not x.startswith("  ")] == [
        "orders-0 (topic id unknown): only one replica",
        "orders-0 (topic id AQEBAQEBAQEBAQEBAQEBAQ): only one replica",
        "orders-0 (topic id AgICAgICAgICAgICAgICAg): replicas agree",
    ]
    assert r.err.splitlines() == [
        "b1/orders-0: replica-topic-ids [info]: the replicas of orders-0 name 2 topic ids "
        "(AQEBAQEBAQEBAQEBAQEBAQ in b1; AgICAgICAgICAgICAgICAg in b2, b3): different "
        "partitions of a topic made again under its name, each compared only with the "
        "replicas of its own topic id; b4 with no partition.metadata, told from none, each "
        "alone",
        "compare-replicas: 3 partitions: 1 agree, 0 lagging, 0 diverged, 2 with one replica, "
        "0 damaged; 1267 bytes read"]


def test_a_replica_without_partition_metadata_joins_the_one_topic_id(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    incarnations(tmp_path)
    r = kdump("compare-replicas", "--format", "json", "b2", "b3", "b4", cwd=tmp_path)
    assert r.rc == 0
    comps = [o for o in _objs(r.out) if o["type"] == "partition_comparison"]
    assert [(c["status"], c["topic_id"], [x["joined"] for x in c["replicas"]])
            for c in comps] == [("agree", "AgICAgICAgICAgICAgICAg", [
                "orders-0 in b2: cluster.id kdump-test-cluster, topic id AgICAgICAgICAgICAgICAg",
                "orders-0 in b3: cluster.id kdump-test-cluster, topic id AgICAgICAgICAgICAgICAg",
                "orders-0 in b4: cluster.id kdump-test-cluster, no partition.metadata: the one "
                "topic id its cluster's replicas of orders-0 name (AgICAgICAgICAgICAgICAg)"])]


def test_group_replicas_rule() -> None:
    """The rule on identities alone: cluster first (a log dir naming none joins the only
    one named), then name, then topic id."""
    ids = [Identity("t", 0, "A", None, "x"), Identity("t", 0, None, None, "y"),
           Identity("t", 1, "A", None, "x"), Identity("t", 0, "A", "id1", "z")]
    groups, notes = group_replicas(ids, lambda i: i)
    assert [(g.key.name, g.cluster_id, g.topic_id, [m.log_dir for m in g.members])
            for g in groups] == [("t-0", "A", "id1", ["x", "y", "z"]), ("t-1", "A", None, ["x"])]
    assert notes == []
    groups, _ = group_replicas([*ids, Identity("t", 0, "B", None, "w")], lambda i: i)
    # two clusters named: y (none) is of neither
    assert [(g.label, [m.log_dir for m in g.members]) for g in groups] == [
        ("t-0 (no named cluster)", ["y"]), ("t-0 (cluster A)", ["x", "z"]),
        ("t-0 (cluster B)", ["w"]), ("t-1", ["x"])]


@pytest.mark.skipif(not (CORPUS / "kafka2-logdir").is_dir(), reason="../shared/corpus is absent")
def test_the_real_kafka2_corpus_shows_no_divergence(kdump: KdumpRunner) -> None:
    r = kdump("compare-replicas", "--format", "json", "kafka2-logdir", cwd=CORPUS,
              watch=[CORPUS / "kafka2-logdir"])
    # one broker's log dir: every partition compared with none, then exit 2 (usage)
    assert (r.rc, r.err.splitlines()) == (2, [
        "compare-replicas: the inputs hold one broker's log dir only: give two or more "
        "brokers' log dirs (or partition directories) to compare"])
    objs = _objs(r.out)
    comps = [o for o in objs if o["type"] == "partition_comparison"]
    assert len(comps) == 54
    assert {(c["status"], c["cluster_id"], c["topic_id"]) for c in comps} == {
        ("single", "lRaQCIBoRh2xRKLuP9CAQg", None)}
    assert all(c["partition"] == c["replicas"][0]["path"].split("/")[-1] for c in comps)
    assert objs[-1]["diverged"] == 0 and objs[-1]["only_one_replica"] == 54


def test_size_report_counts_each_cluster_and_incarnation_apart(kdump: KdumpRunner,
                                                                tmp_path: Path) -> None:
    """--by topic counts a partition once per replica group: two clusters' orders-0 are two
    partitions of replication factor 1 (it said one partition, replicated twice)."""
    two_clusters(tmp_path / "c")
    r = kdump("size-report", "--by", "topic", "--format", "json", "a", "b", cwd=tmp_path / "c")
    objs = _objs(r.out)
    assert [(o.get("topic"), o["records"], o["partitions"], o["replicas"],
             o.get("replication_factor")) for o in objs] == [
        ("__cluster_metadata", 2, 2, 2, 1), ("orders", 10, 2, 2, 1), (None, 12, 4, 4, None)]
    incarnations(tmp_path / "i")
    r = kdump("size-report", "--by", "topic", "--format", "json", "b1", "b2", "b3", "b4",
              cwd=tmp_path / "i")
    objs = _objs(r.out)
    # the older id (5 records, broker 1), the newer (20, brokers 2-3), broker 4's alone (20)
    assert [(o.get("topic"), o["records"], o["partitions"], o["replicas"],
             o.get("replication_factor")) for o in objs] == [
        ("orders", 45, 3, 4, 2), (None, 45, 3, 4, None)]


def test_lag_reads_each_cluster_apart(kdump: KdumpRunner, tmp_path: Path) -> None:
    """Clusters A and B, each node 1 alone, each with its own __consumer_offsets-7 and
    orders-0: group "app" of A is 25 behind A's log, "app" of B 3 behind B's (one row
    merged from both clusters before: B's newer commit against A's log end)."""
    ts = 1_700_000_000_000
    for name, commit, n in (("a", 15, 40), ("b", 2, 5)):
        d = tmp_path / name
        d.mkdir()
        (d / "meta.properties").write_bytes(w.meta_properties({
            "version": "1", "node.id": "1", "cluster.id": f"cluster{name.upper()}"}))
        w.write_replica(d / "__consumer_offsets-7", [w.v2_batch([w.Rec(
            w.offset_commit_key("app", "orders", 0),
            w.offset_commit_value_v3(commit, ts + (name == "b")))], base_offset=0)])
        w.write_replica(d / "orders-0", w.replica_batches([(0, n, 0)]))
    r = kdump("lag", "--format", "json", "a", "b", cwd=tmp_path)
    assert r.rc == 0, r.err
    objs = _objs(r.out)
    assert [(o["path"], o["replicas"]) for o in objs if o["type"] == "offsets_source"] == [
        ("a/__consumer_offsets-7", 1), ("b/__consumer_offsets-7", 1)]
    assert [(o["group"], o["committed_offset"], o["log_end_offset"], o["lag"],
             o["log_end_offset_from"]["path"]) for o in objs if o["type"] == "lag"] == [
        ("app", 15, 40, 25, "a/orders-0"), ("app", 2, 5, 3, "b/orders-0")]


def test_report_activity_counts_each_cluster(kdump: KdumpRunner, tmp_path: Path) -> None:
    """The report's activity adds each cluster's orders-0 (5 records each) and metadata log
    (1 each): replicas of one partition never add up, partitions of two clusters do (it
    kept one of them)."""
    two_clusters(tmp_path)
    r = kdump("report", "--format", "json", "a", "b", cwd=tmp_path)
    objs = _objs(r.out)
    assert [(o["topic"], o["records"]) for o in objs if o["type"] == "activity"] == [
        ("__cluster_metadata", 2), ("orders", 10)]
    assert [(o["partition"], o["cluster_id"], o["status"]) for o in objs
            if o["type"] == "partition_comparison"] == [
        ("__cluster_metadata-0", "clusterAAAAAAAAAAAAAAA", "single"),
        ("__cluster_metadata-0", "clusterBBBBBBBBBBBBBBB", "single"),
        ("orders-0", "clusterAAAAAAAAAAAAAAA", "single"),
        ("orders-0", "clusterBBBBBBBBBBBBBBB", "single")]


def test_a_log_dir_naming_no_cluster_is_one_node_twice_with_its_namesake(
        kdump: KdumpRunner, tmp_path: Path) -> None:
    """``old`` names broker.id 1 and no cluster.id (so is of the only cluster named, the
    test cluster); b1 is node 1 of that cluster too and both hold orders-0: one node twice,
    as when both name the cluster, never compared as two replicas."""
    for b in (1, 2):
        d = w.broker_logdir(tmp_path / f"b{b}", b)
        w.write_replica(d / "orders-0", w.replica_batches([(0, 10, 0)]))
    _zk_broker(tmp_path / "old", 1, [("orders", 0)])
    r = kdump("compare-replicas", "--format", "json", "old", "b1", "b2", cwd=tmp_path)
    objs = _objs(r.out)
    assert [(o["kind"], o["file"]) for o in objs if o["type"] == "problem"] == [
        ("node-twice", "old")]
    assert "both claim node 1 of cluster kdump-test-cluster" in objs[0]["detail"]
    assert sorted((c["status"], tuple(x["log_dir"] for x in c["replicas"])) for c in objs
                  if c["type"] == "partition_comparison") == [
        ("single", ("b1",)), ("single", ("b2",)), ("single", ("old",))]


def test_identity_of_log_dirs_and_topic_ids(tmp_path: Path) -> None:
    from kdump.ops.replica_groups import log_dir_identity, same_cluster, topic_id_of

    zk = _zk_broker(tmp_path / "zk", 3, [("t", 0)])
    (zk / "t-0" / "partition.metadata").write_bytes(w.partition_metadata(b"\x00" * 16))
    assert topic_id_of(str(zk / "t-0")) is None  # the zero id: Kafka refuses it
    (zk / "t-0" / "partition.metadata").write_bytes(w.partition_metadata(b"\x01" * 16))
    assert topic_id_of(str(zk / "t-0")) == "AQEBAQEBAQEBAQEBAQEBAQ"
    a = log_dir_identity(str(zk))
    assert (a.cluster_id, a.node_id, a.node_key, a.meta_version, a.why) == (
        None, 3, "broker.id", 0, f"{zk}/meta.properties names no cluster.id")
    b = log_dir_identity(str(_zk_broker(tmp_path / "zk4", 4, [])))
    assert same_cluster(a, b) == (True, "neither names a cluster.id (ZooKeeper brokers before "
                                        "2.4 wrote none): taken as one cluster")
    k = log_dir_identity(str(tmp_path / "nothing"))
    assert (k.node_id, k.meta_version, k.why) == (
        None, None, f"{tmp_path / 'nothing'}/meta.properties: no such file")


def test_offsets_summary_replays_each_clusters_partition(kdump: KdumpRunner,
                                                         tmp_path: Path) -> None:
    """dump --summary over two clusters' __consumer_offsets-7: two partitions, each
    replayed (it replayed one and skipped the other as a replica of it)."""
    for name in ("a", "b"):
        d = tmp_path / name
        d.mkdir()
        (d / "meta.properties").write_bytes(w.meta_properties({
            "version": "1", "node.id": "1", "cluster.id": f"cluster{name.upper()}"}))
        w.write_replica(d / "__consumer_offsets-7", [w.v2_batch([w.Rec(
            w.offset_commit_key(f"app-{name}", "orders", 0),
            w.offset_commit_value_v3(3, 1_700_000_000_000))], base_offset=0)])
    r = kdump("dump", "--summary", "--format", "json", "a", "b", cwd=tmp_path)
    objs = _objs(r.out)
    assert (objs[-1]["partitions"], objs[-1]["skipped_replicas"]) == (2, [])
    assert [(o["group"], o["offset"]) for o in objs if o["type"] == "committed_offset"] == [
        ("app-a", 3), ("app-b", 3)]


def test_topic_ids_read_only_where_they_can_matter() -> None:
    """size-report, dump --summary and the report pass ``topic_id``: it is asked only for
    members whose cluster holds another replica of their name."""
    asked: list[str] = []

    def tid(i: Identity) -> str | None:
        asked.append(i.log_dir)
        return {"x": "id1", "y": "id2"}.get(i.log_dir)

    ids = [Identity("t", 0, "A", None, "x"), Identity("t", 0, "A", None, "y"),
           Identity("t", 1, "A", None, "x"), Identity("t", 0, "B", None, "z")]
    groups, notes = group_replicas(ids, lambda i: i, tid)
    assert sorted(asked) == ["x", "y"]
    assert [(g.label, [m.log_dir for m in g.members]) for g in groups] == [
        ("t-0 (cluster A, topic id id1)", ["x"]), ("t-0 (cluster A, topic id id2)", ["y"]),
        ("t-0 (cluster B)", ["z"]), ("t-1", ["x"])]
    assert [n.kind for n in notes] == ["replica-topic-ids"]


@pytest.mark.parametrize("shape", ["zookeeper-three", "two-clusters"])
@pytest.mark.parametrize("command", ["verify-crc", "verify-index", "size-report",
                                     "compare-replicas", "lag", "report"])
def test_every_command_calls_these_shapes_clean(kdump: KdumpRunner, tmp_path: Path,
                                                shape: str, command: str) -> None:
    """Issue 46 What 6's replica rows: three ZooKeeper-era brokers each holding other
    partitions, and two clusters sharing a node id, are healthy: exit 0 in every command
    and no replica finding anywhere."""
    if shape == "zookeeper-three":
        zk_three(tmp_path)
        dirs = ["kafka-1", "kafka-2", "kafka-3"]
    else:
        two_clusters(tmp_path)
        dirs = ["a", "b"]
    extra = ["--format", "json"] if command in ("report", "compare-replicas", "lag") else []
    r = kdump(command, *extra, *dirs, cwd=tmp_path)
    assert r.rc == 0, (r.out, r.err)
    text = r.out + r.err
    for bad in ('"diverged":true', "replicas diverge", "replica-diverged", "replica-lagging",
                "node-twice", "replica-topic-ids"):
        assert bad not in text, bad


def test_report_cluster_section_shows_each_cluster_apart(kdump: KdumpRunner,
                                                          tmp_path: Path) -> None:
    """Two clusters' metadata logs are never replicas: the cluster section shows each
    cluster's own image (a cluster_image object before each) and an info note names
    both; exit 0."""
    two_clusters(tmp_path)
    r = kdump("report", "--format", "json", "a", "b", cwd=tmp_path)
    assert r.rc == 0
    objs = _objs(r.out)
    notes = [o for o in objs if o["type"] == "problem" and o["kind"] == "several-clusters"]
    assert [(n["file"], n["severity"], n["detail"]) for n in notes] == [(
        "a/__cluster_metadata-0", "info",
        "the inputs hold the metadata logs of 2 clusters: cluster clusterAAAAAAAAAAAAAAA "
        "(a/__cluster_metadata-0); cluster clusterBBBBBBBBBBBBBBB (b/__cluster_metadata-0). "
        "Never replicas of each other: each is shown apart, and every section keeps them "
        "apart")]
    assert [(o["cluster_id"], o["metadata_dir"]) for o in objs if o["type"] == "cluster_image"] \
        == [("clusterAAAAAAAAAAAAAAA", "a/__cluster_metadata-0"),
            ("clusterBBBBBBBBBBBBBBB", "b/__cluster_metadata-0")]
    assert len([o for o in objs if o["type"] == "image"]) == 2


def test_an_older_run_under_other_topic_ids_is_one_note(kdump: KdumpRunner,
                                                        tmp_path: Path) -> None:
    """``old`` (node 3, an earlier run of the cluster) holds orders-0 and orders-1 under
    other topic ids than brokers 1 and 2 (seen on a real cluster reusing its volumes): one
    note for both partitions, each incarnation compared apart."""
    for b, tid in ((1, b"\x02" * 16), (2, b"\x02" * 16), (3, b"\x01" * 16)):
        d = w.broker_logdir(tmp_path / ("old" if b == 3 else f"b{b}"), b)
        for p in (0, 1):
            w.write_replica(d / f"orders-{p}", w.replica_batches([(0, 5, 0)], tag=f"t{tid[0]}"))
            (d / f"orders-{p}" / "partition.metadata").write_bytes(w.partition_metadata(tid))
    r = kdump("compare-replicas", "b1", "b2", "old", cwd=tmp_path)
    assert r.rc == 0, r.out
    assert r.err.splitlines() == [
        "b1/orders-0: replica-topic-ids [info]: the replicas of 2 partitions name other "
        "topic ids in b1, b2 than in old (e.g. orders-0: AQEBAQEBAQEBAQEBAQEBAQ in old; "
        "AgICAgICAgICAgICAgICAg in b1, b2): different partitions of a topic made again under "
        "its name, each compared only with the replicas of its own topic id",
        "compare-replicas: 4 partitions: 2 agree, 0 lagging, 0 diverged, 2 with one replica, "
        "0 damaged; 726 bytes read"]
