"""The optional native extension :mod:`kdump._speedups`, chosen at import time.

``speedups`` is the extension module when it was built (``pip install`` compiles it
where a C compiler exists) and ``None`` otherwise, or when the environment variable
``KDUMP_PURE_PYTHON`` is set to anything but ``0``: then every caller runs its
pure-Python twin, which gives identical results (tests/native/test_speedups.py proves it).
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType


def _load() -> ModuleType | None:
    if os.environ.get("KDUMP_PURE_PYTHON", "0") not in ("", "0"):
        return None
    try:
        return importlib.import_module("kdump._speedups")
    except ImportError:
        return None


speedups: ModuleType | None = _load()

__all__ = ["speedups"]
