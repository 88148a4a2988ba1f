"""kdump report over log dirs of two clusters (issue 46): the cluster section shows each
cluster's own metadata image, apart; the topic table counts one cluster's topic apart
from the other's of the same name; every data row names its cluster."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from tests.conftest import KdumpRunner
from tests.support import writer as w

TS = 1_700_000_000_000


def _cluster_logdir(root: Path, cluster: str, records: int, brokers: list[int],
                    stopped: bool = False) -> Path:
    """Broker 1 of ``cluster``: orders-0 with ``records`` records, and the metadata log
    registering ``brokers`` and the topic orders (one partition on broker 1); ``stopped``:
    then every broker fenced, a second later (the cluster stopped)."""
    ld = root / cluster
    ld.mkdir(parents=True)
    (ld / "meta.properties").write_bytes(w.meta_properties(
        {"version": "1", "node.id": "1", "cluster.id": cluster}))
    (ld / "replication-offset-checkpoint").write_bytes(
        w.offset_checkpoint([("orders", 0, records)]))
    pw = w.PartitionWriter(ld / "orders-0")
    for o in range(0, records, 5):
        pw.append(w.v2_batch(w.numbered_records(o, 5), base_offset=o))
    pw.close()
    lw = w.MetadataLogWriter(ld / "__cluster_metadata-0")
    tid = w.uuid_of(len(cluster))
    lw.append([*(w.metadata_record("RegisterBrokerRecord", {
        "brokerId": b, "incarnationId": w.uuid_of(10 + b), "brokerEpoch": 5,
        "endPoints": [], "rack": None, "fenced": False}, version=0) for b in brokers),
        w.metadata_record("TopicRecord", {"name": "orders", "topicId": tid}),
        w.metadata_record("PartitionRecord", {
            "partitionId": 0, "topicId": tid, "replicas": [1], "isr": [1], "leader": 1,
            "leaderEpoch": 0, "partitionEpoch": 0})], timestamp=TS)
    if stopped:
        lw.append([w.metadata_record("BrokerRegistrationChangeRecord", {
            "brokerId": b, "brokerEpoch": 5, "fenced": 1}) for b in brokers],
            timestamp=TS + 1000)
    lw.close()
    return ld


def _text(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", fragment))).strip()


def test_two_clusters_are_kept_apart(kdump: KdumpRunner, tmp_path: Path) -> None:
    a = _cluster_logdir(tmp_path, "alpha", 10, [1])
    b = _cluster_logdir(tmp_path, "beta", 20, [1, 2])
    r = kdump("report", a, b, "--format", "json")
    objs: list[dict[str, Any]] = [json.loads(x) for x in r.out.splitlines()]
    assert [(o["cluster_id"], Path(o["metadata_dir"]).parent.name) for o in objs
            if o["type"] == "cluster_image"] == [("alpha", "alpha"), ("beta", "beta")]
    assert [o["brokers"] for o in objs if o["type"] == "image"] == [1, 2]
    assert [(Path(o["log_dir"]).name, o["cluster_id"], o["broker_id"]) for o in objs
            if o["type"] == "log_dir"] == [("alpha", "alpha", 1), ("beta", "beta", 1)]
    [note] = [o for o in objs if o["type"] == "problem" and o["kind"] == "several-clusters"]
    assert note["severity"] == "info"
    assert note["detail"] == (f"the inputs hold the metadata logs of 2 clusters: cluster alpha "
                              f"({a / '__cluster_metadata-0'}); cluster beta "
                              f"({b / '__cluster_metadata-0'}). Never replicas of each other: "
                              "each is shown apart, and every section keeps them apart")

    out = tmp_path / "two.html"
    r = kdump("report", a, b, "-o", out)
    assert r.rc == 0, r.err
    page = out.read_text(encoding="utf-8")
    cluster = page[page.index('<section id="cluster">'):page.index('<section id="data">')]
    heads = re.findall(r'<h3 class="cluster-head" id="(cluster[-0-9]*)">(.*?)</h3>', cluster)
    assert [(i, _text(h).split(" ")[:2]) for i, h in heads] == [
        ("cluster", ["Cluster", "alpha"]), ("cluster-2", ["Cluster", "beta"])]
    # each cluster's own brokers: one in alpha, two in beta
    assert 'id="m-brokers"' in cluster and 'id="m-brokers-2"' in cluster

    def broker_ids(table_id: str) -> list[str]:
        t = cluster[cluster.index(f'id="{table_id}"'):]
        t = t[:t.index("</table>")]
        return re.findall(r'<tr><td class="num">(\d+)</td>', t)

    assert (broker_ids("m-brokers"), broker_ids("m-brokers-2")) == (["1"], ["1", "2"])
    data = page[page.index('<section id="data">'):]
    topics = data[data.index('id="topics"'):]
    topics = topics[:topics.index("</table>")]
    rows = [_text(x) for x in re.findall(r"<tr><td>(.*?)</tr>", topics)]
    # one row per cluster's orders, its own records (not the fuller of the two clusters')
    assert [x.split(" ")[:4] for x in rows] == [["orders", "beta", "1", "1"],
                                               ["orders", "alpha", "1", "1"]]
    assert [x.split(" ")[4] for x in rows] == ["20", "10"]
    assert "<th>Cluster</th>" in data


def test_the_glance_names_the_cluster_that_stopped(kdump: KdumpRunner, tmp_path: Path) -> None:
    """With two clusters given, "the cluster was stopped" says which one (the glance box
    names no section); with one, it reads as before."""
    a = _cluster_logdir(tmp_path, "alpha", 10, [1])
    b = _cluster_logdir(tmp_path, "beta", 20, [1, 2], stopped=True)

    def glance(*logdirs: Path) -> list[str]:
        out = tmp_path / "glance.html"
        r = kdump("report", *logdirs, "-o", out)
        assert r.rc in (0, 1), r.err
        page = out.read_text(encoding="utf-8")
        box = page[page.index('<div class="highlights">'):]
        return [_text(x) for x in re.findall(r"<li>(.*?)</li>", box[:box.index("</div>")])]

    stop = "the cluster was stopped at 2023-11-14T22:13:21.000Z (broker 2 fenced at offset 5)"
    assert f"info cluster beta: {stop}" in glance(a, b)
    assert f"info {stop}" in glance(b)
