"""Stopped or failing (issue 32): a cluster copied after it was stopped is said to be
stopped, as information, with the partitions its stop left without a leader; partitions
without a leader while another broker runs are errors.  ``kdump metadata`` (text, JSON,
table) and ``kdump report`` (the glance box, the Errors / Warnings cards and the
findings list, which count one list) over the log dirs of tests/support/cluster_fixtures.py."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from kdump.metadata import Replay, Target, find_sources
from tests.conftest import KdumpRunner
from tests.support import cluster_fixtures as cf
from tests.support import writer as w

#: the fence's time: 80 ms after the controlled shutdown
STOP_TS = cf.STOP_TS + 80
STOP_TEXT = ("the cluster was stopped at 2023-11-14T23:13:20.080Z (broker 1 fenced at "
             f"offset {cf.FENCE_OFFSET})")
STOP_FINDING = STOP_TEXT + ": 3 partitions without a leader follow from the stop, not a fault"
FENCED_FINDINGS = [
    ("broker-fenced", "warning",
     "broker 3 fenced at offset 17 (2023-11-14T23:13:20.000Z) while brokers 1, 2 are unfenced"),
    ("partition-offline", "error",
     "solo-0 has no leader (leader -1; replicas [3], ISR [3]) while brokers 1, 2 are unfenced"),
    *[("partition-under-replicated", "warning",
       f"orders-{p}: ISR [1,2] of replicas [1,2,3] (leader {leader})")
      for p, leader in ((0, 1), (1, 2), (2, 1))],
]


def _objs(out: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.splitlines()]


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def _glance(page: str) -> list[str]:
    box = page[page.index("At a glance"):page.index('<section id="custody">')]
    return [_text(li) for li in re.findall(r"<li>.*?</li>", box, re.S)]


def _card(page: str, name: str) -> str:
    m = re.search(rf'<div class="k">{name}</div><div class="v"[^>]*>([^<]*)<', page)
    assert m, name
    return m.group(1)


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return cf.stopped_logdir(tmp_path_factory.mktemp("stopped"))


@pytest.fixture(scope="module")
def fenced(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return cf.fenced_cluster(tmp_path_factory.mktemp("fenced"))


# ----------------------------------------------------------------------- kdump metadata


def test_metadata_says_the_stop_in_text_json_and_table(kdump: KdumpRunner, stopped: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    r = kdump("metadata", str(stopped), "--format", "text", watch=[stopped])
    assert r.rc == 0, r.err
    lines = r.out.splitlines()
    assert lines[-7:] == [
        "/image/cluster_state stopped",
        "/image/stopped/timestamp 1700003600080",
        f"/image/stopped/offset {cf.FENCE_OFFSET}",
        "/image/stopped/broker 1",
        "/image/stopped/how fenced",
        f"/image/stopped/text {STOP_TEXT}",
        "/image/partitions_without_leader 3"]
    # said once more as information (stderr, as every finding in text)
    assert r.err == f"{stopped / '__cluster_metadata-0'}: cluster-stopped [info]: {STOP_FINDING}\n"

    j = kdump("metadata", str(stopped), "--format", "json")
    assert j.rc == 0, j.err
    objs = _objs(j.out)
    image = next(o for o in objs if o["type"] == "image")
    assert (image["cluster_state"], image["stopped"], image["partitions_without_leader"]) == (
        "stopped", {"timestamp": STOP_TS, "offset": cf.FENCE_OFFSET, "broker": 1,
                    "how": "fenced", "text": STOP_TEXT}, 3)
    problems = [o for o in objs if o["type"] == "problem"]
    assert [(p["kind"], p["severity"], p["detail"], p["broker"], p["offset"],
             p["partitions_without_leader"]) for p in problems] == [
        ("cluster-stopped", "info", STOP_FINDING, 1, cf.FENCE_OFFSET, 3)]

    monkeypatch.setenv("COLUMNS", "250")
    t = kdump("metadata", str(stopped), "--format", "table")
    assert t.rc == 0, t.err
    assert re.search(r"│ cluster state +│ stopped +│", t.out)
    assert re.search(r"│ stopped +│ timestamp=1700003600080, offset=12, broker=1, how=fenced, "
                     r"text=the cluster was stopped at 2023-11-14T23:13:20\.080Z \(broker 1 "
                     r"fenced at offset 12\) +│", t.out)
    assert re.search(r"│ partitions without leader +│ 3 +│", t.out)



def test_metadata_stopped_by_controlled_shutdown_before_the_fence(kdump: KdumpRunner,
                                                                  stopped: Path) -> None:
    """The last records show a controlled shutdown (the controller stopped before it
    wrote the fence): stopped too, dated by the shutdown record."""
    r = kdump("metadata", str(stopped), "--at-offset", str(cf.FENCE_OFFSET - 1), "--format", "json")
    assert r.rc == 0, r.err
    image = next(o for o in _objs(r.out) if o["type"] == "image")
    text = ("the cluster was stopped at 2023-11-14T23:13:20.000Z (broker 1 in controlled "
            f"shutdown at offset {cf.SHUTDOWN_OFFSET})")
    assert image["stopped"] == {"timestamp": cf.STOP_TS, "offset": cf.SHUTDOWN_OFFSET,
                                "broker": 1, "how": "in controlled shutdown", "text": text}
    assert image["partitions_without_leader"] == 3
    # before the shutdown the cluster runs, every partition led
    r = kdump("metadata", str(stopped), "--at-offset", str(cf.SHUTDOWN_OFFSET - 1),
              "--format", "json")
    assert r.rc == 0, r.err
    objs = _objs(r.out)
    image = next(o for o in objs if o["type"] == "image")
    assert (image["cluster_state"], image["stopped"], image["partitions_without_leader"]) == (
        "running", None, 0)
    assert [o for o in objs if o["type"] == "problem"] == []


def test_fence_broker_record_of_older_releases_stops_too(tmp_path: Path) -> None:
    """Before metadata.version 3.3-IV2 the controller fences with FenceBrokerRecord
    (ReplicationControlManager.handleBrokerFenced, 3.9)."""
    d = tmp_path / "__cluster_metadata-0"
    ml = w.MetadataLogWriter(d)
    ml.append([w.metadata_record("FeatureLevelRecord", {"name": "metadata.version",
                                                        "featureLevel": 6}),
               w.metadata_record("RegisterBrokerRecord", {
                   "brokerId": 4, "incarnationId": w.uuid_of(1), "brokerEpoch": 7,
                   "endPoints": [], "rack": None, "fenced": True}, version=0),
               w.metadata_record("UnfenceBrokerRecord", {"id": 4, "epoch": 7})], timestamp=5000)
    ml.append([w.metadata_record("FenceBrokerRecord", {"id": 4, "epoch": 7})], timestamp=9000)
    ml.close()
    r = Replay(find_sources(str(d)), Target()).run()
    h = r.health()
    assert (h.state, h.stop_broker, h.stop_how, h.stop_offset, h.stop_timestamp) == (
        "stopped", 4, "fenced", 3, 9000)
    assert h.stop_text == ("the cluster was stopped at 1970-01-01T00:00:09.000Z (broker 4 "
                           "fenced at offset 3)")


def test_metadata_partition_without_leader_while_brokers_run_is_an_error(
        kdump: KdumpRunner, fenced: list[Path]) -> None:
    b1 = fenced[0]
    r = kdump("metadata", str(b1), "--format", "json")
    assert r.rc == 1, r.err  # a partition without a leader while the cluster runs
    objs = _objs(r.out)
    image = next(o for o in objs if o["type"] == "image")
    assert (image["cluster_state"], image["stopped"], image["partitions_without_leader"]) == (
        "running", None, 1)
    # kdump metadata names the partitions without a leader; the fenced broker and the
    # ISRs are in its objects (the report counts them as warnings)
    assert [(o["kind"], o["severity"], o["detail"]) for o in objs if o["type"] == "problem"] \
        == [f for f in FENCED_FINDINGS if f[0] == "partition-offline"]
    t = kdump("metadata", str(b1))
    assert t.rc == 1
    assert t.err == (f"{b1 / '__cluster_metadata-0'}: partition-offline: "
                     f"{FENCED_FINDINGS[1][2]}\n")


# ----------------------------------------------------------------------- kdump report


def test_report_of_a_stopped_broker_holds_no_alarm(kdump: KdumpRunner, stopped: Path,
                                                   tmp_path: Path) -> None:
    j = kdump("report", str(stopped), "--format", "json", watch=[stopped])
    assert j.rc == 0, j.err
    objs = _objs(j.out)
    assert [(o["kind"], o["severity"], o["detail"]) for o in objs if o["type"] == "problem"] \
        == [("cluster-stopped", "info", STOP_FINDING)]
    end = objs[-1]
    assert (end["errors"], end["warnings"], end["infos"], end["clean"]) == (0, 0, 1, True)

    out = tmp_path / "stopped.html"
    r = kdump("report", str(stopped), "-o", str(out), watch=[stopped])
    assert r.rc == 0, r.err
    page = out.read_text(encoding="utf-8")
    assert _glance(page) == [f"info {STOP_FINDING}"]
    assert (_card(page, "Errors"), _card(page, "Warnings")) == ("0", "0")
    assert 'id="verdict">clean<' in page
    findings = page[page.index('<section id="findings">'):page.index('<section id="groups">')]
    assert "<h3>Errors" not in findings and "<h3>Warnings" not in findings
    assert "<h3>Infos (1)</h3>" in findings and STOP_FINDING in findings
    cluster = _text(page[page.index('<section id="cluster">'):page.index('<section id="data">')])
    assert f"Cluster stopped {STOP_TEXT}; its partitions without a leader (3) follow from the " \
        "stop" in cluster
    # the partitions the stop left without a leader: marked stopped, not offline
    for name in ("__consumer_offsets 0", "orders 0", "orders 1"):
        assert f" {name} none 1 1 1 1 – – stopped " in cluster, name
    assert "offline" not in cluster
    assert 'badge error' not in page  # the fence in the history is the stop: information


def test_report_of_a_cluster_with_a_fenced_broker(kdump: KdumpRunner, fenced: list[Path],
                                                  tmp_path: Path) -> None:
    paths = [str(p) for p in fenced]
    j = kdump("report", *paths, "--format", "json", watch=fenced)
    assert j.rc == 1, j.err
    objs = _objs(j.out)
    assert [(o["kind"], o["severity"], o["detail"]) for o in objs
            if o["type"] == "problem"] == FENCED_FINDINGS
    assert (objs[-1]["errors"], objs[-1]["warnings"], objs[-1]["clean"]) == (1, 4, False)

    out = tmp_path / "fenced.html"
    r = kdump("report", *paths, "-o", str(out), watch=fenced)
    assert r.rc == 1, r.err
    page = out.read_text(encoding="utf-8")
    # one line per kind of finding, its count: the errors add up to the Errors card, the
    # warnings to the Warnings card, and both to the findings list
    assert _glance(page) == [
        "error 1 partition without a leader while the cluster runs",
        "warning 3 partitions under-replicated",
        "warning 1 broker fenced or shutting down while the cluster runs: 3"]
    assert (_card(page, "Errors"), _card(page, "Warnings")) == ("1", "4")
    assert 'id="verdict">problems<' in page
    findings = page[page.index('<section id="findings">'):page.index('<section id="groups">')]
    assert "<h3>Errors (1)</h3>" in findings and "<h3>Warnings (4)</h3>" in findings
    assert findings.count('<tr class="sev-error finding">') == 1
    assert findings.count('<tr class="sev-warning finding">') == 4
    assert _text(findings).startswith("4 · Findings problems found 1 error, 4 warnings, 0 info.")
    cluster = _text(page[page.index('<section id="cluster">'):page.index('<section id="data">')])
    assert "Cluster running (a registered broker is unfenced)" in cluster
    assert " solo 0 none 1 1 3 3 – – offline " in cluster
    assert " orders 2 1 1 1 1, 2, 3 1, 2 – – under-replicated " in cluster
