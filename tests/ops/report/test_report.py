"""``kdump report``: the incident report's data model (``--format json``), the HTML page
written from it, and the page opened in a real headless Chromium (no console error, no
network request, screenshots and a PDF of the expected size, the expected DOM).

Fixtures are the project's sample log dir (tests/writer.py), a two-broker KRaft cluster
written here (a __cluster_metadata log from tests/metadata/test_metadata.py's scenario, a
__consumer_offsets partition with commits, an open transaction, hostile names), and the
shared corpus when ../shared exists."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kdump.model import SCHEMA, fields_of
from tests.conftest import KdumpRunner
from tests.support import writer as w

TS = 1_700_000_000_000
EVIL_TOPIC = "<img src=x onerror=alert(1)>\"'\u202etxt"  # a directory name: no slash
EVIL_GROUP = "</td></script><script>alert(2)</script>"
CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "kafka2-logdir"


def _objs(out: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.splitlines()]


def _commit(group: str, topic: str, partition: int, offset: int, ts: int) -> w.Rec:
    return w.Rec(w.offset_commit_key(group, topic, partition), w.offset_commit_value_v3(offset, ts))


def cluster(root: Path) -> tuple[Path, Path]:
    """Two brokers' log dirs: orders-0 on both (broker 2 lagging), payments-0 on broker 1
    with a transaction left open 20 minutes before its last batch (hanging), a topic
    and a group with hostile names, __consumer_offsets-0 with commits, and broker 1's
    __cluster_metadata-0 (tests/metadata/test_metadata.py's scenario)."""
    from tests.metadata.test_metadata import scenario, write_log

    b1 = w.broker_logdir(root / "b1", 1, high_watermarks=[("orders", 0, 40)])
    b2 = w.broker_logdir(root / "b2", 2)
    w.write_replica(b1 / "orders-0", w.replica_batches([(0, 20, 0), (20, 20, 0)]))
    w.write_replica(b2 / "orders-0", w.replica_batches([(0, 20, 0)]))
    w.write_replica(b1 / "payments-0", [
        w.v2_batch([w.Rec(b"k", b"v", timestamp=TS)], base_offset=0, producer_id=7,
                   producer_epoch=3, base_sequence=0, transactional=True),
        w.v2_batch([w.Rec(b"k", b"later", timestamp=TS + 20 * 60_000)], base_offset=1),
    ])
    w.write_replica(b1 / f"{EVIL_TOPIC}-0", w.replica_batches([(0, 5, 0)], tag="<b>x</b>"))
    w.write_replica(b1 / "__consumer_offsets-0", [
        w.v2_batch([_commit("app", "orders", 0, 30, TS), _commit(EVIL_GROUP, EVIL_TOPIC, 0, 1, TS)],
                   base_offset=0)])
    write_log(b1 / "__cluster_metadata-0", scenario())
    return b1, b2


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    d = tmp_path / "logdir"
    w.write_sample_logdir(d)
    return d


def test_json_is_the_report_model(kdump: KdumpRunner, sample: Path) -> None:
    r = kdump("report", str(sample), "--format", "json", watch=[sample])
    assert r.rc == 0, r.err
    objs = _objs(r.out)
    assert objs[0]["type"] == "report" and objs[-1]["type"] == "report_end"
    assert [o["name"] for o in objs if o["type"] == "section"] == [
        "custody", "cluster", "data", "findings", "groups", "transactions", "schemas",
        "retention", "timeline"]
    for o in objs:  # every object documented in kdump/model.py
        assert o["type"] in SCHEMA, o["type"]
        documented = {n.rstrip("?") for n, _ in fields_of(o["type"])}
        assert set(o) - {"type"} <= documented, (o["type"], set(o) - documented)
    files = {o["file"]: o for o in objs if o["type"] == "input_file"}
    on_disk = sorted(str(p) for p in sample.rglob("*") if p.is_file())
    assert sorted(files) == on_disk
    for path, o in files.items():
        data = Path(path).read_bytes()
        assert o["sha256"] == hashlib.sha256(data).hexdigest()
        assert o["size"] == len(data)
    assert files[str(sample / ".lock")]["read"] is False
    assert files[str(sample / "orders-0" / "00000000000000000000.log")]["read"] is True
    parts = [(o["topic"], o["partition"], o["records"]) for o in objs if o["type"] == "partition"]
    assert parts == [("customers", 0, 34), ("orders", 0, 162), ("orders", 1, 71)]
    summaries = [o["command"] for o in objs if o["type"] == "summary"]
    assert summaries == ["verify-crc", "verify-index"]
    act = {o["topic"]: o for o in objs if o["type"] == "activity"}
    assert sorted(act) == ["customers", "orders"]
    assert all(o["bucket_ms"] == 60_000 for o in act.values())
    end = objs[-1]
    assert end["clean"] is True and end["errors"] == 0 and end["files"] == len(on_disk)


def test_html_page_holds_hashes_topics_and_no_request(kdump: KdumpRunner, sample: Path,
                                                      tmp_path: Path) -> None:
    out = tmp_path / "out" / "report.html"
    out.parent.mkdir()
    r = kdump("report", str(sample), "--output", str(out), watch=[sample])
    assert r.rc == 0, r.err
    assert r.err == f"kdump report: wrote {out} ({_size(out)})\n"
    page = out.read_text(encoding="utf-8")
    assert [p.name for p in out.parent.iterdir()] == ["report.html"]  # no temporary left
    for p in sample.rglob("*"):
        if p.is_file():
            assert hashlib.sha256(p.read_bytes()).hexdigest() in page
    assert 'id="verdict">clean<' in page
    assert "<p>Nothing stands out:" in page
    # self-contained: no URL to fetch anything from, a CSP that forbids fetching
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "@import" not in page and "url(" not in page
    assert "default-src 'none'" in page
    assert "<svg" in page and "pygal" in page  # charts inline
    assert "<script>" in page.replace('<script>(function', "<script>", 1)


def _size(p: Path) -> str:
    n = p.stat().st_size
    return f"{n / 1000:.1f} KB" if n >= 1000 else f"{n} B"


#: the findings of :func:`cluster` beyond the checks': the cluster runs (brokers 1 and 2
#: unfenced) while broker 3 is in controlled shutdown, payments-0 lacks an ISR replica,
#: broker 2's orders-0 lags, payments-0 holds a hanging transaction
CLUSTER_FINDINGS = [
    ("b1/__cluster_metadata-0", "broker-fenced", "warning",
     "broker 3 in controlled shutdown at offset 29 (2023-11-14T22:13:26.000Z) while brokers 1, "
     "2 are unfenced"),
    ("b1/__cluster_metadata-0", "partition-under-replicated", "warning",
     "payments-0: ISR [3] of replicas [1,3] (leader 3)"),
    ("b1/orders-0", "replica-lagging", "warning",
     "orders-0: a replica ends before another (log end offsets: broker 1 at 40, broker 2 at 20); "
     "broker 2 below the high watermark 40: committed records it does not hold"),
    ("b1/payments-0", "hanging-transaction", "warning",
     "payments-0: producer 7 (epoch 3) opened a transaction at offset 0, 20 minutes before the "
     "partition's last batch, and no marker closes it"),
]


@pytest.mark.parametrize(("hw", "severity", "tail"), [
    (40, "warning", "; broker 2 below the high watermark 40: committed records it does not hold"),
    (20, "info", "; no replica ends below a high watermark on disk (20): records not committed "
     "yet, normal for brokers stopped or copied one after another"),
    (None, "info", "; no replica ends below a high watermark on disk: records not committed "
     "yet, normal for brokers stopped or copied one after another"),
])
def test_a_lagging_replica_is_a_warning_only_below_a_high_watermark(
        kdump: KdumpRunner, tmp_path: Path, hw: int | None, severity: str, tail: str) -> None:
    """A follower that ends before its leader is in sync while the records it lacks are
    not committed (brokers stopped one after another, KRaft voters a few records apart):
    information.  Below a high watermark on disk it misses committed records: a
    warning, and the report exits 1."""
    b1 = w.broker_logdir(tmp_path / "b1", 1,
                         high_watermarks=None if hw is None else [("orders", 0, hw)])
    b2 = w.broker_logdir(tmp_path / "b2", 2)
    w.write_replica(b1 / "orders-0", w.replica_batches([(0, 20, 0), (20, 20, 0)]))
    w.write_replica(b2 / "orders-0", w.replica_batches([(0, 20, 0)]))
    r = kdump("report", "b1", "b2", "--format", "json", cwd=tmp_path)
    assert r.rc == (1 if severity == "warning" else 0), r.err
    found = [(o["kind"], o["severity"], o["detail"]) for o in _objs(r.out)
             if o["type"] == "problem"]
    assert found == [("replica-lagging", severity, "orders-0: a replica ends before another "
                      "(log end offsets: broker 1 at 40, broker 2 at 20)" + tail)]


def test_cluster_report_json(kdump: KdumpRunner, tmp_path: Path) -> None:
    cluster(tmp_path)
    r = kdump("report", "b1", "b2", "--format", "json", cwd=tmp_path)
    assert r.rc == 1, r.err  # warnings: the findings below
    objs = _objs(r.out)
    assert [(o["file"], o["kind"], o["severity"], o["detail"]) for o in objs
            if o["type"] == "problem"] == CLUSTER_FINDINGS
    assert (objs[-1]["errors"], objs[-1]["warnings"], objs[-1]["clean"]) == (0, 4, False)
    section = ""
    by_section: dict[str, list[dict[str, Any]]] = {}
    for o in objs:
        if o["type"] == "section":
            section = o["name"]
        by_section.setdefault(section, []).append(o)
    cl = by_section["cluster"]
    image = next(o for o in cl if o["type"] == "image")
    assert image["complete"] is True and image["metadata_version"] is not None
    timeline = next(o for o in cl if o["type"] == "timeline")
    assert timeline["changes"] == timeline["shown"] > 0
    assert any(e["text"] == "fenced" for e in timeline["entries"])
    assert {o["type"] for o in cl} >= {"broker", "partition", "topic", "feature"}
    cmp = [o for o in by_section["data"] if o["type"] == "partition_comparison"]
    assert [(c["partition"], c["status"]) for c in cmp if c["topic"] == "orders"] == \
        [("orders-0", "lagging")]
    txns = [o for o in by_section["transactions"] if o["type"] == "transaction"]
    assert [(t["topic"], t["partition"], t["producer_id"], t["producer_epoch"],
             t["first_offset"], t["age_ms"], t["state"]) for t in txns] == [
        ("payments", 0, 7, 3, 0, 20 * 60_000, "hanging")]
    assert "hunter2" not in r.out  # a password-like config: redacted, as metadata does
    lags = {(o["group"], o["topic"]): o["lag"] for o in by_section["groups"] if o["type"] == "lag"}
    assert lags == {("app", "orders"): 10, (EVIL_GROUP, EVIL_TOPIC): 4}


def test_kraft_cluster_page_in_a_real_browser(kdump: KdumpRunner, tmp_path: Path) -> None:
    """The page loads in Chromium with no console error and no request but the page
    itself, with JavaScript on and off; hostile names are text, never markup."""
    browser = pytest.importorskip("tests.support.browser")
    browser.require_chromium()
    cluster(tmp_path)
    out = tmp_path / "report.html"
    r = kdump("report", "b1", "b2", "-o", str(out), cwd=tmp_path, watch=[tmp_path / "b1",
                                                                         tmp_path / "b2"])
    assert r.rc == 1, r.err  # CLUSTER_FINDINGS
    shots = tmp_path / "shots"
    shots.mkdir()
    for js in (True, False):
        with browser.Browser(javascript=js) as b:
            page = b.open(out.as_uri())
            assert page.console_errors == []
            assert page.requests == [out.as_uri()]
            dom = page.dom
            if js:
                # the script ran (CSP allowed it by hash): filters are shown, and the
                # hostile names did not become elements
                filters = "document.querySelectorAll('input.filter%s').length"
                assert page.evaluate(filters % ":not([hidden])") == page.evaluate(filters % "") > 0
                # a click on a column header sorts by it (numbers as numbers)
                sizes = page.evaluate(
                    "(() => { const t = document.querySelector('#files table');"
                    " t.querySelectorAll('th')[2].click();"
                    " return Array.from(t.tBodies[0].rows, r => Number(r.cells[2].dataset.v)); })()")
                assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
                assert page.evaluate("document.querySelectorAll('img').length") == 0
                assert page.evaluate("document.scripts.length") == 1
                assert page.evaluate("window.alerted === undefined")
                vp = page.screenshot(str(shots / "viewport.png"))
                full = page.screenshot(str(shots / "full.png"), full_page=True)
                pdf = page.pdf(str(shots / "report.pdf"))
                assert vp > 40_000 and full > 3 * vp and pdf > 50_000
                assert _png_size(shots / "viewport.png") == (1366, 768)
                width, height = _png_size(shots / "full.png")
                assert width == 1366 and height > 4000
        assert "hunter2" not in dom and "Dynamic configs (2)" in dom
        glance = dom[dom.index("At a glance"):dom.index('<section id="custody">')]
        # one line per kind of finding, its count; the warnings add up to the card and
        # to the findings list
        assert [re.sub(r"<[^>]+>", "", li).strip() for li in re.findall(r"<li>.*?</li>", glance)] == [
            "warning 1 broker fenced or shutting down while the cluster runs: 3",
            "warning 1 hanging transaction", "warning 1 partition under-replicated",
            "warning 1 partition with a lagging replica",
            "info largest consumer lag: 10 records (group app)"]
        assert re.search(r'<div class="k">Errors</div><div class="v" id="errors">0<', dom)
        assert re.search(r'<div class="k">Warnings</div><div class="v" id="warnings">4<', dom)
        assert "<h3>Warnings (4)</h3>" in dom and dom.count('<tr class="sev-warning finding">') == 4
        for text in ("Chain of custody", "Cluster metadata", "orders", "payments",
                     "hanging", "lagging", "under-replicated", "broker 2", "fenced"):
            assert text in dom, text
        # hostile strings are text: escaped, bidi control made visible
        assert "&lt;img src=x onerror=alert(1)&gt;\"'\\u202etxt" in dom
        assert "\u202e" not in dom
        assert "&lt;/td&gt;&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in dom
        for p in (tmp_path / "b1").rglob("*.log"):
            assert hashlib.sha256(p.read_bytes()).hexdigest() in dom


def _png_size(p: Path) -> tuple[int, int]:
    head = p.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def test_damage_is_a_finding_with_its_byte_position(kdump: KdumpRunner, sample: Path,
                                                    tmp_path: Path) -> None:
    seg = sample / "orders-0" / "00000000000000000050.log"
    data = bytearray(seg.read_bytes())
    data[200] ^= 0xFF  # inside the first batch's records: its CRC no longer matches
    seg.write_bytes(bytes(data))
    out = tmp_path / "r.html"
    r = kdump("report", str(sample), "-o", str(out))
    assert r.rc == 1, r.err
    objs = _objs(kdump("report", str(sample), "--format", "json").out)
    crc = [o for o in objs if o["type"] == "problem" and o["kind"] == "crc-mismatch"]
    assert [(o["file"], o["position"], o["base_offset"]) for o in crc] == [(str(seg), 0, 50)]
    assert objs[-1]["clean"] is False
    page = out.read_text(encoding="utf-8")
    assert 'id="verdict">problems<' in page
    assert '<span class="badge error">error</span> <a href="#findings">1 crc-mismatch finding</a>' \
        in page
    assert re.search(r'<td class="path">(?:[^<]|<wbr>)*00000000000000000050\.log</td>'
                     r'<td class="num mono">0</td><td class="num mono">50</td>'
                     r"<td><code>crc-mismatch</code>", page)
    # what kdump repair would keep: its own table, not the generic one of the plan's fields
    plan = [o for o in objs if o["type"] == "repair_partition"]
    assert [(o["topic"], o["partition"], o["regions_dropped"]) for o in plan] == [("orders", 0, 1)]
    findings = page[page.index('<section id="findings">'):page.index('<section id="groups">')]
    assert "other-repair" not in findings
    assert "What <code>kdump repair</code> would keep (1 damaged partition)" in findings
    p = plan[0]
    wrapped = p["log_dir"].replace("/", "/<wbr>")  # a path wraps between directories
    assert (f'<tr><td class="path">orders-0</td><td class="path">{wrapped}</td>'
            f'<td class="num">{p["batches"]}</td>') in findings
    (d,) = [o for o in objs if o["type"] == "repair_dropped"]
    assert re.search(rf'<tr class="sev-error"><td class="path">(?:[^<]|<wbr>)*00000000000000000050\.log'
                     rf'</td><td class="num mono">0</td><td class="num">{d["length"]}</td>'
                     r"<td><code>crc-mismatch</code></td><td class=\"num mono\">50", findings)


def test_output_never_inside_the_evidence(kdump: KdumpRunner, sample: Path) -> None:
    for target in (sample / "r.html", sample / "orders-0" / "r.html"):
        r = kdump("report", str(sample), "-o", str(target), watch=[sample])
        assert r.rc == 2
        assert "lies inside the input" in r.err
        assert not target.exists()
    r = kdump("report", str(sample))
    assert r.rc == 2 and "--output FILE is required" in r.err
    r = kdump("report", str(sample), "-o", str(sample.parent / "no-such-dir" / "r.html"))
    assert r.rc == 2 and "no directory" in r.err
    # a missing input: exit 2, one line naming it, and no page (issue 40)
    out = sample.parent / "r.html"
    r = kdump("report", str(sample.parent / "missing"), "-o", str(out))
    assert (r.rc, r.err) == (2, f"kdump: {sample.parent / 'missing'}: no such file or directory\n")
    assert not out.exists()
    r = kdump("report", str(sample), "--format", "json", "-o", "x.html")
    assert r.rc == 2


def test_no_page_when_the_run_does_not_finish(tmp_path: Path) -> None:
    """A run stopped before its end (an error, Ctrl-C) leaves no file, not a partial one."""
    import io

    from kdump.ops.report import ReportOptions, report
    from kdump.render.html import HtmlReportRenderer

    w.write_sample_logdir(tmp_path / "logdir")
    out = tmp_path / "out"
    out.mkdir()
    r = HtmlReportRenderer(io.StringIO(), io.StringIO(), output=str(out / "r.html"))
    for item in report([str(tmp_path / "logdir")], ReportOptions()):
        if isinstance(item, dict) and item["type"] == "report_end":
            break  # interrupted before the end
        r.emit(item)
    r.close()
    assert list(out.iterdir()) == []


def test_size_bound_folds_long_tables(kdump: KdumpRunner, sample: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    r = kdump("report", str(sample), "-o", str(out), "--top", "5")
    assert r.rc == 0, r.err
    page = out.read_text(encoding="utf-8")
    files = sum(1 for p in sample.rglob("*") if p.is_file())
    assert f"<summary>{files - 5} more rows</summary>" in page


def test_shared_corpus(kdump: KdumpRunner, tmp_path: Path) -> None:
    if not CORPUS.exists():
        pytest.skip("no ../shared/corpus/kafka2-logdir on this machine")
    r = kdump("report", str(CORPUS), "--format", "json", watch=[])
    assert r.rc in (0, 1), r.err
    objs = _objs(r.out)
    files = [o for o in objs if o["type"] == "input_file"]
    assert len(files) == sum(1 for p in CORPUS.rglob("*") if p.is_file())
    assert all(o["sha256"] for o in files)
    assert any(o["type"] == "offsets_source" for o in objs)
    out = tmp_path / "corpus.html"
    r2 = kdump("report", str(CORPUS), "-o", str(out))
    assert r2.rc == r.rc
    page = out.read_text(encoding="utf-8")
    topics = {o["topic"] for o in objs if o["type"] == "partition"}
    for t in topics:
        assert t in page


def test_print_pages(tmp_path: Path, sample: Path, kdump: KdumpRunner) -> None:
    """Printed, every folded table is unfolded (print CSS) and pages are A4."""
    browser = pytest.importorskip("tests.support.browser")
    browser.require_chromium()
    browser.require_poppler("pdftotext", "pdfinfo")
    out = tmp_path / "r.html"
    assert kdump("report", str(sample), "-o", str(out), "--top", "3").rc == 0
    with browser.Browser(javascript=False) as b:
        b.open(out.as_uri()).pdf(str(tmp_path / "r.pdf"))
    text = subprocess.run(["pdftotext", "-layout", str(tmp_path / "r.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    # the last file of the custody table is behind the fold on screen, printed on paper
    last = sorted(str(p) for p in sample.rglob("*") if p.is_file())[-1]
    assert os.path.basename(last) in text
    info = subprocess.run(["pdfinfo", str(tmp_path / "r.pdf")], capture_output=True, text=True,
                          check=True).stdout
    assert "pts (A4)" in info, info


def test_progress_bar_counts_every_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report reads its inputs several times: the bar reaches 100% at the last pass."""
    from kdump.cli import progress
    from kdump.source import FileSource, ReadCounter
    from tests.support.tty import Tty, drawn, shown_percents

    big = tmp_path / "big.log"
    with open(big, "wb") as fh:  # sparse: costs nothing
        fh.truncate(progress.MIN_BYTES)
    for name in ("KDUMP_PROGRESS", "KDUMP_NO_PROGRESS"):
        monkeypatch.delenv(name, raising=False)
    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(progress, "QUIET", 0.0)
    monkeypatch.setattr(progress, "TICK", 0.01)
    with progress.ProgressBar([str(big)], "report", None, passes=2), FileSource(str(big)) as src:
        for p in range(2):
            ReadCounter.new_pass()
            src.pread(0, progress.MIN_BYTES)
            src.pread(0, 4096)  # re-reading within a pass does not move the bar
            drawn(err, "report", 50 * (p + 1))
    percents = shown_percents(err, "report")
    # 0 before the first read; 50 after one pass
    assert percents == sorted(percents) and {50, 100} <= set(percents) <= {0, 50, 100}


def test_remote_log_dir_same_report(kdump: KdumpRunner, sample: Path, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A log dir in S3 (a real moto server on 127.0.0.1) gives the same report, hashes
    included, as its local copy; the page is written locally."""
    from kdump import fs as kfs
    from tests.support import s3server

    server = s3server.start_or_skip(tmp_path / "moto")
    try:
        for k, v in server.env().items():
            monkeypatch.setenv(k, v)
        for k in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_CONFIG_FILE",
                  "AWS_SHARED_CREDENTIALS_FILE"):
            monkeypatch.delenv(k, raising=False)
        url = server.upload(sample, "case/broker-1/logdir")
        kfs.clear_cache()

        def model(path: str) -> list[dict[str, Any]]:
            r = kdump("report", path, "--format", "json")
            assert r.rc == 0, r.err
            objs = []
            for o in _objs(r.out.replace(url, str(sample))):
                for k in ("started", "ended", "seconds", "command", "inputs", "modified",
                          "now"):
                    o.pop(k, None)
                # a store keeps no block counts: allocated bytes are null there, and said
                for k in [k for k in o if "disk" in k]:
                    disks.append(o.pop(k))
                if isinstance(o.get("notes"), list):
                    o["notes"] = [n for n in o["notes"] if n != kfs.NO_BLOCK_COUNTS
                                  and not n.startswith("directories: ")]
                objs.append(o)
            return objs

        disks: list[Any] = []
        local = model(str(sample))
        assert disks and all(d is not None for d in disks)
        disks.clear()
        kfs.clear_cache()
        assert model(url) == local
        assert disks and all(d is None for d in disks)
        out = tmp_path / "remote.html"
        kfs.clear_cache()
        assert kdump("report", url, "-o", str(out)).rc == 0
        page = out.read_text(encoding="utf-8")
        assert url in page
        assert hashlib.sha256((sample / "orders-0" / "00000000000000000000.log").read_bytes()
                              ).hexdigest() in page
    finally:
        kfs.clear_cache()
        server.stop()


def test_a_new_section_or_object_type_is_one_entry(tmp_path: Path) -> None:
    """Objects of a type no template knows (a newer operation's, e.g. share groups) and a
    section with no template of its own (ACLs, say) are shown
    as plain tables of their fields, escaped: adding one is an entry in the op's stream."""
    from kdump.ops.report import ReportOptions, report
    from kdump.render.html import HtmlReportRenderer

    w.write_sample_logdir(tmp_path / "logdir")
    out = tmp_path / "r.html"
    r = HtmlReportRenderer(io.StringIO(), io.StringIO(), output=str(out))
    for item in report([str(tmp_path / "logdir")], ReportOptions()):
        if isinstance(item, dict) and item.get("name") == "transactions":  # groups ends
            r.emit({"type": "share_group", "group": "<sg>", "members": 3})
        if isinstance(item, dict) and item["type"] == "report_end":
            r.emit({"type": "section", "name": "acls", "title": "Access control"})
            r.emit({"type": "subject", "subject": "orders-value", "versions": [1, 2],
                    "deleted": False})
        r.emit(item)
    r.close()
    page = out.read_text(encoding="utf-8")
    assert '<h2>10 · Access control</h2>' in page
    assert '<a href="#acls">Access control</a>' in page
    assert "<td>orders-value</td><td>[1,2]</td><td>no</td>" in page
    groups = page[page.index('<section id="groups">'):page.index('<section id="transactions">')]
    assert "<code>share_group</code> (1)" in groups
    assert "<td>&lt;sg&gt;</td><td>3</td>" in groups


def test_tables_past_the_bound_keep_their_totals(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Past KEEP rows a table says how many more --format json holds; the topic and log
    dir totals still count every row."""
    from kdump.ops.report import ReportOptions, report
    from kdump.render import html

    monkeypatch.setattr(html, "KEEP", 1)
    w.write_sample_logdir(tmp_path / "logdir")
    out = tmp_path / "r.html"
    r = html.HtmlReportRenderer(io.StringIO(), io.StringIO(), output=str(out))
    for item in report([str(tmp_path / "logdir")], ReportOptions()):
        r.emit(item)
    r.close()
    page = out.read_text(encoding="utf-8")
    assert "2 further rows are not in this page" in page  # partitions: 3, one kept
    topics = page[page.index('<div class="tablewrap" id="topics">'):]
    assert re.search(r"<td>orders</td><td class=\"num\">2</td><td class=\"num\">2</td>"
                     r"<td class=\"num\" data-v=\"233\">", topics)


def test_file_names_from_the_data_are_inert(kdump: KdumpRunner, sample: Path,
                                            tmp_path: Path) -> None:
    """A file name holding bytes that are not UTF-8 and a terminal escape: shown as
    escapes in the page (which stays valid UTF-8), hashed like any file."""
    name = os.path.join(os.fsencode(sample / "orders-0"), b"\xff\x1b[31mx.log")
    with open(name, "wb") as f:
        f.write(b"not a batch")
    out = tmp_path / "r.html"
    r = kdump("report", str(sample), "-o", str(out))
    assert r.rc == 1, r.err  # the file is no log: a finding
    page = out.read_bytes().decode("utf-8")  # strict: valid UTF-8
    assert "\x1b" not in page
    assert "orders-0/<wbr>\\udcff\\x1b[31mx.log" in page
    assert hashlib.sha256(b"not a batch").hexdigest() in page


def test_same_report_for_any_jobs(kdump: KdumpRunner, tmp_path: Path) -> None:
    cluster(tmp_path)

    def model(jobs: str) -> list[dict[str, Any]]:
        r = kdump("report", "b1", "b2", "--format", "json", "-j", jobs, cwd=tmp_path)
        assert r.rc == 1, r.err  # CLUSTER_FINDINGS
        # (retention_run says when the report started: the time it judged at)
        return [o for o in _objs(r.out)
                if o["type"] not in ("report", "report_end", "retention_run")]

    assert model("1") == model("2")


def test_a_log_is_hashed_from_the_read_of_its_batches(tmp_path: Path) -> None:
    """The first pass reads a log once for its batch headers and its SHA-256; bytes the
    log reader skips (a hole of a sparse file, garbage it resynchronises past) are read
    for the hash afterwards: the digest is the file's, whatever the reader did."""
    from kdump.files.logdir import classify
    from kdump.ops.report import _first_pass

    d = tmp_path / "t-0"
    d.mkdir()
    batches = w.replica_batches([(0, 5, 0), (5, 5, 0)])
    cases = {
        "00000000000000000000.log": b"".join(batches),
        "00000000000000000100.log": batches[0] + b"\x00" * (1 << 20) + batches[1],  # zeros
        "00000000000000000200.log": batches[0] + b"garbage!" * 100 + batches[1],
    }
    for name, data in cases.items():
        (d / name).write_bytes(data)
    sparse = d / "00000000000000000300.log"
    with open(sparse, "wb") as f:
        f.write(batches[0])
        f.seek(8 << 20)  # a hole
        f.write(batches[1])
    cases[sparse.name] = sparse.read_bytes()
    files = [classify(str(d / n)) for n in sorted(cases)]
    acts, digests = _first_pass(files, 1 << 20)
    for name, data in cases.items():
        assert digests[str(d / name)] == (hashlib.sha256(data).hexdigest(), len(data), None)
    assert sum(a.records for a in acts[("t", 0)]) == 40


def test_topics_decades_apart_share_a_bounded_axis(kdump: KdumpRunner, tmp_path: Path) -> None:
    """One topic's batch stamped 157 ms after the epoch, another's in 2023: each alone
    fits one bucket, together they span 53 years; the shared bucket width widens until the
    axis has fewer than MAX_BUCKETS steps (found by the fuzzer, case k4long:147: the HTML
    chart drew 28 million one-minute steps and never finished)."""
    from kdump.ops.report import MAX_BUCKETS

    root = tmp_path / "logdir"
    w.write_replica(root / "old-0", [w.v2_batch([w.Rec(b"k", b"v", timestamp=157)],
                                                first_timestamp=157)])
    w.write_replica(root / "new-0", [w.v2_batch(w.numbered_records(0, 5))])
    r = kdump("report", "--format", "json", str(root), watch=[root])
    assert r.rc == 0, r.err
    act = {o["topic"]: o for o in map(json.loads, r.out.splitlines()) if o["type"] == "activity"}
    assert sorted(act) == ["new", "old"]
    (width,) = {o["bucket_ms"] for o in act.values()}
    starts = [k for o in act.values() for k, _ in o["buckets"]]
    assert 0 < (max(starts) - min(starts)) // width < MAX_BUCKETS
    assert act["old"]["buckets"] == [[0, 1]]
    out = tmp_path / "report.html"  # the page's chart: the same axis
    r = kdump("report", "--output", str(out), str(root), watch=[root])
    assert r.rc == 0 and "1970-01-01 00:00" in out.read_text(), r.err


def test_every_template_is_package_data() -> None:
    """An installed kdump (pip install ., not editable) has every template the page uses:
    a section template left out of the package data would leave its section empty."""
    import glob

    import tomllib

    root = Path(__file__).resolve().parents[3]
    globs = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"]["setuptools"]["package-data"]["kdump.render"]
    package = root / "kdump" / "render"
    # setuptools expands package-data patterns as glob does ("*" stops at "/")
    shipped = {Path(p).resolve() for g in globs for p in glob.glob(str(package / g))}
    files = {p.resolve() for p in (package / "templates").rglob("*") if p.is_file()}
    assert any(p.parent.name == "sections" for p in files)
    assert sorted(str(p) for p in files - shipped) == []
