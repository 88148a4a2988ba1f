"""A progress bar on stderr for long work, whenever stderr is a terminal.

Not for JSON output (machines read it) unless asked (``KDUMP_PROGRESS=1``);
``KDUMP_NO_PROGRESS=1`` turns it off.  It polls the core's read counter from a thread,
so no command needs to know about it, and measures how far into each file reading has
got (:attr:`kdump.source.ReadCounter.covered`), so the bar moves with the work rather
than with bytes re-read.  When stdout is the same terminal, the bar is drawn only
while the output is quiet and erased before the next line of output is written.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterable
from types import TracebackType
from typing import Any

#: below this many bytes a run is quick: no bar
MIN_BYTES = 64 << 20
#: how often the bar is redrawn, and how long output must be quiet before it shows
TICK = 0.2
QUIET = 0.5


def _total_bytes(paths: Iterable[str]) -> int:
    total = 0
    for p in paths:
        try:
            if os.path.isdir(p):
                from ..fs import walk_local

                for root, _dirs, files in walk_local(p):
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


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return str(n)


def _duration(s: float) -> str:
    s = int(s)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def bar_line(label: str, done: int, total: int, elapsed: float, width: int = 24) -> str:
    """``verify-crc ━━━━━━━━━━━━──────────── 52% 104.0 MB/200.0 MB 0:00:03 left``."""
    frac = 0.0 if total <= 0 else min(1.0, done / total)
    full = int(frac * width)
    left = "?"
    if done and elapsed > 0.5:
        left = _duration(elapsed * (total - done) / done)
    return (f"{label} {'━' * full}{'─' * (width - full)} {frac * 100:3.0f}% "
            f"{_size(done)}/{_size(total)} {left} left")


class _Guarded:
    """stdout on the bar's terminal: the bar is erased before anything is written."""

    def __init__(self, bar: ProgressBar, stream: Any) -> None:
        self._bar = bar
        self._stream = stream

    def write(self, s: str) -> int:
        self._bar.erase(wrote=True)
        return self._stream.write(s)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class ProgressBar:
    def __init__(self, paths: Iterable[str], label: str, renderer: Any = None, *,
                 passes: int = 1) -> None:
        self.paths = list(paths)
        #: how many times the work reads the inputs (``kdump report`` runs several checks)
        self.passes = max(1, passes)
        self.label = label
        self.renderer = renderer
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.drawn = False
        self.last_output = 0.0
        self._restore: list[tuple[Any, str, Any]] = []

    def wanted(self) -> bool:
        if os.environ.get("KDUMP_NO_PROGRESS"):
            return False
        if os.environ.get("KDUMP_PROGRESS"):
            return True
        if not _isatty(sys.stderr):
            return False
        return getattr(self.renderer, "format", None) != "json"

    def __enter__(self) -> ProgressBar:
        if not self.paths or not self.wanted():
            return self
        total = _total_bytes(self.paths)
        if total < MIN_BYTES:
            return self
        total *= self.passes
        from ..source import ReadCounter

        if _isatty(sys.stdout):
            self._guard_output()
        start = ReadCounter.covered
        t0 = time.monotonic()
        err = sys.stderr

        def poll() -> None:
            while not self.stop.wait(TICK):
                with self.lock:
                    if time.monotonic() - self.last_output < QUIET:
                        continue
                    line = bar_line(self.label, ReadCounter.covered - start, total,
                                    time.monotonic() - t0)
                    try:
                        err.write("\r" + line + "\x1b[K")
                        err.flush()
                    except (OSError, ValueError):
                        return
                    self.drawn = True

        self.thread = threading.Thread(target=poll, daemon=True)
        self.thread.start()
        return self

    def _guard_output(self) -> None:
        """Renderers writing to the terminal's stdout go through :class:`_Guarded`."""
        r = self.renderer
        if r is None:
            return
        if getattr(r, "out", None) is sys.stdout:
            self._restore.append((r, "out", r.out))
            r.out = _Guarded(self, sys.stdout)
        console = getattr(r, "console", None)
        if console is not None and getattr(console, "file", None) is sys.stdout:
            self._restore.append((console, "file", console.file))
            console.file = _Guarded(self, sys.stdout)

    def erase(self, *, wrote: bool = False) -> None:
        with self.lock:
            if wrote:
                self.last_output = time.monotonic()
            if self.drawn:
                try:
                    sys.stderr.write("\r\x1b[K")
                    sys.stderr.flush()
                except (OSError, ValueError):
                    pass
                self.drawn = False

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(1)
        self.erase()
        for obj, attr, value in self._restore:
            setattr(obj, attr, value)
