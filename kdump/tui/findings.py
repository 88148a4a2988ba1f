"""``kdump browse``'s findings list (``f``): every finding of a partition, or of a log dir
from the tree, one row each, sortable by position (``p``, the partition's offset order)
or severity (``s``); the selected one whole below the table, wrapped; Enter jumps to its
batch.  The findings are read in the background (verify-crc, verify-index) when the
partition has not been read yet."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static
from textual.worker import get_current_worker

from ..findings import Problem
from ..ops.browse.tree import PartitionNode, finding_order
from .widgets import SEVERITY_STYLE, pass_on, safe

#: severities, most serious first (the ``s`` order)
SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
#: characters of a finding's words in its row (the pane below shows them whole)
DETAIL_CHARS = 120


@dataclass(frozen=True, slots=True)
class Finding:
    """A finding and the partition it belongs to (None: a file of the log dir no
    partition holds)."""

    node: PartitionNode | None
    problem: Problem

    @property
    def severity(self) -> str:
        return str(getattr(self.problem.severity, "value", self.problem.severity))


def position_key(f: Finding) -> tuple[str, int, tuple[int, int, int, int]]:
    n = f.node
    if n is None:
        return (os.path.dirname(f.problem.path), 0, (2**63, 0, 0, 0))
    return (n.topic, n.partition, finding_order(f.problem, n))


def severity_key(f: Finding) -> tuple[int, tuple[str, int, tuple[int, int, int, int]]]:
    return (SEVERITY_RANK.get(f.severity, 3), position_key(f))


def describe(f: Finding) -> Text:
    """A finding whole: severity, kind, partition, file, byte, offset, its words."""
    p = f.problem
    t = safe(f"{p.kind} ({f.severity})", "bold " + SEVERITY_STYLE.get(f.severity, ""))
    if f.node is not None:
        t.append("  ")
        t.append_text(safe(f.node.name, "bold"))
    t.append("\nfile ")
    t.append_text(safe(p.path))
    if p.position is not None:
        t.append(f"\nbyte {p.position}" + (f", {p.length} bytes" if p.length else ""))
    if p.base_offset is not None:
        t.append(f"\nbase offset {p.base_offset}")
    t.append("\n")
    t.append_text(safe(p.detail))
    return t


def fill(table: DataTable[object], rows: list[list[Text]]) -> None:
    """``table`` holding ``rows`` under its columns as they are, each column made as wide
    as its widest cell (a new segment's larger offset or size is never cut to the
    width the first rows gave)."""
    labels = [c.label.copy() for c in table.ordered_columns]
    widths = [max([label.cell_len] + [r[i].cell_len for r in rows])
              for i, label in enumerate(labels)]
    table.clear(columns=True)
    for label, width in zip(labels, widths, strict=True):
        table.add_column(label, width=width, key=label.plain)
    for i, r in enumerate(rows):
        table.add_row(*r, key=str(i))


class Closed(Exception):
    """The findings list was closed while its findings were being read."""


class FindingsScreen(Screen[Finding | None]):
    """The findings ``load(say)`` returns (run in a thread: it may read partitions whole,
    and ``say`` what it is reading); dismissed with the finding Enter chose."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("p", "sort('position')", "By position"),
        Binding("s", "sort('severity')", "By severity"),
        Binding("q", "app.quit_browse", "Quit"),
    ]
    DEFAULT_CSS = """
    FindingsScreen > #ftable { height: 1fr; }
    FindingsScreen > #fdetail { height: 8; border-top: solid $accent; }
    """

    def __init__(self, title: str,
                 load: Callable[[Callable[[str], None]], list[Finding]]) -> None:
        super().__init__()
        self.title_text = title
        self.load = load
        self.findings: list[Finding] = []
        self.order = "position"
        #: set once the findings are in the table (tests wait on it)
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield Static(safe(self.title_text, "bold"), id="ftitle")
        yield DataTable(id="ftable", cursor_type="row")
        with VerticalScroll(id="fdetail"):
            yield Static(Text("reading the findings (verify-crc, verify-index) …"), id="fwhole")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#ftable", DataTable)
        table.add_columns("#", "severity", "kind", "partition", "file", "byte", "offset",
                          "detail")
        table.focus()
        self.read()

    @work(thread=True, exclusive=True, group="findings", exit_on_error=False)
    def read(self) -> None:
        worker = get_current_worker()

        def say(words: str) -> None:
            if worker.is_cancelled:  # the list was closed: read no further
                raise Closed
            self.app.call_from_thread(self.reading, words)

        try:
            found = self.load(say)
        except Closed:
            return
        except Exception as e:  # a partition that cannot be read: said, not raised
            msg = f"the findings could not be read: {e}"
            self.app.call_from_thread(
                lambda: self.query_one("#fwhole", Static).update(safe(msg, "bold red")))
            return
        self.app.call_from_thread(self.show, found)

    def reading(self, words: str) -> None:
        if self.is_mounted and not self.loaded:
            self.query_one("#fwhole", Static).update(safe(words))

    def show(self, found: list[Finding]) -> None:
        if not self.is_mounted:
            return
        self.findings = found
        self.loaded = True
        self.action_sort(self.order)

    def action_sort(self, order: str) -> None:
        self.order = order
        self.findings.sort(key=severity_key if order == "severity" else position_key)
        table = self.query_one("#ftable", DataTable)
        rows = []
        for i, f in enumerate(self.findings):
            p = f.problem
            detail = p.detail if len(p.detail) <= DETAIL_CHARS else p.detail[:DETAIL_CHARS] + "…"
            rows.append([
                Text(str(i + 1)), safe(f.severity, SEVERITY_STYLE.get(f.severity, "")),
                safe(p.kind), safe(f.node.name if f.node is not None else "(log dir)"),
                safe(os.path.basename(p.path)),
                Text("" if p.position is None else str(p.position)),
                Text("" if p.base_offset is None else str(p.base_offset)),
                safe(detail)])
        fill(table, rows)  # every column as wide as its widest cell: no digit cut
        count = Text(f"{len(self.findings)} finding{'s' if len(self.findings) != 1 else ''}"
                     f", by {order} (p position, s severity, Enter jumps to it)")
        self.query_one("#ftitle", Static).update(
            safe(self.title_text, "bold").append("   ").append_text(count))
        if self.findings:
            table.move_cursor(row=0, animate=False)
            self.query_one("#fwhole", Static).update(describe(self.findings[0]))
        else:
            self.query_one("#fwhole", Static).update(
                Text("no findings (verify-crc, verify-index)", style="green"))

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        """A click on the severity column's header sorts by severity, on another's by
        position."""
        self.action_sort("severity" if event.column_index == 1 else "position")

    def selected(self) -> Finding | None:
        i = self.query_one("#ftable", DataTable).cursor_row
        return self.findings[i] if 0 <= i < len(self.findings) else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        f = self.selected()
        if f is not None:
            self.query_one("#fwhole", Static).update(describe(f))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        f = self.selected()
        if f is None:
            return
        if f.node is None:  # a file of the log dir no partition holds
            t = describe(f)
            t.append("\n(in no partition: nothing to open)", style="dim")
            self.query_one("#fwhole", Static).update(t)
            return
        self.dismiss(f)

    def on_key(self, event: events.Key) -> None:
        pass_on(self, event)

    def action_back(self) -> None:
        self.dismiss(None)
