"""The report read at 1366 and 1024 px (issue 41.8), in a real headless Chromium:

* "Records over time" is a line per topic from zero (never a stacked area whose axis
  starts at the smallest value), its x labels inside the data (none before the first
  record);
* "Topics" and "Partitions" list the user's topics first, Kafka's and Confluent's
  internal ones (names starting with _) folded after them;
* paths wrap between directories (a ``<wbr>`` after each ``/``, the data escaped first);
* at 1024 px the lag and repair tables keep their key columns (group and partition,
  partition and log dir) in view: they wrap to a bounded width, and where a table still
  scrolls in its box (760 px) they stay put when it is scrolled all the way right.

Screenshots are written beside the page (tests/support/browser.py): the file viewer shows them.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from kdump.render.html import _path, is_internal_topic
from tests.conftest import KdumpRunner
from tests.support import writer as w

TS = 1_700_000_000_000 + 20_123  # the first record: 20.123 s past a whole minute
USER = ["customerProfileUpdatesEnrichedWithLoyaltyTierAndRegion-v2",
        "payment-authorisations-by-merchant-category-eu-west-1", "orders"]
GROUPS = [f"orderProcessingServiceWithALongConsumerGroupName-{i:02d}" for i in range(6)]


@pytest.fixture(scope="module")
def logdirs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    deep = tmp_path_factory.mktemp("reading") / "data" / "kafka" / "cluster-eu-west-1" / "logs"
    out = []
    for bid in (1, 2):
        b = w.broker_logdir(deep / f"kafka{bid}", bid)
        for t in USER:
            for p in range(2):
                batches, off = [], 0
                for k in range(12):  # a batch every 10 minutes, 30-60 records each
                    n = 30 + (k * 7 + p * 3) % 30
                    batches.append(w.v2_batch(
                        [w.Rec(b"k%d" % i, b"v" * 20, timestamp=TS + k * 600_000 + i)
                         for i in range(n)], base_offset=off, first_timestamp=TS + k * 600_000))
                    off += n
                w.write_replica(b / f"{t}-{p}", batches)
        for p in range(1, 50):
            w.write_replica(b / f"__consumer_offsets-{p}", w.replica_batches([(0, 5, 0)]))
        commits = [w.Rec(w.offset_commit_key(g, t, p), w.offset_commit_value_v3(10 + i, TS))
                   for i, g in enumerate(GROUPS) for t in USER for p in range(2)]
        w.write_replica(b / "__consumer_offsets-0", [w.v2_batch(commits, base_offset=0)])
        out.append(b)
    seg = out[1] / f"{USER[1]}-1" / "00000000000000000000.log"
    data = bytearray(seg.read_bytes())
    data[100] ^= 0xFF  # the first batch's CRC fails: a repair plan
    seg.write_bytes(bytes(data))
    return out


#: per key table: its box, and the first data row's key cells, after scrolling the box
#: all the way right
KEYS_JS = r"""((ids) => {
  const vw = document.documentElement.clientWidth, out = {};
  for (const [id, k] of ids) {
    const box = document.getElementById(id);
    box.scrollLeft = box.scrollWidth;
    const b = box.getBoundingClientRect();
    const row = box.querySelector('tbody tr');
    out[id] = {vw, boxLeft: b.left, boxRight: b.right, scrolls: box.scrollWidth > box.clientWidth + 1,
               cells: Array.from(row.cells).slice(0, k).map(c => {
                 const r = c.getBoundingClientRect();
                 return {left: r.left, right: r.right, text: c.textContent.trim()};
               })};
  }
  return out;
})(%s)"""

CHART_JS = r"""(() => {
  const svg = document.querySelector('#chart-activity svg');
  const txt = sel => Array.from(svg.querySelectorAll(sel), t => t.textContent.trim());
  return {x: txt('g.axis.x text'), y: txt('g.axis.y text'),
          stacked: svg.querySelectorAll('.serie .line.reactive.nofill').length,
          filled: svg.querySelectorAll('path.area, path.line:not(.nofill)').length};
})()"""

TOPICS_JS = r"""(() => {
  const firsts = id => Array.from(document.querySelectorAll('#' + id + ' tbody tr'),
                                  tr => tr.cells[0].textContent.trim());
  const box = id => { const d = document.getElementById(id); return d ? d.open : null; };
  return {topics: firsts('topics'), internal: firsts('topics-internal'),
          partitions: firsts('partitions'), internalParts: firsts('partitions-internal'),
          topicsBox: box('topics-internal-box'), partsBox: box('partitions-internal-box'),
          paths: Array.from(document.querySelectorAll('#brokers td.path'), td => td.innerHTML)};
})()"""


def _browser() -> Any:
    browser = pytest.importorskip("tests.support.browser")
    browser.require_chromium()  # a skip naming it, a failure under CI
    return browser


def _stamp(text: str) -> int:
    fmt = "%Y-%m-%d %H:%M:%S" if text.count(":") == 2 else "%Y-%m-%d %H:%M"
    t = dt.datetime.strptime(text, fmt).replace(tzinfo=dt.timezone.utc)
    return int(t.timestamp() * 1000)


def test_the_report_reads_at_1366_and_1024(kdump: KdumpRunner, logdirs: list[Path],
                                           tmp_path: Path) -> None:
    browser = _browser()
    out = tmp_path / "report.html"
    r = kdump("report", *map(str, logdirs), "-o", str(out))
    assert r.rc == 1, r.err  # the damaged batch
    # 1366 and 1024 (the screens the issue names), and 760, where the lag table must
    # scroll in its box: its key columns held there too
    for width in (1366, 1024, 760):
        with browser.Browser(width=width, height=768) as b:
            p = b.open(out.as_uri())
            assert p.console_errors == []
            chart = p.evaluate(CHART_JS)
            topics = p.evaluate(TOPICS_JS)
            keys = p.evaluate(KEYS_JS % '[["lag", 2], ["repair-plan", 2]]')
            for anchor in ("chart-activity", "topics", "lag", "repair-plan"):
                p.evaluate(f"document.getElementById('{anchor}').scrollIntoView()")
                p.screenshot(str(tmp_path / f"{anchor}-{width}.png"))
        # records over time: lines from zero, x labels from the first record on
        ys = [float(y.replace(",", "")) for y in chart["y"]]
        assert min(ys) == 0, chart
        assert chart["x"] and _stamp(chart["x"][0]) >= TS, chart
        assert chart["x"][0] == "2023-11-14 22:13:41", chart  # TS, to the second upwards
        assert all(_stamp(x) >= TS for x in chart["x"]), chart
        # user topics first, internal ones folded
        assert sorted(topics["topics"]) == sorted(USER)
        assert topics["internal"] == ["__consumer_offsets"]
        assert topics["topicsBox"] is False and topics["partsBox"] is False
        assert len(topics["partitions"]) == 12 and not any(
            is_internal_topic(x) for x in topics["partitions"])
        assert len(topics["internalParts"]) == 100
        # paths wrap between directories
        assert topics["paths"] and all("/<wbr>" in h for h in topics["paths"])
        # the key columns stay in view, side by side, when the table is scrolled right
        for tid, k in keys.items():
            first, second = k["cells"]
            for c in (first, second):
                assert k["boxLeft"] - 0.5 <= c["left"] and c["right"] <= min(
                    k["boxRight"], k["vw"]) + 0.5, (width, tid, k)
            assert second["left"] >= first["right"] - 1, (width, tid, k)
            if width == 760 and tid == "lag":
                assert k["scrolls"], k  # the case: a table wider than the screen
        assert keys["lag"]["cells"][0]["text"].startswith("orderProcessingService")
        assert keys["lag"]["cells"][1]["text"].endswith(("-0", "-1"))
        assert keys["repair-plan"]["cells"][0]["text"] == f"{USER[1]}-1"


def test_a_path_is_escaped_before_it_wraps() -> None:
    """Data never becomes markup: the name is escaped, then a <wbr> follows each /."""
    assert str(_path("/data/<b>x</b>&y/00.log")) == (
        "/<wbr>data/<wbr>&lt;b&gt;x&lt;/<wbr>b&gt;&amp;y/<wbr>00.log")
    assert str(_path("a\u202eb/c")) == "a\\u202eb/<wbr>c"


def test_the_time_chart_starts_at_zero_and_labels_no_time_before_the_first_record() -> None:
    """Counts all near 28,000 (the case of the issue): the axis still starts at 0, no
    series is stacked or filled, and a bucket starting before the first record is
    labelled with the first record's time."""
    import re

    from kdump.render.charts import time_chart

    minute = 60_000
    start = 1_700_000_040_000  # a whole minute
    svg = time_chart([("a", [(start + k * minute, 28_000 + k * 10) for k in range(6)]),
                      ("b", [(start + k * minute, 28_500) for k in range(6)])], minute,
                     first_ms=start + 25_500)
    y_axis = svg.split('class="axis y')[1].split('class="axis x')[0]
    y = [float(t.replace(",", "")) for t in re.findall(r'<text[^>]*>([0-9,.]+)</text>', y_axis)]
    assert min(y) == 0 and max(y) >= 28_000
    assert 'class="graph line-graph' in svg and 'class="graph stackedline' not in svg
    lines = re.findall(r'<path [^>]*class="line reactive([^"]*)"', svg)
    assert len(lines) == 2 and all("nofill" in c for c in lines)  # lines, not areas
    x = re.findall(r'<text[^>]*class="major"[^>]*>(\d{4}-\d\d-\d\d [^<]+)</text>', svg)
    assert x[0] == "2023-11-14 22:14:26"  # the first record, to the second upwards
    assert all(_stamp(t) >= start + 25_500 for t in x)
