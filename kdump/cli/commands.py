"""Imports every subcommand module, which registers it on the ``cli`` group."""

from . import (  # noqa: F401
    coordinator,
    dump,
    find,
    metadata,
    replicas,
    report,
    retention,
    schemas,
    spark,
    verify,
)
