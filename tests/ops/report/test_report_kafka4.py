"""``kdump report`` over a Kafka 4.x log dir (issue #25): the schema-registry section,
consumer / share / streams groups, cordoned log dirs and ClearElr in the cluster section;
the JSON model checked field by field and the page opened in headless Chromium.  The
fixture is tests/support/report_fixture.py (written with the project's writers)."""

from __future__ import annotations

import json
import re
import subprocess
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from kdump.model import METADATA_SCHEMA, SCHEMA, fields_of
from tests.conftest import KdumpRunner
from tests.support import report_fixture as fx

pytest.importorskip("fastavro", reason="the schemas extra writes the registry's topics")
pytest.importorskip("grpc_tools", reason="the schemas extra writes the registry's topics")


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fx.kafka4_logdir(tmp_path_factory.mktemp("kafka4"))


def _sections(out: str) -> dict[str, list[dict[str, Any]]]:
    by: dict[str, list[dict[str, Any]]] = {}
    name = ""
    for line in out.splitlines():
        o = json.loads(line)
        if o["type"] == "section":
            name = o["name"]
        by.setdefault(name, []).append(o)
    return by


#: the report's findings beyond the checks (all warnings: exit 1), in stream order
FINDINGS = [
    ("cluster", "broker-fenced", "broker 2 fenced at offset 2 (2023-11-14T22:13:20.000Z) while "
     "broker 1 is unfenced"),
    *[("cluster", "partition-under-replicated", f"{p}: ISR [1] of replicas [1,2] (leader 1)")
      for p in ("events-0", "orders-0", "payments-0", "payments-1", "users-0")],
    ("transactions", "hanging-transaction", "payments-1: producer 4001 (epoch 2) opened a "
     "transaction at offset 200, 20 minutes before the partition's last batch, and no marker "
     "closes it"),
    ("schemas", "schema-deleted-in-use", "schema id 6 (old-value version 1, soft-deleted) is "
     "named by 1 record key or value"),
    ("schemas", "schema-deleted-in-use", "schema id 7 (gone-value version 1, hard-deleted) is "
     "named by 1 record key or value"),
    ("schemas", "schema-id-unknown", "topic legacy: 1 record value names schema id 99 (1), "
     "which the registry's storage does not hold"),
]


def test_kafka4_report_json(kdump: KdumpRunner, logdir: Path) -> None:
    r = kdump("report", str(logdir), "--format", "json", watch=[logdir])
    assert r.rc == 1, r.err  # FINDINGS, all warnings
    by = _sections(r.out)
    assert list(by) == ["", "custody", "cluster", "data", "findings", "groups", "transactions",
                        "schemas", "retention", "timeline"]
    for name, objs in by.items():
        for o in objs:  # every object documented in kdump/model.py
            schema = METADATA_SCHEMA if name == "cluster" and o["type"] in METADATA_SCHEMA \
                else SCHEMA
            assert o["type"] in schema, o["type"]
            names = [f.name.rstrip("?") for f in fields_of(o["type"], schema)]
            assert set(o) - {"type"} <= set(names), o

    schemas = [(o["subject"], o["id"], o["schema_type"], o["deleted"], o["value_records"])
               for o in by["schemas"] if o["type"] == "schema"]
    assert schemas == [("address", 1, "AVRO", None, 0), ("events-value", 4, "PROTOBUF", None, 3),
                       ("gone-value", 7, "AVRO", "hard", 1), ("money", 3, "PROTOBUF", None, 0),
                       ("old-value", 6, "AVRO", "soft", 1), ("orders-value", 2, "AVRO", None, 3),
                       ("users-value", 5, "JSON", None, 1)]
    keys = {o["id"]: o["key_records"] for o in by["schemas"] if o["type"] == "schema"}
    assert keys == {1: 2, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0}
    refs = {o["subject"]: o["references"] for o in by["schemas"] if o["type"] == "schema"}
    assert refs["orders-value"] == [{"name": "shop.Address", "subject": "address", "version": 1}]
    usage = {o["topic"]: (o["records"], o["keys"], o["values"], o["unknown_ids"], o["not_framed"])
             for o in by["schemas"] if o["type"] == "schema_usage"}
    # legacy: id 99 named by a header is unknown; the value that only looks framed with 99
    # (no legacy-value subject, no value the registry's ids frame) is not framed
    assert usage == {"events": (3, [], [[4, 3]], [], 0), "gone": (1, [], [[7, 1]], [], 0),
                     "legacy": (3, [[1, 2]], [], [[99, 1]], 2),
                     "old": (1, [], [[6, 1]], [], 0), "orders": (3, [], [[2, 3]], [], 0),
                     "payments": (402, [], [], [], 402), "users": (1, [], [[5, 1]], [], 0)}

    groups = {o["group"]: o for o in by["groups"] if o["type"] == "group"}
    assert {g: o["group_type"] for g, o in groups.items()} == {
        "audit": "share", "fraud-check": "consumer", "order-enricher": "streams"}
    assert groups["fraud-check"]["subscribed_topic_regexes"] == ["pay.*"]
    m1 = groups["fraud-check"]["group_members"][0]
    assert m1["member_id"] == "m-1" and m1["assignment"] == [
        {"topic_id": fx.PAYMENTS, "topic": "payments", "partitions": [0, 1]}]
    subs = groups["order-enricher"]["topology"]["subtopologies"]
    assert [(s["subtopology_id"], s["source_topics"], s["repartition_source_topics"])
            for s in subs] == [("0", ["orders"], []), ("1", [], ["order-enricher-repartition"])]
    shares = [(o["group"], o["topic"], o["partition"], o["start_offset"], o["state_epoch"],
               o["delivery_complete_count"]) for o in by["groups"]
              if o["type"] == "share_partition"]
    assert shares == [("audit", "payments", 0, 120, 1, 3), ("audit", "payments", 1, 90, 1, None)]
    lags = {(o["group"], o["group_type"], o["partition"]): o["lag"] for o in by["groups"]
            if o["type"] == "lag"}
    assert lags == {("audit", "share", 0): 80, ("audit", "share", 1): 112,
                    ("billing", None, 0): 50, ("billing", None, 1): 2,
                    ("fraud-check", "consumer", 0): 20, ("fraud-check", "consumer", 1): None,
                    ("order-enricher", "streams", 0): 1}

    assert [(name, o["kind"], o["detail"]) for name, objs in by.items() for o in objs
            if o["type"] == "problem" and o["severity"] != "info"] == FINDINGS
    end = by["timeline"][-1]
    assert (end["type"], end["errors"], end["warnings"]) == ("report_end", 0, len(FINDINGS))
    brokers = {o["id"]: o for o in by["cluster"] if o["type"] == "broker"}
    assert brokers[1]["cordoned_log_dirs"] == [fx.DIR2, fx.DIR1]
    assert brokers[2]["cordoned_log_dirs"] == [] and brokers[2]["fenced"] is True
    (timeline,) = [o for o in by["cluster"] if o["type"] == "timeline"]
    cleared = [(e["label"], e["text"]) for e in timeline["entries"]
               if e["record"] == "CLEAR_ELR_RECORD"]
    assert cleared == [(f"payments/{p}", "partition_epoch 5 -> 6, elr [2] -> [], "
                        "last_known_elr [2] -> []") for p in (0, 1)]
    (txn,) = [o for o in by["transactions"] if o["type"] == "transaction"]
    assert (txn["topic"], txn["partition"], txn["producer_id"], txn["first_offset"],
            txn["state"]) == ("payments", 1, 4001, 200, "hanging")


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def _png_size(p: Path) -> tuple[int, int]:
    head = p.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def test_kafka4_page_in_a_real_browser(kdump: KdumpRunner, logdir: Path, tmp_path: Path) -> None:
    """No console error, no request; the DOM holds the subjects (deleted ones marked),
    the group types, share-partitions, the streams topology, cordoned dirs and ClearElr;
    screenshots and the printed PDF have the expected sizes."""
    browser = pytest.importorskip("tests.support.browser")
    browser.require_chromium()
    browser.require_poppler("pdftotext")
    out = tmp_path / "report.html"
    r = kdump("report", str(logdir), "-o", str(out), watch=[logdir])
    assert r.rc == 1, r.err  # FINDINGS
    with browser.Browser(javascript=True) as b:
        page = b.open(out.as_uri())
        assert page.console_errors == []
        assert page.requests == [out.as_uri()]
        dom = page.dom
        vp = page.screenshot(str(tmp_path / "viewport.png"))
        full = page.screenshot(str(tmp_path / "full.png"), full_page=True)
        pdf = page.pdf(str(tmp_path / "report.pdf"))
        cells = page.evaluate(
            "Array.from(document.querySelectorAll('#groups-table tbody tr'),"
            " r => [r.cells[0].textContent, r.cells[1].textContent.trim()])")
        assert page.evaluate("document.querySelectorAll('img').length") == 0
    assert cells == [["audit", "share"], ["billing", "commits only"],
                     ["fraud-check", "consumer"], ["order-enricher", "streams"]]
    assert _png_size(tmp_path / "viewport.png") == (1366, 768)
    width, height = _png_size(tmp_path / "full.png")
    assert width == 1366 and height > 5000
    assert vp > 40_000 and full > 4 * vp and pdf > 100_000
    schemas = _text(dom[dom.index('<section id="schemas">'):])
    for subject in ("address", "events-value", "money", "orders-value", "users-value"):
        assert f" {subject} 1 " in schemas, subject
    assert " gone-value 1 7 AVRO hard-deleted – 0 1 " in schemas
    assert " old-value 1 6 AVRO soft-deleted – 0 1 " in schemas
    assert " orders-value 1 2 AVRO active shop.Address → address v1 0 3 " in schemas
    assert " gone 1 – id 7 (hard-deleted): 1 – 0 " in schemas
    assert " legacy 3 id 1: 2 – id 99: 1 2 " in schemas
    groups = _text(dom[dom.index('<section id="groups">'):dom.index('<section id="transactions">')])
    assert " audit payments-0 120 1 3 3 1 200 80 " in groups
    # in-flight batches merged as Kafka merges a ShareUpdate onto its snapshot
    assert " audit payments-1 90 1 3 – 0 202 112 " in groups
    assert " order-enricher 2 1 – – order-enricher-repartition – " in groups
    assert " fraud-check consumer m-1 7 fraud-1 /10.0.0.7 payments payments 0,1 " in groups
    assert " fraud-check consumer m-2 – fraud-2 /10.0.0.7 regex pay.* no assignment record " in groups
    cluster = _text(dom[dom.index('<section id="cluster">'):dom.index('<section id="data">')])
    assert f" {fx.DIR1} cordoned {fx.DIR2} cordoned " in cluster
    assert " BrokerRegistrationChangeRecord changed cordoned_log_dirs " in cluster
    # topic, partition, leader, leader epoch, partition epoch, replicas, ISR, ELR, last-known
    assert " orders 0 1 3 5 1, 2 1 2 – under-replicated " in cluster
    assert " payments 0 1 3 6 1, 2 1 – – under-replicated " in cluster
    assert (" ClearElrRecord changed partition_epoch 5 -> 6, elr [2] -> [], "
            "last_known_elr [2] -> [] ") in cluster
    glance = dom[dom.index("At a glance"):dom.index('<section id="custody">')]
    # what the disk gets back: the held segments' allocated bytes, as the section's table
    # of held segments gives them (its "On disk" cells)
    from kdump.render.html import _size

    table = dom[dom.index('id="retention-held"'):]
    table = table[:table.index("</table>")]
    held = sum(int(v) for v in re.findall(
        r'<tr><td class="nowrap">.*?</td><td class="num">.*?</td><td class="num">.*?</td>'
        r'<td class="num" data-v="(\d+)"', table))
    assert held > 0
    # one line per kind of finding with its count: the warnings add up to the card's 10
    assert [_text(li).strip() for li in re.findall(r"<li>.*?</li>", glance)] == [
        "warning 5 partitions under-replicated",
        "warning 2 deleted schemas still named by records (2 record keys or values)",
        "warning 1 broker fenced or shutting down while the cluster runs: 2",
        "warning 1 hanging transaction",
        "warning 1 topic whose records name schema ids the registry does not hold (1 record "
        "key or value)",
        f"info {_size(held)} held back from deletion (a future timestamp, the high "
        "watermark, remote copies)",
        "info largest consumer lag: 192 records (group audit)"]
    assert re.search(r'id="errors">0<', dom) and re.search(r'id="warnings">10<', dom)
    # a client id from the data is text: escaped, its bidi override made visible
    assert "&lt;img src=x onerror=alert(1)&gt;\\u202etxt" in dom and "\u202e" not in dom
    assert " fraud-check consumer m-3 – <img src=x onerror=alert(1)>\\u202etxt " in groups
    text = subprocess.run(["pdftotext", "-layout", str(tmp_path / "report.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    for s in ("Schema registry", "share-partitions", "order-enricher-store-changelog"):
        assert s in text, s
