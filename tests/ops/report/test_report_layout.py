"""The report's tables at 1366x768 and 1024 px wide, in a real headless Chromium (issue
32): no table runs past the page; a table too wide for the screen scrolls inside its own
box with its first column held (position: sticky); printing is unchanged (the boxes do
not scroll, nothing sticks).  The page is the known case: many consumer groups with long
names over long topic names (the names Confluent Control Center's Streams app gives its
topics), so the lag table is wide."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import KdumpRunner
from tests.support import writer as w

TS = 1_700_000_000_000
#: topic names as long as a Streams application's internal topics
TOPICS = [f"_confluent-controlcenter-7-6-0-1-{name}-repartition" for name in (
    "aggregatedTopicPartitionTableWindows-ONE_MINUTE", "aggregatedTopicPartitionTableWindows-"
    "THREE_HOURS", "MonitoringMessageAggregatorWindows-ONE_MINUTE", "group-aggregate-store-"
    "THREE_HOURS", "KSTREAM-OUTEROTHER-0000000106-store")]
GROUPS = [f"_confluent-controlcenter-7-6-0-lastProduceTimeConsumer-{i:02d}" for i in range(24)]

#: every table: (id of its box, its right edge, the viewport's width, the box scrolls,
#: the box's right edge, its first column's position)
TABLES_JS = r"""(() => {
  const vw = document.documentElement.clientWidth, out = [];
  for (const t of document.querySelectorAll('table')) {
    const r = t.getBoundingClientRect();
    if (r.width === 0) continue;  // folded away (details)
    const box = t.closest('.tablewrap');
    const cell = t.querySelector('tbody td') || t.querySelector('th');
    out.push({id: box ? box.id : null, right: r.right, vw,
              scrolls: box ? box.scrollWidth > box.clientWidth + 1 : false,
              boxRight: box ? box.getBoundingClientRect().right : null,
              overflowX: box ? getComputedStyle(box).overflowX : null,
              first: cell ? getComputedStyle(cell).position : null});
  }
  return {vw, page: document.documentElement.scrollWidth, tables: out};
})()"""


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("layout")
    b = w.broker_logdir(root / "b1", 1)
    for t in TOPICS:
        for p in range(2):
            w.write_replica(b / f"{t}-{p}", w.replica_batches([(0, 30, 0)]))
    commits = [w.Rec(w.offset_commit_key(g, t, p), w.offset_commit_value_v3(10 + i, TS))
               for i, g in enumerate(GROUPS) for t in TOPICS[:3] for p in range(2)]
    w.write_replica(b / "__consumer_offsets-0", [w.v2_batch(commits, base_offset=0)])
    return b


def _report(kdump: KdumpRunner, logdir: Path, out: Path) -> None:
    r = kdump("report", str(logdir), "-o", str(out), watch=[logdir])
    assert r.rc == 0, r.err


def test_no_table_runs_past_the_page(kdump: KdumpRunner, page: Path, tmp_path: Path) -> None:
    browser = pytest.importorskip("tests.support.browser")
    browser.require_chromium()
    out = tmp_path / "report.html"
    _report(kdump, page, out)
    seen: dict[int, dict[str, Any]] = {}
    for width in (1366, 1024):
        with browser.Browser(width=width, height=768) as b:
            p = b.open(out.as_uri())
            assert p.console_errors == []
            got = p.evaluate(TABLES_JS)
            seen[width] = got
            # a look at the lag table (tests/support/browser.py's screenshots: the file viewer
            # shows them)
            p.evaluate("document.getElementById('lag').scrollIntoView()")
            p.screenshot(str(tmp_path / f"lag-{width}.png"))
        assert got["vw"] == width and got["page"] == width, got  # no page-wide scroll bar
        tables = got["tables"]
        assert len(tables) >= 8 and any(t["id"] == "lag" for t in tables)
        for t in tables:
            # within the viewport, or inside its box (within the viewport) that scrolls
            # with the first column held
            assert t["id"] is not None, t
            assert t["boxRight"] <= width + 0.5, t
            assert t["overflowX"] == "auto", t
            if t["right"] > width + 0.5 or t["scrolls"]:
                assert t["scrolls"] and t["first"] == "sticky", t
            assert t["first"] == "sticky", t
    # at 1366 px every table fits: the lag table's partitions and groups wrap
    assert [t["id"] for t in seen[1366]["tables"] if t["scrolls"]] == []
    assert (tmp_path / "lag-1366.png").stat().st_size > 20_000


def test_print_is_unchanged(kdump: KdumpRunner, page: Path, tmp_path: Path) -> None:
    """In print (A4) the boxes do not scroll and no column sticks: tables run over the
    page as before."""
    browser = pytest.importorskip("tests.support.browser")
    browser.require_chromium()
    out = tmp_path / "report.html"
    _report(kdump, page, out)
    with browser.Browser(width=1366, height=768) as b:
        p = b.open(out.as_uri())
        p.call("Emulation.setEmulatedMedia", media="print")
        styles = p.evaluate(
            "Array.from(document.querySelectorAll('.tablewrap'), w => [getComputedStyle(w)"
            ".overflowX, getComputedStyle(w.querySelector('td, th')).position])")
        pdf = p.pdf(str(tmp_path / "report.pdf"))
    assert styles and {tuple(s) for s in styles} == {("visible", "static")}
    assert pdf > 20_000


def test_repair_plan_fits_at_1366(kdump: KdumpRunner, page: Path, tmp_path: Path) -> None:
    """A damaged partition adds the findings' table of what kdump repair would keep and
    the regions it would leave out: both fit at 1366 px and scroll in their box at 1024."""
    import shutil

    browser = pytest.importorskip("tests.support.browser")
    browser.require_chromium()
    ld = tmp_path / "b1"
    shutil.copytree(page, ld)
    seg = ld / f"{TOPICS[1]}-1" / "00000000000000000000.log"
    data = bytearray(seg.read_bytes())
    data[100] ^= 0xFF  # inside the first batch's records: its CRC no longer matches
    seg.write_bytes(bytes(data))
    out = tmp_path / "report.html"
    r = kdump("report", str(ld), "-o", str(out))
    assert r.rc == 1, r.err
    for width in (1366, 1024):
        with browser.Browser(width=width, height=768) as b:
            p = b.open(out.as_uri())
            assert p.console_errors == []
            got = p.evaluate(TABLES_JS)
        assert got["page"] == width, got
        boxes = {t["id"]: t for t in got["tables"] if t["id"] in ("repair-plan", "repair-dropped")}
        assert sorted(boxes) == ["repair-dropped", "repair-plan"]
        for t in boxes.values():
            assert t["boxRight"] <= width + 0.5 and t["first"] == "sticky", t
            if width == 1366:
                assert not t["scrolls"], t
