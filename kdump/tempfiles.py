"""kdump's own temporary files: spills of worker findings, spooled JSON, staged outputs.

Every one is created private (files ``0600`` inside a directory ``0700`` that
:func:`tempfile.mkdtemp` makes under ``$TMPDIR``), is removed when kdump is done with it
(on success, on error and on Ctrl-C: the callers remove their directory in a
``finally``; :func:`private_dir` also registers it for removal at exit), and is never
made inside the evidence: the local paths a walk was given are remembered
(:func:`protect`) and a temporary directory under one of them is refused with an
:class:`~kdump.errors.OutputError` naming both.  Reports and exports written to a file
go through :func:`staged`, a thin user of :mod:`kdump.output` (the one module that
publishes kdump's outputs): staged beside the target, renamed when complete.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from .errors import OutputError

#: the real paths of the local inputs of this process (see :func:`protect`)
_evidence: set[str] = set()
#: the private directories made and not removed yet, with the process that made each
#: (a forked worker inherits the set: only the maker removes at exit)
_made: dict[str, int] = {}


def protect(path: str) -> None:
    """Remember a local input: no temporary file goes under it."""
    if "://" in path:
        return
    try:
        _evidence.add(os.path.realpath(path))
    except (OSError, ValueError):
        pass


def forget() -> None:
    """A new run: no input remembered (a program that runs several commands)."""
    _evidence.clear()


def inside_evidence(path: str) -> str | None:
    """The input ``path`` lies in (itself or under it), if any."""
    real = os.path.realpath(path)
    for root in _evidence:
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            return root
    return None


def private_dir(prefix: str = "kdump-") -> str:
    """A new directory only this user can enter, under ``$TMPDIR``; never inside an
    input.  Remove it with :func:`remove` (it is also removed at exit)."""
    import tempfile  # here, not at start-up: most commands make no temporary file

    base = tempfile.gettempdir()
    root = inside_evidence(base)
    if root is not None:
        raise OutputError(f"the temporary directory {base} is inside the input {root}; "
                          "kdump writes nothing into evidence: set TMPDIR to another directory")
    try:
        path = tempfile.mkdtemp(prefix=prefix, dir=base)
    except OSError as e:
        raise OutputError(f"cannot create a temporary directory in {base}: "
                          f"{e.strerror or e}") from None
    _made[path] = os.getpid()
    return path


def remove(path: str | None) -> None:
    """Remove a directory :func:`private_dir` made, and everything in it."""
    if path is None:
        return
    import shutil

    shutil.rmtree(path, ignore_errors=True)
    _made.pop(path, None)


@atexit.register
def _remove_all() -> None:  # pragma: no cover - runs at interpreter exit
    for path, pid in list(_made.items()):
        if pid == os.getpid():
            remove(path)


@contextmanager
def staged(path: str, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO[Any]]:
    """Write a file to ``path`` through :func:`kdump.output.staged_file` (staged in a
    marked area beside it, renamed over ``path`` only when the block ends without an
    error: a full disk, Ctrl-C or a bug leaves no partial file claiming to be complete),
    never inside an input.  A path inside an input, a missing or read-only directory, a
    full disk: an :class:`~kdump.errors.OutputError` naming ``path`` and the OS reason."""
    from .output import staged_file

    target = os.path.abspath(path)
    root = inside_evidence(target)
    if root is not None:
        raise OutputError(f"is inside the input {root}; kdump writes nothing into evidence",
                          path=path)
    with staged_file(path, mode, encoding) as fh:
        yield fh


__all__ = ["forget", "inside_evidence", "private_dir", "protect", "remove", "staged"]
