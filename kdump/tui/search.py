"""The partition screen's search and tools: ``/`` searches keys, values and headers (text,
``re:``, ``hex:``; kdump/ops/browse/search.py) forward from the selection in a Textual
worker (a thread), a progress line as it reads, Escape stops it, ``n``/``N`` the next /
previous match (wrapping, and saying so); ``f`` the findings list
(kdump/tui/findings.py), ``y`` copy, ``r`` re-read a live directory.

:class:`SearchScreen` is the partition screen's base (kdump/tui/partition.py): it holds
these keys, and asks of the screen only its view, rows, records, ``status`` and ``load``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable
from textual.worker import Worker, get_current_worker

from ..findings import Problem
from ..ops.browse.partition import BatchRow, PartitionView, RecordRow
from ..ops.browse.search import Match, Place, Progress, Query, QueryError, Search, parse_query
from ..ops.browse.tree import LogDirNode, PartitionNode, browse_tree, partition_findings
from .findings import Finding, FindingsScreen, fill
from .record import CopyMenu, RecordView, copy_choices, copy_out
from .widgets import CELL_CHARS, MATCH_STYLE, Prompt, cell, human, safe

#: least time between two progress lines (a search reads hundreds of MB a second)
PROGRESS_EVERY = 0.1


class SearchScreen(Screen[None]):
    """Keys ``/ n N Escape f y r`` of a partition; ``search_key`` is called first with
    every key the screen gets (True: taken)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # not in the footer (80 columns hold the partition's own keys): ``?`` lists them
        Binding("slash", "search", "Search", key_display="/", show=False),
        Binding("f", "findings", "Findings", show=False),
        Binding("y", "copy", "Copy", show=False),
        Binding("r", "reread", "Re-read", show=False),
    ]

    # what the partition screen provides
    view: PartitionView
    node: PartitionNode
    seg: int
    rows: list[BatchRow]
    records: list[RecordRow]
    finding: int

    def status(self, text: Text) -> None:
        raise NotImplementedError

    def load(self, seg: int, start: int, select: int | None = None,
             record: int | None = None) -> None:
        raise NotImplementedError

    def current(self) -> BatchRow | None:
        raise NotImplementedError

    def go_finding(self, p: Problem) -> None:
        raise NotImplementedError

    # --- state -----------------------------------------------------------------------------
    #: the last query (``n``/``N`` go through its matches once there is one)
    search_query: Query | None = None
    searcher: Worker[None] | None = None
    #: the search running (its Search: bytes read, progress), None when none runs
    running: Search | None = None
    #: the last search started (its bytes read: tests bound them)
    last_search: Search | None = None
    #: a finding to go to once the screen is mounted (``f`` from the tree)
    pending: Problem | None = None
    #: bumped at each search started or stopped: a late answer of an older one is dropped
    generation: int = 0
    #: ``n`` (+1) and ``N`` (-1) typed while a search ran: run in turn once it lands
    pending_steps: int = 0
    #: set when a search ends, stopped or not (tests wait on it)
    search_done: threading.Event | None = None
    #: set when ``r`` has counted the findings again (tests wait on it)
    reread_done: threading.Event | None = None

    def on_mount(self) -> None:
        """Runs after the partition screen's own on_mount (Textual calls each class's)."""
        if self.pending is not None:
            p, self.pending = self.pending, None
            self.go_finding(p)

    def on_unmount(self) -> None:
        self.stop_search()

    def search_key(self, key: str) -> bool:
        if key == "slash":
            self.action_search()
        elif key in ("n", "N") and self.search_query is not None:
            step = 1 if key == "n" else -1
            if self.running is not None:  # typed ahead: run once this search lands
                self.pending_steps += step
            else:
                self.action_search_next(step)
        elif key == "escape" and self.running is not None:
            self.action_stop_search()
        elif key == "f":
            self.action_findings()
        elif key == "y":
            self.action_copy()
        elif key == "r":
            self.action_reread()
        else:
            return False
        return True

    # --- where the selection is ----------------------------------------------------------
    def selected_record(self) -> RecordRow | None:
        i = self.query_one("#records", DataTable).cursor_row
        return self.records[i] if 0 <= i < len(self.records) else None

    def place(self) -> Place:
        row = self.current()
        if row is None:
            return Place(self.seg, 0)
        rec = self.selected_record() if not row.is_region else None
        return Place(row.segment, row.position, rec.offset if rec is not None else None)

    # --- search ----------------------------------------------------------------------------
    def action_search(self) -> None:
        def done(answer: str | None) -> None:
            if answer is None or not answer:
                return
            self.pending_steps = 0
            try:
                self.search_query = parse_query(answer)
            except QueryError as e:
                self.status(safe(str(e), "yellow"))
                return
            self.start_search(1)

        self.app.push_screen(Prompt("Search keys, values and headers (text; re:REGEX; "
                                    "hex:BYTES):"), done)

    def action_search_next(self, step: int) -> None:
        if self.search_query is not None:
            self.start_search(step)

    def start_search(self, step: int) -> None:
        assert self.search_query is not None
        self.stop_search()
        if not self.view.segments:
            self.status(Text("no segments in this partition: nothing to search", style="yellow"))
            return
        self.generation += 1
        gen = self.generation
        search = Search(list(self.view.segments), self.search_query,
                        max_batch_bytes=self.view.max_batch_bytes)
        self.running = self.last_search = search
        self.search_done = threading.Event()
        done = self.search_done
        place = self.place()
        self.status(safe(f"searching {'forward' if step > 0 else 'backward'} for "
                         f"{self.search_query.typed!r} … (Escape stops)"))

        def run() -> None:
            worker = get_current_worker()
            items = search.forward(place) if step > 0 else search.backward(place)
            last = 0.0
            found: Match | None = None
            try:
                for item in items:
                    if worker.is_cancelled:
                        return
                    if isinstance(item, Match):
                        found = item
                        break
                    now = time.monotonic()
                    if now - last >= PROGRESS_EVERY:
                        last = now
                        self.app.call_from_thread(self.search_progress, gen, item)
                if not worker.is_cancelled:
                    self.app.call_from_thread(self.search_ended, gen, found)
            except Exception as e:  # said on the status line, never a traceback
                if not worker.is_cancelled:
                    msg = f"the search stopped: {e}"
                    self.app.call_from_thread(self.search_failed, gen, msg)
            finally:
                close = getattr(items, "close", None)
                if close is not None:
                    close()  # the segment it was reading closed now, not when collected
                done.set()

        self.searcher = self.run_worker(run, name="kdump-browse-search", group="search",
                                        exclusive=True, thread=True, exit_on_error=False)

    def stop_search(self) -> bool:
        if self.searcher is None or self.running is None:
            return False
        self.searcher.cancel()
        self.searcher = None
        self.running = None
        self.generation += 1
        return True

    def action_stop_search(self) -> None:
        search = self.running
        self.pending_steps = 0
        if search is not None and self.stop_search():
            self.status(safe(f"search for {self.search_query.typed if self.search_query else ''!r} stopped "
                             f"after {human(search.scanned)} of {human(search.total)}",
                             "yellow"))

    def search_progress(self, gen: int, p: Progress) -> None:
        if gen != self.generation or self.search_query is None or not self.is_mounted:
            return
        pct = min(100, 100 * p.scanned // max(1, p.total))  # a live segment grows
        t = safe(f"searching for {self.search_query.typed!r}: {human(p.scanned)} of "
                 f"{human(p.total)} read ({pct}%), at offset {p.offset} in segment "
                 f"{self.view.segments[p.segment].base_offset}"
                 f"{', from the start again' if p.wrapped else ''} (Escape stops)")
        self.status(t)

    def search_failed(self, gen: int, msg: str) -> None:
        if gen == self.generation and self.is_mounted:
            self.running = self.searcher = None
            self.pending_steps = 0
            self.status(safe(msg, "bold red"))

    def search_ended(self, gen: int, m: Match | None) -> None:
        if gen != self.generation or self.search_query is None or not self.is_mounted:
            return
        search = self.running
        self.running = None
        self.searcher = None
        q = self.search_query.typed
        if m is None:
            self.pending_steps = 0
            self.status(safe(f"no match for {q!r} in this partition's keys, values or "
                             f"headers ({human(search.scanned if search else 0)} read)",
                             "yellow"))
            return
        start = self.view.earlier_start(m.segment, m.position)
        self.load(m.segment, start, select=m.position, record=m.offset)
        t = safe(f"match for {q!r}: {m.field} of the record at offset {m.offset} "
                 f"(batch at byte {m.position})")
        if m.wrapped:
            t.append("  search wrapped: no more matches that way, continued from the "
                     "other end", style="yellow")
        t.append("  n / N next / previous", style="dim")
        self.status(t)
        self.mark_match(m)
        self.query_one("#records", DataTable).focus()
        if self.pending_steps:
            step = 1 if self.pending_steps > 0 else -1
            self.pending_steps -= step
            self.start_search(step)

    def mark_match(self, m: Match) -> None:
        """Mark what matched in the records table: the matching text of the field
        ``m`` names (the whole cell styled where the shown text does not hold it: a
        value shown through a decoder)."""
        assert self.search_query is not None
        k = next((i for i, r in enumerate(self.records) if r.offset == m.offset), None)
        if k is None:
            return
        r = self.records[k]
        headers = [f"{hk}={hv}" for hk, hv in r.headers]
        if m.field in ("key", "value"):
            column, shown = m.field, (r.key if m.field == "key" else r.value)
            text = cell(shown)
            span = self.search_query.span_in(text.plain)
        else:  # "header NAME": within that header's name or value
            column, text = "headers", cell(", ".join(headers))
            span = None
            at = 0
            for (hk, hv), part in zip(r.headers, headers, strict=True):
                if m.field == f"header {hk}":
                    value_at = at + len(safe(hk).plain) + 1
                    found = self.search_query.span_in(safe(hv).plain)
                    if found is not None:
                        span = (value_at + found[0], value_at + found[1])
                    else:
                        found = self.search_query.span_in(safe(hk).plain)
                        span = (at + found[0], at + found[1]) if found is not None else None
                    break
                at += len(safe(part).plain) + 2
        start, end = span if span is not None and span[1] <= CELL_CHARS else (0, len(text))
        text.stylize(MATCH_STYLE, start, end)
        self.query_one("#records", DataTable).update_cell(str(k), column, text,
                                                          update_width=False)

    # --- findings ----------------------------------------------------------------------------
    def action_findings(self) -> None:
        node = self.node
        mbb = self.view.max_batch_bytes

        def load(say: Callable[[str], None]) -> list[Finding]:
            checked = node.checked
            if checked is None:
                checked = node.checked = partition_findings(node, max_batch_bytes=mbb)
                counted = getattr(self.app, "partition_checked", None)
                if counted is not None:  # the tree's label shows the count too
                    self.app.call_from_thread(counted, node)
            return [Finding(node, p) for p in checked.findings]

        def done(f: Finding | None) -> None:
            if f is not None:
                self.show_finding(f.problem)

        self.app.push_screen(FindingsScreen(f"findings of {node.name}", load), done)

    def show_finding(self, p: Problem) -> None:
        """Go to ``p`` (counted as the n-th finding of the partition when it is one)."""
        found = self.node.checked.findings if self.node.checked else []
        self.finding = next((i for i, q in enumerate(found) if q is p), self.finding)
        self.go_finding(p)

    # --- the record view and copying ----------------------------------------------------------
    def action_record(self) -> None:
        rec = self.selected_record()
        if rec is not None:
            row = self.current()
            self.app.push_screen(RecordView(rec, row.position if row is not None else None))

    def action_copy(self) -> None:
        rec = self.selected_record()
        row = self.current()
        position = row.position if row is not None else None
        choices = copy_choices(rec, position)
        if not choices:
            self.status(Text("nothing selected to copy", style="yellow"))
            return

        def done(choice: str | None) -> None:
            if choice is None:
                return
            seg = self.view.segments[row.segment].path if row is not None else ""
            what, text = {
                "o": ("offset", str(rec.offset) if rec else ""),
                "k": ("key", rec.key if rec else ""),
                "v": ("value", rec.value if rec else ""),
                "p": (f"position (a byte of {seg.rsplit('/', 1)[-1]})", str(position)),
            }[choice]
            self.status(copy_out(self.app, what, text))

        self.app.push_screen(CopyMenu(choices), done)

    # --- re-reading a live directory ----------------------------------------------------------
    def action_reread(self) -> None:
        """The partition's files listed again (sizes, new segments, segments gone), the
        rows read again from where the selection is, and its findings counted again."""
        self.stop_search()
        node = self.node
        fresh = next((p for ld in browse_tree([node.path]) for p in ld.partitions
                      if p.path == node.path), None)
        before = {s.base_offset for s in self.view.segments}
        size_before = sum(s.size for s in self.view.segments)
        row = self.current()
        base = self.view.segments[row.segment].base_offset if row is not None else None
        node.segments = fresh.segments if fresh is not None else []
        if fresh is not None:
            node.disk_bytes = fresh.disk_bytes
        node.checked = None
        self.view.close()
        self.view.segments = list(node.segments)
        segs = self.query_one("#segments", DataTable)
        fill(segs, [[Text(str(s.base_offset)), safe(s.path.rsplit("/", 1)[-1]),
                     Text(str(s.size)), Text("active" if s.active else "")]
                    for s in self.view.segments])
        height = segs.styles.height
        if height is not None and height.is_cells:  # its rows (up to 3) and its chrome
            segs.styles.height = int(height.value) - min(len(before), 3) + min(
                len(self.view.segments), 3)
        new = [s for s in self.view.segments if s.base_offset not in before]
        gone = len(before - {s.base_offset for s in self.view.segments})
        seg = next((i for i, s in enumerate(self.view.segments) if s.base_offset == base), 0)
        if self.view.segments:
            if row is not None and base is not None and seg < len(self.view.segments) and \
                    self.view.segments[seg].base_offset == base:
                self.load(seg, self.view.earlier_start(seg, row.position), select=row.position)
            else:
                self.load(0, 0)
        size = sum(s.size for s in self.view.segments)
        words = (f"re-read {node.name}: {len(self.view.segments)} segment"
                 f"{'s' if len(self.view.segments) != 1 else ''} ({len(new)} new"
                 f"{f', {gone} gone' if gone else ''}), {human(size)} "
                 f"({size - size_before:+d} bytes); counting its findings again …")
        self.status(safe(words))
        self.reread_done = threading.Event()
        done_event = self.reread_done
        mbb = self.view.max_batch_bytes
        app = self.app

        def count() -> None:
            try:
                checked = partition_findings(node, max_batch_bytes=mbb)
            except Exception as e:  # a partition that cannot be read: said, not raised
                msg = f"{words.split(';')[0]}; its findings could not be read: {e}"
                app.call_from_thread(lambda: self.status(safe(msg, "bold red")))
                done_event.set()
                return

            def counted() -> None:
                node.checked = checked
                self.finding = -1
                refresh = getattr(app, "partition_checked", None)
                if refresh is not None:
                    refresh(node)
                n = len(checked.findings)
                self.status(safe(f"{words.split(';')[0]}; {checked.records} records, "
                                 f"{n} finding{'s' if n != 1 else ''} (f lists them)"))
                done_event.set()

            try:
                app.call_from_thread(counted)
            except RuntimeError:
                done_event.set()

        self.run_worker(count, name="kdump-browse-reread", group="reread", exclusive=True,
                        thread=True, exit_on_error=False)


# --- from the tree ----------------------------------------------------------------------------
def logdir_findings(screen: Screen[None], logdirs: list[LogDirNode], chosen: object,
                    open_partition: Callable[[PartitionNode], None],
                    max_batch_bytes: int) -> None:
    """``f`` in the tree: every finding of the log dir the cursor is in (every log dir's
    when it is in none), partitions not read yet read in the background; Enter opens the
    partition at the finding."""
    dirs = [ld for ld in logdirs if ld is chosen or any(
        chosen is t or any(chosen is p for p in t.partitions) for t in ld.topics)] or logdirs

    def load(say: Callable[[str], None]) -> list[Finding]:
        out: list[Finding] = []
        total = sum(len(ld.partitions) for ld in dirs)
        done = 0
        for ld in dirs:
            out.extend(Finding(None, p) for p in ld.problems)
            for node in ld.partitions:
                done += 1
                if node.checked is None:
                    say(f"reading {node.name} ({done} of {total} partitions) for its "
                        "findings (verify-crc, verify-index) …")
                    node.checked = partition_findings(node, max_batch_bytes=max_batch_bytes)
                    counted = getattr(screen.app, "partition_checked", None)
                    if counted is not None:  # the tree's label shows the count too
                        screen.app.call_from_thread(counted, node)
                out.extend(Finding(node, p) for p in node.checked.findings)
        return out

    def done(f: Finding | None) -> None:
        if f is None or f.node is None:
            return
        open_partition(f.node)
        top = screen.app.screen
        if isinstance(top, SearchScreen):
            found = f.node.checked.findings if f.node.checked else []
            top.finding = next((i for i, q in enumerate(found) if q is f.problem), -1)
            top.pending = f.problem

    title = "findings of " + (dirs[0].path if len(dirs) == 1 else f"{len(dirs)} log dirs")
    screen.app.push_screen(FindingsScreen(title, load), done)
