"""Is a topic compacted?  What an explanation of a gap in a log's offsets rests on.

A time index entry whose offset lies in no batch, in a gap of the offsets before the
next batch, is compaction's doing only in a compacted topic (LogCleaner.cleanInto writes
the cleaned segment's time index; the offsets it removed leave gaps).  In a topic whose
``cleanup.policy`` is ``delete`` nothing removes offsets from the middle of a log: the
gap is damage (a zeroed page, a lost region) or a log written elsewhere.  The policy is
resolved as retention resolves it (:class:`~kdump.ops.topics.config.Resolver`): the
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
        from .evidence import read_metadata  # the replay retention reads configs with

        files = [f for f in walk([meta_dir]) if not isinstance(f, Problem)]
        try:
            metadata = read_metadata(files, max_batch_bytes)[0]
        except (KdumpError, OSError):  # an explanation never fails the check
            metadata = None
    return Resolver(metadata=metadata)


def compaction_policy(log_path: str, topic: str, max_batch_bytes: int
                      ) -> tuple[bool, str, bool]:
    """(whether ``topic`` is compacted, the ``cleanup.policy`` and where it came from,
    whether that is known), for the partition holding ``log_path``.  Known: the log dir
    holds KRaft metadata (which holds every topic override: none is ``delete``), or the
    topic is one Kafka creates with its policy; Kafka's default alone is not knowledge
    (a metadata log kept in another log dir may hold a ``compact`` override)."""
    log_dir = kfs.dirname(kfs.dirname(log_path).rstrip("/")) or "."
    resolver = _resolver(log_dir, max_batch_bytes)
    s = resolver.topic(topic, None)["cleanup.policy"]
    policy = ",".join(s.value) if isinstance(s.value, list) else str(s.value)
    known = resolver.metadata is not None or not s.source.startswith("default")
    return "compact" in s.value, f"cleanup.policy={policy}, {s.source}", known


def gap_entry_problem(path: str, where: int, slot: int, offset: int, first: int, last: int,
                      log_path: str, topic: str | None, max_batch_bytes: int) -> Problem:
    """A time index entry whose ``offset`` lies in the gap of offsets before the batch
    ``first``-``last``: compaction's only in a compacted topic (INFO), otherwise an offset
    the log lost (an error, as any entry naming an offset in no batch).  dump and
    verify-index both say it with these words."""
    from ...findings import INFO, WARNING

    compacted, why, known = (compaction_policy(log_path, topic, max_batch_bytes) if topic
                             else (False, "cleanup.policy unknown: no topic", False))
    extra = {"check": "compacted-away" if compacted else "offset-not-found",
             "index_offset": offset, "log_offset": last}
    if compacted:
        return Problem(path, where, "index-mismatch",
                       f"entry {slot}: offset {offset} was removed by compaction ({why}); "
                       f"lookups scan forward to the next batch (offsets {first}-{last})",
                       severity=INFO, extra=extra)
    missing = (f"entry {slot}: offset {offset} is in no batch: offsets before the batch "
               f"{first}-{last} are missing from the log; ")
    if known:
        return Problem(path, where, "index-mismatch",
                       missing + f"not compaction's doing ({why}): lost (the log's own "
                       "findings say where it is damaged)", extra=extra)
    # no KRaft metadata beside this log dir: the topic may be compacted by an override
    # kept elsewhere; neither compaction nor loss is proven
    return Problem(path, where, "index-mismatch",
                   missing + f"compaction removes offsets only in a compacted topic, and "
                   f"nothing here says this one is ({why}; no KRaft metadata in this log "
                   "dir): lost unless the topic is compacted", severity=WARNING, extra=extra)
