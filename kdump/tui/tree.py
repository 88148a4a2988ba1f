"""``kdump browse``'s tree: log dirs (broker id), topics and partitions with their bytes,
records and findings by severity; ``/`` filters it by name as typed, Enter opens."""

from __future__ import annotations

from typing import ClassVar, Protocol

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, Static, Tree
from textual.widgets.tree import TreeNode

from ..ops.browse import LogDirNode, PartitionNode, TopicNode
from .widgets import SEVERITY_STYLE, LineEditor, human, pass_on, safe


class Browser(Protocol):
    """What the tree asks of the app (kdump/tui/app.py's BrowseApp)."""

    logdirs: list[LogDirNode]

    max_batch_bytes: int

    def open_partition(self, p: PartitionNode) -> None: ...

    def reread(self) -> None: ...


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
        Binding("f", "findings", "Findings", show=False),
        Binding("r", "reread", "Re-read", show=False),
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
    def app_(self) -> Browser:
        app: Browser = self.app  # type: ignore[assignment]
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

    def action_findings(self) -> None:
        """``f``: the findings of the log dir the cursor is in (kdump/tui/search.py)."""
        from .search import logdir_findings

        node = self.query_one("#tree", Tree).cursor_node
        logdir_findings(self, self.app_.logdirs, node.data if node is not None else None,
                        self.app_.open_partition, self.app_.max_batch_bytes)

    def action_reread(self) -> None:
        self.app_.reread()

    def status_filter(self, text: str) -> None:
        if text:
            self.query_one("#status", Static).update(
                safe(f"{len(self.matches)} partitions match {text!r}"))

    def on_tree_node_selected(self, event: Tree.NodeSelected[object]) -> None:
        if isinstance(event.node.data, PartitionNode):
            self.app_.open_partition(event.node.data)
