"""Charts for the HTML report, as inline SVG drawn by pygal (no browser, no JavaScript).

pygal lays out axes, labels, legends and scales better than hand-made SVG would, and
renders to an element tree in pure Python.  Every chart is made inert before it is
inlined: pygal's own ``<script>`` (its tooltip configuration) is removed and no
stylesheet or script is referenced (``js=[]``), so the page makes no request and reads
with JavaScript off.  Labels from the data (topic names) are escaped by the XML writer;
control and bidi characters are made visible first (:func:`kdump.textsafe.inert`).
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from ..textsafe import inert

#: the report's palette (colour-blind safe, prints in grey distinguishably)
COLOURS = ("#2563eb", "#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2", "#db2777",
           "#65a30d", "#475569", "#ca8a04")
_MAX_LABEL = 28


def _label(s: Any) -> str:
    text = inert(str(s)).encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= _MAX_LABEL else text[: _MAX_LABEL - 1] + "…"


def _style() -> Any:
    from pygal.style import Style

    return Style(
        background="transparent", plot_background="transparent",
        foreground="#1f2937", foreground_strong="#111827", foreground_subtle="#d1d5db",
        opacity=".85", opacity_hover=".95", transition="0s", colors=COLOURS,
        font_family="system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif",
        label_font_size=11, major_label_font_size=11, legend_font_size=11,
        title_font_size=13, value_font_size=10, tooltip_font_size=11,
        guide_stroke_color="#e5e7eb", major_guide_stroke_color="#d1d5db",
        guide_stroke_dasharray="0", major_guide_stroke_dasharray="0")


def _config(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = dict(style=_style(), js=[], disable_xml_declaration=True,
                                explicit_size=False, width=760, height=300, margin=8,
                                show_legend=True, legend_at_bottom=True, legend_box_size=10,
                                print_values=False, pretty_print=False, tooltip_border_radius=2,
                                no_data_text="no data", truncate_legend=_MAX_LABEL,
                                truncate_label=_MAX_LABEL)
    base.update(kw)
    return base


def _svg(chart: Any) -> str:
    """The chart's SVG element as text, its scripts removed."""
    tree = chart.render_tree()
    for parent in list(tree.iter()):
        for child in list(parent):
            # comments (pygal's credits, with its web address) and scripts go
            if not isinstance(child.tag, str) or child.tag.rsplit("}", 1)[-1] == "script":
                parent.remove(child)
    from pygal.etree import etree  # the backend pygal built the tree with (lxml or stdlib)

    return str(etree.tostring(tree, encoding="unicode"))


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return str(n)


def bar_chart(title: str, items: list[tuple[str, int]], *, bytes_axis: bool = True,
              height: int | None = None) -> str:
    """Horizontal bars, one per (label, value), in the order given, each labelled with
    its value."""
    import pygal

    fmt = _size if bytes_axis else (lambda v: f"{v:,.0f}")
    h = height or max(110, 50 + 24 * len(items))
    chart = pygal.HorizontalBar(**_config(width=600, height=h, show_legend=False, title=None,
                                          value_formatter=fmt, show_y_guides=True,
                                          show_x_guides=False, print_values=True,
                                          print_values_position="top",
                                          # a few round ticks: "10.0 KB" labels side by
                                          # side overlap past about six
                                          x_labels_major_count=6,
                                          show_minor_x_labels=False))
    chart.x_labels = [_label(k) for k, _ in reversed(items)]
    chart.add(title, [v for _, v in reversed(items)])
    return _svg(chart)


def time_chart(series: list[tuple[str, list[tuple[int, int]]]], width_ms: int,
               first_ms: int | None = None) -> str:
    """Records over time, a line per topic from zero (never stacked: a stacked area
    reads as a total, and pygal would start its axis at the smallest value): (topic,
    [(bucket start epoch ms, records)]), buckets ``width_ms`` wide; empty buckets count
    0.  The x labels lie inside the data: a point is labelled with its bucket's start,
    the first with ``first_ms`` (the first record's time) when its bucket starts before
    it, so no label names a time before the first record."""
    import pygal

    starts = [t for _, pts in series for t, _ in pts]
    if not starts:
        return ""
    lo, hi = min(starts), max(starts)
    steps = list(range(lo, hi + width_ms, width_ms))
    if first_ms is None or not lo <= first_ms < lo + width_ms:
        first_ms = lo

    def stamp(ms: int) -> str:
        # seconds only where the time is not a whole minute (the first record's)
        try:
            return _dt.datetime.fromtimestamp(ms / 1000, tz=_dt.timezone.utc).strftime(
                "%Y-%m-%d %H:%M" if ms % 60_000 == 0 else "%Y-%m-%d %H:%M:%S")
        except (ValueError, OverflowError, OSError):  # a timestamp no calendar holds
            return f"{ms} ms"

    first_s = -(-first_ms // 1000) * 1000  # to the second, upwards: never before it
    labels = [stamp(max(t, first_s)) for t in steps]
    every = max(1, len(steps) // 5)
    chart = pygal.Line(**_config(width=1200, height=300, fill=False, show_dots=len(steps) < 3,
                                 dots_size=3, x_label_rotation=0, include_x_axis=True,
                                 show_minor_x_labels=False,
                                 x_labels_major=labels[::every],
                                 value_formatter=lambda v: f"{v:,.0f}",
                                 stroke_style={"width": 1.5}, show_x_guides=False))
    chart.x_labels = labels
    for topic, points in series:
        have = dict(points)
        chart.add(_label(topic), [have.get(t, 0) for t in steps])
    return _svg(chart)


#: the most points an events chart draws (its minutes merged two by two beyond it)
MAX_EVENT_POINTS = 240
#: kinds drawn as lines of their own (the rest are one line, "other kinds")
MAX_EVENT_KINDS = 8


def events_chart(counts: list[dict[str, Any]]) -> str:
    """kdump timeline's events per minute by kind (the report's timeline section), from
    its ``timeline_count`` objects: a line per kind (the most frequent ones), buckets of
    a minute doubled until there are at most :data:`MAX_EVENT_POINTS`."""
    timed = [c for c in counts if c["minute"] >= 0]
    if not timed:
        return ""
    lo = min(c["minute"] for c in timed)
    hi = max(c["minute"] for c in timed)
    width = 60_000
    while (hi - lo) // width + 1 > MAX_EVENT_POINTS:
        width *= 2
    totals: dict[str, int] = {}
    for c in timed:
        totals[c["kind"]] = totals.get(c["kind"], 0) + c["count"]
    kinds = sorted(totals, key=lambda k: (-totals[k], k))
    shown = set(kinds[:MAX_EVENT_KINDS])
    series: dict[str, dict[int, int]] = {}
    for c in timed:
        name = c["kind"] if c["kind"] in shown else "other kinds"
        t = lo + (c["minute"] - lo) // width * width
        pts = series.setdefault(name, {})
        pts[t] = pts.get(t, 0) + c["count"]
    order = [k for k in kinds if k in shown] + (["other kinds"] if "other kinds" in series
                                                 else [])
    return time_chart([(k, sorted(series[k].items())) for k in order], width)


__all__ = ["COLOURS", "MAX_EVENT_KINDS", "MAX_EVENT_POINTS", "bar_chart", "events_chart",
           "time_chart"]
