"""Imports every subcommand module, which registers it on the ``cli`` group."""

from . import coordinator, dump, find, replicas, spark, verify  # noqa: F401
