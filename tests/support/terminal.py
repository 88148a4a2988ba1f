"""A real terminal for ``kdump browse``'s tests: a tmux session on a server socket of its
own, running bash, driven with send-keys and read with capture-pane."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from tests.conftest import subprocess_env

ROOT = Path(__file__).resolve().parents[2]


class Terminal:
    """``size`` columns by rows; ``name`` tells its socket and session apart from other
    tests' (with the process id and width). kdump runs from this tree (PYTHONPATH)."""

    def __init__(self, name: str, size: tuple[int, int]) -> None:
        self.session = f"kdump-{name}-{os.getpid()}-{size[0]}"
        self.sock = ["-L", self.session]
        env = subprocess_env()
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        env.pop("TMUX", None)
        env.pop("TERM_PROGRAM", None)  # OSC 52 copying is said, not refused by name
        subprocess.run(["tmux", *self.sock, "new-session", "-d", "-s", self.session,
                        "-x", str(size[0]), "-y", str(size[1]), "-c", str(ROOT),
                        "env PS1='READY$ ' bash --norc --noprofile"], env=env, check=True)

    def keys(self, *k: str) -> None:
        subprocess.run(["tmux", *self.sock, "send-keys", "-t", self.session, *k], check=True)

    def pane(self) -> str:
        return subprocess.run(["tmux", *self.sock, "capture-pane", "-p", "-t", self.session],
                              capture_output=True, text=True, check=True).stdout

    def wait_for(self, text: str) -> str:
        """The screen once it shows ``text`` (a hang guard of 60 s, no speed claim)."""
        end = time.monotonic() + 60
        screen = ""
        while time.monotonic() < end:
            screen = self.pane()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} not on the screen:\n{screen}")

    def close(self) -> None:
        subprocess.run(["tmux", *self.sock, "kill-server"], capture_output=True)
