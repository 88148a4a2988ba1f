"""Imports every subcommand module, which registers it on the ``cli`` group."""

from . import dump  # noqa: F401
