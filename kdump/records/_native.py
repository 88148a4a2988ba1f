"""The optional native extension, for the records layer: see :mod:`kdump._native`."""

from __future__ import annotations

from .._native import speedups

__all__ = ["speedups"]
