"""``kdump browse``: the tree of log dirs, a partition's batches and records, a batch's
bytes.  Keys: ``/`` filter, Enter open, ``g`` offset, ``t`` time, ``n``/``N`` findings,
``x`` bytes, Escape back, ``?`` keys, ``q`` quit.  Read-only: it only reads files."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static, Tree
from textual.widgets.tree import TreeNode

from ..findings import Problem
from ..ops.browse import (
    PAGE_ROWS,
    BatchRow,
    Jump,
    LogDirNode,
    PartitionNode,
    PartitionView,
    RecordRow,
    TopicNode,
    browse_tree,
    hex_model,
    partition_findings,
)
from ..records.v2 import DEFAULT_MAX_BATCH_BYTES
from .widgets import (
    HelpScreen,
    LineEditor,
    Prompt,
    RecordScreen,
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
SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}


#: characters of a key, value or headers shown in the records table (Enter shows all)
CELL_CHARS = 200


def cell(s: str) -> Text:
    """A table cell of data: inert, and cut (a value may be megabytes)."""
    t = safe(s[: CELL_CHARS * 2])
    if len(t) > CELL_CHARS:
        t = t[:CELL_CHARS]
        t.append("…", style="dim")
    return t


def partition_label(p: PartitionNode) -> Text:
    t = safe(p.name, "bold")
    t.append(f"  {human(p.disk_bytes)}")
    return _counted(t, p.checked.records if p.checked else None,
                    p.checked.by_severity if p.checked else None)


def topic_label(topic: TopicNode) -> Text:
    """A topic of one log dir: its partitions' bytes, records and findings added up (the
    replicas of one broker's log dir; another log dir's are under their own)."""
    parts = topic.partitions
    t = safe(topic.name, "bold")
    t.append(f"  {len(parts)} partition{'s' if len(parts) != 1 else ''}"
             f"  {human(sum(p.disk_bytes for p in parts))}")
    if any(p.checked is None for p in parts):
        return _counted(t, None, None)
    counts = {s: sum(p.checked.by_severity[s] for p in parts if p.checked) for s in SEVERITY_STYLE}
    return _counted(t, sum(p.checked.records for p in parts if p.checked), counts)


def _counted(t: Text, records: int | None, counts: dict[str, int] | None) -> Text:
    if records is None or counts is None:
        t.append("  records …  findings …", style="dim")
        return t
    t.append(f"  {records} records")
    if not any(counts.values()):
        t.append("  clean", style="green")
        return t
    for sev, n in counts.items():
        if n:
            plural = "s" if n != 1 and sev != "info" else ""
            t.append(f"  {n} {sev}{plural}", style=SEVERITY_STYLE[sev])
    return t


def logdir_label(ld: LogDirNode) -> Text:
    t = safe(ld.path, "bold")
    t.append(f"  broker {ld.broker_id if ld.broker_id is not None else '?'}")
    t.append(f"  {len(ld.partitions)} partitions")
    if ld.problems:
        n = len(ld.problems)
        t.append(f"  {n} unplaced file{'s' if n != 1 else ''}", style="yellow")
    return t


class TreeScreen(Screen[None]):
    def __init__(self) -> None:
        super().__init__()
        self.matches: list[PartitionNode] = []
        self.leaves: dict[int, TreeNode[object]] = {}
        self.topics: dict[int, TreeNode[object]] = {}
        self.line: LineEditor | None = None
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield Static(Text("kdump browse: log dirs, topics, partitions (? keys, q quit)",
                          style="bold"), id="title")
        yield Static(Text(""), id="filter")
        tree: Tree[object] = Tree(Text("log dirs"), id="tree")
        tree.show_root = False
        yield tree
        yield Static(Text(""), id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#filter", Static).display = False
        self.rebuild("")
        self.query_one("#tree", Tree).focus()

    @property
    def app_(self) -> BrowseApp:
        app = self.app
        assert isinstance(app, BrowseApp)
        return app

    def rebuild(self, pattern: str) -> None:
        tree = self.query_one("#tree", Tree)
        tree.clear()
        pat = pattern.lower()
        self.matches = []
        self.leaves = {}
        self.topics = {}
        for ld in self.app_.logdirs:
            ldn = tree.root.add(logdir_label(ld), data=ld, expand=True)
            for topic in ld.topics:
                parts = [p for p in topic.partitions if pat in p.name.lower()]
                if not parts:
                    continue
                tn = ldn.add(topic_label(topic), data=topic, expand=True)
                self.topics[id(topic)] = tn
                for p in parts:
                    self.leaves[id(p)] = tn.add_leaf(partition_label(p), data=p)
                    self.matches.append(p)
        status = f"{len(self.matches)} partitions" + (f" match {pattern!r}" if pattern else "")
        self.query_one("#status", Static).update(safe(status))

    def refresh_partition(self, p: PartitionNode) -> None:
        leaf = self.leaves.get(id(p))
        if leaf is not None:
            leaf.set_label(partition_label(p))
            topic = leaf.parent
            if topic is not None and isinstance(topic.data, TopicNode):
                topic.set_label(topic_label(topic.data))

    def action_filter(self) -> None:
        self.line = LineEditor()
        self._show_filter()

    def _show_filter(self) -> None:
        box = self.query_one("#filter", Static)
        box.display = self.line is not None
        if self.line is not None:
            t = Text("/", style="bold")
            t.append_text(safe(self.line.text))
            t.append("_", style="blink")
            t.append("   (Enter opens the first match, Escape clears)", style="dim")
            box.update(t)

    def action_clear_filter(self) -> None:
        self.line = None
        self._show_filter()
        self.rebuild("")

    def on_key(self, event: events.Key) -> None:
        """``/`` starts the filter, and while filtering keys edit it (before the tree's
        bindings, in the order typed)."""
        if pass_on(self, event):
            return
        if self.line is None:
            if event.key == "slash":
                event.stop()
                event.prevent_default()
                self.action_filter()
            return
        what = self.line.key(event)
        if what is None:
            return
        event.stop()
        event.prevent_default()
        if what == "cancel":
            self.action_clear_filter()
        elif what == "submit":
            text = self.line.text
            self.line = None
            self._show_filter()
            if self.matches:
                self.app_.open_partition(self.matches[0])
            self.status_filter(text)
        else:
            self._show_filter()
            self.rebuild(self.line.text)

    def status_filter(self, text: str) -> None:
        if text:
            self.query_one("#status", Static).update(
                safe(f"{len(self.matches)} partitions match {text!r}"))

    def on_tree_node_selected(self, event: Tree.NodeSelected[object]) -> None:
        if isinstance(event.node.data, PartitionNode):
            self.app_.open_partition(event.node.data)


class PartitionScreen(Screen[None]):
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
                self.app.push_screen(RecordScreen(self.records[i]))

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
        app = self.app
        if isinstance(app, BrowseApp):
            app.partition_checked(node)

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


class BrowseApp(App[int]):
    """``kdump browse PATH...``."""

    TITLE = "kdump browse"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    #title { height: 1; }
    #status { height: 2; }
    #tree { height: 1fr; }
    #batches { height: 1fr; }
    #records { height: 1fr; }
    #filter { height: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit_browse", "Quit"),
        Binding("question_mark", "keys", "Keys", key_display="?"),
    ]

    def __init__(self, paths: Sequence[str], *, max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
                 check: bool = True) -> None:
        super().__init__()
        self.paths = list(paths)
        self.max_batch_bytes = max_batch_bytes
        self.check = check
        self.logdirs: list[LogDirNode] = browse_tree(self.paths)
        #: set when every partition's findings are counted (tests wait on it)
        self.checked = threading.Event()
        self._stop = threading.Event()
        self.tree_screen = TreeScreen()

    def on_mount(self) -> None:
        self.push_screen(self.tree_screen)
        if self.check:
            threading.Thread(target=self._check_all, name="kdump-browse-check",
                             daemon=True).start()
        else:
            self.checked.set()

    def _check_all(self) -> None:
        """Every partition read once (verify-crc, verify-index) in the background; each
        label updated as it is done.  A daemon thread: quitting does not wait for it."""
        for ld in self.logdirs:
            for p in ld.partitions:
                if self._stop.is_set():
                    return
                if p.checked is None:
                    try:
                        p.checked = partition_findings(p, max_batch_bytes=self.max_batch_bytes)
                    except Exception:  # a partition that cannot be read: no count
                        continue
                    if self._stop.is_set():
                        return
                    try:
                        self.call_from_thread(self.partition_checked, p)
                    except RuntimeError:
                        return  # the app has stopped
        self.checked.set()

    def partition_checked(self, p: PartitionNode) -> None:
        self.tree_screen.refresh_partition(p)

    def open_partition(self, p: PartitionNode) -> None:
        self.push_screen(PartitionScreen(p, self.max_batch_bytes))

    def action_keys(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_quit_browse(self) -> None:
        self._stop.set()
        self.exit(0)
