"""Rough edges of the command line (issues 16 and 18): each test fails on the main of
before the fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import KdumpRunner, subprocess_env

ROOT = Path(__file__).resolve().parent.parent

#: runs kdump's entry point in a child whose import of click (one of the heavy imports
#: that follow the handler) delivers a SIGINT to itself: a Ctrl-C in the first
#: milliseconds, made deterministic
_SIGINT_DURING_IMPORTS = """
import os, signal, sys
class Hook:
    def find_spec(self, name, path=None, target=None):
        if name == "click":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None
sys.meta_path.insert(0, Hook())
sys.argv = ["kdump", "dump", sys.argv[1]]
from kdump.cli import main
main()
"""


def test_sigint_while_starting_prints_no_traceback(sample_dir: Path) -> None:
    r = subprocess.run([sys.executable, "-c", _SIGINT_DURING_IMPORTS, str(sample_dir)],
                       capture_output=True, text=True, env=subprocess_env(), cwd=ROOT,
                       timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (130, "", "kdump: interrupted\n")


def test_importing_the_cli_leaves_sigint_alone() -> None:
    """A program (or pytest) importing kdump.cli keeps Python's KeyboardInterrupt."""
    code = ("import signal, kdump.cli; "
            "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=subprocess_env(), cwd=ROOT, timeout=60)
    assert r.stdout == "True\n", r.stderr
