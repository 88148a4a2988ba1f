"""``kdump browse``'s timeline of one partition (``T`` on a partition in the tree or in
the partition screen): every replica the browse was given of that topic-partition and
the metadata log's events about it (:func:`kdump.ops.timeline.partition_events`, what
``kdump timeline --topic T --partition P`` prints), one row an event: its time (UTC,
``~`` an estimate), whose clock, the broker, the kind, what changed and the source
file and byte.

Read in a Textual worker (a thread) and drawn as it comes, at most :data:`MAX_ROWS`
rows (the rest counted, and said); Escape stops the read and goes back.  Enter on an
event whose source is a batch of this partition (on the replica browsed when there
is one) opens that batch; on any other event, the event in full.  Every string from
the data is inert text (:func:`~.widgets.safe`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar, Protocol

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static
from textual.worker import get_current_worker

from ..ops.browse import LogDirNode, PartitionNode
from ..ops.timeline import TimelineEvent, iso, partition_events
from .widgets import DetailScreen, fit_lines, fits, pass_on, plural, safe, set_rows

#: rows drawn at most (the events past them are counted, and said)
MAX_ROWS = 2000
#: events handed to the screen at once
CHUNK = 64
COLUMNS = ("time (UTC)", "clock", "broker", "kind", "what changed", "source")

#: the events of a topic-partition: ``(paths, topic, partition, max_batch_bytes)``
EventSource = Callable[[Sequence[str], str, int, int], Iterable[TimelineEvent]]


def events_of(paths: Sequence[str], topic: str, partition: int,
            max_batch_bytes: int) -> Iterator[TimelineEvent]:
    return partition_events(paths, topic, partition, max_batch_bytes=max_batch_bytes)


class Opener(Protocol):
    """What the timeline asks of the app (kdump/tui/app.py's BrowseApp)."""

    def open_partition_at(self, node: PartitionNode, path: str, position: int) -> None: ...


def brokers_of(ev: TimelineEvent) -> str:
    """The broker the event is on, or the brokers of the replicas it was said once for."""
    if ev.replicas:
        ids = sorted({r["broker"] for r in ev.replicas if r.get("broker") is not None})
        if ids:
            return ",".join(str(b) for b in ids)
    return "" if ev.broker is None else str(ev.broker)


def source_of(path: str | None, position: int | None) -> str:
    """``partition-dir/file:position`` (the log dir is in the event in full)."""
    if path is None:
        return ""
    short = "/".join(path.rstrip("/").split("/")[-2:])
    return short if position is None else f"{short}:{position}"


def event_cells(ev: TimelineEvent) -> list[Text]:
    t = Text("~" if ev.estimate else " ", style="yellow")
    t.append(iso(ev.time))
    text = safe(ev.text)
    if ev.late:
        text.append(" [late]", style="dim")
    return [t, safe(ev.clock), Text(brokers_of(ev)), safe(ev.kind, "bold"), text,
            safe(source_of(ev.file, ev.position), "dim")]


def event_text(ev: TimelineEvent) -> Text:
    """An event in full: every field, its related events, each replica's source (a line
    each; each line's data inert)."""
    lines = [safe(f"{ev.kind}  {ev.object}", "bold"),
             safe(f"{'~' if ev.estimate else ''}{iso(ev.time)} ({ev.clock} clock"
                  f"{', an estimate' if ev.estimate else ''})"),
             safe(ev.text)]
    if ev.offset is not None:
        lines.append(Text(f"offset {ev.offset}"))
    if ev.producer_id is not None:
        lines.append(Text(f"producer {ev.producer_id}"))
    lines += [safe(f"related: {rel}") for rel in ev.related_list()]
    where: list[dict[str, Any]] = ev.replicas or (
        [{"broker": ev.broker, "file": ev.file, "position": ev.position}] if ev.file else [])
    for r in where:
        b = r.get("broker")
        pos = r.get("position")
        lines.append(safe(f"source{'' if b is None else f' (broker {b})'}: {r.get('file')}"
                          + ("" if pos is None else f" byte {pos}")))
    return Text("\n").join(lines)


class TimelineScreen(Screen[None]):
    DEFAULT_CSS = """
    TimelineScreen #events { height: 1fr; border-top: heavy $accent; }
    TimelineScreen #event { height: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("enter", "open", "Open batch"),
        Binding("i", "detail", "In full", show=False),
    ]

    def __init__(self, paths: Sequence[str], node: PartitionNode, logdirs: list[LogDirNode],
                 max_batch_bytes: int, *, source: EventSource | None = None) -> None:
        super().__init__()
        self.paths = list(paths)
        self.node = node
        #: the replicas of this topic-partition in the browse, by directory
        self.replicas = {p.path: p for ld in logdirs for p in ld.partitions
                         if (p.topic, p.partition) == (node.topic, node.partition)
                         and p.unreadable is None}
        self.max_batch_bytes = max_batch_bytes
        self.source = source or events_of
        #: the events drawn, in order (row i is events[i])
        self.events: list[TimelineEvent] = []
        #: events read past :data:`MAX_ROWS`, not drawn
        self.left_out = 0
        #: None while the read runs; then "done", "stopped" or the error's words
        self.ended: str | None = None

    def compose(self) -> ComposeResult:
        title = safe(f"{self.node.topic}-{self.node.partition}", "bold")
        title.append("  timeline: every replica given and the metadata log (UTC, ~ estimate)")
        yield Static(title, id="title")
        yield DataTable(id="events", cursor_type="row")
        yield Static(Text(""), id="event")
        yield Static(Text("reading the timeline ... (Escape stops)"), id="status")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#events", DataTable)
        set_rows(table, COLUMNS, [])
        table.border_title = "» events"
        table.focus()
        self.run_worker(self._read, thread=True, exclusive=True, group="timeline",
                        name="kdump-browse-timeline")

    # --- the read (a thread) -------------------------------------------------------------
    def _read(self) -> None:
        worker = get_current_worker()
        chunk: list[TimelineEvent] = []
        drawn = 0
        left_out = 0
        try:
            for ev in self.source(self.paths, self.node.topic, self.node.partition,
                                  self.max_batch_bytes):
                if worker.is_cancelled:
                    return
                if drawn < MAX_ROWS:
                    chunk.append(ev)
                    drawn += 1
                    if len(chunk) >= CHUNK:
                        self.app.call_from_thread(self._add, chunk, left_out)
                        chunk = []
                else:
                    left_out += 1
            ended = "done"
        except Exception as e:  # a read that fails: said on the screen, never raised
            why = getattr(e, "message", None) or f"{type(e).__name__}: {e}"
            ended = f"the timeline could not be read: {why}"
        if worker.is_cancelled:
            return
        try:
            self.app.call_from_thread(self._add, chunk, left_out, ended)
        except RuntimeError:
            pass  # the app has stopped

    def _add(self, chunk: list[TimelineEvent], left_out: int, ended: str | None = None) -> None:
        table = self.query_one("#events", DataTable)
        cells = [event_cells(ev) for ev in chunk]
        self.events.extend(chunk)
        if fits(table, cells):
            for c in cells:
                table.add_row(*c, key=str(table.row_count))
        else:  # a wider value: every column sized again from the rows
            cur = table.cursor_row
            set_rows(table, COLUMNS, [event_cells(ev) for ev in self.events])
            table.move_cursor(row=max(cur, 0), animate=False)
        self.left_out = left_out
        if ended is not None:
            self.ended = ended
        self._say()

    def _say(self) -> None:
        n = len(self.events)
        t = Text(plural(n, "event"))
        if self.left_out:
            t.append_text(safe(f", {plural(self.left_out, 'more event')} not drawn (at "
                               f"most {MAX_ROWS:,} rows: kdump timeline --topic "
                               f"{self.node.topic} --partition {self.node.partition} lists "
                               "them all)", "yellow"))
        if self.ended is None:
            t.append(" ... reading (Escape stops)", style="dim")
        elif self.ended == "done":
            if n:
                t.append("  (Enter on a batch's event: the batch)", style="dim")
        else:
            t.append("  ")
            t.append_text(safe(self.ended, "bold red"))
        self.query_one("#status", Static).update(t)

    # --- keys ----------------------------------------------------------------------------
    def on_key(self, event: events.Key) -> None:
        if pass_on(self, event):
            return
        if event.key in ("j", "k"):
            event.stop()
            event.prevent_default()
            table = self.query_one("#events", DataTable)
            (table.action_cursor_down if event.key == "j" else table.action_cursor_up)()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The selected event's words and source whole, under the table (a narrow
        screen cuts the table's last columns)."""
        i = event.cursor_row
        if 0 <= i < len(self.events):
            ev = self.events[i]
            t = safe(f"{ev.object}: {ev.text}", "bold")
            if ev.file is not None:
                t.append_text(safe(f"  @ {ev.file}" + ("" if ev.position is None
                                                       else f":{ev.position}"), "dim"))
            box = self.query_one("#event", Static)
            box.update(fit_lines(self.app.console, t, box.size.width or self.app.size.width,
                                 hint=" … (i: in full)"))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def target(self, ev: TimelineEvent) -> tuple[PartitionNode, str, int] | None:
        """The batch of this partition the event's source is: on the replica browsed
        when the event is on it, else the first replica of the browse it is on."""
        places = [(ev.file, ev.position)] + [(r.get("file"), r.get("position"))
                                             for r in ev.replicas or []]
        found = [(self.replicas[os.path.dirname(f)], f, pos) for f, pos in places
                 if isinstance(f, str) and f.endswith(".log") and isinstance(pos, int)
                 and os.path.dirname(f) in self.replicas]
        for node, f, pos in found:
            if node is self.node:
                return node, f, pos
        return found[0] if found else None

    def action_detail(self) -> None:
        """``i``: the selected event in full (Enter on a batch's event opens the batch)."""
        table = self.query_one("#events", DataTable)
        if 0 <= table.cursor_row < len(self.events):
            ev = self.events[table.cursor_row]
            self.app.push_screen(DetailScreen(event_text(ev), ev.kind))

    def action_open(self) -> None:
        table = self.query_one("#events", DataTable)
        i = table.cursor_row
        if not (0 <= i < len(self.events)):
            return
        ev = self.events[i]
        where = self.target(ev)
        if where is None:
            self.app.push_screen(DetailScreen(event_text(ev), f"{ev.kind} (not a batch of "
                                                              f"{self.node.name})"))
            return
        app: Opener = self.app  # type: ignore[assignment]
        self.workers.cancel_group(self, "timeline")
        self.dismiss(None)
        app.open_partition_at(*where)

    def action_back(self) -> None:
        self.workers.cancel_group(self, "timeline")
        self.dismiss(None)
