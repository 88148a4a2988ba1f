"""A progress bar on stderr for long work, when stderr is a terminal and stdout is not
(output going to a file or a pipe).  It polls the core's read counter from a thread,
so no command needs to know about it."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterable
from types import TracebackType
from typing import Any

#: below this many bytes a run is quick: no bar
MIN_BYTES = 64 << 20


def _total_bytes(paths: Iterable[str]) -> int:
    total = 0
    for p in paths:
        try:
            if os.path.isdir(p):
                for root, _dirs, files in os.walk(p):
                    for name in files:
                        try:
                            total += os.stat(os.path.join(root, name)).st_size
                        except OSError:
                            pass
            else:
                total += os.stat(p).st_size
        except OSError:
            pass
    return total


class ProgressBar:
    def __init__(self, paths: Iterable[str], label: str) -> None:
        self.paths = list(paths)
        self.label = label
        self.progress: Any = None
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def __enter__(self) -> ProgressBar:
        try:
            wanted = sys.stderr.isatty() and not sys.stdout.isatty()
        except (AttributeError, ValueError):
            wanted = False
        if not wanted or os.environ.get("KDUMP_NO_PROGRESS"):
            return self
        total = _total_bytes(self.paths)
        if total < MIN_BYTES:
            return self
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

        from ..source import ReadCounter

        start = ReadCounter.total
        self.progress = Progress("[progress.description]{task.description}", BarColumn(),
                                 DownloadColumn(), TimeRemainingColumn(),
                                 console=Console(file=sys.stderr), transient=True)
        task = self.progress.add_task(self.label, total=total)
        self.progress.start()

        def poll() -> None:
            while not self.stop.wait(0.2):
                self.progress.update(task, completed=min(total, ReadCounter.total - start))

        self.thread = threading.Thread(target=poll, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(1)
        if self.progress is not None:
            self.progress.stop()
