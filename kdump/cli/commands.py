"""Imports every subcommand module, which registers it on the ``cli`` group."""

from . import coordinator, dump, find, verify  # noqa: F401
