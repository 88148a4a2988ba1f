"""``kdump timeline --format json`` joins event lines into one write
(render/timeline.py ``LINES_PER_WRITE``): what it writes, in what order, is what
writing each line as it comes writes, problems and the closing object included."""

from __future__ import annotations

import io

from kdump.findings import Problem
from kdump.ops.timeline import TimelineEnd, TimelineEvent
from kdump.render import timeline as rt
from tests.support.tty import Tty


def _items() -> list[object]:
    items: list[object] = []
    for k in range(700):
        ev = TimelineEvent(1_700_000_000_000 + k, "controller", "leader-change", "metadata",
                           f"t/{k}", f"leader 1 -> 2, epoch {k}", offset=k)
        items.append(ev)
        if k % 300 == 299:  # a finding: its event, then its Problem (written once)
            p = Problem(f"/d/t-{k}/0.log", k, "crc-mismatch", "bad")
            ev.problem = p
            items.append(p)
        if k == 500:  # a problem of its own
            items.append(Problem("/d/x", None, "unreadable-file", "gone"))
    items.append(TimelineEnd(events=700, shown=700))
    return items


def test_joined_writes_are_the_lines_written_one_by_one() -> None:
    joined, one_by_one = io.StringIO(), Tty()
    for out in (joined, one_by_one):
        r = rt.TimelineJsonRenderer(out)
        for item in _items():
            r.emit(item)
        r.close()
    assert rt.TimelineJsonRenderer(one_by_one).per_write == 1
    assert rt.TimelineJsonRenderer(joined).per_write == rt.LINES_PER_WRITE
    lines = joined.getvalue().splitlines()
    assert joined.getvalue() == one_by_one.getvalue()
    assert len(lines) == 700 + 1 + 1  # the findings' Problems not written twice
    assert '"unreadable-file"' in lines[501] and '"t/500"' in lines[500]
    assert lines[-1].startswith('{"type":"timeline_end"')


def test_lines_are_held_until_the_batch_is_full() -> None:
    out = io.StringIO()
    r = rt.TimelineJsonRenderer(out)
    items = _items()[:rt.LINES_PER_WRITE - 1]
    for item in items:
        r.emit(item)
    assert out.getvalue() == ""
    r.close()
    assert len(out.getvalue().splitlines()) == len(items)
