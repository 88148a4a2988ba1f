"""``kdump browse``: the tree of log dirs (:mod:`.tree`), a partition's batches and
records and a batch's bytes (:mod:`.partition`).  Keys: ``/`` filter, Enter open, ``g``
offset, ``t`` time, ``n``/``N`` findings, ``x`` bytes, ``T`` timeline, Escape back, ``?`` keys, ``q``
or Ctrl+C quit.  Read-only: it only reads files.

Exits: :attr:`BrowseApp.return_code` is 0 only when the user quit; an error no screen
caught ends it with one line (:attr:`BrowseApp.failure`), not a traceback, the terminal
restored, and the command exits 2."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import App
from textual.binding import Binding, BindingType

from ..findings import Problem
from ..ops.browse import (
    Evidence,
    LogDirNode,
    PartitionFindings,
    PartitionNode,
    add_absent,
    browse_tree,
    drop_explained,
    log_dir_verdicts,
    partition_findings,
)
from ..records.v2 import DEFAULT_MAX_BATCH_BYTES
from ..textsafe import inert
from .partition import PartitionScreen
from .timeline import TimelineScreen
from .tree import TreeScreen
from .widgets import HelpScreen, HexScreen

__all__ = ["BrowseApp", "HexScreen", "PartitionScreen", "TimelineScreen", "TreeScreen"]


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
        Binding("ctrl+c,ctrl+q", "quit_browse", "Quit", show=False, priority=True),
        Binding("question_mark", "keys", "Keys", key_display="?"),
    ]

    def __init__(self, paths: Sequence[str], *, max_batch_bytes: int = DEFAULT_MAX_BATCH_BYTES,
                 check: bool = True, overrides: Sequence[str] = ()) -> None:
        super().__init__()
        self.paths = list(paths)
        self.max_batch_bytes = max_batch_bytes
        self.check = check
        #: the cleanup policies every partition is judged with (--config, the metadata)
        self.evidence = Evidence(self.paths, overrides, max_batch_bytes)
        self.logdirs: list[LogDirNode] = browse_tree(self.paths, self.evidence)
        #: set when every partition's findings are counted (tests wait on it)
        self.checked = threading.Event()
        self._stop = threading.Event()
        self.tree_screen = TreeScreen()
        #: the one line an internal error ended the run with (None: it did not)
        self.failure: str | None = None

    def on_mount(self) -> None:
        self.push_screen(self.tree_screen)
        parts = [p for ld in self.logdirs for p in ld.partitions]
        if len(parts) == 1 and parts[0].unreadable is None:
            self.open_partition(parts[0])  # one partition given: opened (Escape: the tree)
        if self.check:
            threading.Thread(target=self._check_all, name="kdump-browse-check",
                             daemon=True).start()
        else:
            self.checked.set()
        self._judge_missing()

    def _judge_missing(self) -> None:
        """The log dirs judged again with the KRaft metadata among the inputs, as
        verify-crc judges them: the partitions the checkpoints name with no directory (a
        deleted topic's is Kafka's own work: the rows it explains leave the tree) and the
        replicas it assigns here and absent (each log dir's findings, ``f``).  In a daemon
        thread, as the metadata log may be long; ``judged`` is set when done (tests wait
        on it)."""
        self.judged = threading.Event()
        judged, logdirs = self.judged, self.logdirs

        def run() -> None:
            try:
                policies = self.evidence.policies()
                if policies is not None:
                    found = log_dir_verdicts(self.paths, policies)
                    lost = [p.path for p in found if p.kind == "data-lost"
                            and isinstance(p.extra, dict) and "topic" in p.extra]
                    self.call_from_thread(self._missing_judged, logdirs, lost, found)
            except Exception:  # the judgement without the metadata stands
                pass
            finally:
                judged.set()

        threading.Thread(target=run, name="kdump-browse-verdict", daemon=True).start()

    def _missing_judged(self, logdirs: list[LogDirNode], lost: list[str],
                        found: list[Problem]) -> None:
        if logdirs is not self.logdirs:
            return
        if drop_explained(self.logdirs, lost) + add_absent(self.logdirs, found):
            self.tree_screen.rebuild(self.tree_screen.pattern)

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
                    except Exception as e:  # said on its row, never raised in a thread
                        why = getattr(e, "message", None) or f"{type(e).__name__}: {e}"
                        p.checked = PartitionFindings(findings=[Problem(
                            p.path, None, "unreadable-file", f"could not be read: {why}")])
                    if self._stop.is_set():
                        return
                    try:
                        self.call_from_thread(self.partition_checked, p)
                    except RuntimeError:
                        return  # the app has stopped
        self.checked.set()

    def reread(self) -> None:
        """``r`` in the tree: the log dirs listed again (new partitions and segments,
        sizes) and, unless --no-check, every partition counted again: the round under
        way is stopped, and the next starts once it has (in a thread: a partition being
        read is read to its end first)."""
        self._stop.set()
        self.logdirs = browse_tree(self.paths, self.evidence)
        self.checked = threading.Event()
        self.tree_screen.rebuild("")
        self._judge_missing()
        if not self.check:
            self.checked.set()
            return
        running = [t for t in threading.enumerate() if t.name == "kdump-browse-check"]

        def again() -> None:
            for t in running:
                t.join()
            self._stop = threading.Event()
            self._check_all()

        threading.Thread(target=again, name="kdump-browse-check", daemon=True).start()

    def partition_checked(self, p: PartitionNode) -> None:
        self.tree_screen.refresh_partition(p)

    def open_partition(self, p: PartitionNode) -> None:
        self.push_screen(PartitionScreen(p, self.max_batch_bytes))

    def open_timeline(self, p: PartitionNode) -> None:
        """``T``: the timeline of ``p``'s topic-partition (kdump/tui/timeline.py)."""
        self.push_screen(TimelineScreen(self.paths, p, self.logdirs, self.max_batch_bytes))

    def open_partition_at(self, p: PartitionNode, path: str, position: int) -> None:
        """The batch at byte ``position`` of ``path`` (a segment of ``p``): in the
        partition screen on top when it is ``p``'s, else in a new one."""
        top = self.screen
        if isinstance(top, PartitionScreen) and top.node is p:
            top.go_position(path, position)
        else:
            self.push_screen(PartitionScreen(p, self.max_batch_bytes, at=(path, position)))

    def action_keys(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_quit_browse(self) -> None:
        self._stop.set()
        self.exit(0)

    def _fatal_error(self) -> None:
        """Textual's end after an error nothing caught: one line instead of its traceback
        (the terminal is restored as on quit; the return code is not 0, so the command
        exits 2).  Read errors never come here: every screen says them itself."""
        e = self._exception
        self._stop.set()
        self.failure = inert(f"kdump: browse stopped on an internal error: "
                             f"{type(e).__name__}: {e}".splitlines()[0] if e else
                             "kdump: browse stopped on an internal error")
        self.panic(Text(self.failure))
