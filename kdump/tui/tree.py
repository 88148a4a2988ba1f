"""``kdump browse``'s tree: log dirs (broker id), topics and partitions with their bytes,
records and findings by severity, what the walk could not place as rows of their own;
``/`` filters it by name as typed, ``e`` keeps the partitions with errors or warnings,
``s`` sorts by name, size or findings, Enter opens."""

from __future__ import annotations

from typing import ClassVar, Protocol

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Static, Tree
from textual.widgets.tree import TreeNode

from ..findings import Problem
from ..ops.browse import LogDirNode, PartitionNode, TopicNode, what_is_there
from .widgets import SEVERITY_STYLE, DetailScreen, LineEditor, human, pass_on, plural, safe

#: the orders ``s`` goes through
SORTS = ("name", "size", "findings")


class Browser(Protocol):
    """What the tree asks of the app (kdump/tui/app.py's BrowseApp)."""

    logdirs: list[LogDirNode]
    paths: list[str]
    check: bool

    max_batch_bytes: int

    def open_partition(self, p: PartitionNode) -> None: ...

    def reread(self) -> None: ...

    def open_timeline(self, p: PartitionNode) -> None: ...


def partition_label(p: PartitionNode, check: bool = True) -> Text:
    t = safe(p.name, "bold")
    if p.unreadable is not None:
        t.append_text(safe(f"  {p.unreadable.kind}: {p.unreadable.detail}", "bold red"))
        return t
    t.append(f"  {human(p.disk_bytes)}")
    if p.given:
        t.append(f"  ({plural(len(p.given), 'file')} given)", style="dim")
    return _counted(t, p.checked.records if p.checked else None,
                    p.checked.by_severity if p.checked else None, check)


def topic_label(topic: TopicNode, check: bool = True,
                parts: list[PartitionNode] | None = None) -> Text:
    """A topic of one log dir: its partitions' bytes, records and findings added up (the
    replicas of one broker's log dir; another log dir's are under their own)."""
    parts = topic.partitions if parts is None else parts
    t = safe(topic.name, "bold")
    t.append(f"  {plural(len(parts), 'partition')}  {human(sum(p.disk_bytes for p in parts))}")
    if any(p.checked is None for p in parts):
        return _counted(t, None, None, check)
    counts = {s: sum(p.checked.by_severity[s] for p in parts if p.checked) for s in SEVERITY_STYLE}
    return _counted(t, sum(p.checked.records for p in parts if p.checked), counts, check)


def _counted(t: Text, records: int | None, counts: dict[str, int] | None,
             check: bool = True) -> Text:
    if records is None or counts is None:
        if check:
            t.append("  records …  findings …", style="dim")
        else:
            t.append("  not read (--no-check; n reads a partition)", style="dim")
        return t
    t.append(f"  {plural(records, 'record')}")
    if not any(counts.values()):
        t.append("  clean", style="green")
        return t
    for sev, n in counts.items():
        if n:
            word = sev if sev == "info" or n == 1 else sev + "s"
            t.append(f"  {n:,} {word}", style=SEVERITY_STYLE[sev])
    return t


def logdir_label(ld: LogDirNode) -> Text:
    """The broker and the counts first, the path last: a screen too narrow for a long path
    cuts the path, never a count."""
    t = Text(f"broker {ld.broker_id if ld.broker_id is not None else '?'}", style="bold")
    t.append(f"  {plural(len(ld.partitions), 'partition')}")
    unplaced = sum(1 for p in ld.problems if p.kind == "unknown-file")
    if unplaced:  # what the walk passed over
        t.append(f"  {plural(unplaced, 'unplaced file')}", style="yellow")
    if len(ld.problems) > unplaced:  # what it could not read (or found no Kafka data in)
        t.append(f"  {plural(len(ld.problems) - unplaced, 'finding')}", style="bold red")
    t.append("  ")
    t.append_text(safe(ld.path, "bold"))
    return t


def problem_label(p: Problem) -> Text:
    """What the walk could not place, as a row: the file's name and the finding."""
    t = safe(p.path.rstrip("/").rsplit("/", 1)[-1] or p.path, "bold")
    t.append_text(safe(f"  {p.kind} ({p.severity}): {p.detail}",
                       SEVERITY_STYLE.get(str(p.severity), "")))
    return t


def problem_text(p: Problem) -> Text:
    """A finding in full."""
    t = safe(f"{p.kind} ({p.severity})", "bold")
    t.append("\nfile ")
    t.append_text(safe(p.path))
    t.append("\n")
    if p.position is not None:
        t.append(f"byte {p.position}\n")
    if p.base_offset is not None:
        t.append(f"base offset {p.base_offset}\n")
    t.append_text(safe(p.detail))
    return t


def _findings(p: PartitionNode) -> tuple[int, int, int]:
    """(errors, warnings, infos) of a partition, for ``e`` and the ``s`` findings order."""
    if p.checked is None:
        return (0, 0, 0)
    c = p.checked.by_severity
    return (c["error"], c["warning"], c["info"])


class TreeScreen(Screen[None]):
    DEFAULT_CSS = """
    TreeScreen Tree { border-top: heavy $accent; }
    TreeScreen #empty { height: auto; max-height: 12; color: $warning; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.matches: list[PartitionNode] = []
        self.leaves: dict[int, TreeNode[object]] = {}
        self.topics: dict[int, TreeNode[object]] = {}
        self.line: LineEditor | None = None
        self.pattern = ""
        #: ``e``: only partitions with errors or warnings
        self.problems_only = False
        #: ``s``: "name", "size" or "findings"
        self.sort = "name"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter"),
        Binding("e", "problems_only", "Errors only"),
        Binding("s", "sort", "Sort"),
        Binding("escape", "clear_filter", "Clear filter", show=False),
        Binding("f", "findings", "Findings", show=False),
        Binding("r", "reread", "Re-read", show=False),
        Binding("T", "timeline", "Timeline", key_display="T"),
    ]

    def compose(self) -> ComposeResult:
        yield Static(Text("kdump browse: log dirs, topics, partitions (? keys, q quit)",
                          style="bold"), id="title")
        yield Static(Text(""), id="filter")
        yield Static(Text(""), id="empty")
        tree: Tree[object] = Tree(Text("log dirs"), id="tree")
        tree.show_root = False
        tree.border_title = "» log dirs"
        yield tree
        yield Static(Text(""), id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#filter", Static).display = False
        self.rebuild("")
        tree = self.query_one("#tree", Tree)
        tree.focus()
        tree.cursor_line = 0  # the cursor on the first row: Enter works at once

    def on_resize(self, event: events.Resize) -> None:
        """The selected row kept in view at the new size."""
        tree = self.query_one("#tree", Tree)

        def keep() -> None:
            if tree.cursor_node is not None:
                tree.scroll_to_node(tree.cursor_node, animate=False)
        self.call_after_refresh(keep)

    @property
    def app_(self) -> Browser:
        app: Browser = self.app  # type: ignore[assignment]
        return app

    def _shown(self, p: PartitionNode, pat: str) -> bool:
        if pat not in p.name.lower():
            return False
        if self.problems_only:
            return p.unreadable is not None or any(_findings(p)[:2])
        return True

    def _order(self, parts: list[PartitionNode]) -> list[PartitionNode]:
        if self.sort == "size":
            return sorted(parts, key=lambda p: -p.disk_bytes)
        if self.sort == "findings":
            return sorted(parts, key=lambda p: (p.unreadable is None,
                                                tuple(-n for n in _findings(p))))
        return parts

    def rebuild(self, pattern: str) -> None:
        self.pattern = pattern
        tree = self.query_one("#tree", Tree)
        tree.clear()
        pat = pattern.lower()
        self.matches = []
        self.leaves = {}
        self.topics = {}
        check = getattr(self.app_, "check", True)
        total = 0
        for ld in self.app_.logdirs:
            ldn = tree.root.add(logdir_label(ld), data=ld, expand=True)
            total += len(ld.partitions)
            topics = []
            for topic in ld.topics:
                parts = self._order([p for p in topic.partitions if self._shown(p, pat)])
                if parts:
                    topics.append((topic, parts))
            if self.sort == "size":
                topics.sort(key=lambda tp: -sum(p.disk_bytes for p in tp[1]))
            elif self.sort == "findings":
                topics.sort(key=lambda tp: tuple(-sum(_findings(p)[k] for p in tp[1])
                                                 for k in (0, 1, 2)))
            for topic, parts in topics:
                tn = ldn.add(topic_label(topic, check), data=topic, expand=True)
                self.topics[id(topic)] = tn
                for p in parts:
                    self.leaves[id(p)] = tn.add_leaf(partition_label(p, check), data=p)
                    self.matches.append(p)
            for prob in ld.problems:
                ldn.add_leaf(problem_label(prob), data=prob)
        self._empty(total)
        self.query_one("#status", Static).update(safe(self._status(total)))

    def _status(self, total: int) -> str:
        shown = len(self.matches)
        said = plural(total, "partition") if shown == total else \
            f"{shown:,} of {plural(total, 'partition')} shown"
        how = []
        if self.pattern:
            how.append(f"matching {self.pattern!r}")
        if self.problems_only:
            how.append("errors or warnings only (e: all)")
        if self.sort != "name":
            how.append(f"sorted by {self.sort}")
        return said + (f" ({'; '.join(how)})" if how else "")

    def _empty(self, total: int) -> None:
        """No partition at all: what was found under each path and why nothing shows."""
        box = self.query_one("#empty", Static)
        box.display = total == 0
        if total == 0:
            t = Text("Nothing to show: no Kafka partition was found.\n", style="bold")
            for line in what_is_there(self.app_.paths):
                t.append_text(safe(line))
                t.append("\n")
            t.append("kdump browse shows log dirs, partition directories "
                     "(<topic>-<partition>) and segments (<offset>.log).", style="dim")
            box.update(t)

    def refresh_partition(self, p: PartitionNode) -> None:
        leaf = self.leaves.get(id(p))
        check = getattr(self.app_, "check", True)
        if leaf is not None:
            leaf.set_label(partition_label(p, check))
            topic = leaf.parent
            if topic is not None and isinstance(topic.data, TopicNode):
                topic.set_label(topic_label(topic.data, check))

    def action_problems_only(self) -> None:
        self.problems_only = not self.problems_only
        self._rebuild_top()

    def action_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self._rebuild_top()

    def _rebuild_top(self) -> None:
        self.rebuild(self.pattern)
        tree = self.query_one("#tree", Tree)
        tree.cursor_line = 0
        tree.scroll_home(animate=False)

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
        self.query_one("#tree", Tree).cursor_line = 0

    def on_key(self, event: events.Key) -> None:
        """``/`` starts the filter, and while filtering keys edit it (before the tree's
        bindings, in the order typed)."""
        if pass_on(self, event):
            return
        if self.line is None:
            keys = {"slash": self.action_filter, "e": self.action_problems_only,
                    "s": self.action_sort, "T": self.action_timeline}
            tree = self.query_one("#tree", Tree)
            if tree.has_focus:
                keys |= {"j": tree.action_cursor_down, "k": tree.action_cursor_up}
            if event.key in keys:
                event.stop()
                event.prevent_default()
                keys[event.key]()
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

    def action_findings(self) -> None:
        """``f``: the findings of the log dir the cursor is in (kdump/tui/search.py)."""
        from .search import logdir_findings

        node = self.query_one("#tree", Tree).cursor_node
        logdir_findings(self, self.app_.logdirs, node.data if node is not None else None,
                        self.app_.open_partition, self.app_.max_batch_bytes)

    def action_reread(self) -> None:
        self.app_.reread()

    def action_timeline(self) -> None:
        """``T`` on a partition: its timeline (kdump/tui/timeline.py)."""
        node = self.query_one("#tree", Tree).cursor_node
        if node is not None and isinstance(node.data, PartitionNode):
            self.app_.open_timeline(node.data)
        else:
            self.query_one("#status", Static).update(
                Text("T: select a partition first (its timeline)", style="yellow"))

    def status_filter(self, text: str) -> None:
        if text:
            self.query_one("#status", Static).update(
                safe(f"{plural(len(self.matches), 'partition')} match {text!r}"))

    def on_tree_node_selected(self, event: Tree.NodeSelected[object]) -> None:
        data = event.node.data
        if isinstance(data, PartitionNode):
            if data.unreadable is not None:
                self.app.push_screen(DetailScreen(problem_text(data.unreadable), data.name))
            else:
                self.app_.open_partition(data)
        elif isinstance(data, Problem):
            self.app.push_screen(DetailScreen(problem_text(data), "unplaced file"))
