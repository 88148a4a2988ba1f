"""Imports every subcommand module, which registers it on the ``cli`` group."""

from . import coordinator, dump, export, find, metadata, replicas, report, schemas, spark, verify  # noqa: F401
