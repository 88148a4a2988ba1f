"""``kdump metadata``: the KRaft cluster's metadata image at any offset or time, its
history and differences (no click, no rich: the CLI renders what this returns)."""

from .image import ApplyError, Change, MetadataImage
from .replay import Event, Replay, Sources, Target, find_sources, parse_point

__all__ = ["ApplyError", "Change", "Event", "MetadataImage", "Replay", "Sources", "Target",
           "find_sources", "parse_point"]
