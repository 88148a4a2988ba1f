"""Imports every subcommand module, which registers it on the ``cli`` group."""

from . import coordinator, dump, find, metadata, replicas, report, spark, verify  # noqa: F401
