"""Renderers: turn the objects commands produce into text, JSON Lines or rich tables.

A renderer is given its output streams by the caller (tests pin exact output) and has
two methods: ``emit(item)`` for each object, ``close()`` at the end (deferred
summaries, such as DumpLogSegments' end-of-run stderr blocks).
"""

from __future__ import annotations

from typing import Protocol


class Renderer(Protocol):
    def emit(self, item: object) -> None: ...

    def close(self) -> None: ...
