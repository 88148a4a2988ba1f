"""The report's timeline section: ``kdump timeline``'s events over the inputs, counted per
kind per minute (the chart), and the events around the first error (the table): the
``AROUND`` events before the first finding of error severity, it, and the ``AROUND``
after it; with no error, the last ``AROUND`` events.  One pass, bounded memory (the
minutes are counted as ``timeline --summary`` counts them; at most ``MAX_MINUTES`` rows,
the oldest merged away).  The timeline's findings are not repeated (the findings section
reports them)."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Iterator
from typing import Any

from ..timeline import Timeline, TimelineEvent, TimelineOptions

#: events kept on each side of the first error
AROUND = 50
#: minutes of counts kept (older minutes are summed into the oldest kept)
MAX_MINUTES = 1440


def timeline_section(paths: Iterable[str], max_batch_bytes: int,
                     kafka_version: str | None) -> Iterator[dict[str, Any]]:
    """``timeline_count`` objects (minute, kind, count), then the ``timeline_event``
    objects around the first error, then ``timeline_end``."""
    run = Timeline(paths, TimelineOptions(max_batch_bytes=max_batch_bytes,
                                          kafka_version=kafka_version))
    streams = run.streams()
    counts: dict[int, Counter[str]] = {}
    before: deque[TimelineEvent] = deque(maxlen=AROUND)
    after: list[TimelineEvent] = []
    first_error: TimelineEvent | None = None
    for ev in run.events(streams):
        minute = -1 if ev.time is None else ev.time - ev.time % 60_000
        counts.setdefault(minute, Counter())[ev.kind] += 1
        if len(counts) > MAX_MINUTES:
            oldest = sorted(counts)[:2]
            counts[oldest[1]].update(counts.pop(oldest[0]))
        if first_error is None:
            if ev.kind == "finding" and ev.severity == "error":
                first_error = ev
            else:
                before.append(ev)
        elif len(after) < AROUND:
            after.append(ev)
    run.finish()
    for minute in sorted(counts):
        for kind, n in sorted(counts[minute].items()):
            yield {"type": "timeline_count", "minute": minute, "kind": kind, "count": n}
    shown = [*before, *([first_error] if first_error is not None else []), *after]
    for ev in shown:
        yield ev.to_json()
    run.end.shown = len(shown)
    if shown:
        times = [e.time for e in shown if e.time is not None]
        run.end.first_time = min(times, default=None)
        run.end.last_time = max(times, default=None)
    yield run.end.to_json()
