"""A terminal as far as kdump's writers can tell (``isatty``), captured in memory, and
what the progress bar drew on it."""

from __future__ import annotations

import io
import time


class Tty(io.StringIO):
    """A StringIO that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def shown_percents(err: io.StringIO, label: str) -> list[int]:
    """The percentages the progress bar labelled ``label`` has drawn on ``err``, in order."""
    shown = [ln for ln in err.getvalue().split("\r") if ln.startswith(label)]
    return [int(ln.split("%")[0].split()[-1]) for ln in shown]


def drawn(err: io.StringIO, label: str, percent: int) -> None:
    """Until the bar has drawn ``percent`` (at its thread's own pace: a hang guard of 60 s,
    no speed claim)."""
    deadline = time.monotonic() + 60
    while percent not in shown_percents(err, label):
        assert time.monotonic() < deadline, (percent, shown_percents(err, label))
        time.sleep(0.01)
