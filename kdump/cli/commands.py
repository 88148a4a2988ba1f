"""Imports every subcommand module, which registers it on the ``cli`` group."""

from . import dump, find, verify  # noqa: F401
