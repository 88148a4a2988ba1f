"""What a test needs from the machine (a system tool, a local server) and is not there: a
skip saying why on a developer's machine, a failure under CI (``CI=true``, as .ci/run
sets), where .ci/run provides it and its absence must not pass as skipped tests."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def under_ci() -> bool:
    """True under CI (``CI`` set to anything but empty, 0 or false; .ci/run sets it)."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def missing(message: str) -> NoReturn:
    """Skip saying ``message``; under CI, fail saying it."""
    if under_ci():
        pytest.fail(f"{message}; under CI this is a failure, not a skip")
    pytest.skip(message)


def require_tool(name: str, path: str | None, why: str) -> str:
    """``path`` when the tool was found; else :func:`missing`, naming the tool."""
    if path is None:
        missing(f"{name} is not installed ({why})")
    return path
