"""``kdump browse``'s partition: its segments, a window of its batches (damaged regions
as rows of their own) and the selected batch's records, each pane titled and its columns
sized from the rows in view; ``g``/``t`` jumps, Home/``gg`` and End/``G`` the first and
last batch, ``n``/``N`` findings, ``x`` the batch's bytes (:class:`~.widgets.HexScreen`),
Enter the batch whole, ``T`` the timeline.  A read that fails is said on the screen,
never raised.

Size: over 600 lines, as it is one screen: its panes, the window of rows, the jumps,
the findings and End's background read all move the one selection it keeps."""

from __future__ import annotations

import threading
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Footer, Static
from textual.worker import Worker, get_current_worker

from ..errors import KdumpError
from ..findings import Problem
from ..ops.browse import (
    PAGE_ROWS,
    BatchRow,
    Jump,
    LastScan,
    PartitionNode,
    PartitionView,
    RecordRow,
    hex_model,
    partition_findings,
    position_label,
)
from .search import SearchScreen
from .widgets import (
    SEVERITY_STYLE,
    DetailScreen,
    HexScreen,
    Prompt,
    bad_line,
    cell,
    fit_lines,
    fits,
    hex_text,
    human,
    pass_on,
    plural,
    record_text,
    safe,
    set_rows,
)

#: rows kept above a jump's target (read from an offset index entry before it)
ROWS_ABOVE = 40
#: partitions up to this many bytes are read for ``n`` at once, larger ones in the background
SYNC_CHECK_BYTES = 64 << 20

#: End/G, or Up into the segment before, reads in the background a segment it would read
#: more than this of (no offset index entry near its end): a progress line, Escape stops
SYNC_SCAN_BYTES = 4 << 20

#: the columns of the three panes
SEGMENT_COLUMNS = ("segment", "file", "bytes", "")
BATCH_COLUMNS = ("position", "offsets", "crc", "recs", "size", "codec", "max time", "producer",
                 "txn/ctl")
RECORD_COLUMNS = ("offset", "key", "value", "time", "headers")


class PartitionScreen(SearchScreen):
    DEFAULT_CSS = """
    PartitionScreen DataTable { border-top: solid $panel-lighten-2; }
    PartitionScreen DataTable:focus { border-top: heavy $accent; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        # the footer at 80 columns: the keys needed most, ``?`` for the rest (the
        # screen's keys run from on_key; these say them)
        Binding("escape", "back", "Back"),
        Binding("g", "goto_offset", "Offset"),
        Binding("t", "goto_time", "Time"),
        Binding("n", "finding(1)", "Finding", key_display="n/N"),
        Binding("N", "finding(-1)", "Prev finding", key_display="N", show=False),
        Binding("slash", "search", "Search", key_display="/"),
        Binding("x", "hex", "Bytes", show=False),
        Binding("T", "timeline", "Timeline", key_display="T"),
    ]

    def __init__(self, node: PartitionNode, max_batch_bytes: int,
                 at: tuple[str, int] | None = None) -> None:
        super().__init__()
        self.node = node
        #: the batch to open at (a segment's path, a byte): the timeline's Enter
        self.at = at
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
        #: the status line's text whole
        self.said = Text("")
        #: the finding ``n``/``N`` went to last, and the row it selected (Enter on that
        #: row shows the finding whole)
        self._finding: tuple[Text, BatchRow | None] | None = None
        self._checking = False
        #: End/G's background read to a segment's last batch (None: none running)
        self.scanner: Worker[None] | None = None
        self._scan_gen = 0
        #: the cells of ``rows`` (the batches table is rebuilt from them when a row
        #: read later is wider than its column)
        self.cells: list[list[Text]] = []
        #: the panes' titles (the focused one is marked)
        self.titles = {"segments": "segments", "batches": "batches", "records": "records"}

    def compose(self) -> ComposeResult:
        p = self.node
        title = safe(p.name, "bold")  # the log dir last: a narrow screen cuts it first
        title.append(f"  broker {p.broker_id if p.broker_id is not None else '?'}  ")
        title.append_text(safe(p.log_dir))
        yield Static(title, id="title")
        yield DataTable(id="segments", cursor_type="row", zebra_stripes=False)
        yield DataTable(id="batches", cursor_type="row")
        yield DataTable(id="records", cursor_type="row")
        yield Static(Text(""), id="status")
        yield Footer()

    def on_mount(self) -> None:
        segs = self.query_one("#segments", DataTable)
        set_rows(segs, SEGMENT_COLUMNS, [
            [Text(str(s.base_offset)), safe(s.path.rsplit("/", 1)[-1]), Text(str(s.size)),
             Text("active" if s.active else "")] for s in self.view.segments])
        segs.styles.height = min(len(self.view.segments), 3) + 2
        n = len(self.view.segments)
        self.titles["segments"] = f"segments ({n}{' given' if self.node.given else ''})"
        batches = self.query_one("#batches", DataTable)
        set_rows(batches, BATCH_COLUMNS, [])
        set_rows(self.query_one("#records", DataTable), RECORD_COLUMNS, [])
        if self.view.segments:
            self.load(0, 0)
        elif self.node.unreadable is not None:
            p = self.node.unreadable
            self.status(safe(f"{p.kind}: {p.detail} ({p.path})", "bold red"))
        else:
            self.status(Text("no segments in this partition"))
        batches.focus()
        self._titles()
        if self.at is not None:
            self.go_position(*self.at)

    def go_position(self, path: str, position: int) -> None:
        """The batch at byte ``position`` of segment ``path`` selected (the timeline's
        Enter on an event of this partition)."""
        seg = self.view.segment_of(path)
        if seg is None:
            self.status(safe(f"{path} is not a segment of this partition", "yellow"))
            return
        self.load(seg, self.view.earlier_start(seg, position), select=position)
        self.query_one("#batches", DataTable).focus()
        row = self.current()
        if row is not None:
            self.status(self._describe(row, None, False))

    def _titles(self) -> None:
        """Each pane titled, the focused one marked (» and a heavy line)."""
        for name, title in self.titles.items():
            table = self.query_one(f"#{name}", DataTable)
            table.border_title = ("» " if table.has_focus else "") + title

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._titles()

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self._titles()

    def on_resize(self, event: events.Resize) -> None:
        """The selection kept in view at the new size."""
        def keep() -> None:
            for name in ("segments", "batches", "records"):
                t = self.query_one(f"#{name}", DataTable)
                if t.row_count:
                    t.move_cursor(row=t.cursor_row, animate=False)
        self.call_after_refresh(keep)
        self.call_after_refresh(lambda: self.status(self.said))

    def on_unmount(self) -> None:
        self.view.close()

    # --- rows ------------------------------------------------------------------------
    def status(self, text: Text) -> None:
        """The status line: ``text``, cut to its two lines with a hint when longer (the
        whole of it: :attr:`said`, and Enter)."""
        self.said = text
        box = self.query_one("#status", Static)
        box.update(fit_lines(self.app.console, text, box.size.width or self.app.size.width))

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
        self.cells = [self._cells(r) for r in self.rows]
        set_rows(batches, BATCH_COLUMNS, self.cells)
        self._shown = None

    def _more_rows(self) -> None:
        if self.next_pos is None:
            return
        more, self.next_pos = self.view.read_rows(self.seg, self.next_pos, PAGE_ROWS)
        batches = self.query_one("#batches", DataTable)
        cells = [self._cells(r) for r in more]
        self.rows.extend(more)
        self.cells.extend(cells)
        if fits(batches, cells):
            for c in cells:
                batches.add_row(*c, key=str(batches.row_count))
            return
        cur = batches.cursor_row  # a wider value below: every column sized again
        set_rows(batches, BATCH_COLUMNS, self.cells)
        batches.move_cursor(row=cur, animate=False)

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
        self._where(i)

    def _where(self, i: int) -> None:
        """The batches pane's title: where the selected batch is in the partition."""
        checked = self.node.checked
        counted = checked.batches if checked is not None and checked.batches and \
            self.node.unreadable is None else None
        where = "" if not (0 <= i < len(self.rows)) else ": " + position_label(
            [s.size for s in self.view.segments], self.seg, self.rows, i, self.window_start,
            self.next_pos is None, counted)
        self.titles["batches"] = "batches" + where
        self._titles()

    def on_key(self, event: events.Key) -> None:
        """The partition's keys, run here in the order typed (a binding would run them
        after the keys that follow in a burst had passed)."""
        if pass_on(self, event):
            return
        if event.key == "escape" and self.scanner is not None:
            event.stop()
            event.prevent_default()
            self.stop_scan()
            return
        if self.search_key(event.key):  # / n N Escape f y r (kdump/tui/search.py)
            event.stop()
            event.prevent_default()
            return
        key = event.key
        batches = self.query_one("#batches", DataTable)
        actions = {"g": self.action_goto_offset, "t": self.action_goto_time,
                   "n": lambda: self.action_finding(1), "N": lambda: self.action_finding(-1),
                   "x": self.action_hex, "G": self.action_last, "T": self.action_timeline}
        if batches.has_focus:
            actions |= {"home": self.action_first, "end": self.action_last}
        focused = self.focused
        if isinstance(focused, DataTable):
            actions |= {"j": focused.action_cursor_down, "k": focused.action_cursor_up}
        if key in actions:
            event.stop()
            event.prevent_default()
            actions[key]()
            return
        if not batches.has_focus:
            return
        if key in ("up", "pageup") and batches.cursor_row == 0:
            if self.window_start > 0:
                self._earlier_rows()
            elif self.seg > 0:  # on into the previous segment, at its last batch
                event.stop()
                event.prevent_default()
                self._segment_end(self.seg - 1)
        elif key in ("down", "pagedown") and batches.cursor_row >= len(self.rows) - 1 \
                and self.next_pos is None and self.seg + 1 < len(self.view.segments):
            event.stop()
            event.prevent_default()
            self.load(self.seg + 1, 0)  # on into the next segment, at its first batch
            self.status(safe(f"segment {self.view.segments[self.seg].base_offset}"))

    def action_first(self) -> None:
        """The partition's first batch (Home, ``gg``)."""
        if self.view.segments:
            self.load(0, 0)
            self.status(Text("the partition's first batch"))
        self.query_one("#batches", DataTable).focus()

    def action_last(self) -> None:
        """The partition's last batch (End, ``G``): the real last one, read from the last
        segment's offset index entry near its end, not the last row read so far."""
        self._go_last(len(self.view.segments) - 1, 0, "the partition's last batch")
        self.query_one("#batches", DataTable).focus()

    def _segment_end(self, seg: int) -> None:
        self._go_last(seg, seg, None)

    def _go_last(self, seg: int, down_to: int, said: str | None) -> None:
        """The last batch of segment ``seg``, else of the one before ... down to
        ``down_to``; a segment with no offset index entry near its end, read whole, is
        read in the background (:meth:`_scan_last`)."""
        if self.scanner is not None:
            return  # one read to the end at a time
        for s in range(seg, down_to - 1, -1):
            scan = LastScan(self.view, s)
            if scan.to_read > SYNC_SCAN_BYTES:
                self._scan_last(s, down_to, said)
                return
            while not scan.step():
                pass
            if scan.last is not None:
                self._at_last(s, scan.last, said)
                return
        if said is not None:
            self.status(Text("no batch in this partition"))

    def _at_last(self, seg: int, pos: int, said: str | None) -> None:
        self.load(seg, self.view.earlier_start(seg, pos), select=pos)
        if said is not None:
            self.status(Text(said))

    def _scan_last(self, seg: int, down_to: int, said: str | None) -> None:
        """Segments ``seg`` down to ``down_to`` read to their last batch in a worker, on a
        view of its own (the screen's stays free for the keys), its progress on the status
        line; Escape stops it (:meth:`stop_scan`)."""
        self._scan_gen += 1
        gen = self._scan_gen
        node, mbb = self.node, self.view.max_batch_bytes

        def run() -> None:
            worker = get_current_worker()
            view = PartitionView(node, max_batch_bytes=mbb)
            try:
                for s in range(seg, down_to - 1, -1):
                    scan = LastScan(view, s)
                    while True:
                        self.app.call_from_thread(self._scan_progress, gen, s, scan)
                        if worker.is_cancelled:
                            return
                        if scan.step():
                            break
                    if scan.last is not None:
                        if not worker.is_cancelled:
                            self.app.call_from_thread(self._scan_ended, gen, s, scan.last,
                                                      said)
                        return
                if not worker.is_cancelled:
                    self.app.call_from_thread(self._scan_ended, gen, None, None, said)
            except Exception as e:  # said on the status line, never raised in a thread
                if not worker.is_cancelled:
                    msg = f"the read to the last batch stopped: {e}"
                    self.app.call_from_thread(self._scan_failed, gen, msg)
            finally:
                view.close()

        self.scanner = self.run_worker(run, name="kdump-browse-last", group="last",
                                       exclusive=True, thread=True, exit_on_error=False)

    def _scan_progress(self, gen: int, seg: int, scan: LastScan) -> None:
        if gen != self._scan_gen or not self.is_mounted:
            return
        pct = min(100, 100 * (scan.at - scan.start) // max(1, scan.size - scan.start))
        self.status(Text(f"reading segment {self.view.segments[seg].base_offset} to its last "
                         f"batch (no offset index entry near its end): {human(scan.at)} of "
                         f"{human(scan.size)} ({pct}%) (Escape stops)"))

    def _scan_ended(self, gen: int, seg: int | None, pos: int | None,
                    said: str | None) -> None:
        if gen != self._scan_gen or not self.is_mounted:
            return
        self.scanner = None
        if seg is None or pos is None:
            self.status(Text("no batch in this partition"))
            return
        self._at_last(seg, pos, said or f"segment {self.view.segments[seg].base_offset}'s "
                                         "last batch")
        self.query_one("#batches", DataTable).focus()

    def _scan_failed(self, gen: int, msg: str) -> None:
        if gen == self._scan_gen and self.is_mounted:
            self.scanner = None
            self.status(safe(msg, "bold red"))

    def stop_scan(self) -> None:
        """Escape while End/G reads: stopped where it is, the rows shown stay."""
        if self.scanner is None:
            return
        self.scanner.cancel()
        self.scanner = None
        self._scan_gen += 1
        self.status(Text("the read to the last batch stopped (End or G: again)",
                         style="yellow"))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "batches":
            self.action_detail()
        elif event.data_table.id == "segments":
            seg = event.cursor_row
            if 0 <= seg < len(self.view.segments):
                self.load(seg, 0)
                self.query_one("#batches", DataTable).focus()
        elif event.data_table.id == "records":
            i = event.cursor_row
            if 0 <= i < len(self.records):
                self.action_record()

    def action_detail(self) -> None:
        """The selected batch in full: where it is, its finding (every word of it) and
        its selected record, key, value and headers whole (Enter in the batches pane)."""
        row = self.current()
        if row is None:
            return
        t = self._describe(row, None, False, full=True)
        if self._finding is not None and self._finding[1] is row:
            t.append("\n\n")
            t.append_text(self._finding[0])
        recs = self.query_one("#records", DataTable)
        if 0 <= recs.cursor_row < len(self.records):
            t.append("\n\nselected record\n", style="bold underline")
            record_text(self.records[recs.cursor_row], t)
        self.app.push_screen(DetailScreen(t, f"byte {row.position} of "
                                             f"{self.view.segments[row.segment].path}"))

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
        set_rows(recs, RECORD_COLUMNS, [
            [Text(str(r.offset)), cell(r.key), cell(r.value), Text(r.time),
             cell(", ".join(f"{hk}={hv}" for hk, hv in r.headers))] for r in page.records])
        self.titles["records"] = (f"records of batch {row.offsets} ({len(page.records)}"
                                  f"{'+' if page.more else ''})" if not row.is_region
                                  else "records (none: a damaged region)")
        self._titles()
        where = 0
        if record is not None:
            where = next((k for k, r in enumerate(page.records) if r.offset == record), 0)
        recs.move_cursor(row=where, column=0, animate=False)
        recs.scroll_x = 0
        if not quiet:
            self.status(self._describe(row, page.error, page.more))

    def _describe(self, row: BatchRow, error: str | None, more: bool,
                  full: bool = False) -> Text:
        if row.problem is not None:
            p = row.problem
            t = safe(f"byte {row.position}: {p.kind} ({p.severity}): {p.detail}",
                     SEVERITY_STYLE.get(str(p.severity), ""))
            if full:
                t.append("\nfile ")
                t.append_text(safe(p.path))
                t.append(f"\n{row.size} bytes" + (f", base offset {p.base_offset}"
                                                  if p.base_offset is not None else ""))
            elif len(t) > 120:
                t.append("  (Enter: in full)", style="dim")
            return t
        t = Text(f"batch {row.offsets} at byte {row.position}, {row.size} bytes, "
                 f"crc {row.crc_state}")
        if full:
            t.append(f"\n{plural(row.count or 0, 'record')}, codec {row.codec or 'none'}, "
                     f"max time {row.time or '-'}, producer {row.producer_id}/"
                     f"{row.producer_epoch}, transactional {row.transactional}, "
                     f"control {row.control}, stored crc {row.stored_crc}"
                     + (f", computed {row.computed_crc}" if row.computed_crc is not None
                        else ""))
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
            if text == "gg":
                self.action_first()
                return
            if not text.lstrip("-").isdigit() or len(text) > 20:
                self.status(safe(f"{text!r} is not an offset (a whole number)", "yellow"))
                return
            jump = self.view.find_offset(int(text))
            if not jump.found and "above the log end" in jump.message:
                self.action_last()  # past the end: the last batch, and why
                self.status(safe(f"{jump.message}; the last batch selected", "yellow"))
                return
            if not jump.found and "below the log start" in jump.message:
                self.action_first()  # before the start: the first batch, and why
                self.status(safe(f"{jump.message}; the first batch selected", "yellow"))
                return
            self._go(jump)

        self.app.push_screen(Prompt("Go to offset (g again: the first batch):", {"g": "gg"}),
                             done)

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
            try:
                node.checked = partition_findings(node,
                                                  max_batch_bytes=self.view.max_batch_bytes)
            except KdumpError as e:
                self.status(safe(f"the partition could not be read: {e.message}", "bold red"))
                return
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
        self._finding = (t, self.current())
        self.query_one("#batches", DataTable).focus()

    def action_hex(self) -> None:
        row = self.current()
        if row is None:
            return
        try:
            m = hex_model(self.view, row)
        except KdumpError as e:  # the segment vanished, or cannot be read
            self.status(safe(f"the batch's bytes cannot be read: {e.message}", "bold red"))
            return
        text = hex_text(m)
        self.app.push_screen(HexScreen(text, bad_line(m, text)))

    def action_timeline(self) -> None:
        """``T``: this partition's timeline (kdump/tui/timeline.py)."""
        opener = getattr(self.app, "open_timeline", None)
        if opener is not None:
            opener(self.node)

    def action_back(self) -> None:
        self.app.pop_screen()
