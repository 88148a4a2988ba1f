"""Waiting on a Textual app driven by its pilot: until a condition holds, the app (and
its workers) running meanwhile.  A hang guard, never a speed claim: a loaded machine
only makes the wait longer."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


async def until(pilot: Any, cond: Callable[[], object], what: str = "",
                timeout: float = 60.0) -> None:
    """Return once ``cond()`` is true; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what}")
        await pilot.pause(0.02)
