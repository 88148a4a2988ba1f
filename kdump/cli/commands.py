"""Imports every subcommand module, which registers it on the ``cli`` group."""

from . import coordinator, dump, find, metadata, spark, verify  # noqa: F401
