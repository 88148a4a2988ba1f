"""``kdump browse``'s partition: its segments, a window of its batches (damaged regions
as rows of their own) and the selected batch's records; ``g``/``t`` jumps, ``n``/``N``
findings, ``x`` the batch's bytes (:class:`HexScreen`)."""

from __future__ import annotations

import threading
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ..findings import Problem
from ..ops.browse import (
    PAGE_ROWS,
    BatchRow,
    Jump,
    PartitionNode,
    PartitionView,
    RecordRow,
    hex_model,
    partition_findings,
)
from .search import SearchScreen
from .widgets import (
    SEVERITY_STYLE,
    Prompt,
    bad_line,
    hex_text,
    human,
    pass_on,
    safe,
)

#: rows kept above a jump's target (read from an offset index entry before it)
ROWS_ABOVE = 40
#: partitions up to this many bytes are read for ``n`` at once, larger ones in the background
SYNC_CHECK_BYTES = 64 << 20

#: characters of a key, value or headers shown in the records table (Enter shows all)
CELL_CHARS = 200


def cell(s: str) -> Text:
    """A table cell of data: inert, and cut (a value may be megabytes)."""
    t = safe(s[: CELL_CHARS * 2])
    if len(t) > CELL_CHARS:
        t = t[:CELL_CHARS]
        t.append("…", style="dim")
    return t


class PartitionScreen(SearchScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("g", "goto_offset", "Offset"),
        Binding("t", "goto_time", "Time"),
        Binding("n", "finding(1)", "Next finding"),
        Binding("N", "finding(-1)", "Prev finding", key_display="N"),
        Binding("x", "hex", "Bytes"),
    ]

    def __init__(self, node: PartitionNode, max_batch_bytes: int) -> None:
        super().__init__()
        self.node = node
        self.view = PartitionView(node, max_batch_bytes=max_batch_bytes)
        self.seg = 0
        self.rows: list[BatchRow] = []
        self.window_start = 0
        self.next_pos: int | None = None
        self.records: list[RecordRow] = []
        self.finding = -1
        self._shown: BatchRow | None = None
        #: the row a jump selected: its highlight keeps the jump's words in the status
        self._held: int | None = None
        self._checking = False

    def compose(self) -> ComposeResult:
        p = self.node
        title = safe(p.name, "bold")
        title.append("  ")
        title.append_text(safe(p.log_dir))
        title.append(f"  broker {p.broker_id if p.broker_id is not None else '?'}")
        yield Static(title, id="title")
        yield DataTable(id="segments", cursor_type="row", zebra_stripes=False)
        yield DataTable(id="batches", cursor_type="row")
        yield DataTable(id="records", cursor_type="row")
        yield Static(Text(""), id="status")
        yield Footer()

    def on_mount(self) -> None:
        segs = self.query_one("#segments", DataTable)
        segs.add_columns("segment", "file", "bytes", "")
        for i, s in enumerate(self.view.segments):
            segs.add_row(Text(str(s.base_offset)), safe(s.path.rsplit("/", 1)[-1]),
                         Text(human(s.size)), Text("active" if s.active else ""), key=str(i))
        segs.styles.height = min(len(self.view.segments), 3) + 1
        batches = self.query_one("#batches", DataTable)
        batches.add_columns("position", "offsets", "crc", "recs", "size", "codec", "max time",
                            "producer", "txn/ctl")
        recs = self.query_one("#records", DataTable)
        recs.add_columns("offset", "key", "value", "time", "headers")
        if self.view.segments:
            self.load(0, 0)
        else:
            self.status(Text("no segments in this partition"))
        batches.focus()

    def on_unmount(self) -> None:
        self.view.close()

    # --- rows ------------------------------------------------------------------------
    def status(self, text: Text) -> None:
        self.query_one("#status", Static).update(text)

    def load(self, seg: int, start: int, select: int | None = None,
             record: int | None = None) -> None:
        """Show segment ``seg``'s rows from byte ``start``; select the row at byte
        ``select`` (and the record at offset ``record``)."""
        self.seg = seg
        self.window_start = start
        rows: list[BatchRow] = []
        if select is not None and select > start:
            above, _ = self.view.read_rows(seg, start, limit=1 << 30, stop=select)
            rows = above[-ROWS_ABOVE:]
            self.window_start = rows[0].position if rows else select
            start = select
        more, self.next_pos = self.view.read_rows(seg, start, PAGE_ROWS)
        self.rows = rows + more
        self._fill()
        batches = self.query_one("#batches", DataTable)
        target = 0
        if select is not None:
            target = next((i for i, r in enumerate(self.rows)
                           if r.position <= select < max(r.end, r.position + 1)), 0)
        self._held = target
        batches.move_cursor(row=target, animate=False)
        self._show_records(target, record, quiet=True)
        self.query_one("#segments", DataTable).move_cursor(row=seg, animate=False)
        if not self.rows:
            self.status(safe(f"segment {self.view.segments[seg].base_offset} holds no batch "
                             f"({self.view.segments[seg].size} bytes)"))

    def _cells(self, r: BatchRow) -> list[Text]:
        if r.problem is not None:
            sev = str(r.problem.severity)
            return [Text(str(r.position)), Text(""),
                    safe(f"{r.problem.kind}", SEVERITY_STYLE.get(sev, "")), Text(""),
                    Text(str(r.size)), Text(""), Text(""), Text(""), Text("")]
        flags = ("T" if r.transactional else "-") + ("C" if r.control else "-")
        producer = "" if r.producer_id in (None, -1) else f"{r.producer_id}/{r.producer_epoch}"
        crc = Text(r.crc_state, style="" if r.crc_ok else "bold red")
        if r.note is not None:
            crc.append(" magic?", style="yellow")
        return [Text(str(r.position)), Text(r.offsets), crc,
                Text("-" if r.count is None else str(r.count)), Text(str(r.size)), Text(r.codec),
                Text(r.time), Text(producer), Text(flags)]

    def _fill(self) -> None:
        batches = self.query_one("#batches", DataTable)
        batches.clear()
        for i, r in enumerate(self.rows):
            batches.add_row(*self._cells(r), key=str(i))
        self._shown = None

    def _more_rows(self) -> None:
        if self.next_pos is None:
            return
        more, self.next_pos = self.view.read_rows(self.seg, self.next_pos, PAGE_ROWS)
        batches = self.query_one("#batches", DataTable)
        for r in more:
            batches.add_row(*self._cells(r), key=str(len(self.rows)))
            self.rows.append(r)

    def _earlier_rows(self) -> None:
        if self.window_start <= 0 or not self.rows:
            return
        start = self.view.earlier_start(self.seg, self.window_start)
        above, _ = self.view.read_rows(self.seg, start, limit=1 << 30, stop=self.window_start)
        if not above:
            return
        cur = self.query_one("#batches", DataTable).cursor_row
        self.rows = above + self.rows
        self.window_start = above[0].position
        self._fill()
        self.query_one("#batches", DataTable).move_cursor(row=cur + len(above), animate=False)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id != "batches":
            return
        i = event.cursor_row
        if i != event.data_table.cursor_row:
            return  # a highlight the table has already moved past (a reload, a jump)
        if i >= len(self.rows) - 5:
            self._more_rows()
        held, self._held = self._held, None
        self._show_records(i, None, quiet=held == i)

    def on_key(self, event: events.Key) -> None:
        """The partition's keys, run here in the order typed (a binding would run them
        after the keys that follow in a burst had passed)."""
        if pass_on(self, event):
            return
        if self.search_key(event.key):  # / n N Escape f y r (kdump/tui/search.py)
            event.stop()
            event.prevent_default()
            return
        key = event.key
        actions = {"g": self.action_goto_offset, "t": self.action_goto_time,
                   "n": lambda: self.action_finding(1), "N": lambda: self.action_finding(-1),
                   "x": self.action_hex}
        if key in actions:
            event.stop()
            event.prevent_default()
            actions[key]()
            return
        batches = self.query_one("#batches", DataTable)
        if key in ("up", "pageup", "home") and batches.has_focus and batches.cursor_row == 0:
            self._earlier_rows()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "segments":
            seg = event.cursor_row
            if 0 <= seg < len(self.view.segments):
                self.load(seg, 0)
                self.query_one("#batches", DataTable).focus()
        elif event.data_table.id == "records":
            i = event.cursor_row
            if 0 <= i < len(self.records):
                self.action_record()

    def current(self) -> BatchRow | None:
        i = self.query_one("#batches", DataTable).cursor_row
        return self.rows[i] if 0 <= i < len(self.rows) else None

    def _show_records(self, i: int, record: int | None, quiet: bool = False) -> None:
        recs = self.query_one("#records", DataTable)
        if not (0 <= i < len(self.rows)):
            recs.clear()
            self.records = []
            return
        row = self.rows[i]
        if row is self._shown and record is None:
            return
        self._shown = row
        page = self.view.records(row)
        self.records = page.records
        recs.clear()
        for k, r in enumerate(page.records):
            heads = ", ".join(f"{hk}={hv}" for hk, hv in r.headers)
            recs.add_row(Text(str(r.offset)), cell(r.key), cell(r.value), Text(r.time),
                         cell(heads), key=str(k))
        where = 0
        if record is not None:
            where = next((k for k, r in enumerate(page.records) if r.offset == record), 0)
        recs.move_cursor(row=where, column=0, animate=False)
        recs.scroll_x = 0
        if not quiet:
            self.status(self._describe(row, page.error, page.more))

    def _describe(self, row: BatchRow, error: str | None, more: bool) -> Text:
        if row.problem is not None:
            t = safe(f"byte {row.position}: {row.problem.kind}: {row.problem.detail}",
                     SEVERITY_STYLE.get(str(row.problem.severity), ""))
            return t
        t = Text(f"batch {row.offsets} at byte {row.position}, {row.size} bytes, "
                 f"crc {row.crc_state}")
        if row.note:
            t.append(" ")
            t.append_text(safe(row.note, "yellow"))
        if error:
            t.append(" ")
            t.append_text(safe(error, "bold red"))
        if more:
            t.append(" (records past the first 2000 not shown)")
        return t

    # --- jumps -----------------------------------------------------------------------
    def _go(self, jump: Jump) -> None:
        if not jump.found or jump.segment is None or jump.position is None:
            self.status(safe(jump.message, "yellow"))
            return
        start = self.view.earlier_start(jump.segment, jump.position)
        self.load(jump.segment, start, select=jump.position, record=jump.offset)
        self.status(safe(jump.message))
        self.query_one("#batches", DataTable).focus()

    def action_goto_offset(self) -> None:
        def done(answer: str | None) -> None:
            if answer is None or not answer.strip():
                return
            text = answer.strip()
            if not text.lstrip("-").isdigit() or len(text) > 20:
                self.status(safe(f"{text!r} is not an offset (a whole number)", "yellow"))
                return
            self._go(self.view.find_offset(int(text)))

        self.app.push_screen(Prompt("Go to offset:"), done)

    def action_goto_time(self) -> None:
        def done(answer: str | None) -> None:
            if answer is None or not answer.strip():
                return
            self._go(self.view.find_time(answer))

        self.app.push_screen(Prompt("Go to time (ISO-8601, e.g. 2024-05-01T09:14:00Z, or "
                                    "epoch ms):"), done)

    def action_finding(self, step: int) -> None:
        node = self.node
        if node.checked is None:
            if sum(s.size for s in node.segments) > SYNC_CHECK_BYTES:
                self._check_then(step)  # a large partition: read in the background
                return
            node.checked = partition_findings(node, max_batch_bytes=self.view.max_batch_bytes)
            self.app_refresh(node)
        findings = node.checked.findings
        if not findings:
            self.status(Text("no findings in this partition (verify-crc, verify-index)",
                             style="green"))
            return
        self.finding = (self.finding + step) % len(findings) if self.finding >= 0 else (
            0 if step > 0 else len(findings) - 1)
        p = findings[self.finding]
        self._go_finding(p)

    def _check_then(self, step: int) -> None:
        if self._checking:
            return
        self._checking = True
        self.status(Text("reading the partition for its findings (verify-crc, verify-index) ..."))
        node, app = self.node, self.app

        def work() -> None:
            try:
                found = partition_findings(node, max_batch_bytes=self.view.max_batch_bytes)
            except Exception as e:  # a read that fails: said, not raised in a thread
                msg = f"the partition could not be read: {e}"
                app.call_from_thread(lambda: self.status(safe(msg, "bold red")))
                return
            finally:
                self._checking = False

            def done() -> None:
                node.checked = node.checked or found
                self.app_refresh(node)
                if self.app.screen is self:
                    self.action_finding(step)

            try:
                app.call_from_thread(done)
            except RuntimeError:
                pass  # the app has stopped

        threading.Thread(target=work, name="kdump-browse-findings", daemon=True).start()

    def app_refresh(self, node: PartitionNode) -> None:
        checked = getattr(self.app, "partition_checked", None)
        if checked is not None:
            checked(node)

    def go_finding(self, p: Problem) -> None:
        self._go_finding(p)

    def _go_finding(self, p: Problem) -> None:
        n = self.finding
        total = len(self.node.checked.findings) if self.node.checked else 0
        seg = self.view.segment_of(p.path)
        if seg is not None and p.position is not None:
            start = self.view.earlier_start(seg, p.position)
            self.load(seg, start, select=p.position)
        elif p.base_offset is not None:
            j = self.view.find_offset(p.base_offset)
            if j.found and j.segment is not None and j.position is not None:
                self.load(j.segment, self.view.earlier_start(j.segment, j.position),
                          select=j.position, record=j.offset)
        where = []
        if p.base_offset is not None:
            where.append(f"offset {p.base_offset}")
        if p.position is not None:
            where.append(f"byte {p.position}")
        t = Text(f"finding {n + 1}/{total}: ", style="bold")
        t.append_text(safe(f"{p.kind} ({p.severity})", SEVERITY_STYLE.get(str(p.severity), "")))
        t.append_text(safe(f" {', '.join(where)}{' ' if where else ''}in "
                           f"{p.path.rsplit('/', 1)[-1]}: {p.detail}"))
        self.status(t)
        self.query_one("#batches", DataTable).focus()

    def action_hex(self) -> None:
        row = self.current()
        if row is None:
            return
        m = hex_model(self.view, row)
        text = hex_text(m)
        self.app.push_screen(HexScreen(text, bad_line(m, text)))

    def action_back(self) -> None:
        self.app.pop_screen()


class HexScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back")]

    def __init__(self, text: Text, bad: int | None = None) -> None:
        super().__init__()
        self.text = text
        #: the line of the first bad byte: scrolled into view when the view opens
        self.bad = bad

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="hexscroll"):
            yield Static(self.text, id="hex")
        yield Footer()

    def on_mount(self) -> None:
        box = self.query_one("#hexscroll", VerticalScroll)
        box.focus()
        if self.bad is not None:
            bad = self.bad
            self.call_after_refresh(
                lambda: box.scroll_to(y=max(0, bad - box.size.height // 2), animate=False))

    def on_key(self, event: events.Key) -> None:
        pass_on(self, event)

    def action_back(self) -> None:
        self.app.pop_screen()
