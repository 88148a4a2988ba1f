"""``python -m kdump``, and the ``kdump`` console script (pyproject.toml).

``kdump --version`` (or ``-V``) alone is answered here, before the command line is
imported: it needs no click and no core module, and its start-up is the interpreter's
plus this package's ``__init__`` (issue 33: at most 1.8x ``python -c pass``).  Any
other command line goes to :func:`kdump.cli.main`, which says the same for
``--version`` among other arguments (click's eager option).
"""

from __future__ import annotations

import os
import sys

#: what click's version option prints (tests/house/test_startup.py holds both to it)
VERSION_LINE = "kdump, version {}\n"


def _version() -> int:
    from .version import __version__

    try:
        sys.stdout.write(VERSION_LINE.format(__version__))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away: quiet, as kdump.cli's _exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except OSError as e:  # a full disk ...: one line, exit 2 (kdump/cli/exitcodes.py)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        sys.stderr.write(f"kdump: cannot write to standard output: "
                         f"{e.strerror or os.strerror(e.errno or 0)}\n")
        return 2
    return 0


def main() -> int:
    """The console entry point."""
    if sys.argv[1:] in (["--version"], ["-V"]):
        return _version()
    from kdump.cli import main as cli_main

    return int(cli_main())


if __name__ == "__main__":
    sys.exit(main())
