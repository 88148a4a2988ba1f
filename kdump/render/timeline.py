"""``kdump timeline`` renderers: ``text`` (one aligned line per event, UTC or ``--tz``,
``~`` before an estimated time, the events that explain it on indented lines below),
``json`` (JSON Lines: the ``timeline_event`` / ``timeline_count`` / ``timeline_end``
objects of kdump/model/timeline.py) and ``table`` (rich).

A finding is an event (placed in time) and a Problem (which the exit code counts): the
Problem that comes right after its event is not written a second time.  Everything
quoted from the data (topic, group, transactional ids) is made inert.
"""

from __future__ import annotations

from typing import Any, TextIO

from ..findings import Problem
from ..model import fields_of
from ..native import speedups
from ..ops.timeline import TimelineCount, TimelineEnd, TimelineEvent, iso
from ..textsafe import InertLines, inert
from .common import plural, problem_line
from .jsonl import JsonRenderer, json_str, json_text

#: text columns: clock, kind and object widths (longer values push the line on)
_CLOCK, _KIND, _OBJECT = 11, 20, 26
#: rows a --format table draws (it is drawn at the end: the rest are counted)
TABLE_ROWS = 5000


def zone(tz: str | None) -> Any:
    """The tzinfo ``--tz`` names (None: UTC, written with Z)."""
    if tz is None or tz.upper() in ("UTC", "Z"):
        return None
    from zoneinfo import ZoneInfo

    return ZoneInfo(tz)


def source_of(ev: TimelineEvent) -> str:
    if ev.file is None:
        return ""
    return ev.file if ev.position is None else f"{ev.file}:{ev.position}"


def event_line(ev: TimelineEvent, tz: Any = None) -> str:
    """``~2023-11-14T22:13:20.009Z producer    segment-roll  orders/0  text  @ file:pos``."""
    mark = "~" if ev.estimate else " "
    t = iso(ev.time, tz)
    late = " [late]" if ev.late else ""
    src = source_of(ev)
    where = f"  @ {src}" if src else ""
    return (f"{mark}{t}  {ev.clock:<{_CLOCK}} {ev.kind:<{_KIND}} {ev.object:<{_OBJECT}} "
            f"{ev.text}{late}{where}").rstrip()


class _Seen:
    """The finding shown last, so its Problem is not written twice."""

    def __init__(self) -> None:
        self.problem: Problem | None = None

    def shown(self, item: object) -> bool:
        if isinstance(item, TimelineEvent):
            self.problem = item.problem
            return False
        if isinstance(item, Problem) and item is self.problem:
            self.problem = None
            return True
        return False


class TimelineTextRenderer:
    """Events on stdout, one line each; problems and the closing line on stderr."""

    def __init__(self, out: TextIO, err: TextIO, *, tz: str | None = None) -> None:
        self.out = InertLines(out)
        self.err = InertLines(err)
        self.tz = zone(tz)
        self.seen = _Seen()

    def emit(self, item: object) -> None:
        if self.seen.shown(item):
            return
        if isinstance(item, TimelineEvent):
            line = event_line(item, self.tz)
            self.out.write(line + "\n")
            indent = " " * (len(iso(item.time, self.tz)) + 3)  # under the clock
            for r in item.related_list():
                self.out.write(f"{indent}related: {r}\n")
        elif isinstance(item, TimelineCount):
            minute = "-" if item.minute < 0 else iso(item.minute, self.tz)
            self.out.write(f"{minute}  {item.kind:<{_KIND}} {item.count}\n")
        elif isinstance(item, Problem):
            self.err.write(problem_line(item) + "\n")
        elif isinstance(item, TimelineEnd):
            self.err.write(end_line(item, self.tz) + "\n")

    def close(self) -> None:
        pass


def end_line(end: TimelineEnd, tz: Any = None) -> str:
    kinds: dict[str, int] = {}
    for s in end.sources:
        kinds[s["source"]] = kinds.get(s["source"], 0) + 1
    names = {"metadata": "metadata log", "log_dir": "log dir",
             "coordinator": "coordinator partition"}
    read = ", ".join(plural(n, names.get(k, k)) for k, n in kinds.items()) or "nothing"
    span = "" if end.first_time is None else \
        f", {iso(end.first_time, tz)} to {iso(end.last_time, tz)}"
    late = f", {end.late} out of order (late)" if end.late else ""
    return (f"timeline: {plural(end.shown, 'event')} shown of {end.events} from {read}"
            f"{span}{late}")


#: the fields of a ``timeline_event`` :func:`event_json` writes, in order (the model's
#: order: tests/ops/timeline check they are the same)
EVENT_FIELDS = ("time", "clock", "estimate", "kind", "source", "file", "position", "offset",
                "broker", "log_dir", "topic", "partition", "producer_id",
                "transactional_id", "group", "object", "text", "related", "late",
                "severity?", "replicas?", "members?")


def event_fields_match_model() -> bool:
    """The model's ``timeline_event`` fields are the ones :func:`event_json` writes."""
    names = tuple(f[0] for f in fields_of("timeline_event"))
    return names == EVENT_FIELDS


#: pieces of event lines that recur (clock, kind, source and file; log dir and topic;
#: ids and object; text), as JSON, by the values they write: at most _PIECES_MAX each
_HEADS: dict[tuple[str, bool, str, str, str | None], str] = {}
_MIDS: dict[tuple[str | None, str | None], str] = {}
_WHOS: dict[tuple[str | None, str | None, str], str] = {}
_TEXTS: dict[str, str] = {}
_PIECES_MAX = 65_536


def _s(v: str | None) -> str:
    return "null" if v is None else json_str(v)


def _head(k: tuple[str, bool, str, str, str | None]) -> str:
    if len(_HEADS) >= _PIECES_MAX:
        _HEADS.clear()
    clock, estimate, kind, source, file = k
    j = _HEADS[k] = (',"clock":' + _s(clock) + ',"estimate":' + ("true" if estimate
                     else "false") + ',"kind":' + _s(kind) + ',"source":' + _s(source)
                     + ',"file":' + _s(file) + ',"position":')
    return j


def _mid(k: tuple[str | None, str | None]) -> str:
    if len(_MIDS) >= _PIECES_MAX:
        _MIDS.clear()
    j = _MIDS[k] = ',"log_dir":' + _s(k[0]) + ',"topic":' + _s(k[1]) + ',"partition":'
    return j


def _who(k: tuple[str | None, str | None, str]) -> str:
    if len(_WHOS) >= _PIECES_MAX:
        _WHOS.clear()
    j = _WHOS[k] = (',"transactional_id":' + _s(k[0]) + ',"group":' + _s(k[1])
                    + ',"object":' + _s(k[2]) + ',"text":')
    return j


def _text(t: str) -> str:
    if len(_TEXTS) >= _PIECES_MAX:
        _TEXTS.clear()
    j = _TEXTS[t] = json_str(t)
    return j


_native_json = None if speedups is None else getattr(speedups, "event_json", None)


def event_json(ev: TimelineEvent) -> str:
    """``json_text(ev.to_json())`` without the dict: the same line (tests/ops/timeline
    compare them), at a fraction of the cost (a busy metadata log gives millions):
    written by ``event_json`` in kdump/_speedups_timeline.c where the extension is built
    (an event whose values it does not write, a coalesced one's replicas or a string
    with lone surrogates, by its twin :func:`event_json_py`)."""
    if _native_json is not None:
        line = _native_json(ev, TimelineEvent)
        if line is not NotImplemented:
            return line
    return event_json_py(ev)


def event_json_py(ev: TimelineEvent) -> str:
    """:func:`event_json`'s pure-Python twin: the pieces that recur are written once."""
    k1 = (ev.clock, ev.estimate, ev.kind, ev.source, ev.file)
    head = _HEADS.get(k1) or _head(k1)
    k2 = (ev.log_dir, ev.topic)
    mid = _MIDS.get(k2) or _mid(k2)
    k3 = (ev.transactional_id, ev.group, ev.object)
    who = _WHOS.get(k3) or _who(k3)
    text = _TEXTS.get(ev.text) or _text(ev.text)
    if ev.related or ev.related_more:
        rel = "[" + ",".join([json_str(r) for r in ev.related_list()]) + "]"
    else:
        rel = "[]"
    tail = "" if ev.severity is None else ',"severity":' + json_str(ev.severity)
    if ev.replicas is not None:
        tail += ',"replicas":' + json_text(ev.replicas)
    if ev.members is not None:
        tail += ',"members":' + json_text(ev.members)
    t, pos, off, b, p, pid = (ev.time, ev.position, ev.offset, ev.broker, ev.partition,
                              ev.producer_id)
    return (f'{{"type":"timeline_event","time":{"null" if t is None else t}{head}'
            f'{"null" if pos is None else pos},"offset":{"null" if off is None else off}'
            f',"broker":{"null" if b is None else b}{mid}{"null" if p is None else p}'
            f',"producer_id":{"null" if pid is None else pid}{who}{text},"related":{rel}'
            f',"late":{"true" if ev.late else "false"}{tail}}}\n')


#: event lines joined into one write (a write costs about what a line does); on a
#: terminal each line is written as it comes
LINES_PER_WRITE = 256


class TimelineJsonRenderer:
    """JSON Lines (kdump/model/timeline.py), a finding's Problem not written twice;
    events written by :func:`event_json` while the model's fields are its own, held
    until :data:`LINES_PER_WRITE` are (or anything else is written, or the end)."""

    def __init__(self, out: TextIO) -> None:
        self.json = JsonRenderer(out)
        self.out = out
        self.seen = _Seen()
        self.fast = event_fields_match_model()
        self.native = _native_json if self.fast else None
        self.lines: list[str] = []
        try:
            terminal = out.isatty()
        except (AttributeError, ValueError):
            terminal = False
        self.per_write = 1 if terminal else LINES_PER_WRITE

    def emit(self, item: object) -> None:
        if type(item) is TimelineEvent and self.fast:
            self.seen.problem = item.problem
            line = NotImplemented if self.native is None else self.native(item, TimelineEvent)
            lines = self.lines
            lines.append(event_json_py(item) if line is NotImplemented else line)
            if len(lines) >= self.per_write:
                self.out.write("".join(lines))
                lines.clear()
            return
        self._flush()
        if not self.seen.shown(item):
            self.json.emit(item)

    def _flush(self) -> None:
        if self.lines:
            self.out.write("".join(self.lines))
            self.lines.clear()

    def close(self) -> None:
        self._flush()
        self.json.close()


class TimelineTableRenderer:
    """A rich table of the events (or of the counts), written at the end."""

    def __init__(self, out: TextIO, err: TextIO, *, tz: str | None = None) -> None:
        from .table import make_console

        self.console = make_console(out)
        self.err = InertLines(err)
        self.tz = zone(tz)
        self.rows: list[tuple[str, ...]] = []
        self.counts: list[tuple[str, ...]] = []
        self.end: TimelineEnd | None = None
        self.seen = _Seen()
        #: rows past TABLE_ROWS: counted, not drawn (a table is read on a screen)
        self.left_out = 0

    def emit(self, item: object) -> None:
        if self.seen.shown(item):
            return
        if isinstance(item, (TimelineEvent, TimelineCount)) and \
                len(self.rows) + len(self.counts) >= TABLE_ROWS:
            self.left_out += 1
            return
        if isinstance(item, TimelineEvent):
            what = item.text + "".join(f"\n  related: {r}" for r in item.related_list())
            self.rows.append((("~" if item.estimate else "") + iso(item.time, self.tz),
                              item.clock, item.kind, item.object, what, source_of(item)))
        elif isinstance(item, TimelineCount):
            self.counts.append(("-" if item.minute < 0 else iso(item.minute, self.tz),
                                item.kind, str(item.count)))
        elif isinstance(item, Problem):
            self.err.write(problem_line(item) + "\n")
        elif isinstance(item, TimelineEnd):
            self.end = item

    def close(self) -> None:
        from rich.table import Table
        from rich.text import Text

        if self.counts:
            t = Table(title="events per minute", title_justify="left")
            for c in ("minute", "kind", "count"):
                t.add_column(c, justify="right" if c == "count" else "left")
            for row in self.counts:
                t.add_row(*(Text(inert(c)) for c in row))
            self.console.print(t)
        elif self.rows or self.end is None or not self.counts:
            t = Table(title="timeline", title_justify="left")
            for c in ("time", "clock", "kind", "object", "what", "source"):
                t.add_column(c, overflow="fold")
            for row in self.rows:
                t.add_row(*(Text(inert(c) if "\n" not in c else
                                 "\n".join(inert(x) for x in c.split("\n"))) for c in row))
            self.console.print(t)
        if self.left_out:
            self.err.write(f"timeline: {plural(self.left_out, 'more row')} not drawn (a table "
                           f"holds {TABLE_ROWS:,}): --format text or json writes them all\n")
        if self.end is not None:
            self.err.write(end_line(self.end, self.tz) + "\n")
