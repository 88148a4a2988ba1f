"""What the renderers of rows share: :class:`ObjectRenderer` (objects with ``to_json()``,
problems on stderr) and :func:`human` (a size in binary units).  Each command's
renderers live in ``render/<command>.py``."""

from __future__ import annotations

from typing import Any, TextIO

from ..findings import Problem
from ..textsafe import InertLines
from .common import problem_line


class ObjectRenderer:
    """Base of the renderers of objects with ``to_json()`` (rows, answers): problems go
    to stderr one line each; subclasses render the objects in :meth:`row`."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out = InertLines(out)
        self.err = InertLines(err)

    def emit(self, item: object) -> None:
        if isinstance(item, Problem):
            self.err.write(problem_line(item) + "\n")
            return
        if isinstance(item, dict):  # objects already in their JSON shape (metadata)
            self.row(item)
            return
        to_json = getattr(item, "to_json", None)
        if to_json is not None:
            self.row(to_json())

    def row(self, d: dict[str, Any]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.out.flush()


def human(n: int | None) -> str:
    if n is None:
        return "-"
    f = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(f) < 1024 or unit == "TiB":
            return f"{f:.0f} {unit}" if unit == "B" else f"{f:.1f} {unit}"
        f /= 1024
    return str(n)
