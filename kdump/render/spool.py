"""``dump --format json --jobs N``'s writer: the JSON Lines renderer, which also writes
the text workers already rendered (:class:`kdump.ops.dump.parallel.Rendered`) as it is.

The workers render a file's events with :func:`file_renderer`: the renderer a serial
dump uses (the registry's ``dump`` family in ``json``), so the output is the same as
``--jobs 1``'s, byte for byte.  The walk, the pool and the spool files are the
operation's (:mod:`kdump.ops.dump.parallel`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, TextIO

from ..ops.dump.parallel import Rendered
from .jsonl import JsonRenderer
from .registry import renderer_class


class SpoolRenderer(JsonRenderer):
    """A :class:`JsonRenderer` that writes :class:`Rendered` text as it is."""

    def __init__(self, out: TextIO, *, payload_encoding: str = "utf8") -> None:
        super().__init__(out, payload_encoding=payload_encoding)

    def emit(self, item: object) -> None:
        if isinstance(item, Rendered):
            self.out.write(item.text)
        else:
            super().emit(item)


def file_renderer(payload_encoding: str = "utf8") -> partial[Any]:
    """What a worker renders one file's events with (picklable): the ``dump`` family's
    JSON renderer, as a serial dump makes it."""
    cls: Callable[..., Any] = renderer_class("dump", "json")
    return partial(cls, payload_encoding=payload_encoding)


__all__ = ["SpoolRenderer", "file_renderer"]
