"""Is a topic compacted?  What an explanation of a gap in a log's offsets rests on.

A time index entry whose offset lies in no batch, in a gap of the offsets before the
next batch, is compaction's doing only in a compacted topic (LogCleaner.cleanInto writes
the cleaned segment's time index; the offsets it removed leave gaps).  In a topic whose
``cleanup.policy`` is ``delete`` nothing removes offsets from the middle of a log: the
gap is damage (a zeroed page, a lost region) or a log written elsewhere.  The policy is
resolved as retention resolves it (:class:`~kdump.ops.cleanup.config.Resolver`): the
KRaft metadata of the log dir (its ``__cluster_metadata`` replica, a topic's dynamic
config), Kafka's own topics' creation configs, the cluster default, Kafka's default
(``delete``).  Read once per log dir, and only when a gap needs explaining.
"""

from __future__ import annotations

from functools import lru_cache

from ... import fs as kfs
from ...errors import KdumpError
from ...files.logdir import walk
from ...findings import Problem
from .config import MetadataConfigs, Resolver


@lru_cache(maxsize=16)
def _resolver(log_dir: str, max_batch_bytes: int) -> Resolver:
    metadata: MetadataConfigs | None = None
    meta_dir = f"{log_dir.rstrip('/') or '/'}/__cluster_metadata-0"
    try:
        present = kfs.isdir(meta_dir)
    except OSError:
        present = False
    if present:
        from ..retention import _metadata  # the replay retention reads configs with

        files = [f for f in walk([meta_dir]) if not isinstance(f, Problem)]
        try:
            metadata = _metadata(files, max_batch_bytes)[0]
        except (KdumpError, OSError):  # an explanation never fails the check
            metadata = None
    return Resolver(metadata=metadata)


def compaction_policy(log_path: str, topic: str, max_batch_bytes: int
                      ) -> tuple[bool, str]:
    """(whether ``topic`` is compacted, the ``cleanup.policy`` and where it came from),
    for the partition holding ``log_path``."""
    log_dir = kfs.dirname(kfs.dirname(log_path).rstrip("/")) or "."
    s = _resolver(log_dir, max_batch_bytes).topic(topic, None)["cleanup.policy"]
    policy = ",".join(s.value) if isinstance(s.value, list) else str(s.value)
    return "compact" in s.value, f"cleanup.policy={policy}, {s.source}"


def gap_entry_problem(path: str, where: int, slot: int, offset: int, first: int, last: int,
                      log_path: str, topic: str | None, max_batch_bytes: int) -> Problem:
    """A time index entry whose ``offset`` lies in the gap of offsets before the batch
    ``first``-``last``: compaction's only in a compacted topic (INFO), otherwise an offset
    the log lost (an error, as any entry naming an offset in no batch).  dump and
    verify-index both say it with these words."""
    from ...findings import INFO

    compacted, why = (compaction_policy(log_path, topic, max_batch_bytes) if topic
                      else (False, "cleanup.policy unknown: no topic"))
    extra = {"check": "compacted-away" if compacted else "offset-not-found",
             "index_offset": offset, "log_offset": last}
    if compacted:
        return Problem(path, where, "index-mismatch",
                       f"entry {slot}: offset {offset} was removed by compaction ({why}); "
                       f"lookups scan forward to the next batch (offsets {first}-{last})",
                       severity=INFO, extra=extra)
    return Problem(path, where, "index-mismatch",
                   f"entry {slot}: offset {offset} is in no batch: offsets before the batch "
                   f"{first}-{last} are missing from the log; not compaction's doing "
                   f"({why}): lost (the log's own findings say where it is damaged)",
                   extra=extra)
