"""Imports every subcommand module, which registers it on the ``cli`` group."""

from . import dump, verify  # noqa: F401
