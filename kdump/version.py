"""kdump's version: one string on the ground floor, which the package's face
(``kdump.__version__``), ``kdump --version``, the man pages and the report's custody
block all read (pyproject.toml says the same: tests/house/test_layering.py checks it)."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
