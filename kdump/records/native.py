"""The optional native extension, for the records layer: see :mod:`kdump.native`."""

from __future__ import annotations

from ..native import speedups

__all__ = ["speedups"]
